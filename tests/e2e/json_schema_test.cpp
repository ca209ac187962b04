// The --json contract (D16, docs/json.md): every command and sub-command, on
// success and on failure, prints exactly one JSON document that validates
// against its schema in docs/json/. The real binary runs in fresh temporary
// directories; valijson (draft-07) checks each document.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

const fs::path kSchemaDir = SMALL_JSON_SCHEMA_DIR;

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

json load_json_file(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return json::parse(in);
}

// The schema with every "$ref" replaced by what it points to. valijson 1.0
// caches sub-schemas by JSON pointer alone, so the same pointer in two files
// (e.g. #/definitions/x) would silently resolve to one of them; inlining the
// references ourselves keeps the validation exact.
json inline_refs(const json& node, const fs::path& file, int depth = 0) {
    if (depth > 32) throw std::runtime_error("$ref nesting too deep in " + file.string());
    if (node.is_array()) {
        json out = json::array();
        for (const json& item : node) out.push_back(inline_refs(item, file, depth));
        return out;
    }
    if (!node.is_object()) return node;
    if (node.contains("$ref")) {  // draft-07: siblings of $ref are ignored
        const std::string ref = node["$ref"].get<std::string>();
        const auto hash = ref.find('#');
        const std::string target = ref.substr(0, hash);
        const fs::path target_file = target.empty() ? file : (file.parent_path() / target).lexically_normal();
        const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
        return inline_refs(load_json_file(target_file).at(json::json_pointer(pointer)), target_file, depth + 1);
    }
    json out = json::object();
    for (const auto& [key, value] : node.items()) out[key] = inline_refs(value, file, depth);
    return out;
}

// docs/json/<name>.schema.json, compiled once per process.
const valijson::Schema& schema_named(const std::string& name) {
    static std::map<std::string, std::unique_ptr<valijson::Schema>> compiled;
    auto& slot = compiled[name];
    if (!slot) {
        const fs::path file = kSchemaDir / (name + ".schema.json");
        const json resolved = inline_refs(load_json_file(file), file);
        slot = std::make_unique<valijson::Schema>();
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(resolved), *slot);
    }
    return *slot;
}

// "" when `doc` satisfies the schema, else valijson's reasons, one a line.
std::string schema_violations(const json& doc, const std::string& schema) {
    valijson::Validator validator;
    valijson::ValidationResults results;
    if (validator.validate(schema_named(schema), valijson::adapters::NlohmannJsonAdapter(doc), &results)) return "";
    std::string out;
    valijson::ValidationResults::Error error;
    while (results.popError(error)) {
        std::string where;
        for (const std::string& part : error.context) where += part;
        out += "  " + where + ": " + error.description + "\n";
    }
    return out.empty() ? "  (valijson names no reason; propertyNames fails silently)\n" : out;
}

// ---------------------------------------------------------------------------
// Running commands
// ---------------------------------------------------------------------------

RunResult run_with_input(const fs::path& cwd, const std::vector<std::string>& args, std::optional<std::string> input,
                         const Env& env = {}) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.env = env;
    opts.stdin_text = std::move(input);
    return run_small(args, opts);
}

RunResult run_json(const fs::path& cwd, std::vector<std::string> args, const Env& env = {},
                   std::optional<std::string> input = std::nullopt) {
    args.push_back("--json");
    return run_with_input(cwd, args, std::move(input), env);
}

// The run exited with `exit_code` and printed exactly one JSON document that
// agrees with it and satisfies docs/json/<schema>.schema.json. Returns it.
json expect_document(const RunResult& r, const std::string& schema, int exit_code) {
    EXPECT_EQ(r.exit_code, exit_code) << r;
    const std::optional<json> doc = parse_single_json(r.out);
    if (!doc) {
        ADD_FAILURE() << "stdout is not exactly one JSON document\n" << r;
        return json::object();
    }
    EXPECT_TRUE(r.out.ends_with("}\n")) << r;
    EXPECT_EQ(doc->value("exit_code", -1), r.exit_code) << r;
    const std::string violations = schema_violations(*doc, schema);
    EXPECT_EQ(violations, "") << schema << ".schema.json rejects the output of\n" << r;
    return *doc;
}

// ---------------------------------------------------------------------------
// Workspaces
// ---------------------------------------------------------------------------

