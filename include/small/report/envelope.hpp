// The JSON envelope every machine-readable answer carries (D16): the CLI's
// --json output and, later, the MCP server's structured results use the
// same keys, exit codes and error kinds.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/base/result.hpp"
#include "small/check/verdict.hpp"

namespace small {

// Exit codes (D4).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSystem = 2;
inline constexpr int kExitInternal = 2;  // a bug in small (Error::Kind::Internal)
inline constexpr int kExitBusy = 3;  // workspace lock held by another process

// Version of the envelope: bumped only on an incompatible change.
inline constexpr int kJsonSchemaVersion = 1;

// The body of `small version` and `small --version --json`.
nlohmann::json version_json();

// `doc` with schema_version, command, ok (exit_code == 0) and exit_code set;
// a failure without an `error` gets a generic one.
nlohmann::json with_envelope(nlohmann::json doc, const std::string& command, int exit_code);

// {"error": {kind, message}}, the body of a failure.
nlohmann::json error_json(const std::string& kind, const std::string& message);

// The `error.kind` name and the exit code of an error kind, and of a verdict.
const char* error_kind_name(Error::Kind kind);
int exit_code_for(Error::Kind kind);
int exit_code_for(VerdictOutcome outcome);

}  // namespace small
