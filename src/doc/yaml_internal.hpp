// Internals of the YAML loader shared by yaml.cpp and yaml_split.cpp.
#pragma once

#include <optional>
#include <string>

#include "small/doc/yaml.hpp"

namespace small {

// What one pass spent of the limits: the alias budget is per document, so
// the parallel path adds up its pieces.
struct ParseStats {
    std::uint64_t alias_nodes = 0;
    std::uint64_t alias_bytes = 0;
    bool loader_error = false;  // failed on a rule of the loader (depth, keys, aliases), not on syntax
};

// One sequential pass of libfyaml over `bytes` (already known to be UTF-8).
Result<Document> parse_yaml_events(std::string bytes, const std::string& file, const YamlLimits& limits,
                                   ParseStats* stats = nullptr);

// Text on which libfyaml would spend time quadratic in its length (long
// runs of blanks after certain tokens, a long anchor or alias name broken by
// an illegal character, a long tag or directive line): where the first such
// construct starts and what to do about it. One linear pass; parse_yaml runs
// it on the whole file before any parse (the parallel pieces are parts of it).
struct CostlyConstruct {
    std::size_t offset;
    std::string message;
};
std::optional<CostlyConstruct> find_quadratic_construct(std::string_view bytes);

// What to do about a YAML syntax error `message` at `at` in `bytes`, when the
// text shows a common hand-editing mistake: a tab in the indentation, an
// unquoted value containing ": ", a line that lines up with nothing above it
// (the hint names the column expected). "" when none applies. A text
// holding git's conflict markers gets no YAML hint: the hint names the
// markers' line and says to resolve the merge.
std::string syntax_error_hint(std::string_view bytes, Mark at, std::string_view message);

// The parallel path for large files: one big top-level block sequence is
// cut at item boundaries and the pieces parsed on all cores. Returns
// nothing when the file does not have that shape or any piece fails; the
// caller then parses sequentially, which also yields the exact error.
// On success `bytes` has been moved into the document.
std::optional<Document> parse_yaml_split(std::string& bytes, const std::string& file, const YamlLimits& limits);

}  // namespace small