class JsonSchemaE2E : public ::testing::Test {
protected:
    // Makes the temporary directory an initialized workspace (no AGENTS.md).
    void init_workspace() {
        const RunResult r = run_in(root(), {"init", "--no-agents"});
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    const fs::path& root() const { return tmp_.path(); }
    fs::path small_file(const std::string& name) const { return root() / ".small" / name; }

    // A plan whose owner is wrong: a schema error and an invariant (INV-P1).
    void break_plan() {
        const fs::path plan = small_file("plan.small.yml");
        std::string text = read_file(plan);
        text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
        write_file(plan, text);
    }

    // Runs `small ARGS --json` in the temporary directory; see expect_document.
    json expect_in(const std::vector<std::string>& args, const std::string& schema, int exit_code,
                   const Env& env = {}) {
        return expect_document(run_json(root(), args, env), schema, exit_code);
    }

private:
    TempDir tmp_;
};

// ---------------------------------------------------------------------------
// The schemas themselves
// ---------------------------------------------------------------------------

// The names of docs/json/*.schema.json ("progress-add", ...).
std::set<std::string> schema_names() {
    const std::string suffix = ".schema.json";
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(kSchemaDir)) {
        const std::string file = entry.path().filename().string();
        if (file.ends_with(suffix)) names.insert(file.substr(0, file.size() - suffix.size()));
    }
    return names;
}

TEST(JsonSchemas, EverySchemaCompiles) {
    const std::set<std::string> names = schema_names();
    for (const std::string& name : names) EXPECT_NO_THROW(schema_named(name)) << name;
    EXPECT_EQ(names.size(), 51u) << "one schema per command, plus the envelope, help and usage-error";
}

// Documents that break the envelope rules are rejected: the schemas can fail.
TEST(JsonSchemas, RejectInconsistentEnvelopes) {
    const json good = {{"schema_version", 1}, {"command", "version"}, {"ok", true}, {"exit_code", 0},
                       {"version", "v0.1.0"}, {"supported_spec_versions", {"1.0.0"}}};
    ASSERT_EQ(schema_violations(good, "version"), "");
    const json failure = {{"schema_version", 1}, {"command", "version"}, {"ok", false}, {"exit_code", 2},
                          {"error", {{"kind", "usage"}, {"message", "bad flag"}}}};
    ASSERT_EQ(schema_violations(failure, "version"), "");

    auto with = [](json doc, const std::string& key, const json& value) {
        if (value.is_null()) doc.erase(key);
        else doc[key] = value;
        return doc;
    };
    EXPECT_NE(schema_violations(with(good, "exit_code", 1), "version"), "") << "ok true with exit 1";
    EXPECT_NE(schema_violations(with(good, "command", "versions"), "version"), "") << "wrong command";
    EXPECT_NE(schema_violations(with(good, "version", nullptr), "version"), "") << "missing key";
    EXPECT_NE(schema_violations(with(good, "extra", 1), "version"), "") << "undocumented key";
    EXPECT_NE(schema_violations(with(good, "schema_version", 2), "version"), "") << "schema_version";
    EXPECT_NE(schema_violations(with(failure, "error", nullptr), "version"), "") << "failure without error";
    EXPECT_NE(schema_violations(with(failure, "exit_code", 1), "version"), "") << "usage error with exit 1";
    EXPECT_NE(schema_violations(with(failure, "ok", true), "version"), "") << "ok true with an error";
    EXPECT_NE(schema_violations(with(failure, "exit_code", 7), "version"), "") << "exit 7 outside D4";
    const json command_failed =
        with(with(failure, "exit_code", 7), "error", {{"kind", "command"}, {"message", "exit code 7"}});
    EXPECT_EQ(schema_violations(command_failed, "envelope"), "") << "apply's kind command may carry any code";
    EXPECT_NE(schema_violations(with(command_failed, "exit_code", 0), "envelope"), "") << "kind command with exit 0";
    const json finding = {{"rule", "SCHEMA"}, {"severity", "error"}, {"file", "f"},
                          {"line", 1},        {"column", 1},         {"message", "m"}};
    const json invalid = with(with(failure, "exit_code", 1), "error", {{"kind", "invalid"}, {"message", "m"}});
    EXPECT_EQ(schema_violations(with(invalid, "errors", json::array({finding})), "version"), "");
    EXPECT_NE(schema_violations(with(invalid, "errors", json::array({with(finding, "severity", nullptr)})), "version"),
              "")
        << "finding without severity";
    EXPECT_NE(schema_violations(with(invalid, "errors", json::array({finding, finding})), "version"), "")
        << "duplicate finding";
}

