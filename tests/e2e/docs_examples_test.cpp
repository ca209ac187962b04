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
//
// Every other `small ...` the docs write (code spans, code blocks, outputs and
// comments), and the AGENTS.md block and the help texts, is checked against
// the binary's --help: the command, subcommand and every flag exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
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

// git as on a reader's machine, whatever the test machine's configuration:
// an author, and neither the user's nor the system's settings.
const std::string kIsolatedGit =
    "export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=reader "
    "GIT_AUTHOR_EMAIL=reader@example.com GIT_COMMITTER_NAME=reader GIT_COMMITTER_EMAIL=reader@example.com\n";

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
                           "'\nunset CLICOLOR_FORCE SMALL_SPEC_DIR CI\n" + kIsolatedGit + "(exit " +
                           std::to_string(last_status) + ")\n{ " + line + "\n} 2>&1\necho $? >'" + status.string() +
                           "'\n");
    const std::string cmd = "/bin/sh '" + script.string() + "' >'" + output.string() + "' </dev/null";
    [[maybe_unused]] const int ignored = std::system(cmd.c_str());
    last_status = std::atoi(read_file(status).c_str());
    return read_file(output);
}

// README.md and docs/*.md, sorted.
std::vector<fs::path> doc_files() {
    std::vector<fs::path> files = {kSource / "README.md"};
    for (const auto& e : fs::directory_iterator(kSource / "docs")) {
        if (e.path().extension() == ".md") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<Example> all_examples() {
    std::vector<Example> out;
    for (const fs::path& f : doc_files()) {
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

// ---------------------------------------------------------------------------
// Every `small <command> [<subcommand>] [--flag ...]` that README.md,
// ARCHITECTURE.md, docs/*.md or the AGENTS.md block writes, in a code span or
// a code block, names a command, subcommand and flags the binary has, as its
// --help lists them. (The `$ small ...` lines of console examples are run by
// the test above; their comments are read here.)
// ---------------------------------------------------------------------------

// A command as `small ... --help` describes it.
struct HelpNode {
    std::set<std::string> flags;  // "--strict", "-y"
    std::map<std::string, HelpNode> subcommands;
    bool positionals = false;
    std::string help;  // the --help text
};

// `small <path> --help`, read as CLI11 lays it out: sections "Positionals:",
// "Options:" and "Subcommands:", one entry per line indented by two spaces
// (a wrapped description is indented further). `global` collects the flags
// the "Global flags:" line names.
HelpNode help_tree(const std::vector<std::string>& path, std::set<std::string>& global) {
    std::vector<std::string> args = path;
    args.push_back("--help");
    const RunResult r = run_small(args, {});
    EXPECT_EQ(r.exit_code, 0) << r;
    HelpNode node;
    node.help = r.out;
    std::string section;
    for (const std::string& line : lines_of(r.out)) {
        if (!line.empty() && line[0] != ' ') {
            section = line;
            if (line.rfind("Global flags:", 0) == 0) {
                static const std::regex flag(R"(--[a-z][a-z-]*)");
                for (auto m = std::sregex_iterator(line.begin(), line.end(), flag); m != std::sregex_iterator(); ++m) {
                    global.insert(m->str());
                }
            }
            continue;
        }
        if (line.size() < 3 || line.compare(0, 2, "  ") != 0 || line[2] == ' ') continue;
        const std::string first = line.substr(2, line.find(' ', 2) - 2);
        if (section == "Options:") {
            std::istringstream names(first);
            for (std::string name; std::getline(names, name, ',');) node.flags.insert(name);
        } else if (section == "Positionals:") {
            node.positionals = true;
        } else if (section == "Subcommands:") {
            std::vector<std::string> sub = path;
            sub.push_back(first);
            node.subcommands[first] = help_tree(sub, global);
        }
    }
    return node;
}

// Code as a reader sees it: a code span, or one line of a code block (lines
// continued with a backslash joined), with the line it starts on.
struct CodeText {
    std::string text;
    std::size_t line = 0;
};

// Where the shell comment of `line` starts (a # after a blank, outside quotes).
std::size_t comment_start(const std::string& line) {
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (quote) {
            if (line[i] == quote) quote = 0;
        } else if (line[i] == '"' || line[i] == '\'') {
            quote = line[i];
        } else if (line[i] == '#' && i > 0 && line[i - 1] == ' ') {
            return i;
        }
    }
    return std::string::npos;
}

// The code spans and code block lines of a Markdown text. HTML comments (the
// examples' annotations, the AGENTS.md markers) are no text a reader sees; of
// a console block's `$ ` line, which the examples test runs, only the comment.
std::vector<CodeText> code_in_markdown(std::string md) {
    for (std::size_t at = md.find("<!--"); at != std::string::npos; at = md.find("<!--", at)) {
        const std::size_t end = md.find("-->", at);
        const std::size_t stop = end == std::string::npos ? md.size() : end + 3;
        const auto newlines =
            std::count(md.begin() + static_cast<long>(at), md.begin() + static_cast<long>(stop), '\n');
        md.replace(at, stop - at, std::string(static_cast<std::size_t>(newlines), '\n'));
    }
    std::vector<CodeText> out;
    const auto spans = [&out](const std::string& p, std::size_t first_line) {
        for (std::size_t i = 0; i < p.size();) {
            if (p[i] == '\\' && i + 1 < p.size()) {
                i += 2;  // \` is a backtick, not a span
                continue;
            }
            if (p[i] != '`') {
                ++i;
                continue;
            }
            std::size_t n = 0;
            while (i + n < p.size() && p[i + n] == '`') ++n;
            const std::string fence(n, '`');
            std::size_t close = p.find(fence, i + n);
            while (close != std::string::npos && close + n < p.size() && p[close + n] == '`') {
                close = p.find(fence, close + n + 1);  // a longer run closes nothing
            }
            if (close == std::string::npos) {
                i += n;
                continue;
            }
            std::string text = p.substr(i + n, close - i - n);
            std::replace(text.begin(), text.end(), '\n', ' ');
            text = replaced(text, "\\|", "|");  // a pipe inside a table cell
            const auto newlines = std::count(p.begin(), p.begin() + static_cast<long>(i), '\n');
            out.push_back({text, first_line + static_cast<std::size_t>(newlines)});
            i = close + n;
        }
    };
    const std::vector<std::string> lines = lines_of(md);
    std::string paragraph;  // spans may wrap, but not across a blank line
    std::size_t paragraph_line = 0;
    std::string block;  // the open code block's language ("" outside, "-" for none)
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        const std::size_t indent = l.find_first_not_of(' ');
        const bool fence =
            indent != std::string::npos && (l.compare(indent, 3, "```") == 0 || l.compare(indent, 3, "~~~") == 0);
        if (fence || (block.empty() && indent == std::string::npos)) {
            spans(paragraph, paragraph_line);
            paragraph.clear();
            if (fence) block = block.empty() ? "-" + l.substr(indent + 3) : "";
            continue;
        }
        if (block.empty()) {
            if (paragraph.empty()) paragraph_line = i + 1;
            paragraph += l + "\n";
            continue;
        }
        CodeText code{l, i + 1};
        while (!code.text.empty() && code.text.back() == '\\' && i + 1 < lines.size()) {
            code.text.pop_back();
            code.text += " " + lines[++i];
        }
        if (block == "-console" && code.text.rfind("$ ", 0) == 0) {
            const std::size_t hash = comment_start(code.text);
            code.text = hash == std::string::npos ? "" : code.text.substr(hash);
        }
        out.push_back(code);
    }
    spans(paragraph, paragraph_line);
    return out;
}

// Whether `small` at `at` in `code` starts a command, and how surely.
enum class Position { none, prose, command };

// A command: at the start, after a prompt, a shell operator, `$(`, `sudo`,
// `exec`, `--`, an environment assignment, or a gap of two blanks (synopsis
// columns). Perhaps prose that names a command, as outputs and comments do:
// after a quote, a parenthesis, a label ("Run next: small ..."), `#`, a list
// bullet, or "run", "via", "see", "or", "and".
Position command_position(const std::string& code, std::size_t at) {
    std::string before = code.substr(0, at);
    const bool gap = before.size() >= 2 && before.compare(before.size() - 2, 2, "  ") == 0;
    while (!before.empty() && std::isspace(static_cast<unsigned char>(before.back()))) before.pop_back();
    if (before.empty()) return Position::command;
    const std::size_t blank = before.find_last_of(" \t");
    const std::string last = before.substr(blank == std::string::npos ? 0 : blank + 1);
    static const std::regex assignment(R"([A-Z_][A-Z0-9_]*=\S*)");
    static const std::set<std::string> command_after = {"$", "&&", "||", "|", ";", "sudo", "exec", "then", "do", "--"};
    if (gap || command_after.count(last) || std::regex_match(last, assignment) || before.ends_with("$(") ||
        before.back() == '`' || before.back() == ';') {
        return Position::command;
    }
    static const std::set<std::string> prose_after = {"run", "runs", "via", "see", "or", "and", "#", "-", "*"};
    if (prose_after.count(last.substr(std::min(last.size(), last.find_first_not_of("\"'(")))) ||
        std::string_view("\"'(:={").find(before.back()) != std::string_view::npos) {
        return Position::prose;
    }
    return Position::none;
}

// One shell word after `small`, as a reader of the docs means it.
struct Word {
    std::string text;
    bool quoted = false;     // "..." or '...': a value, never a command or a flag
    bool bracketed = false;  // [--strict], [ID]: optional, as in a synopsis
};

// The words of the command that starts at `at`, up to where it ends: a pipe,
// &&, ;, a redirection, a comment, the end of a code span, the quote that
// opened it (`closer`), a parenthesis of prose, a dash of prose, another
// `small`, or a word ending with , . or :.
std::vector<Word> command_words(const std::string& s, std::size_t at, char closer) {
    std::vector<Word> out;
    std::size_t i = at;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) break;
        const char c = s[i];
        const bool placeholder = c == '<' && i + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[i + 1]));
        if (std::string_view("|&;>#`()").find(c) != std::string_view::npos || (c == '<' && !placeholder) ||
            c == closer || s.compare(i, 3, "\u2014") == 0 || s.compare(i, 3, "\u2013") == 0 ||
            (std::isdigit(static_cast<unsigned char>(c)) && i + 1 < s.size() && s[i + 1] == '>')) {
            break;
        }
        Word w;
        bool last = false;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != '`' && s[i] != ';') {
            if (s.compare(i, 2, "\\n") == 0) {
                last = true;  // a newline inside a JSON string
                break;
            }
            const bool escaped = s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\'');
            const char quote = escaped ? s[i + 1] : s[i];
            if (quote != '"' && quote != '\'') {
                w.text += s[i++];
                continue;
            }
            // A quoted value ("\"...\"" inside a JSON string too, --dir="..."), or
            // the end of the quotation the command sits in: "... via small handoff".
            if ((quote == closer && !escaped) || (!w.text.empty() && w.text.back() != '=')) {
                last = true;
                break;
            }
            const std::string q = escaped ? std::string("\\") + quote : std::string(1, quote);
            const std::size_t close = s.find(q, i + q.size());
            if (w.text.empty()) w.quoted = true;
            const std::size_t stop = close == std::string::npos ? s.size() : close + q.size();
            w.text += s.substr(i, stop - i);
            i = stop;
        }
        if (!w.quoted) {
            const auto opens = std::count(w.text.begin(), w.text.end(), '(');
            for (auto closes = std::count(w.text.begin(), w.text.end(), ')');
                 closes > opens && !w.text.empty() && w.text.back() == ')'; --closes) {
                w.text.pop_back();
                last = true;
            }
            while (!w.text.empty() && std::string_view(",.:").find(w.text.back()) != std::string_view::npos &&
                   !w.text.ends_with("...")) {
                w.text.pop_back();
                last = true;
            }
            while (!w.text.empty() && w.text.front() == '[') {
                w.text.erase(0, 1);
                w.bracketed = true;
            }
            while (!w.text.empty() && w.text.back() == ']') {
                w.text.pop_back();
                w.bracketed = true;
            }
            if (w.text == "small") break;  // the next command of a synopsis line
        }
        if (!w.text.empty()) out.push_back(w);
        if (last) break;
    }
    return out;
}

