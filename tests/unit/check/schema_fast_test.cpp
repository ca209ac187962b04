// validate()'s fast accept path against valijson itself: documents made by
// randomly mutating valid ones (every schema, the editor ones too) must get
// the same answer from both wherever the fast path answers, and it answers
// for every document but those whose strings hold a NUL. The test also
// proves that both answers occurred.
#include "small/check/schema.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/doc/node_json.hpp"
#include "small/doc/yaml.hpp"

namespace small {
namespace {

using Json = nlohmann::json;

// `format` is an annotation in SMALL (D1): validate() strips it too.
void strip_format(Json& j) {
    if (j.is_object()) {
        j.erase("format");
        for (auto& [key, value] : j.items()) strip_format(value);
    } else if (j.is_array()) {
        for (auto& value : j) strip_format(value);
    }
}

// valijson alone, on the document's JSON form.
class Reference {
public:
    explicit Reference(const std::string& schema_text) : source_(Json::parse(schema_text)) {
        strip_format(source_);
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::NlohmannJsonAdapter adapter(source_);
        parser.populateSchema(adapter, schema_);
    }
    bool valid(NodeRef root) const {
        const Json doc = root.valid() ? node_to_json<Json>(root) : Json::object();
        valijson::Validator validator;
        return validator.validate(schema_, valijson::adapters::NlohmannJsonAdapter(doc), nullptr);
    }

private:
    Json source_;
    valijson::Schema schema_;
};

const std::string kHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

std::map<std::string, Json> valid_documents() {
    const std::string hex_upper = "0123456789ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef";
    std::map<std::string, Json> docs;
    docs["progress"] = Json::parse(R"({"small_version": "1.0.0", "owner": "agent", "entries": [
        {"timestamp": "2026-01-01T00:00:00.000000001Z", "task_id": "task-1", "status": "completed",
         "evidence": "tests passed", "replayId": ")" + hex_upper + R"("},
        {"task_id": "meta/x", "status": "blocked", "notes": "", "verification": {"kind": "ci"}, "test": "unit",
         "command": "make", "command_summary": "make", "command_sha256": ")" + kHex + R"(", "command_ref": "r",
         "link": "https://example.com", "commit": "abcdef1"}]})");
    docs["plan"] = Json::parse(R"({"small_version": "1.0.0", "owner": "agent", "tasks": [
        {"id": "task-1", "title": "First", "steps": ["a"], "acceptance": [], "status": "pending",
         "depends_on": ["task-0"], "priority": 1}]})");
    docs["handoff"] = Json::parse(R"({"small_version": "1.0.0", "owner": "agent", "summary": "s",
        "resume": {"current_task_id": "task-1", "next_steps": ["x"]}, "links": [{"url": "https://x", "description": "d"}],
        "replayId": {"value": ")" + kHex + R"(", "source": "auto"},
        "run": {"created_at": "2026-01-01T00:00:00Z", "transition_reason": "reset", "previous_replay_id": ")" +
                                    hex_upper + R"(", "previous_run_ref": "r"}})");
    docs["intent"] = Json::parse(R"({"small_version": "1.0.0", "owner": "human", "intent": "x",
        "scope": {"include": ["src/**"], "exclude": []}, "success_criteria": ["ok"]})");
    docs["constraints"] = Json::parse(R"({"small_version": "1.0.0", "owner": "human",
        "constraints": [{"id": "c", "rule": "r", "severity": "error"}]})");
    docs["workspace"] = Json::parse(R"({"small_version": "1.0.0", "owner": "agent", "kind": "repo-root",
        "created_at": "2026-01-01T00:00:00Z", "run": {"replay_id": ")" + kHex + R"("}})");
    return docs;
}

std::vector<Json> value_pool() {
    std::vector<Json> pool = {"", "x", "1.0.0", "agent", "human", "pending", "in_progress", "completed", "Completed",
                              "blocked", "cancelled", "done", "auto", "manual", "reset", "self_heal", "error", "warn",
                              "repo-root", "examples", "https://x", "\xC3\xA9", "\xE6\x97\xA5", std::string("a\0b", 3),
                              std::string(1, '\0'), " ", "\n", 1, 0, -1, 1.5, true, false, nullptr, Json::array(),
                              Json::array({"a"}), Json::array({1}), Json::object(), Json::object({{"a", 1}})};
    for (const std::string& hex : {kHex, std::string("0123456789ABCDEF0123456789abcdef0123456789ABCDEF0123456789ABCDEF"),
                                   kHex.substr(0, 63), kHex + "0", kHex + "\n", "\n" + kHex, kHex.substr(0, 40),
                                   kHex.substr(0, 41), kHex.substr(0, 7), kHex.substr(0, 6), std::string(40, 'g'),
                                   std::string("ABCDEF1"), kHex.substr(0, 63) + "\xC3\xA9"}) {
        pool.emplace_back(hex);
    }
    return pool;
}