// The examples in docs/json.md satisfy the schema named in the comment
// before each, and every schema but the envelope has one.
TEST(JsonSchemas, DocumentationExamplesSatisfyTheirSchemas) {
    const std::string doc = read_file(kSchemaDir.parent_path() / "json.md");
    const std::regex example(R"(<!-- schema: ([a-z-]+) -->\s*```json\n([\s\S]*?)```)");
    std::set<std::string> shown = {"envelope"};
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), example); it != std::sregex_iterator(); ++it) {
        const std::string schema = (*it)[1].str();
        const std::optional<json> parsed = parse_single_json((*it)[2].str());
        ASSERT_TRUE(parsed) << "the " << schema << " example is not JSON";
        EXPECT_EQ(schema_violations(*parsed, schema), "") << "the " << schema << " example";
        shown.insert(schema);
    }
    EXPECT_EQ(shown, schema_names());
}

// ---------------------------------------------------------------------------
// Read-only commands
// ---------------------------------------------------------------------------

TEST_F(JsonSchemaE2E, Version) {
    expect_in({"version"}, "version", 0);
    expect_in({"--version"}, "version", 0);
    expect_in({"version", "--bogus"}, "version", 2);
}

TEST_F(JsonSchemaE2E, VerdictCommandsOnAValidWorkspace) {
    init_workspace();
    expect_in({"validate"}, "validate", 0);
    for (const char* command : {"lint", "verify", "check"}) expect_in({command, "--strict"}, command, 0);
}

TEST_F(JsonSchemaE2E, VerdictCommandsOnAnInvalidWorkspace) {
    init_workspace();
    break_plan();
    expect_in({"validate"}, "validate", 1);
    expect_in({"lint"}, "lint", 1);
    expect_in({"verify"}, "verify", 1);
    const json check = expect_in({"check", "--strict"}, "check", 1);
    EXPECT_EQ(check["validate"]["status"], "failed") << check.dump(2);
}

TEST_F(JsonSchemaE2E, VerdictCommandsWithoutAWorkspace) {
    for (const char* command : {"validate", "lint", "verify", "check"}) {
        expect_in({command}, command, 2);
        expect_in({command, "--workspace", "nowhere"}, command, 2);
    }
}

TEST_F(JsonSchemaE2E, Selftest) {
    const Env tmp = {{"TMPDIR", root().string()}};
    expect_in({"selftest"}, "selftest", 0, tmp);
    expect_in({"selftest", "--dir", "kept", "--keep"}, "selftest", 0, tmp);
    expect_in({"selftest", "--dir", "kept"}, "selftest", 1, tmp);  // not empty now: refused
    expect_in({"selftest", "--workspace", "examples"}, "selftest", 2, tmp);
    const json failed = expect_in({"selftest"}, "selftest", 1, {{"TMPDIR", root().string()}, {"SMALL_SPEC_DIR", "/nonexistent"}});
    EXPECT_EQ(failed.value("failed_step", ""), "verify") << failed.dump(2);
}

TEST_F(JsonSchemaE2E, Completion) {
    for (const char* shell : {"bash", "zsh", "fish"}) expect_in({"completion", shell}, "completion", 0);
    expect_in({"completion", "fish", "--no-descriptions"}, "completion", 0);
    expect_in({"completion", "tcsh"}, "completion", 2);
}

TEST_F(JsonSchemaE2E, ReplayId) {
    expect_in({"replay-id"}, "replay-id", 2);
    init_workspace();
    expect_in({"replay-id"}, "replay-id", 0);
    write_file(small_file("plan.small.yml"), "tasks: [\n");
    const json doc = expect_in({"replay-id"}, "replay-id", 1);
    EXPECT_EQ(doc["errors"][0]["file"], ".small/plan.small.yml") << doc.dump(2);
}

// ---------------------------------------------------------------------------
// Writing commands
// ---------------------------------------------------------------------------

TEST_F(JsonSchemaE2E, Init) {
    expect_in({"init", "--intent", "Ship it"}, "init", 0);
    expect_in({"init"}, "init", 1);
    expect_in({"init", "--force", "--no-agents"}, "init", 0);
    expect_in({"init", "--agents-mode", "sideways"}, "init", 2);
}

TEST_F(JsonSchemaE2E, Plan) {
    init_workspace();
    const json added = expect_in({"plan", "--add", "Write the docs"}, "plan", 0);
    EXPECT_EQ(added.value("added_task_id", ""), "task-2") << added.dump(2);
    expect_in({"plan", "--done", "task-9"}, "plan", 1);
    expect_in({"plan", "--reset"}, "plan", 1);  // no answer on stdin: refused
    expect_document(run_json(root(), {"plan", "--reset"}, {}, "n\n"), "plan", 0);  // declined
    expect_in({"plan", "--reset", "--yes"}, "plan", 0);
    expect_in({"plan", "--workspace", "examples"}, "plan", 1);  // a scope this command refuses
}

