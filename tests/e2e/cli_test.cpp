// End-to-end tests of the `small` binary: every test writes a workspace into
// a fresh temporary directory, runs the real executable (fork + exec, with
// its own cwd and environment, stdout/stderr captured, killed after a
// timeout) and checks exit codes and output. Nothing here links the library.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"
#include "support/artifact_texts.hpp"

namespace {

using namespace small_e2e;
using small::test_fixtures::kIntent;
using small::test_fixtures::kRunId;
namespace fs = std::filesystem;
using nlohmann::json;

// The baseline valid workspace: support/artifact_texts.hpp's complete run.
const std::string kConstraints = small::test_fixtures::complete::kConstraints;
const std::string kPlan = small::test_fixtures::complete::kPlan;
const std::string kProgress = small::test_fixtures::complete::kProgress;
const std::string kHandoff = small::test_fixtures::complete::kHandoff;
const std::string kWorkspaceMeta = small::test_fixtures::complete::kWorkspace;

// sha256("SMALL|1.0.0|" + JCS({"constraints", "intent", "plan"})) of the
// files above (D3); computed independently with Python's json + hashlib.
constexpr const char* kExpectedReplayId = "ecc6aae1c8b80320881895bf58dbcc01463aab8c064ab8d787e0e1c3aa6783c8";

// The progress entry the "broken" workspace damages (its task_id is removed).
constexpr const char* kBrokenEntryMarker = R"(  - timestamp: "2025-06-01T10:00:03.100000003Z")";

// 1-based line of the first line of `text` containing `needle` (0 if none).
int line_of(const std::string& text, const std::string& needle) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.find(needle) != std::string::npos) return n;
    }
    return 0;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << "fixture text not found: " << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

// The progress file with the task_id of the entry at kBrokenEntryMarker removed.
std::string broken_progress() {
    const auto entry = kProgress.find(kBrokenEntryMarker);
    const std::string task_line = "    task_id: \"task-1\"\n";
    const auto pos = kProgress.find(task_line, entry);
    std::string text = kProgress;
    text.erase(pos, task_line.size());
    return text;
}

// Writes the baseline valid workspace under `root` (root/.small/...).
void write_valid_workspace(const fs::path& root) {
    const fs::path s = root / ".small";
    write_file(s / "intent.small.yml", kIntent);
    write_file(s / "constraints.small.yml", kConstraints);
    write_file(s / "plan.small.yml", kPlan);
    write_file(s / "progress.small.yml", kProgress);
    write_file(s / "handoff.small.yml", kHandoff);
    write_file(s / "workspace.small.yml", kWorkspaceMeta);
}

// The valid workspace with one progress entry lacking its task_id: a schema
// error (validate), an invariant error (lint) and both for verify/check.
void write_broken_workspace(const fs::path& root) {
    write_valid_workspace(root);
    write_file(root / ".small" / "progress.small.yml", broken_progress());
}

bool ancestor_has_small_dir(const fs::path& dir) {
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
        std::error_code ec;
        if (fs::is_directory(p / ".small", ec)) return true;
        if (p == p.root_path()) break;
    }
    return false;
}

bool is_lower_hex64(const std::string& s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// Every finding object carries rule, file, line, column and message.
void expect_finding_shape(const json& f, const std::string& context) {
    ASSERT_TRUE(f.is_object()) << context << ": " << f.dump();
    EXPECT_TRUE(f.contains("rule") && f["rule"].is_string()) << context << ": " << f.dump();
    EXPECT_TRUE(f.contains("file") && f["file"].is_string()) << context << ": " << f.dump();
    EXPECT_TRUE(f.contains("line") && f["line"].is_number_integer()) << context << ": " << f.dump();
    EXPECT_TRUE(f.contains("column") && f["column"].is_number_integer()) << context << ": " << f.dump();
    EXPECT_TRUE(f.contains("message") && f["message"].is_string()) << context << ": " << f.dump();
}

// All findings of a verdict document (validate/lint/verify: errors and
// warnings; check: each stage's findings, plus top-level ones).
std::vector<json> all_findings(const json& doc) {
    std::vector<json> out;
    const auto take = [&](const json& list) {
        if (list.is_array()) {
            for (const auto& f : list) out.push_back(f);
        }
    };
    for (const char* key : {"errors", "warnings", "findings"}) {
        if (doc.contains(key)) take(doc[key]);
    }
    for (const char* stage : {"validate", "lint", "verify"}) {
        if (doc.contains(stage) && doc[stage].is_object() && doc[stage].contains("findings")) take(doc[stage]["findings"]);
    }
    return out;
}

// Snapshot of a directory tree: relative path -> type and bytes.
std::map<std::string, std::string> snapshot_tree(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const std::string rel = fs::relative(entry.path(), root).string();
        if (entry.is_symlink()) out[rel] = "link:" + fs::read_symlink(entry.path()).string();
        else if (entry.is_directory()) out[rel] = "dir";
        else out[rel] = "file:" + read_file(entry.path());
    }
    return out;
}

// ---------------------------------------------------------------------------
// Fixture: one temporary directory per test
// ---------------------------------------------------------------------------

class CliTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path root() const { return tmp_.path(); }
    // A workspace directory inside the temp dir (created on demand).
    fs::path ws(const std::string& name = "ws") const {
        const fs::path p = tmp_.path() / name;
        fs::create_directories(p);
        return p;
    }
};

// ===========================================================================
// Help and version
// ===========================================================================

const std::vector<std::string> kImplementedCommands = {"validate", "lint", "check", "verify", "replay-id", "version"};

TEST_F(CliTest, NoArgumentsPrintsHelpAndExitsZero) {
    const RunResult r = run_in(root(), {});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Usage")) << r;
    for (const auto& cmd : kImplementedCommands) EXPECT_TRUE(contains(r.out, cmd)) << cmd << "\n" << r;
}

TEST_F(CliTest, HelpFlagListsEveryCommand) {
    const RunResult r = run_in(root(), {"--help"});
    EXPECT_EQ(r.exit_code, 0) << r;
    for (const auto& cmd : kImplementedCommands) EXPECT_TRUE(contains(r.out, cmd)) << cmd << "\n" << r;
    EXPECT_TRUE(contains(r.out, "help")) << r;
}

TEST_F(CliTest, HelpCommandExplainsLint) {
    const RunResult r = run_in(root(), {"help", "lint"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "lint")) << r;
    EXPECT_TRUE(contains(r.out, "--strict")) << r;
    EXPECT_TRUE(contains(r.out, "--format-strict")) << r;
    // Same text as `small lint --help`.
    const RunResult direct = run_in(root(), {"lint", "--help"});
    EXPECT_EQ(direct.exit_code, 0) << direct;
    EXPECT_TRUE(contains(direct.out, "--strict")) << direct;
}

TEST_F(CliTest, HelpCommandWithoutTopicPrintsTheCommandList) {
    const RunResult r = run_in(root(), {"help"});
    EXPECT_EQ(r.exit_code, 0) << r;
    for (const auto& cmd : kImplementedCommands) EXPECT_TRUE(contains(r.out, cmd)) << cmd << "\n" << r;
}

