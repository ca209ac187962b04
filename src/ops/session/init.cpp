#include "small/ops/session/init.hpp"

#include <cerrno>
#include <cstring>

#include "small/store/atomic_file.hpp"
#include "small/store/progress_log.hpp"
#include "small/check/placeholder.hpp"
#include "small/model/replay_id.hpp"
#include "small/model/task_status.hpp"
#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/templates.hpp"
#include "small/domain/handoff_file.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/run_store.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

// What init will do to AGENTS.md, decided before anything is written.
struct AgentsPlan {
    AgentsAction action = AgentsAction::Skipped;
    std::string content;
};

std::string agents_exists_message() {
    return "AGENTS.md already exists; nothing was written.\n"
           "Use one of:\n"
           "  small init --overwrite-agents         replace AGENTS.md with the SMALL harness block\n"
           "  small init --agents-mode=append       add the block after the existing text\n"
           "  small init --agents-mode=prepend      add the block before the existing text\n"
           "  small init --no-agents                leave AGENTS.md alone";
}

Result<AgentsPlan> plan_agents(const FileSystem& fs, const WorkspacePaths& ws, const std::string& path,
                               const InitRequest& req, AgentsMode mode) {
    AgentsPlan plan;
    if (req.no_agents) return plan;
    if (Status s = check_replaceable(fs, ws, path); !s) {
        Error e = s.error();
        e.hint = "pass --no-agents to leave AGENTS.md alone";
        return e;
    }
    if (!fs.stat(path)) {
        plan.action = AgentsAction::Created;
        plan.content = harness_block();
        return plan;
    }
    Result<std::string> existing = fs.read_file(path);
    if (!existing) return Error::system("failed to read AGENTS.md: " + existing.error().message);
    if (req.overwrite_agents) {
        plan.action = AgentsAction::Overwrote;
        plan.content = harness_block();
        return plan;
    }
    Result<HarnessSpan> span = find_harness_block(*existing);
    if (!span) return Error::invalid("failed to compose AGENTS.md: " + span.error().message);
    // A file that already has a block gets it updated in place, as `agents apply` does.
    if (mode == AgentsMode::None && !span->found) return Error::invalid(agents_exists_message());
    Result<std::string> composed = compose_agents_file(*existing, mode);
    if (!composed) return Error::invalid("failed to compose AGENTS.md: " + composed.error().message);
    plan.content = std::move(*composed);
    plan.action = span->found ? AgentsAction::Updated
                  : mode == AgentsMode::Append ? AgentsAction::Appended
                                               : AgentsAction::Prepended;
    return plan;
}

// The workspace `root` sits inside (the nearest parent holding .small/), or "".
std::string enclosing_workspace(const FileSystem& fs, const std::string& root) {
    if (root == "/") return "";
    const WorkspacePaths outer = locate_workspace(fs, std::nullopt, parent_path(root));
    return fs.directory_exists(outer.small_dir) ? outer.root : "";
}

std::string nested_workspace_warning(const std::string& outer, const std::string& root) {
    return "initialized inside the workspace at " + outer + " (a parent directory holds .small/): commands run in " +
           root + " or below now use this new workspace, not " + outer +
           "; to work on the outer one, run small there (init never searches parent directories)";
}

Error with_prefix(const Error& e, const std::string& prefix) {
    Error out = e;
    out.message = prefix + e.message;
    return out;
}

// The .gitignore update, refused when the file could not be replaced
// (a symbolic link, read-only): decided before anything is written.
Result<GitignoreUpdate> plan_gitignore(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<GitignoreUpdate> update = plan_gitignore_update(fs, ws);
    if (!update || !update->added.empty()) {
        if (Status s = check_replaceable(fs, ws, join_path(ws.root, ".gitignore")); !s) return s.error();
    }
    return update;
}

// Every file init writes must be writable by the atomic_file rules: a
// refusal there would come after other files were already written.
Status check_small_targets(const FileSystem& fs, const WorkspacePaths& ws) {
    for (ArtifactType type : kArtifactTypes) {
        if (Status s = check_replaceable(fs, ws, ws.artifact_path(type)); !s) return s;
    }
    return check_replaceable(fs, ws, ws.path_of(kWorkspaceFileName));
}

