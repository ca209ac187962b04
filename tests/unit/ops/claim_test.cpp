// `small ready`, `claim`, `release`, `claims` (ops/session/claim) and the
// claims at write time (domain/claim_gate), on the in-memory FileSystem: no
// git there, so the table lives in .small-cache/ and nothing is published.
#include "support/fixtures.hpp"

#include "small/domain/claim_gate.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/claim.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/log_facts_cache.hpp"

namespace small {
namespace {

using namespace small::testing;

const std::string kThreeTasks =
    "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
    "  - id: task-1\n    title: One\n    status: pending\n"
    "  - id: task-2\n    title: Two\n    status: pending\n"
    "  - id: task-3\n    title: Three\n    status: pending\n    depends_on: [task-1]\n";

ClaimOptions as(const std::string& agent, std::optional<Instant> now = std::nullopt) {
    ClaimOptions o;
    o.agent = agent;
    o.now = now;
    return o;
}

std::vector<std::string> ready_ids(const InitWorkspace& w, const std::string& agent) {
    Result<ReadyResult> r = ready_command(w.fs(), w.ws(), as(agent));
    if (!r) throw std::runtime_error(r.error().describe());
    std::vector<std::string> out;
    for (const ReadyTask& t : r->tasks) out.push_back(t.id);
    return out;
}

struct Claims : ::testing::Test {
    InitWorkspace w{std::nullopt, Disk::Memory};
    void SetUp() override { w.write("plan.small.yml", kThreeTasks); }
};

TEST_F(Claims, AClaimHidesTheTaskFromOtherAgentsAndRefusesThemNamingTheHolder) {
    Result<ClaimResult> a = claim_command(w.fs(), w.ws(), "task-1", 600, as("alice"));
    ASSERT_TRUE(a.ok()) << a.error().describe();
    EXPECT_EQ(a->kind, ClaimDecision::Kind::Granted);
    EXPECT_FALSE(a->published);
    EXPECT_EQ(ready_ids(w, "bob"), (std::vector<std::string>{"task-2"}));
    EXPECT_EQ(ready_ids(w, "alice"), (std::vector<std::string>{"task-1", "task-2"}));

    Result<ClaimResult> b = claim_command(w.fs(), w.ws(), "task-1", 600, as("bob"));
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error().kind, Error::Kind::Invalid);
    EXPECT_NE(b.error().message.find("claimed by alice until"), std::string::npos) << b.error().message;
    EXPECT_TRUE(claim_command(w.fs(), w.ws(), "task-1", 600, as("alice")).ok()) << "the holder renews";
    EXPECT_TRUE(w.fs().file_exists(w.ws().root + "/.small-cache/claims.json"));
}

TEST_F(Claims, NextTakesTheFirstFreeReadyTaskAndRepeatsTheOneAlreadyHeld) {
    Result<ClaimResult> a = claim_command(w.fs(), w.ws(), "", 600, as("alice"));
    ASSERT_TRUE(a.ok()) << a.error().describe();
    EXPECT_EQ(a->claim.task, "task-1");
    Result<ClaimResult> b = claim_command(w.fs(), w.ws(), "", 600, as("bob"));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->claim.task, "task-2");
    Result<ClaimResult> again = claim_command(w.fs(), w.ws(), "", 600, as("alice"));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->claim.task, "task-1");
    EXPECT_EQ(again->kind, ClaimDecision::Kind::Renewed);
    Result<ClaimResult> c = claim_command(w.fs(), w.ws(), "", 600, as("carol"));
    ASSERT_FALSE(c.ok()) << "task-3 waits on task-1";
    EXPECT_NE(c.error().message.find("nothing is ready for carol"), std::string::npos) << c.error().message;
}

// D19: a task in progress that nobody holds may be someone's work (perhaps
// on another side): `ready` lists it and says so, `claim --next` takes it last.
TEST_F(Claims, ATaskInProgressNobodyHoldsIsMarkedAndTakenLastByNext) {
    w.write("plan.small.yml", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
                              "  - id: task-1\n    title: One\n    status: in_progress\n"
                              "  - id: task-2\n    title: Two\n    status: pending\n");
    Result<ReadyResult> r = ready_command(w.fs(), w.ws(), as("bob"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->tasks.size(), 2u);
    EXPECT_TRUE(r->tasks[0].started_unclaimed);
    EXPECT_FALSE(r->tasks[1].started_unclaimed);
    Result<ClaimResult> next = claim_command(w.fs(), w.ws(), "", 600, as("bob"));
    ASSERT_TRUE(next.ok()) << next.error().describe();
    EXPECT_EQ(next->claim.task, "task-2");
    Result<ClaimResult> last = claim_command(w.fs(), w.ws(), "", 600, as("carol"));
    ASSERT_TRUE(last.ok()) << last.error().describe();
    EXPECT_EQ(last->claim.task, "task-1") << "nothing else is ready: it is offered, not hidden";
    r = ready_command(w.fs(), w.ws(), as("carol"));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->tasks.size(), 1u);
    EXPECT_FALSE(r->tasks[0].started_unclaimed) << "carol holds it now";
}

