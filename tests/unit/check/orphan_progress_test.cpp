// check/orphan_progress: OrphanScan, fed the log a window at a time (issue
// 39), finds the orphans find_orphan_entries finds in the whole log, in the
// same order, superseded ones left out wherever their superseding entry is.
#include "small/check/orphan_progress.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "small/base/text.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"

namespace small {
namespace {

const std::string kRun(64, 'a');

Document parse(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "test");
    EXPECT_TRUE(doc.ok()) << text;
    return std::move(doc.value());
}

std::string entry(const std::string& task, int i, const std::string& run = kRun) {
    return "  - timestamp: \"2025-01-01T00:00:" + std::to_string(10 + i) + ".000000000Z\"\n    task_id: \"" + task +
           "\"\n    status: \"" + (i % 2 ? "completed" : "blocked") + "\"\n    replayId: \"" + run + "\"\n";
}

// An entry that supersedes `orphan` (given as the whole read found it).
std::string superseding(const OrphanEntry& orphan, int i) {
    return "  - timestamp: \"2025-01-01T00:01:" + std::to_string(10 + i) + ".000000000Z\"\n    task_id: \"meta/x\"\n" +
           "    evidence:\n      supersedes:\n        task_id: \"" + orphan.task_id + "\"\n        timestamp: \"" +
           orphan.timestamp + "\"\n        entry_sha256: \"" + progress_entry_digest(orphan.entry) + "\"\n";
}

std::string describe(const std::vector<OrphanRecord>& found) {
    std::string out;
    for (const OrphanRecord& o : found) out += std::to_string(o.index) + " " + o.task_id + " " + o.timestamp + " " + o.status + " " + o.digest + "\n";
    return out;
}

std::string describe(const std::vector<OrphanEntry>& found) {
    std::string out;
    for (const OrphanEntry& o : found) {
        out += std::to_string(o.index) + " " + o.task_id + " " + o.timestamp + " " +
               std::string(trim(o.entry.find("status").as_string())) + " " + progress_entry_digest(o.entry) + "\n";
    }
    return out;
}

std::string scanned(const std::string& log, NodeRef plan, const std::string& scope, std::size_t window) {
    MemoryFileSystem fs;
    fs.add_file("/log.yml", log);
    OrphanScan scan(plan, scope);
    EXPECT_TRUE(for_each_entry_window(fs, "/log.yml", "log", LogWindows{0, window},
                                      [&](const Document& w) { scan.add(w.root().find("entries")); }));
    return describe(scan.orphans());
}

TEST(OrphanScan, InWindowsFindsWhatTheWholeReadFinds) {
    const Document plan = parse("tasks:\n  - id: \"task-1\"\n  - id: \"task-2\"\n");
    std::string body;
    for (int i = 0; i < 30; ++i) {
        const std::string task = i % 5 == 0 ? "reset" : i % 7 == 0 ? "task-99" : i % 3 == 0 ? "meta/m" : "task-1";
        body += entry(task, i, i % 11 == 0 ? std::string(64, 'b') : kRun);
    }
    const std::string head = "small_version: \"1.0.0\"\nentries:\n";
    // Half the orphans superseded, by entries after them.
    const Document first = parse(head + body);
    const std::vector<OrphanEntry> all = find_orphan_entries(plan.root(), first.root().find("entries"), kRun);
    ASSERT_GE(all.size(), 6u);
    std::string tail;
    for (std::size_t k = 0; k < all.size(); k += 2) tail += superseding(all[k], static_cast<int>(k));
    const std::string log = head + body + tail;
    const Document whole = parse(log);
    for (const std::string& scope : {kRun, std::string()}) {
        const std::string expected = describe(find_orphan_entries(plan.root(), whole.root().find("entries"), scope));
        ASSERT_FALSE(expected.empty());
        for (std::size_t window : {1u, 100u, 700u, 100000u}) {
            EXPECT_EQ(scanned(log, plan.root(), scope, window), expected) << "window " << window;
        }
    }
    EXPECT_LT(describe(find_orphan_entries(plan.root(), whole.root().find("entries"), kRun)).size(),
              describe(all).size());  // not vacuous: some were superseded
}

TEST(OrphanScan, APlanWithoutTasksHasNoOrphans) {
    const Document plan = parse("tasks: []\n");
    const Document log = parse("entries:\n" + entry("task-99", 1));
    OrphanScan scan(plan.root(), "");
    scan.add(log.root().find("entries"));
    EXPECT_TRUE(scan.orphans().empty());
}

}  // namespace
}  // namespace small
