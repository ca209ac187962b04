// model/claims: leases, clocks, the ready queue (D18, D19). Includes the
// property test over random plans, claims and clocks: the ready queue is
// exactly the open tasks whose dependencies are completed and that no other
// agent holds a live claim on, and a claim is granted exactly when nobody
// else holds a live one.
#include "small/model/claims.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <random>
#include <set>

namespace small {
namespace {

using Ids = std::vector<std::string>;

const Instant kNoon{1'800'000'000, 0};

Instant at(std::int64_t seconds_after_noon) { return {kNoon.seconds + seconds_after_noon, 0}; }

PlanTaskOutline task(const std::string& id, const std::string& status, const Ids& deps = {}, const std::string& priority = "") {
    return {id, WrittenStatus(status), deps, "Title " + id, priority};
}

Claim claim(const std::string& task, const std::string& agent, Instant when, std::int64_t ttl = 3600,
            const std::string& host = "here") {
    return {task, agent, host, when, when, {when.seconds + ttl, when.nanos}, ttl, true};
}

ClaimContext as(const std::string& agent, Instant now, const std::string& host = "here") { return {agent, host, now}; }

Ids ids(const std::vector<ReadyTask>& tasks) {
    Ids out;
    for (const ReadyTask& t : tasks) out.push_back(t.id);
    return out;
}

TEST(ClaimTable, KeepsOneClaimPerTaskSortedAndRoundTripsThroughJson) {
    ClaimTable t;
    t.put(claim("task-2", "bob", kNoon));
    t.put(claim("task-1", "alice", kNoon));
    t.put(claim("task-2", "carol", at(5)));
    ASSERT_EQ(t.claims.size(), 2u);
    EXPECT_EQ(t.claims[0].task, "task-1");
    EXPECT_EQ(t.find("task-2")->agent, "carol");
    t.claims[0].published = false;
    Result<ClaimTable> back = parse_claims_json(claims_json(t, true), "table", kNoon);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, t);
    Result<ClaimTable> shared = parse_claims_json(claims_json(t, false), "table", kNoon);
    ASSERT_TRUE(shared.ok());
    EXPECT_TRUE(shared->claims[0].published) << "the remote's copy has no local flag";
    EXPECT_TRUE(t.erase("task-1"));
    EXPECT_FALSE(t.erase("task-1"));
}

TEST(ClaimTable, RefusesWhatIsNotATableNamingTheSource) {
    for (const char* bad : {"", "[]", "{\"claims\": 3}"}) {
        Result<ClaimTable> r = parse_claims_json(bad, "/x/claims.json", kNoon);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_NE(r.error().message.find("/x/claims.json"), std::string::npos) << r.error().message;
    }
}

// D21: a table from another machine is input. Each record that fails is
// left out and described (with the source and a repair hint); the rest of
// the table stands.
TEST(ClaimTable, LeavesOutRecordsThatFailValidationAndSaysWhy) {
    const std::string noon = format_timestamp_utc9(kNoon), hour = format_timestamp_utc9(at(3600));
    const auto rec = [&](const std::string& task, const std::string& agent, const std::string& expires, const std::string& ttl) {
        return "{\"task\": \"" + task + "\", \"agent\": \"" + agent + "\", \"host\": \"h\", \"claimed_at\": \"" + noon +
               "\", \"renewed_at\": \"" + noon + "\", \"expires_at\": \"" + expires + "\", \"ttl_seconds\": " + ttl + "}";
    };
    const auto table_with = [&](const std::string& record) {
        return "{\"version\": 1, \"claims\": [" + record + ", " + rec("task-9", "ok", hour, "3600") + "]}";
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {rec("task-1", "mallory", "9999-12-31T00:00:00.000000000Z", "3600"), "more than its ttl"},
        {rec("task-1", "mallory", "9999-12-31T00:00:00.000000000Z", "99999999999"), "outside 1 second to 30 days"},
        {rec("task-1\\nFAKE-ROW", "mallory", hour, "3600"), "`task` holds a character"},
        {rec("task-1", "x\\u001b]0;PWNED\\u0007", hour, "3600"), "`agent` holds a control character"},
        {rec("task-1", "bidi\u202e", hour, "3600"), "`agent` holds a control character"},
        {rec("task-1", "", hour, "3600"), "`agent` is empty"},
        {"{\"task\": \"t\", \"agent\": \"a\", \"claimed_at\": \"yesterday\"}", "claimed_at"},
    };
    for (const auto& [record, why] : cases) {
        std::vector<std::string> problems;
        Result<ClaimTable> r = parse_claims_json(table_with(record), "origin:refs/small/claims", kNoon, &problems);
        ASSERT_TRUE(r.ok()) << record;
        ASSERT_EQ(r->claims.size(), 1u) << record;
        EXPECT_EQ(r->claims[0].task, "task-9");
        ASSERT_EQ(problems.size(), 1u) << record;
        EXPECT_NE(problems[0].find(why), std::string::npos) << problems[0];
        EXPECT_NE(problems[0].find("origin:refs/small/claims"), std::string::npos) << problems[0];
        EXPECT_NE(problems[0].find("ignored"), std::string::npos) << problems[0];
    }
    // Two claims on one task: neither is trusted.
    std::vector<std::string> problems;
    Result<ClaimTable> twice = parse_claims_json(
        "{\"claims\": [" + rec("task-1", "a", hour, "3600") + ", " + rec("task-1", "b", hour, "3600") + "]}", "t", kNoon, &problems);
    ASSERT_TRUE(twice.ok());
    EXPECT_TRUE(twice->claims.empty());
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("2 claim records for task-1"), std::string::npos) << problems[0];
}

TEST(ClaimTable, SettlementsAndTheReservedNumberRoundTrip) {
    ClaimTable t;
    t.put(claim("task-1", "alice", kNoon));
    t.settle(Settlement{"task-3", TaskStatus::Blocked, "bob", "main (h:/w)", "needs a DBA", at(5), false});
    t.settle(Settlement{"task-2", TaskStatus::Completed, "carol", "feature (h:/w2)", "", at(6), true});
    t.last_task_number = 12;
    t.synced_at = at(7);
    Result<ClaimTable> back = parse_claims_json(claims_json(t, true), "table", at(10));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, t);
    ASSERT_EQ(back->settled.size(), 2u);
    EXPECT_EQ(back->settled[0].task, "task-2") << "sorted by task";
    EXPECT_EQ(describe_settlement(*back->settlement("task-3")), "blocked by bob on main (h:/w) at " + format_timestamp_short(at(5)));
    Result<ClaimTable> shared = parse_claims_json(claims_json(t, false), "table", at(10));
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(shared->synced_at, Instant{}) << "the remote's copy has no local fields";
    EXPECT_TRUE(shared->settlement("task-3")->published);
    EXPECT_TRUE(t.unsettle("task-3"));
    EXPECT_FALSE(t.unsettle("task-3"));
}

