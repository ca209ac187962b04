#include "small/ops/maintenance/selftest.hpp"

#include "small/model/layout.hpp"
#include "small/model/task_status.hpp"
#include "small/store/folder_publish.hpp"

namespace small {

namespace {

// What the steps make in the test directory: the workspace's files, its
// runtime folders, AGENTS.md and .gitignore. Only these are removed; a file
// another process writes there meanwhile stays (issue 24), and so does a
// folder holding one.
ScratchContents workspace_contents() {
    ScratchContents made;
    for (const ArtifactType type : kArtifactTypes) made.trees.push_back(small_relative(artifact_file_name(type)));
    made.trees.push_back(small_relative(kWorkspaceFileName));
    for (const std::string_view dir : {kCacheDirName, kRunsDirName, kArchiveDirName}) made.trees.emplace_back(dir);
    made.trees.emplace_back("AGENTS.md");
    made.trees.emplace_back(".gitignore");
    made.folders.emplace_back(kSmallDirName);
    return made;
}

}  // namespace

std::vector<SelftestStep> selftest_steps(const std::string& dir, WorkspaceScope scope) {
    const std::string task = "task-2";  // init's plan has task-1; plan --add appends task-2
    return {
        {"init", {"init", "--dir", dir, "--intent", "SMALL selftest workspace"}},
        {"plan --add", {"plan", "--dir", dir, "--add", "Selftest task"}},
        {"progress add",
         {"progress", "add", "--dir", dir, "--task", task, "--status", std::string(status_name(TaskStatus::InProgress)),
          "--evidence", "selftest: started " + task}},
        {"checkpoint",
         {"checkpoint", "--dir", dir, "--task", task, "--status", std::string(status_name(TaskStatus::Completed)),
          "--evidence", "selftest: finished " + task}},
        {"plan show", {"plan", "show", "--dir", dir}},
        {"progress list", {"progress", "list", "--dir", dir}},
        {"handoff", {"handoff", "--dir", dir, "--summary", "Selftest handoff"}},
        {"replay-id", {"replay-id", "--dir", dir}},
        {"verify", {"verify", "--dir", dir, "--strict", "--workspace", std::string(workspace_scope_name(scope))}},
        {"check", {"check", "--dir", dir, "--strict"}},
    };
}

Result<SelftestResult> selftest_command(const SelftestRequest& request, const SelftestRunner& run) {
    if (request.scope == WorkspaceScope::Examples) {
        return Error::usage(
            "selftest makes a repo-root workspace, so --workspace examples could never pass; "
            "use root or any");
    }
    Result<ScratchDir> dir = make_scratch_dir(request.dir, request.cwd, "small-selftest-");
    if (!dir) return dir.error();

    SelftestResult result;
    result.dir = dir->path;
    result.kept = request.keep;
    const std::vector<SelftestStep> steps = selftest_steps(dir->path, request.scope);
    for (std::size_t i = 0; i < steps.size() && !result.failed; ++i) {
        SelftestStepOutcome outcome = run(steps[i], dir->path, i, steps.size());
        result.failed = outcome.exit_code != 0;
        result.steps.push_back({steps[i], std::move(outcome)});
    }
    if (!request.keep) {
        if (Status s = remove_scratch_dir(*dir, workspace_contents()); !s) result.cleanup_warning = s.error().message;
    }
    return result;
}

}  // namespace small
