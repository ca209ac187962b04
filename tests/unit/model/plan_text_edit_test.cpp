// model/plan_text_edit (D20): a plan write changes only the bytes of what
// it changes. Cases for each kind of edit, then a property test: random
// plans (comments everywhere, mixed quoting, flow and block lists, CRLF,
// odd indentation) x random edits; the edited text must read back as the
// new plan, and lines outside the edit must stay byte for byte.
#include "small/model/plan_text_edit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <functional>
#include <random>

#include "small/doc/yaml.hpp"

namespace small {
namespace {

const std::string kPlan =
    "# The plan for the greeter.\n"
    "small_version: \"1.0.0\"\n"
    "owner: agent   # agents own this file\n"
    "\n"
    "tasks:\n"
    "  # Parsing first.\n"
    "  - id: task-1\n"
    "    title: 'Parse the flag'\n"
    "    status: pending   # rename later\n"
    "    depends_on: []\n"
    "\n"
    "  - id: task-2\n"
    "    title: Print it\n"
    "    status: pending\n"
    "    depends_on: [task-1]\n"
    "    steps:\n"
    "      - write the printer\n"
    "\n"
    "# trailing words\n";

Document parse(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "plan");
    EXPECT_TRUE(doc) << doc.error().describe();
    return doc ? std::move(*doc) : Document();
}

// The plan after `change`, edited in place (the test fails when it could not be).
std::string edited(const std::string& text, const std::function<void(YamlValue&)>& change) {
    const Document doc = parse(text);
    YamlValue plan = to_yaml_value(doc.root());
    change(plan);
    const PlanTextEdit e = edit_plan_text(doc, plan);
    EXPECT_TRUE(e.text) << e.why << " (line " << e.line << ")";
    return e.text.value_or("");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(PlanTextEdit, AStatusChangeTouchesOnlyItsValueAndKeepsItsStyle) {
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][0]["status"] = "completed"; }),
              replaced(kPlan, "status: pending   # rename later", "status: completed   # rename later"));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][0]["title"] = "Parse it's flag"; }),
              replaced(kPlan, "title: 'Parse the flag'", "title: \"Parse it's flag\""));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][1]["title"] = "Print: now"; }),
              replaced(kPlan, "title: Print it", "title: \"Print: now\""))
        << "plain where plain re-reads the same, else quoted";
}

TEST(PlanTextEdit, ListItemsAreAppendedOrDroppedInTheirOwnStyle) {
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][1]["steps"].push_back("test it"); }),
              replaced(kPlan, "      - write the printer\n", "      - write the printer\n      - test it\n"));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][0]["depends_on"].push_back("task-9"); }),
              replaced(kPlan, "depends_on: []", "depends_on: [\"task-9\"]"));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][1]["depends_on"] = YamlValue::array(); }),
              replaced(kPlan, "depends_on: [task-1]", "depends_on: []"));
}

TEST(PlanTextEdit, ANewFieldFollowsTheTasksOtherFields) {
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][0]["priority"] = 1; }),
              replaced(kPlan, "    depends_on: []\n", "    depends_on: []\n    priority: 1\n"));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][0]["acceptance"] = YamlValue::array({"it parses"}); }),
              replaced(kPlan, "    depends_on: []\n", "    depends_on: []\n    acceptance: ['it parses']\n"))
        << "the task's lists are flow, its strings single-quoted";
}

TEST(PlanTextEdit, ARemovedFieldTakesItsLines) {
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][1].erase("depends_on"); }),
              replaced(kPlan, "    depends_on: [task-1]\n", ""));
    EXPECT_EQ(edited(kPlan, [](YamlValue& p) { p["tasks"][1].erase("steps"); }),
              replaced(kPlan, "    steps:\n      - write the printer\n", ""));
}

TEST(PlanTextEdit, ANewTaskIsShapedAndSpacedLikeTheLastOne) {
    const std::string out = edited(kPlan, [](YamlValue& p) {
        YamlValue t = YamlValue::object();
        t["id"] = "task-3";
        t["title"] = "Ship";
        t["status"] = "pending";
        p["tasks"].push_back(t);
    });
    EXPECT_EQ(out, replaced(kPlan, "      - write the printer\n\n# trailing",
                            "      - write the printer\n\n  - id: task-3\n    title: Ship\n    status: pending\n\n# trailing"));
}