TEST(Durations, LeaseLengthsAreExact) {
    EXPECT_EQ(lease_length_text(5400), "1h30m");
    EXPECT_EQ(lease_length_text(90), "1m30s");
    EXPECT_EQ(lease_length_text(3600), "1h");
    EXPECT_EQ(lease_length_text(86400 + 61), "1d1m1s");
}

// D21: offline claims and settlements are carried onto the remote's table
// by the first exchange, unless another agent holds the task there.
TEST(CarryUnpublished, PublishesOfflineRecordsUnlessTheRemoteSaysOtherwise) {
    ClaimTable local;
    Claim mine = claim("task-1", "alice", kNoon);
    mine.published = false;
    local.put(mine);
    Claim lost = claim("task-2", "alice", kNoon);
    lost.published = false;
    local.put(lost);
    local.settle(Settlement{"task-4", TaskStatus::Completed, "alice", "main", "", at(1), false});
    local.last_task_number = 7;
    ClaimTable remote;
    remote.put(claim("task-2", "bob", at(-10)));
    remote.last_task_number = 5;
    std::vector<std::string> warnings;
    carry_unpublished(local, remote, as("alice", at(2)), warnings);
    ASSERT_NE(remote.find("task-1"), nullptr);
    EXPECT_TRUE(remote.find("task-1")->published);
    EXPECT_EQ(remote.find("task-2")->agent, "bob");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("bob holds task-2"), std::string::npos) << warnings[0];
    ASSERT_NE(remote.settlement("task-4"), nullptr);
    EXPECT_EQ(remote.last_task_number, 7);
}