// Refusals about the .small folder itself.
Status check_small_dir(const FileSystem& fs, const WorkspacePaths& ws, bool force) {
    if (Status s = refuse_linked_small_dir(fs, ws); !s) return s;
    const std::optional<FileInfo> small_dir = fs.stat(ws.small_dir);
    if (!small_dir) return ok_status();
    if (!force) {
        return Error::invalid(".small/ directory already exists in " + ws.root +
                              ". To start a new run on the same intent use `small reset`; to start over from templates use "
                              "`small init --force` (the old artifacts are copied to .small-runs/, the progress log is kept)");
    }
    if (small_dir->kind != FileKind::Directory) {
        return Error::invalid(ws.small_dir + " exists but is not a directory");
    }
    return ok_status();
}

struct InitDecisions {
    AgentsPlan agents;
    GitignoreUpdate gitignore;
};

// Everything that can refuse without the lock; run before taking it and
// again under it, so that a refused init writes nothing (not even the lock).
Result<InitDecisions> decide_init(const FileSystem& fs, const WorkspacePaths& ws, const InitResult& result,
                                  const InitRequest& req, AgentsMode mode) {
    if (Status s = check_small_dir(fs, ws, req.force); !s) return s.error();
    Result<AgentsPlan> agents = plan_agents(fs, ws, result.agents_path, req, mode);
    if (!agents) return agents.error();
    Result<GitignoreUpdate> gitignore = plan_gitignore(fs, ws);
    if (!gitignore) return gitignore.error();
    if (Status s = check_small_targets(fs, ws); !s) return s.error();
    return InitDecisions{std::move(*agents), std::move(*gitignore)};
}

}  // namespace

std::string resolve_init_root(const std::optional<std::string>& dir, const std::string& cwd) {
    std::string root = normal_dir_path(absolute_path(cwd, dir && !dir->empty() ? *dir : cwd));
    if (file_name(root) == kSmallDirName) root = parent_path(root);
    return root.empty() ? "/" : root;
}

