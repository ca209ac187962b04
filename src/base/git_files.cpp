// What git's own files say, read as text: HEAD, the work trees, the branch tips (see the header).
#include "small/base/git.hpp"

#include "small/base/path.hpp"
#include "small/base/text.hpp"

namespace small {

namespace {

// The refs `git_dir`'s packed-refs names whose name starts with `prefix`:
// ref -> commit id ("<40 hex> <ref>" lines; comments and peeled "^" lines skipped).
std::map<std::string, std::string> packed_refs(const FileSystem& fs, const std::string& git_dir,
                                               std::string_view prefix) {
    std::map<std::string, std::string> refs;
    Result<std::string> packed = fs.read_file(git_dir + "/packed-refs");
    if (!packed) return refs;
    for (std::string_view line : split_lines(*packed)) {
        if (line.size() > 41 && line[40] == ' ' && line.substr(41).starts_with(prefix)) {
            refs[std::string(trim(line.substr(41)))] = std::string(line.substr(0, 40));
        }
    }
    return refs;
}

// The commit id of `ref` in `git_dir`: its loose file, else packed-refs.
std::string ref_sha(const FileSystem& fs, const std::string& git_dir, const std::string& ref) {
    if (Result<std::string> loose = fs.read_file(git_dir + "/" + ref)) return std::string(trim(*loose));
    std::map<std::string, std::string> packed = packed_refs(fs, git_dir, ref);
    const auto found = packed.find(ref);
    return found == packed.end() ? std::string() : found->second;
}

// The ref a HEAD file names ("ref: refs/heads/x"), "" when detached or unreadable.
std::string ref_of_head(const FileSystem& fs, const std::string& head_file) {
    Result<std::string> text = fs.read_file(head_file);
    if (!text) return {};
    const std::string_view t = trim(*text);
    return t.starts_with("ref: ") ? std::string(trim(t.substr(5))) : std::string();
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

std::vector<GitWorkTreeHead> read_work_tree_heads(const FileSystem& fs, const std::string& common_dir) {
    std::vector<GitWorkTreeHead> out;
    if (common_dir.ends_with("/.git")) {
        out.push_back({common_dir.substr(0, common_dir.size() - 5), ref_of_head(fs, common_dir + "/HEAD")});
    }
    Result<std::vector<DirEntry>> linked = fs.list_directory(common_dir + "/worktrees");
    if (!linked) return out;
    for (const DirEntry& e : *linked) {
        const std::string dir = common_dir + "/worktrees/" + e.name;
        Result<std::string> gitdir = fs.read_file(dir + "/gitdir");  // "<root>/.git"
        if (!gitdir) continue;
        const std::string dot_git(trim(*gitdir));
        if (!dot_git.ends_with("/.git")) continue;
        out.push_back({dot_git.substr(0, dot_git.size() - 5), ref_of_head(fs, dir + "/HEAD")});
    }
    return out;
}

std::map<std::string, std::string> read_branch_tips(const FileSystem& fs, const std::string& common_dir) {
    std::map<std::string, std::string> tips = packed_refs(fs, common_dir, "refs/heads/");
    std::vector<std::string> dirs = {"refs/heads"};
    while (!dirs.empty()) {
        const std::string dir = dirs.back();
        dirs.pop_back();
        Result<std::vector<DirEntry>> entries = fs.list_directory(common_dir + "/" + dir);
        if (!entries) continue;
        for (const DirEntry& e : *entries) {
            const std::string ref = dir + "/" + e.name;
            if (e.is_directory) {
                dirs.push_back(ref);
            } else if (Result<std::string> tip = fs.read_file(common_dir + "/" + ref); tip && trim(*tip).size() >= 40) {
                tips[ref] = std::string(trim(*tip).substr(0, 40));
            }
        }
    }
    return tips;
}

}  // namespace small