// A settlement written while the remote was out of reach (settle_claim's
// fallback) ended the settler's lease here; publishing it ends it on the
// remote too, or the remote keeps a live claim on a completed task for an
// hour (sim.agents: "every claim is released once its task is settled").
TEST(CarryUnpublished, AnOfflineSettlementReleasesTheClaimItEnded) {
    ClaimTable local;
    local.settle(Settlement{"task-1", TaskStatus::Completed, "alice", "main", "", at(10), false});
    local.settle(Settlement{"task-2", TaskStatus::Completed, "alice", "main", "", at(10), false});
    ClaimTable remote;
    remote.put(claim("task-1", "alice", kNoon));     // the lease the completion ended
    remote.put(claim("task-2", "bob", at(20)));      // taken after the settlement: stays
    remote.put(claim("task-3", "carol", kNoon));     // another task: stays
    std::vector<std::string> warnings;
    carry_unpublished(local, remote, as("alice", at(30)), warnings);
    EXPECT_EQ(remote.find("task-1"), nullptr);
    ASSERT_NE(remote.settlement("task-1"), nullptr);
    ASSERT_NE(remote.find("task-2"), nullptr);
    EXPECT_EQ(remote.find("task-2")->agent, "bob");
    EXPECT_NE(remote.find("task-3"), nullptr);
    EXPECT_TRUE(warnings.empty());
}

TEST(ReadyQueue, SkipsTasksSettledOnAnotherSide) {
    const std::vector<PlanTaskOutline> plan = {task("task-1", "pending"), task("task-2", "pending")};
    ClaimTable table;
    table.settle(Settlement{"task-1", TaskStatus::Completed, "a", "main", "", kNoon, true});
    EXPECT_EQ(ids(ready_queue(plan, {}, table, as("c", at(5)))), (Ids{"task-2"}));
}

// A command run without --agent in the checkout a claim was made in acts as
// the claim's holder (the claimant is never told to ask itself).
TEST(IsMine, AGuessedNameOwnsTheClaimsOfItsCheckout) {
    Claim c = claim("task-1", "wt", kNoon);
    c.checkout = "/repo/wt";
    ClaimContext guessed{"user@host:/repo/wt", "here", at(5), "/repo/wt", true};
    EXPECT_TRUE(is_mine(c, guessed));
    guessed.checkout = "/repo/other";
    EXPECT_FALSE(is_mine(c, guessed));
    ClaimContext named{"bob", "here", at(5), "/repo/wt", false};
    EXPECT_FALSE(is_mine(c, named)) << "an explicit name is never another's";
    ClaimTable t;
    t.put(c);
    EXPECT_EQ(decide_claim(t, "task-1", 60, ClaimContext{"x", "here", at(5), "/repo/wt", true}, false).kind,
              ClaimDecision::Kind::Renewed);
}

TEST(SafeNames, RefuseControlAndBidiCharactersAndOddIds) {
    EXPECT_EQ(unsafe_name_reason("alice@host:/home/a b"), "");
    EXPECT_EQ(unsafe_name_reason("ünïcödé"), "");
    EXPECT_NE(unsafe_name_reason("x\x1b]0;t\x07"), "");
    EXPECT_NE(unsafe_name_reason("a\nb"), "");
    EXPECT_NE(unsafe_name_reason("\xe2\x80\xae"), "");
    EXPECT_NE(unsafe_name_reason(std::string(201, 'a')), "");
    EXPECT_NE(unsafe_name_reason(" lead"), "");
    EXPECT_EQ(unsafe_task_id_reason("task-12"), "");
    EXPECT_EQ(unsafe_task_id_reason("auth.login/v2"), "");
    EXPECT_NE(unsafe_task_id_reason("task 1"), "");
    EXPECT_NE(unsafe_task_id_reason("task-1\n"), "");
}

