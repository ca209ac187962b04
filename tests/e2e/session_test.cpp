// End-to-end tests of a whole working session with the state-changing
// commands `small plan`, `checkpoint`, `handoff`, `start` and `reset`
// (authoring.md §5, §7, §9-§11 as amended by DECISIONS D3, D4, D5, D10, D11):
// the real binary on workspaces in fresh temporary directories.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

const std::regex kReplayId("^[0-9a-f]{64}$");

// run_small with `input` on stdin (run_small's children read /dev/null).
RunResult run_with_stdin(const fs::path& cwd, const std::vector<std::string>& args, const std::string& input) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.stdin_text = input;
    return run_small(args, opts);
}

// Every file under `dir`, recursively: relative path -> bytes ("<dir>" for
// directories).
// A workspace root's files without its cache (.small-cache/: the lock, the
// tail cache), which is bookkeeping rather than state.
std::map<std::string, std::string> snapshot(const fs::path& dir);

std::map<std::string, std::string> workspace_state(const fs::path& root) {
    std::map<std::string, std::string> files = snapshot(root);
    for (auto it = files.begin(); it != files.end();) {
        if (it->first.rfind(".small-cache", 0) == 0) it = files.erase(it);
        else ++it;
    }
    return files;
}

std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> files;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string rel = fs::relative(it->path(), dir).string();
        if (it->is_directory()) files[rel] = "<dir>";
        else files[rel] = read_file(it->path());
    }
    return files;
}

// The value of `key: "value"` on the first line that has it after `from`.
std::string yaml_value(const std::string& text, const std::string& key, std::size_t from = 0) {
    const std::regex re("(^|\\n)\\s*" + key + ": \"([^\"]*)\"");
    std::smatch m;
    const std::string tail = text.substr(from);
    if (!std::regex_search(tail, m, re)) return "";
    return m[2].str();
}

std::string pinned_run_id(const fs::path& root) {
    return yaml_value(read_file(root / ".small" / "workspace.small.yml"), "replay_id");
}

// The status of task `id` in the plan ("" when the task has no status, "<none>"
// when the task does not exist). House style: `  - id: "..."` then
// four-space indented keys.
std::string plan_status(const fs::path& root, const std::string& id) {
    const std::string plan = read_file(root / ".small" / "plan.small.yml");
    const std::string head = "  - id: \"" + id + "\"\n";
    const std::size_t at = plan.find(head);
    if (at == std::string::npos) return "<none>";
    const std::size_t end = plan.find("\n  - ", at + head.size());
    const std::string block = plan.substr(at, end == std::string::npos ? std::string::npos : end - at);
    return yaml_value(block, "status");
}

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

