#include "small/domain/pre_commit_hook.hpp"

#include <algorithm>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

const std::string kPre(kPreCommitHookName);
const std::string kChained(kChainedHookName);

// "sub/" → "sub", "" → "." (as `small check --dir` takes it).
std::string workspace_dir_of(const std::string& prefix) {
    return prefix.empty() ? "." : prefix.substr(0, prefix.size() - 1);
}

// A folder as a command's argument: "./-x" for "-x", which would read as a flag.
std::string dir_argument(const std::string& dir) { return !dir.empty() && dir[0] == '-' ? "./" + dir : dir; }

// "the workspace at a" or "the workspaces at a, b".
std::string workspaces_at(const std::vector<std::string>& prefixes) {
    std::string out = prefixes.size() == 1 ? "the workspace at " : "the workspaces at ";
    for (std::size_t i = 0; i < prefixes.size(); ++i) out += (i ? ", " : "") + workspace_dir_of(prefixes[i]);
    return out;
}

Status refuse_odd(const HookFileState& state, const std::string& path) {
    if (state.kind == HookFileState::Kind::Link) {
        return Error::invalid("refusing to change " + path +
                              ": it is a symbolic link (small does not follow or replace it; move it away or chain "
                              "it by hand)");
    }
    if (state.kind == HookFileState::Kind::Other) {
        return Error::invalid("refusing to change " + path + ": it is not a regular file");
    }
    return ok_status();
}

bool same_file(const HookFileState& a, const HookFileState& b) { return a.device == b.device && a.inode == b.inode; }

bool is_ours(const HookFileState& state) {
    return state.kind == HookFileState::Kind::Regular && is_small_pre_commit_hook(state.content);
}

HookFileChange change_of(const std::string& path, std::string change, const HookFileState* old_state,
                         std::string new_content) {
    HookFileChange c;
    c.path = path;
    c.change = std::move(change);
    c.existed = old_state != nullptr && old_state->kind == HookFileState::Kind::Regular;
    if (c.existed) c.old_content = old_state->content;
    c.new_content = std::move(new_content);
    return c;
}

std::string chained_path(const GitPlace& place) { return join_path(place.hooks_dir, kChained); }

// A hook manager (husky, lefthook, ...) or the repository's own committed
// hooks own a core.hooksPath folder: a chained hook there would be
// overwritten by the manager, or show up as a change to commit. Nothing is
// written, the merge driver included (`driver_by_hand`: how to register
// what install would have, "" when it is registered already).
Error refuse_managed_folder(const GitPlace& place, const std::string& pre_path, const std::string& driver_by_hand) {
    Error e = Error::invalid("refusing to chain " + pre_path + ": core.hooksPath (" + place.hooks_path +
                             ") names a folder that a hook manager or the repository owns, where a replaced hook "
                             "would be overwritten or committed; nothing was changed");
    e.hint = "run `small check --strict --dir " + shell_quote(dir_argument(workspace_dir_of(place.prefix))) +
             "` from that pre-commit hook instead (with husky, add it to .husky/pre-commit)";
    if (!driver_by_hand.empty()) e.hint += ". The merge driver was not registered either: " + driver_by_hand;
    return e;
}

// Install over a hook that is not small's: it is kept as the chained hook.
Result<std::vector<HookFileChange>> chain_foreign_hook(const FileSystem& fs, const GitPlace& place, const PreCommitFiles& now,
                                                       const std::string& want, const std::string& driver_by_hand,
                                                       std::vector<std::string>& notes) {
    const std::string pre_path = pre_commit_path(place);
    if (!place.hooks_path.empty()) return refuse_managed_folder(place, pre_path, driver_by_hand);
    const bool have_chained = now.chained.kind == HookFileState::Kind::Regular;
    if (have_chained && !same_file(now.pre, now.chained)) {
        Error e = Error::invalid("refusing to install: " + pre_path + " is not small's hook and " +
                                 chained_path(place) + " exists too; nothing was changed");
        e.hint = "merge the two hooks by hand, or move one of them away, then run the command again";
        return e;
    }
    if (Status writable = check_writable_file(fs, pre_path); !writable) return writable.error();
    notes.push_back("the existing pre-commit hook is kept as " + chained_path(place) + " and still runs first");
    // Both names on one file: an install stopped between its two steps.
    const HookFileState* linked = have_chained ? &now.chained : nullptr;
    return std::vector<HookFileChange>{change_of(chained_path(place), "chained", linked, now.pre.content),
                                       change_of(pre_path, "updated", &now.pre, want)};
}

}  // namespace

Result<PreCommitFiles> read_pre_commit_files(const GitPlace& place) {
    Result<HookFileState> pre = read_hook_file(place.hooks_dir, kPre);
    if (!pre) return pre.error();
    Result<HookFileState> chained = read_hook_file(place.hooks_dir, kChained);
    if (!chained) return chained.error();
    return PreCommitFiles{std::move(*pre), std::move(*chained)};
}

std::string pre_commit_path(const GitPlace& place) { return join_path(place.hooks_dir, kPre); }

std::string wanted_pre_commit_hook(const GitPlace& place, const HookFileState& pre) {
    std::vector<std::string> prefixes = is_ours(pre) ? pre_commit_hook_prefixes(pre.content) : std::vector<std::string>{};
    prefixes.push_back(place.prefix);
    return pre_commit_hook_text(prefixes);
}

