// The log's facts cache (store/log_facts_cache) and this checkout's own work (store/local_work).
#include "support/fixtures.hpp"

#include "small/ops/session/plan.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/store/progress_log.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_store.hpp"
#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/session/start.hpp"
#include "small/ops/session/reset.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/model/templates.hpp"
#include "small/store/local_work.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/domain/plan_status_edit.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using namespace small::testing;

// ============================================================ resume facts and local work (D18)

namespace resume_facts {

Result<ProgressAddResult> add_entry(const InitWorkspace& w, const std::string& task, TaskStatus status,
                                    const std::string& evidence) {
    ProgressAddRequest add;
    add.task = task;
    add.status = status;
    add.evidence = evidence;
    return progress_add_command(real_fs, w.ws(), add);
}

// An append advances the cached per-task facts (no full read of the log on
// the next status): the cache is valid for the log as it now is and says
// what a full read says.
// The cached facts equal a full read of the log as it now is.
void expect_facts_match_the_log(const InitWorkspace& w) {
    Result<LogFacts> cached = cached_log_facts(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(cached.ok());
    Result<Document> doc = load_yaml_file(real_fs, w.file("progress.small.yml"), "progress.small.yml");
    ASSERT_TRUE(doc.ok());
    const LogFacts full = log_facts(doc->root(), w.run_id());
    EXPECT_EQ(cached->entries, full.entries);
    EXPECT_EQ(cached->work_entries, full.work_entries);
    EXPECT_EQ(cached->newest_work, full.newest_work);
    ASSERT_EQ(cached->tasks.size(), full.tasks.size());
    for (const auto& [id, f] : full.tasks) {
        const TaskWork& c = cached->tasks.at(id);
        EXPECT_EQ(c.last_status.word(), f.last_status.word()) << id;
        EXPECT_EQ(c.last_seq, f.last_seq) << id;
        EXPECT_EQ(c.blocked_reason, f.blocked_reason) << id;
    }
}

TEST(ResumeFacts, AnAppendAdvancesTheCachedFactsToWhatAFullReadGives) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());  // the cache exists from here on
    ASSERT_TRUE(add_entry(w, "task-2", TaskStatus::InProgress, "begun").ok());
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::Blocked, "need a decision").ok());
    ASSERT_TRUE(add_entry(w, "meta/note", TaskStatus::Completed, "bookkeeping").ok());

    const std::optional<std::string> stamp = real_fs.version_stamp(w.file("progress.small.yml"));
    ASSERT_TRUE(stamp);
    EXPECT_TRUE(read_stamped_cache(real_fs, w.ws(), kProgressFactsName, *stamp)) << "advanced, not dropped";
    expect_facts_match_the_log(w);
    Result<LogFacts> cached = cached_log_facts(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(cached.ok());
    EXPECT_EQ(cached->tasks.at("task-1").blocked_reason, "need a decision");
}

// The facts cache body stored for the log as it now is ("" when none).
std::string facts_cache(const InitWorkspace& w) {
    const std::optional<std::string> stamp = real_fs.version_stamp(w.file("progress.small.yml"));
    if (!stamp) return "";
    return read_stamped_cache(real_fs, w.ws(), kProgressFactsName, *stamp).value_or("");
}

// An append adds only the changed tasks' lines after a "+" line (no
// re-encoding of the rest); the part grows until a full encode compacts it,
// and the cache says what a full read says all along, reasons with spaces,
// backslashes and line breaks included.
TEST(ResumeFacts, AppendsAddTaskLinesAndACompactionKeepsTheCacheSmall) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());
    const std::string first = facts_cache(w);
    const std::size_t full_lines = std::count(first.begin(), first.end(), '\n');
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::Blocked, "needs a\\decision\nfrom ops").ok());
    std::string body = facts_cache(w);
    EXPECT_NE(body.find("\n+\n"), std::string::npos) << body;
    EXPECT_EQ(static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n')), full_lines + 2) << body;
    expect_facts_match_the_log(w);
    std::size_t most_lines = 0;
    bool compacted = false;
    for (int i = 0; i < 80; ++i) {
        const std::string task = "task-" + std::to_string(1 + i % 3);
        const TaskStatus status = i % 4 == 0 ? TaskStatus::Blocked : TaskStatus::InProgress;
        ASSERT_TRUE(add_entry(w, task, status, "step " + std::to_string(i)).ok());
        body = facts_cache(w);
        ASSERT_FALSE(body.empty()) << "advanced, not dropped, at " << i;
        most_lines = std::max<std::size_t>(most_lines, std::count(body.begin(), body.end(), '\n'));
        compacted |= body.find("\n+\n") == std::string::npos;
        if (i % 20 == 0) expect_facts_match_the_log(w);
    }
    EXPECT_TRUE(compacted);
    EXPECT_LE(most_lines, full_lines + 66) << "the appended part is compacted";
    expect_facts_match_the_log(w);
}