TEST(Lease, IsLiveUntilItExpiresAndGivesAnotherHostsClockTheSkewTolerance) {
    const Claim mine = claim("t", "a", kNoon, 60);
    EXPECT_EQ(lease_state(mine, at(59), "here"), LeaseState::Live);
    EXPECT_EQ(lease_state(mine, at(60), "here"), LeaseState::Expired);
    const Claim theirs = claim("t", "b", kNoon, 60, "there");
    EXPECT_EQ(lease_state(theirs, at(60), "here"), LeaseState::Live) << "another clock may be behind ours";
    EXPECT_EQ(lease_state(theirs, at(60 + kClaimSkewSeconds - 1), "here"), LeaseState::Live);
    EXPECT_EQ(lease_state(theirs, at(60 + kClaimSkewSeconds), "here"), LeaseState::Expired);
}

TEST(Lease, AClaimFromTheFutureIsNeitherHonouredAsExpiredNorOverwritten) {
    const Claim future = claim("t", "b", at(kClaimSkewSeconds + 10), 60, "there");
    EXPECT_EQ(lease_state(future, kNoon, "here"), LeaseState::FromFuture);
    ClaimTable t;
    t.put(future);
    const ClaimDecision d = decide_claim(t, "t", 600, as("a", kNoon), false);
    EXPECT_EQ(d.kind, ClaimDecision::Kind::Refused);
    EXPECT_NE(d.message.find("ahead of this clock"), std::string::npos) << d.message;
    EXPECT_EQ(drop_expired(t, at(100000), "here").size(), 1u) << "once our clock passes it, it expires normally";
    EXPECT_TRUE(t.claims.empty());
    ClaimTable keep;
    keep.put(future);
    EXPECT_TRUE(drop_expired(keep, kNoon, "here").empty());
    EXPECT_EQ(keep.claims.size(), 1u);
}

TEST(DecideClaim, GrantsRenewsRefusesAndTakesOverExpiredLeases) {
    ClaimTable t;
    ClaimDecision d = decide_claim(t, "task-1", 600, as("alice", kNoon), false);
    EXPECT_EQ(d.kind, ClaimDecision::Kind::Granted);
    EXPECT_EQ(d.claim.expires_at, at(600));
    t.put(d.claim);

    d = decide_claim(t, "task-1", 600, as("alice", at(100)), false);
    EXPECT_EQ(d.kind, ClaimDecision::Kind::Renewed);
    EXPECT_EQ(d.claim.claimed_at, kNoon);
    EXPECT_EQ(d.claim.expires_at, at(700));

    d = decide_claim(t, "task-1", 600, as("bob", at(100)), false);
    EXPECT_EQ(d.kind, ClaimDecision::Kind::Refused);
    EXPECT_NE(d.message.find("claimed by alice until"), std::string::npos) << d.message;
    EXPECT_EQ(decide_claim(t, "task-1", 600, as("bob", at(100)), true).kind, ClaimDecision::Kind::TakenOver);

    d = decide_claim(t, "task-1", 600, as("bob", at(601)), false);
    EXPECT_EQ(d.kind, ClaimDecision::Kind::TakenOver);
    ASSERT_TRUE(d.previous.has_value());
    EXPECT_EQ(d.previous->agent, "alice");
}

TEST(Renewal, OnlyTheHoldersLiveClaimIsRenewedForItsOwnTtl) {
    ClaimTable t;
    t.put(claim("t", "alice", kNoon, 600));
    std::optional<Claim> r = renewed_claim(t, "t", as("alice", at(300)));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->expires_at, at(900));
    EXPECT_EQ(r->claimed_at, kNoon);
    EXPECT_FALSE(renewed_claim(t, "t", as("bob", at(300))).has_value());
    EXPECT_FALSE(renewed_claim(t, "t", as("alice", at(601))).has_value()) << "an expired lease is not revived";
    EXPECT_FALSE(renewed_claim(t, "other", as("alice", at(300))).has_value());
}

