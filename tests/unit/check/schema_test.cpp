// JSON Schema validation of the five artifacts (DECISIONS D1): embedded
// schemas, messages and pointers a user can act on, marks, the parallel
// chunked path for large logs, and --spec-dir overrides.
#include "small/check/schema.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "small/doc/yaml.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

Document parse(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "doc.yml");
    EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().describe());
    return doc.ok() ? std::move(doc).value() : Document();
}

std::string describe(const std::vector<SchemaViolation>& vs) {
    std::string out;
    for (const auto& v : vs) {
        out += "  " + std::to_string(v.mark.line) + ":" + std::to_string(v.mark.column) + " " +
               (v.pointer.empty() ? "(root)" : v.pointer) + ": " + v.message + "\n";
    }
    return out.empty() ? "  (no violations)\n" : out;
}

std::vector<SchemaViolation> validate(const std::string& artifact, const std::string& text,
                                      const SchemaSet& schemas = builtin_schemas()) {
    const Document doc = parse(text);
    return schemas.validate(artifact, doc);
}

// Exactly one violation, at `pointer`, whose message contains `fragment`,
// located on `line`.
void expect_violation(const std::vector<SchemaViolation>& vs, const std::string& pointer, const std::string& fragment,
                      unsigned line) {
    ASSERT_EQ(vs.size(), 1u) << describe(vs);
    EXPECT_EQ(vs[0].pointer, pointer) << describe(vs);
    EXPECT_TRUE(contains(vs[0].message, fragment)) << "message: " << vs[0].message << "\nwanted: " << fragment;
    EXPECT_EQ(vs[0].mark.line, line) << describe(vs);
}

// For oneOf fields: the explained oneOf violation must be there, at
// `pointer` and `line`; anything else reported for the same value is noise.
void expect_oneof_violation(const std::vector<SchemaViolation>& vs, const std::string& pointer,
                            const std::string& fragment, unsigned line) {
    const auto it = std::find_if(vs.begin(), vs.end(), [&](const SchemaViolation& v) { return contains(v.message, fragment); });
    ASSERT_NE(it, vs.end()) << "wanted: " << fragment << "\n" << describe(vs);
    EXPECT_EQ(it->pointer, pointer) << describe(vs);
    EXPECT_EQ(it->mark.line, line) << describe(vs);
    for (const SchemaViolation& v : vs) EXPECT_EQ(v.pointer, pointer) << describe(vs);
    EXPECT_EQ(vs.size(), 1u) << "oneOf branch errors must not be reported besides the oneOf message:\n" << describe(vs);
}

// ---------------------------------------------------------------- loading

TEST(SchemaEmbedded, AllFiveCompiledIn) {
    std::vector<std::string> names;
    for (const EmbeddedSchema& s : embedded_schemas()) {
        names.emplace_back(s.artifact);
        EXPECT_TRUE(contains(s.json, "\"$schema\"")) << s.artifact;
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"constraints", "handoff", "intent", "plan", "progress"}));
    Result<SchemaSet> set = SchemaSet::embedded();
    ASSERT_TRUE(set.ok()) << set.error().describe();
    EXPECT_EQ(set->source(), "embedded v1.0.0 schemas");
}

TEST(SchemaEmbedded, EverySchemaIsInForce) {
    // A document every schema rejects: proves each artifact has its schema.
    for (const auto& [artifact, text] : baseline()) {
        SCOPED_TRACE(artifact);
        const auto vs = validate(artifact, mutate(text, "small_version: \"1.0.0\"", "small_version: \"2.0.0\""));
        expect_violation(vs, "/small_version", "must be \"1.0.0\"", 1);
    }
}