TEST(PlanTextEdit, ARemovedTaskTakesItsCommentLinesAndNothingElse) {
    const std::string out = edited(kPlan, [](YamlValue& p) { p["tasks"].erase(0); });
    EXPECT_EQ(out, replaced(kPlan,
                            "  # Parsing first.\n  - id: task-1\n    title: 'Parse the flag'\n"
                            "    status: pending   # rename later\n    depends_on: []\n\n",
                            ""));
    const std::string last = edited(kPlan, [](YamlValue& p) { p["tasks"].erase(1); });
    EXPECT_EQ(last, replaced(kPlan,
                             "\n  - id: task-2\n    title: Print it\n    status: pending\n    depends_on: [task-1]\n"
                             "    steps:\n      - write the printer\n",
                             ""));
}

// Found by a second read: a comment indented as a task's fields belongs to
// that task, whatever is removed or added around it.
TEST(PlanTextEdit, ACommentIndentedAsATasksFieldsStaysWithThatTask) {
    const std::string three =
        "tasks:\n"
        "  - id: task-1\n    title: First\n    steps:\n      - a\n    # trail-1\n\n"
        "  - id: task-2\n    title: Second\n    # trail-2\n\n"
        "  - id: task-3\n    title: Third\n    # trail-3\n"
        "# footer\n";
    EXPECT_EQ(edited(three, [](YamlValue& p) { p["tasks"].erase(2); }),
              "tasks:\n"
              "  - id: task-1\n    title: First\n    steps:\n      - a\n    # trail-1\n\n"
              "  - id: task-2\n    title: Second\n    # trail-2\n"
              "# footer\n");
    EXPECT_EQ(edited(three, [](YamlValue& p) { p["tasks"].erase(1); }),
              "tasks:\n"
              "  - id: task-1\n    title: First\n    steps:\n      - a\n    # trail-1\n\n"
              "  - id: task-3\n    title: Third\n    # trail-3\n"
              "# footer\n");
    EXPECT_EQ(edited(three, [](YamlValue& p) { p["tasks"].erase(2); p["tasks"].erase(1); }),
              "tasks:\n"
              "  - id: task-1\n    title: First\n    steps:\n      - a\n    # trail-1\n"
              "# footer\n");
    EXPECT_EQ(edited(three, [](YamlValue& p) {
                  p["tasks"].push_back(YamlValue::object({{"id", "task-4"}, {"title", "Fourth"}}));
              }),
              replaced(three, "    # trail-3\n", "    # trail-3\n\n  - id: task-4\n    title: Fourth\n"));
}

TEST(PlanTextEdit, NoFinalLineBreakFlowContextAndUtf8AreEditedInPlace) {
    const std::string bare = "tasks:\n- id: task-1\n  title: First\n- id: task-2\n  title: Second";
    EXPECT_EQ(edited(bare, [](YamlValue& p) { p["tasks"][1]["status"] = "completed"; }),
              bare + "\n  status: completed\n");
    const std::string flow = "tasks:\n  - id: task-1\n    title: Café\n    steps: [a, b]\n";
    EXPECT_EQ(edited(flow, [](YamlValue& p) { p["tasks"][0]["steps"].push_back("x, y"); }),
              replaced(flow, "[a, b]", "[a, b, \"x, y\"]"));
    const std::string utf8 = "tasks:\n  - {id: task-1, title: Café, steps: [x]}\n";
    const Document doc = parse(utf8);
    YamlValue plan = to_yaml_value(doc.root());
    plan["tasks"][0]["steps"].push_back("z");  // not "y": plain y reads as a boolean in YAML 1.1
    const PlanTextEdit e = edit_plan_text(doc, plan);
    ASSERT_TRUE(e.text) << e.why;
    EXPECT_EQ(*e.text, replaced(utf8, "[x]", "[x, z]"));
    const std::string nested = "tasks:\n  - id: task-1\n    title: One\n";
    EXPECT_EQ(edited(nested, [](YamlValue& p) { p["tasks"][0]["meta"] = YamlValue::object({{"k", "v"}}); }),
              nested + "    meta:\n      k: \"v\"\n");
}

