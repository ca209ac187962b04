// Every `$ small ...` console example in README.md and docs/*.md is run in a
// temporary workspace and its output compared with the text the docs show,
// so the docs show what the tool prints.
//
// A console block is preceded by an annotation that says where it runs:
//
//   <!-- example: FIXTURE [root /tmp/shown] [cwd SUBDIR] [exact]
//   before N: shell command run (silently) before the block's Nth command
//   -->
//
// FIXTURE is `empty` (a new directory), `continue` (the previous block's
// directory, as it was left) or a name from kFixtures (a workspace built with
// real commands). `root` is the path the docs print for the workspace (default
// /tmp/docws). Timestamps (9-digit UTC, and the minutes status --brief shows),
// 64-hex ids and 16-hex id prefixes are masked on both sides (not with
// `exact`). SMALL_DOCS_UPDATE=1 rewrites the outputs in the docs from the real
// runs (review the diff!).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

const fs::path kSource = SMALL_SOURCE_DIR;

// Workspaces the docs' examples start from, built with real commands.
const std::map<std::string, std::vector<std::string>> kFixtures = {
    // The greeter workspace of the README: its tour (the same commands), then
    // task-2 completed and a fresh handoff, as the README says.
    {"greeter",
     {"small init --intent 'Add a --version flag to the greeter CLI' >/dev/null",
      "small plan --title task-1 'Parse the --version flag' >/dev/null",
      "small plan --add 'Print the version' >/dev/null",
      "small checkpoint --task task-1 --status in_progress --evidence 'Started on flag parsing' >/dev/null",
      "small checkpoint --task task-1 --status completed --evidence '--version parsed' --test 'ctest -R version' "
      ">/dev/null",
      "small progress add --task task-2 --status in_progress --evidence 'Printing wired up; tests to write' "
      ">/dev/null",
      "small checkpoint --task task-2 --status completed --evidence 'version printed' >/dev/null",
      "small handoff >/dev/null"}},
    // The widget workspace of docs/commands.md: three tasks, task-3 depends on task-2.
    {"widget",
     {"small init --no-agents --intent 'Build the widget' >/dev/null",
      "small plan --add 'Design widget' >/dev/null", "small plan --add 'Build widget' >/dev/null"}},
};

struct Command {
    std::string line;      // after "$ "
    std::string expected;  // the lines shown after it
};

struct Example {
    fs::path file;
    std::size_t line = 0;  // of the ``` that opens the block
    std::string fixture = "empty";
    std::string root = "/tmp/docws";
    std::string cwd;
    std::map<std::size_t, std::vector<std::string>> before;  // command index (1-based) -> shell
    std::vector<Command> commands;
    std::size_t first_body_line = 0, end_line = 0;  // the block's content lines [first, end)
    bool annotated = false;
    bool exact = false;  // no masking: the ids themselves are the point
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

void parse_annotation(const std::vector<std::string>& ann, Example& ex) {
    std::istringstream head(ann[0].substr(ann[0].find("example:") + 8));
    head >> ex.fixture;
    for (std::string key; head >> key && key != "-->";) {
        if (key == "exact") ex.exact = true;
        if (key == "root") head >> ex.root;
        if (key == "cwd") head >> ex.cwd;
    }
    for (std::size_t i = 1; i < ann.size(); ++i) {
        static const std::regex before(R"(^before (\d+): (.*)$)");
        std::smatch m;
        if (std::regex_match(ann[i], m, before)) ex.before[std::stoul(m[1])].push_back(m[2]);
    }
}

std::vector<Example> examples_in(const fs::path& file) {
    const std::vector<std::string> lines = lines_of(read_file(file));
    std::vector<Example> out;
    std::vector<std::string> annotation;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind("<!-- example:", 0) == 0) {
            annotation.clear();
            for (; i < lines.size(); ++i) {
                annotation.push_back(lines[i]);
                if (lines[i].find("-->") != std::string::npos) break;
            }
            continue;
        }
        if (lines[i] != "```console") {
            if (!lines[i].empty()) annotation.clear();
            continue;
        }
        Example ex;
        ex.file = file;
        ex.line = i + 1;
        ex.annotated = !annotation.empty();
        if (ex.annotated) parse_annotation(annotation, ex);
        annotation.clear();
        ex.first_body_line = i + 1;
        for (++i; i < lines.size() && lines[i] != "```"; ++i) {
            if (lines[i].rfind("$ ", 0) == 0) ex.commands.push_back({lines[i].substr(2), ""});
            else if (!ex.commands.empty()) ex.commands.back().expected += lines[i] + "\n";
        }
        ex.end_line = i;
        out.push_back(ex);
    }
    return out;
}