TEST_F(CliTest, SubcommandHelpExitsZero) {
    for (const auto& cmd : {"validate", "lint", "check", "verify", "replay-id", "version"}) {
        const RunResult r = run_in(root(), {cmd, "--help"});
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out, "--help")) << r;
    }
    const RunResult verify = run_in(root(), {"verify", "--help"});
    EXPECT_TRUE(contains(verify.out, "--workspace")) << verify;
    EXPECT_TRUE(contains(verify.out, "--ci")) << verify;
}

TEST_F(CliTest, VersionFormsPrintVersionAndSpec) {
    for (const auto& flag : {"-v", "--version", "version"}) {
        const RunResult r = run_in(root(), {flag});
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_EQ(r.out.rfind("small v", 0), 0u) << r;
        EXPECT_TRUE(contains(r.out, "1.0.0")) << r;
        EXPECT_TRUE(contains(r.out, "Supported spec versions")) << r;
        EXPECT_EQ(r.out.back(), '\n') << r;
    }
}

TEST_F(CliTest, VersionJsonIsOneObject) {
    const RunResult r = run_in(root(), {"version", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    ASSERT_TRUE(doc->is_object()) << r;
    ASSERT_TRUE(doc->contains("version")) << r;
    EXPECT_EQ((*doc)["version"].get<std::string>().rfind("v", 0), 0u) << r;
    ASSERT_TRUE(doc->contains("supported_spec_versions")) << r;
    EXPECT_EQ((*doc)["supported_spec_versions"], json::array({"1.0.0"})) << r;
    // Global flags may come before the command too.
    const RunResult before = run_in(root(), {"--json", "version"});
    EXPECT_EQ(before.exit_code, 0) << before;
    EXPECT_TRUE(parse_single_json(before.out)) << before;
}

// ===========================================================================
// Usage errors (D4: exit 2, never 0)
// ===========================================================================

TEST_F(CliTest, UnknownCommandExitsTwoAndNamesIt) {
    const RunResult r = run_in(root(), {"bogus"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "bogus")) << r;
    EXPECT_TRUE(r.out.empty()) << r;
}

TEST_F(CliTest, MistypedCommandSuggestsTheRealOne) {
    const RunResult r = run_in(root(), {"valdate"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "valdate")) << r;
    EXPECT_TRUE(contains(r.err, "validate")) << r;
}

TEST_F(CliTest, UnknownCommandJsonIsOneErrorDocument) {
    const RunResult r = run_in(root(), {"--json", "valdate"});
    EXPECT_EQ(r.exit_code, 2) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    ASSERT_TRUE(doc->contains("error")) << r;
    EXPECT_TRUE(contains((*doc)["error"].dump(), "valdate")) << r;
}

TEST_F(CliTest, UnknownFlagExitsTwoAndNamesIt) {
    write_valid_workspace(ws());
    for (const auto& cmd : {"validate", "lint", "check", "verify", "replay-id", "version"}) {
        const RunResult r = run_in(ws(), {cmd, "--stirct"});
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "--stirct")) << r;
    }
    const RunResult global = run_in(ws(), {"--bogus-flag"});
    EXPECT_EQ(global.exit_code, 2) << global;
    EXPECT_TRUE(contains(global.err, "--bogus-flag")) << global;
}

TEST_F(CliTest, UnknownFlagJsonIsOneErrorDocument) {
    write_valid_workspace(ws());
    const RunResult r = run_in(ws(), {"lint", "--json", "--bogus"});
    EXPECT_EQ(r.exit_code, 2) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_TRUE(doc->contains("error")) << r;
}

TEST_F(CliTest, MissingFlagValueExitsTwo) {
    write_valid_workspace(ws());
    const RunResult r = run_in(ws(), {"validate", "--dir"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "--dir")) << r;
}

TEST_F(CliTest, BadWorkspaceScopeExitsTwo) {
    write_valid_workspace(ws());
    for (const auto& cmd : {"check", "verify"}) {
        const RunResult r = run_in(ws(), {cmd, "--workspace", "bogus"});
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "bogus")) << r;
        const RunResult j = run_in(ws(), {cmd, "--workspace", "bogus", "--json"});
        EXPECT_EQ(j.exit_code, 2) << j;
        const auto doc = parse_single_json(j.out);
        ASSERT_TRUE(doc) << j;
        EXPECT_EQ((*doc)["ok"], false) << j;
        EXPECT_TRUE(doc->contains("error")) << j;
    }
}

TEST_F(CliTest, WorkspaceScopeValuesAreHonoured) {
    const fs::path w = ws();
    write_valid_workspace(w);
    for (const auto& cmd : {"check", "verify"}) {
        EXPECT_EQ(run_in(w, {cmd, "--workspace", "root"}).exit_code, 0);
        EXPECT_EQ(run_in(w, {cmd, "--workspace", "ANY"}).exit_code, 0);
        const RunResult r = run_in(w, {cmd, "--workspace", "examples"});
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "workspace.small.yml")) << r;
    }
    // An examples workspace passes only under --workspace examples or any.
    write_file(w / ".small" / "workspace.small.yml",
               replace_once(kWorkspaceMeta, "kind: \"repo-root\"", "kind: \"examples\""));
    EXPECT_EQ(run_in(w, {"verify"}).exit_code, 1);
    EXPECT_EQ(run_in(w, {"verify", "--workspace", "examples"}).exit_code, 0);
    EXPECT_EQ(run_in(w, {"check", "--workspace", "any"}).exit_code, 0);
}

// ===========================================================================
// The verdict commands on valid, broken and missing workspaces
// ===========================================================================

struct VerdictCommand {
    std::string label;
    std::vector<std::string> args;
    std::string success_line;
};

const std::vector<VerdictCommand> kVerdictCommands = {
    {"validate", {"validate"}, "All artifacts are valid"},
    {"lint", {"lint"}, "All invariants satisfied"},
    {"lint_strict", {"lint", "--strict"}, "All invariants satisfied"},
    {"check", {"check"}, "Check passed"},
    {"check_strict", {"check", "--strict"}, "Check passed"},
    {"verify", {"verify"}, "Verification passed"},
    {"verify_strict", {"verify", "--strict"}, "Verification passed"},
};

void PrintTo(const VerdictCommand& c, std::ostream* os) { *os << c.label; }

class VerdictTest : public CliTest, public ::testing::WithParamInterface<VerdictCommand> {
protected:
    std::vector<std::string> args(std::vector<std::string> extra = {}) const {
        std::vector<std::string> a = GetParam().args;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    bool is_check() const { return GetParam().args.front() == "check"; }
};

TEST_P(VerdictTest, ValidWorkspacePasses) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult r = run_in(w, args());
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, GetParam().success_line)) << r;
    EXPECT_TRUE(r.err.empty()) << r;
}