// The shared set compiles each schema on its first use: every artifact is
// still in force there, whatever order they are first asked for in.
TEST(SchemaEmbedded, SharedSetCompilesEachSchemaOnFirstUse) {
    Result<const SchemaSet*> shared = SchemaSet::embedded_shared();
    ASSERT_TRUE(shared.ok()) << shared.error().describe();
    EXPECT_EQ((*shared)->source(), "embedded v1.0.0 schemas");
    EXPECT_TRUE(validate("no-such-artifact", "a: 1\n", **shared).empty());
    for (const auto& [artifact, text] : baseline()) {
        SCOPED_TRACE(artifact);
        EXPECT_TRUE(validate(artifact, text, **shared).empty());
        const auto vs = validate(artifact, mutate(text, "small_version: \"1.0.0\"", "small_version: \"2.0.0\""), **shared);
        expect_violation(vs, "/small_version", "must be \"1.0.0\"", 1);
    }
}

TEST(SchemaEmbedded, BaselineValidatesClean) {
    for (const auto& [artifact, text] : baseline()) {
        SCOPED_TRACE(artifact);
        const auto vs = validate(artifact, text);
        EXPECT_TRUE(vs.empty()) << describe(vs);
    }
}

// ---------------------------------------------------------------- messages

TEST(SchemaMessages, MissingRequiredField) {
    const auto vs = validate("constraints", mutate(kConstraints, "    rule: \"No secrets in .small artifacts\"\n", ""));
    // The field does not exist: the item that lacks it is located.
    expect_violation(vs, "/constraints/0/rule", "missing required field \"rule\"", 4);
}

TEST(SchemaMessages, MissingRequiredTopLevelField) {
    const auto vs = validate("handoff", mutate(kHandoff, "links: []\n", ""));
    ASSERT_EQ(vs.size(), 1u) << describe(vs);
    EXPECT_EQ(vs[0].pointer, "/links");
    EXPECT_TRUE(contains(vs[0].message, "missing required field \"links\"")) << vs[0].message;
    EXPECT_GT(vs[0].mark.line, 0u);
}

TEST(SchemaMessages, ExtraPropertyInEntry) {
    const std::string text = mutate(kProgress, "    command: \"small init\"\n", "    command: \"small init\"\n    summary: \"x\"\n");
    const auto vs = validate("progress", text);
    expect_violation(vs, "/entries/0/summary", "field \"summary\" is not allowed here", line_of(text, "summary:"));
}

TEST(SchemaMessages, ExtraPropertyAtRoot) {
    const std::string text = std::string(kHandoff) + "current_task: \"task-1\"\n";
    const auto vs = validate("handoff", text);
    expect_violation(vs, "/current_task", "field \"current_task\" is not allowed here", line_of(text, "current_task"));
}

TEST(SchemaMessages, WrongType) {
    const std::string text = mutate(kIntent, "intent: \"Build a widget\"", "intent: 5");
    const auto vs = validate("intent", text);
    expect_violation(vs, "/intent", "expected a string, got", 3);
}

TEST(SchemaMessages, WrongTypeNamesWhatWasFound) {
    auto vs = validate("intent", mutate(kIntent, "success_criteria: []", "success_criteria: \"done\""));
    expect_violation(vs, "/success_criteria", "expected a list, got a string", 7);
    vs = validate("handoff", mutate(kHandoff, "links: []", "links: {}"));
    expect_violation(vs, "/links", "expected a list, got a mapping", 6);
    vs = validate("intent", mutate(kIntent, "intent: \"Build a widget\"", "intent: 5"));
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_TRUE(contains(vs[0].message, "got an integer (5)")) << vs[0].message;
}

TEST(SchemaMessages, Const) {
    const auto vs = validate("plan", mutate(kPlan, "small_version: \"1.0.0\"", "small_version: \"1.0\""));
    expect_violation(vs, "/small_version", "must be \"1.0.0\"", 1);
    EXPECT_TRUE(contains(vs[0].message, "\"1.0\"")) << vs[0].message;
    const auto owner = validate("intent", mutate(kIntent, "owner: \"human\"", "owner: \"agent\""));
    expect_violation(owner, "/owner", "must be \"human\"", 2);
}

