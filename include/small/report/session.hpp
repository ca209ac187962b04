// The JSON bodies of the session commands (init, plan, progress, checkpoint,
// handoff, reset, plan show, progress list, replay-id), without the
// envelope (envelope.hpp). One place for each shape, so the CLI and the MCP
// server cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>

#include "small/doc/yaml_writer.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"
#include "small/ops/inspect/plan_show.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/ops/inspect/progress_list.hpp"
#include "small/ops/session/progress_migrate.hpp"
#include "small/ops/inspect/replay_id.hpp"
#include "small/ops/session/reset.hpp"
#include "small/domain/gitignore.hpp"

namespace small {

// A YAML value as JSON with its keys sorted, as the reference prints entries.
nlohmann::json sorted_json(const YamlValue& v);

nlohmann::json gitignore_json(const GitignoreUpdate& update);
nlohmann::json init_json(const InitResult& r);
nlohmann::json plan_json(const PlanResult& r, const WorkspacePaths& ws);
nlohmann::json progress_add_json(const ProgressAddResult& r, const WorkspacePaths& ws);
nlohmann::json progress_migrate_json(const ProgressMigrateResult& r, bool dry_run);
nlohmann::json checkpoint_json(const CheckpointResult& r, const WorkspacePaths& ws);
// The warning text handoff prints about unsettled tasks ("" when none).
std::string unsettled_warning(const std::vector<UnsettledTask>& unsettled);
nlohmann::json handoff_json(const HandoffResult& r, const WorkspacePaths& ws);
nlohmann::json reset_json(const ResetResult& r, const WorkspacePaths& ws);
nlohmann::json plan_view_json(const PlanView& v);
nlohmann::json task_detail_json(const TaskDetail& d);
nlohmann::json entry_list_json(const EntryList& list, const WorkspacePaths& ws);
nlohmann::json replay_id_json(const ReplayIdReport& r);

}  // namespace small