TEST_P(VerdictTest, BrokenWorkspaceFailsWithFileLineColumn) {
    const fs::path w = ws();
    write_broken_workspace(w);
    const int line = line_of(broken_progress(), kBrokenEntryMarker);
    ASSERT_GT(line, 0);
    const RunResult r = run_in(w, args());
    EXPECT_EQ(r.exit_code, 1) << r;
    const std::regex located(".small/progress\\.small\\.yml:" + std::to_string(line) + ":[0-9]+:");
    EXPECT_TRUE(std::regex_search(r.err, located)) << "expected progress.small.yml:" << line << ":<col>:\n" << r;
    EXPECT_TRUE(contains(r.err, "task_id")) << r;
    EXPECT_FALSE(contains(r.out, GetParam().success_line)) << r;
}

TEST_P(VerdictTest, MissingSmallDirectoryExitsTwo) {
    const fs::path w = ws();
    if (ancestor_has_small_dir(w)) GTEST_SKIP() << "a .small/ above the temp directory would be discovered";
    const RunResult r = run_in(w, args());
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, ".small")) << r;
    // --dir pointing at a directory without .small/ as well.
    const RunResult d = run_in(root(), args({"--dir", w.string()}));
    EXPECT_EQ(d.exit_code, 2) << d;
}

TEST_P(VerdictTest, JsonOnValidWorkspaceIsOneDocument) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult r = run_in(w, args({"--json"}));
    EXPECT_EQ(r.exit_code, 0) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << "stdout is not exactly one JSON document\n" << r;
    ASSERT_TRUE(doc->is_object()) << r;
    EXPECT_EQ((*doc)["ok"], true) << r;
    EXPECT_EQ((*doc)["exit_code"], 0) << r;
    EXPECT_FALSE(doc->contains("error")) << r;
    if (is_check()) {
        for (const char* stage : {"validate", "lint", "verify"}) {
            ASSERT_TRUE(doc->contains(stage)) << stage << "\n" << r;
            EXPECT_EQ((*doc)[stage]["status"], "ok") << stage << "\n" << r;
        }
    }
    // The global flag may come first as well.
    std::vector<std::string> first = {"--json"};
    first.insert(first.end(), GetParam().args.begin(), GetParam().args.end());
    const RunResult f = run_in(w, first);
    EXPECT_EQ(f.exit_code, 0) << f;
    EXPECT_TRUE(parse_single_json(f.out)) << f;
}

TEST_P(VerdictTest, JsonOnBrokenWorkspaceIsOneDocumentWithError) {
    const fs::path w = ws();
    write_broken_workspace(w);
    const int line = line_of(broken_progress(), kBrokenEntryMarker);
    const RunResult r = run_in(w, args({"--json"}));
    EXPECT_EQ(r.exit_code, 1) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << "stdout is not exactly one JSON document\n" << r;
    ASSERT_TRUE(doc->is_object()) << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_EQ((*doc)["exit_code"], 1) << r;
    EXPECT_TRUE(doc->contains("error")) << "a failed run carries \"error\" (D11)\n" << r;
    if (is_check()) {
        for (const char* stage : {"validate", "lint", "verify"}) {
            ASSERT_TRUE(doc->contains(stage)) << stage << "\n" << r;
            EXPECT_TRUE((*doc)[stage].contains("status")) << stage << "\n" << r;
        }
        EXPECT_EQ((*doc)["validate"]["status"], "failed") << r;
        // Stages that never ran are not reported as passed.
        EXPECT_NE((*doc)["lint"]["status"], "ok") << r;
        EXPECT_NE((*doc)["verify"]["status"], "ok") << r;
    }
    const std::vector<json> findings = all_findings(*doc);
    ASSERT_FALSE(findings.empty()) << r;
    bool located = false;
    for (const json& f : findings) {
        expect_finding_shape(f, GetParam().label);
        if (f.value("file", "").ends_with("progress.small.yml") && f.value("line", 0) == line) located = true;
    }
    EXPECT_TRUE(located) << "no finding at progress.small.yml line " << line << "\n" << r;
}

TEST_P(VerdictTest, JsonOnMissingWorkspaceIsOneDocumentWithError) {
    const fs::path w = ws();
    if (ancestor_has_small_dir(w)) GTEST_SKIP() << "a .small/ above the temp directory would be discovered";
    const RunResult r = run_in(w, args({"--json"}));
    EXPECT_EQ(r.exit_code, 2) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << "stdout is not exactly one JSON document\n" << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_TRUE(doc->contains("error")) << r;
    EXPECT_EQ((*doc)["exit_code"], 2) << r;
}

TEST_P(VerdictTest, QuietSilencesSuccessButNotErrors) {
    const fs::path good = ws("good");
    write_valid_workspace(good);
    for (bool before : {true, false}) {
        std::vector<std::string> a = before ? std::vector<std::string>{"--quiet"} : std::vector<std::string>{};
        a.insert(a.end(), GetParam().args.begin(), GetParam().args.end());
        if (!before) a.push_back("--quiet");
        const RunResult r = run_in(good, a);
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(r.out.empty()) << r;
        EXPECT_TRUE(r.err.empty()) << r;
    }
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    const RunResult r = run_in(bad, args({"--quiet"}));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "progress.small.yml")) << r;
}

TEST_P(VerdictTest, ColourFollowsEnvironmentAndFlags) {
    const fs::path good = ws("good");
    write_valid_workspace(good);
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    // Pipes are not terminals: no colour by default.
    for (const fs::path& w : {good, bad}) {
        const RunResult plain = run_in(w, args());
        EXPECT_FALSE(has_escape(plain.out + plain.err)) << plain;
    }
    // CLICOLOR_FORCE turns it on even on a pipe.
    const RunResult forced_ok = run_in(good, args(), {{"CLICOLOR_FORCE", "1"}});
    EXPECT_EQ(forced_ok.exit_code, 0) << forced_ok;
    EXPECT_TRUE(has_escape(forced_ok.out)) << forced_ok;
    const RunResult forced_bad = run_in(bad, args(), {{"CLICOLOR_FORCE", "1"}});
    EXPECT_EQ(forced_bad.exit_code, 1) << forced_bad;
    EXPECT_TRUE(has_escape(forced_bad.err)) << forced_bad;
    // NO_COLOR and --no-color win over CLICOLOR_FORCE.
    for (const fs::path& w : {good, bad}) {
        const RunResult no_color_env = run_in(w, args(), {{"CLICOLOR_FORCE", "1"}, {"NO_COLOR", "1"}});
        EXPECT_FALSE(has_escape(no_color_env.out + no_color_env.err)) << no_color_env;
        const RunResult no_color_flag = run_in(w, args({"--no-color"}), {{"CLICOLOR_FORCE", "1"}});
        EXPECT_FALSE(has_escape(no_color_flag.out + no_color_flag.err)) << no_color_flag;
    }
    // JSON is never coloured.
    const RunResult j = run_in(bad, args({"--json"}), {{"CLICOLOR_FORCE", "1"}});
    EXPECT_FALSE(has_escape(j.out)) << j;
}

