// The one verdict operation behind `validate`, `lint`, `check` and `verify`,
// the report's health tile and the MCP `check` tool: schemas loaded (built in
// or from a folder), the verified-prefix cache read and kept, the pipeline of
// check/verdict run, `verify --evidence` added as a stage. A failure to run
// the verdict (schemas that do not load, a bad scope, git unreadable) is an
// error, never a default Verdict, which would read as a pass.
#pragma once

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/check/verdict.hpp"
#include "small/model/workspace.hpp"

namespace small {

enum class VerdictKind { Validate, Lint, Check, Verify };

struct VerdictRequest {
    VerdictKind kind = VerdictKind::Check;
    std::optional<std::string> spec_dir;  // schemas from this folder instead of the built-in ones
    VerdictOptions options;               // strict, format_strict, scope: the pipeline's own
    bool evidence = false;  // verify: progress evidence against git, as one more stage
    bool no_cache = false;  // read the whole log, not only what follows its verified prefix
};

struct VerdictRun {
    Verdict verdict;
    std::string schema_source;  // where the schemas came from ("built-in" or the folder)
    std::string cache_note;     // why a verified-prefix cache was ignored ("" when none was)
};

// Errors: the schemas do not load (System), `--evidence` cannot read git
// (its kind). Writes only the verified-prefix cache, and only when
// `.small-cache/` already exists.
Result<VerdictRun> verdict_command(const FileSystem& fs, const WorkspacePaths& ws, const VerdictRequest& request);

}  // namespace small
