// The page's actions: parsed strictly, and each run through the operation
// the CLI runs (the plan keeps its formatting, the log gets the entry).
#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include "small/serve/actions.hpp"

namespace small::serve {
namespace {

using namespace small::testing;

TEST(PageActions, ParseRefusesWhatIsNotAnAction) {
    EXPECT_FALSE(parse_page_action("not json"));
    EXPECT_FALSE(parse_page_action("[]"));
    EXPECT_FALSE(parse_page_action(R"({"action":"delete","task":"task-1"})"));
    EXPECT_FALSE(parse_page_action(R"({"action":"block","task":"task-1"})"));  // no reason
    EXPECT_FALSE(parse_page_action(R"({"action":"unblock"})"));               // no task
    EXPECT_FALSE(parse_page_action(R"({"action":"add","text":"  "})"));       // blank title
    EXPECT_FALSE(parse_page_action(R"({"action":"title","task":"task-1"})"));
    EXPECT_FALSE(parse_page_action(R"({"action":"add","text":"a\u0000b"})"));      // a NUL
    EXPECT_FALSE(parse_page_action(R"({"action":"add","text":"two\nlines"})"));    // a line break
    EXPECT_FALSE(parse_page_action(R"({"action":"add","text":")" + std::string(1001, 'x') + "\"}"));
    Result<PageAction> ok = parse_page_action(R"({"action":"block","task":"task-1","text":"keys","extra":1})");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->task, "task-1");
    EXPECT_EQ(ok->text, "keys");
}

TEST(PageActions, AddTitleBlockAndUnblockWriteThePlanAndTheLog) {
    InitWorkspace w;
    const auto run = [&](const std::string& body) {
        Result<PageAction> a = parse_page_action(body);
        EXPECT_TRUE(a) << body;
        Result<nlohmann::json> done = run_page_action(w.fs(), w.ws(), WorkspaceScope::Root, *a, "carol");
        EXPECT_TRUE(done) << (done ? "" : done.error().describe());
        return done ? *done : nlohmann::json();
    };
    const nlohmann::json added = run(R"({"action":"add","text":"Ship the page"})");
    const std::string id = added["task"].get<std::string>();
    ASSERT_FALSE(id.empty());
    EXPECT_NE(w.plan_bytes().find("Ship the page"), std::string::npos);
    run(R"({"action":"title","task":")" + id + R"(","text":"Ship the live page"})");
    EXPECT_NE(w.plan_bytes().find("Ship the live page"), std::string::npos);
    run(R"({"action":"block","task":")" + id + R"(","text":"waiting on the keys"})");
    EXPECT_NE(w.log_bytes().find("waiting on the keys"), std::string::npos);
    EXPECT_NE(w.plan_bytes().find("blocked"), std::string::npos);
    const std::size_t entries = log_entries(w).size();
    run(R"({"action":"unblock","task":")" + id + R"("})");
    EXPECT_GT(log_entries(w).size(), entries);
    EXPECT_EQ(log_entries(w).back()["task_id"], id);
    EXPECT_EQ(log_entries(w).back()["status"], "pending");
    // The person is the actor of every entry the page wrote.
    EXPECT_NE(w.log_bytes().find("Added task " + id + " via the board (small serve) by carol"), std::string::npos) << w.log_bytes();
    EXPECT_NE(w.log_bytes().find("blocked by carol on the board (small serve)"), std::string::npos) << w.log_bytes();
    EXPECT_EQ(log_entries(w).back()["notes"], "small serve board: plan --pending by carol");
}

TEST(PageActions, AnUnknownTaskIsTheCliError) {
    InitWorkspace w;
    Result<PageAction> a = parse_page_action(R"({"action":"unblock","task":"task-404"})");
    ASSERT_TRUE(a);
    Result<nlohmann::json> done = run_page_action(w.fs(), w.ws(), WorkspaceScope::Root, *a, "");
    ASSERT_FALSE(done);
    EXPECT_EQ(done.error().kind, Error::Kind::Invalid);
}

}  // namespace
}  // namespace small::serve
