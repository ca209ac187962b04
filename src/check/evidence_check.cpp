#include "small/check/evidence_check.hpp"

#include <map>
#include <unordered_map>

#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/invariants.hpp"
#include "small/check/links.hpp"
#include "small/doc/document.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/workspace.hpp"
#include "small/base/git.hpp"
#include "small/model/run_start.hpp"
#include "small/model/task_status.hpp"

namespace small {

namespace {

struct Context {
    const GitRepo& repo;
    std::unordered_set<std::string> ancestors;  // every commit reachable from HEAD
    std::unordered_map<std::string, Result<std::string>> resolved;  // evidence text -> full id
    std::string display;
    std::vector<Finding>* out;
};

void add(Context& c, const char* rule, Mark at, std::string message, std::string hint) {
    Finding f;
    f.rule = rule;
    f.file = c.display;
    f.file_order = file_order(ArtifactType::Progress);
    f.mark = at;
    f.message = std::move(message);
    f.hint = std::move(hint);
    c.out->push_back(std::move(f));
}

// The full id of a commit evidence, looked up once per distinct text. A
// full id that HEAD reaches needs no object lookup at all.
const Result<std::string>& resolve(Context& c, const std::string& text) {
    auto it = c.resolved.find(text);
    if (it != c.resolved.end()) return it->second;
    Result<std::string> r = text.size() == 40 && c.ancestors.count(text) ? Result<std::string>(text)
                                                                         : c.repo.resolve_commit(text);
    return c.resolved.emplace(text, std::move(r)).first->second;
}

void check_commit(Context& c, NodeRef node) {
    const std::string text = lower_ascii(trim(node.as_string()));
    const Result<std::string>& id = resolve(c, text);
    if (!id) {
        std::string why = id.error().message.find("ambiguous") != std::string::npos
                              ? "is ambiguous in this repository"
                              : "names no commit in this repository (a typo, or a commit of another repository)";
        add(c, "EV-COMMIT-UNKNOWN", node.mark(), "commit evidence '" + text + "' " + why,
            c.repo.shallow() ? "this clone is shallow: fetch the history (git fetch --unshallow), or fix the id"
                             : "give the full id of a commit on this branch (git log)");
        return;
    }
    if (!c.ancestors.count(*id)) {
        add(c, "EV-COMMIT-UNREACHABLE", node.mark(),
            "commit evidence '" + text + "' is not reachable from HEAD (rebased away, or on another branch)",
            "name the commit that carries the work now (after a rebase: git log --oneline), or merge its branch");
    }
}

void check_link(Context& c, NodeRef node) {
    if (std::optional<std::string> why = link_syntax_problem(trim(node.as_string()))) {
        add(c, "EV-LINK", node.mark(), "link evidence '" + std::string(node.as_string()) + "' is not a well-formed URL: " + *why,
            "write an absolute URL, e.g. https://host/path");
    }
}

// The task ids the plan marks completed.
Result<std::set<std::string>> completed_tasks(const FileSystem& fs, const WorkspacePaths& ws) {
    std::set<std::string> out;
    const std::string path = ws.path_of(kPlanFileName);
    if (!fs.file_exists(path)) return out;
    Result<Document> plan = load_yaml_file(fs, path, ws.display_of(kPlanFileName));
    if (!plan) return plan.error();
    const NodeRef tasks = plan->root().find("tasks");
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        if (parse_task_status(trim(t.find("status").as_string())) == TaskStatus::Completed) {
            out.insert(std::string(trim(t.find("id").as_string())));
        }
    }
    return out;
}

// A task's newest `completed` entry, as EV-STALE reads it: its timestamp
// and commit evidence as written, with their positions.
struct CompletedEntry {
    std::string timestamp;
    Mark timestamp_mark;
    std::optional<std::string> commit;
    Mark commit_mark;
};

// One pass over the entries, in order: every commit and link evidence
// checked, and each task's newest `completed` entry kept (the log is in
// time order). Positions are those of the document `entries` is in.
struct EntryPass {
    std::size_t commits = 0, links = 0;
    std::map<std::string, CompletedEntry> newest;

    void visit(Context& c, NodeRef entries) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const NodeRef e = entries.item(i);
            if (const NodeRef commit = e.find("commit"); commit.is_string()) {
                ++commits;
                check_commit(c, commit);
            }
            if (const NodeRef link = e.find("link"); link.is_string()) {
                ++links;
                check_link(c, link);
            }
            if (parse_task_status(trim(e.find("status").as_string())) != TaskStatus::Completed) continue;
            const NodeRef ts = e.find("timestamp");
            const NodeRef commit = e.find("commit");
            CompletedEntry& kept = newest[std::string(trim(e.find("task_id").as_string()))];
            kept = CompletedEntry{std::string(trim(ts.as_string())), ts.valid() ? ts.mark() : Mark{}, std::nullopt, Mark{}};
            if (commit.is_string()) kept.commit = std::string(commit.as_string()), kept.commit_mark = commit.mark();
        }
    }
};

