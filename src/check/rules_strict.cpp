// Strict-mode rules: secrets (SEC), insecure links (LINK) and the
// cross-artifact rules S1-S3.
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "rules_internal.hpp"

#include "small/model/resume_point.hpp"
#include "small/model/task_status.hpp"
#include "small/check/links.hpp"
#include "small/check/orphan_progress.hpp"
#include "small/check/entry_evidence.hpp"
#include "small/check/secrets.hpp"
#include "small/check/verified_prefix.hpp"

namespace small::rules {

namespace {

// One step of the path from the root to a node: a key or a list index.
struct PathStep {
    std::string_view key;
    std::size_t index = 0;
    bool is_index = false;
};

// "entries[3].commit", built only when a finding needs it.
std::string render_path(const std::vector<PathStep>& path) {
    std::string out;
    for (const PathStep& step : path) {
        if (step.is_index) out.append("[").append(std::to_string(step.index)).append("]");
        else out.append(out.empty() ? "" : ".").append(step.key);
    }
    return out;
}

// Replay ids and hashes are hex by schema; scanning them only yields noise.
bool exempt_from_secret_scan(const std::vector<PathStep>& path) {
    if (path.empty() || path.back().is_index) return false;
    const std::string_view key = path.back().key;
    if (key == "replayId" || key == "command_sha256") return true;
    const bool under_run = path.size() >= 2 && !path[path.size() - 2].is_index && path[path.size() - 2].key == "run";
    return under_run && (key == "previous_replay_id" || key == "replay_id");
}

class HygieneWalker {
public:
    HygieneWalker(Reporter& r, bool progress) : r_(r), progress_(progress) {}

    void walk(NodeRef node) {
        if (node.is_mapping()) {
            walk_members(node);
        } else if (node.is_sequence()) {
            for (std::uint32_t i = 0; i < node.size(); ++i) {
                path_.push_back({{}, i, true});
                walk(child(node, i));
                path_.pop_back();
            }
        } else if (node.is_string()) {
            check_string(node);
        }
    }

private:
    // Child i of a container (a mapping's are key, value, ...), read from
    // the document directly: a log has a million of them.
    static NodeRef child(NodeRef container, std::uint32_t i) {
        const Document& doc = *container.document();
        return {&doc, doc.child(doc.node(container.index()).children.first + i)};
    }

    void walk_members(NodeRef node) {
        const auto count = static_cast<std::uint32_t>(2 * node.size());
        for (std::uint32_t c = 0; c < count; c += 2) {
            const NodeRef key = child(node, c);
            path_.push_back({key.scalar_text(), 0, false});
            if (!exempt_from_secret_scan(path_)) {
                if (const auto& why = key_reason(key.scalar_text(), c / 2)) report_secret(key, *why);
                walk(child(node, c + 1));
            }
            path_.pop_back();
        }
    }

    void check_string(NodeRef node) {
        const std::string_view text = node.as_string();
        const bool commit = !path_.empty() && !path_.back().is_index && path_.back().key == "commit";
        if (auto why = commit ? secret_commit_reason(text) : secret_value_reason(text)) report_secret(node, *why);
        if (auto url = find_insecure_link(text, progress_)) {
            std::string message = "insecure link detected (http://). Use https://";
            if (progress_) message += " (localhost/127.0.0.1/0.0.0.0/[::1] allowed in progress)";
            r_.error("LINK", node, message + ": " + *url + " at " + render_path(path_), "use an https:// URL");
        }
    }

    void report_secret(NodeRef at, const std::string& why) {
        r_.error("SEC", at, "potential secret detected at " + render_path(path_) + " (" + why + ")",
                 "remove the secret from .small/; keep secrets in a secret store or environment");
    }

    // The same few keys repeat in every entry, mostly in the same places:
    // judge each name once, and look first at the name last seen at this
    // member position.
    const std::optional<std::string>& key_reason(std::string_view key, std::size_t position) {
        auto& recent = recent_[position % recent_.size()];
        if (recent.second && recent.first == key) return *recent.second;
        auto it = key_memo_.find(key);
        if (it == key_memo_.end()) it = key_memo_.emplace(key, secret_key_reason(key)).first;
        recent = {key, &it->second};
        return it->second;
    }

