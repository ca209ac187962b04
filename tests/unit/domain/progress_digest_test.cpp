// domain/progress_digest: the line scan agrees with a full parse on every
// shape of log, including the ones it hands to the loader.
#include "small/domain/progress_digest.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml.hpp"

namespace small {
namespace {

// The digest computed the slow way, from the document.
ProgressDigest by_document(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "p.yml");
    EXPECT_TRUE(doc) << text;
    ProgressDigest d;
    if (!doc) return d;
    std::optional<Instant> best;
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef e = entries.item(i);
        auto get = [&e](const char* k) -> std::optional<std::string> {
            if (!e.find(k).is_string()) return std::nullopt;
            return std::string(trim(e.find(k).as_string()));
        };
        ++d.entries;
        if (get("status") == std::optional<std::string>("completed") && get("task_id") && !get("task_id")->empty()) {
            d.completed_tasks.insert(*get("task_id"));
        }
        ++d.runs[get("replayId").value_or("")];
        if (const auto ts = get("timestamp")) {
            Result<Instant> at = parse_progress_timestamp(*ts);
            if (at && (!best || *at > *best)) best = *at, d.latest = *ts;
            if (!at && !best && d.latest.empty()) d.latest = *ts;
        }
    }
    return d;
}

void expect_same(const std::string& text) {
    Result<ProgressDigest> fast = digest_progress(text, "p.yml");
    ASSERT_TRUE(fast) << fast.error().message << "\n" << text;
    const ProgressDigest slow = by_document(text);
    EXPECT_EQ(fast->entries, slow.entries) << text;
    EXPECT_EQ(fast->completed_tasks, slow.completed_tasks) << text;
    EXPECT_EQ(fast->latest, slow.latest) << text;
    EXPECT_EQ(fast->runs, slow.runs) << text;
}

const char* kHead = "small_version: \"1.0.0\"\nowner: agent\nentries:\n";

TEST(ProgressDigest, HouseStyleLog) {
    std::string t = kHead;
    for (int i = 0; i < 50; ++i) {
        t += "  - timestamp: \"2026-01-01T00:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".000000001Z\"\n";
        t += "    task_id: \"task-" + std::to_string(i % 7) + "\"\n";
        t += std::string("    status: ") + (i % 3 == 0 ? "completed" : "\"in_progress\"") + "\n";
        t += "    evidence: \"step " + std::to_string(i) + "\"\n    replayId: \"" + std::string(64, 'a') + "\"\n";
    }
    expect_same(t);
}

TEST(ProgressDigest, UnusualItemsFallBackToTheLoader) {
    const std::string items[] = {
        "  - {task_id: a, status: completed, timestamp: \"2026-01-01T00:00:01.1Z\"}\n",
        "  - task_id: \"a\\u0062\"\n    status: completed\n",            // escaped: the loader decodes it
        "  - task_id: &x t1\n    status: completed\n",                      // anchor
        "  - task_id: 42\n    status: completed\n",                         // not a string
        "  - task_id: 'it''s'\n    status: 'completed'\n",
        "  - evidence: |\n      task_id: fake\n      status: completed\n    task_id: real\n    status: completed\n",
        "  - task_id:\n      t2\n    status: completed\n",                  // value on the next line
        "  - \"task_id\": quoted-key\n    status: completed\n",
        "  - task_id: t3 # a comment\n    status: completed  # done\n",
        "  -   task_id: wide\n      status: completed\n",
        "  - notes: \"spans\n      lines\"\n    task_id: t4\n    status: completed\n",
        "  - timestamp: not-a-time\n    task_id: t5\n",
        "  -\n    task_id: t6\n    status: completed\n",
        "  # a comment line\n  - task_id: t7\n    status: completed\n\n",
    };
    for (const std::string& item : items) expect_same(kHead + item + "  - task_id: last\n    status: blocked\n");
    std::string all = kHead;
    for (const std::string& item : items) all += item;
    expect_same(all);
}

TEST(ProgressDigest, OtherShapes) {
    expect_same("small_version: \"1.0.0\"\nowner: agent\nentries: []\n");
    expect_same("entries:\n- task_id: a\n  status: completed\n- task_id: b\n  status: completed\nowner: agent\n");
    expect_same("owner: agent\nentries: [{task_id: a, status: completed}]\n");
    expect_same("entries:\n  - task_id: x\n    status: completed\nsmall_version: \"1.0.0\"\n");
}

