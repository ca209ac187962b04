// HEAD's commit and branch, from git's own files (see the header).
#include "small/base/git_head.hpp"

#include <algorithm>

#include "small/base/path.hpp"
#include "small/base/text.hpp"

namespace small {

namespace {

// Reads the file `name` of HEAD's ref, or of packed-refs.
std::string ref_sha(const FileSystem& fs, const std::string& git_dir, const std::string& ref) {
    if (Result<std::string> loose = fs.read_file(git_dir + "/" + ref)) return std::string(trim(*loose));
    Result<std::string> packed = fs.read_file(git_dir + "/packed-refs");
    if (!packed) return {};
    const std::string suffix = " " + ref;
    for (std::size_t pos = 0; pos < packed->size();) {
        const std::size_t eol = std::min(packed->find('\n', pos), packed->size());
        const std::string_view line(packed->data() + pos, eol - pos);
        if (line.size() > suffix.size() && line.substr(line.size() - suffix.size()) == suffix) {
            return std::string(line.substr(0, line.size() - suffix.size()));
        }
        pos = eol + 1;
    }
    return {};
}

}  // namespace

std::optional<GitDirs> find_git_dirs(const FileSystem& fs, const std::string& root) {
    for (std::string dir = root;; dir = parent_path(dir)) {
        std::string git = join_path(dir, ".git");
        if (fs.file_exists(git)) {  // a worktree or submodule: "gitdir: <path>"
            Result<std::string> link = fs.read_file(git);
            if (!link || link->rfind("gitdir:", 0) != 0) return std::nullopt;
            const std::string target(trim(std::string_view(*link).substr(7)));
            git = is_absolute_path(target) ? target : join_path(dir, target);
        } else if (!fs.directory_exists(git)) {
            if (dir == parent_path(dir) || dir.empty()) return std::nullopt;
            continue;
        }
        GitDirs d{git, git, dir};
        if (Result<std::string> c = fs.read_file(git + "/commondir")) {  // linked worktrees share it
            const std::string cd(trim(*c));
            if (!cd.empty()) d.common_dir = normal_dir_path(cd[0] == '/' ? cd : git + "/" + cd);
        }
        return d;
    }
}

GitFacts read_git_facts(const FileSystem& fs, const std::string& root) {
    GitFacts g;
    const std::optional<GitDirs> dirs = find_git_dirs(fs, root);
    if (!dirs) return g;
    Result<std::string> head = fs.read_file(dirs->git_dir + "/HEAD");
    if (!head) return g;
    const std::string_view h = trim(*head);
    if (h.rfind("ref: ", 0) == 0) {
        const std::string ref(trim(h.substr(5)));
        if (ref.rfind("refs/heads/", 0) == 0) g.branch = ref.substr(11);
        g.sha = ref_sha(fs, dirs->git_dir, ref);
        if (g.sha.empty()) g.sha = ref_sha(fs, dirs->common_dir, ref);
    } else {
        g.sha = std::string(h);
    }
    if (!(g.sha.size() == 40 && is_lower_hex(g.sha))) g.sha.clear();
    return g;
}

}  // namespace small
