// Internals of the YAML loader shared by yaml.cpp and yaml_split.cpp.
#pragma once

#include <optional>
#include <string>

#include "small/yaml.hpp"

namespace small {

// One sequential pass of libfyaml over `bytes` (already known to be UTF-8).
Result<Document> parse_yaml_events(std::string bytes, const std::string& file, const YamlLimits& limits);

// The parallel path for large files: one big top-level block sequence is
// cut at item boundaries and the pieces parsed on all cores. Returns
// nothing when the file does not have that shape or any piece fails; the
// caller then parses sequentially, which also yields the exact error.
// On success `bytes` has been moved into the document.
std::optional<Document> parse_yaml_split(std::string& bytes, const std::string& file, const YamlLimits& limits);

}  // namespace small