TEST(Durations, AcceptUnitsAndSumsAndRefuseTheRest) {
    EXPECT_EQ(*parse_lease_duration("90s"), 90);
    EXPECT_EQ(*parse_lease_duration("45m"), 2700);
    EXPECT_EQ(*parse_lease_duration("2h"), 7200);
    EXPECT_EQ(*parse_lease_duration("1h30m"), 5400);
    EXPECT_EQ(*parse_lease_duration("1d"), 86400);
    EXPECT_EQ(*parse_lease_duration("600"), 600);
    for (const char* bad : {"", "0", "0m", "-5m", "5x", "1h30", "h", "31d", "1.5h"}) {
        Result<std::int64_t> r = parse_lease_duration(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    }
}

TEST(ReadyQueue, ListsOpenTasksWithCompletedDependenciesNotClaimedByOthers) {
    const std::vector<PlanTaskOutline> plan = {task("a", "completed"), task("b", "pending", {"a"}),
                                               task("c", "pending", {"b"}), task("d", "in_progress"),
                                               task("e", "blocked"), task("f", "pending"), task("g", "cancelled")};
    ClaimTable claims;
    claims.put(claim("f", "bob", kNoon));
    claims.put(claim("d", "alice", kNoon));
    std::vector<ReadyTask> r = ready_queue(plan, {}, claims, as("alice", at(10)));
    EXPECT_EQ(ids(r), (Ids{"b", "d"}));
    EXPECT_TRUE(r[1].mine.has_value());
    EXPECT_EQ(ids(ready_queue(plan, {}, claims, as("bob", at(10)))), (Ids{"b", "f"}));
    EXPECT_EQ(ids(ready_queue(plan, {}, claims, as("carol", at(4000)))), (Ids{"b", "d", "f"})) << "expired leases free their tasks";
    WorkFacts facts;
    facts["b"].last_status = WrittenStatus(TaskStatus::Completed);
    facts["d"].last_status = WrittenStatus(TaskStatus::Blocked);
    EXPECT_EQ(ids(ready_queue(plan, facts, {}, as("carol", kNoon))), (Ids{"f"})) << "the log settles tasks too";
}

TEST(ReadyQueue, SortsByPriorityWhereTasksHaveOneThenPlanOrder) {
    const std::vector<PlanTaskOutline> plan = {task("a", "pending"), task("b", "pending", {}, "2"),
                                               task("c", "pending", {}, "P0"), task("d", "pending", {}, "soon"),
                                               task("e", "pending", {}, "2")};
    EXPECT_EQ(ids(ready_queue(plan, {}, {}, as("x", kNoon))), (Ids{"c", "b", "e", "a", "d"}));
    EXPECT_EQ(task_priority("p3"), 3);
    EXPECT_EQ(task_priority(" 1 "), 1);
    EXPECT_FALSE(task_priority("high").has_value());
    EXPECT_FALSE(task_priority("").has_value());
}

TEST(AgentName, IsSmallAgentElseUserAtHostAndTheCheckout) {
    const char* saved = std::getenv("SMALL_AGENT");
    const std::string keep = saved ? saved : "";
    ::unsetenv("SMALL_AGENT");
    const std::string here = default_agent_name("/work/wt-a");
    EXPECT_NE(here.find('@'), std::string::npos) << here;
    EXPECT_TRUE(here.ends_with(":/work/wt-a")) << here;
    EXPECT_NE(here, default_agent_name("/work/wt-b")) << "two checkouts are two agents";
    ::setenv("SMALL_AGENT", " agent-a ", 1);
    EXPECT_EQ(default_agent_name("/work/wt-a"), "agent-a");
    if (saved) ::setenv("SMALL_AGENT", keep.c_str(), 1);
    else ::unsetenv("SMALL_AGENT");
}

TEST(ClaimTable, KeepsTheLeaseTheRemoteAcceptedOnlyHere) {
    ClaimTable t;
    Claim c = claim("t", "a", kNoon);
    c.published_until = at(1800);
    t.put(c);
    Result<ClaimTable> local = parse_claims_json(claims_json(t, true), "local", kNoon);
    ASSERT_TRUE(local.ok());
    EXPECT_EQ(local->claims[0].published_until, at(1800));
    Result<ClaimTable> shared = parse_claims_json(claims_json(t, false), "remote", kNoon);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(shared->claims[0].published_until, Instant{});
}

// D19 in the resume point: another agent's task is never current nor "also
// ready"; the agent's own claim is preferred; when others hold every ready
// task the step says so instead of naming one that would be refused.
TEST(ResumeWithClaims, NamesTheAgentsOwnTaskNeverAnothersClaim) {
    const std::vector<PlanTaskOutline> plan = {task("a", "pending"), task("b", "pending"), task("c", "pending")};
    WorkFacts facts;
    facts["a"].claimed_by = "alice until 14:05 UTC";
    facts["c"].held_until = "bob until 14:05 UTC";
    ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "c");
    EXPECT_EQ(r.steps.front(), "Start c: Title c (held by bob until 14:05 UTC)");
    ASSERT_GE(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[1], "Also ready: b: Title b");

    facts.erase("c");
    facts["b"].claimed_by = "carol until 15:00 UTC";
    facts["c"].claimed_by = "dave until 15:00 UTC";
    r = resume_point(plan, facts);
    EXPECT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_TRUE(r.current.empty());
    EXPECT_TRUE(r.action.tool.empty()) << "no step that would be refused";
    EXPECT_NE(r.action.stop.find("claimed by another agent"), std::string::npos) << r.action.stop;
    EXPECT_NE(r.steps.front().find("a (alice until 14:05 UTC); b (carol"), std::string::npos) << r.steps.front();
}

