// base/command_table: the registry the CLI, the MCP server and the docs are
// derived from. The CLI's list is held to it at compile time (src/cli/main.cpp),
// the MCP tools/list by mcp/server_test; here, the table itself and the docs.
#include "small/base/command_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace small {
namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(CommandTable, SortedUniqueAndDescribed) {
    std::string previous;
    for (const CommandInfo& c : kCommandTable) {
        EXPECT_LT(previous, std::string(c.name)) << "sorted and unique";
        previous = c.name;
        EXPECT_FALSE(c.summary.empty()) << c.name;
        const std::set<std::string_view> jobs = {"session", "inspect", "authoring", "maintenance", "meta"};
        EXPECT_TRUE(jobs.count(c.job)) << c.name << ": job " << c.job;
        EXPECT_EQ(find_command(c.name), &c);
    }
    EXPECT_EQ(find_command("no-such-command"), nullptr);
}

// The operation and the report a row names are modules of the library.
TEST(CommandTable, OperationsAndReportsAreLibraryModules) {
    const std::filesystem::path include = std::filesystem::path(SMALL_SOURCE_DIR) / "include" / "small";
    for (const CommandInfo& c : kCommandTable) {
        for (std::string_view module : {c.operation, c.report}) {
            if (module.empty()) continue;
            EXPECT_TRUE(std::filesystem::exists(include / (std::string(module) + ".hpp")))
                << c.name << " names " << module << ", which is no header of include/small/";
        }
    }
}

TEST(CommandTable, McpToolsAreUniqueAndHintsConsistent) {
    std::set<std::string_view> names;
    for (const CommandInfo& c : kCommandTable) {
        for (const McpTool& t : c.mcp) {
            EXPECT_TRUE(names.insert(t.name).second) << t.name;
            EXPECT_LE(t.description.size(), 160u) << t.name;
            EXPECT_FALSE(t.read_only && t.destructive) << t.name << ": read-only cannot be destructive";
        }
    }
    EXPECT_EQ(names.size(), mcp_tool_count());
}

// A number of tools written in README.md or docs/ is the registry's.
TEST(CommandTable, TheDocsCountTheTools) {
    const char* words[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                           "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"};
    const std::regex claim(R"(\b([A-Za-z]+|[0-9]+) (?:MCP )?tools\b)", std::regex::icase);
    const std::filesystem::path root(SMALL_SOURCE_DIR);
    std::vector<std::filesystem::path> files = {root / "README.md", root / "ARCHITECTURE.md"};
    for (const auto& e : std::filesystem::directory_iterator(root / "docs")) {
        if (e.path().extension() == ".md") files.push_back(e.path());
    }
    std::size_t claims = 0;
    for (const auto& file : files) {
        const std::string text = read_text(file);
        for (auto m = std::sregex_iterator(text.begin(), text.end(), claim); m != std::sregex_iterator(); ++m) {
            std::string word = (*m)[1];
            for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            long count = -1;
            for (std::size_t i = 0; i < std::size(words); ++i) {
                if (word == words[i]) count = static_cast<long>(i);
            }
            if (count < 0 && std::isdigit(static_cast<unsigned char>(word[0]))) count = std::stol(word);
            if (count < 0) continue;  // "the tools", "MCP tools"
            ++claims;
            EXPECT_EQ(count, static_cast<long>(mcp_tool_count())) << file << ": \"" << m->str() << "\"";
        }
    }
    EXPECT_GT(claims, 0u) << "the README states the number of MCP tools";
}

}  // namespace
}  // namespace small
