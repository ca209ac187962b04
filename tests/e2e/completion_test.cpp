// `small completion bash|zsh|fish`: each script is loaded in the real shell
// (Debian's bash-completion, zsh's compinit, fish) and asked for
// completions, and the engine behind them (`small __complete`) is checked
// against the command tree's own help, so a new command or flag cannot be
// missed. A shell that is not installed skips its test (scripts/setup.sh
// installs all three).
#include <regex>
#include <set>
#include <sstream>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

const fs::path kHarnessDir = fs::path(SMALL_SOURCE_DIR) / "tests/e2e/completion";

std::optional<std::string> find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return std::nullopt;
}

std::set<std::string> lines_of(const std::string& text) {
    std::set<std::string> out;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) out.insert(line.substr(0, line.find('\t')));
    }
    return out;
}

// The shell's answer per typed line: "== <line>" headers, then candidates.
std::map<std::string, std::set<std::string>> answers_of(const std::string& text) {
    std::map<std::string, std::set<std::string>> out;
    std::stringstream in(text);
    std::string current;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("== ")) {
            current = line.substr(3);
            out[current];
        } else if (!line.empty()) {
            out[current].insert(line.substr(0, line.find('\t')));
        }
    }
    return out;
}

class CompletionE2E : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(run_in(root(), {"init", "--no-agents"}).exit_code, 0);
        ASSERT_EQ(run_in(root(), {"plan", "--add", "Second task"}).exit_code, 0);
    }
    fs::path root() const { return tmp_.path(); }

    // Runs `program args...` in the workspace with small first on PATH.
    RunResult shell(const std::string& program, const std::vector<std::string>& args) {
        RunOptions opts;
        opts.cwd = root();
        opts.program = program;
        opts.timeout = std::chrono::milliseconds(60'000);
        const char* path = std::getenv("PATH");
        opts.env = {{"PATH", fs::path(SMALL_BINARY).parent_path().string() + ":" + (path ? path : "/usr/bin:/bin")},
                    {"TMPDIR", root().string()}};
        return run_small(args, opts);
    }

    RunResult engine(const std::vector<std::string>& words, const fs::path& cwd) {
        std::vector<std::string> args = {"__complete"};
        args.insert(args.end(), words.begin(), words.end());
        return run_in(cwd, args);
    }

    // The lines typed in every shell, and what each must offer (at least).
    const std::map<std::string, std::set<std::string>> expected_ = {
        {"small pl", {"plan"}},
        {"small sel", {"selftest"}},
        {"small completion ", {"bash", "zsh", "fish"}},
        {"small plan --done ", {"task-1", "task-2"}},
        {"small plan show ", {"task-1", "task-2"}},
        {"small checkpoint --task task-1 --status ", {"completed", "blocked", "cancelled", "in_progress"}},
        {"small progress add --st", {"--status"}},
        {"small verify --workspace ", {"root", "examples", "any"}},
        {"small help pro", {"progress"}},
        {"small progress l", {"list"}},
    };

    std::vector<std::string> typed_lines() const {
        std::vector<std::string> lines;
        for (const auto& [line, _] : expected_) lines.push_back(line);
        return lines;
    }

    void expect_answers(const RunResult& r) {
        ASSERT_EQ(r.exit_code, 0) << r;
        const auto answers = answers_of(r.out);
        for (const auto& [line, want] : expected_) {
            ASSERT_TRUE(answers.count(line)) << "no answer for '" << line << "'\n" << r;
            const std::set<std::string>& got = answers.at(line);
            for (const std::string& w : want) {
                // zsh and fish offer `--workspace=root` style words as typed; bash the value alone.
                EXPECT_TRUE(got.count(w)) << "'" << line << "' lacks " << w << "\n" << r;
            }
        }
        EXPECT_EQ(answers.at("small pl"), std::set<std::string>{"plan"}) << r;
    }

    TempDir tmp_;
};

TEST_F(CompletionE2E, Bash) {
    const auto bash = find_program("bash");
    if (!bash || !fs::exists("/usr/share/bash-completion/bash_completion")) {
        GTEST_SKIP() << "bash or the bash-completion package is not installed (scripts/setup.sh installs them)";
    }
    std::vector<std::string> args = {"--norc", "--noprofile", (kHarnessDir / "bash_complete.bash").string()};
    for (const std::string& l : typed_lines()) args.push_back(l);
    args.push_back("small verify --workspace=an");
    const RunResult r = shell(*bash, args);
    expect_answers(r);
    EXPECT_EQ(answers_of(r.out).at("small verify --workspace=an"), std::set<std::string>{"any"}) << r;
}

TEST_F(CompletionE2E, Zsh) {
    const auto zsh = find_program("zsh");
    if (!zsh) GTEST_SKIP() << "zsh is not installed (scripts/setup.sh installs it)";
    std::vector<std::string> args = {"-f", (kHarnessDir / "zsh_complete.zsh").string()};
    for (const std::string& l : typed_lines()) args.push_back(l);
    args.push_back("small verify --workspace=an");
    const RunResult r = shell(*zsh, args);
    expect_answers(r);
    EXPECT_EQ(answers_of(r.out).at("small verify --workspace=an"), std::set<std::string>{"--workspace=any"}) << r;
}