// Issue 39: until when the clock leaves what a table says as it is.
TEST(SteadyUntil, ATableWithoutClaimsOrExchangeNeverChangesByTheClock) {
    ClaimTable t;
    EXPECT_EQ(claims_steady_until(t, kNoon, "here").seconds, std::numeric_limits<std::int64_t>::max());
    t.settle(Settlement{"task-1", TaskStatus::Completed, "bob", "main", "", at(-10), true});
    EXPECT_EQ(claims_steady_until(t, kNoon, "here").seconds, std::numeric_limits<std::int64_t>::max())
        << "a settlement reads alike at any later time";
}

TEST(SteadyUntil, EndsAtTheFirstLeaseEndStartDayOrMinuteOfAge) {
    ClaimTable t;
    t.put(claim("task-1", "bob", kNoon, 3600));
    EXPECT_EQ(claims_steady_until(t, at(10), "here"), at(3600)) << "the lease ends";
    t.put(claim("task-1", "bob", kNoon, 3600, "there"));
    EXPECT_EQ(claims_steady_until(t, at(10), "here"), at(3600 + kClaimSkewSeconds)) << "another host's grace";
    t.put(claim("task-1", "bob", at(kClaimSkewSeconds + 100), 3600, "there"));
    EXPECT_EQ(claims_steady_until(t, kNoon, "here"), at(100)) << "no longer from the future";
    t.put(claim("task-1", "bob", kNoon, 30 * 86400));
    const Instant midnight{(kNoon.seconds / 86400 + 1) * 86400, 0};
    EXPECT_EQ(claims_steady_until(t, at(10), "here"), midnight) << "the lease's date appears";
    t.synced_at = at(-30);
    EXPECT_EQ(claims_steady_until(t, at(10), "here"), at(30)) << "the age's next minute";
}

