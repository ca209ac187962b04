// The JSON envelope (report/envelope, D16): the keys every --json answer
// carries, the error kinds and their exit codes (D4), a failure's body.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"

namespace small {
namespace {

using nlohmann::json;

TEST(Envelope, ASuccessCarriesTheFourKeysAndNoError) {
    const json doc = with_envelope({{"tasks", 3}}, "plan show", kExitOk);
    EXPECT_EQ(doc["schema_version"], kJsonSchemaVersion);
    EXPECT_EQ(doc["command"], "plan show");
    EXPECT_EQ(doc["ok"], true);
    EXPECT_EQ(doc["exit_code"], 0);
    EXPECT_EQ(doc["tasks"], 3);
    EXPECT_FALSE(doc.contains("error"));
}

TEST(Envelope, AFailureWithoutAnErrorGetsAGenericOneOfItsKind) {
    const json invalid = with_envelope(json::object(), "check", kExitInvalid);
    EXPECT_EQ(invalid["ok"], false);
    EXPECT_EQ(invalid["error"], (json{{"kind", "invalid"}, {"message", "check failed"}}));
    EXPECT_EQ(with_envelope(json::object(), "plan", kExitBusy)["error"]["kind"], "busy");
    EXPECT_EQ(with_envelope(json::object(), "plan", kExitSystem)["error"]["kind"], "system");
    // An error the command gave is kept.
    const json kept = with_envelope(error_json("usage", "no such flag"), "plan", kExitUsage);
    EXPECT_EQ(kept["error"], (json{{"kind", "usage"}, {"message", "no such flag"}}));
}

TEST(Envelope, EachErrorKindHasItsNameAndExitCode) {
    const struct {
        Error::Kind kind;
        const char* name;
        int exit;
    } cases[] = {{Error::Kind::Invalid, "invalid", 1}, {Error::Kind::System, "system", 2},
                 {Error::Kind::Usage, "usage", 2},     {Error::Kind::Busy, "busy", 3},
                 {Error::Kind::Internal, "internal", 2}};
    for (const auto& c : cases) {
        EXPECT_STREQ(error_kind_name(c.kind), c.name);
        EXPECT_EQ(exit_code_for(c.kind), c.exit) << c.name;
    }
    EXPECT_EQ(exit_code_for(VerdictOutcome::Ok), 0);
    EXPECT_EQ(exit_code_for(VerdictOutcome::Invalid), 1);
    EXPECT_EQ(exit_code_for(VerdictOutcome::SystemError), 2);
}

TEST(Envelope, AnErrorAboutAFileAlsoListsItAsAFinding) {
    const json plain = error_document(Error::system("disk full"));
    EXPECT_EQ(plain, (json{{"error", {{"kind", "system"}, {"message", "disk full"}}}}));

    Error e = Error::invalid("duplicate key \"id\"");
    e.file = ".small/plan.small.yml";
    e.line = 7;
    e.column = 5;
    e.rule = "INV-P2";
    const json doc = error_document(e);
    EXPECT_EQ(doc["error"]["message"], ".small/plan.small.yml:7:5: duplicate key \"id\"");
    ASSERT_EQ(doc["errors"].size(), 1u);
    EXPECT_EQ(doc["errors"][0]["rule"], "INV-P2");
    EXPECT_EQ(doc["errors"][0]["file"], ".small/plan.small.yml");
    EXPECT_EQ(doc["errors"][0]["line"], 7);
    EXPECT_EQ(doc["errors"][0]["column"], 5);
    EXPECT_FALSE(doc["errors"][0].contains("hint")) << "no empty hint";
    e.rule.clear();
    EXPECT_EQ(error_document(e)["errors"][0]["rule"], "LOAD");
}

TEST(Envelope, VersionNamesTheToolAndTheProtocol) {
    const json v = version_json();
    ASSERT_TRUE(v["version"].is_string());
    EXPECT_EQ(v["version"].get<std::string>().rfind("v", 0), 0u);
    EXPECT_EQ(v["supported_spec_versions"], json::array({"1.0.0"}));
}

}  // namespace
}  // namespace small
