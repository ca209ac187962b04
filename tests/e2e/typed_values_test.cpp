// Issue 41, point 1: every value a user types reaches the file exactly.
// A property test: values drawn from what YAML and CLI parsers treat
// specially ("[a,b]" read as a list by CLI11, "{x}", "- x", "#", ": ",
// anchors, aliases, tags, leading and trailing spaces, unicode, 10 KB) go
// through every command and MCP tool that takes a title, a step, an
// acceptance criterion, evidence, notes (a blocked task's reason), a summary
// or a next step, and are read back equal (plan and progress through `emit
// --json`, which parses the files; the handoff from its file).
#include <random>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

const std::vector<std::string> kFragments = {
    "[a,b]", "[draft]", "{x}", "{a: 1}", "- x", "-", "--", "-x", "--add", "#", "a # b", ": ", "k: v", "&a", "*a",
    "!!str", "!tag", "  lead", "trail  ", " both ", "'q'", "\"dq\"", "\\", "%t", "@a", "`b`", "|", ">", "~", "null",
    "true", "no", "123", "0x1F", "1e3", "---", "...", "?", ",", "[", "]", "{", "}", "ünïcødé ✓ 日本語 🙂", "é\u0301"};

// The fragments alone, then random joins of two to four of them (a fixed
// seed: a failure names its value), then 10 KB.
std::vector<std::string> values() {
    std::vector<std::string> out = kFragments;
    std::mt19937 rng(41);
    std::uniform_int_distribution<std::size_t> pick(0, kFragments.size() - 1), len(2, 4);
    const char* joins[] = {"", " ", ",", ": ", " # "};
    for (int i = 0; i < 40; ++i) {
        std::string v;
        const std::size_t n = len(rng);
        for (std::size_t k = 0; k < n; ++k) v += (k ? joins[rng() % 5] : "") + kFragments[pick(rng)];
        out.push_back(v);
    }
    std::string big;
    while (big.size() < 10 * 1024) big += kFragments[pick(rng)] + " ";
    out.push_back(big);
    return out;
}

class TypedValues : public ::testing::Test {
protected:
    void SetUp() override {
        ok({"init", "--no-agents", "--intent", "Keep what is typed"});
        ok({"plan", "--add", "Second", "--add", "Third"});
    }
    RunResult small(const std::vector<std::string>& args) { return run_in(tmp_.path(), args); }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    json emitted() {
        const RunResult r = small({"emit", "--json", "--include", "plan,progress", "--recent", "0"});
        EXPECT_EQ(r.exit_code, 0) << r;
        return json::parse(r.out, nullptr, false);
    }
    json task(const std::string& id) {
        const json doc = emitted();
        for (const json& t : doc["plan"]["tasks"]) {
            if (t["id"] == id) return t;
        }
        ADD_FAILURE() << "no task " << id;
        return json::object();
    }
    json last_task() { return emitted()["plan"]["tasks"].back(); }
    json last_entry(const std::string& task) {
        json found;
        const json doc = emitted();
        for (const json& e : doc["progress"]["entries"]) {
            if (e["task_id"] == task) found = e;
        }
        return found;
    }
    // handoff.small.yml's top-level `summary` or the last of `next_steps`,
    // written as a double-quoted scalar (house style); JSON reads it.
    std::string handoff_value(const std::string& key) {
        const std::string text = read_file(tmp_.path() / ".small/handoff.small.yml");
        std::string found;
        std::size_t at = 0;
        while ((at = text.find(key, at)) != std::string::npos) {
            const std::size_t quote = at + key.size();
            const std::size_t eol = text.find('\n', quote);
            const json v = json::parse(text.substr(quote, eol - quote), nullptr, false);
            EXPECT_TRUE(v.is_string()) << "not one double-quoted line: " << text.substr(at, eol - at);
            if (v.is_string()) found = v.get<std::string>();
            at = eol;
        }
        return found;
    }
    RunResult mcp(const std::vector<json>& calls) {
        RunOptions opts;
        opts.cwd = tmp_.path();
        opts.stdin_text = mcp_session(calls);
        const RunResult r = run_small({"mcp"}, opts);
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_FALSE(contains(r.out, "\"isError\":true")) << r.out.substr(0, 2000);
        return r;
    }