TEST_F(JsonSchemaE2E, ProgressAdd) {
    init_workspace();
    expect_in({"progress", "add", "--task", "task-1", "--status", "in_progress", "--commit", "1a2b3c4"},
              "progress-add", 0);
    expect_in({"progress", "add", "--task", "meta/note", "--status", "completed"}, "progress-add", 0);
    expect_in({"progress", "add", "--task", "task-9", "--status", "completed"}, "progress-add", 1);
    expect_in({"progress", "add", "--task", "task-1", "--status", "done"}, "progress-add", 2);
    expect_in({"progress", "add", "--status", "completed"}, "progress-add", 2);
}

TEST_F(JsonSchemaE2E, PlanShow) {
    expect_in({"plan", "show"}, "plan-show", 2);  // no workspace
    init_workspace();
    ASSERT_EQ(run_in(root(), {"plan", "--add", "Second"}).exit_code, 0);
    ASSERT_EQ(run_in(root(), {"plan", "--depends", "task-2:task-1"}).exit_code, 0);
    const json all = expect_in({"plan", "show"}, "plan-show", 0);
    EXPECT_EQ(all["tasks"].size(), 2u) << all.dump(2);
    const json one = expect_in({"plan", "show", "task-2", "--limit", "1"}, "plan-show", 0);
    EXPECT_EQ(one["more_entries"], true) << one.dump(2);
    expect_in({"plan", "show", "task-9"}, "plan-show", 1);
    expect_in({"plan", "show", "--limit", "x"}, "plan-show", 2);
}

TEST_F(JsonSchemaE2E, ProgressList) {
    expect_in({"progress", "list"}, "progress-list", 2);  // no workspace
    init_workspace();
    const json doc = expect_in({"progress", "list", "--limit", "0"}, "progress-list", 0);
    EXPECT_FALSE(doc["entries"].empty()) << doc.dump(2);
    expect_in({"progress", "list", "--task", "task-1", "--status", "pending"}, "progress-list", 0);
    expect_in({"progress", "list", "--since", "yesterday"}, "progress-list", 2);
}

TEST_F(JsonSchemaE2E, Status) {
    const json missing = expect_in({"status"}, "status", 0);  // no workspace: a report that says so
    EXPECT_EQ(missing["small_dir_exists"], false) << missing.dump(2);
    init_workspace();
    const json doc = expect_in({"status", "--recent", "0", "--tasks", "0"}, "status", 0);
    EXPECT_EQ(doc["small_dir_exists"], true) << doc.dump(2);
    expect_in({"status"}, "status", 0, {{"SMALL_PROGRESS_MODE", "audit"}});
    write_file(small_file("handoff.small.yml"), "resume: [\n");
    const json broken = expect_in({"status"}, "status", 0);
    EXPECT_EQ(broken["warnings"].size(), 1u) << broken.dump(2);
    expect_in({"status", "--recent", "abc"}, "usage-error", 2);
}

TEST_F(JsonSchemaE2E, StatusBrief) {
    const json missing = expect_in({"status", "--brief"}, "status-brief", 0);  // no workspace: the init primer
    EXPECT_EQ(missing["next_command"], "small init --intent \"<what this run is for>\"") << missing.dump(2);
    init_workspace();
    const json doc = expect_in({"status", "--brief"}, "status-brief", 0);
    EXPECT_LE(doc["bytes"].get<std::size_t>(), 2000u) << doc.dump(2);
    EXPECT_EQ(doc["bytes"], doc["text"].get<std::string>().size()) << doc.dump(2);
    const json cut = expect_in({"status", "--brief", "--max-bytes", "256"}, "status-brief", 0);
    EXPECT_LE(cut["bytes"].get<std::size_t>(), 256u) << cut.dump(2);
    expect_in({"status", "--brief", "--max-bytes", "100"}, "usage-error", 2);
    expect_in({"status", "--max-bytes", "500"}, "usage-error", 2);
}

TEST_F(JsonSchemaE2E, StatusAll) {
    init_workspace();
    expect_in({"status", "--all"}, "status-all", 2);  // not a git repository
    RunOptions git;
    git.cwd = root();
    git.program = "/usr/bin/git";
    if (!fs::exists(*git.program)) GTEST_SKIP() << "git is not installed";
    ASSERT_EQ(run_small({"init", "-q", "-b", "main"}, git).exit_code, 0);
    const json doc = expect_in({"status", "--all"}, "status-all", 0);
    EXPECT_EQ(doc["sides"][0]["name"], "main") << doc.dump(2);
    EXPECT_EQ(doc["sides"][0]["current"], true) << doc.dump(2);
}

