#include "small/base/merge_strategy.hpp"

#include <algorithm>
#include <cstdlib>

#include "small/base/path.hpp"
#include "small/base/text.hpp"

namespace small {

namespace {

// The absolute folders of a PATH value, in order.
std::vector<std::string> strategy_search_folders(std::string_view path) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= path.size();) {
        const std::size_t colon = std::min(path.find(':', at), path.size());
        const std::string_view folder = path.substr(at, colon - at);
        if (is_absolute_path(folder)) out.emplace_back(folder);
        at = colon + 1;
    }
    return out;
}

// Whether `path` is (or links to) a regular file someone may execute.
bool is_runnable_program(const FileSystem& fs, const std::string& path) {
    const std::optional<std::string> real = fs.real_path(path);
    if (!real) return false;
    const std::optional<FileInfo> info = fs.stat(*real);
    return info && info->kind == FileKind::Regular && (info->mode & 0111) != 0;
}

// The first `name` among `folders` that is a program, "" when none.
std::string first_runnable_program(const FileSystem& fs, const std::vector<std::string>& folders, std::string_view name) {
    for (const std::string& folder : folders) {
        const std::string candidate = join_path(folder, name);
        if (is_runnable_program(fs, candidate)) return candidate;
    }
    return "";
}

std::string strategy_link_command(const std::string& target, const std::string& folder) {
    return "ln -s " + shell_quote(target) + " " + shell_quote(join_path(folder, kMergeStrategyProgram));
}

}  // namespace

MergeStrategyReach find_merge_strategy(const FileSystem& fs, std::string_view path,
                                       const std::vector<std::string>& exec_path, const std::string& self) {
    MergeStrategyReach r;
    const std::vector<std::string> folders = strategy_search_folders(path);
    r.found = first_runnable_program(fs, exec_path, kMergeStrategyProgram);
    if (r.found.empty()) r.found = first_runnable_program(fs, folders, kMergeStrategyProgram);
    r.small = first_runnable_program(fs, folders, "small");
    if (!r.found.empty()) return r;
    const std::string strategy = "`git merge -s small` runs " + std::string(kMergeStrategyProgram) +
                                 " (small under that name), and git finds none on PATH or in its exec-path";
    if (r.small.empty()) {
        // git runs the merge driver as `small merge` too: small's folder belongs on PATH.
        const std::string folder = self.empty() ? std::string("the folder holding small") : parent_path(self);
        r.problem = strategy + "; small itself is not on PATH either (git runs the merge driver as `small merge`): "
                               "add " + folder + " to PATH, and link the strategy beside small";
        r.fix = strategy_link_command("small", folder);
        return r;
    }
    r.problem = strategy + "; link it beside " + r.small;
    const std::string folder = parent_path(r.small);
    if (fs.write_access_errno(folder) == 0) {
        r.fix = strategy_link_command("small", folder);
        return r;
    }
    // small's folder is not ours to write (a system folder): a folder on PATH that is.
    for (const std::string& other : folders) {
        if (other != folder && fs.directory_exists(other) && fs.write_access_errno(other) == 0) {
            r.fix = strategy_link_command(r.small, other);
            return r;
        }
    }
    r.fix = "sudo " + strategy_link_command("small", folder);
    return r;
}

MergeStrategyReach find_merge_strategy(const FileSystem& fs) {
    const char* path = std::getenv("PATH");
    std::vector<std::string> exec_path;
    if (const char* git_exec_path = std::getenv("GIT_EXEC_PATH"); git_exec_path && *git_exec_path) {
        exec_path.emplace_back(git_exec_path);
    } else {
        exec_path = {"/usr/lib/git-core", "/usr/libexec/git-core"};
    }
    const std::optional<std::string> self = fs.real_path("/proc/self/exe");
    return find_merge_strategy(fs, path ? path : "", exec_path, self.value_or(""));
}

}  // namespace small
