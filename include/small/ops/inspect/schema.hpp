// `small schema print NAME` and `small schema export DIR`: the built-in
// JSON Schemas of the five artifacts (check/schema's embedded set), for
// editors and other tools. Nothing in a workspace is read or written.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"

namespace small {

// The names `schema print` takes, in canonical order: the artifact types.
std::vector<std::string> schema_names();

struct SchemaText {
    std::string name;   // "plan"
    std::string file;   // "plan.schema.json", the name export writes
    std::string json;   // the schema's text, byte for byte as built in
};

// NAME is an artifact type; "plan.schema.json" and "plan.small.yml" name it
// too. Unknown: Usage, naming the closest names.
Result<SchemaText> schema_print_command(const std::string& name);

struct SchemaExportFile {
    std::string path;    // absolute
    std::string change;  // created, updated, unchanged
};

struct SchemaExportResult {
    std::string dir;     // absolute
    std::vector<SchemaExportFile> files;  // canonical order
};

// Writes the editor schemas (check/schema editor_schema: the five artifacts
// with descriptions and the status enum, and workspace.small.yml's) into
// `dir` (created when missing; absolute or
// relative to `cwd`), each atomically. A file there that is not one of
// small's schemas (its "$id" differs) is refused (Invalid) unless `force`:
// export replaces only what it wrote before. Refusals come before the first
// write; a target inside a `.small/` folder is refused (the artifacts are
// written by their own commands).
Result<SchemaExportResult> schema_export_command(const FileSystem& fs, const std::string& dir, const std::string& cwd,
                                                 bool force);

}  // namespace small
