// Path arithmetic on plain strings, no disk access (that is FileSystem's).
// The one place outside the door that knows how paths are spelled, so that
// the rest of the library never reaches for std::filesystem.
#pragma once

#include <string>
#include <string_view>

namespace small {

// "/a/b/c" -> "/a/b"; "c" -> ""; "/c" -> "/" (std::filesystem's parent_path).
std::string parent_path(std::string_view path);

// The last component: "/a/b.txt" -> "b.txt"; "/a/b/" -> "".
std::string file_name(std::string_view path);

// `dir`/`name` with exactly one slash between them ("/" + "x" -> "/x").
std::string join_path(std::string_view dir, std::string_view name);

bool is_absolute_path(std::string_view path);

// Lexically normal form: "." and empty components dropped, "x/.." folded
// (std::filesystem's lexically_normal: "a/b/.." is "a/", slash kept).
std::string normal_path(std::string_view path);

// normal_path without a trailing slash (except for "/" itself).
std::string normal_dir_path(std::string_view path);

// `path` made absolute against `cwd` when relative, then normalised
// (normal_path).
std::string absolute_path(std::string_view cwd, std::string_view path);

// Whether one component of `path` is exactly `name` (".small" below a root).
bool has_path_component(std::string_view path, std::string_view name);

}  // namespace small