namespace {

// 1. Flags (nothing touched yet).
Result<AgentsMode> check_init_flags(const InitRequest& req) {
    Result<AgentsMode> mode = parse_agents_mode(req.agents_mode);
    if (!mode) return mode.error();
    const int agents_flags = (*mode != AgentsMode::None) + req.no_agents + req.overwrite_agents;
    if (agents_flags > 1) {
        return Error::usage("--agents-mode, --no-agents, and --overwrite-agents are mutually exclusive");
    }
    return mode;
}

// D7: --force never discards progress history: an existing log is kept and
// the meta/init entry appended to it, so it must be appendable. Also what
// the old metadata says: when the workspace was created, the run it pinned.
Result<std::string> read_prior_state(const FileSystem& fs, const WorkspacePaths& ws, InitResult& result) {
    result.progress_kept = fs.stat(ws.artifact_path(ArtifactType::Progress)).has_value();
    if (result.progress_kept) {
        Result<ProgressTail> tail = read_tail(fs, ws);
        if (!tail) {
            return with_prefix(tail.error(),
                               "init --force keeps the existing progress log (D7), but it cannot be appended to: ");
        }
    }
    std::string created_at;
    const std::string workspace_path = ws.path_of(kWorkspaceFileName);
    if (!fs.file_exists(workspace_path)) return created_at;
    Result<Document> old = load_yaml_file(fs, workspace_path, ws.display_of(kWorkspaceFileName));
    if (!old || !old->root().is_mapping()) return created_at;
    const NodeRef root = old->root();
    if (root.find("created_at").is_string() && !trim(root.find("created_at").as_string()).empty()) {
        created_at = std::string(root.find("created_at").as_string());
    }
    const std::string_view prev = trim(root.find("run").find("replay_id").as_string());
    if (is_valid_replay_id(prev)) result.previous_replay_id = std::string(prev);
    return created_at;
}

struct InitTemplates {
    std::string intent, constraints, plan;  // the files' bytes
    PlanIndex plan_index;
};

// Templates and the run id they start (D3: init writes a plan, so a run
// starts). --force over a worked workspace starts a NEW run: the kept
// entries must not fall into its S2 scope (see new_run_id).
Result<InitTemplates> render_templates(const FileSystem& fs, const WorkspacePaths& ws, const InitRequest& req,
                                       InitResult& result) {
    InitTemplates t{emit_document(intent_template(req.intent)), emit_document(constraints_template()),
                    emit_document(plan_template()), {}};
    Result<Document> intent_doc = parse_yaml(t.intent, "intent template");
    Result<Document> constraints_doc = parse_yaml(t.constraints, "constraints template");
    Result<Document> plan_doc = parse_yaml(t.plan, "plan template");
    if (!intent_doc || !constraints_doc || !plan_doc) {
        return Error::internal("a template does not re-read");
    }
    Result<std::string> run_id = compute_replay_id(intent_doc->root(), plan_doc->root(), constraints_doc->root());
    if (!run_id) return run_id.error();
    result.replay_id = *run_id;
    t.plan_index = plan_index_of(*plan_doc);
    if (!result.progress_kept) return t;
    Result<std::set<std::string>> used = used_run_ids(fs, ws);
    if (!used) return with_prefix(used.error(), "init --force keeps the existing progress log (D7), but it cannot be read: ");
    result.replay_id = new_run_id(*run_id, result.previous_replay_id, *used);
    return t;
}

// D8: meta/init, stamped with the run that init just started.
YamlValue init_entry(const InitResult& result) {
    YamlValue entry = YamlValue::object();
    entry["task_id"] = "meta/init";
    entry["status"] = status_name(TaskStatus::Completed);
    entry["evidence"] = std::string(kInitEvidence);
    entry["command"] = "small init";
    // No path: the log travels with the repository (clones, worktrees, other machines).
    if (result.progress_kept) entry["notes"] = "small init --force; earlier entries kept";
    entry["replayId"] = result.replay_id;
    return entry;
}

YamlValue init_metadata(const InitResult& result, const std::string& created_at, const std::string& now) {
    YamlValue meta = YamlValue::object();
    meta["small_version"] = std::string(kProtocolVersion);
    meta["owner"] = "agent";
    meta["kind"] = "repo-root";
    meta["created_at"] = created_at.empty() ? now : created_at;
    meta["updated_at"] = now;
    meta["run"] = YamlValue::object();
    meta["run"]["replay_id"] = result.replay_id;
    return meta;
}

YamlValue init_handoff(const InitResult& result, const std::string& now) {
    YamlValue handoff = artifact_head("agent");
    handoff["summary"] = std::string(kInitSummary);
    handoff["resume"] = YamlValue::object();
    handoff["resume"]["next_steps"] = YamlValue::array({"Fill intent.small.yml", "Fill constraints.small.yml",
                                                        "Generate plan.small.yml"});
    handoff["links"] = YamlValue::array();
    handoff["replayId"] = YamlValue::object();
    handoff["replayId"]["value"] = result.replay_id;
    handoff["replayId"]["source"] = "auto";
    if (!result.previous_replay_id.empty() && result.previous_replay_id != result.replay_id) {
        handoff["run"] = YamlValue::object();
        handoff["run"]["created_at"] = now;
        handoff["run"]["transition_reason"] = "manual";
        handoff["run"]["previous_replay_id"] = result.previous_replay_id;
    }
    return handoff;
}

// The handoff's D18 source line: computed from the template plan and a new
// log (no work entries), so readers call it stale once the plan changes or
// work is recorded. A kept log may hold work: no line then (never "stale").
std::string init_source_comment(const std::string& plan_text, bool progress_kept) {
    if (progress_kept) return "";
    Result<Document> plan = parse_yaml(plan_text, "plan.small.yml");
    if (!plan) return "";
    return source_comment(handoff_source(outline_of(to_yaml_value(plan->root())), LogFacts{}));
}

// The .small/ files, as one all-or-nothing change (workspace_change.hpp).
// A kept log gets meta/init appended (D7); a new one is written whole,
// holding that entry.
WorkspaceChange init_change(const WorkspacePaths& ws, const InitTemplates& t, const std::string& created_at,
                            InitResult& result) {
    WorkspaceChange change;
    const auto put = [&](std::string_view name, std::string bytes) {
        change.files.push_back({ws.path_of(name), std::move(bytes)});
        result.written.emplace_back(name);
    };
    put(artifact_file_name(ArtifactType::Intent), t.intent);
    put(artifact_file_name(ArtifactType::Constraints), t.constraints);
    put(artifact_file_name(ArtifactType::Plan), t.plan);
    const std::string now = format_timestamp_utc9(current_instant());
    const YamlValue entry = init_entry(result);
    if (result.progress_kept) {
        change.entries.push_back(entry);
    } else {
        result.timestamp = now;
        YamlValue stamped = YamlValue::object();
        stamped["timestamp"] = result.timestamp;
        for (const auto& [k, v] : entry.items()) stamped[k] = v;
        YamlValue log = progress_template();
        log["entries"].push_back(stamped);
        put(artifact_file_name(ArtifactType::Progress), emit_document(log));
        result.progress_entry = std::move(stamped);
    }
    put(kWorkspaceFileName, emit_document(init_metadata(result, created_at, now)));
    put(artifact_file_name(ArtifactType::Handoff),
        init_source_comment(t.plan, result.progress_kept) + emit_document(init_handoff(result, now)));
    return change;
}

// Outside .small/: .gitignore lines, then AGENTS.md (both decided before).
Status write_root_files(const FileSystem& fs, const WorkspacePaths& ws, InitDecisions decided, InitResult& result) {
    result.gitignore = std::move(decided.gitignore);
    if (Status s = write_gitignore_update(fs, ws, result.gitignore); !s) return s;
    result.agents = decided.agents.action;
    if (decided.agents.action == AgentsAction::Skipped) return ok_status();
    return write_file_atomic(fs, ws, result.agents_path, decided.agents.content);
}

}  // namespace