// Whether the claims travel through a remote is told from git's config text
// (no libgit2): a remote defined, and small.claimsRemote not `none`.
TEST(ClaimsRemoteLikely, ARemoteInTheConfigUnlessClaimsRemoteIsNone) {
    ::unsetenv("SMALL_CLAIMS_REMOTE");
    MemoryFileSystem fs;
    fs.add_directory("/r/.git");
    const ClaimStore store{"/r/.git", "/r/.git/small", "/r/.git/small/claims.json", "/r/.git/small/claims.lock", "/r", "", true};
    EXPECT_FALSE(claims_remote_likely(fs, store)) << "no config";
    fs.add_file("/r/.git/config", "[core]\n\tbare = false\n");
    EXPECT_FALSE(claims_remote_likely(fs, store));
    fs.add_file("/r/.git/config", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /x.git\n");
    EXPECT_TRUE(claims_remote_likely(fs, store));
    fs.add_file("/r/.git/config", "[remote \"origin\"]\n\turl = /x.git\n[small]\n\tclaimsRemote = none\n");
    EXPECT_FALSE(claims_remote_likely(fs, store));
    ClaimStore outside = store;
    outside.in_git = false;
    EXPECT_FALSE(claims_remote_likely(fs, outside));
}

TEST_F(Claims, RefusesTasksThatCannotBeTakenNow) {
    Result<ClaimResult> waits = claim_command(w.fs(), w.ws(), "task-3", 600, as("alice"));
    ASSERT_FALSE(waits.ok());
    EXPECT_NE(waits.error().message.find("waits on task-1"), std::string::npos) << waits.error().message;
    EXPECT_FALSE(claim_command(w.fs(), w.ws(), "task-9", 600, as("alice")).ok());
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-2", TaskStatus::Completed)).ok());
    Result<ClaimResult> done = claim_command(w.fs(), w.ws(), "task-2", 600, as("alice"));
    ASSERT_FALSE(done.ok());
    EXPECT_NE(done.error().message.find("is completed"), std::string::npos) << done.error().message;
}

TEST_F(Claims, AnExpiredLeaseFreesTheTaskAndIsTakenOver) {
    const Instant t0 = current_instant();
    ASSERT_TRUE(claim_command(w.fs(), w.ws(), "task-1", 60, as("alice", t0)).ok());
    const Instant later{t0.seconds + 61, t0.nanos};
    Result<ClaimResult> b = claim_command(w.fs(), w.ws(), "task-1", 60, as("bob", later));
    ASSERT_TRUE(b.ok()) << b.error().describe();
    EXPECT_EQ(b->kind, ClaimDecision::Kind::TakenOver);
    ASSERT_TRUE(b->previous.has_value());
    EXPECT_EQ(b->previous->agent, "alice");
}

TEST_F(Claims, ReleaseIsTheHoldersUnlessForced) {
    ASSERT_TRUE(claim_command(w.fs(), w.ws(), "task-1", 600, as("alice")).ok());
    Result<ReleaseResult> bob = release_command(w.fs(), w.ws(), "task-1", as("bob"));
    ASSERT_FALSE(bob.ok());
    EXPECT_NE(bob.error().message.find("alice holds task-1"), std::string::npos) << bob.error().message;
    Result<ReleaseResult> alice = release_command(w.fs(), w.ws(), "task-1", as("alice"));
    ASSERT_TRUE(alice.ok()) << alice.error().describe();
    EXPECT_EQ(alice->released.agent, "alice");
    EXPECT_FALSE(release_command(w.fs(), w.ws(), "task-1", as("alice")).ok()) << "nothing left to release";
    EXPECT_EQ(ready_ids(w, "bob"), (std::vector<std::string>{"task-1", "task-2"}));
}

TEST_F(Claims, WritesThatStartOrCompleteAnotherAgentsTaskAreRefusedUnlessForced) {
    ASSERT_TRUE(claim_command(w.fs(), w.ws(), "task-1", 600, as("alice")).ok());
    const std::size_t entries = log_entries(w).size();
    ProgressAddRequest start;
    start.task = "task-1";
    start.status = TaskStatus::InProgress;
    start.agent = "bob";
    Result<ProgressAddResult> refused = progress_add_command(w.fs(), w.ws(), start);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("claimed by alice until"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("nothing written"), std::string::npos);
    EXPECT_EQ(log_entries(w).size(), entries);

    CheckpointRequest done = checkpoint_req("task-1", TaskStatus::Completed);
    done.agent = "bob";
    ASSERT_FALSE(checkpoint_command(w.fs(), w.ws(), done).ok());
    done.force = true;
    Result<CheckpointResult> forced = checkpoint_command(w.fs(), w.ws(), done);
    ASSERT_TRUE(forced.ok()) << forced.error().describe();
    EXPECT_NE(forced->entry["notes"].get<std::string>().find("releases alice's claim (forced)"), std::string::npos);
    Result<ClaimsResult> left = claims_command(w.fs(), w.ws(), as("bob"));
    ASSERT_TRUE(left.ok());
    EXPECT_TRUE(left->claims.empty()) << "completing the task released the claim";
}

TEST_F(Claims, TheHoldersEntriesRenewTheLeaseAndSettlingReleasesIt) {
    const Instant t0 = current_instant();
    ASSERT_TRUE(claim_command(w.fs(), w.ws(), "task-2", 3600, as("alice", Instant{t0.seconds - 1800, 0})).ok());
    ProgressAddRequest work;
    work.task = "task-2";
    work.status = TaskStatus::InProgress;
    work.agent = "alice";
    work.evidence = "started";
    Result<ProgressAddResult> r = progress_add_command(w.fs(), w.ws(), work);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->entry["notes"].get<std::string>().rfind("claim: alice holds it until", 0), 0u) << r->entry.dump();
    Result<ClaimsResult> after = claims_command(w.fs(), w.ws(), as("alice"));
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(after->claims.size(), 1u);
    EXPECT_GE(after->claims[0].claim.expires_at.seconds, t0.seconds + 3600 - 5) << "renewed from now, not from the claim";

    CheckpointRequest blocked = checkpoint_req("task-2", TaskStatus::Blocked);
    blocked.agent = "alice";
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), blocked).ok());
    Result<ClaimsResult> gone = claims_command(w.fs(), w.ws(), as("alice"));
    ASSERT_TRUE(gone.ok());
    EXPECT_TRUE(gone->claims.empty());
}