TEST(ProgressDigest, SyntaxErrorsAreReportedWithAPosition) {
    Result<ProgressDigest> d = digest_progress(std::string(kHead) + "  - task_id: [unclosed\n", "p.yml");
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().describe().find("p.yml"), std::string::npos);
}

}  // namespace
}  // namespace small

namespace small {
namespace {

TEST(ProgressDigest, AppendedItemsMergeIntoTheEarlierDigest) {
    std::string before = kHead;
    for (int i = 0; i < 5; ++i) {
        before += "  - task_id: t" + std::to_string(i) + "\n    status: completed\n    timestamp: \"2026-01-01T00:00:0" +
                  std::to_string(i) + ".000000001Z\"\n";
    }
    const std::string after = before + "  - task_id: t9\n    status: completed\n    timestamp: \"2026-02-01T00:00:00.000000001Z\"\n";
    Result<ProgressDigest> d = digest_progress(before, "p.yml");
    ASSERT_TRUE(d);
    const std::optional<ProgressDigest> grown = digest_appended(*d, before, after);
    ASSERT_TRUE(grown.has_value());
    Result<ProgressDigest> whole = digest_progress(after, "p.yml");
    ASSERT_TRUE(whole);
    EXPECT_EQ(grown->entries, whole->entries);
    EXPECT_EQ(grown->completed_tasks, whole->completed_tasks);
    EXPECT_EQ(grown->latest, whole->latest);
    EXPECT_EQ(grown->runs, whole->runs);
    // Not an extension, or keys after the sequence: the caller digests whole.
    EXPECT_FALSE(digest_appended(*d, before, "x" + after).has_value());
    EXPECT_FALSE(digest_appended(*d, before + "owner: agent\n", before + "owner: agent\n  - task_id: x\n").has_value());
    EXPECT_FALSE(digest_appended(*d, before, before + "    notes: continues the last item\n").has_value());
}

}  // namespace
}  // namespace small

// Issue 39: a long log is digested a window of whole items at a time, to the
// digest of the whole read, whatever the window; a layout windows cannot
// follow, or a link, is read as read_file_no_follow reads it.
namespace small {
namespace {

std::string described(const Result<ProgressDigest>& d) {
    if (!d) return "error " + d.error().message;
    std::string out = std::to_string(d->entries) + " latest " + d->latest + "\n";
    for (const std::string& t : d->completed_tasks) out += "completed " + t + "\n";
    for (const auto& [run, n] : d->runs) out += "run " + run + " " + std::to_string(n) + "\n";
    return out;
}

TEST(ProgressDigestFile, InWindowsIsTheWholeDigest) {
    std::string body;
    for (int i = 0; i < 40; ++i) {
        body += "  - timestamp: \"2025-01-01T00:00:" + std::to_string(10 + (i * 7) % 40) + ".000000000Z\"\n" +
                "    task_id: \"t" + std::to_string(i % 6) + "\"\n    status: \"" + (i % 3 ? "completed" : "blocked") +
                "\"\n    replayId: \"" + std::string(i % 4 ? "r1" : "r2") + "\"\n";
        if (i % 5 == 0) body += "    notes: |\n      - task_id: not an item\n  # a comment\n";
        if (i % 9 == 0) body += "  - {timestamp: '2025-01-02T00:00:00Z', task_id: \"flow" + std::to_string(i) + "\", status: completed}\n";
    }
    const std::string head = "small_version: \"1.0.0\"\nentries:\n";
    int windowed = 0;
    for (const std::string& log : {head + body, head + body + "trailing: key\n", "entries:\n" + body,
                                   std::string("entries:\n- task_id: \"indentless\"\n  status: completed\n")}) {
        MemoryFileSystem fs;
        fs.add_file("/s/progress.small.yml", log);
        const std::string whole = described(digest_progress(log, "p"));
        for (std::size_t window : {1u, 100u, 1000u}) {
            EXPECT_EQ(described(digest_progress_file(fs, "/s", "progress.small.yml", "p", LogWindows{0, window})), whole)
                << window << "\n" << log;
            fs.set_max_read_bytes(log.size() - 1);  // only windows can read it now
            windowed += digest_progress_file(fs, "/s", "progress.small.yml", "p", LogWindows{0, window}).ok();
            fs.set_max_read_bytes(kMaxFileBytes);
        }
    }
    EXPECT_GE(windowed, 6);
    MemoryFileSystem fs;
    fs.add_symlink("/s/progress.small.yml");
    EXPECT_FALSE(digest_progress_file(fs, "/s", "progress.small.yml", "p", LogWindows{0, 100}).ok());
}

}  // namespace
}  // namespace small
