// The bounded resume primer of `small status --brief` (text and JSON), shared
// by the CLI and the MCP server's resume tool.
//
// The text never exceeds its byte budget on any workspace: sections come in
// a fixed order (intent, run, current task, next tasks, blockers, handoff,
// recent progress, constraints, problems) and are cut at section and line
// boundaries, each cut marked "…(+k more)"; every line is one line of valid
// UTF-8 of at most kBriefLineBytes; the command to run next is always the
// last line. Deterministic: the same workspace gives the same bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "small/ops/inspect/status_brief.hpp"

namespace small {

inline constexpr std::size_t kDefaultBriefBytes = 2000;
inline constexpr std::size_t kMinBriefBytes = 256;  // room for the header and the command line
inline constexpr std::size_t kBriefLineBytes = 160;

struct FittedBrief {
    std::string text;  // at most the budget, ends with a newline
    // Per list section (next, blocked, handoff, recent, problems): items shown and left out.
    std::map<std::string, std::pair<std::size_t, std::size_t>> items;
    std::vector<std::string> omitted_sections;  // whole sections left out, in order
};

// The next action as JSON: {"tool", "arguments": {name: value, switch: true},
// "placeholders": [names the agent fills]}, or {"tool": null, "note"}.
nlohmann::json next_action_json(const NextAction& action);

// `max_bytes` below kMinBriefBytes is raised to it. The last line is
// "Run next: <brief.next_command>".
FittedBrief fit_brief(const ResumeBrief& brief, std::size_t max_bytes);
// The same with `last_lines` at the end instead (MCP resume: the tool call,
// then the shell line). The first is always shown; each further one only
// while the shortest primer (title, a sections marker, these lines) still
// fits the budget, so the budget holds as it does with one line.
FittedBrief fit_brief(const ResumeBrief& brief, std::size_t max_bytes, const std::vector<std::string>& last_lines);

// The same content as the text, structured: the shown items of each section,
// what was left out, and the text itself.
nlohmann::json brief_json(const ResumeBrief& brief, const FittedBrief& fit, std::size_t max_bytes);

}  // namespace small
