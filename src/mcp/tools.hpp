// The tools of `small mcp` (private to src/mcp): their tools/list entries and
// the calls behind them, one ops/ operation each.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/workspace.hpp"

namespace small::mcp {

// Compact JSON text; invalid UTF-8 in strings becomes U+FFFD instead of throwing.
std::string dump(const nlohmann::json& j);

struct ToolContext {
    const FileSystem& fs;
    const WorkspacePaths& ws;
    WorkspaceScope scope;
    std::string version;
    Instant asked_at;  // the wall clock before the call began: steady_until counts from it
};

// A tools/call result: structuredContent (the --json document of the same
// command, envelope included), its text, and isError.
struct ToolResult {
    nlohmann::json structured;
    std::string text;
    bool is_error = false;
    // Until when the clock leaves this answer as it is (issue 39: mcp/answer_cache
    // keeps it no longer); nullopt when that was not worked out (never kept).
    std::optional<Instant> steady_until;
};

// Every tool's tools/list entry, in the listed order.
const nlohmann::json& tool_entries();
// The entry of tool `name`, or nullptr.
const nlohmann::json* find_tool(const std::string& name);

// Why `arguments` does not satisfy `schema` (the subset our input schemas
// use: object, properties of type string/integer/boolean/array (items of
// one type), enum, minimum, maximum, required, dependentRequired; an
// argument it does not name is refused), naming the argument and what to
// write, or nothing when they do.
std::optional<std::string> argument_problem(const nlohmann::json& schema, const nlohmann::json& arguments);

// Tool `name`'s answer to arguments with `problem`: a tool error (isError),
// not a protocol error, so that the agent reads it and calls again.
ToolResult argument_failure(const std::string& name, const std::string& problem);

// Runs tool `name` (known, arguments already checked).
ToolResult run_tool(const std::string& name, const nlohmann::json& arguments, const ToolContext& ctx);

}  // namespace small::mcp