const std::vector<std::string> kNames = {
    "small_version", "owner", "entries", "tasks", "task_id", "timestamp", "replayId", "status", "evidence",
    "verification", "command", "command_sha256", "test", "link", "commit", "notes", "id", "title", "steps",
    "summary", "resume", "current_task_id", "next_steps", "links", "url", "value", "source", "run", "scope",
    "include", "exclude", "intent", "success_criteria", "constraints", "rule", "severity", "kind", "replay_id",
    "priority", "depends_on", "unknown", "Task_id"};

// Every value of `j`, as (pointer to its parent or null, key or index).
void collect(Json& j, std::vector<Json*>& out) {
    out.push_back(&j);
    if (j.is_object()) {
        for (auto& [key, value] : j.items()) collect(value, out);
    } else if (j.is_array()) {
        for (auto& value : j) collect(value, out);
    }
}

void mutate(Json& doc, std::mt19937& rng, const std::vector<Json>& pool) {
    std::vector<Json*> nodes;
    collect(doc, nodes);
    Json& at = *nodes[rng() % nodes.size()];
    switch (rng() % 4) {
        case 0: at = pool[rng() % pool.size()]; break;
        case 1:
            if (at.is_object() && !at.empty()) at.erase(std::next(at.begin(), static_cast<long>(rng() % at.size())));
            else if (at.is_array() && !at.empty()) at.erase(at.begin() + static_cast<long>(rng() % at.size()));
            break;
        case 2:
            if (at.is_object()) at[kNames[rng() % kNames.size()]] = pool[rng() % pool.size()];
            else if (at.is_array()) at.push_back(at.empty() ? pool[rng() % pool.size()] : at[rng() % at.size()]);
            break;
        default:
            if (at.is_array() && !at.empty()) at.push_back(at[rng() % at.size()]);
            break;
    }
}

bool holds_nul(const Json& j) {
    if (j.is_string()) return j.get<std::string>().find('\0') != std::string::npos;
    if (j.is_object() || j.is_array()) {
        for (const auto& [key, value] : j.items()) {
            if (key.find('\0') != std::string::npos || holds_nul(value)) return true;
        }
    }
    return false;
}

Document parse_json(const Json& j) {
    Result<Document> doc = parse_yaml(j.dump(), "doc.yml");  // JSON is YAML
    EXPECT_TRUE(doc.ok()) << j.dump();
    return doc.ok() ? std::move(doc).value() : Document();
}

struct Counts {
    std::size_t accepted = 0, refused = 0, unsure = 0;
};

void compare(const SchemaSet& set, const std::string& artifact, const Reference& reference, const Json& j, Counts& c) {
    const Document doc = parse_json(j);
    const bool fast = set.fast_accepts(artifact, doc);
    const bool valid = reference.valid(doc.root());
    if (fast) {
        ASSERT_TRUE(valid) << artifact << ": the fast path accepts what valijson refuses: " << j.dump();
        EXPECT_TRUE(set.validate(artifact, doc).empty());
        ++c.accepted;
    } else if (!valid) {
        ++c.refused;
    } else {
        ASSERT_TRUE(holds_nul(j)) << artifact << ": the fast path cannot tell for a valid document: " << j.dump();
        ++c.unsure;
    }
}