Result<InitResult> init_command(const FileSystem& fs, const InitRequest& req) {
    Result<AgentsMode> mode = check_init_flags(req);
    if (!mode) return mode.error();
    if (req.intent) {
        if (Status s = refuse_placeholder("intent", *req.intent); !s) return s.error();
    }
    InitResult result;
    result.root = resolve_init_root(req.dir, req.cwd);
    result.small_dir = small_dir_path(result.root);
    result.agents_path = join_path(result.root, "AGENTS.md");
    WorkspacePaths ws;
    ws.root = result.root;
    ws.small_dir = result.small_dir;
    ws.from_dir_flag = true;

    // Refusals that need no lock, then again under the lock: a refused init
    // writes nothing, not even the lock file.
    if (Result<InitDecisions> early = decide_init(fs, ws, result, req, *mode); !early) return early.error();
    if (Status s = create_root_directory(fs, result.root); !s) return s.error();
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(fs, ws, req.lock_wait);
    if (!lock) return lock.error();
    if (Status r = recover_workspace(fs, ws); !r) return r.error();
    Result<InitDecisions> decided = decide_init(fs, ws, result, req, *mode);
    if (!decided) return decided.error();
    Result<std::string> created_at = read_prior_state(fs, ws, result);
    if (!created_at) return created_at.error();
    Result<InitTemplates> templates = render_templates(fs, ws, req, result);
    if (!templates) return templates.error();

    // D15: what --force replaces is copied to the run store first.
    SnapshotMade made;
    if (fs.stat(result.small_dir)) {
        Result<std::string> snapshot = snapshot_before_replace(fs, ws, result.previous_replay_id, &made);
        if (!snapshot) return with_prefix(snapshot.error(), "init --force could not keep a copy of the old artifacts: ");
        result.snapshot_dir = *snapshot;
    }
    if (Status s = ensure_directory(fs, ws, result.small_dir); !s) {
        discard_unused_snapshot(fs, ws, made);
        return s.error();
    }
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, init_change(ws, *templates, *created_at, result));
    if (!committed) {
        discard_unused_snapshot(fs, ws, made);
        return with_prefix(committed.error(), "init failed: ");
    }
    if (!committed->was_skipped(ws.artifact_path(ArtifactType::Plan))) remember_valid_plan(fs, ws, templates->plan_index);
    if (result.progress_kept) {
        result.progress_entry = committed->appended.front().entry;
        result.timestamp = committed->appended.front().timestamp_text;
    }
    result.outer_workspace = enclosing_workspace(fs, result.root);
    if (!result.outer_workspace.empty()) {
        result.warnings.push_back(nested_workspace_warning(result.outer_workspace, result.root));
    }
    if (Status s = write_root_files(fs, ws, std::move(*decided), result); !s) return s.error();
    return result;
}

}  // namespace small
