// Orphan progress entries and superseding entries (see the header).
#include "small/check/orphan_progress.hpp"

#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>

#include "small/base/text.hpp"
#include "small/doc/jcs.hpp"
#include "small/model/replay_id.hpp"

namespace small {

namespace {

bool is_meta(std::string_view id) { return id.rfind("meta/", 0) == 0; }

std::string string_of(NodeRef node) { return node.is_string() ? std::string(node.as_string()) : std::string(); }

std::unordered_set<std::string> plan_ids(NodeRef plan_root) {
    std::unordered_set<std::string> ids;
    const NodeRef tasks = plan_root.find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef id = tasks.item(i).find("id");
        if (!id.valid() || id.is_mapping() || id.is_sequence()) continue;
        ids.insert(std::string(trim(id.scalar_text())));
    }
    return ids;
}

// (task_id, timestamp, digest) of every entry some meta/ entry supersedes.
using SupersedeKey = std::tuple<std::string, std::string, std::string>;

// The key of the entry `entry` supersedes, when it is a meta/ entry that supersedes one.
std::optional<SupersedeKey> superseded_by(NodeRef entry) {
    if (!is_meta(trim(entry.find("task_id").as_string()))) return std::nullopt;
    const NodeRef s = entry.find("evidence").find("supersedes");
    if (!s.is_mapping()) return std::nullopt;
    return SupersedeKey{std::string(trim(string_of(s.find("task_id")))), string_of(s.find("timestamp")),
                        string_of(s.find("entry_sha256"))};
}

std::set<SupersedeKey> superseded_keys(NodeRef entries) {
    std::set<SupersedeKey> keys;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (std::optional<SupersedeKey> key = superseded_by(entries.item(i))) keys.insert(std::move(*key));
    }
    return keys;
}

// The task id of `entry` when it is of `scope` and names neither a plan task nor a meta/ id.
std::optional<std::string> unknown_task(NodeRef entry, const std::unordered_set<std::string>& ids, std::string_view scope) {
    if (!scope.empty() && trim(entry.find("replayId").as_string()) != scope) return std::nullopt;
    std::string id(trim(entry.find("task_id").as_string()));
    if (id.empty() || is_meta(id) || ids.count(id)) return std::nullopt;
    return id;
}

}  // namespace

std::string progress_run_scope(std::string_view run_replay_id, NodeRef handoff_root) {
    std::string scope(trim(run_replay_id));
    if (scope.empty()) scope = std::string(trim(handoff_root.find("replayId").find("value").as_string()));
    return scope;
}

std::string progress_entry_digest(NodeRef entry) {
    Result<std::string> canonical = canonical_json(entry);
    // An entry JCS cannot render (invalid UTF-8) still gets a stable digest.
    return sha256_hex(canonical ? *canonical : entry.scalar_text());
}

std::vector<OrphanEntry> find_orphan_entries(NodeRef plan_root, NodeRef entries, std::string_view scope) {
    std::vector<OrphanEntry> out;
    const std::unordered_set<std::string> ids = plan_ids(plan_root);
    if (ids.empty() || !entries.is_sequence()) return out;
    std::optional<std::set<SupersedeKey>> superseded;  // built on the first orphan only
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        std::optional<std::string> id = unknown_task(entry, ids, scope);
        if (!id) continue;
        OrphanEntry orphan{i, std::move(*id), string_of(entry.find("timestamp")), entry};
        if (!superseded) superseded = superseded_keys(entries);
        if (superseded->count({orphan.task_id, orphan.timestamp, progress_entry_digest(entry)})) continue;
        out.push_back(std::move(orphan));
    }
    return out;
}

namespace {

YamlValue supersede_evidence(const std::string& task_id, const std::string& timestamp, std::string digest) {
    YamlValue s = YamlValue::object();
    s["task_id"] = task_id;
    s["timestamp"] = timestamp;
    s["entry_sha256"] = std::move(digest);
    YamlValue evidence = YamlValue::object();
    evidence["supersedes"] = std::move(s);
    return evidence;
}

}  // namespace

YamlValue supersede_evidence(const OrphanEntry& orphan) {
    return supersede_evidence(orphan.task_id, orphan.timestamp, progress_entry_digest(orphan.entry));
}

YamlValue supersede_evidence(const OrphanRecord& orphan) {
    return supersede_evidence(orphan.task_id, orphan.timestamp, orphan.digest);
}

struct OrphanScan::State {
    std::unordered_set<std::string> ids;
    std::string scope;
    std::size_t next_index = 0;
    std::vector<OrphanRecord> candidates;
    std::set<SupersedeKey> superseded;
};

OrphanScan::OrphanScan(NodeRef plan_root, std::string scope) : state_(std::make_unique<State>()) {
    state_->ids = plan_ids(plan_root);
    state_->scope = std::move(scope);
}

OrphanScan::~OrphanScan() = default;

void OrphanScan::add(NodeRef entries) {
    State& s = *state_;
    for (std::size_t i = 0; !s.ids.empty() && entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        if (std::optional<SupersedeKey> key = superseded_by(entry)) s.superseded.insert(std::move(*key));
        std::optional<std::string> id = unknown_task(entry, s.ids, s.scope);
        if (!id) continue;
        s.candidates.push_back({s.next_index + i, std::move(*id), string_of(entry.find("timestamp")),
                                std::string(trim(entry.find("status").as_string())), progress_entry_digest(entry)});
    }
    if (entries.is_sequence()) s.next_index += entries.size();
}

std::vector<OrphanRecord> OrphanScan::orphans() const {
    std::vector<OrphanRecord> out;
    for (const OrphanRecord& c : state_->candidates) {
        if (!state_->superseded.count({c.task_id, c.timestamp, c.digest})) out.push_back(c);
    }
    return out;
}

}  // namespace small
