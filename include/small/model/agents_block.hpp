// The SMALL harness block in AGENTS.md:
// a bounded, generated section between BEGIN/END markers that `small init`
// (and `small agents apply`) write; text outside the block belongs to people.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "small/base/result.hpp"

namespace small {

inline constexpr std::string_view kHarnessBeginMarker = "<!-- BEGIN SMALL HARNESS v1.0.0 -->";
inline constexpr std::string_view kHarnessEndMarker = "<!-- END SMALL HARNESS v1.0.0 -->";

// How a block is added to an AGENTS.md that has none.
enum class AgentsMode { None, Append, Prepend };
// The `--agents-mode` values parse_agents_mode accepts (shell completion lists them).
inline constexpr std::string_view kAgentsModeNames[] = {"append", "prepend"};

// `--agents-mode`: trimmed, case-insensitive; "" → None, "append", "prepend".
// Anything else (including "overwrite") is a Usage error:
// `invalid agents-mode: "<v>" (valid: append, prepend)`.
Result<AgentsMode> parse_agents_mode(std::string_view text);

// The body between the markers (starts with "# SMALL Execution Harness",
// ends with "\n").
const std::string& harness_block_body();

// BEGIN marker + "\n" + body + END marker + "\n".
const std::string& harness_block();

// Where a block sits: [begin, end) spans from the start of the BEGIN marker
// to the end of the END marker (the line break after END is outside).
struct HarnessSpan {
    bool found = false;
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string version;  // the digits and dots after "v" in BEGIN
};

// Finds the block; markers of any version (`v` + digits and dots) count.
// Malformed markers are an Invalid error with one of the messages:
//   multiple SMALL harness BEGIN markers found
//   multiple SMALL harness END markers found
//   SMALL harness BEGIN marker found without END marker
//   SMALL harness END marker found without BEGIN marker
//   SMALL harness END marker appears before BEGIN marker
Result<HarnessSpan> find_harness_block(std::string_view text);

// The new file contents:
//   empty existing text → the block;
//   a block present (any mode) → replaced in place: before (trailing line
//     breaks removed) + "\n\n" + block + "\n" + after (leading line breaks
//     removed), the separators dropped when a side is empty;
//   no block: Append → trim(existing) + "\n\n" + block;
//             Prepend → block + "\n" + trim(existing) + "\n";
//             None → Invalid "AGENTS.md has no SMALL harness block and no mode was given".
Result<std::string> compose_agents_file(std::string_view existing, AgentsMode mode);

// What a command did to an AGENTS.md file (init, agents apply).
enum class AgentsAction { Skipped, Created, Overwrote, Appended, Prepended, Updated };
std::string_view agents_action_name(AgentsAction action);  // "skipped", "created", ...

}  // namespace small