std::string without_trailing_blank_lines(std::string s) {
    while (s.size() >= 2 && s.compare(s.size() - 2, 2, "\n\n") == 0) s.pop_back();
    if (s == "\n") s.clear();
    return s;
}

std::string masked(std::string s) {
    // 1 to 9 fraction digits: messages print a moment with its trailing zeros dropped.
    static const std::regex time(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}Z)");
    static const std::regex minute(R"(\b\d{4}-\d\d-\d\d \d\d:\d\d\b)");  // status --brief
    static const std::regex id64(R"(\b[0-9a-f]{64}\b)");
    static const std::regex id16(R"(\b[0-9a-f]{16}\.\.\.)");
    // How far ahead of the clock a dated entry is changes with the day the tests run.
    static const std::regex ahead(R"(\b\d+ (years?|days?|hours?|minutes?|seconds?) ahead of the clock)");
    s = std::regex_replace(s, ahead, "<DURATION> ahead of the clock");
    s = std::regex_replace(s, time, "<TIME>");
    s = std::regex_replace(s, minute, "<MINUTE>");
    s = std::regex_replace(s, id64, "<ID>");
    return std::regex_replace(s, id16, "<ID>...");
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
    return s;
}

// Runs one shell line in `dir` with `small` on PATH; stdout and stderr together,
// in order. `$?` is the previous line's exit status, as in a terminal.
std::string run_shell(const fs::path& dir, const std::string& line) {
    static int last_status = 0;
    const fs::path script = dir.parent_path() / "example.sh";
    const fs::path output = dir.parent_path() / "example.out";
    const fs::path status = dir.parent_path() / "example.status";
    const fs::path bin = fs::path(SMALL_BINARY).parent_path();
    write_file(script, "cd '" + dir.string() + "' || exit 99\nexport PATH='" + bin.string() +
                           "':\"$PATH\" NO_COLOR=1 SMALL_SOURCE='" + kSource.string() +
                           "'\nunset CLICOLOR_FORCE SMALL_SPEC_DIR CI\n(exit " + std::to_string(last_status) +
                           ")\n{ " + line + "\n} 2>&1\necho $? >'" + status.string() + "'\n");
    const std::string cmd = "/bin/sh '" + script.string() + "' >'" + output.string() + "' </dev/null";
    [[maybe_unused]] const int ignored = std::system(cmd.c_str());
    last_status = std::atoi(read_file(status).c_str());
    return read_file(output);
}