    Reporter& r_;
    bool progress_;
    std::vector<PathStep> path_;
    std::unordered_map<std::string_view, std::optional<std::string>> key_memo_;  // nodes: values stay put
    std::array<std::pair<std::string_view, const std::optional<std::string>*>, 16> recent_{};
};

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_meta(std::string_view id) { return id.rfind("meta/", 0) == 0; }

struct PlanIndex {
    std::vector<std::string> ids;
    std::unordered_set<std::string> id_set;
};

PlanIndex index_plan(NodeRef plan) {
    PlanIndex out;
    const NodeRef tasks = plan.find("tasks");
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef id = tasks.item(i).find("id");
        if (!id.valid() || id.is_mapping() || id.is_sequence()) continue;
        std::string text(trim(id.scalar_text()));
        out.id_set.insert(text);
        out.ids.push_back(std::move(text));
    }
    return out;
}

Finding make_finding(const Artifact& artifact, std::string rule, Mark mark, std::string message, std::string hint) {
    Finding f;
    f.rule = std::move(rule);
    f.file = artifact.display;
    f.file_order = file_order(artifact.type);
    f.mark = mark;
    f.message = std::move(message);
    f.hint = std::move(hint);
    return f;
}

// Whether the verified entries hold evidence for `id` (nullopt: no entry).
std::optional<bool> verified_evidence(const VerifiedPrefix* before, std::string_view id) {
    if (!before) return std::nullopt;
    const auto it = before->evidence.find(std::string(id));
    if (it == before->evidence.end()) return std::nullopt;
    return it->second;
}

// S1: completed or blocked tasks need a progress entry with evidence (D9).
void check_s1(NodeRef plan, const Artifact& progress, const VerifiedPrefix* before, std::vector<Finding>& out) {
    const NodeRef tasks = plan.find("tasks");
    const NodeRef entries = progress.doc.root().find("entries");
    if (!tasks.is_sequence() || tasks.size() == 0 || !entries.is_sequence()) return;
    std::unordered_map<std::string_view, bool> evidence_by_task;  // task id -> some entry has evidence
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        const std::string_view id = trim(entry.find("task_id").as_string());
        bool& has = evidence_by_task[id];
        has = has || entry_has_evidence(entry);
    }
    std::vector<std::string> offenders;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef task = tasks.item(i);
        const std::optional<TaskStatus> status = parse_task_status(lower(trim(task.find("status").as_string())));
        const std::string_view id = trim(task.find("id").as_string());
        if ((status != TaskStatus::Completed && status != TaskStatus::Blocked) || id.empty()) continue;
        const auto it = evidence_by_task.find(id);
        const std::optional<bool> verified = verified_evidence(before, id);
        if ((it != evidence_by_task.end() && it->second) || verified.value_or(false)) continue;
        const bool seen = it != evidence_by_task.end() || verified;
        offenders.push_back(excerpt(id) + " (" + excerpt(task.find("title").as_string()) + ") [" +
                            (seen ? "empty evidence" : "no progress entry") + "]");
    }
    if (offenders.empty()) return;
    std::sort(offenders.begin(), offenders.end());
    std::string list;
    for (const auto& o : offenders) list += (list.empty() ? "" : "; ") + o;
    out.push_back(make_finding(progress, "S1", key_mark(progress.doc.root(), "entries"),
                               "strict invariant S1 failed: " + list,
                               "record evidence for these tasks: small progress add --task <task-id> --evidence \"<what proves it>\""));
}

std::string closest_ids(const std::string& id, const PlanIndex& plan) {
    std::vector<std::string> close;
    for (const auto& candidate : plan.ids) {
        if (!candidate.empty() && (candidate.find(id) != std::string::npos || id.find(candidate) != std::string::npos)) {
            close.push_back(candidate);
        }
    }
    if (close.empty()) {
        for (const auto& candidate : plan.ids) {
            if (lower(candidate) == lower(id)) close.push_back(candidate);
        }
    }
    std::sort(close.begin(), close.end());
    close.erase(std::unique(close.begin(), close.end()), close.end());
    if (close.size() > 3) close.resize(3);
    std::string out;
    for (const auto& c : close) out += (out.empty() ? "" : ", ") + c;
    return out.empty() ? "" : " (closest: " + out + ")";
}

// S2: progress task ids of the current run must exist in the plan.
// Whether the verified entries of `scope` (every run when empty) name a
// task the plan lacks: an orphan or a superseded one, which only the
// entries themselves can tell apart.
bool verified_orphans(const VerifiedPrefix& before, const PlanIndex& index, const std::string& scope) {
    for (const auto& [run, ids] : before.task_ids) {
        if (!scope.empty() && run != scope) continue;
        for (const std::string& id : ids) {
            if (!index.id_set.count(id)) return true;
        }
    }
    return false;
}

