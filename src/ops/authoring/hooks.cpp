#include "small/ops/authoring/hooks.hpp"

#include <algorithm>
#include <utility>

#include "small/domain/hook_install.hpp"
#include "small/domain/merge_driver.hpp"
#include "small/base/merge_strategy.hpp"
#include "small/check/schema.hpp"
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

// The workspace lock (when there is a workspace) and the target's install
// record, held while a settings target decides and writes.
struct LockedRecord {
    std::optional<WorkspaceLock> lock;
    std::string path;
    std::optional<HookRecord> had;  // the record on disk (nullopt: none)
    HookRecord record;              // what it becomes
};

Result<LockedRecord> lock_and_load_record(const FileSystem& fs, const WorkspacePaths& ws, const HooksRequest& req) {
    Result<std::optional<WorkspaceLock>> lock = lock_workspace_for_hooks(fs, ws, req);
    if (!lock) return lock.error();
    LockedRecord locked;
    locked.lock = std::move(*lock);
    locked.path = hook_record_path(ws.root, hook_target_name(req.target));
    Result<HookRecord> record = load_hook_record(locked.path, locked.had);
    if (!record) return record.error();
    locked.record = std::move(*record);
    return locked;
}

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
    Result<LockedRecord> locked = lock_and_load_record(fs, ws, req);
    if (!locked) return locked.error();
    const std::string& record_path = locked->path;
    const std::optional<HookRecord>& had_record = locked->had;
    HookRecord* record = &locked->record;
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

// ---------------------------------------------------------------- editor settings

// One file `hooks install vscode` manages: the settings or a schema.
struct EditorFile {
    std::string rel;                  // relative to the workspace root
    std::string path;                 // absolute
    std::string display;              // as the user names it
    bool existed = false;
    std::string old;
    std::optional<std::string> now;   // after the command; nullopt: the file goes
};

Result<EditorFile> read_editor_file(const FileSystem& fs, const WorkspacePaths& ws, const std::string& rel) {
    EditorFile f;
    f.rel = rel;
    f.path = ws.root + "/" + rel;
    f.display = ws.display_prefix + rel;
    if (Status where = check_replaceable(fs, ws, f.path, WriteScope::AgentSettings); !where) return where.error();
    f.existed = fs.file_exists(f.path);
    if (f.existed) {
        Result<std::string> old = fs.read_file(f.path);
        if (!old) return old.error();
        f.old = std::move(*old);
    }
    f.now = f.old;
    return f;
}

// The settings file after the action; the record follows.
Status plan_editor_settings(EditorFile& f, HooksAction action, HookRecord& record, std::vector<std::string>& notes) {
    const std::vector<EditorSchemaEntry> entries = editor_schema_entries();
    if (action == HooksAction::Install) {
        Result<AgentHooksEdit> added = add_editor_schemas(f.old, entries, f.display);
        if (!added) return added.error();
        // The entries already there that no install of small's added: the user's own.
        const HookRecordFile* rec = record.file(f.rel);
        const auto listed = [](const std::vector<std::string>& list, const std::string& key) {
            return std::find(list.begin(), list.end(), key) != list.end();
        };
        const bool users_own = std::any_of(entries.begin(), entries.end(), [&](const EditorSchemaEntry& e) {
            return !listed(added->events, e.key) && (rec == nullptr || !listed(rec->entries, e.key));
        });
        if (!added->events.empty()) record_install(record, f.rel, f.existed, f.old, added->text, added->events);
        if (users_own) {
            notes.push_back(f.display + " already maps some of small's schemas in \"yaml.schemas\" itself; those "
                            "entries were left as they are");
        }
        f.now = std::move(added->text);
        return ok_status();
    }
    const HookRecordFile* rec = record.file(f.rel);
    if (rec == nullptr || !f.existed) {
        if (f.existed) {
            if (Result<AgentHooksEdit> ok = remove_editor_schemas(f.old, {}, f.display); !ok) return ok.error();
            notes.push_back("no record says `small hooks install vscode` added to " + f.display + "; left alone");
        }
        forget_recorded_file(record, f.rel);
        return ok_status();
    }
    Result<std::optional<std::string>> left =
        uninstalled_content(*rec, f.old, [&](const std::string& now, const std::vector<std::string>& keys) {
            Result<AgentHooksEdit> removed = remove_editor_schemas(now, keys, f.display);
            if (!removed) return Result<std::pair<std::string, bool>>(removed.error());
            return Result<std::pair<std::string, bool>>(std::make_pair(removed->text, removed->empty));
        });
    forget_recorded_file(record, f.rel);
    if (!left) return left.error();
    f.now = std::move(*left);
    return ok_status();
}

