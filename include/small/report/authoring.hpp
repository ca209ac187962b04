// The JSON bodies of the authoring commands (draft, accept, agents apply,
// check and print, start), without the envelope (envelope.hpp). Beside session.hpp:
// one place for each shape, so the CLI and the MCP server cannot drift.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/model/layout.hpp"
#include "small/ops/authoring/accept.hpp"
#include "small/ops/authoring/agents.hpp"
#include "small/ops/authoring/draft.hpp"
#include "small/ops/session/start.hpp"

namespace small {

nlohmann::json draft_json(const WorkspacePaths& ws, DraftKind kind, const DraftResult& r);
// An accepted draft carries the progress entry; a refused one its problems
// as `errors` and an `error` (exit 1).
nlohmann::json accept_json(const WorkspacePaths& ws, DraftKind kind, const AcceptResult& r);

// `dry_run` covers --dry-run and --print; `print` adds the whole new content
// (else a dry run adds the diff).
nlohmann::json agents_apply_json(const AgentsApplyResult& r, const std::string& path, bool dry_run, bool print);
// The reference's keys (D11); its `error` string becomes the envelope's
// {kind, message} on a failure.
nlohmann::json agents_check_json(const AgentsCheckReport& r);
// `agents print`: the harness block as printed, with the format asked for.
nlohmann::json agents_print_json(const std::string& format, bool with_markers, const std::string& content);

// `check` is the body of the strict check start runs, `exit_code` its exit.
nlohmann::json start_json(const StartResult& r, const WorkspacePaths& ws, nlohmann::json check, int exit_code);

}  // namespace small
