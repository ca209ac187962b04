// Reading YAML into the document model (D2): YAML 1.2 core
// schema, no timestamp type, duplicate keys rejected, aliases resolved,
// every node positioned. Parsing is done by libfyaml's event API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

// How a plain (unquoted, untagged) scalar resolves under the core schema.
struct PlainScalar {
    NodeKind kind = NodeKind::String;  // Null, Bool, Int, Float or String
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0.0;
};
PlainScalar resolve_plain_scalar(std::string_view text);

// Resource bounds: a hostile file fails fast with a content error instead
// of costing gigabytes. Aliases are budgeted by what they add to the
// document (a "billion laughs" file), in nodes and in scalar bytes, whatever
// the file's size; plain content is not counted.
struct YamlLimits {
    std::size_t max_depth = 256;                      // nesting of collections, block or flow
    std::uint64_t max_alias_nodes = 1'000'000;        // nodes added by aliases
    std::uint64_t max_alias_bytes = std::uint64_t{16} << 20;  // scalar bytes added by aliases (16 MiB)
    bool parallel = true;  // large block sequences may be parsed on all cores
};

// Parses the first YAML document in `bytes`. `file` only labels errors,
// which carry line and column. An empty document (no content, comments
// only) yields an empty Document (root() invalid); the caller decides
// whether that is acceptable.
Result<Document> parse_yaml(std::string bytes, const std::string& file,
                            const YamlLimits& limits = {});

}  // namespace small