TEST(PlanTextEdit, CrlfFilesKeepTheirLineBreaks) {
    std::string crlf;
    for (char c : kPlan) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const std::string out = edited(crlf, [](YamlValue& p) {
        p["tasks"][1]["steps"].push_back("test it");
        p["tasks"][0]["status"] = "in_progress";
    });
    EXPECT_NE(out.find("      - write the printer\r\n      - test it\r\n"), std::string::npos) << out;
    EXPECT_NE(out.find("status: in_progress   # rename later\r\n"), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(out.begin(), out.end(), '\r'));
}

// The template's last task gets a field and a task follows it in one
// write: both go at the end of the file, the field first.
TEST(PlanTextEdit, AFieldAndATaskAddedAtTheSamePlaceKeepTheirOrder) {
    const std::string tmpl = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n  - id: \"task-1\"\n"
                             "    title: \"Initial task\"\n    steps: []\n    acceptance: []\n";
    const std::string out = edited(tmpl, [](YamlValue& p) {
        p["tasks"][0]["status"] = "completed";
        YamlValue t = YamlValue::object();
        t["id"] = "task-2";
        t["title"] = "Second";
        t["depends_on"] = YamlValue::array({"task-1"});
        p["tasks"].push_back(t);
    });
    EXPECT_EQ(out, tmpl + "    status: \"completed\"\n  - id: \"task-2\"\n    title: \"Second\"\n"
                          "    depends_on: [\"task-1\"]\n");
}

TEST(PlanTextEdit, WhatCannotBeKeptIsRefusedWithItsLine) {
    const Document doc = parse(kPlan);
    YamlValue plan = to_yaml_value(doc.root());
    std::swap(plan["tasks"][0], plan["tasks"][1]);
    PlanTextEdit e = edit_plan_text(doc, plan);
    EXPECT_FALSE(e.text);
    EXPECT_EQ(e.why, "the tasks are reordered");
    plan = to_yaml_value(doc.root());
    plan["tasks"][1]["steps"][0] = YamlValue::object({{"nested", true}});
    e = edit_plan_text(doc, plan);
    EXPECT_FALSE(e.text);
    EXPECT_EQ(e.why, "a list gets an item that is not a scalar");
    EXPECT_EQ(e.line, 16u);
    plan = to_yaml_value(doc.root());
    plan["owner"] = "human";
    EXPECT_FALSE(edit_plan_text(doc, plan).text);

    // A task written as a flow mapping cannot take a field line: the
    // read-back check refuses it and names the task's line.
    const Document flow = parse("tasks:\n  - {id: task-1, title: First}\n");
    plan = to_yaml_value(flow.root());
    plan["tasks"][0]["status"] = "pending";
    e = edit_plan_text(flow, plan);
    EXPECT_FALSE(e.text);
    EXPECT_EQ(e.why, "the edited text would not read back as the new plan");
    EXPECT_EQ(e.line, 2u);
}

TEST(PlanTextEdit, NoChangeIsTheSameBytes) {
    const Document doc = parse(kPlan);
    const PlanTextEdit e = edit_plan_text(doc, to_yaml_value(doc.root()));
    ASSERT_TRUE(e.text);
    EXPECT_EQ(*e.text, kPlan);
}

