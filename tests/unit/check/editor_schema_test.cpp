// Issue 41, point 6: the editor schemas (`schema export`, `hooks install
// vscode`) catch the common mistakes the canonical schemas let through
// (`status: done`, a workspace kind that does not exist) and accept every
// file the canonical schemas accept: the reference examples and the
// fixtures. The canonical schemas stay as they are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fixtures.hpp"
#include "small/check/schema.hpp"
#include "small/doc/yaml.hpp"

namespace small {
namespace {

using namespace small::testing;

const char* kReferenceExamples = SMALL_SHARED_DIR "/reference-data/examples";

std::vector<SchemaViolation> check(const SchemaSet& set, const std::string& name, const std::string& text) {
    Result<Document> doc = parse_yaml(text, name + ".small.yml");
    EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().describe());
    if (!doc.ok()) return {};
    return set.validate(name, *doc);
}

std::string messages(const std::vector<SchemaViolation>& vs) {
    std::string out;
    for (const SchemaViolation& v : vs) out += "  " + v.pointer + ": " + v.message + "\n";
    return out;
}

TEST(EditorSchemas, CompileAndDescribeEveryFieldOfThePlan) {
    Result<SchemaSet> editor = SchemaSet::editor();
    ASSERT_TRUE(editor.ok()) << editor.error().describe();
    EXPECT_EQ(editor_schema_names().size(), 6u);
    const nlohmann::json plan = nlohmann::json::parse(editor_schema("plan"));
    const nlohmann::json& task = plan["properties"]["tasks"]["items"]["properties"];
    for (const char* field : {"id", "title", "steps", "acceptance", "status", "depends_on", "dependencies", "priority"}) {
        EXPECT_TRUE(task[field].contains("description")) << field;
    }
    EXPECT_EQ(task["status"]["enum"].size(), 5u);
    for (const std::string& name : editor_schema_names()) {
        const nlohmann::json doc = nlohmann::json::parse(editor_schema(name));
        EXPECT_TRUE(doc["properties"]["small_version"].contains("description")) << name;
        if (name != "workspace") {  // the same "$id": an older export is replaced, not refused
            EXPECT_EQ(doc["$id"], nlohmann::json::parse(embedded_schema(name))["$id"]) << name;
        }
    }
    EXPECT_EQ(editor_schema("nothing"), "");
}

TEST(EditorSchemas, CatchTheCommonMistakes) {
    Result<SchemaSet> editor = SchemaSet::editor();
    Result<SchemaSet> canonical = SchemaSet::embedded();
    ASSERT_TRUE(editor.ok() && canonical.ok());
    const std::string done = mutate(kPlan, "    status: \"completed\"\n", "    status: \"done\"\n");
    EXPECT_TRUE(check(*canonical, "plan", done).empty()) << "the canonical schema lets it through";
    EXPECT_FALSE(check(*editor, "plan", done).empty()) << "the editor schema does not";
    const std::string deps = mutate(kPlan, "    status: \"completed\"\n", "    status: \"completed\"\n    depends_on: task-1\n");
    EXPECT_FALSE(check(*editor, "plan", deps).empty());
    const std::string workspace = "small_version: \"1.0.0\"\nkind: \"repo-root\"\nrun:\n  replay_id: \"" +
                                  std::string(64, 'a') + "\"\n";
    EXPECT_TRUE(check(*editor, "workspace", workspace).empty()) << messages(check(*editor, "workspace", workspace));
    EXPECT_FALSE(check(*editor, "workspace", mutate(workspace, "repo-root", "root")).empty());
    EXPECT_FALSE(check(*editor, "workspace", mutate(workspace, "kind: \"repo-root\"\n", "")).empty());
    EXPECT_FALSE(check(*editor, "workspace", mutate(workspace, std::string(64, 'a'), "abc")).empty());
}

TEST(EditorSchemas, AcceptWhatTheCanonicalSchemasAccept) {
    Result<SchemaSet> editor = SchemaSet::editor();
    Result<SchemaSet> canonical = SchemaSet::embedded();
    ASSERT_TRUE(editor.ok() && canonical.ok());
    for (const auto& [artifact, text] : baseline()) {
        EXPECT_TRUE(check(*editor, artifact, text).empty()) << artifact << "\n" << messages(check(*editor, artifact, text));
    }
    if (!std::filesystem::is_directory(kReferenceExamples)) GTEST_SKIP() << "no reference examples at " << kReferenceExamples;
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kReferenceExamples)) {
        const std::string file = entry.path().filename().string();
        if (!entry.is_regular_file() || !file.ends_with(".small.yml")) continue;
        const std::string name = file.substr(0, file.size() - 10);
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        SCOPED_TRACE(entry.path().string());
        const std::vector<SchemaViolation> ours = check(*editor, name, text.str());
        if (name == "workspace") {
            EXPECT_TRUE(ours.empty()) << messages(ours);
        } else if (check(*canonical, name, text.str()).empty()) {
            EXPECT_TRUE(ours.empty()) << messages(ours);
        }
        ++files;
    }
    EXPECT_GE(files, 20u);
}

}  // namespace
}  // namespace small
