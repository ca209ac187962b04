// JSON with comments (VS Code's settings files: `//` and `/* */` comments,
// trailing commas) read and edited in place: a member is added, replaced or
// removed and every other byte, comments included, stays as it was.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"

namespace small {

// The value of `text` (empty or blank text reads as an empty object).
// Errors (Invalid) carry the line and column of the fault; `display` names
// the file in the message.
Result<nlohmann::json> jsonc_parse(std::string_view text, const std::string& display);

// `text` with member `key` of the object that `path` leads to (keys from the
// top-level object) set to `value`: an existing value is replaced, a new
// member goes after the last one, on a line of its own at its siblings'
// indentation; objects missing on the path are added. New text is indented
// like the file (its first indented line; two spaces when none). Errors:
// the parse errors, and a value on the path that is not an object.
Result<std::string> jsonc_set_member(std::string_view text, const std::vector<std::string>& path, const std::string& key,
                                     const nlohmann::json& value, const std::string& display);

// `text` without member `key` of the object `path` leads to (with its comma
// and, when it had a line of its own, that line); the text unchanged when
// there is no such member or object.
Result<std::string> jsonc_remove_member(std::string_view text, const std::vector<std::string>& path,
                                        const std::string& key, const std::string& display);

}  // namespace small