TEST_F(Claims, TheLogRecordsClaimsAndReleasesAsBookkeepingNotWork) {
    ASSERT_TRUE(claim_command(w.fs(), w.ws(), "task-2", 600, as("alice")).ok());
    ASSERT_TRUE(release_command(w.fs(), w.ws(), "task-2", as("alice")).ok());
    const YamlValue entries = log_entries(w);
    ASSERT_GE(entries.size(), 2u);
    const YamlValue& claimed = entries[entries.size() - 2];
    const YamlValue& released = entries[entries.size() - 1];
    EXPECT_NE(claimed["evidence"].get<std::string>().find("Claimed task-2 for alice until"), std::string::npos);
    EXPECT_NE(released["evidence"].get<std::string>().find("Released the claim on task-2 for alice"), std::string::npos);
    for (const YamlValue* e : {&claimed, &released}) {
        EXPECT_TRUE(is_bookkeeping_entry((*e)["task_id"].get<std::string>(), (*e)["evidence"].get<std::string>(),
                                         (*e)["notes"].get<std::string>()));
    }
    Result<LogFacts> facts = cached_log_facts(w.fs(), w.ws(), w.run_id());
    ASSERT_TRUE(facts.ok());
    EXPECT_EQ(facts->tasks.count("task-2") ? facts->tasks.at("task-2").last_status.word() : "", "")
        << "a claim does not start the task";
    expect_strict_ok(w);
}

TEST_F(Claims, AClaimsTableThatDoesNotParseIsAnErrorNotAnEmptyTable) {
    ASSERT_TRUE(w.fs().replace_file(FileWrite{w.ws().root, w.ws().root + "/.small-cache/claims.json", w.ws().root,
                                              0644, Durability::None, true},
                                    "{not json"));
    Result<ReadyResult> r = ready_command(w.fs(), w.ws(), as("alice"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("claims.json"), std::string::npos) << r.error().message;
    EXPECT_FALSE(claim_command(w.fs(), w.ws(), "task-1", 600, as("alice")).ok());
}

// The remote's table is a commit message: the summary line may hold any
// text (an agent named "{x}"); the table is what follows it.
TEST(ClaimsMessage, TheTableFollowsTheSummaryWhateverTheSummarySays) {
    ClaimTable t;
    t.put(Claim{"task-1", "{odd} agent", "h", {100, 0}, {100, 0}, {160, 0}, 60, true});
    Result<ClaimTable> back = table_of_message(claims_message(t, "{odd} agent claims task-1"), "origin:refs/small/claims", Instant{100, 0}, nullptr);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->claims.size(), 1u);
    Result<ClaimTable> bad = table_of_message("summary only", "origin:refs/small/claims", Instant{100, 0}, nullptr);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("git push <remote> :refs/small/claims"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace small