INSTANTIATE_TEST_SUITE_P(Commands, VerdictTest, ::testing::ValuesIn(kVerdictCommands),
                         [](const ::testing::TestParamInfo<VerdictCommand>& info) { return info.param.label; });

TEST_F(CliTest, CheckJsonReportsEveryStage) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult r = run_in(w, {"check", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    for (const char* stage : {"validate", "lint", "verify"}) {
        ASSERT_TRUE(doc->contains(stage)) << stage << "\n" << r;
        EXPECT_EQ((*doc)[stage]["status"], "ok") << stage << "\n" << r;
    }
    EXPECT_EQ((*doc)["exit_code"], 0) << r;
}

TEST_F(CliTest, CheckJsonVerifyStageFailure) {
    // Valid for schema and (non-strict) lint, but the current task is not a
    // plan task: only verify's own rule (VER-7) fails.
    const fs::path w = ws();
    write_valid_workspace(w);
    write_file(w / ".small" / "handoff.small.yml",
               replace_once(kHandoff, "  next_steps: []\n", "  current_task_id: \"task-9\"\n  next_steps: []\n"));
    const RunResult r = run_in(w, {"check", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["validate"]["status"], "ok") << r;
    EXPECT_EQ((*doc)["lint"]["status"], "ok") << r;
    EXPECT_EQ((*doc)["verify"]["status"], "failed") << r;
    EXPECT_EQ((*doc)["exit_code"], 1) << r;
    EXPECT_TRUE(contains((*doc)["verify"].dump(), "VER-7")) << r;
    const int line = line_of(read_file(w / ".small" / "handoff.small.yml"), "current_task_id");
    const RunResult text = run_in(w, {"check"});
    EXPECT_EQ(text.exit_code, 1) << text;
    EXPECT_TRUE(contains(text.err, "handoff.small.yml:" + std::to_string(line) + ":")) << text;
    // Strict mode reports it as S3 in the lint stage.
    const RunResult strict = run_in(w, {"check", "--strict", "--json"});
    EXPECT_EQ(strict.exit_code, 1) << strict;
    const auto sdoc = parse_single_json(strict.out);
    ASSERT_TRUE(sdoc) << strict;
    EXPECT_EQ((*sdoc)["lint"]["status"], "failed") << strict;
    EXPECT_TRUE(contains((*sdoc)["lint"].dump(), "\"S3\"")) << strict;
}

TEST_F(CliTest, InvariantOnlyDefectPassesValidateButFailsLint) {
    // A timestamp without fractional seconds is valid for the schema but
    // breaks the progress invariants (INV-R5).
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string progress = replace_once(kProgress, "2025-06-01T10:00:04.100000004Z", "2025-06-01T10:00:04Z");
    write_file(w / ".small" / "progress.small.yml", progress);
    const int line = line_of(progress, "2025-06-01T10:00:04Z");
    EXPECT_EQ(run_in(w, {"validate"}).exit_code, 0);
    for (const auto& cmd : std::vector<std::vector<std::string>>{{"lint"}, {"check"}, {"verify", "--strict"}}) {
        const RunResult r = run_in(w, cmd);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "progress.small.yml:" + std::to_string(line) + ":")) << r;
        EXPECT_TRUE(contains(r.err, "fractional seconds")) << r;
        EXPECT_TRUE(contains(r.err, "INV-R5")) << r;
    }
}

TEST_F(CliTest, UnquotedTimestampsAreStrings) {
    // D2: no YAML timestamp type, so unquoted RFC 3339 timestamps just work.
    const fs::path w = ws();
    write_valid_workspace(w);
    std::string progress = kProgress;
    for (std::string::size_type pos = 0; (pos = progress.find("timestamp: \"", pos)) != std::string::npos;) {
        progress.erase(pos + 11, 1);                  // opening quote
        progress.erase(progress.find('"', pos), 1);  // closing quote
    }
    ASSERT_FALSE(contains(progress, "timestamp: \""));
    write_file(w / ".small" / "progress.small.yml", progress);
    for (const auto& c : kVerdictCommands) {
        const RunResult r = run_in(w, c.args);
        EXPECT_EQ(r.exit_code, 0) << r;
    }
}

TEST_F(CliTest, PlanStatusAndTaskKeyTyposAreLocatedWarnings) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string plan = kPlan + "  - id: \"task-9\"\n    title: \"Nine\"\n    stauts: \"completed\"\n" +
                             "  - id: \"task-10\"\n    title: \"Ten\"\n    status: \"complete\"\n";
    write_file(w / ".small" / "plan.small.yml", plan);
    const std::string typo_at = std::to_string(line_of(plan, "stauts")) + ":5: warning: ";
    const std::string status_at = std::to_string(line_of(plan, "\"complete\"")) + ":14: warning: ";
    for (const auto& cmd : std::vector<std::vector<std::string>>{{"lint"}, {"lint", "--strict"}, {"check"}}) {
        const RunResult r = run_in(w, cmd);
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.err, "plan.small.yml:" + typo_at + "tasks[3] key \"stauts\" is not a task key; "
                                    "did you mean \"status\"? [INV-P9]")) << r;
        EXPECT_TRUE(contains(r.err, "plan.small.yml:" + status_at)) << r;
        EXPECT_TRUE(contains(r.err, "did you mean \"completed\"? [INV-P8]")) << r;
    }
    const RunResult j = run_in(w, {"lint", "--json"});
    EXPECT_EQ(j.exit_code, 0) << j;
    const auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    ASSERT_EQ((*doc)["warnings"].size(), 2u) << j;
    EXPECT_EQ((*doc)["warnings"][0]["rule"], "INV-P9") << j;
    EXPECT_EQ((*doc)["warnings"][1]["rule"], "INV-P8") << j;
    EXPECT_EQ((*doc)["warnings"][1]["severity"], "warning") << j;
}

TEST_F(CliTest, HexCommitLongerThanACommitHashFailsSchemaAndStrictSecrets) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const std::string progress = kProgress + "  - timestamp: \"2025-06-01T10:00:06.1Z\"\n    task_id: \"task-3\"\n" +
                                 "    commit: \"" + sha256 + "\"\n    replayId: \"" + kRunId + "\"\n";
    write_file(w / ".small" / "progress.small.yml", progress);
    const RunResult validate = run_in(w, {"validate"});
    EXPECT_EQ(validate.exit_code, 1) << validate;
    EXPECT_TRUE(contains(validate.err, "commit")) << validate;
    EXPECT_EQ(run_in(w, {"lint"}).exit_code, 0);
    const RunResult strict = run_in(w, {"lint", "--strict"});
    EXPECT_EQ(strict.exit_code, 1) << strict;
    EXPECT_TRUE(contains(strict.err, "progress.small.yml:" + std::to_string(line_of(progress, sha256)) +
                                         ":14: error: potential secret detected at entries[6].commit")) << strict;
    // A 40-digit commit hash stays clean (D9).
    write_file(w / ".small" / "progress.small.yml", replace_once(progress, sha256, sha256.substr(0, 40)));
    EXPECT_EQ(run_in(w, {"lint", "--strict"}).exit_code, 0);
}