    TempDir tmp_;
};

TEST_F(TypedValues, EveryCommandWritesTheValueAsTyped) {
    for (const std::string& v : values()) {
        SCOPED_TRACE("value: [" + v.substr(0, 200) + "]");
        if (HasFailure()) return;  // one failing value is enough to read (10 KB values are long)
        // plan --add alone (the cached append) and beside another edit (the general path).
        ok({"plan", "--add=" + v});
        EXPECT_EQ(last_task()["title"], v);
        ok({"plan", "--add=" + v, "--pending", "task-1"});
        EXPECT_EQ(last_task()["title"], v);
        // --title takes two words, so a title that starts with '-' would read as a flag (the MCP tool takes it).
        if (v[0] != '-') {
            ok({"plan", "--title", "task-2", v});
            EXPECT_EQ(task("task-2")["title"], v);
        }
        ok({"plan", "--step=task-2: " + v, "--acceptance=task-2: " + v});
        EXPECT_EQ(task("task-2")["steps"].back(), v);
        EXPECT_EQ(task("task-2")["acceptance"].back(), v);
        ok({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence=" + v, "--notes=" + v,
            "--verification=" + v, "--command=" + v, "--test=" + v});
        const json e = last_entry("task-1");
        for (const char* field : {"evidence", "notes", "verification", "command", "test"}) EXPECT_EQ(e[field], v) << field;
        ok({"checkpoint", "--task", "task-3", "--status", "blocked", "--evidence=" + v, "--notes=" + v});
        EXPECT_EQ(last_entry("task-3")["notes"], v);
        EXPECT_EQ(last_entry("task-3")["evidence"], v);
        ok({"plan", "--in-progress", "task-3"});
        ok({"handoff", "--summary=" + v, "--next=" + v});
        EXPECT_EQ(handoff_value("\nsummary: "), v);
        EXPECT_EQ(handoff_value("\n    - "), v);
    }
    ok({"check", "--strict"});
}

TEST_F(TypedValues, EveryMcpToolWritesTheValueAsTyped) {
    for (const std::string& v : values()) {
        SCOPED_TRACE("value: [" + v.substr(0, 200) + "]");
        if (HasFailure()) return;  // one failing value is enough to read (10 KB values are long)
        mcp({{{"name", "plan"}, {"arguments", {{"add", v}}}}});
        EXPECT_EQ(last_task()["title"], v);
        mcp({{{"name", "plan"}, {"arguments", {{"task", "task-2"}, {"title", v}}}}});
        EXPECT_EQ(task("task-2")["title"], v);
        mcp({{{"name", "progress_add"},
              {"arguments", {{"task", "task-1"}, {"status", "in_progress"}, {"evidence", v}, {"notes", v}}}}});
        EXPECT_EQ(last_entry("task-1")["evidence"], v);
        EXPECT_EQ(last_entry("task-1")["notes"], v);
        mcp({{{"name", "checkpoint"},
              {"arguments", {{"task", "task-3"}, {"status", "blocked"}, {"evidence", v}, {"notes", v}}}}});
        EXPECT_EQ(last_entry("task-3")["notes"], v);
        ok({"plan", "--in-progress", "task-3"});
        mcp({{{"name", "handoff"}, {"arguments", {{"summary", v}}}}});
        EXPECT_EQ(handoff_value("\nsummary: "), v);
    }
    ok({"check", "--strict"});
}

// The cases the issue names, each alone (a failure here is the bug itself).
TEST_F(TypedValues, AListLookingTitleIsOneTaskWithThatTitle) {
    ok({"plan", "--add", "[a,b]"});
    EXPECT_EQ(last_task()["title"], "[a,b]");
    EXPECT_EQ(emitted()["plan"]["tasks"].size(), 4u);
    ok({"plan", "--add", "[draft]"});
    EXPECT_EQ(last_task()["title"], "[draft]");
    ok({"plan", "--title", "task-1", "[draft]"});
    EXPECT_EQ(task("task-1")["title"], "[draft]");
}

}  // namespace
}  // namespace small_e2e