// Every example workspace's plan in the reference data round-trips byte
// for byte through a no-op edit, and through a status change and back.
TEST(PlanTextEdit, TheReferenceExamplesRoundTripByteForByte) {
    const std::filesystem::path examples = std::filesystem::path(SMALL_SHARED_DIR) / "reference-data" / "examples";
    if (!std::filesystem::is_directory(examples)) GTEST_SKIP() << "no reference data at " << examples;
    int plans = 0;
    for (const auto& entry : std::filesystem::directory_iterator(examples)) {
        const std::filesystem::path file = entry.path() / ".small" / "plan.small.yml";
        if (!std::filesystem::is_regular_file(file)) continue;
        std::ifstream in(file, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const Document doc = parse(text);
        const YamlValue plan = to_yaml_value(doc.root());
        const PlanTextEdit same = edit_plan_text(doc, plan);
        ASSERT_TRUE(same.text) << file << ": " << same.why;
        EXPECT_EQ(*same.text, text) << file;
        if (!plan.contains("tasks") || plan["tasks"].empty()) continue;
        YamlValue changed = plan;
        changed["tasks"][0]["status"] = "blocked";
        const PlanTextEdit there = edit_plan_text(doc, changed);
        ASSERT_TRUE(there.text) << file << ": " << there.why << " line " << there.line;
        const Document edited = parse(*there.text);
        const PlanTextEdit back = edit_plan_text(edited, plan);
        ASSERT_TRUE(back.text) << file << ": " << back.why;
        if (plan["tasks"][0].contains("status")) {
            EXPECT_EQ(*back.text, text) << file;
        }
        ++plans;
    }
    EXPECT_GE(plans, 5);
}

// ---------------------------------------------------------------- property

// A random plan in a random hand-written style.
struct Style {
    int dash, key;  // columns of '-' and of the fields
    char quote;     // '"', '\'' or 0 (plain)
    bool flow, spaced, crlf, comments;
};

std::string quoted(const std::string& s, char q) {
    if (q == '"') return "\"" + s + "\"";
    if (q == '\'') return "'" + s + "'";
    return s;
}

std::string random_plan(std::mt19937& rng, const Style& st, int tasks) {
    const std::string dpad(st.dash, ' '), kpad(st.key, ' ');
    std::string t = st.comments ? "# header comment\n" : "";
    t += "small_version: \"1.0.0\"\nowner: agent\ntasks:\n";
    for (int i = 1; i <= tasks; ++i) {
        if (st.spaced && i > 1) t += "\n";
        if (st.comments && rng() % 2) t += dpad + "# about task " + std::to_string(i) + "\n";
        const std::string id = "task-" + std::to_string(i);
        t += dpad + "-" + std::string(st.key - st.dash - 1, ' ') + "id: " + quoted(id, st.quote) + "\n";
        t += kpad + "title: " + quoted("Title " + std::to_string(i), st.quote) + (st.comments ? "  # note" : "") + "\n";
        t += kpad + "status: " + quoted("pending", st.quote) + "\n";
        if (i > 1 && rng() % 2) {
            const std::string dep = quoted("task-" + std::to_string(i - 1), st.quote);
            t += st.flow ? kpad + "depends_on: [" + dep + "]\n" : kpad + "depends_on:\n" + kpad + "  - " + dep + "\n";
        }
        if (st.comments && rng() % 3 == 0) t += kpad + "# trail " + std::to_string(i) + "\n";
    }
    if (st.comments) t += "# footer\n";
    if (!st.crlf) return t;
    std::string crlf;
    for (char c : t) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return crlf;
}

// Lines of `text` (line breaks kept).
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (from < text.size()) {
        const std::size_t nl = text.find('\n', from);
        const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
        out.push_back(text.substr(from, end - from));
        from = end;
    }
    return out;
}

// Whether `small` is `big` with some lines left out (order kept).
bool is_subsequence(const std::vector<std::string>& small, const std::vector<std::string>& big) {
    std::size_t j = 0;
    for (const std::string& line : big) {
        if (j < small.size() && small[j] == line) ++j;
    }
    return j == small.size();
}

