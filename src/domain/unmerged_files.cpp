#include "small/domain/unmerged_files.hpp"

#include <optional>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/git_repo.hpp"

namespace small {

namespace {

MergeConflict whole_file_conflict(std::string message, std::string hint) {
    return MergeConflict{"", "", std::move(message), std::move(hint)};
}

// The driver's rule over one conflicted path's stages; never an error:
// what stops the merge becomes its conflict.
UnmergedFile merge_stages(const GitIndexConflict& c) {
    UnmergedFile file;
    file.path = c.path;
    const MergeKind kind = merge_kind_for(c.path);
    file.rule = merge_rule_name(kind);
    if (!c.ours || !c.theirs) {
        const bool kept_here = c.ours.has_value();
        file.outcome.conflicts.push_back(whole_file_conflict(
            c.path + (kept_here ? " was deleted on the other side and changed on this side"
                                : " was deleted on this side and changed on the other side"),
            "keep it (git checkout --" + std::string(kept_here ? "ours" : "theirs") + " -- " + shell_quote(c.path) +
                " && git add -- " + shell_quote(c.path) + ") or remove it (git rm -- " + shell_quote(c.path) + ")"));
        return file;
    }
    // Added on both sides (no ancestor): every entry or task is new on both.
    Result<MergeOutcome> outcome = merge_by_rule(kind, c.ancestor.value_or(""), *c.ours, *c.theirs, c.path);
    if (!outcome) {
        file.outcome.conflicts.push_back(whole_file_conflict(
            "a side cannot be merged: " + outcome.error().message,
            "repair that side (restore the entry it changed, or fix the YAML), then merge again"));
        return file;
    }
    file.outcome = std::move(*outcome);
    return file;
}

std::optional<UnmergedFile> find_unmerged(const GitRepo& repo, const std::string& rel, Status& error) {
    Result<std::vector<GitIndexConflict>> conflicts = repo.index_conflicts(rel);
    if (!conflicts) {
        error = conflicts.error();
        return std::nullopt;
    }
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path == rel) return merge_stages(c);
    }
    return std::nullopt;
}

}  // namespace

Result<std::vector<UnmergedFile>> unmerged_workspace_files(const WorkspacePaths& ws) {
    std::vector<UnmergedFile> files;
    Result<std::optional<GitRepo>> repo = GitRepo::discover(ws.root);
    if (!repo) return repo.error();
    if (!*repo) return files;
    const std::optional<std::string> dir = path_in_workdir((*repo)->workdir(), ws.small_dir);
    if (!dir) return files;
    const std::string prefix = dir->empty() ? "" : *dir + "/";
    Result<std::vector<GitIndexConflict>> conflicts = (*repo)->index_conflicts(prefix);
    if (!conflicts) return conflicts.error();
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path.find('/', prefix.size()) != std::string::npos) continue;  // below .small/: not an artifact
        files.push_back(merge_stages(c));
    }
    return files;
}

Result<UnmergedFile> unmerged_file(const FileSystem& fs, const std::string& path, const std::string& cwd) {
    // The repository holding the file's folder when it exists, else cwd's.
    const std::string abs = absolute_path(cwd, path);
    const std::string folder = parent_path(abs);
    Result<GitRepo> repo = open_workspace_repo(fs.directory_exists(folder) ? folder : cwd, "small merge --explain FILE");
    if (!repo) return repo.error();
    // From here first; then, for a relative path, from the repository's top,
    // as git prints paths (`sub/.small/plan.small.yml` from inside `sub/`).
    // The file itself may be gone (deleted on this side): its folder is resolved.
    std::vector<std::string> candidates;
    if (const std::optional<std::string> dir = path_in_workdir(repo->workdir(), folder)) {
        candidates.push_back((dir->empty() ? "" : *dir + "/") + file_name(abs));
    }
    if (!is_absolute_path(path)) candidates.push_back(normal_path(path));
    Status error = ok_status();
    for (const std::string& rel : candidates) {
        if (std::optional<UnmergedFile> found = find_unmerged(*repo, rel, error)) return std::move(*found);
        if (!error) return error.error();
    }
    return Error::invalid("git's index holds no unresolved conflict for " + path +
                          (candidates.empty() ? "" : " (" + candidates.front() + " in " + repo->workdir() + ")") +
                          ": give the three files instead (small merge --explain BASE OURS THEIRS PATH)");
}

}  // namespace small
