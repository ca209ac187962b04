// The JSON body of `small emit`, without the envelope (envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/ops/inspect/emit.hpp"

namespace small {

// The reference's camelCase keys (cliVersion, specVersion, workspace,
// paths, status, progress, intent, constraints, plan, enforcement), only the
// selected sections, plus the snake_case additions (present, warnings, the
// plan tasks' lower-case keys).
// (progress.entries, when present, holds a placeholder: see emit_document_text.)
nlohmann::json emit_json(const EmitResult& r, const std::string& cli_version);

// The whole document with the envelope (D16), pretty-printed, as the CLI
// prints it. progress.entries is written straight from the parsed log, one
// entry per line in canonical JSON (RFC 8785, keys sorted): building a JSON
// value per entry would cost more than parsing the log.
std::string emit_document_text(const EmitResult& r, const std::string& cli_version, int exit_code);

}  // namespace small