TEST_F(JsonSchemaE2E, Emit) {
    expect_in({"emit"}, "emit", 2);  // no workspace
    init_workspace();
    expect_in({"emit"}, "emit", 0);
    const json all = expect_in({"emit", "--include", "paths,status,progress,intent,constraints,plan,enforcement"},
                               "emit", 0);
    EXPECT_TRUE(all.contains("enforcement")) << all.dump(2);
    expect_in({"emit", "--check"}, "emit", 0);
    expect_in({"emit", "--include", "../plan"}, "emit", 2);
    expect_in({"emit", "--workspace", "examples"}, "emit", 1);
    break_plan();
    const json failed = expect_in({"emit", "--check", "--include", "status"}, "emit", 1);
    EXPECT_EQ(failed["enforcement"]["validate"]["status"], "failed") << failed.dump(2);
}

TEST_F(JsonSchemaE2E, Doctor) {
    expect_in({"doctor"}, "doctor", 2);  // no workspace
    init_workspace();
    expect_in({"doctor"}, "doctor", 0);
    fs::create_directories(root() / ".small" / "runs");
    const json warned = expect_in({"doctor"}, "doctor", 0);
    EXPECT_EQ(warned["summary"]["warnings"], 1) << warned.dump(2);
    break_plan();
    expect_in({"doctor"}, "doctor", 1);
}

TEST_F(JsonSchemaE2E, ProgressMigrate) {
    expect_in({"progress", "migrate"}, "progress-migrate", 2);
    init_workspace();
    expect_in({"progress", "migrate", "--dry-run"}, "progress-migrate", 0);
    expect_in({"progress", "migrate"}, "progress-migrate", 0);
}

TEST_F(JsonSchemaE2E, Checkpoint) {
    init_workspace();
    expect_in({"checkpoint", "--task", "task-1", "--status", "completed"}, "checkpoint", 0);
    expect_in({"checkpoint", "--task", "task-9", "--status", "completed"}, "checkpoint", 1);
    expect_in({"checkpoint", "--task", "task-1", "--status", "pending"}, "checkpoint", 2);
}

TEST_F(JsonSchemaE2E, ReadyClaimReleaseClaims) {
    expect_in({"ready"}, "ready", 2);  // no workspace
    init_workspace();
    expect_in({"ready"}, "ready", 0);
    expect_in({"claim", "task-1", "--agent", "a"}, "claim", 0);
    expect_in({"claim", "task-1", "--agent", "b"}, "claim", 1);  // held by a
    expect_in({"claim", "--ttl", "soon", "task-1"}, "claim", 2);
    expect_in({"ready", "--agent", "a"}, "ready", 0);
    expect_in({"claims"}, "claims", 0);
    expect_in({"release", "task-1", "--agent", "a"}, "release", 0);
    expect_in({"release", "task-1", "--agent", "a"}, "release", 1);  // nothing left
}

TEST_F(JsonSchemaE2E, Handoff) {
    init_workspace();
    ASSERT_EQ(run_in(root(), {"progress", "add", "--task", "task-1", "--status", "in_progress"}).exit_code, 0);
    const json doc = expect_in({"handoff"}, "handoff", 0);
    EXPECT_EQ(doc["unsettled_tasks"].size(), 1u) << doc.dump(2);
    expect_in({"handoff", "--require-settled"}, "handoff", 1);
    expect_in({"handoff", "--replay-id", std::string(64, 'a')}, "handoff", 0);
    expect_in({"handoff", "--replay-id", "xyz"}, "handoff", 2);
}

TEST_F(JsonSchemaE2E, Start) {
    expect_in({"start"}, "start", 2);
    {
        TempDir fresh;  // --workspace any creates .small/ and the .gitignore lines
        const json created = expect_document(run_json(fresh.path(), {"start", "--workspace", "any"}), "start", 0);
        EXPECT_TRUE(created.contains("gitignore")) << created.dump(2);
    }
    init_workspace();
    expect_in({"start"}, "start", 0);
    break_plan();
    const json doc = expect_in({"start"}, "start", 1);
    EXPECT_EQ(doc["check"]["validate"]["status"], "failed") << doc.dump(2);
}

TEST_F(JsonSchemaE2E, Reset) {
    expect_in({"reset", "--yes"}, "reset", 2);
    init_workspace();
    expect_in({"reset"}, "reset", 1);  // no answer on stdin: refused
    expect_document(run_json(root(), {"reset"}, {}, "n\n"), "reset", 0);  // declined
    expect_in({"reset", "--yes"}, "reset", 0);
}

