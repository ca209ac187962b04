#include "small/ops/authoring/hooks.hpp"

#include <utility>

#include "small/domain/hook_install.hpp"
#include "small/domain/merge_driver.hpp"
#include "small/base/merge_strategy.hpp"
#include "small/domain/pre_commit_hook.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/hook_files.hpp"

namespace small {

namespace {

// ---------------------------------------------------------------- git

// What the git target decides before its first write: the merge driver's
// part and the record that follows it.
struct GitDecision {
    std::string record_path;
    std::optional<HookRecord> had_record;
    HookRecord record;
    DriverPlan driver;

    bool record_changes() const { return !same_hook_record(had_record, record); }
};

Result<GitDecision> decide_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place,
                                  const HooksRequest& req, bool dry_run) {
    GitDecision d;
    d.record_path = hook_record_path(ws.root, "git");
    Result<HookRecord> loaded = load_hook_record(d.record_path, d.had_record);
    if (!loaded) return loaded.error();
    d.record = std::move(*loaded);
    Result<DriverPlan> planned = plan_merge_driver(fs, ws, place, req.action, dry_run, d.record);
    if (!planned) return planned.error();
    d.driver = std::move(*planned);
    if (!req.dry_run) {
        if (Status s = check_driver_writable(fs, ws, place, d.driver, d.record_path, d.record_changes()); !s) return s.error();
    }
    return d;
}

Result<std::vector<HookFileChange>> plan_hook(const FileSystem& fs, const GitPlace& place, HooksAction action, const DriverPlan& driver,
                                              std::vector<std::string>& notes) {
    Result<PreCommitFiles> now = read_pre_commit_files(place);
    if (!now) return now.error();
    if (action == HooksAction::Install) return plan_pre_commit_install(fs, place, *now, driver_by_hand(driver), notes);
    return plan_pre_commit_uninstall(place, *now, notes);
}

Result<HooksResult> print_git(const GitPlace& place, HooksResult result) {
    Result<HookFileState> pre = read_hook_file(place.hooks_dir, std::string(kPreCommitHookName));
    if (!pre) return pre.error();
    result.content = wanted_pre_commit_hook(place, *pre);
    result.notes.push_back("would be installed as " + pre_commit_path(place));
    return result;
}

// The writes go record, git config, .gitattributes, hook; when one fails,
// those before it are undone. .gitattributes and the record are staged in
// .small-cache/tmp, which a folder that is not a workspace does not keep.
Status write_git(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place, const GitDecision& d,
                 const std::vector<HookFileChange>& hook, Rollback& rollback) {
    return write_leaving_no_staging(fs, ws, [&]() -> Status {
        Status s = d.record_changes() ? apply_hook_record(fs, ws, d.record_path, d.had_record, d.record, rollback)
                                      : ok_status();
        if (s) s = apply_merge_driver(fs, ws, place, d.driver, rollback);
        if (s && !hook.empty()) s = apply_pre_commit_changes(fs, place.hooks_dir, hook);
        return s ? s : Status(rollback.undo(s.error()));
    });
}

// `git merge -s small` (several branches at once) needs git-merge-small,
// which install does not make: it lies outside the workspace (D7), beside
// small. The warning gives the command that does.
void warn_unreachable_strategy(const FileSystem& fs, HooksResult& result) {
    const MergeStrategyReach reach = find_merge_strategy(fs);
    if (reach.found.empty()) result.warnings.push_back(reach.problem + "; run: " + reach.fix);
}

// Everything is decided (and any refusal made) before the first write: the
// merge driver's part first, as creating the hooks folder to lock it is
// already a write.
Result<HooksResult> run_git(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    Result<GitPlace> place = find_git_place(ws.root);
    if (!place) return place.error();
    if (req.action == HooksAction::Print) return print_git(*place, std::move(result));
    if (Status linked = refuse_linked_hooks_folder(fs, place->hooks_dir); !linked) return linked.error();
    Result<std::optional<WorkspaceLock>> lock = lock_workspace_for_hooks(fs, ws, req);
    if (!lock) return lock.error();
    Result<GitDecision> decided = decide_driver(fs, ws, *place, req, result.dry_run);
    if (!decided) return decided.error();
    Rollback rollback;
    Result<std::optional<Fd>> hooks_lock = lock_hooks_for_write(fs, req, *place, result, rollback);
    if (!hooks_lock) return rollback.undo(hooks_lock.error());
    Result<std::vector<HookFileChange>> hook = plan_hook(fs, *place, req.action, decided->driver, result.notes);
    if (!hook) return rollback.undo(hook.error());
    result.files = *hook;
    const bool hook_changes = result.changed();
    const DriverPlan& driver = decided->driver;
    if (driver.attributes) result.files.push_back(*driver.attributes);
    result.notes.insert(result.notes.end(), driver.notes.begin(), driver.notes.end());
    if (req.action == HooksAction::Install) warn_unreachable_strategy(fs, result);
    if (req.dry_run) return result;
    if (hook_changes) {
        if (Status s = check_writable_folder(place->hooks_dir); !s) return rollback.undo(s.error());
    }
    const std::vector<HookFileChange> hook_writes = hook_changes ? *hook : std::vector<HookFileChange>{};
    if (Status s = write_git(fs, ws, *place, *decided, hook_writes, rollback); !s) return s.error();
    if (!fs.directory_exists(ws.small_dir)) remove_empty_staging_folders(fs, ws);
    result.written = hook_changes || driver.attributes || !driver.config.empty() || decided->record_changes();
    return result;
}

// ---------------------------------------------------------------- agent settings

// The settings file of an agent target, in the workspace root.
struct SettingsFile {
    std::string root;     // the workspace root
    std::string rel;      // as recorded: relative to the root
    std::string path;     // absolute
    std::string display;  // as the user names it (from the current folder)
    std::vector<AgentHookEvent> events;
};

SettingsFile settings_file(const WorkspacePaths& ws, HookTarget target, bool claim) {
    const bool claude = target == HookTarget::Claude;
    const std::string rel(claude ? kAgentSettingsFiles[0] : kAgentSettingsFiles[1]);
    return {ws.root, rel, ws.root + "/" + rel, ws.display_prefix + rel,
            claude ? claude_hook_events(claim) : codex_hook_events(claim)};
}

// The file's text after uninstall (nullopt: it goes): what the record says
// install added comes out; without a record nothing changes.
Result<std::optional<std::string>> uninstalled_settings(const SettingsFile& f, const HooksRequest& req, bool existed,
                                                        const std::string& old, HookRecord& record,
                                                        std::vector<std::string>& notes) {
    const HookRecordFile* rec = record.file(f.rel);
    if (rec != nullptr && existed) {
        Result<std::optional<std::string>> left =
            uninstalled_content(*rec, old, [&](const std::string& now, const std::vector<std::string>& entries) {
                Result<AgentHooksEdit> removed = remove_agent_hooks(now, entries, f.display);
                if (!removed) return Result<std::pair<std::string, bool>>(removed.error());
                return Result<std::pair<std::string, bool>>(std::make_pair(removed->text, removed->empty));
            });
        forget_recorded_file(record, f.rel);
        return left;
    }
    if (rec == nullptr && existed) {
        Result<AgentHooksEdit> ours = remove_agent_hooks(old, {}, f.display);  // the JSON must parse
        if (!ours) return ours.error();
        if (old.find(kAgentHookCommand) != std::string::npos) {
            notes.push_back(f.display + " runs `" + std::string(kAgentHookCommand) +
                            "`, but no record says `small hooks install " + std::string(hook_target_name(req.target)) +
                            "` added it; left alone");
        }
    }
    forget_recorded_file(record, f.rel);
    if (!existed) notes.push_back("no " + f.rel + " in " + f.root + "; nothing to remove");
    return std::optional<std::string>(old);
}

// The file's text after install or uninstall (nullopt: it goes); the
// record follows.
Result<std::optional<std::string>> planned_settings(const SettingsFile& f, const HooksRequest& req, bool existed,
                                                    const std::string& old, HookRecord& record,
                                                    std::vector<std::string>& notes) {
    if (req.action != HooksAction::Install) return uninstalled_settings(f, req, existed, old, record, notes);
    Result<AgentHooksEdit> added = add_agent_hooks(old, f.events, f.display);
    if (!added) return added.error();
    if (!added->events.empty()) record_install(record, f.rel, existed, old, added->text, added->events);
    return std::optional<std::string>(std::move(added->text));
}

HookFileChange settings_change(const std::string& path, bool existed, const std::string& old,
                               const std::optional<std::string>& now) {
    const std::string change = !existed ? "created" : !now ? "removed" : *now == old ? "unchanged" : "updated";
    return HookFileChange{path, change, existed, old, now.value_or("")};
}

Result<HooksResult> print_settings(const SettingsFile& f, HooksResult result) {
    Result<AgentHooksEdit> ours = add_agent_hooks("", f.events, f.rel);
    if (!ours) return ours.error();
    result.content = ours->text;
    result.notes.push_back("would be merged into " + f.path);
    return result;
}

Result<HooksResult> run_settings(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    const SettingsFile f = settings_file(ws, req.target, req.claim);
    if (req.action == HooksAction::Print) return print_settings(f, std::move(result));
    if (Status where = check_replaceable(fs, ws, f.path, WriteScope::AgentSettings); !where) return where.error();
    Result<std::optional<WorkspaceLock>> lock = lock_workspace_for_hooks(fs, ws, req);
    if (!lock) return lock.error();
    const std::string record_path = hook_record_path(ws.root, hook_target_name(req.target));
    std::optional<HookRecord> had_record;
    Result<HookRecord> record = load_hook_record(record_path, had_record);
    if (!record) return record.error();
    const bool existed = fs.file_exists(f.path);
    const Result<std::string> old = existed ? fs.read_file(f.path) : Result<std::string>(std::string());
    if (!old) return old.error();
    Result<std::optional<std::string>> now = planned_settings(f, req, existed, *old, *record, result.notes);
    if (!now) return now.error();
    const bool record_changes = !same_hook_record(had_record, *record);
    if (existed || *now) {
        HookFileChange c = settings_change(f.path, existed, *old, *now);
        if (req.action == HooksAction::Install || c.change != "unchanged") result.files.push_back(std::move(c));
    }
    if (req.dry_run || (!result.changed() && !record_changes)) return result;
    Rollback rollback;
    Status done = write_leaving_no_staging(fs, ws, [&]() -> Status {
        Status s = record_changes ? apply_hook_record(fs, ws, record_path, had_record, *record, rollback) : ok_status();
        if (s && result.changed()) {
            s = *now ? write_file_atomic(fs, ws, f.path, **now, {.scope = WriteScope::AgentSettings})
                     : remove_file(fs, ws, f.path, WriteScope::AgentSettings);
        }
        return s ? s : Status(rollback.undo(s.error()));
    });
    if (!done) return done.error();
    if (!fs.directory_exists(ws.small_dir)) remove_empty_staging_folders(fs, ws);
    result.written = true;
    return result;
}

}  // namespace

Result<HooksResult> hooks_command(const FileSystem& fs, const HooksRequest& req) {
    HooksResult result;
    result.target = req.target;
    result.action = req.action;
    result.dry_run = req.dry_run || req.action == HooksAction::Print;
    if (req.claim && req.target == HookTarget::Git) {
        return Error::usage("--claim is for the agent hooks (claude, codex): their session start claims a task");
    }
    if (req.target == HookTarget::Git) return run_git(fs, req, std::move(result));
    return run_settings(fs, req, std::move(result));
}

}  // namespace small
