// The JSON bodies of `small status` and the progress items `emit` shares
// with it, without the envelope (envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "small/ops/inspect/status.hpp"
#include "small/ops/inspect/status_all.hpp"

namespace small {

// One recent entry: timestamp, task_id, status always; the others only
// when non-empty (the reference's shape).
nlohmann::json progress_item_json(const ProgressItem& item);
nlohmann::json progress_items_json(const std::vector<ProgressItem>& items);

// Problems that did not stop a read-only report, as warning findings.
nlohmann::json problems_json(const std::vector<Error>& problems);

// The reference's status keys (version, progress_mode, small_dir_exists,
// artifacts, plan, next_task, replay_id, recent_progress) plus warnings.
// `report` null (it failed) or without .small/: only those four keys,
// small_dir_exists false and every artifact false.
nlohmann::json status_json(const StatusReport* report, const std::string& version, bool audit);

// `status --all`: workspace, sides (name, worktree or null, head, current,
// has_workspace, newest, unmerged_entries, added_tasks, problem), the tasks
// whose status differs (statuses by side name), collisions and live claims.
nlohmann::json status_all_json(const StatusAllReport& report);

}  // namespace small