TEST_F(CliTest, FormatStrictTurnsQuotingWarningIntoError) {
    const fs::path w = ws();
    write_valid_workspace(w);
    write_file(w / ".small" / "plan.small.yml", replace_once(kPlan, "small_version: \"1.0.0\"", "small_version: 1.0.0"));
    const RunResult lint = run_in(w, {"lint"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
    EXPECT_TRUE(contains(lint.err, "small_version should be a quoted string")) << lint;
    const RunResult strict = run_in(w, {"lint", "--format-strict"});
    EXPECT_EQ(strict.exit_code, 1) << strict;
    EXPECT_TRUE(contains(strict.err, "plan.small.yml:1:")) << strict;
    EXPECT_EQ(run_in(w, {"check", "--format-strict"}).exit_code, 1);
}

TEST_F(CliTest, StrictLayoutAllowsExtButNotOtherFiles) {
    const fs::path w = ws();
    write_valid_workspace(w);
    write_file(w / ".small" / "ext" / "notes.md", "extension data\n");
    EXPECT_EQ(run_in(w, {"verify", "--strict"}).exit_code, 0);
    write_file(w / ".small" / "notes.txt", "stray\n");
    const RunResult r = run_in(w, {"lint", "--strict"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "strict invariant S4 failed")) << r;
    EXPECT_TRUE(contains(r.err, ".small/notes.txt")) << r;
    EXPECT_EQ(run_in(w, {"lint"}).exit_code, 0);
}

// ===========================================================================
// Workspace discovery (D5)
// ===========================================================================

TEST_F(CliTest, DiscoveryFromNestedSubdirectory) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const fs::path deep = w / "src" / "a" / "b";
    fs::create_directories(deep);
    for (const auto& cmd : {"validate", "lint", "check", "verify"}) {
        const RunResult r = run_in(deep, {cmd});
        EXPECT_EQ(r.exit_code, 0) << r;
    }
    const RunResult id = run_in(deep, {"replay-id"});
    EXPECT_EQ(id.exit_code, 0) << id;
    EXPECT_TRUE(contains(id.out, kExpectedReplayId)) << id;
    // Messages name files relative to the current directory's view.
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    fs::create_directories(bad / "sub");
    const RunResult b = run_in(bad / "sub", {"lint"});
    EXPECT_EQ(b.exit_code, 1) << b;
    EXPECT_TRUE(contains(b.err, "progress.small.yml:")) << b;
}

TEST_F(CliTest, DirMayNameTheSmallFolder) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const fs::path elsewhere = ws("elsewhere");
    for (const auto& cmd : {"validate", "lint", "check", "verify"}) {
        const RunResult r = run_in(elsewhere, {cmd, "--dir", (w / ".small").string()});
        EXPECT_EQ(r.exit_code, 0) << r;
        const RunResult root_dir = run_in(elsewhere, {cmd, "--dir", w.string()});
        EXPECT_EQ(root_dir.exit_code, 0) << root_dir;
        const RunResult relative = run_in(root(), {cmd, "--dir", "ws/.small"});
        EXPECT_EQ(relative.exit_code, 0) << relative;
    }
    const RunResult id = run_in(elsewhere, {"replay-id", "--dir", (w / ".small").string()});
    EXPECT_EQ(id.exit_code, 0) << id;
    EXPECT_TRUE(contains(id.out, kExpectedReplayId)) << id;
}

TEST_F(CliTest, DirWinsOverCurrentDirectory) {
    const fs::path good = ws("good");
    write_valid_workspace(good);
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    // cwd is broken, --dir is valid -> valid.
    const RunResult r1 = run_in(bad, {"lint", "--dir", good.string()});
    EXPECT_EQ(r1.exit_code, 0) << r1;
    // cwd is valid, --dir is broken -> broken, and the message names it.
    const RunResult r2 = run_in(good, {"lint", "--dir", bad.string()});
    EXPECT_EQ(r2.exit_code, 1) << r2;
    EXPECT_TRUE(contains(r2.err, "progress.small.yml:")) << r2;
    // --dir does not walk up: a directory inside the workspace without its own .small/.
    const fs::path sub = good / "sub";
    fs::create_directories(sub);
    const RunResult r3 = run_in(root(), {"validate", "--dir", sub.string()});
    EXPECT_EQ(r3.exit_code, 2) << r3;
}

TEST_F(CliTest, RunsFromInsideSmallDirectory) {
    const fs::path w = ws();
    write_valid_workspace(w);
    for (const auto& cmd : {"validate", "lint", "check", "verify"}) {
        const RunResult r = run_in(w / ".small", {cmd});
        EXPECT_EQ(r.exit_code, 0) << r;
        const RunResult strict = run_in(w / ".small", {cmd, "--strict"});
        if (std::string(cmd) != "validate") {
            EXPECT_EQ(strict.exit_code, 0) << strict;
        }
    }
    const RunResult id = run_in(w / ".small", {"replay-id"});
    EXPECT_EQ(id.exit_code, 0) << id;
    EXPECT_TRUE(contains(id.out, kExpectedReplayId)) << id;
}

TEST_F(CliTest, NearestWorkspaceWins) {
    // An inner workspace nested in an outer one: the nearest .small/ is used.
    const fs::path outer = ws("outer");
    write_broken_workspace(outer);
    const fs::path inner = outer / "packages" / "inner";
    write_valid_workspace(inner);
    fs::create_directories(inner / "src");
    EXPECT_EQ(run_in(inner / "src", {"lint"}).exit_code, 0);
    EXPECT_EQ(run_in(outer / "packages", {"lint"}).exit_code, 1);
}

// ===========================================================================
// replay-id (D3)
// ===========================================================================

TEST_F(CliTest, ReplayIdPrintsTheD3Id) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult r = run_in(w, {"replay-id"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, std::string(kExpectedReplayId) + "\n") << r;
    EXPECT_TRUE(is_lower_hex64(kExpectedReplayId));
    // The result itself is printed even with --quiet.
    const RunResult q = run_in(w, {"--quiet", "replay-id"});
    EXPECT_EQ(q.out, std::string(kExpectedReplayId) + "\n") << q;
}

