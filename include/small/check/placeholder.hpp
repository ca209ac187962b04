// Placeholders are not data. small's suggestions leave blanks for the agent
// to fill (`--evidence "<what proves it is done>"`, `--add "<title>"`); a
// value that is exactly such a blank means the
// suggestion was copied without being filled in. Every write refuses one
// (evidence, notes, titles, steps, acceptance, summaries, intents), so the
// log never records a blank as if it were a fact.
#pragma once

#include <string_view>

#include "small/base/result.hpp"

namespace small {

// `<words>` (a letter first; letters, digits, spaces and - _ ' . , : inside;
// no markup such as `<br/>` or `<!-- … -->`), surrounding blanks ignored.
// Every blank small prints has this form; "..." does not count (it is a
// value people write).
bool is_placeholder(std::string_view value);

// A Usage error naming `field` (an argument name, as both the CLI's flag and
// the MCP tool's argument spell it) when `value` is a placeholder.
Status refuse_placeholder(std::string_view field, std::string_view value);

}  // namespace small
