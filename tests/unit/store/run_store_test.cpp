// The run store (store/run_store): snapshots before replacing files, and the plan index cache.
#include "support/fixtures.hpp"

#include "small/ops/session/plan.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/store/progress_log.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/folder_publish.hpp"
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

TEST(RunStore, SnapshotReusesIdenticalBytesAndNeverOverwritesOthers) {
    InitWorkspace w;
    Result<std::string> first = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(first.ok()) << first.error().describe();
    EXPECT_EQ(*first, w.root_path(".small-runs/" + w.run_id()));
    EXPECT_EQ(read_text(*first + "/intent.small.yml"), w.read("intent.small.yml"));
    EXPECT_EQ(read_text(*first + "/handoff.small.yml"), w.read("handoff.small.yml"));
    Result<std::string> again = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *first);  // same bytes: reused

    PlanRequest add = plan_req();
    add.add = {"Changed since"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    Result<std::string> second = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*second, *first + ".2");  // other bytes: a new folder, the old one kept
    EXPECT_TRUE(contains(read_text(*second + "/plan.small.yml"), "Changed since"));
    EXPECT_FALSE(contains(read_text(*first + "/plan.small.yml"), "Changed since"));
    EXPECT_FALSE(fs::exists(w.root_path(".small-runs/." + w.run_id() + ".partial")));
}

// Issue 39: a folder is filled by copies streamed through one buffer,
// hashed while copied; a fill that fails half way leaves nothing.
TEST(RunStore, AFolderFilledByCopiesHoldsTheirBytesAndHashes) {
    InitWorkspace w;
    const std::string log = w.read("progress.small.yml");
    const std::string dir = w.root_path(".small-runs/copied");
    CopiedFile copied;
    const Status made = write_folder_atomic(real_fs, w.ws(), dir, [&](FolderSink& sink) -> Status {
        Result<CopiedFile> c = sink.copy(w.ws().small_dir, "progress.small.yml");
        if (!c) return c.error();
        copied = *c;
        return sink.write("note.txt", "hi\n");
    });
    ASSERT_TRUE(made) << made.error().describe();
    EXPECT_EQ(read_text(dir + "/progress.small.yml"), log);
    EXPECT_EQ(read_text(dir + "/note.txt"), "hi\n");
    EXPECT_EQ(copied.sha256, sha256_hex(log));
    EXPECT_EQ(copied.bytes, log.size());

    const std::string failed = w.root_path(".small-runs/failed");
    const Status refused = write_folder_atomic(real_fs, w.ws(), failed, [&](FolderSink& sink) -> Status {
        if (Status s = sink.write("a.txt", "a"); !s) return s;
        Result<CopiedFile> c = sink.copy(w.ws().small_dir, "missing.small.yml");
        return c ? ok_status() : Status(c.error());
    });
    EXPECT_FALSE(refused);
    EXPECT_FALSE(fs::exists(failed));
    EXPECT_FALSE(fs::exists(w.root_path(".small-runs/.failed.partial")));
    const Status not_plain = write_folder_atomic(real_fs, w.ws(), failed, [&](FolderSink& sink) -> Status {
        Result<CopiedFile> c = sink.copy(w.ws().root, ".small/progress.small.yml");
        return c ? ok_status() : Status(c.error());
    });
    EXPECT_FALSE(not_plain) << "a copy names a plain file name";
    EXPECT_FALSE(fs::exists(failed));
}

TEST(RunStore, SnapshotRefusesAKeyThatIsNotAReplayId) {
    InitWorkspace w;
    for (const std::string& bad : {std::string("../../etc"), std::string("abc"), std::string(64, 'g')}) {
        Result<std::string> r = snapshot_run(real_fs, w.ws(), bad);
        EXPECT_FALSE(r.ok()) << bad;
    }
    EXPECT_FALSE(fs::exists(w.root_path(".small-runs")));
}

TEST(RunStore, InitForceCopiesTheReplacedArtifactsFirst) {
    InitWorkspace w("An intent a human accepted");
    const std::string intent = w.read("intent.small.yml");
    const std::string log = w.read("progress.small.yml");
    InitRequest req;
    req.dir = w.ws().root;
    req.cwd = w.ws().root;
    req.no_agents = true;
    req.force = true;
    Result<InitResult> r = init_command(real_fs, req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_FALSE(r->snapshot_dir.empty());
    EXPECT_EQ(r->snapshot_dir, w.root_path(".small-runs/" + w.run_id()));
    EXPECT_EQ(read_text(r->snapshot_dir + "/intent.small.yml"), intent);  // D15: nothing replaced is lost
    EXPECT_FALSE(contains(w.read("intent.small.yml"), "An intent a human accepted"));
    EXPECT_EQ(w.read("progress.small.yml").substr(0, log.size()), log);  // D7: the log is kept
}

TEST(PlanIndex, TaskIdsAndStatusesWithBackslashesNewlinesAndSpacesSurviveTheCache) {
    InitWorkspace w;
    std::string plan = w.plan_bytes();
    const std::string odd = "  - id: \"a\\\\b\\nc d\"\n    title: \"odd\"\n    status: \"in progress\"\n";
    plan += odd;
    std::ofstream(w.file("plan.small.yml"), std::ios::trunc) << plan;
    for (int pass = 0; pass < 2; ++pass) {  // a cold read, then the cache
        Result<PlanIndex> index = load_plan_index(real_fs, w.ws());
        ASSERT_TRUE(index.ok()) << index.error().describe();
        ASSERT_EQ(index->tasks.size(), 2u) << pass;
        const PlanTaskInfo* t = index->find("a\\b\nc d");
        ASSERT_NE(t, nullptr) << pass;
        EXPECT_EQ(t->status.word(), "in progress");  // a status the schema rejects is still kept as it is
        EXPECT_TRUE(read_stamped_cache(real_fs, w.ws(), kPlanTasksName, *file_version(w.file("plan.small.yml"))));
    }
}

}  // namespace
}  // namespace small