TEST(SchemaMessages, Enum) {
    auto vs = validate("constraints", mutate(kConstraints, "severity: \"error\"", "severity: \"fatal\""));
    expect_violation(vs, "/constraints/0/severity", "must be one of", 6);
    EXPECT_TRUE(contains(vs[0].message, "\"error\"") && contains(vs[0].message, "\"warn\"")) << vs[0].message;
    EXPECT_TRUE(contains(vs[0].message, "\"fatal\"")) << vs[0].message;
    const std::string text = mutate(kProgress, "status: \"pending\"", "status: \"done\"");
    vs = validate("progress", text);
    expect_violation(vs, "/entries/1/status", "must be one of", line_of(text, "\"done\""));
    vs = validate("handoff", std::string(kHandoff) + "run:\n  transition_reason: \"crash\"\n");
    expect_violation(vs, "/run/transition_reason", "must be one of", 11);
}

TEST(SchemaMessages, PatternCommitUpperCase) {
    const std::string text = mutate(kProgress, "    notes: \"small init\"\n", "    notes: \"small init\"\n    commit: \"ABCDEF1\"\n");
    const auto vs = validate("progress", text);
    expect_violation(vs, "/entries/0/commit", "\"ABCDEF1\" does not match the pattern", line_of(text, "ABCDEF1"));
    EXPECT_TRUE(contains(vs[0].message, "^[a-f0-9]{7,40}$")) << vs[0].message;
}

TEST(SchemaMessages, PatternReplayIdTooShort) {
    const std::string text = mutate(kHandoff, std::string("value: \"") + kRunId + "\"", "value: \"abc\"");
    const auto vs = validate("handoff", text);
    expect_violation(vs, "/replayId/value", "does not match the pattern", 8);
}

TEST(SchemaMessages, MinLength) {
    auto vs = validate("plan", mutate(kPlan, "title: \"Design widget\"", "title: \"\""));
    expect_violation(vs, "/tasks/1/title", "must not be empty", 8);
    vs = validate("handoff", mutate(kHandoff, "summary: \"Run complete. strict check passed. All plan tasks completed.\"",
                                    "summary: \"\""));
    expect_violation(vs, "/summary", "must not be empty", 3);
}

