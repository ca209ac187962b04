// Orphan progress entries (strict rule S2, D9) and how a later entry
// supersedes one without touching it (the progress log is append-only, D7).
//
// An orphan is an entry of the current run whose task_id is neither a plan
// task nor a meta/ id. `small fix --orphan-progress` does not edit it: it
// appends a `meta/` entry whose evidence is a mapping
//   supersedes: {task_id: <the orphan's id>, timestamp: <its timestamp as
//                written>, entry_sha256: <progress_entry_digest of it>}
// (schema-valid: evidence may be an object). S2 then no longer counts the
// orphan. The digest covers the whole entry, so an entry edited after it
// was superseded is an orphan again.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct OrphanEntry {
    std::size_t index = 0;  // 0-based position in `entries`
    std::string task_id;    // trimmed
    std::string timestamp;  // as written ("" when absent)
    NodeRef entry;
};

// The run S2 checks (D9): workspace.small.yml's run.replay_id, else the
// handoff's replayId.value; "" means every entry is in scope.
std::string progress_run_scope(std::string_view run_replay_id, NodeRef handoff_root);

// The orphans among `entries` (a sequence) for `scope`, in log order, not
// counting superseded ones. None when the plan has no task ids (S2 skips
// such a plan too).
std::vector<OrphanEntry> find_orphan_entries(NodeRef plan_root, NodeRef entries, std::string_view scope);

// What `small fix --orphan-progress` needs of an orphan, no node kept.
struct OrphanRecord {
    std::size_t index = 0;  // 0-based position in `entries`
    std::string task_id;    // trimmed
    std::string timestamp;  // as written ("" when absent)
    std::string status;     // trimmed ("" when absent)
    std::string digest;     // progress_entry_digest of the entry
};

// find_orphan_entries over a log read a window at a time (memory flat in
// its length: only the orphans and the superseding keys are kept): the same
// orphans, in the same order.
class OrphanScan {
public:
    OrphanScan(NodeRef plan_root, std::string scope);
    ~OrphanScan();
    // The log's next entries (a sequence), in order.
    void add(NodeRef entries);
    // The orphans so far that no entry so far supersedes, in log order.
    std::vector<OrphanRecord> orphans() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Lower-case hex SHA-256 of the entry's RFC 8785 canonical JSON (every
// field, not only task_id|timestamp|status as the reference's hash).
std::string progress_entry_digest(NodeRef entry);

// The `evidence` value of an entry that supersedes `orphan`.
YamlValue supersede_evidence(const OrphanEntry& orphan);
YamlValue supersede_evidence(const OrphanRecord& orphan);

}  // namespace small