void run_mutations(const SchemaSet& set, const std::map<std::string, std::string>& schema_texts) {
    std::mt19937 rng(39);
    const std::vector<Json> pool = value_pool();
    Counts counts;
    for (const auto& [artifact, base] : valid_documents()) {
        if (!schema_texts.count(artifact)) continue;
        const Reference reference(schema_texts.at(artifact));
        for (int round = 0; round < 1500; ++round) {
            Json doc = base;
            const int mutations = static_cast<int>(rng() % 4);
            for (int m = 0; m < mutations; ++m) mutate(doc, rng, pool);
            compare(set, artifact, reference, doc, counts);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    EXPECT_GT(counts.accepted, 1000u);
    EXPECT_GT(counts.refused, 1000u);
}

TEST(SchemaFastPath, AgreesWithValijsonOnTheEmbeddedSchemas) {
    Result<SchemaSet> set = SchemaSet::embedded();
    ASSERT_TRUE(set.ok());
    std::map<std::string, std::string> texts;
    for (const EmbeddedSchema& s : embedded_schemas()) texts[s.artifact] = s.json;
    run_mutations(*set, texts);
}

TEST(SchemaFastPath, AgreesWithValijsonOnTheEditorSchemas) {
    Result<SchemaSet> set = SchemaSet::editor();
    ASSERT_TRUE(set.ok());
    std::map<std::string, std::string> texts;
    for (const std::string& name : editor_schema_names()) texts[name] = editor_schema(name);
    run_mutations(*set, texts);
}

TEST(SchemaFastPath, LargeLogsAreJudgedInChunksAndOneBadEntryDeclines) {
    Result<SchemaSet> set = SchemaSet::embedded();
    ASSERT_TRUE(set.ok());
    Json doc = valid_documents()["progress"];
    const Json entry = doc["entries"][0];
    doc["entries"] = Json::array();
    for (int i = 0; i < 10000; ++i) doc["entries"].push_back(entry);
    const Reference reference(embedded_schema("progress"));
    Counts counts;
    compare(*set, "progress", reference, doc, counts);
    doc["entries"][7777]["status"] = "done";
    compare(*set, "progress", reference, doc, counts);
    EXPECT_EQ(counts.accepted, 1u);
    EXPECT_EQ(counts.refused, 1u);
}

// valijson counts a string's characters up to its first NUL: a minLength
// the first bytes do not settle is left to valijson.
TEST(SchemaFastPath, TextWithNulIsJudgedAsValijsonCountsIt) {
    Result<SchemaSet> set = SchemaSet::embedded();
    ASSERT_TRUE(set.ok());
    const Reference reference(embedded_schema("progress"));
    Json doc = valid_documents()["progress"];
    Counts counts;
    for (const std::string& id : {std::string("x\0", 2), std::string("\0x", 2), std::string("\xC3\xA9\0", 3)}) {
        doc["entries"][0]["task_id"] = id;
        compare(*set, "progress", reference, doc, counts);
    }
    EXPECT_EQ(counts.accepted, 1u);  // an ASCII "x" before the NUL settles it
    EXPECT_EQ(counts.unsure, 1u);    // "é" then NUL: valid, but only valijson says so
    EXPECT_EQ(counts.refused, 1u);   // NUL first: valijson counts 0 characters
}

// A schema with a keyword (or a form of one) the fast path does not read is
// valijson's alone: the fast path then accepts nothing, and validate() keeps
// valijson's answers.
TEST(SchemaFastPath, SchemasWithOtherKeywordsAreLeftToValijson) {
    const Document valid = parse_json(valid_documents()["progress"]);
    for (const std::string& keyword : {std::string(R"("maxLength": 300)"), std::string(R"("pattern": "^[a-z]")"),
                                       std::string(R"("type": ["string"])"), std::string(R"("enum": ["task-1", "meta/x", 3])")}) {
        Json schema = Json::parse(embedded_schema("progress"));
        schema["properties"]["entries"]["items"]["properties"]["task_id"] = Json::parse("{" + keyword + "}");
        MemoryFileSystem fs;
        for (const EmbeddedSchema& s : embedded_schemas()) {
            fs.add_file(std::string("/spec/") + s.artifact + ".schema.json",
                        std::string(s.artifact) == "progress" ? schema.dump() : s.json);
        }
        Result<SchemaSet> set = SchemaSet::from_directory(fs, "/spec");
        ASSERT_TRUE(set.ok()) << keyword;
        EXPECT_FALSE(set->fast_accepts("progress", valid)) << keyword;
        EXPECT_TRUE(set->validate("progress", valid).empty()) << keyword;
        EXPECT_TRUE(set->fast_accepts("plan", parse_json(valid_documents()["plan"]))) << keyword;
    }
}

}  // namespace
}  // namespace small