Result<std::vector<HookFileChange>> plan_pre_commit_install(const FileSystem& fs, const GitPlace& place, const PreCommitFiles& now,
                                                            const std::string& driver_by_hand,
                                                            std::vector<std::string>& notes) {
    const std::string pre_path = pre_commit_path(place);
    if (Status odd = refuse_odd(now.pre, pre_path); !odd) return odd.error();
    if (Status odd = refuse_odd(now.chained, chained_path(place)); !odd) return odd.error();
    const std::string want = wanted_pre_commit_hook(place, now.pre);
    if (is_ours(now.pre)) {
        std::vector<std::string> others = pre_commit_hook_prefixes(want);
        std::erase(others, place.prefix);
        if (!others.empty()) notes.push_back("the hook also checks " + workspaces_at(others));
        const std::string change = now.pre.content == want ? "unchanged" : "updated";
        return std::vector<HookFileChange>{change_of(pre_path, change, &now.pre, want)};
    }
    if (now.pre.kind == HookFileState::Kind::Regular) return chain_foreign_hook(fs, place, now, want, driver_by_hand, notes);
    if (now.chained.kind == HookFileState::Kind::Regular) {
        notes.push_back("the hook runs the existing " + chained_path(place) + " first");
    }
    return std::vector<HookFileChange>{change_of(pre_path, "created", nullptr, want)};
}

Result<std::vector<HookFileChange>> plan_pre_commit_uninstall(const GitPlace& place, const PreCommitFiles& now,
                                                              std::vector<std::string>& notes) {
    const std::string pre_path = pre_commit_path(place);
    const bool ours = is_ours(now.pre);
    if (!ours && now.pre.kind != HookFileState::Kind::Missing) {
        notes.push_back(pre_path + " is not small's hook; left alone");
        if (now.chained.kind != HookFileState::Kind::Missing) notes.push_back(chained_path(place) + " left alone");
        return std::vector<HookFileChange>{};
    }
    if (ours) {
        // Other workspaces of the repository keep the hook.
        std::vector<std::string> prefixes = pre_commit_hook_prefixes(now.pre.content);
        const bool listed = std::find(prefixes.begin(), prefixes.end(), place.prefix) != prefixes.end();
        std::erase(prefixes, place.prefix);
        if (!listed && !prefixes.empty()) {
            notes.push_back("the hook does not check this workspace (it checks " + workspaces_at(prefixes) + "); left alone");
            return std::vector<HookFileChange>{};
        }
        if (!prefixes.empty()) {
            notes.push_back("the hook still checks " + workspaces_at(prefixes));
            return std::vector<HookFileChange>{change_of(pre_path, "updated", &now.pre, pre_commit_hook_text(prefixes))};
        }
    }
    if (Status odd = refuse_odd(now.chained, chained_path(place)); !odd) return odd.error();
    if (now.chained.kind == HookFileState::Kind::Regular) {
        return std::vector<HookFileChange>{change_of(chained_path(place), "removed", &now.chained, ""),
                                           change_of(pre_path, "restored", &now.pre, now.chained.content)};
    }
    if (!ours) {
        notes.push_back("no small pre-commit hook is installed in " + place.hooks_dir);
        return std::vector<HookFileChange>{};
    }
    return std::vector<HookFileChange>{change_of(pre_path, "removed", &now.pre, "")};
}

Status apply_pre_commit_changes(const FileSystem& fs, const std::string& dir, const std::vector<HookFileChange>& files) {
    const bool chaining = std::any_of(files.begin(), files.end(),
                                      [](const HookFileChange& c) { return c.change == "chained" && !c.existed; });
    for (const HookFileChange& c : files) {
        if (c.change == "chained") {
            continue;  // done with the write of the hook, below
        } else if ((c.change == "created" || c.change == "updated") && chaining) {
            if (Status s = chain_hook_file(fs, dir, kPre, kChained, c.new_content); !s) return s;
        } else if (c.change == "created" || c.change == "updated") {
            if (Status s = write_file_in_folder_atomic(fs, dir, kPre, c.new_content, 0755); !s) return s;
        } else if (c.change == "restored") {
            if (Status s = rename_hook_file(dir, kChained, kPre); !s) return s;
        } else if (c.change == "removed" && file_name(c.path) == kPre) {
            if (Status s = remove_hook_file(dir, kPre); !s) return s;
        }
        // "removed" chained: done by the rename of "restored".
    }
    return ok_status();
}

// The open of a linked folder would only say "Not a directory".
Status refuse_linked_hooks_folder(const FileSystem& fs, const std::string& dir) {
    if (!fs.is_symlink(dir)) return ok_status();
    Result<std::string> read = fs.read_link(dir);
    const std::string target = read ? *read : "";
    Error e = Error::invalid("refusing to use the hooks folder " + dir + ": it is a symbolic link" +
                             (target.empty() ? "" : " (to " + target + ")") +
                             "; small does not write hooks through a link; nothing was changed");
    e.hint = "point core.hooksPath at the folder itself (git config core.hooksPath " +
             shell_quote(target.empty() ? "FOLDER" : dir_argument(target)) + ") or replace the link with a folder";
    return e;
}

Result<std::optional<Fd>> lock_hooks_for_write(const FileSystem& fs, const HooksRequest& req, const GitPlace& place,
                                               HooksResult& result, Rollback& rollback) {
    if (req.dry_run || req.action == HooksAction::Print) return std::optional<Fd>();
    if (req.action == HooksAction::Install) {
        Result<bool> made = ensure_hooks_folder(place.hooks_dir);
        if (!made) return made.error();
        if (*made) {
            result.notes.push_back("created the hooks folder " + place.hooks_dir);
            rollback.add([dir = place.hooks_dir] { return remove_created_hooks_folder(dir); });
        }
    } else if (!fs.directory_exists(place.hooks_dir)) {
        return std::optional<Fd>();
    }
    Result<Fd> held = lock_hooks_folder(place.hooks_dir, req.lock_wait);
    if (!held) return held.error();
    return std::optional<Fd>(std::move(*held));
}

}  // namespace small