TEST(SchemaMessages, MinItemsEmptyTasks) {
    const auto vs = validate("plan", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks: []\n");
    expect_violation(vs, "/tasks", "must have at least 1 item", 3);
    const auto cs = validate("constraints", "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints: []\n");
    expect_violation(cs, "/constraints", "must have at least 1 item", 3);
}

TEST(SchemaMessages, OneOfListEvidenceSaysWhatTheShapeIs) {
    // D1: seed 000's list-valued evidence is rejected with the v1.0.0 shape.
    const std::string text = mutate(kProgress, "    evidence: \"Initial task done; tests pass\"\n",
                                    "    evidence:\n      - \"tests pass\"\n      - \"lint clean\"\n");
    const auto vs = validate("progress", text);
    expect_oneof_violation(vs, "/entries/3/evidence", "must be a non-empty string or a mapping, got a list",
                           line_of(text, "evidence:\n"));
}

TEST(SchemaMessages, OneOfEmptyStringEvidence) {
    const std::string text = mutate(kProgress, "evidence: \"Initial task done; tests pass\"", "evidence: \"\"");
    const auto vs = validate("progress", text);
    expect_oneof_violation(vs, "/entries/3/evidence", "must be a non-empty string or a mapping, got an empty string",
                           line_of(text, "evidence: \"\""));
}

TEST(SchemaMessages, OneOfOtherShapes) {
    for (const char* value : {"5", "true", "null"}) {
        SCOPED_TRACE(value);
        const std::string text =
            mutate(kProgress, "evidence: \"Initial task done; tests pass\"", std::string("evidence: ") + value);
        const auto vs = validate("progress", text);
        expect_oneof_violation(vs, "/entries/3/evidence", "must be a non-empty string or a mapping, got ",
                               line_of(text, std::string("evidence: ") + value));
    }
    // A mapping (even empty) is fine.
    for (const char* value : {"{}", "{ci: \"green\"}"}) {
        SCOPED_TRACE(value);
        const auto vs = validate("progress", mutate(kProgress, "evidence: \"Initial task done; tests pass\"",
                                                    std::string("evidence: ") + value));
        EXPECT_TRUE(vs.empty()) << describe(vs);
    }
}

TEST(SchemaMessages, CurrentTaskIdEmptyStringFailsNullPasses) {
    const std::string text = mutate(kHandoff, "  next_steps: []\n", "  current_task_id: \"\"\n  next_steps: []\n");
    const auto vs = validate("handoff", text);
    expect_oneof_violation(vs, "/resume/current_task_id", "must be a non-empty string or null, got an empty string", 5);
    for (const char* value : {"null", "~", "\"task-2\""}) {
        SCOPED_TRACE(value);
        const auto ok = validate("handoff", mutate(kHandoff, "  next_steps: []\n",
                                                   std::string("  current_task_id: ") + value + "\n  next_steps: []\n"));
        EXPECT_TRUE(ok.empty()) << describe(ok);
    }
}

TEST(SchemaMessages, FormatIsNotAsserted) {
    // D1: format is an annotation only.
    auto vs = validate("progress", mutate(kProgress, "    notes: \"small init\"\n",
                                          "    notes: \"small init\"\n    link: \"not a uri\"\n"));
    EXPECT_TRUE(vs.empty()) << describe(vs);
    vs = validate("progress", mutate(kProgress, "2025-06-01T10:00:00.100000000Z", "yesterday"));
    EXPECT_TRUE(vs.empty()) << describe(vs);
    vs = validate("handoff", std::string(kHandoff) + "run:\n  created_at: \"yesterday\"\n");
    EXPECT_TRUE(vs.empty()) << describe(vs);
    vs = validate("handoff", mutate(kHandoff, "links: []", "links:\n  - url: \"not a uri\"\n    description: \"x\""));
    EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(SchemaMessages, PlanTaskExtraKeysPass) {
    const auto vs = validate("plan", mutate(kPlan, "    status: \"completed\"\n",
                                            "    status: \"completed\"\n    depends_on: [\"task-0\"]\n    owner_note: 5\n"
                                            "    dependencies: []\n    extra: {a: [1, 2]}\n"));
    EXPECT_TRUE(vs.empty()) << describe(vs);
}

TEST(SchemaMessages, NonStringTaskIdIsReported) {
    const auto vs = validate("plan", mutate(kPlan, "id: \"task-2\"", "id: 2"));
    expect_violation(vs, "/tasks/1/id", "expected a string, got", 7);
}

TEST(SchemaMessages, ViolationsSortedByLine) {
    std::string text = mutate(kProgress, "status: \"pending\"", "status: \"later\"");  // entry 1
    text = mutate(text, "evidence: \"Widget built; make test passes\"", "commit: \"XYZ\"");  // entry 5
    text = mutate(text, "owner: \"agent\"", "owner: \"human\"");                       // line 2
    const auto vs = validate("progress", text);
    ASSERT_EQ(vs.size(), 3u) << describe(vs);
    EXPECT_EQ(vs[0].pointer, "/owner");
    EXPECT_EQ(vs[1].pointer, "/entries/1/status");
    EXPECT_EQ(vs[2].pointer, "/entries/5/commit");
    EXPECT_LT(vs[0].mark.line, vs[1].mark.line);
    EXPECT_LT(vs[1].mark.line, vs[2].mark.line);
}

TEST(SchemaMessages, SeedHandoffShapeRejected) {
    const std::string text =
        "small_version: \"1.0.0\"\nowner: \"agent\"\nsummary: \"s\"\ncurrent_task: \"t\"\ncompleted_tasks: []\n"
        "replayId:\n  value: \"abc\"\n  source: \"auto\"\n";
    const auto vs = validate("handoff", text);
    std::vector<std::string> pointers;
    for (const auto& v : vs) pointers.push_back(v.pointer);
    std::sort(pointers.begin(), pointers.end());
    const std::vector<std::string> expected = {"/completed_tasks", "/current_task", "/links", "/replayId/value", "/resume"};
    EXPECT_EQ(pointers, expected) << describe(vs);
}

TEST(SchemaMessages, EveryUnknownPropertyOfAnEntryIsReported) {
    const std::string text = mutate(kProgress, "    notes: \"small init\"\n", "    notes: \"small init\"\n    zeta: 1\n    alpha: 2\n");
    const auto vs = validate("progress", text);
    ASSERT_FALSE(vs.empty());
    for (const auto& v : vs) EXPECT_TRUE(v.pointer == "/entries/0/zeta" || v.pointer == "/entries/0/alpha") << describe(vs);
    EXPECT_EQ(vs.size(), 2u) << describe(vs);
}

// ---------------------------------------------------------------- large logs

// A progress log of `n` entries, four lines each, entry i starting on line 4 + 4i.
std::string big_log(std::size_t n, std::size_t bad_index = static_cast<std::size_t>(-1),
                    const std::string& bad_line = "    status: \"done\"\n") {
    std::string text = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    text.reserve(n * 120);
    for (std::size_t i = 0; i < n; ++i) {
        text += "  - timestamp: \"2025-06-01T10:00:00." + std::to_string(100000000 + i) + "Z\"\n";
        text += "    task_id: \"task-" + std::to_string(i % 7) + "\"\n";
        text += i == bad_index ? bad_line : std::string("    status: \"completed\"\n");
        text += "    evidence: \"entry " + std::to_string(i) + "\"\n";
    }
    return text;
}

unsigned entry_line(std::size_t i, unsigned offset) { return static_cast<unsigned>(4 + 4 * i + offset); }

TEST(SchemaLargeLog, CleanFiveThousandEntries) {
    const auto start = std::chrono::steady_clock::now();
    const auto vs = validate("progress", big_log(5000));
    EXPECT_TRUE(vs.empty()) << describe(vs);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    RecordProperty("elapsed_ms", static_cast<int>(ms));
}

TEST(SchemaLargeLog, OneBadEntryAmongFiveThousand) {
    const auto vs = validate("progress", big_log(5000, 4321));
    expect_violation(vs, "/entries/4321/status", "must be one of", entry_line(4321, 2));
    EXPECT_TRUE(contains(vs[0].message, "\"done\"")) << vs[0].message;
}

TEST(SchemaLargeLog, ViolationsInSeveralChunksSortedByLine) {
    std::string text = big_log(5000);
    // First entry, a chunk boundary (2048), and the last entry.
    for (std::size_t i : {4999u, 2048u, 2047u, 0u}) {
        const std::string from = "    evidence: \"entry " + std::to_string(i) + "\"\n";
        text = mutate(text, from, from + "    summary: \"x\"\n");
    }
    text = mutate(text, "owner: \"agent\"", "owner: \"human\"");
    const auto vs = validate("progress", text);
    ASSERT_EQ(vs.size(), 5u) << describe(vs);
    EXPECT_EQ(vs[0].pointer, "/owner");
    EXPECT_EQ(vs[1].pointer, "/entries/0/summary");
    EXPECT_EQ(vs[2].pointer, "/entries/2047/summary");
    EXPECT_EQ(vs[3].pointer, "/entries/2048/summary");
    EXPECT_EQ(vs[4].pointer, "/entries/4999/summary");
    for (std::size_t k = 1; k < vs.size(); ++k) {
        EXPECT_TRUE(contains(vs[k].message, "field \"summary\" is not allowed here")) << vs[k].message;
        EXPECT_EQ(vs[k].mark.line, line_of(text, "summary:", static_cast<int>(k - 1))) << vs[k].pointer;
    }
}

TEST(SchemaLargeLog, ChunkedAndWholeDocumentMessagesAgree) {
    // Small logs go through the whole-document path, large ones through the
    // per-item chunked path: same pointer suffix, same message.
    const std::vector<std::string> bad_lines = {
        "    status: \"done\"\n",
        "    status: \"completed\"\n    evidence2: \"x\"\n",
        "    status: \"completed\"\n    commit: \"XYZ\"\n",
        "    status: \"completed\"\n    replayId: \"short\"\n",
        "    status: \"completed\"\n    notes: 5\n",
        "    status: \"completed\"\n    test: []\n",
        "    status: \"completed\"\n    command: \"\"\n",
    };
    for (const std::string& bad : bad_lines) {
        SCOPED_TRACE(bad);
        const auto small_vs = validate("progress", big_log(10, 3, bad));
        const auto large_vs = validate("progress", big_log(3000, 2999, bad));
        ASSERT_FALSE(small_vs.empty());
        ASSERT_EQ(small_vs.size(), large_vs.size()) << "whole:\n" << describe(small_vs) << "chunked:\n" << describe(large_vs);
        for (std::size_t k = 0; k < small_vs.size(); ++k) {
            ASSERT_EQ(small_vs[k].pointer.rfind("/entries/3", 0), 0u) << small_vs[k].pointer;
            ASSERT_EQ(large_vs[k].pointer.rfind("/entries/2999", 0), 0u) << large_vs[k].pointer;
            EXPECT_EQ(small_vs[k].pointer.substr(std::string("/entries/3").size()),
                      large_vs[k].pointer.substr(std::string("/entries/2999").size()));
            EXPECT_EQ(small_vs[k].message, large_vs[k].message);
            EXPECT_EQ(small_vs[k].mark.line - entry_line(3, 0), large_vs[k].mark.line - entry_line(2999, 0));
            EXPECT_EQ(small_vs[k].mark.column, large_vs[k].mark.column);
        }
    }
}

TEST(SchemaLargeLog, NonMappingEntryInLargeLog) {
    std::string text = big_log(4100);
    text += "  - \"just a string\"\n";
    const auto vs = validate("progress", text);
    expect_violation(vs, "/entries/4100", "expected a mapping, got a string", line_of(text, "just a string"));
}

// ---------------------------------------------------------------- --spec-dir

const char* kReferenceSchemas = SMALL_SHARED_DIR "/reference-data/schemas";

TEST(SchemaSpecDir, ReferenceSchemasGiveTheSameVerdicts) {
    if (!std::filesystem::is_directory(kReferenceSchemas)) GTEST_SKIP() << "no reference schemas at " << kReferenceSchemas;
    Result<SchemaSet> reference = SchemaSet::from_directory(RealFileSystem(), kReferenceSchemas);
    ASSERT_TRUE(reference.ok()) << reference.error().describe();
    EXPECT_EQ(reference->source(), kReferenceSchemas);
    struct Case {
        std::string artifact;
        std::string text;
    };
    std::vector<Case> cases;
    for (const auto& [artifact, text] : baseline()) cases.push_back({artifact, text});
    cases.push_back({"constraints", mutate(kConstraints, "    rule: \"No secrets in .small artifacts\"\n", "")});
    cases.push_back({"progress", mutate(kProgress, "evidence: \"Initial task done; tests pass\"", "evidence: [a, b]")});
    cases.push_back({"progress", mutate(kProgress, "status: \"pending\"", "status: \"done\"")});
    cases.push_back({"progress", mutate(kProgress, "    notes: \"small init\"\n", "    notes: \"small init\"\n    summary: x\n")});
    cases.push_back({"progress", big_log(5000, 4321)});
    cases.push_back({"plan", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks: []\n"});
    cases.push_back({"plan", mutate(kPlan, "    status: \"completed\"\n", "    status: \"completed\"\n    depends_on: [x]\n")});
    cases.push_back({"handoff", mutate(kHandoff, "  next_steps: []\n", "  current_task_id: \"\"\n  next_steps: []\n")});
    cases.push_back({"handoff", std::string(kHandoff) + "run:\n  created_at: \"yesterday\"\n  transition_reason: \"oops\"\n"});
    cases.push_back({"intent", mutate(kIntent, "intent: \"Build a widget\"", "intent: 5")});
    cases.push_back({"intent", mutate(kIntent, "small_version: \"1.0.0\"", "small_version: 1.0")});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.artifact + ":\n" + c.text.substr(0, 400));
        const auto ours = validate(c.artifact, c.text);
        const auto theirs = validate(c.artifact, c.text, *reference);
        ASSERT_EQ(ours.size(), theirs.size()) << "embedded:\n" << describe(ours) << "reference:\n" << describe(theirs);
        for (std::size_t i = 0; i < ours.size(); ++i) {
            EXPECT_EQ(ours[i].pointer, theirs[i].pointer);
            EXPECT_EQ(ours[i].mark.line, theirs[i].mark.line);
        }
    }
}

TEST(SchemaSpecDir, MissingDirectoryIsAnError) {
    Result<SchemaSet> r = SchemaSet::from_directory(RealFileSystem(), "/nonexistent/spec-dir");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "schema not found")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "/nonexistent/spec-dir")) << r.error().message;
}

