// `small schema print|export`: the built-in schemas by name, and their export.
#include "small/ops/inspect/schema.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "small/base/filesystem.hpp"
#include "small/check/schema.hpp"

namespace small {
namespace {

TEST(SchemaCommand, PrintsEachSchemaByAnyOfItsNames) {
    for (const std::string name : {"plan", "PLAN", "plan.schema.json", "plan.small.yml"}) {
        Result<SchemaText> r = schema_print_command(name);
        ASSERT_TRUE(r.ok()) << name;
        EXPECT_EQ(r->name, "plan");
        EXPECT_EQ(r->file, "plan.schema.json");
        EXPECT_EQ(nlohmann::json::parse(r->json)["$id"], "https://smallprotocol.dev/schemas/small/v1.0.0/plan.schema.json");
    }
    EXPECT_EQ(schema_names(), (std::vector<std::string>{"intent", "constraints", "plan", "progress", "handoff"}));
}

TEST(SchemaCommand, AnUnknownNameIsAUsageErrorWithTheClosestName) {
    Result<SchemaText> r = schema_print_command("hadnoff");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_NE(r.error().message.find("did you mean \"handoff\""), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().hint.find("intent, constraints, plan, progress, handoff"), std::string::npos);
}

// Export writes the editor schemas (issue 41): the five with descriptions and
// the status enum, and workspace.small.yml's; print stays canonical.
TEST(SchemaCommand, ExportWritesTheEditorSchemasAndReplacesOnlyItsOwn) {
    MemoryFileSystem fs;
    fs.add_directory("/home/u");
    Result<SchemaExportResult> r = schema_export_command(fs, "out/schemas", "/home/u", false);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->dir, "/home/u/out/schemas");
    ASSERT_EQ(r->files.size(), 6u);
    for (const SchemaExportFile& f : r->files) EXPECT_EQ(f.change, "created");
    EXPECT_EQ(*fs.read_file("/home/u/out/schemas/plan.schema.json"), editor_schema("plan"));
    EXPECT_EQ(*fs.read_file("/home/u/out/schemas/workspace.schema.json"), editor_schema("workspace"));
    EXPECT_NE(editor_schema("plan"), schema_print_command("plan")->json);
    EXPECT_EQ(schema_print_command("plan")->json, std::string(embedded_schema("plan")));

    Result<SchemaExportResult> again = schema_export_command(fs, "/home/u/out/schemas", "/", false);
    ASSERT_TRUE(again.ok());
    for (const SchemaExportFile& f : again->files) EXPECT_EQ(f.change, "unchanged");

    fs.add_file("/home/u/out/schemas/intent.schema.json", "{\"$id\": \"mine\"}");
    Result<SchemaExportResult> refused = schema_export_command(fs, "/home/u/out/schemas", "/", false);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(*fs.read_file("/home/u/out/schemas/intent.schema.json"), "{\"$id\": \"mine\"}");  // nothing written
    Result<SchemaExportResult> forced = schema_export_command(fs, "/home/u/out/schemas", "/", true);
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(forced->files[0].change, "updated");
}

}  // namespace
}  // namespace small