TEST(PlanTextEditProperty, RandomPlansAndEditsChangeOnlyTheEditedLines) {
    std::mt19937 rng(20261127);
    int in_place = 0;
    for (int round = 0; round < 3000; ++round) {
        const int dash = static_cast<int>(rng() % 4);
        const int key = dash + 2 + static_cast<int>(rng() % 3);
        constexpr char kQuotes[] = {'"', '\'', 0};
        const char quote = kQuotes[rng() % 3];
        const bool flow = rng() % 2 == 0, spaced = rng() % 2 == 0, crlf = rng() % 4 == 0, comments = rng() % 2 == 0;
        const Style st{dash, key, quote, flow, spaced, crlf, comments};
        const int tasks = 1 + static_cast<int>(rng() % 5);
        const std::string text = random_plan(rng, st, tasks);
        const Document doc = parse(text);
        YamlValue plan = to_yaml_value(doc.root());
        const int pick = static_cast<int>(rng() % static_cast<unsigned>(tasks));
        const int kind = static_cast<int>(rng() % 8);
        YamlValue& task = plan["tasks"][pick];
        if (kind == 0) task["status"] = "completed";
        if (kind == 1) task["title"] = "New title " + std::to_string(round);
        if (kind == 2) {
            YamlValue t = YamlValue::object();
            t["id"] = "task-" + std::to_string(tasks + 1);
            t["title"] = "Added";
            t["status"] = "pending";
            plan["tasks"].push_back(t);
        }
        if (kind == 3 && tasks > 1) plan["tasks"].erase(static_cast<std::size_t>(pick));
        if (kind == 4) task["priority"] = static_cast<int>(rng() % 9);
        if (kind == 5 && task.contains("depends_on")) task["depends_on"].push_back("task-" + std::to_string(round));
        if (kind == 5 && !task.contains("depends_on")) task["depends_on"] = YamlValue::array({"task-1"});
        if (kind == 6 && task.contains("depends_on")) task["depends_on"] = YamlValue::array();
        if (kind == 7) task.erase("depends_on");
        const PlanTextEdit e = edit_plan_text(doc, plan);
        ASSERT_TRUE(e.text) << "round " << round << " kind " << kind << ": " << e.why << " line " << e.line << "\n" << text;
        ++in_place;
        Result<Document> back = parse_yaml(*e.text, "edited");
        ASSERT_TRUE(back) << *e.text;
        ASSERT_TRUE(same_yaml_data(to_yaml_value(back->root()), plan)) << *e.text;
        const std::vector<std::string> before = lines_of(text), after = lines_of(*e.text);
        if (kind == 2) {
            EXPECT_TRUE(is_subsequence(before, after)) << "only lines added:\n" << text << "\n---\n" << *e.text;
            continue;
        }
        if (kind == 0 || kind == 1) {
            ASSERT_EQ(before.size(), after.size());
            int differ = 0;
            for (std::size_t i = 0; i < before.size(); ++i) differ += before[i] != after[i];
            EXPECT_EQ(differ, 1) << text << "\n---\n" << *e.text;
        }
        // Everything before the edited task (its comment and separator
        // aside) and after it stays byte for byte.
        const auto id_line = [&](int n) {
            const std::string needle = "id: " + quoted("task-" + std::to_string(n), st.quote);
            for (std::size_t i = 0; i < before.size(); ++i) {
                if (before[i].find(needle) != std::string::npos) return i;
            }
            return before.size();
        };
        const std::size_t own = id_line(pick + 1);
        const std::size_t from = own >= 2 ? own - 2 : 0;
        const std::size_t to = pick + 1 < tasks ? id_line(pick + 2) : before.size() - (st.comments ? 1 : 0);
        std::size_t prefix = 0, suffix = 0;
        while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix]) ++prefix;
        while (suffix < before.size() && suffix < after.size() &&
               before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
            ++suffix;
        }
        EXPECT_GE(prefix, from) << "kind " << kind << ":\n" << text << "\n---\n" << *e.text;
        EXPECT_GE(suffix, before.size() - to) << "kind " << kind << ":\n" << text << "\n---\n" << *e.text;
    }
    EXPECT_EQ(in_place, 3000);
}