TEST_F(CompletionE2E, Fish) {
    const auto fish = find_program("fish");
    if (!fish) GTEST_SKIP() << "fish is not installed (scripts/setup.sh installs it)";
    std::vector<std::string> args = {
        "--no-config", "-c", "small completion fish | source; for l in $argv; echo \"== $l\"; complete -C \"$l\"; end",
        "--"};
    for (const std::string& l : typed_lines()) args.push_back(l);
    args.push_back("small verify --workspace=an");
    const RunResult r = shell(*fish, args);
    expect_answers(r);
    EXPECT_EQ(answers_of(r.out).at("small verify --workspace=an"), std::set<std::string>{"--workspace=any"}) << r;
    EXPECT_TRUE(contains(r.out, "task-2\tSecond task (pending)")) << "fish shows descriptions\n" << r;
}

TEST_F(CompletionE2E, ScriptsNameTheEngineAndNoCommand) {
    for (const char* sh : {"bash", "zsh", "fish"}) {
        const RunResult r = run_in(root(), {"completion", sh});
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out, "__complete")) << sh;
        // No hand-kept lists: the scripts name no command of small.
        EXPECT_FALSE(contains(r.out, "checkpoint")) << sh;
        EXPECT_FALSE(contains(r.out, "in_progress")) << sh;
    }
    EXPECT_EQ(run_in(root(), {"completion", "tcsh"}).exit_code, 2);
}

// Every command of `small --help`, and every flag of each command's --help,
// is offered: the engine walks the same tree that parses and prints help.
TEST_F(CompletionE2E, EngineOffersEveryCommandAndFlagTheHelpLists) {
    const RunResult top = engine({""}, root());
    ASSERT_EQ(top.exit_code, 0) << top;
    std::set<std::string> commands = lines_of(top.out);
    commands.erase("words");
    const std::string help = run_in(root(), {"--help"}).out;
    const std::regex listed(R"(\n  ([a-z][a-z-]*)  )");
    std::size_t n = 0;
    for (auto it = std::sregex_iterator(help.begin(), help.end(), listed); it != std::sregex_iterator(); ++it, ++n) {
        EXPECT_TRUE(commands.count((*it)[1].str())) << (*it)[1].str();
    }
    EXPECT_GE(n, 15u) << help;
    EXPECT_EQ(n, commands.size()) << help;

    const std::regex flag(R"((--[a-z][a-z-]*))");
    for (const std::string& cmd : commands) {
        const std::string cmd_help = run_in(root(), {cmd, "--help"}).out;
        const std::set<std::string> offered = lines_of(engine({cmd, "--"}, root()).out);
        for (auto it = std::sregex_iterator(cmd_help.begin(), cmd_help.end(), flag); it != std::sregex_iterator();
             ++it) {
            const std::string f = (*it)[1].str();
            if (contains(cmd_help, "  " + f) || contains(cmd_help, "," + f)) {
                EXPECT_TRUE(offered.count(f)) << cmd << " " << f;
            }
        }
    }
}

TEST_F(CompletionE2E, EngineIsSilentOutsideAWorkspaceAndOnBrokenInput) {
    TempDir outside;
    const RunResult none = engine({"plan", "--done", ""}, outside.path());
    EXPECT_EQ(none.exit_code, 0) << none;
    EXPECT_EQ(none.out, "words\n") << none;
    EXPECT_EQ(none.err, "");

    write_file(root() / ".small/plan.small.yml", "tasks: [\n");
    const RunResult broken = engine({"plan", "--done", ""}, root());
    EXPECT_EQ(broken.exit_code, 0) << broken;
    EXPECT_EQ(broken.out, "words\n") << broken;
    EXPECT_EQ(broken.err, "");

    for (const std::vector<std::string>& words :
         std::vector<std::vector<std::string>>{{"--nosuch", ""}, {"plan", "--title"}, {"nosuch", "x", "--"}, {}}) {
        const RunResult r = engine(words, root());
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_EQ(r.err, "") << r;
    }
}

TEST_F(CompletionE2E, EngineFollowsDirAndCompletesPaths) {
    TempDir outside;
    const RunResult r = engine({"plan", "--dir", root().string(), "--done", "task-"}, outside.path());
    EXPECT_EQ(lines_of(r.out), (std::set<std::string>{"words", "task-1", "task-2"})) << r;
    EXPECT_EQ(engine({"init", "--dir", ""}, root()).out, "dirs\n");
    EXPECT_EQ(engine({"draft", "intent", "--from", ""}, root()).out, "files\n");
    // The second value of --title ID TEXT is free text: nothing to offer.
    EXPECT_EQ(engine({"plan", "--title", "task-1", ""}, root()).out, "words\n");
    // A flag already given is not offered again.
    EXPECT_FALSE(lines_of(engine({"plan", "--add", "x", "--a"}, root()).out).count("--add"));
}

}  // namespace
}  // namespace small_e2e