TEST_F(CliTest, ReplayIdIgnoresFormatting) {
    const fs::path w = ws();
    write_valid_workspace(w);
    // Same data: 4-space indentation, keys reordered, comments, flow style,
    // different quoting, a document start marker.
    write_file(w / ".small" / "intent.small.yml", R"(---
# what we want
success_criteria: []   # none yet
scope: {exclude: [], include: []}
intent: 'Build a widget'
owner: human
small_version: "1.0.0"
)");
    write_file(w / ".small" / "plan.small.yml", R"(owner: agent
small_version: '1.0.0'
tasks:
    # first
    -   status: completed
        title: Initial task
        id: task-1
    -   {id: task-2, status: completed, title: "Design widget"}
    -   id: "task-3"
        title: >-
            Build widget
        status: "completed"
)");
    write_file(w / ".small" / "constraints.small.yml", R"(constraints:
- {id: no-secrets, rule: No secrets in .small artifacts, severity: error}
- severity: error
  rule: "No writes to production by default"
  id: no-prod-writes
owner: "human"
small_version: "1.0.0"
)");
    const RunResult r = run_in(w, {"replay-id"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, std::string(kExpectedReplayId) + "\n") << r;
}

TEST_F(CliTest, ReplayIdChangesWithContent) {
    const fs::path w = ws();
    write_valid_workspace(w);
    write_file(w / ".small" / "plan.small.yml", replace_once(kPlan, "Design widget", "Design the widget"));
    const RunResult title = run_in(w, {"replay-id"});
    EXPECT_EQ(title.exit_code, 0) << title;
    ASSERT_EQ(title.out.size(), 65u) << title;
    EXPECT_TRUE(is_lower_hex64(title.out.substr(0, 64))) << title;
    EXPECT_NE(title.out.substr(0, 64), kExpectedReplayId) << title;
    // Progress and handoff are not part of the manifest.
    write_valid_workspace(w);
    write_file(w / ".small" / "handoff.small.yml", replace_once(kHandoff, "Run complete.", "Run finished."));
    EXPECT_EQ(run_in(w, {"replay-id"}).out, std::string(kExpectedReplayId) + "\n");
    // Without constraints the member is omitted: a different, still valid id.
    fs::remove(w / ".small" / "constraints.small.yml");
    const RunResult no_constraints = run_in(w, {"replay-id"});
    EXPECT_EQ(no_constraints.exit_code, 0) << no_constraints;
    ASSERT_EQ(no_constraints.out.size(), 65u) << no_constraints;
    EXPECT_TRUE(is_lower_hex64(no_constraints.out.substr(0, 64))) << no_constraints;
    EXPECT_NE(no_constraints.out.substr(0, 64), kExpectedReplayId) << no_constraints;
}

TEST_F(CliTest, ReplayIdJson) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult r = run_in(w, {"replay-id", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    ASSERT_TRUE(doc->contains("replay_id")) << r;
    EXPECT_EQ((*doc)["replay_id"], kExpectedReplayId) << r;
}

TEST_F(CliTest, ReplayIdExplainsAPinnedRunThatNoLongerMatches) {
    const fs::path w = ws();
    ASSERT_EQ(run_in(w, {"init", "--quiet"}).exit_code, 0);
    const RunResult same = run_in(w, {"replay-id"});
    EXPECT_TRUE(same.err.empty()) << same;
    const std::string pinned = same.out.substr(0, 64);
    ASSERT_EQ(run_in(w, {"plan", "--add", "Another task"}).exit_code, 0);

    const RunResult r = run_in(w, {"replay-id"});
    EXPECT_EQ(r.exit_code, 0) << r;
    ASSERT_EQ(r.out.size(), 65u) << r;  // stdout stays the manifest's id alone
    const std::string manifest = r.out.substr(0, 64);
    EXPECT_NE(manifest, pinned) << r;
    EXPECT_TRUE(contains(r.err, "Note: the run's pinned id (.small/workspace.small.yml run.replay_id) is " + pinned))
        << r;
    // No work entry yet: `small start` re-pins the run (D18).
    EXPECT_TRUE(contains(r.err, "the run has no work entries yet; run `small start` to re-pin it")) << r;

    const RunResult quiet = run_in(w, {"replay-id", "--quiet"});
    EXPECT_EQ(quiet.out, r.out) << quiet;
    EXPECT_TRUE(quiet.err.empty()) << quiet;

    const RunResult j = run_in(w, {"replay-id", "--json"});
    const auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    EXPECT_EQ((*doc)["replay_id"], manifest) << j;
    EXPECT_EQ((*doc)["run_replay_id"], pinned) << j;
    ASSERT_EQ((*doc)["warnings"].size(), 1u) << j;
    EXPECT_TRUE(contains((*doc)["warnings"][0].get<std::string>(), "small start")) << j;
}

TEST_F(CliTest, ReplayIdErrors) {
    const fs::path w = ws();
    if (!ancestor_has_small_dir(w)) {
        const RunResult none = run_in(w, {"replay-id"});
        EXPECT_EQ(none.exit_code, 2) << none;
        const RunResult none_json = run_in(w, {"replay-id", "--json"});
        EXPECT_EQ(none_json.exit_code, 2) << none_json;
        const auto doc = parse_single_json(none_json.out);
        ASSERT_TRUE(doc) << none_json;
        EXPECT_EQ((*doc)["ok"], false) << none_json;
        EXPECT_TRUE(doc->contains("error")) << none_json;
    }
    write_valid_workspace(w);
    write_file(w / ".small" / "intent.small.yml", "small_version: \"1.0.0\"\nintent: [unclosed\n");
    const RunResult bad = run_in(w, {"replay-id"});
    EXPECT_TRUE(bad.exit_code == 1 || bad.exit_code == 2) << bad;
    EXPECT_TRUE(contains(bad.err, "intent.small.yml:")) << bad;
    EXPECT_TRUE(bad.out.empty()) << bad;
}

// ===========================================================================
// Schema directory override (D1)
// ===========================================================================

const fs::path kReferenceSchemas = fs::path(SMALL_SHARED_DIR) / "reference-data" / "schemas";

TEST_F(CliTest, SpecDirFlagAndEnvironment) {
    if (!fs::exists(kReferenceSchemas / "intent.schema.json")) GTEST_SKIP() << "no " << kReferenceSchemas;
    const fs::path w = ws();
    write_valid_workspace(w);
    const RunResult flag = run_in(w, {"validate", "--spec-dir", kReferenceSchemas.string()});
    EXPECT_EQ(flag.exit_code, 0) << flag;
    EXPECT_TRUE(contains(flag.out, "All artifacts are valid")) << flag;
    const RunResult env = run_in(w, {"validate"}, {{"SMALL_SPEC_DIR", kReferenceSchemas.string()}});
    EXPECT_EQ(env.exit_code, 0) << env;
    const RunResult check = run_in(w, {"check", "--spec-dir", kReferenceSchemas.string()});
    EXPECT_EQ(check.exit_code, 0) << check;
    // The reference schemas reject the broken workspace too.
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    const RunResult broken = run_in(bad, {"validate", "--spec-dir", kReferenceSchemas.string()});
    EXPECT_EQ(broken.exit_code, 1) << broken;
    EXPECT_TRUE(contains(broken.err, "progress.small.yml:")) << broken;
}

TEST_F(CliTest, MissingSpecDirIsASystemError) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string missing = (root() / "no-such-spec-dir").string();
    const RunResult flag = run_in(w, {"validate", "--spec-dir", missing});
    EXPECT_EQ(flag.exit_code, 2) << flag;
    EXPECT_TRUE(contains(flag.err, "no-such-spec-dir")) << flag;
    const RunResult env = run_in(w, {"validate"}, {{"SMALL_SPEC_DIR", missing}});
    EXPECT_EQ(env.exit_code, 2) << env;
    const RunResult j = run_in(w, {"validate", "--json", "--spec-dir", missing});
    EXPECT_EQ(j.exit_code, 2) << j;
    const auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    EXPECT_EQ((*doc)["ok"], false) << j;
    EXPECT_TRUE(doc->contains("error")) << j;
}

TEST_F(CliTest, LintIgnoresSpecDir) {
    // lint does not use schemas: its --spec-dir is accepted for compatibility
    // and ignored, so a stale SMALL_SPEC_DIR must not break it.
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string missing = (root() / "no-such-spec-dir").string();
    const RunResult flag = run_in(w, {"lint", "--spec-dir", missing});
    EXPECT_EQ(flag.exit_code, 0) << flag;
    const RunResult env = run_in(w, {"lint", "--strict"}, {{"SMALL_SPEC_DIR", missing}});
    EXPECT_EQ(env.exit_code, 0) << env;
}

// ===========================================================================
// Robustness: hostile or damaged input never crashes or hangs
// ===========================================================================

// Every verdict command (plus replay-id) on `w`: no crash, no hang, exit in
// `allowed` (`replay_id_allowed` for replay-id, which reads only intent,
// plan and constraints; default: `allowed`); returns the runs.
std::vector<RunResult> run_all_gates(const fs::path& w, const std::vector<int>& allowed,
                                     std::vector<int> replay_id_allowed = {}, RunOptions opts = {}) {
    if (replay_id_allowed.empty()) replay_id_allowed = allowed;
    std::vector<RunResult> runs;
    std::vector<std::vector<std::string>> commands;
    for (const auto& c : kVerdictCommands) commands.push_back(c.args);
    commands.push_back({"replay-id"});
    commands.push_back({"verify", "--strict", "--json"});
    for (const auto& cmd : commands) {
        opts.cwd = w;
        RunResult r = run_small(cmd, opts);
        EXPECT_FALSE(r.timed_out) << r;
        EXPECT_FALSE(r.signaled) << r;
        EXPECT_LT(r.exit_code, 128) << r;
        const auto& ok = cmd.front() == "replay-id" ? replay_id_allowed : allowed;
        EXPECT_TRUE(std::count(ok.begin(), ok.end(), r.exit_code) > 0) << "unexpected exit code\n" << r;
        runs.push_back(std::move(r));
    }
    return runs;
}

TEST_F(CliTest, OneMegabyteLine) {
    const fs::path w = ws();
    write_valid_workspace(w);
    // A 1 MB string value is just long text: valid.
    write_file(w / ".small" / "intent.small.yml",
               replace_once(kIntent, "\"Build a widget\"", "\"" + std::string(1 << 20, 'w') + "\""));
    // (replay-id notes that the fixture's pinned run is not this manifest's: not a problem.)
    for (const RunResult& r : run_all_gates(w, {0})) {
        EXPECT_TRUE(r.err.empty() || r.err.rfind("Note: the run's pinned id", 0) == 0) << r;
    }
    // A 1 MB line of broken YAML (an unterminated flow sequence).
    write_file(w / ".small" / "intent.small.yml", kIntent + "extra: [" + std::string(1 << 20, 'x') + "\n");
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "intent.small.yml:")) << r;
        }
    }
}