// Sequences of two to four edits in one write (what `plan` with several
// flags makes): the text reads back as the new plan and keeps the header
// and footer comments and every untouched task's comment.
TEST(PlanTextEditProperty, SequencesOfEditsReadBackAndKeepComments) {
    std::mt19937 rng(7);
    for (int round = 0; round < 2000; ++round) {
        constexpr char kQuotes[] = {'"', '\'', 0};
        const int dash = static_cast<int>(rng() % 3);
        const int key = dash + 2 + static_cast<int>(rng() % 2);
        const char quote = kQuotes[rng() % 3];
        const bool flow = rng() % 2 == 0, spaced = rng() % 2 == 0, crlf = rng() % 4 == 0;
        const Style st{dash, key, quote, flow, spaced, crlf, true};
        const int tasks = 2 + static_cast<int>(rng() % 4);
        const std::string text = random_plan(rng, st, tasks);
        const Document doc = parse(text);
        YamlValue plan = to_yaml_value(doc.root());
        std::set<int> removed;
        const int edits = 2 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = rng() % plan["tasks"].size();
            YamlValue& task = plan["tasks"][at];
            switch (rng() % 5) {
                case 0: task["status"] = "in_progress"; break;
                case 1: task["title"] = "Edited " + std::to_string(e); break;
                case 2: task["depends_on"] = YamlValue::array({"task-1"}); break;
                case 3: task["priority"] = e; break;
                default:
                    if (plan["tasks"].size() > 1) {
                        removed.insert(std::stoi(task["id"].get<std::string>().substr(5)));
                        plan["tasks"].erase(at);
                    }
            }
        }
        const PlanTextEdit e = edit_plan_text(doc, plan);
        ASSERT_TRUE(e.text) << "round " << round << ": " << e.why << " line " << e.line << "\n" << text << "\n"
                            << plan.dump();
        Result<Document> back = parse_yaml(*e.text, "edited");
        ASSERT_TRUE(back) << *e.text;
        ASSERT_TRUE(same_yaml_data(to_yaml_value(back->root()), plan)) << text << "\n---\n" << *e.text;
        for (const char* kept : {"# header comment", "# footer"}) {
            EXPECT_NE(e.text->find(kept), std::string::npos) << kept << "\n" << *e.text;
        }
        for (int i = 1; i <= tasks; ++i) {
            for (const char* what : {"# about task ", "# trail "}) {
                const std::string comment = std::string(what) + std::to_string(i) + (crlf ? "\r\n" : "\n");
                if (text.find(comment) == std::string::npos) continue;
                EXPECT_EQ(e.text->find(comment) != std::string::npos, removed.count(i) == 0)
                    << "task " << i << "'s comment\n" << text << "\n---\n" << *e.text;
            }
        }
    }
}

// The merge's case (D20 item 3): tasks another text of the plan holds are
// appended with that text's own lines, comments included.
TEST(PlanTextEditProperty, TasksFromADonorKeepTheirOwnLinesAndComments) {
    std::mt19937 rng(3);
    for (int round = 0; round < 1000; ++round) {
        constexpr char kQuotes[] = {'"', '\'', 0};
        const int dash = static_cast<int>(rng() % 3);
        const int key = dash + 2 + static_cast<int>(rng() % 2);
        const bool crlf = rng() % 4 == 0;
        const Style st{dash, key, kQuotes[rng() % 3], rng() % 2 == 0, rng() % 2 == 0, crlf, true};
        const int tasks = 3 + static_cast<int>(rng() % 4);
        const std::string whole = random_plan(rng, st, tasks);
        const Document donor = parse(whole);
        const YamlValue target = to_yaml_value(donor.root());
        const int kept = 1 + static_cast<int>(rng() % (tasks - 1));
        YamlValue fewer = target;
        while (static_cast<int>(fewer["tasks"].size()) > kept) fewer["tasks"].erase(fewer["tasks"].size() - 1);
        const PlanTextEdit shorter = edit_plan_text(donor, fewer);
        ASSERT_TRUE(shorter.text) << shorter.why;
        const Document old = parse(*shorter.text);
        const PlanTextEdit e = edit_plan_text(old, target, &donor);
        ASSERT_TRUE(e.text) << "round " << round << ": " << e.why << "\n" << *shorter.text;
        Result<Document> back = parse_yaml(*e.text, "edited");
        ASSERT_TRUE(back && same_yaml_data(to_yaml_value(back->root()), target)) << *e.text;
        for (int i = kept + 1; i <= tasks; ++i) {
            for (const char* what : {"# about task ", "# trail "}) {
                const std::string comment = std::string(what) + std::to_string(i) + (crlf ? "\r\n" : "\n");
                if (whole.find(comment) == std::string::npos) continue;
                EXPECT_NE(e.text->find(comment), std::string::npos) << whole << "\n---\n" << *e.text;
            }
        }
        EXPECT_NE(e.text->find("# footer"), std::string::npos);
        EXPECT_EQ(e.text->find("\r\r"), std::string::npos);
    }
}

}  // namespace
}  // namespace small
