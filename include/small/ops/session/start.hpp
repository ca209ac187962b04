// `small start`: what is missing created from templates, the run pinned, a
// handoff written (D3, D10 in docs/design.md); the CLI then runs
// `check --strict`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/gitignore.hpp"
#include "small/domain/handoff_file.hpp"

namespace small {

struct StartRequest {
    std::optional<std::string> summary;
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct StartResult {
    HandoffResult handoff;
    std::vector<std::string> created;  // file names written from templates
    bool self_heal = false;            // no run id existed: one was computed and pinned
    std::string repinned_from;         // the run had no work entries: re-pinned to the manifest (was this id)
    std::optional<YamlValue> entry;    // meta/replayid-self-heal
    std::optional<GitignoreUpdate> gitignore;  // when start created .small/: the runtime lines, as init adds them
};

// Creates missing artifacts from templates (`.small/` itself only with scope
// any; then the runtime lines are added to .gitignore as init adds them), pins the run (the existing run id, else the old handoff's, else the
// manifest's: self-heal; a pinned run with no work entries yet is re-pinned
// to the manifest as it now is, D18) and writes a handoff with a `run` block. The caller
// then runs `check --strict`.
Result<StartResult> start_command(const FileSystem& fs, const WorkspacePaths& ws, const StartRequest& req);

}  // namespace small
