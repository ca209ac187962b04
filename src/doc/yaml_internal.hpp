// Internals of the YAML loader shared by yaml.cpp, yaml_split.cpp,
// yaml_canonical.cpp and yaml_cost.cpp.
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
// (the hint names the column expected); when none applies, where to look
// and how to see what changed (it guesses no cause). A text
// holding git's conflict markers gets no YAML hint: the hint names the
// markers' line and says to resolve the merge.
std::string syntax_error_hint(std::string_view bytes, Mark at, std::string_view message);

// The parallel path for large files: one big top-level block sequence is
// cut at item boundaries and the pieces parsed on all cores. Returns
// nothing when the file does not have that shape or any piece fails; the
// caller then parses sequentially, which also yields the exact error.
// On success `bytes` has been moved into the document.
std::optional<Document> parse_yaml_split(std::string& bytes, const std::string& file, const YamlLimits& limits);

// How a piece was read by read_canonical_items (tests prove both ways ran).
struct CanonicalStats {
    std::size_t items_read = 0;     // read by the canonical reader
    std::size_t items_grafted = 0;  // parsed by libfyaml alone and copied in
};

// One piece of parse_yaml_split (a block sequence's items at `indent`,
// starting at an item line; `following` is the line after it, or nothing at
// the end of the file: an item line at `indent`, or a line less indented,
// never a line that would continue the piece's last item) read without libfyaml where its items are in the
// canonical form small writes (`- key: "text"` lines), other items by
// parse_item_in_context: the document the sequential parse builds for those
// items (lines counted from the piece's first), or nothing when the reader
// cannot prove that (the caller then parses the piece with libfyaml).
std::optional<Document> read_canonical_items(std::string piece, std::string_view following, const std::string& file,
                                             const YamlLimits& limits, ParseStats* parse_stats = nullptr,
                                             CanonicalStats* stats = nullptr);

// One item (its lines, from its `-` line to the next item's) parsed by
// libfyaml as it stands in its file: under a key, as the items are under
// `entries:`, and followed by the line that follows it there (libfyaml
// accepts some text at the end of its input that it refuses before another
// line). Nothing when that fails, holds an alias, or the item has no token
// of its own.
std::optional<Document> parse_item_in_context(std::string_view item, std::string_view following, std::size_t indent,
                                              const std::string& file, const YamlLimits& piece_limits);

// Whether a piece libfyaml parsed alone reads as in its file: its first
// item has a token of its own, and its last item (`last_item`, at line
// `last_item_line` of the piece) is the same when parsed in its context.
bool piece_reads_in_context(const Document& piece, std::string_view last_item, std::uint32_t last_item_line,
                            std::string_view following, const std::string& file, const YamlLimits& piece_limits);

// Whether `item` (one item at `indent`, as for parse_item_in_context) reads
// the same before `following` (the next item's first line) as at the end of
// the input; false when either reading fails.
bool item_reads_the_same_before(std::string_view item, std::string_view following, std::size_t indent,
                                const std::string& file, const YamlLimits& limits);

}  // namespace small