TEST_F(JsonSchemaE2E, Draft) {
    init_workspace();
    const std::string intent = read_file(small_file("intent.small.yml"));
    expect_document(run_json(root(), {"draft", "intent", "--from", "-"}, {}, intent), "draft", 0);
    const json warned =
        expect_document(run_json(root(), {"draft", "constraints", "--from", "-"}, {}, "owner: nobody\n"), "draft", 0);
    EXPECT_EQ(warned["acceptable"], false) << warned.dump(2);
    expect_document(run_json(root(), {"draft", "intent", "--from", "-"}, {}, ""), "draft", 1);
    expect_in({"draft", "intent", "--from", "missing.yml"}, "draft", 2);
    expect_in({"draft", "intent"}, "draft", 2);
    expect_in({"draft", "bogus"}, "draft", 2);
}

TEST_F(JsonSchemaE2E, Accept) {
    expect_in({"accept", "intent"}, "accept", 2);
    init_workspace();
    const std::string intent = read_file(small_file("intent.small.yml"));
    ASSERT_EQ(run_with_input(root(), {"draft", "intent", "--from", "-"}, intent).exit_code, 0);
    expect_in({"accept", "intent"}, "accept", 0);
    ASSERT_EQ(run_with_input(root(), {"draft", "constraints", "--from", "-"}, "owner: nobody\n").exit_code, 0);
    const json refused = expect_in({"accept", "constraints"}, "accept", 1);
    EXPECT_FALSE(refused["errors"].empty()) << refused.dump(2);
    expect_in({"accept", "bogus"}, "accept", 2);
}

// ---------------------------------------------------------------------------
// agents, help and usage errors
// ---------------------------------------------------------------------------

TEST_F(JsonSchemaE2E, AgentsApply) {
    expect_in({"agents", "apply", "--dry-run"}, "agents-apply", 0);
    expect_in({"agents", "apply", "--print"}, "agents-apply", 0);
    expect_in({"agents", "apply"}, "agents-apply", 0);
    expect_in({"agents", "apply"}, "agents-apply", 0);  // already current: nothing written
    write_file(root() / "OTHER.md", "# notes\n");
    expect_in({"agents", "apply", "--file", "OTHER.md"}, "agents-apply", 1);
    expect_in({"agents", "apply", "--agents-mode", "sideways"}, "agents-apply", 2);
}

TEST_F(JsonSchemaE2E, Hooks) {
    expect_in({"hooks", "print", "claude"}, "hooks", 0);
    expect_in({"hooks", "install", "claude", "--dry-run"}, "hooks", 0);
    expect_in({"hooks", "install", "codex"}, "hooks", 0);
    expect_in({"hooks", "uninstall", "codex"}, "hooks", 0);
    expect_in({"hooks", "install", "git"}, "hooks", 2);  // not a git repository
    expect_in({"hooks", "install", "vim"}, "hooks", 2);
    expect_in({"hooks", "install", "vscode"}, "hooks", 0);
    expect_in({"hooks", "print", "vscode"}, "hooks", 0);
    expect_in({"hooks", "uninstall", "vscode"}, "hooks", 0);
    write_file(root() / ".claude" / "settings.json", "{oops");
    expect_in({"hooks", "install", "claude"}, "hooks", 1);
}

TEST_F(JsonSchemaE2E, Schema) {
    expect_in({"schema", "print", "plan"}, "schema-print", 0);
    expect_in({"schema", "print", "nope"}, "schema-print", 2);
    expect_in({"schema", "export", "out"}, "schema-export", 0);
    expect_in({"schema", "export", "out"}, "schema-export", 0);
    write_file(root() / "out" / "plan.schema.json", "{}");
    expect_in({"schema", "export", "out"}, "schema-export", 1);
}

TEST_F(JsonSchemaE2E, GraphAndBoard) {
    expect_in({"graph"}, "graph", 2);
    expect_in({"board"}, "board", 2);
    init_workspace();
    expect_in({"graph"}, "graph", 0);
    expect_in({"board"}, "board", 0);
    write_file(small_file("plan.small.yml"), "tasks: [\n");
    expect_in({"graph"}, "graph", 1);
    expect_in({"board"}, "board", 1);
}

