// `small selftest`: runs the real commands, one after the other, on a fresh
// workspace in a directory it makes itself, and removes that directory
// again (unless kept). The caller supplies how a step runs (the CLI runs
// its own binary, so argument parsing and every command's JSON envelope are
// exercised too); this operation owns the step list, the directory and the
// cleanup, which only ever removes what it created (store/scratch_dir.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small {

// One command line, without the program name ("plan", "--add", ...).
struct SelftestStep {
    std::string name;  // as shown: "plan --add"
    std::vector<std::string> args;
};

struct SelftestStepOutcome {
    int exit_code = 0;
    std::string error;  // why it failed ("" when it passed)
};

struct SelftestStepReport {
    SelftestStep step;
    SelftestStepOutcome outcome;
};

// Runs `step` (`index` of `total`, from 0) with the scratch directory as
// its working directory.
using SelftestRunner = std::function<SelftestStepOutcome(const SelftestStep& step, const std::string& workdir,
                                                         std::size_t index, std::size_t total)>;

struct SelftestRequest {
    std::optional<std::string> dir;  // --dir: new or empty; default a fresh temporary one
    std::string cwd;                 // resolves a relative --dir
    bool keep = false;
    WorkspaceScope scope = WorkspaceScope::Any;  // for the verify step
};

struct SelftestResult {
    std::string dir;
    bool kept = false;
    std::vector<SelftestStepReport> steps;  // those that ran; the last one failed when `failed`
    bool failed = false;
    std::string cleanup_warning;  // the directory could not be removed ("" when it was, or kept)
};

// The steps, in order, for a workspace at `dir`. Each is a command that a
// user runs; a new command joins the self-test by adding a line here.
std::vector<SelftestStep> selftest_steps(const std::string& dir, WorkspaceScope scope);

// Stops at the first failing step. Errors (nothing run, nothing touched):
// Usage for --workspace examples (selftest makes a repo-root workspace, so
// it could never pass); Invalid when --dir is not new or empty, a file or a
// symbolic link; System when the directory cannot be made.
Result<SelftestResult> selftest_command(const SelftestRequest& request, const SelftestRunner& run);

}  // namespace small