// Random tables and clocks: between `now` and the limit, every lease state,
// lease text and age the table shows reads as it did at `now`.
TEST(SteadyUntil, NothingTheTableShowsChangesBeforeTheLimit) {
    std::mt19937 rng(39);
    const auto shown = [](const ClaimTable& t, Instant when) {
        std::string out;
        for (const Claim& c : t.claims) {
            out += std::to_string(static_cast<int>(lease_state(c, when, "here"))) + lease_until_text(c, when) + ";";
        }
        const std::int64_t age = when.seconds - t.synced_at.seconds;
        if (t.synced_at.seconds && age >= 60) out += duration_text(age);
        return out;
    };
    for (int round = 0; round < 300; ++round) {
        ClaimTable t;
        for (int i = 0; i < static_cast<int>(rng() % 4); ++i) {
            const Instant when = at(static_cast<std::int64_t>(rng() % 200000) - 100000);
            t.put(claim("t" + std::to_string(i), "bob", when, 60 + rng() % 90000, rng() % 2 ? "here" : "there"));
        }
        if (rng() % 2) t.synced_at = at(static_cast<std::int64_t>(rng() % 200000) - 150000);
        const Instant now{at(static_cast<std::int64_t>(rng() % 100000)).seconds, static_cast<std::uint32_t>(rng() % 1'000'000'000)};
        const Instant until = claims_steady_until(t, now, "here");
        ASSERT_LT(now, until);
        const std::string before = shown(t, now);
        const std::int64_t span = std::min<std::int64_t>(until.seconds - now.seconds, 400000);
        for (int k = 0; k < 20; ++k) {
            const Instant then{now.seconds + (span ? static_cast<std::int64_t>(rng() % span) : 0), now.nanos};
            if (!(then < until)) continue;
            EXPECT_EQ(shown(t, then), before) << "round " << round;
        }
        const Instant last = until.nanos ? Instant{until.seconds, until.nanos - 1} : Instant{until.seconds - 1, 999'999'999};
        if (now < last && until.seconds < std::numeric_limits<std::int64_t>::max()) {
            EXPECT_EQ(shown(t, last), before) << "round " << round;
        }
    }
}

// Random plans (a DAG: dependencies point back), random claims by random
// agents at random times on random hosts, a random asking agent and clock.
TEST(ClaimsProperty, ReadyQueueAndDecisionsAgreeWithTheRulesOnRandomPlansClaimsAndClocks) {
    std::mt19937 rng(20261127);
    const std::vector<std::string> statuses = {"pending", "pending", "in_progress", "completed", "blocked", "cancelled"};
    const std::vector<std::string> agents = {"alice", "bob", "carol"};
    const std::vector<std::string> hosts = {"here", "there"};
    for (int round = 0; round < 400; ++round) {
        const int n = 1 + static_cast<int>(rng() % 12);
        std::vector<PlanTaskOutline> plan;
        for (int i = 0; i < n; ++i) {
            Ids deps;
            for (int j = 0; j < i; ++j) {
                if (rng() % 4 == 0) deps.push_back("t" + std::to_string(j));
            }
            if (rng() % 10 == 0) deps.push_back("missing");
            plan.push_back(task("t" + std::to_string(i), statuses[rng() % statuses.size()], deps));
        }
        ClaimTable claims;
        for (int i = 0; i < n; ++i) {
            if (rng() % 2) continue;
            const Instant when = at(static_cast<std::int64_t>(rng() % 4000) - 2000);
            claims.put(claim("t" + std::to_string(i), agents[rng() % agents.size()], when, 60 + rng() % 1200,
                             hosts[rng() % hosts.size()]));
        }
        const ClaimContext ctx = as(agents[rng() % agents.size()], at(static_cast<std::int64_t>(rng() % 2000)));
        const std::vector<ReadyTask> ready = ready_queue(plan, {}, claims, ctx);
        const Ids queued = ids(ready);
        const std::set<std::string> in_queue(queued.begin(), queued.end());
        for (const PlanTaskOutline& t : plan) {
            bool deps_done = true;
            for (const std::string& d : t.depends_on) {
                const auto dep = std::find_if(plan.begin(), plan.end(), [&](const auto& p) { return p.id == d; });
                deps_done = deps_done && dep != plan.end() && dep->status.is(TaskStatus::Completed);
            }
            const Claim* c = claims.find(t.id);
            const bool other_live = c && c->agent != ctx.agent && lease_state(*c, ctx.now, ctx.host) != LeaseState::Expired;
            const bool expected = !is_settled(t.status) && deps_done && !other_live;
            EXPECT_EQ(in_queue.count(t.id) == 1, expected) << "round " << round << " task " << t.id;
            // A claim is granted (or renewed, or taken over) exactly when no other live claim stands.
            const ClaimDecision d = decide_claim(claims, t.id, 600, ctx, false);
            EXPECT_EQ(d.kind == ClaimDecision::Kind::Refused, other_live || (c && lease_state(*c, ctx.now, ctx.host) == LeaseState::FromFuture))
                << "round " << round << " task " << t.id;
            if (d.kind != ClaimDecision::Kind::Refused) {
                EXPECT_EQ(d.claim.agent, ctx.agent);
                EXPECT_EQ(lease_state(d.claim, ctx.now, ctx.host), LeaseState::Live);
            }
        }
    }
}

}  // namespace
}  // namespace small