void check_s2(NodeRef plan, const Artifact& progress, const std::string& scope, const InvariantOptions& options,
              std::vector<Finding>& out) {
    const NodeRef entries = progress.doc.root().find("entries");
    const PlanIndex index = index_plan(plan);
    if (index.ids.empty() || !entries.is_sequence()) return;
    if (options.before && options.undecided && verified_orphans(*options.before, index, scope)) *options.undecided = true;
    std::vector<std::string> offenders;
    Mark first;
    // One definition of an orphan for S2 and `fix --orphan-progress`;
    // entries a later meta/ entry supersedes no longer count.
    for (const OrphanEntry& orphan : find_orphan_entries(plan, entries, scope)) {
        if (offenders.empty()) first = orphan.entry.find("task_id").mark();
        offenders.push_back(excerpt(orphan.task_id) + closest_ids(orphan.task_id, index));
    }
    if (offenders.empty()) return;
    std::sort(offenders.begin(), offenders.end());
    offenders.erase(std::unique(offenders.begin(), offenders.end()), offenders.end());
    std::string list;
    for (const auto& o : offenders) list += (list.empty() ? "" : "; ") + o;
    out.push_back(make_finding(progress, "S2", first,
                               "strict invariant S2 failed (replayId scope: " + (scope.empty() ? "unknown" : excerpt(scope)) +
                                   "): unknown progress task ids: " + list,
                               "add the tasks to the plan, or supersede these entries: small fix --orphan-progress"));
}

// S3: the handoff's current task must be a plan task (or meta/).
void check_s3(NodeRef plan, const Artifact& handoff, std::vector<Finding>& out) {
    const NodeRef current = handoff.doc.root().find("resume").find("current_task_id");
    if (!current.is_string()) return;
    const std::string id(trim(current.as_string()));
    if (id.empty() || is_meta(id) || index_plan(plan).id_set.count(id)) return;
    out.push_back(make_finding(handoff, "S3", current.mark(),
                               "strict invariant S3 failed: resume.current_task_id references " + quoted_excerpt(id) +
                                   " which is missing from plan",
                               "regenerate the handoff: small handoff"));
}

// HANDOFF-STALE (D18, a warning: the verdict stays the reference's): the
// handoff's first line records the plan and work entries it was computed
// from; a handoff without that line (by hand, another tool) is not judged.
void check_handoff_fresh(NodeRef plan, NodeRef progress, const Artifact& handoff, const InvariantOptions& options,
                         std::vector<Finding>& out) {
    const std::optional<HandoffSource> recorded = parse_source_comment(handoff.doc.source());
    if (!recorded) return;
    const std::vector<PlanTaskOutline> outline = outline_plan(plan);
    LogFacts facts;
    if (options.before) {
        VerifiedPrefix all = *options.before;
        fold_entries(all, progress.find("entries"));
        facts.work_entries = all.work_entries;
        facts.newest_work = all.newest_work;
    } else {
        facts = log_facts(progress, options.run_replay_id);
    }
    const std::string why = staleness(recorded, handoff_source(outline, facts));
    if (why.empty()) return;
    Finding f = make_finding(handoff, "HANDOFF-STALE", Mark{1, 1}, "the handoff is stale: " + why,
                             "regenerate it from the plan and log as they are: small handoff");
    f.severity = Severity::Warning;
    out.push_back(std::move(f));
}

}  // namespace

void check_secrets_and_links(NodeRef root, ArtifactType type, Reporter& r) {
    HygieneWalker walker(r, type == ArtifactType::Progress);
    walker.walk(root);
}

void check_cross_artifact(const ArtifactSet& set, const InvariantOptions& options, std::vector<Finding>& out) {
    const Artifact* plan = set.get(ArtifactType::Plan);
    const Artifact* progress = set.get(ArtifactType::Progress);
    const Artifact* handoff = set.get(ArtifactType::Handoff);
    if (plan && progress) {
        check_s1(plan->doc.root(), *progress, options.before, out);
        // D9: the run id pinned in workspace.small.yml scopes S2; the
        // handoff's id is the fallback.
        const std::string scope = progress_run_scope(options.run_replay_id, handoff ? handoff->doc.root() : NodeRef());
        check_s2(plan->doc.root(), *progress, scope, options, out);
    }
    if (plan && handoff) check_s3(plan->doc.root(), *handoff, out);
    if (plan && progress && handoff) {
        check_handoff_fresh(plan->doc.root(), progress->doc.root(), *handoff, options, out);
    }
}

}  // namespace small::rules