std::vector<Example> all_examples() {
    std::vector<fs::path> files = {kSource / "README.md"};
    for (const auto& e : fs::directory_iterator(kSource / "docs")) {
        if (e.path().extension() == ".md") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<Example> out;
    for (const fs::path& f : files) {
        for (Example& ex : examples_in(f)) out.push_back(std::move(ex));
    }
    return out;
}

std::string where(const Example& ex) { return ex.file.filename().string() + ":" + std::to_string(ex.line); }

// Rewrites the outputs of `ex` in its file with `actual` (SMALL_DOCS_UPDATE=1).
void update_docs(const Example& ex, const std::vector<std::string>& actual) {
    std::vector<std::string> lines = lines_of(read_file(ex.file));
    std::vector<std::string> body;
    for (std::size_t i = 0; i < ex.commands.size(); ++i) {
        body.push_back("$ " + ex.commands[i].line);
        for (const std::string& l : lines_of(without_trailing_blank_lines(actual[i]))) body.push_back(l);
    }
    lines.erase(lines.begin() + static_cast<long>(ex.first_body_line), lines.begin() + static_cast<long>(ex.end_line));
    lines.insert(lines.begin() + static_cast<long>(ex.first_body_line), body.begin(), body.end());
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    write_file(ex.file, text);
}

TEST(DocsExamples, EveryConsoleExampleIsAnnotatedAndPrintsWhatTheDocsShow) {
    const bool update = std::getenv("SMALL_DOCS_UPDATE") != nullptr;
    std::vector<Example> examples = all_examples();
    ASSERT_GT(examples.size(), 10u);
    std::unique_ptr<TempDir> dir;
    fs::path ws;
    // Bottom-up per file, so that an update keeps the line numbers of earlier blocks.
    std::map<fs::path, std::vector<std::pair<Example, std::vector<std::string>>>> updates;
    for (const Example& ex : examples) {
        if (ex.commands.empty()) continue;
        ASSERT_TRUE(ex.annotated) << where(ex) << ": a console example without an <!-- example: ... --> annotation";
        if (ex.fixture != "continue" || !dir) {
            dir = std::make_unique<TempDir>();
            ws = dir->path() / "ws";
            fs::create_directories(ws);
            if (ex.fixture != "empty" && ex.fixture != "continue") {
                const auto fixture = kFixtures.find(ex.fixture);
                ASSERT_NE(fixture, kFixtures.end()) << where(ex) << ": unknown fixture " << ex.fixture;
                for (const std::string& step : fixture->second) {
                    const std::string out = run_shell(ws, step);
                    ASSERT_TRUE(out.empty()) << where(ex) << ": fixture step " << step << " printed:\n" << out;
                }
            }
        }
        const fs::path cwd = ex.cwd.empty() ? ws : ws / ex.cwd;
        fs::create_directories(cwd);
        std::vector<std::string> actual;
        bool differs = false;
        for (std::size_t i = 0; i < ex.commands.size(); ++i) {
            if (const auto b = ex.before.find(i + 1); b != ex.before.end()) {
                for (const std::string& step : b->second) run_shell(ws, step);
            }
            actual.push_back(replaced(run_shell(cwd, ex.commands[i].line), ws.string(), ex.root));
            const auto mask = [&ex](const std::string& t) { return ex.exact ? t : masked(t); };
            const std::string want = mask(without_trailing_blank_lines(ex.commands[i].expected));
            const std::string got = mask(without_trailing_blank_lines(actual.back()));
            differs = differs || got != want;
            if (!update) {
                EXPECT_EQ(got, want) << where(ex) << ": $ " << ex.commands[i].line;
            }
        }
        if (update && differs) updates[ex.file].push_back({ex, actual});  // no churn of masked values
    }
    for (auto& [file, list] : updates) {
        for (auto it = list.rbegin(); it != list.rend(); ++it) update_docs(it->first, it->second);
    }
}

// The README says its later examples inspect "the workspace of the tour with
// both tasks completed": the greeter fixture is the tour's commands that
// wrote something, in order, then task-2 completed and the handoff.
TEST(DocsExamples, TheGreeterFixtureIsTheReadmesTour) {
    std::vector<std::string> tour;
    for (const Example& ex : examples_in(kSource / "README.md")) {
        if (ex.fixture != "empty" || ex.root != "/tmp/greeter") continue;
        for (const Command& c : ex.commands) tour.push_back(c.line.substr(0, c.line.find("  #")));
        break;
    }
    ASSERT_FALSE(tour.empty()) << "the tour: the README's first example in an empty /tmp/greeter";
    const std::vector<std::string>& steps = kFixtures.at("greeter");
    ASSERT_GE(steps.size(), 2u);
    std::size_t at = 0;
    for (std::size_t i = 0; i + 2 < steps.size(); ++i) {
        std::string step = replaced(steps[i].substr(0, steps[i].find(" >/dev/null")), "'", "\"");
        const auto found = std::find_if(tour.begin() + static_cast<long>(at), tour.end(), [&](const std::string& line) {
            return line.substr(0, line.find_last_not_of(' ') + 1) == step;
        });
        ASSERT_NE(found, tour.end()) << "fixture step not in the tour (in order): " << step;
        at = static_cast<std::size_t>(found - tour.begin()) + 1;
    }
}

}  // namespace
