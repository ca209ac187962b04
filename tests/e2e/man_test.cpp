// `small __man`: the manual pages the build installs. Each page is checked
// against the --help of the same binary (every command has a page, every
// flag and sub-command of its help is in it), its roff against the escaping
// rules, and, when groff is installed, rendered with all warnings on.
#include <regex>
#include <set>
#include <sstream>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// A flag or command name as it appears in roff: hyphens escaped.
std::string roff_name(const std::string& name) {
    std::string out;
    for (char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

std::vector<std::string> commands() {
    TempDir dir;
    const RunResult r = run_in(dir.path(), {"__man", "--list"});
    EXPECT_EQ(r.exit_code, 0) << r;
    return lines(r.out);
}

// The long flags a --help text lists in its Options section.
std::set<std::string> help_flags(const std::string& help) {
    std::set<std::string> flags;
    const std::regex flag(R"((?:^  |,)(--[a-z][a-z-]*))");
    for (const std::string& line : lines(help)) {
        std::smatch m;
        if (std::regex_search(line, m, flag)) flags.insert(m[1].str());
    }
    return flags;
}

// Sub-commands a --help text lists.
std::set<std::string> help_subcommands(const std::string& help) {
    std::set<std::string> subs;
    bool in_section = false;
    for (const std::string& line : lines(help)) {
        if (line == "Subcommands:") in_section = true;
        else if (line.empty()) in_section = false;
        else if (in_section && line.starts_with("  ")) subs.insert(line.substr(2, line.find(' ', 2) - 2));
    }
    return subs;
}

TEST(ManPages, EveryCommandOfTheHelpHasAPage) {
    TempDir dir;
    const std::vector<std::string> names = commands();
    const std::string help = run_in(dir.path(), {"--help"}).out;
    EXPECT_EQ(help_subcommands(help), std::set<std::string>(names.begin(), names.end())) << help;
    EXPECT_GE(names.size(), 20u);

    const RunResult main_page = run_in(dir.path(), {"__man"});
    ASSERT_EQ(main_page.exit_code, 0) << main_page;
    EXPECT_TRUE(contains(main_page.out, ".TH SMALL 1 ")) << main_page.out;
    for (const std::string& name : names) {
        EXPECT_TRUE(contains(main_page.out, "\\fBsmall\\-" + roff_name(name) + "\\fR(1)")) << name;
    }
}

// Every flag and sub-command --help shows, at every level, is in the page.
TEST(ManPages, EachPageHasEveryFlagAndSubcommandOfItsHelp) {
    TempDir dir;
    for (const std::string& name : commands()) {
        const RunResult page = run_in(dir.path(), {"__man", name});
        ASSERT_EQ(page.exit_code, 0) << page;
        EXPECT_TRUE(contains(page.out, ".SH NAME\nsmall\\-" + roff_name(name) + " \\- ")) << page.out;
        for (const char* section : {".SH SYNOPSIS", ".SH DESCRIPTION", ".SH GLOBAL OPTIONS", ".SH EXIT STATUS",
                                    ".SH SEE ALSO"}) {
            EXPECT_TRUE(contains(page.out, section)) << name << ": " << section;
        }
        std::vector<std::vector<std::string>> levels = {{name}};
        for (std::size_t i = 0; i < levels.size(); ++i) {
            std::vector<std::string> args = levels[i];
            args.push_back("--help");
            const std::string help = run_in(dir.path(), args).out;
            for (const std::string& flag : help_flags(help)) {
                EXPECT_TRUE(contains(page.out, "\\fB" + roff_name(flag) + "\\fR")) << name << ": " << flag;
            }
            for (const std::string& sub : help_subcommands(help)) {
                std::vector<std::string> deeper = levels[i];
                deeper.push_back(sub);
                std::string path = "small";
                for (const std::string& w : deeper) path += " " + w;
                EXPECT_TRUE(contains(page.out, ".SS\n" + roff_name(path) + "\n")) << name << ": " << path;
                levels.push_back(deeper);
            }
        }
    }
}

// No raw hyphen, backslash or leading control character from help text.
TEST(ManPages, TextIsEscapedForRoff) {
    TempDir dir;
    std::vector<std::string> names = commands();
    names.push_back("");
    const std::set<std::string> macros = {".TH", ".SH", ".SS", ".TP", ".PP", ".RS", ".RE", ".nf", ".fi", ".br", ".nh", ".ad"};
    for (const std::string& name : names) {
        const RunResult page = run_in(dir.path(), name.empty() ? std::vector<std::string>{"__man"}
                                                               : std::vector<std::string>{"__man", name});
        for (const std::string& line : lines(page.out)) {
            if (line.starts_with(".\\\"")) continue;  // the comment line
            if (line.starts_with(".") || line.starts_with("'")) {
                EXPECT_TRUE(macros.count(line.substr(0, line.find(' ')))) << name << ": " << line;
            }
            for (std::size_t i = 0; i < line.size(); ++i) {
                if (line[i] == '-') {
                    EXPECT_TRUE(i > 0 && line[i - 1] == '\\') << name << ": raw hyphen in " << line;
                } else if (line[i] == '\\') {
                    ++i;  // an escape: \- \e \f \( \[ \& \"
                    ASSERT_LT(i, line.size()) << line;
                    EXPECT_NE(std::string("-efB(&[\"").find(line[i]), std::string::npos) << line;
                }
                EXPECT_LT(static_cast<unsigned char>(line[i]), 0x80) << name << ": non-ASCII in " << line;
            }
        }
    }
}

TEST(ManPages, RenderWithoutGroffWarnings) {
    if (::access("/usr/bin/groff", X_OK) != 0) GTEST_SKIP() << "groff is not installed (scripts/setup.sh)";
    TempDir dir;
    std::vector<std::string> names = commands();
    names.push_back("");
    for (const std::string& name : names) {
        const RunResult page = run_in(dir.path(), name.empty() ? std::vector<std::string>{"__man"}
                                                               : std::vector<std::string>{"__man", name});
        write_file(dir.path() / "page.1", page.out);
        RunOptions opts;
        opts.cwd = dir.path();
        opts.program = "/usr/bin/groff";
        const RunResult groff = run_small({"-ww", "-man", "-Tutf8", "-z", "page.1"}, opts);
        EXPECT_EQ(groff.exit_code, 0) << name << groff;
        EXPECT_EQ(groff.err, "") << "small __man " << name << ":\n" << groff.err;
    }
}

TEST(ManPages, UnknownCommandIsAUsageError) {
    TempDir dir;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"__man", "nosuch"}, {"__man", "plan", "show"}, {"__man", "../etc"}}) {
        const RunResult r = run_in(dir.path(), args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_EQ(r.out, "") << r;
    }
}

}  // namespace
}  // namespace small_e2e
