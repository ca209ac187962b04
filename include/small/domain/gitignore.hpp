// The workspace's runtime folders in the root's .gitignore: written by
// `init`, and by `start` when it creates .small/. Each line is added once;
// existing bytes are kept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

// .gitignore after adding the runtime lines that are missing (compared as
// trimmed lines); `added` receives them. Existing bytes are kept; a missing
// final line break is added before the new lines. Unchanged when nothing is
// missing.
std::string gitignore_with_runtime_lines(std::string_view existing, std::vector<std::string>& added);

// What adding the runtime lines does to <root>/.gitignore.
struct GitignoreUpdate {
    std::string path;                // absolute
    bool existed = false;            // the file (or a link by that name) was there
    std::string content;             // the bytes after the update
    std::vector<std::string> added;  // lines added; none: nothing to write

    bool created() const { return !existed && !added.empty(); }
};

// Reads the root's .gitignore (System error when it exists but cannot be
// read) and decides the update; writes nothing.
Result<GitignoreUpdate> plan_gitignore_update(const FileSystem& fs, const WorkspacePaths& ws);

// Writes the update atomically (write_file_atomic, D7) when it adds lines.
Status write_gitignore_update(const FileSystem& fs, const WorkspacePaths& ws, const GitignoreUpdate& update);

}  // namespace small
