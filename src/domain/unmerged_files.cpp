#include "small/domain/unmerged_files.hpp"

#include <algorithm>
#include <optional>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/git.hpp"

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

// What git's merge state says about every unmerged file of `repo`: the
// branches of an octopus git stopped in, whether small's driver is set.
struct StoppedMergeState {
    std::vector<std::string> octopus;
    bool driver_registered = false;
};

Result<StoppedMergeState> read_stopped_merge_state(const GitRepo& repo) {
    StoppedMergeState state;
    Result<std::optional<std::string>> driver = repo.effective_config("merge.small.driver");
    if (!driver) return driver.error();
    state.driver_registered = driver->has_value() && !(*driver)->empty();
    Result<std::vector<std::string>> heads = repo.merge_heads();
    if (!heads) return heads.error();
    if (heads->size() < 2) return state;
    Result<std::optional<std::string>> message = repo.prepared_message();
    if (!message) return message.error();
    state.octopus = branches_in_merge_message(message->value_or(""));
    if (state.octopus.size() != heads->size()) state.octopus = *heads;
    return state;
}

UnmergedFile with_merge_state(UnmergedFile file, const StoppedMergeState& state) {
    file.octopus = state.octopus;
    file.driver_registered = state.driver_registered;
    return file;
}

std::optional<UnmergedFile> find_unmerged(const GitRepo& repo, const std::string& rel, Status& error) {
    Result<std::vector<GitIndexConflict>> conflicts = repo.index_conflicts(rel);
    if (!conflicts) {
        error = conflicts.error();
        return std::nullopt;
    }
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path != rel) continue;
        Result<StoppedMergeState> state = read_stopped_merge_state(repo);
        if (!state) {
            error = state.error();
            return std::nullopt;
        }
        return with_merge_state(merge_stages(c), *state);
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
    if (conflicts->empty()) return files;
    Result<StoppedMergeState> state = read_stopped_merge_state(**repo);
    if (!state) return state.error();
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path.find('/', prefix.size()) != std::string::npos) continue;  // below .small/: not an artifact
        files.push_back(with_merge_state(merge_stages(c), *state));
    }
    return files;
}

CleanMergeAdvice clean_merge_advice(const UnmergedFile& file) {
    const std::string path = shell_quote(file.path);
    if (!file.octopus.empty()) {
        std::string branches;
        for (const std::string& b : file.octopus) branches += " " + shell_quote(b);
        return {"git merged " + std::to_string(file.octopus.size()) +
                    " branches at once with its octopus strategy, which never runs merge drivers; merge them with "
                    "small's strategy instead",
                std::string("git merge --abort && ") + (file.driver_registered ? "" : "small hooks install git && ") +
                    "git merge -s small" + branches};
    }
    return {"git merged it without the driver, or the registered driver failed",
            "small hooks install git, then: git checkout -m -- " + path + " && git add -- " + path};
}

std::vector<std::string> branches_in_merge_message(std::string_view message) {
    std::string_view line = message.substr(0, message.find('\n'));
    if (line.starts_with("Merge branches ")) line.remove_prefix(std::string_view("Merge branches ").size());
    else if (line.starts_with("Merge branch ")) line.remove_prefix(std::string_view("Merge branch ").size());
    else return {};
    // A branch name holds no space (git check-ref-format): the words are
    // 'a', (with a comma after all but the last two) "and", and " into X".
    std::vector<std::string> out;
    for (std::size_t at = 0; at < line.size();) {
        const std::size_t end = std::min(line.find(' ', at), line.size());
        std::string_view word = line.substr(at, end - at);
        at = end + 1;
        if (word == "and") continue;
        if (word == "into") break;
        if (word.ends_with(',')) word.remove_suffix(1);
        if (word.size() < 3 || word.front() != '\'' || word.back() != '\'') return {};
        out.emplace_back(word.substr(1, word.size() - 2));
    }
    return out;
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
    // D21: what merges renamed is not a conflict; the log records it.
    std::string renamed;
    if (Result<std::string> log = fs.read_file(join_path(folder, "progress.small.yml"))) {
        for (const RecordedRename& r : recorded_renames(*log)) {
            renamed += (renamed.empty() ? "" : "; ") + describe_rename(r.rename) + " at " + r.timestamp;
        }
    }
    return Error::invalid("git's index holds no unresolved conflict for " + path +
                          (candidates.empty() ? "" : " (" + candidates.front() + " in " + repo->workdir() + ")") +
                          ": give the three files instead (small merge --explain BASE OURS THEIRS PATH)" +
                          (renamed.empty() ? ""
                                           : ". Task ids merges renamed (both sides had added them; the other "
                                             "side's task took the new id with its entries): " +
                                                 renamed));
}

}  // namespace small