void expect_gates_pass(const fs::path& root) {
    const RunResult verify = run_in(root, {"verify", "--strict"});
    EXPECT_EQ(verify.exit_code, 0) << verify;
    const RunResult check = run_in(root, {"check", "--strict", "--format-strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

// ---------------------------------------------------------------------------

TEST(SessionE2E, FullSessionAcrossAReset) {
    TempDir tmp;
    const fs::path root = tmp.path() / "proj";
    fs::create_directories(root);
    const fs::path small = root / ".small";

    // init
    json doc = run_json(root, {"init", "--intent", "Ship the session test"}, 0);
    const std::string run0 = doc.value("replay_id", "");
    ASSERT_TRUE(std::regex_match(run0, kReplayId)) << doc.dump(2);
    EXPECT_EQ(pinned_run_id(root), run0);

    // plan --add x2 (one in text mode), plan --depends
    doc = run_json(root, {"plan", "--add", "Design the widget"}, 0);
    EXPECT_EQ(doc.value("added_task_id", ""), "task-2") << doc.dump(2);
    EXPECT_EQ(doc.value("changed", false), true) << doc.dump(2);
    EXPECT_EQ(doc.value("replay_id", ""), run0) << doc.dump(2);  // init pinned the run; plan writes keep it (D3)
    ASSERT_TRUE(doc.contains("entries") && doc["entries"].size() == 1u) << doc.dump(2);
    EXPECT_EQ(doc["entries"][0]["task_id"], "task-2");
    EXPECT_EQ(doc["entries"][0]["replayId"], run0);  // D8
    RunResult r = run_in(root, {"plan", "--add", "Build the widget"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-3")) << r;
    doc = run_json(root, {"plan", "--depends", "task-3:task-2"}, 0);
    const std::string plan_text = read_file(small / "plan.small.yml");
    EXPECT_TRUE(contains(plan_text, "depends_on:\n      - \"task-2\"")) << plan_text;  // D6: written as depends_on
    EXPECT_EQ(plan_status(root, "task-2"), "pending");
    EXPECT_EQ(plan_status(root, "task-3"), "pending");
    EXPECT_EQ(pinned_run_id(root), run0);

    // progress add in_progress leaves task-2 unsettled: --require-settled refuses and
    // writes nothing; a plain handoff is written and names it (D13).
    doc = run_json(root, {"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence",
                          "started the design"},
                   0);
    const auto before_refusal = snapshot(small);
    r = run_in(root, {"handoff", "--require-settled"});
    EXPECT_EQ(r.exit_code, 1) << r;  // D4: refused
    EXPECT_TRUE(contains(r.err, "task-2")) << r;
    doc = run_json(root, {"handoff", "--require-settled"}, 1);
    EXPECT_EQ(doc["error"].value("kind", ""), "invalid") << doc.dump(2);
    EXPECT_EQ(snapshot(small), before_refusal);
    r = run_in(root, {"handoff"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.err, "") << "a mid-task handoff is the documented workflow: silent on stderr";
    EXPECT_TRUE(contains(r.out, "Unsettled tasks (the handoff names them):\n  - task-2: Design the widget (in_progress)")) << r;
    EXPECT_EQ(yaml_value(read_file(small / "handoff.small.yml"), "current_task_id"), "task-2");
    doc = run_json(root, {"handoff"}, 0);
    ASSERT_EQ(doc["unsettled_tasks"].size(), 1u) << doc.dump(2);  // task-3's plan --add entry is bookkeeping (D18)
    EXPECT_EQ(doc["unsettled_tasks"][0]["id"], "task-2") << doc.dump(2);

    // checkpoints: the plan status and the entry together
    doc = run_json(root, {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "design reviewed"}, 0);
    EXPECT_EQ(doc.value("task_id", ""), "task-2") << doc.dump(2);
    EXPECT_EQ(doc.value("previous_status", ""), "in_progress") << doc.dump(2);  // progress add set it
    EXPECT_EQ(doc["progress_entry"].value("evidence", ""), "design reviewed") << doc.dump(2);
    EXPECT_EQ(doc["progress_entry"].value("replayId", ""), run0) << doc.dump(2);
    EXPECT_EQ(plan_status(root, "task-2"), "completed");
    // task-3 has only the entry `plan --add` wrote: bookkeeping, not work (D18), so nothing is unsettled.
    const std::string handoff_before = read_file(small / "handoff.small.yml");
    r = run_in(root, {"handoff", "--require-settled"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.err, "task-3")) << r;
    r = run_in(root, {"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "widget built"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(plan_status(root, "task-3"), "completed");

    // handoff now succeeds: task-1 (the template's, no entries) is next
    doc = run_json(root, {"handoff"}, 0);
    EXPECT_EQ(doc.value("replay_id", ""), run0) << doc.dump(2);
    EXPECT_EQ(doc["handoff"]["resume"].value("current_task_id", ""), "task-1") << doc.dump(2);
    EXPECT_EQ(doc["handoff"]["replayId"].value("value", ""), run0) << doc.dump(2);
    const std::string handoff1 = read_file(small / "handoff.small.yml");
    EXPECT_NE(handoff1, handoff_before);
    EXPECT_EQ(yaml_value(handoff1, "current_task_id"), "task-1") << handoff1;
    expect_gates_pass(root);

    // reset --yes: a new run, the history kept
    const std::string progress_before_reset = read_file(small / "progress.small.yml");
    const std::string constraints_before_reset = read_file(small / "constraints.small.yml");
    doc = run_json(root, {"reset", "--yes"}, 0);
    const std::string run1 = pinned_run_id(root);
    ASSERT_TRUE(std::regex_match(run1, kReplayId)) << read_file(small / "workspace.small.yml");
    EXPECT_NE(run1, run0);
    EXPECT_EQ(doc.value("replay_id", ""), run1) << doc.dump(2);
    EXPECT_EQ(doc.value("previous_replay_id", ""), run0) << doc.dump(2);
    const std::string handoff2 = read_file(small / "handoff.small.yml");
    EXPECT_EQ(yaml_value(handoff2, "transition_reason"), "reset") << handoff2;
    EXPECT_EQ(yaml_value(handoff2, "previous_replay_id"), run0) << handoff2;
    EXPECT_EQ(yaml_value(handoff2, "value"), run1) << handoff2;
    const std::string progress_after_reset = read_file(small / "progress.small.yml");
    ASSERT_GT(progress_after_reset.size(), progress_before_reset.size());
    EXPECT_EQ(progress_after_reset.substr(0, progress_before_reset.size()), progress_before_reset);  // D7
    EXPECT_TRUE(contains(progress_after_reset.substr(progress_before_reset.size()), "task_id: \"meta/reset\""));
    EXPECT_TRUE(contains(progress_after_reset.substr(progress_before_reset.size()), "replayId: \"" + run1 + "\""));
    EXPECT_EQ(read_file(small / "constraints.small.yml"), constraints_before_reset);
    EXPECT_EQ(plan_status(root, "task-2"), "<none>");  // the template plan
    EXPECT_TRUE(contains(read_file(small / "intent.small.yml"), "Ship the session test"));  // human-owned (D7)
    expect_gates_pass(root);

    // the new run: its own task-2 (the old run's task-2 entries are out of scope)
    doc = run_json(root, {"plan", "--add", "Second run task"}, 0);
    EXPECT_EQ(doc.value("added_task_id", ""), "task-2") << doc.dump(2);
    EXPECT_EQ(doc.value("replay_id", ""), run1) << doc.dump(2);
    doc = run_json(root, {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "second run done"}, 0);
    EXPECT_EQ(doc["progress_entry"].value("replayId", ""), run1) << doc.dump(2);
    doc = run_json(root, {"handoff"}, 0);
    EXPECT_EQ(doc.value("replay_id", ""), run1) << doc.dump(2);
    EXPECT_EQ(pinned_run_id(root), run1);
    expect_gates_pass(root);
}

TEST(SessionE2E, JsonFailuresAreOneDocumentWithOkFalse) {
    TempDir tmp;
    ASSERT_EQ(run_in(tmp.path(), {"init", "--no-agents"}).exit_code, 0);
    const auto before = snapshot(tmp.path() / ".small");
    json doc = run_json(tmp.path(), {"plan", "--done", "task-99"}, 1);
    EXPECT_EQ(doc["error"].value("kind", ""), "invalid") << doc.dump(2);
    EXPECT_TRUE(contains(doc["error"].value("message", ""), "task-99")) << doc.dump(2);
    doc = run_json(tmp.path(), {"checkpoint", "--task", "task-99", "--status", "completed"}, 1);
    EXPECT_TRUE(contains(doc["error"].value("message", ""), "task-99")) << doc.dump(2);
    doc = run_json(tmp.path(), {"checkpoint", "--task", "task-1", "--status", "pending"}, 2);  // usage
    EXPECT_EQ(doc["error"].value("kind", ""), "usage") << doc.dump(2);
    doc = run_json(tmp.path(), {"plan", "--depends", "task-1"}, 2);  // no ':'
    EXPECT_EQ(doc["error"].value("kind", ""), "usage") << doc.dump(2);
    doc = run_json(tmp.path(), {"handoff", "--replay-id", "not-hex"}, 2);
    EXPECT_EQ(doc["error"].value("kind", ""), "usage") << doc.dump(2);
    doc = run_json(tmp.path(), {"plan", "--bogus-flag"}, 2);
    EXPECT_EQ(doc["error"].value("kind", ""), "usage") << doc.dump(2);
    EXPECT_EQ(snapshot(tmp.path() / ".small"), before);

    // Text mode: the same refusal on stderr, nothing on stdout.
    const RunResult r = run_in(tmp.path(), {"plan", "--done", "task-99"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task-99")) << r;
    EXPECT_TRUE(r.out.empty()) << r;
}

TEST(SessionE2E, PlanDependencyCyclesAndSelfDependenciesAreRefused) {
    TempDir tmp;
    ASSERT_EQ(run_in(tmp.path(), {"init", "--no-agents"}).exit_code, 0);
    ASSERT_EQ(run_in(tmp.path(), {"plan", "--add", "A"}).exit_code, 0);
    ASSERT_EQ(run_in(tmp.path(), {"plan", "--add", "B"}).exit_code, 0);
    ASSERT_EQ(run_in(tmp.path(), {"plan", "--depends", "task-3:task-2"}).exit_code, 0);
    const auto before = snapshot(tmp.path() / ".small");
    RunResult r = run_in(tmp.path(), {"plan", "--depends", "task-2:task-3"});  // D6: cycles are refused
    EXPECT_EQ(r.exit_code, 1) << r;
    r = run_in(tmp.path(), {"plan", "--depends", "task-2:task-2"});
    EXPECT_EQ(r.exit_code, 1) << r;
    r = run_in(tmp.path(), {"plan", "--depends", "task-3:task-2"});  // already there
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(snapshot(tmp.path() / ".small"), before);
}

TEST(SessionE2E, EveryCommandHasJsonWithOk) {
    TempDir tmp;
    const fs::path root = tmp.path();
    run_json(root, {"init", "--no-agents"}, 0);
    run_json(root, {"plan", "--add", "Task two"}, 0);
    run_json(root, {"plan", "--in-progress", "task-2"}, 0);
    run_json(root, {"progress", "add", "--task", "task-2", "--status", "in_progress"}, 0);
    run_json(root, {"checkpoint", "--task", "task-2", "--status", "blocked", "--evidence", "waiting on review"}, 0);
    EXPECT_EQ(plan_status(root, "task-2"), "blocked");
    json doc = run_json(root, {"handoff", "--summary", "Blocked on review"}, 0);
    EXPECT_EQ(doc["handoff"].value("summary", ""), "Blocked on review") << doc.dump(2);  // D10
    doc = run_json(root, {"start"}, 0);
    EXPECT_TRUE(doc.contains("check")) << doc.dump(2);
    doc = run_json(root, {"reset", "--yes", "--keep-intent"}, 0);
    run_json(root, {"plan"}, 0);  // no flags: no change
    run_json(root, {"verify", "--strict"}, 0);
}

TEST(SessionE2E, ResetWithoutYesReadsTheAnswerFromStdin) {
    TempDir tmp;
    const fs::path root = tmp.path();
    ASSERT_EQ(run_in(root, {"init", "--no-agents", "--intent", "Keep me until yes"}).exit_code, 0);
    ASSERT_EQ(run_in(root, {"plan", "--add", "Something"}).exit_code, 0);
    const std::string run0 = pinned_run_id(root);
    const auto before = workspace_state(root);

    // D15: end of input (no answer) refuses: exit 1, names --yes, no dangling
    // prompt, nothing changed anywhere in the workspace.
    RunResult r = run_with_stdin(root, {"reset"}, "");
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "--yes")) << r;
    EXPECT_FALSE(contains(r.err, "Continue?")) << r;
    EXPECT_EQ(workspace_state(root), before);
    r = run_in(root, {"reset"});  // run_small's /dev/null stdin
    EXPECT_EQ(r.exit_code, 1) << r;
    // An answer other than y/yes cancels with exit 0 (as the reference does).
    r = run_with_stdin(root, {"reset"}, "n\n");
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "Continue? [y/N]: n")) << r;
    EXPECT_TRUE(contains(r.err, "reset cancelled; nothing changed")) << r;
    r = run_with_stdin(root, {"reset"}, "\n");
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(workspace_state(root), before);
    // In JSON mode the question must not break stdout's one document.
    r = run_with_stdin(root, {"reset", "--json"}, "no\n");
    EXPECT_EQ(r.exit_code, 0) << r;
    auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true) << r;
    EXPECT_EQ((*doc)["cancelled"], true) << r;
    r = run_with_stdin(root, {"reset", "--json"}, "");
    EXPECT_EQ(r.exit_code, 1) << r;
    doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_EQ(workspace_state(root), before);
    // plan --reset asks the same way.
    r = run_with_stdin(root, {"plan", "--reset"}, "");
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "--yes")) << r;
    r = run_with_stdin(root, {"plan", "--reset"}, "n\n");
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(workspace_state(root), before);

    // "y" proceeds.
    r = run_with_stdin(root, {"reset"}, "y\n");
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string run1 = pinned_run_id(root);
    EXPECT_NE(run1, run0);
    EXPECT_TRUE(contains(read_file(root / ".small" / "intent.small.yml"), "Keep me until yes"));  // D7
    EXPECT_EQ(plan_status(root, "task-2"), "<none>");
    EXPECT_EQ(yaml_value(read_file(root / ".small" / "handoff.small.yml"), "previous_replay_id"), run0);
    expect_gates_pass(root);

    // "YES" (any case) proceeds too, in JSON mode with one document.
    r = run_with_stdin(root, {"reset", "--json"}, "YES\n");
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true) << r;
    EXPECT_EQ((*doc)["previous_replay_id"], run1) << r;
    EXPECT_NE(pinned_run_id(root), run1);
    expect_gates_pass(root);
}

TEST(SessionE2E, CommandsFindTheWorkspaceFromASubdirectory) {
    TempDir tmp;
    const fs::path root = tmp.path() / "repo";
    fs::create_directories(root);
    ASSERT_EQ(run_in(root, {"init", "--no-agents"}).exit_code, 0);
    const fs::path deep = root / "src" / "deep";
    fs::create_directories(deep);

    RunResult r = run_in(deep, {"plan", "--add", "From a subdirectory"});  // D5: walks up like git
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(plan_status(root, "task-2"), "pending");
    EXPECT_TRUE(contains(read_file(root / ".small" / "plan.small.yml"), "From a subdirectory"));
    json doc = run_json(deep, {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "done"}, 0);
    EXPECT_EQ(doc.value("workspace", ""), root.string()) << doc.dump(2);
    EXPECT_EQ(plan_status(root, "task-2"), "completed");
    r = run_in(deep, {"handoff"});
    EXPECT_EQ(r.exit_code, 0) << r;
    // From inside .small/ too.
    r = run_in(root / ".small", {"plan", "--add", "From inside .small"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(plan_status(root, "task-3"), "pending");
    // Nothing was created below the starting directories.
    EXPECT_FALSE(fs::exists(deep / ".small"));
    EXPECT_FALSE(fs::exists(root / "src" / ".small"));
    EXPECT_FALSE(fs::exists(root / ".small" / ".small"));
    EXPECT_FALSE(fs::exists(deep / ".small-cache"));
    // --dir from elsewhere.
    r = run_in(tmp.path(), {"plan", "--add", "Via --dir", "--dir", root.string()});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(plan_status(root, "task-4"), "pending");
}

TEST(SessionE2E, StartPinsARunAndRunsTheStrictCheck) {
    TempDir tmp;
    const fs::path root = tmp.path();
    // An initialized workspace: start keeps the run and writes a handoff with a run block.
    ASSERT_EQ(run_in(root, {"init", "--no-agents"}).exit_code, 0);
    const std::string run0 = pinned_run_id(root);
    RunResult r = run_in(root, {"start"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Strict check passed")) << r;
    EXPECT_EQ(pinned_run_id(root), run0);
    const std::string handoff = read_file(root / ".small" / "handoff.small.yml");
    EXPECT_EQ(yaml_value(handoff, "value"), run0) << handoff;
    EXPECT_TRUE(contains(handoff, "transition_reason: ")) << handoff;
    expect_gates_pass(root);

    // A directory without .small/: refused for the default scope, nothing created.
    const fs::path empty = tmp.path() / "empty";
    fs::create_directories(empty);
    r = run_in(empty, {"start", "--dir", empty.string()});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_FALSE(fs::exists(empty / ".small"));
    // With --workspace any, start creates the workspace and self-heals the run id.
    json doc = run_json(empty, {"start", "--workspace", "any", "--dir", empty.string()}, 0);
    EXPECT_EQ(doc.value("self_heal", false), true) << doc.dump(2);
    // ... and, as init does, keeps its runtime folders out of git.
    EXPECT_EQ(read_file(empty / ".gitignore"), ".small-cache/\n.small-runs/\n.small-archive/\n");
    EXPECT_EQ(doc["gitignore"]["created"], true) << doc.dump(2);
    const std::string run1 = pinned_run_id(empty);
    EXPECT_TRUE(std::regex_match(run1, kReplayId));
    EXPECT_EQ(doc.value("replay_id", ""), run1) << doc.dump(2);
    const std::string progress = read_file(empty / ".small" / "progress.small.yml");
    EXPECT_TRUE(contains(progress, "task_id: \"meta/replayid-self-heal\"")) << progress;
    EXPECT_EQ(yaml_value(read_file(empty / ".small" / "handoff.small.yml"), "transition_reason"), "self_heal");
    expect_gates_pass(empty);
    // A second start keeps the run (no second self-heal entry) and leaves .gitignore alone.
    write_file(empty / ".gitignore", "mine/\n");
    r = run_in(empty, {"start"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(empty / ".gitignore"), "mine/\n");
    EXPECT_EQ(pinned_run_id(empty), run1);
    EXPECT_EQ(count_of(read_file(empty / ".small" / "progress.small.yml"), "meta/replayid-self-heal"), 1u);
}

}  // namespace