// A corrupt appended part makes the whole cache worthless: it is neither
// read nor advanced, and the next read parses the log (then caches it).
TEST(ResumeFacts, ACorruptOrStaleCacheIsIgnored) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::InProgress, "begun").ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());
    ASSERT_TRUE(add_entry(w, "task-2", TaskStatus::InProgress, "begun").ok());
    const std::string good = facts_cache(w);
    ASSERT_NE(good.find("\n+\n"), std::string::npos);
    const std::string stamp = *real_fs.version_stamp(w.file("progress.small.yml"));
    for (const std::string& bad : {good + "task-2 completed\n", good + "task-2 completed x y\n", good + "+\n",
                                  good + "task-2 completed 9 unterminated", good + "task-2 done 9 bad\\escape\n"}) {
        SCOPED_TRACE(bad);
        write_stamped_cache(real_fs, w.ws(), kProgressFactsName, stamp, bad);
        expect_facts_match_the_log(w);
        const std::string again = facts_cache(w);
        EXPECT_FALSE(again.empty()) << "read again and cached";
        EXPECT_EQ(again.find("\n+\n"), std::string::npos) << "cached whole";
    }
    write_stamped_cache(real_fs, w.ws(), kProgressFactsName, stamp, good + "task-2 blocked nine x\n");
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::Completed, "done").ok());
    EXPECT_EQ(facts_cache(w), "") << "a corrupt cache is not advanced";  // readers then parse the log
    expect_facts_match_the_log(w);
    // Stale: the log changed by hand (no append went through the tool).
    std::ofstream(w.file("progress.small.yml"), std::ios::app)
        << "  - timestamp: \"2099-01-01T00:00:00.000000001Z\"\n    task_id: \"task-2\"\n    status: \"blocked\"\n"
        << "    evidence: \"by hand\"\n    replayId: \"" << w.run_id() << "\"\n";
    expect_facts_match_the_log(w);
    EXPECT_EQ(cached_log_facts(real_fs, w.ws(), w.run_id())->tasks.at("task-2").blocked_reason, "by hand");
}

// local.work is rewritten only when a task's first work entry adds its pair;
// a torn file reads as nothing recorded and is written whole again.
TEST(LocalWork, OnlyANewPairRewritesTheRecordAndATornOneIsReplaced) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::InProgress, "begun").ok());
    const std::string path = w.root_path(".small-cache/local.work");
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::Completed, "done").ok());
    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino) << "nothing new: not rewritten";
    ASSERT_TRUE(add_entry(w, "task-2", TaskStatus::InProgress, "begun").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}));
    std::ofstream(path, std::ios::trunc) << w.run_id() << " task-1\n" << w.run_id() << " torn";
    EXPECT_TRUE(local_work(real_fs, w.ws(), w.run_id()).empty()) << "torn: nothing recorded";
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::Completed, "again").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}))
        << "rebuilt from the run's log";
}

// A checkout's first record of a run counts the run's earlier work as its
// own (an upgrade mid-run, a cleared cache), so nothing it started before is
// taken for another branch's; plan edits and meta/ entries are not work.
TEST(LocalWork, TheFirstRecordOfARunCountsTheRunsEarlierWork) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", TaskStatus::InProgress, "begun").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1"}));
    fs::remove(w.root_path(".small-cache/local.work"));
    ASSERT_TRUE(add_entry(w, "task-2", TaskStatus::InProgress, "begun").ok());
    ASSERT_TRUE(add_entry(w, "meta/note", TaskStatus::Completed, "not work").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}));
    EXPECT_TRUE(local_work(real_fs, w.ws(), std::string(64, 'a')).empty()) << "another run";
}

}  // namespace resume_facts

}  // namespace
}  // namespace small