// EV-STALE for each completed task's newest `completed` entry.
Status check_stale(Context& c, const std::map<std::string, CompletedEntry>& newest,
                   const std::set<std::string>& completed, Instant start) {
    const std::string start_text = format_timestamp_utc9(start);
    for (const auto& [task, e] : newest) {
        if (!completed.count(task)) continue;
        Result<Instant> at = parse_progress_timestamp(e.timestamp);
        if (at && *at < start) {
            add(c, "EV-STALE", e.timestamp_mark,
                "task " + task + " was completed at " + e.timestamp + ", before the run started at " + start_text,
                "record fresh evidence for it in this run (small checkpoint --task " + task + " --status completed)");
            continue;
        }
        if (!e.commit) continue;
        const Result<std::string>& id = resolve(c, lower_ascii(trim(*e.commit)));
        if (!id) continue;  // EV-COMMIT-UNKNOWN says so
        Result<std::int64_t> when = c.repo.commit_time(*id);
        if (!when) return when.error();
        if (*when < start.seconds) {
            add(c, "EV-STALE", e.commit_mark,
                "task " + task + "'s commit evidence " + id->substr(0, 12) + " was made before the run started at " +
                    start_text,
                "name a commit made in this run");
        }
    }
    return ok_status();
}

// What follows the entries' pass: EV-STALE once the run's start is known.
// `r` is the report `c` adds its findings to.
Result<EvidenceReport> finish_report(Context& c, const FileSystem& fs, const WorkspacePaths& ws, const EntryPass& pass,
                                     EvidenceReport& r) {
    r.commits = pass.commits;
    r.links = pass.links;
    Result<RunStart> start = find_run_start(fs, ws);
    if (!start) return start.error();
    if (start->at && start->from_run_entry) {
        r.run_start = format_timestamp_utc9(*start->at);
        Result<std::set<std::string>> completed = completed_tasks(fs, ws);
        if (!completed) return completed.error();
        if (Status s = check_stale(c, pass.newest, *completed, *start->at); !s) return s.error();
    }
    sort_findings(r.findings);
    return std::move(r);
}

// A long log read in windows (issue 39): exact when nothing is found, since a
// finding's position would be its window's line. nullopt: read it whole.
std::optional<Result<EvidenceReport>> windowed_evidence(const GitRepo& repo, const FileSystem& fs,
                                                        const WorkspacePaths& ws, const LogWindows& windows) {
    const std::string path = ws.path_of(kProgressFileName);
    const std::optional<FileInfo> info = fs.stat(path);
    if (!info || info->size < windows.stream_from_bytes) return std::nullopt;
    Result<std::unordered_set<std::string>> ancestors = repo.head_ancestors();
    if (!ancestors) return std::nullopt;  // the whole read reports it, in its order
    EvidenceReport r;
    Context c{repo, std::move(*ancestors), {}, ws.display_of(kProgressFileName), &r.findings};
    EntryPass pass;
    const bool read = for_each_entry_window(fs, path, c.display, windows, [&](const Document& window) {
        // After a finding the whole read decides: collect no more (memory stays one window's).
        if (r.findings.empty()) pass.visit(c, window.root().find("entries"));
    });
    if (!read || !r.findings.empty()) return std::nullopt;
    Result<EvidenceReport> out = finish_report(c, fs, ws, pass, r);
    if (out && !out->findings.empty()) return std::nullopt;
    return out;
}

}  // namespace

Result<EvidenceReport> check_evidence(const FileSystem& fs, const WorkspacePaths& ws, const LogWindows& windows) {
    Result<GitRepo> repo = open_workspace_repo(ws.root, "small verify --evidence");
    if (!repo) return repo.error();
    EvidenceReport r;
    const std::string path = ws.path_of(kProgressFileName);
    if (!fs.file_exists(path)) return r;
    if (std::optional<Result<EvidenceReport>> windowed = windowed_evidence(*repo, fs, ws, windows)) {
        return std::move(*windowed);
    }
    Result<Document> doc = load_whole_log(fs, path, ws.display_of(kProgressFileName));
    if (!doc) return doc.error();
    Result<std::unordered_set<std::string>> ancestors = repo->head_ancestors();
    if (!ancestors) return ancestors.error();
    Context c{*repo, std::move(*ancestors), {}, ws.display_of(kProgressFileName), &r.findings};
    EntryPass pass;
    pass.visit(c, doc->root().find("entries"));
    return finish_report(c, fs, ws, pass, r);
}

}  // namespace small