// The schemas of a --spec-dir, in the in-memory file system.
class SchemaSpecDirLayout : public ::testing::Test {
protected:
    // Adds the embedded schemas under `sub` ("." for the folder itself),
    // replacing text in one of them; `skip` names one left out.
    void write_schemas(const std::string& sub, const std::string& artifact = "", const std::string& from = "",
                       const std::string& to = "", const std::string& skip = "") {
        for (const EmbeddedSchema& s : embedded_schemas()) {
            if (skip == s.artifact) continue;
            std::string json = s.json;
            if (artifact == s.artifact) json = mutate(json, from, to);
            const std::string folder = sub == "." ? dir_ : dir_ + "/" + sub;
            fs_.add_file(folder + "/" + s.artifact + ".schema.json", json);
        }
    }
    Result<SchemaSet> load() const { return SchemaSet::from_directory(fs_, dir_); }
    MemoryFileSystem fs_;
    std::string dir_ = "/spec";
};

TEST_F(SchemaSpecDirLayout, VersionedSubdirectoryIsUsed) {
    // An altered intent schema proves the files on disk are the ones used.
    write_schemas("small/v1.0.0/schemas", "intent", "\"const\": \"human\"", "\"const\": \"robot\"");
    Result<SchemaSet> set = load();
    ASSERT_TRUE(set.ok()) << set.error().describe();
    const auto vs = validate("intent", kIntent, *set);
    expect_violation(vs, "/owner", "must be \"robot\"", 2);
    EXPECT_TRUE(validate("plan", kPlan, *set).empty());
}

TEST_F(SchemaSpecDirLayout, FlatDirectoryIsUsed) {
    write_schemas(".", "plan", "\"minItems\": 1", "\"minItems\": 4");
    Result<SchemaSet> set = load();
    ASSERT_TRUE(set.ok()) << set.error().describe();
    expect_violation(validate("plan", kPlan, *set), "/tasks", "must have at least 4 item", 3);
}

TEST_F(SchemaSpecDirLayout, OneSchemaMissing) {
    write_schemas(".", "", "", "", "handoff");
    Result<SchemaSet> set = load();
    ASSERT_FALSE(set.ok());
    EXPECT_TRUE(contains(set.error().message, "schema not found")) << set.error().message;
    EXPECT_TRUE(contains(set.error().message, "handoff.schema.json")) << set.error().message;
}

TEST_F(SchemaSpecDirLayout, BrokenSchemaIsAnError) {
    write_schemas(".", "progress", "{", "{{");
    Result<SchemaSet> set = load();
    ASSERT_FALSE(set.ok());
    EXPECT_TRUE(contains(set.error().message, "progress.schema.json")) << set.error().message;
}

}  // namespace
}  // namespace small