TEST_F(CliTest, DeeplyNestedYaml) {
    const fs::path w = ws();
    write_valid_workspace(w);
    // 100,000 nested flow sequences.
    write_file(w / ".small" / "plan.small.yml", kPlan + "extra: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "plan.small.yml:")) << r;
        }
    }
    // 3,000 nested block mappings.
    std::string deep = kIntent + "extra:\n";
    for (int i = 0; i < 3000; ++i) deep += std::string(2 * (i + 1), ' ') + "k" + std::to_string(i) + ":\n";
    write_file(w / ".small" / "plan.small.yml", kPlan);
    write_file(w / ".small" / "intent.small.yml", deep);
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "intent.small.yml:")) << r;
        }
    }
}

TEST_F(CliTest, AliasBomb) {
    const fs::path w = ws();
    write_valid_workspace(w);
    std::string bomb = kIntent + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 10; ++i) {
        bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
        bomb += "]\n";
    }
    write_file(w / ".small" / "intent.small.yml", bomb);
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "intent.small.yml:")) << r;
        }
    }
}

TEST_F(CliTest, InvalidUtf8) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string text = replace_once(kIntent, "Build a widget", "Build a \xff\xfe widget");
    write_file(w / ".small" / "intent.small.yml", text);
    const int line = line_of(text, "\xff");
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (contains(r.command, "--json")) continue;
        EXPECT_TRUE(contains(r.err, "intent.small.yml:" + std::to_string(line) + ":")) << r;
        EXPECT_TRUE(contains(r.err, "UTF-8")) << r;
    }
}

TEST_F(CliTest, BinaryFileAsArtifact) {
    const fs::path w = ws();
    write_valid_workspace(w);
    std::string bytes;
    std::uint32_t x = 2463534242u;  // xorshift: deterministic "random" bytes
    for (int i = 0; i < 8192; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes.push_back(static_cast<char>(x & 0xff));
    }
    write_file(w / ".small" / "plan.small.yml", bytes);
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "plan.small.yml")) << r;
        }
    }
}

TEST_F(CliTest, NulByteIsNotSilentlyIgnored) {
    // YAML forbids NUL; content after it must not be dropped without a word.
    const fs::path w = ws();
    write_valid_workspace(w);
    write_file(w / ".small" / "plan.small.yml", kPlan + std::string(1, '\0') + "tasks: [\n");
    for (const RunResult& r : run_all_gates(w, {1, 2})) {
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "plan.small.yml")) << r;
        }
    }
}

TEST_F(CliTest, EmptyAndNonMappingFiles) {
    const fs::path w = ws();
    write_valid_workspace(w);
    for (const std::string& content : {std::string(), std::string("# only a comment\n"), std::string("- a\n- b\n"),
                                       std::string("just text\n"), std::string("~\n")}) {
        write_file(w / ".small" / "constraints.small.yml", content);
        for (const RunResult& r : run_all_gates(w, {1, 2})) {
            if (r.command.rfind("small replay-id", 0) == 0 || contains(r.command, "--json")) continue;
            EXPECT_TRUE(contains(r.err, "constraints.small.yml")) << r;
        }
    }
}

TEST_F(CliTest, DirectoryWhereAFileShouldBe) {
    const fs::path w = ws();
    write_valid_workspace(w);
    fs::remove(w / ".small" / "handoff.small.yml");
    fs::create_directories(w / ".small" / "handoff.small.yml");
    // replay-id does not read the handoff: it still works.
    for (const RunResult& r : run_all_gates(w, {1, 2}, {0})) {
        if (r.command.rfind("small replay-id", 0) == 0) continue;
        if (!contains(r.command, "--json")) {
            EXPECT_TRUE(contains(r.err, "handoff.small.yml")) << r;
        }
    }
}