TEST_F(JsonSchemaE2E, Report) {
    expect_in({"report", "--html", "-o", "r.html"}, "report", 2);  // no workspace
    init_workspace();
    const json doc = expect_in({"report", "--html", "-o", "r.html"}, "report", 0);
    EXPECT_EQ(doc["tasks"], 1) << doc.dump(2);
    expect_in({"report", "--html"}, "report", 2);  // --json needs -o
    expect_in({"report", "-o", "r.html"}, "report", 2);  // --html missing
    expect_in({"report", "--html", "-o", ".small/r.html"}, "report", 1);  // inside .small/
}

TEST_F(JsonSchemaE2E, Merge) {
    const std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n";
    const std::string entry = "  - timestamp: \"2025-01-01T00:00:01.000000000Z\"\n    task_id: \"meta/x\"\n"
                              "    status: \"completed\"\n    evidence: \"e\"\n";
    write_file(root() / "o", log);
    write_file(root() / "a", "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n" + entry);
    write_file(root() / "b", log);
    expect_in({"merge", "o", "a", "b", ".small/progress.small.yml"}, "merge", 0);
    write_file(root() / "x", "o\n");
    write_file(root() / "y", "y\n");
    write_file(root() / "z", "z\n");
    expect_in({"merge", "x", "y", "z", ".small/intent.small.yml"}, "merge", 1);  // a conflict
    expect_in({"merge", "o", "a", "missing", ".small/plan.small.yml"}, "merge", 2);
    write_file(root() / "bad", "entries: [\n");
    expect_in({"merge", "o", "bad", "b", ".small/progress.small.yml"}, "merge", 1);
}

TEST_F(JsonSchemaE2E, AgentsCheck) {
    expect_in({"agents", "check"}, "agents-check", 1);
    expect_in({"agents", "check", "--allow-missing"}, "agents-check", 0);
    ASSERT_EQ(run_in(root(), {"agents", "apply"}).exit_code, 0);
    expect_in({"agents", "check", "--strict"}, "agents-check", 0);
    expect_document(run_in(root(), {"agents", "check", "--format", "json"}), "agents-check", 0);
    expect_in({"agents", "check", "--format", "yaml"}, "agents-check", 2);
}

TEST_F(JsonSchemaE2E, AgentsPrint) {
    expect_in({"agents", "print"}, "agents-print", 0);
    expect_in({"agents", "print", "--format", "plain"}, "agents-print", 0);
    expect_in({"agents", "print", "--format", "plain", "--with-markers"}, "agents-print", 2);
}

TEST_F(JsonSchemaE2E, RunAndArchive) {
    init_workspace();
    ASSERT_EQ(run_in(root(), {"handoff", "--summary", "Schema run"}).exit_code, 0);
    const json snap = expect_in({"run", "snapshot"}, "run-snapshot", 0);
    const std::string id = snap.value("replayId", "");
    expect_in({"run", "snapshot"}, "run-snapshot", 1);
    expect_in({"run", "snapshot", "--force"}, "run-snapshot", 0);
    expect_in({"run", "list"}, "run-list", 0);
    expect_in({"run", "show", id}, "run-show", 0);
    expect_in({"run", "show", "../x"}, "run-show", 2);
    expect_in({"run", "diff", id, id, "--full"}, "run-diff", 0);
    expect_in({"run", "checkout", id}, "run-checkout", 0);
    const json archived = expect_in({"archive"}, "archive", 0);
    expect_in({"archive", "--verify", archived.value("dir", "")}, "archive", 0);
    write_file(fs::path(archived.value("dir", "")) / "extra.txt", "x");
    expect_in({"archive", "--verify", archived.value("dir", "")}, "archive", 1);
    expect_in({"archive", "--include", "../x"}, "archive", 2);
}

TEST_F(JsonSchemaE2E, Help) {
    expect_in({"help"}, "help", 0);
    expect_in({"help", "progress", "add"}, "help", 0);
    expect_in({"help", "nope"}, "help", 2);
    expect_in({"--help"}, "help", 0);
    const json sub = expect_in({"agents", "check", "--help"}, "help", 0);
    EXPECT_EQ(sub["command"], "agents check") << sub.dump(2);
}

TEST_F(JsonSchemaE2E, UsageErrors) {
    expect_in({}, "usage-error", 2);
    const json unknown = expect_in({"nosuch"}, "usage-error", 2);
    EXPECT_EQ(unknown["command"], "small") << unknown.dump(2);
    for (const char* group : {"progress", "agents", "draft", "accept"}) {
        const json doc = expect_in({group}, "usage-error", 2);
        EXPECT_EQ(doc["command"], group) << doc.dump(2);
    }
}

