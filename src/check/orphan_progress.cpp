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

std::set<SupersedeKey> superseded_keys(NodeRef entries) {
    std::set<SupersedeKey> keys;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        if (!is_meta(trim(entry.find("task_id").as_string()))) continue;
        const NodeRef s = entry.find("evidence").find("supersedes");
        if (!s.is_mapping()) continue;
        keys.emplace(std::string(trim(string_of(s.find("task_id")))), string_of(s.find("timestamp")),
                     string_of(s.find("entry_sha256")));
    }
    return keys;
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
        if (!scope.empty() && trim(entry.find("replayId").as_string()) != scope) continue;
        const std::string id(trim(entry.find("task_id").as_string()));
        if (id.empty() || is_meta(id) || ids.count(id)) continue;
        OrphanEntry orphan{i, id, string_of(entry.find("timestamp")), entry};
        if (!superseded) superseded = superseded_keys(entries);
        if (superseded->count({id, orphan.timestamp, progress_entry_digest(entry)})) continue;
        out.push_back(std::move(orphan));
    }
    return out;
}

YamlValue supersede_evidence(const OrphanEntry& orphan) {
    YamlValue s = YamlValue::object();
    s["task_id"] = orphan.task_id;
    s["timestamp"] = orphan.timestamp;
    s["entry_sha256"] = progress_entry_digest(orphan.entry);
    YamlValue evidence = YamlValue::object();
    evidence["supersedes"] = std::move(s);
    return evidence;
}

}  // namespace small