// Root can read a chmod 000 file: as root, the commands run as user nobody.
TEST_F(CliTest, UnreadableFile) {
    const fs::path w = ws();
    write_valid_workspace(w);
    fs::permissions(w / ".small" / "progress.small.yml", fs::perms::none);
    for (const RunResult& r : run_all_gates(w, {1, 2}, {0}, unprivileged(root()))) {
        if (r.command.rfind("small replay-id", 0) == 0 || contains(r.command, "--json")) continue;
        EXPECT_TRUE(contains(r.err, "progress.small.yml")) << r;
    }
}

TEST_F(CliTest, MissingArtifactFile) {
    const fs::path w = ws();
    write_valid_workspace(w);
    fs::remove(w / ".small" / "progress.small.yml");
    for (const RunResult& r : run_all_gates(w, {1, 2}, {0})) {
        if (r.command.rfind("small replay-id", 0) == 0 || contains(r.command, "--json")) continue;
        EXPECT_TRUE(contains(r.err, "progress.small.yml")) << r;
    }
}

TEST_F(CliTest, DuplicateKeyNamesBothLines) {
    const fs::path w = ws();
    write_valid_workspace(w);
    const std::string text = kIntent + "owner: \"human\"\n";
    write_file(w / ".small" / "intent.small.yml", text);
    const RunResult r = run_in(w, {"validate"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "intent.small.yml:8:")) << r;
    EXPECT_TRUE(contains(r.err, "duplicate key")) << r;
    EXPECT_TRUE(contains(r.err, "line 2")) << r;
}

// ===========================================================================
// Reads never write
// ===========================================================================

TEST_F(CliTest, ReadCommandsNeverWrite) {
    for (bool broken : {false, true}) {
        TempDir dir;
        const fs::path w = dir.path() / "ws";
        if (broken) write_broken_workspace(w);
        else write_valid_workspace(w);
        write_file(w / ".small" / "ext" / "keep.txt", "extension\n");
        fs::create_directories(w / "src");
        const auto before = snapshot_tree(dir.path());
        std::vector<std::vector<std::string>> commands;
        for (const auto& c : kVerdictCommands) {
            commands.push_back(c.args);
            std::vector<std::string> j = c.args;
            j.push_back("--json");
            commands.push_back(j);
            std::vector<std::string> ci = c.args;
            if (c.args.front() == "check" || c.args.front() == "verify") {
                ci.push_back("--ci");
                commands.push_back(ci);
            }
        }
        commands.push_back({"lint", "--format-strict"});
        commands.push_back({"replay-id"});
        commands.push_back({"replay-id", "--json"});
        for (const auto& cmd : commands) {
            const RunResult r = run_in(w / "src", cmd);
            EXPECT_LT(r.exit_code, 3) << r;
        }
        const auto after = snapshot_tree(dir.path());
        EXPECT_EQ(before, after) << (broken ? "broken" : "valid") << " workspace changed";
        EXPECT_FALSE(fs::exists(w / ".small-cache")) << "reads created .small-cache/";
    }
}

// ===========================================================================
// CI mode
// ===========================================================================

TEST_F(CliTest, CiModePrintsErrorsButNoSuccessLine) {
    const fs::path good = ws("good");
    write_valid_workspace(good);
    const fs::path bad = ws("bad");
    write_broken_workspace(bad);
    for (const auto& cmd : {"check", "verify"}) {
        const RunResult ok = run_in(good, {cmd, "--ci"});
        EXPECT_EQ(ok.exit_code, 0) << ok;
        EXPECT_TRUE(ok.out.empty()) << ok;
        const RunResult fail = run_in(bad, {cmd, "--ci"});
        EXPECT_EQ(fail.exit_code, 1) << fail;
        // Unlike the reference, a failing stage is never silent.
        EXPECT_TRUE(contains(fail.err, "progress.small.yml:")) << fail;
    }
}

}  // namespace

namespace {

using namespace small_e2e;

// `--format` of the verdict commands: the same verdict and exit code in
// every format; sarif and github print only their documents on stdout.
class VerdictFormatTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path root() const { return tmp_.path(); }
    void SetUp() override {
        ASSERT_EQ(run_in(root(), {"init", "--intent", "formats", "--no-agents"}).exit_code, 0);
        const fs::path plan = root() / ".small" / "plan.small.yml";
        std::string text = read_file(plan);
        text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
        write_file(plan, text);
    }
};

TEST_F(VerdictFormatTest, GithubPrintsOneAnnotationPerFinding) {
    const RunResult r = run_in(root(), {"lint", "--format", "github"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(r.out.starts_with("::error file=.small/plan.small.yml,line=2,col=9,title=INV-P1::plan must have owner")) << r;
    EXPECT_TRUE(contains(r.err, "Invariant violations found (1 error)")) << r;
    fs::create_directories(root() / "ok");
    ASSERT_EQ(run_in(root() / "ok", {"init", "--no-agents"}).exit_code, 0);
    const RunResult passing = run_in(root() / "ok", {"validate", "--format", "github"});
    EXPECT_EQ(passing.exit_code, 0) << passing;
    EXPECT_EQ(passing.out, "") << passing;  // stdout holds annotations only
    EXPECT_TRUE(contains(passing.err, "All artifacts are valid")) << passing;
    const RunResult clean = run_in(root(), {"validate", "--format", "github", "--dir", (root() / "nowhere").string()});
    EXPECT_EQ(clean.exit_code, 2) << clean;
    EXPECT_TRUE(clean.out.starts_with("::error ")) << clean;
}

TEST_F(VerdictFormatTest, SarifAndJsonAreOneDocumentWithTheSameExitCode) {
    const RunResult sarif = run_in(root(), {"check", "--format", "sarif"});
    EXPECT_EQ(sarif.exit_code, 1) << sarif;
    const nlohmann::json doc = nlohmann::json::parse(sarif.out);
    EXPECT_EQ(doc["runs"][0]["results"][0]["ruleId"], "SCHEMA") << sarif;
    const RunResult as_format = run_in(root(), {"lint", "--format", "json"});
    const RunResult as_flag = run_in(root(), {"lint", "--json"});
    EXPECT_EQ(as_format.exit_code, 1);
    EXPECT_EQ(as_format.out, as_flag.out);
    const RunResult gitlab = run_in(root(), {"validate", "--format", "gitlab"});
    EXPECT_EQ(gitlab.exit_code, 1) << gitlab;
    EXPECT_EQ(nlohmann::json::parse(gitlab.out)[0]["location"]["path"], ".small/plan.small.yml") << gitlab;
    const RunResult bad = run_in(root(), {"verify", "--format", "xml"});
    EXPECT_EQ(bad.exit_code, 2) << bad;
    EXPECT_TRUE(contains(bad.err, "valid: text, json, sarif, github")) << bad;
}

}  // namespace