// A held workspace lock: every writing command reports busy (exit 3).
TEST_F(JsonSchemaE2E, BusyLock) {
    init_workspace();
    fs::create_directories(root() / ".small-cache");
    const int fd = ::open((root() / ".small-cache" / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "50"}};
    const std::vector<std::pair<std::vector<std::string>, std::string>> writes = {
        {{"plan", "--add", "x"}, "plan"},
        {{"progress", "add", "--task", "task-1", "--status", "completed"}, "progress-add"},
        {{"progress", "migrate"}, "progress-migrate"},
        {{"checkpoint", "--task", "task-1", "--status", "completed"}, "checkpoint"},
        {{"handoff"}, "handoff"},
        {{"start"}, "start"},
        {{"reset", "--yes"}, "reset"},
        {{"init", "--force"}, "init"},
        {{"agents", "apply"}, "agents-apply"},
        {{"fix", "--all"}, "fix"},
        {{"fix", "workspace"}, "fix"},
    };
    for (const auto& [args, schema] : writes) {
        const json doc = expect_in(args, schema, 3, env);
        EXPECT_EQ(doc["error"]["kind"], "busy") << doc.dump(2);
    }
    ::close(fd);
}

// small apply: success, a failed command (its own exit code), dry runs,
// refusals before anything runs, a busy lock.
TEST_F(JsonSchemaE2E, Apply) {
    init_workspace();
    const json ok = expect_in({"apply", "--cmd", "echo hi", "--task", "task-1"}, "apply", 0);
    EXPECT_EQ(ok["run"]["status"], "completed") << ok.dump(2);
    EXPECT_EQ(ok["entries"].size(), 1u) << ok.dump(2);
    const json failed = expect_in({"apply", "--cmd", "exit 7", "--task", "task-1", "--auto-checkpoint"}, "apply", 7);
    EXPECT_EQ(failed["error"]["kind"], "command") << failed.dump(2);
    EXPECT_EQ(failed["checkpointed"], true) << failed.dump(2);
    const json audit = expect_in({"apply", "--cmd", "true"}, "apply", 0, {{"SMALL_PROGRESS_MODE", "audit"}});
    EXPECT_EQ(audit["entries"].size(), 2u) << audit.dump(2);
    const json dry = expect_in({"apply", "--cmd", "true", "--task", "task-1", "--dry-run"}, "apply", 0);
    EXPECT_EQ(dry["run"], nullptr) << dry.dump(2);
    expect_in({"apply"}, "apply", 0);
    expect_in({"apply", "--cmd", "true", "--auto-checkpoint"}, "apply", 2);
    expect_in({"apply", "--cmd", "true", "--task", "task-99"}, "apply", 1);
    expect_in({"apply", "--cmd", "kill -TERM $$", "--task", "task-1"}, "apply", 143);
    fs::create_directories(root() / ".small-cache");
    const int fd = ::open((root() / ".small-cache" / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    const json busy = expect_in({"apply", "--cmd", "true", "--task", "task-1"}, "apply", 3,
                                {{"SMALL_LOCK_TIMEOUT_MS", "50"}});
    EXPECT_EQ(busy["error"]["kind"], "busy") << busy.dump(2);
    ::close(fd);
}

// fix and fix workspace: dry run, a real repair with a backup, nothing to do, a refusal.
TEST_F(JsonSchemaE2E, Fix) {
    init_workspace();
    const fs::path plan = small_file("plan.small.yml");
    std::string text = read_file(plan);
    text.replace(text.find("small_version: \"1.0.0\""), 22, "small_version: 1.0.0");
    write_file(plan, text);
    const json dry = expect_in({"fix", "--all", "--orphan-progress", "--dry-run"}, "fix", 0);
    EXPECT_EQ(dry["rewritten"], json::array({".small/plan.small.yml"})) << dry.dump(2);
    const json done = expect_in({"fix", "--versions"}, "fix", 0);
    EXPECT_TRUE(done["backup_dir"].is_string()) << done.dump(2);
    EXPECT_EQ(done["versions"]["changes"][0]["before"], "1.0.0") << done.dump(2);
    const json nothing = expect_in({"fix", "--all", "--orphan-progress"}, "fix", 0);
    EXPECT_FALSE(nothing["changed"].get<bool>()) << nothing.dump(2);
    const json ws = expect_in({"fix", "workspace", "--force"}, "fix", 0);
    EXPECT_EQ(ws["command"], "fix workspace") << ws.dump(2);
    expect_in({"fix"}, "fix", 2);
    expect_in({"fix", "workspace", "--kind", "bogus"}, "fix", 2);
}

}  // namespace