// A schema file after the action: install writes the built-in text;
// uninstall takes away what install wrote while it is as install left it.
Status plan_editor_schema(EditorFile& f, const std::string& schema, HooksAction action, HookRecord& record) {
    if (action == HooksAction::Install) {
        if (!f.existed || f.old != schema) record_install(record, f.rel, f.existed, f.old, schema, {});
        f.now = schema;
        return ok_status();
    }
    const HookRecordFile* rec = record.file(f.rel);
    if (rec != nullptr && f.existed) {
        Result<std::optional<std::string>> left = uninstalled_content(
            *rec, f.old, [](const std::string& now, const std::vector<std::string>&) {
                return Result<std::pair<std::string, bool>>(std::make_pair(now, false));  // changed since: kept
            });
        if (!left) return left.error();
        f.now = std::move(*left);
    }
    forget_recorded_file(record, f.rel);
    return ok_status();
}

// Writes (or removes) `f`, with its undo.
Status apply_editor_file(const FileSystem& fs, const WorkspacePaths& ws, const EditorFile& f, Rollback& rollback) {
    if (f.now && *f.now == f.old && f.existed) return ok_status();
    if (!f.now && !f.existed) return ok_status();
    Status s = f.now ? write_file_atomic(fs, ws, f.path, *f.now, {.scope = WriteScope::AgentSettings})
                     : remove_file(fs, ws, f.path, WriteScope::AgentSettings);
    if (!s) return s;
    rollback.add([&fs, &ws, f] {
        return f.existed ? write_file_atomic(fs, ws, f.path, f.old, {.scope = WriteScope::AgentSettings})
                         : remove_file(fs, ws, f.path, WriteScope::AgentSettings);
    });
    return ok_status();
}

Result<HooksResult> print_editor(const WorkspacePaths& ws, HooksResult result) {
    Result<AgentHooksEdit> ours = add_editor_schemas("", editor_schema_entries(), std::string(kEditorSettingsFile));
    if (!ours) return ours.error();
    result.content = ours->text;
    result.notes.push_back("would be merged into " + ws.root + "/" + std::string(kEditorSettingsFile) +
                           ", with the editor schemas (the five artifacts and workspace.small.yml) written to " + ws.root + "/" + std::string(kEditorSchemaFolder) + "/");
    return result;
}

// Everything is read and decided first; then the record, the schemas and
// the settings are written (uninstall: the settings first), each write
// undone when a later one fails.
Result<HooksResult> run_editor(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    if (req.action == HooksAction::Print) return print_editor(ws, std::move(result));
    Result<LockedRecord> locked = lock_and_load_record(fs, ws, req);
    if (!locked) return locked.error();
    const std::string& record_path = locked->path;
    const std::optional<HookRecord>& had_record = locked->had;
    HookRecord* record = &locked->record;
    std::vector<EditorFile> files;
    for (const EditorSchemaEntry& e : editor_schema_entries()) {
        Result<EditorFile> f = read_editor_file(fs, ws, e.file);
        if (!f) return f.error();
        if (Status s = plan_editor_schema(*f, editor_schema(e.artifact), req.action, *record); !s) return s.error();
        files.push_back(std::move(*f));
    }
    Result<EditorFile> settings = read_editor_file(fs, ws, std::string(kEditorSettingsFile));
    if (!settings) return settings.error();
    if (Status s = plan_editor_settings(*settings, req.action, *record, result.notes); !s) return s.error();
    files.insert(req.action == HooksAction::Install ? files.end() : files.begin(), std::move(*settings));
    for (const EditorFile& f : files) {
        HookFileChange c = settings_change(f.path, f.existed, f.old, f.now);
        if ((f.existed || f.now) && (req.action == HooksAction::Install || c.change != "unchanged")) {
            result.files.push_back(std::move(c));
        }
    }
    const bool record_changes = !same_hook_record(had_record, *record);
    if (req.dry_run || (!result.changed() && !record_changes)) return result;
    Rollback rollback;
    Status done = write_leaving_no_staging(fs, ws, [&]() -> Status {
        Status s = record_changes ? apply_hook_record(fs, ws, record_path, had_record, *record, rollback) : ok_status();
        for (const EditorFile& f : files) {
            if (s) s = apply_editor_file(fs, ws, f, rollback);
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
    if (req.claim && (req.target == HookTarget::Git || req.target == HookTarget::VSCode)) {
        return Error::usage("--claim is for the agent hooks (claude, codex): their session start claims a task");
    }
    if (req.target == HookTarget::Git) return run_git(fs, req, std::move(result));
    if (req.target == HookTarget::VSCode) return run_editor(fs, req, std::move(result));
    return run_settings(fs, req, std::move(result));
}

}  // namespace small