// The flags a word shows: "--strict", "-y|--yes", "--done/--pending",
// "--dir=DIR", "--with-markers[=true|false]"; none for a value.
std::vector<std::string> flags_in(const Word& w) {
    if (w.quoted || w.text.size() < 2 || w.text[0] != '-') return {};
    std::string text = w.text.substr(0, w.text.find_first_of("=["));
    std::replace(text.begin(), text.end(), '/', '|');
    std::vector<std::string> out;
    std::istringstream each(text);
    static const std::regex flag(R"(--[A-Za-z][A-Za-z0-9-]*|-[A-Za-z])");
    for (std::string f; std::getline(each, f, '|');) {
        if (!std::regex_match(f, flag)) return {};
        out.push_back(f);
    }
    return out;
}

// A command or subcommand name, or alternatives of them (apply|check|print).
bool is_name(const Word& w) {
    static const std::regex name(R"((__)?[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*)");
    return !w.quoted && !w.bracketed && std::regex_match(w.text, name);
}

bool is_placeholder(const Word& w) {
    return !w.quoted && (w.text[0] == '<' || w.bracketed || w.text.find("...") != std::string::npos ||
                         w.text.find("\u2026") != std::string::npos);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// A word of prose or a misspelt name: close to one of `names`.
bool near_one_of(const std::string& word, const std::vector<const HelpNode*>& nodes) {
    for (const HelpNode* n : nodes) {
        for (const auto& [name, _] : n->subcommands) {
            if (edit_distance(word, name) <= (word.size() < 5 ? 1u : 2u)) return true;
        }
    }
    return false;
}

std::string joined(const std::set<std::string>& names) {
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
    return text;
}

// What is wrong with the command `words` (after `small`) names, or nothing.
// `is_command` says whether the words named a command (or a flag) at all. In
// prose, a word that is no command is taken for prose unless it is close to
// a command's name.
std::optional<std::string> wrong_in(const std::vector<Word>& words, Position position, const HelpNode& root,
                                    const std::set<std::string>& global, bool& is_command) {
    std::vector<const HelpNode*> nodes = {&root};
    std::string name = "small";
    const auto unknown_flag = [&](const Word& w) -> std::optional<std::string> {
        for (const std::string& flag : flags_in(w)) {
            const bool known = global.count(flag) || std::any_of(nodes.begin(), nodes.end(), [&](const HelpNode* n) {
                                   return n->flags.count(flag) > 0;
                               });
            if (known) continue;
            std::set<std::string> all;
            for (const HelpNode* n : nodes) all.insert(n->flags.begin(), n->flags.end());
            return name + " has no flag " + flag + " (it has " + joined(all) + ")";
        }
        return std::nullopt;
    };
    std::size_t i = 0;
    for (; i < words.size() && !flags_in(words[i]).empty(); ++i) {  // small --json status
        is_command = true;
        if (auto wrong = unknown_flag(words[i])) return wrong;
    }
    if (i == words.size()) return std::nullopt;
    // The command and its subcommands: the names right after `small`.
    bool first = true;
    while (i < words.size() &&
           std::any_of(nodes.begin(), nodes.end(), [](const HelpNode* n) { return !n->subcommands.empty(); })) {
        const Word& w = words[i];
        if (is_placeholder(w) && first) {
            nodes = {};  // small <command> --help: the global flags
            ++i;
            break;
        }
        if (!is_name(w)) {
            if (first) return std::nullopt;  // no command: find_package(small 0.1 REQUIRED)
            break;
        }
        std::vector<const HelpNode*> next;
        std::set<std::string> missing;
        bool positional = false;
        std::istringstream alternatives(w.text);
        for (std::string alt; std::getline(alternatives, alt, '|');) {
            bool found = false;
            for (const HelpNode* n : nodes) {
                if (const auto sub = n->subcommands.find(alt); sub != n->subcommands.end()) {
                    next.push_back(&sub->second);
                    found = true;
                }
                positional = positional || n->positionals;
            }
            if (!found) missing.insert(alt);
        }
        if (!missing.empty() && positional && !first) break;  // small claim task-3, small help plan
        if (!missing.empty()) {
            const std::string word = *missing.begin();
            if (position != Position::command && !near_one_of(word, nodes)) return std::nullopt;  // prose
            is_command = true;
            std::set<std::string> subs;
            for (const HelpNode* n : nodes) {
                for (const auto& [sub, _] : n->subcommands) subs.insert(sub);
            }
            return first ? "small has no command " + word
                         : name + " has no subcommand " + word + " (it has " + joined(subs) + ")";
        }
        is_command = true;
        nodes = next;
        name += " " + w.text;
        first = false;
        ++i;
    }
    for (; i < words.size() && words[i].text != "--"; ++i) {  // after --: operands
        if (auto wrong = unknown_flag(words[i])) return wrong;
    }
    return std::nullopt;
}

// Doc lines that show a command the binary does not have, on purpose (say, the
// Go reference's behaviour): {file, the code as written}, each with a comment
// saying why. None today: the docs show the reference's ways in prose.
const std::vector<std::pair<std::string, std::string>> kNotThisBinary = {};

TEST(DocsExamples, EveryCommandTheDocsWriteExistsWithItsFlags) {
    std::set<std::string> global;
    HelpNode root = help_tree({}, global);
    ASSERT_GT(root.subcommands.size(), 30u);
    // The hidden commands the build runs (no --help lists them): `small __man
    // [--list | COMMAND]` prints the manual pages, `small __complete WORD...`
    // the completions' candidates.
    root.subcommands["__man"].flags = {"--list"};
    root.subcommands["__man"].positionals = true;
    root.subcommands["__complete"].positionals = true;
    for (const std::vector<std::string>& hidden :
         {std::vector<std::string>{"__man", "--list"}, {"__complete", "plan", "--d"}}) {
        const RunResult r = run_small(hidden, {});
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_FALSE(r.out.empty()) << r;
    }
    ASSERT_TRUE(global.count("--json") && global.count("--quiet") && global.count("--no-color"))
        << "the Global flags: line";
    global.insert({"--help", "-h"});

    std::vector<std::pair<std::string, std::string>> sources;  // name, Markdown
    std::vector<fs::path> files = doc_files();
    files.push_back(kSource / "ARCHITECTURE.md");
    for (const fs::path& f : files) sources.push_back({fs::relative(f, kSource).string(), read_file(f)});
    const RunResult block = run_small({"agents", "print"}, {});
    ASSERT_EQ(block.exit_code, 0) << block;
    sources.push_back({"the AGENTS.md block (small agents print)", block.out});
    // The help texts name commands too ("Run 'small <command> --help'").
    const auto add_help = [&sources](const auto& self, const HelpNode& node, const std::string& name) -> void {
        sources.push_back({name + " --help", "```text\n" + node.help + "```\n"});
        for (const auto& [sub, child] : node.subcommands) self(self, child, name + " " + sub);
    };
    add_help(add_help, root, "small");

    std::size_t commands = 0;
    std::set<std::pair<std::string, std::string>> excused;
    static const std::regex small_word(R"((^|[^A-Za-z0-9_./@:+-])small(\s|$))");
    for (const auto& [file, markdown] : sources) {
        for (const CodeText& code : code_in_markdown(markdown)) {
            for (auto m = std::sregex_iterator(code.text.begin(), code.text.end(), small_word);
                 m != std::sregex_iterator(); ++m) {
                const std::size_t at = static_cast<std::size_t>(m->position(0) + m->length(1));
                const Position position = command_position(code.text, at);
                if (position == Position::none) continue;
                const char opener = at > 0 ? code.text[at - 1] : 0;
                const std::vector<Word> words =
                    command_words(code.text, at + 5, opener == '"' || opener == '\'' ? opener : 0);
                bool is_command = false;
                const std::optional<std::string> wrong = wrong_in(words, position, root, global, is_command);
                commands += is_command ? 1 : 0;
                if (!wrong) continue;
                const std::pair<std::string, std::string> key{file, code.text};
                if (std::find(kNotThisBinary.begin(), kNotThisBinary.end(), key) != kNotThisBinary.end()) {
                    excused.insert(key);
                    continue;
                }
                std::string shown = "small";
                for (const Word& w : words) shown += " " + w.text;
                ADD_FAILURE() << file << ":" << code.line << ": `" << shown << "`: " << *wrong;
            }
        }
    }
    EXPECT_GT(commands, 700u) << "the docs name hundreds of commands: is the reading broken?";
    for (const auto& entry : kNotThisBinary) {
        EXPECT_TRUE(excused.count(entry))
            << entry.first << ": `" << entry.second
            << "` is excused in kNotThisBinary but is no longer wrong (or no longer there)";
    }
}

}  // namespace
