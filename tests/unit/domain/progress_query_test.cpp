// The tail query of the progress log: the same answer as a full parse, at a
// cost that does not grow with the log.
#include "small/domain/progress_query.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "small/doc/yaml.hpp"

namespace small {
namespace {

// Counts what the query reads, to prove it reads only the end of a large log.
class CountingFileSystem final : public FileSystem {
public:
    explicit CountingFileSystem(const MemoryFileSystem& inner) : inner_(inner) {}
    Result<std::string> read_file(const std::string& path) const override {
        ++whole_reads;
        return inner_.read_file(path);
    }
    bool file_exists(const std::string& path) const override { return inner_.file_exists(path); }
    bool directory_exists(const std::string& path) const override { return inner_.directory_exists(path); }
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override {
        return inner_.list_directory(path);
    }
    Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const override {
        Result<std::string> all = inner_.read_file(path);
        if (!all) return all.error();
        FileRange r;
        r.file_size = all->size();
        if (offset < all->size()) r.bytes = all->substr(offset, length);
        range_bytes += r.bytes.size();
        return r;
    }
    mutable std::size_t whole_reads = 0;
    mutable std::size_t range_bytes = 0;

private:
    const MemoryFileSystem& inner_;
};

const std::string kRun = std::string(64, 'a');
const std::string kOldRun = std::string(64, 'b');

std::string timestamp(int i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "2026-01-01T%02d:%02d:%02d.%09dZ", i / 3600 % 24, i / 60 % 60, i % 60, i);
    return buf;
}

// A house-style log of `n` entries over three tasks and two runs; entry i
// has evidence "e<i>" and, every 7th, a block scalar whose lines start with
// "- " deeper than the items (not a cut point).
std::string house_log(int n, const std::string& indent = "  ") {
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\n# a comment\nentries:\n";
    for (int i = 0; i < n; ++i) {
        log += indent + "- timestamp: \"" + timestamp(i) + "\"\n";
        log += indent + "  task_id: \"task-" + std::to_string(i % 3 + 1) + "\"\n";
        log += indent + "  status: \"" + (i % 5 == 0 ? "completed" : "in_progress") + "\"\n";
        log += indent + "  evidence: \"e" + std::to_string(i) + "\"\n";
        if (i % 7 == 0) log += indent + "  notes: |\n" + indent + "    - not an item\n" + indent + "    - nor this\n";
        log += indent + "  replayId: \"" + (i < n / 2 ? kOldRun : kRun) + "\"\n";
    }
    return log;
}

struct Fixture {
    MemoryFileSystem mem;
    WorkspacePaths ws;
    explicit Fixture(const std::string& log) {
        ws.root = "/w";
        ws.small_dir = "/w/.small";
        mem.add_directory(ws.small_dir);
        mem.add_file(ws.path_of("progress.small.yml"), log);
    }
};

// The answer computed the slow, obvious way.
std::vector<std::string> expected_evidence(const std::string& log, const EntryQuery& q) {
    Result<Document> doc = parse_yaml(log, "p");
    EXPECT_TRUE(doc.ok());
    const NodeRef entries = doc->root().find("entries");
    std::vector<std::string> out;
    for (std::size_t i = entries.size(); i-- > 0;) {
        const NodeRef e = entries.item(i);
        if (q.since && *parse_progress_timestamp(e.find("timestamp").as_string()) < *q.since) break;
        if (q.task && e.find("task_id").as_string() != *q.task) continue;
        if (q.status && e.find("status").as_string() != *q.status) continue;
        if (!q.run_id.empty() && e.find("replayId").as_string() != q.run_id) continue;
        if (q.limit && out.size() == q.limit) break;
        out.push_back(std::string(e.find("evidence").as_string()));
    }
    return out;
}

std::vector<std::string> evidence_of(const EntryList& list) {
    std::vector<std::string> out;
    for (const YamlValue& e : list.entries) out.push_back(e["evidence"].get<std::string>());
    return out;
}

std::vector<EntryQuery> sample_queries() {
    std::vector<EntryQuery> qs(8);
    qs[0].limit = 1;
    qs[1].limit = 20;
    qs[2].limit = 0;
    qs[3].task = "task-2";
    qs[3].limit = 50;
    qs[4].status = "completed";
    qs[4].run_id = kOldRun;  // only in the first half: the window must widen
    qs[4].limit = 5;
    qs[5].since = *parse_progress_timestamp(timestamp(2990));
    qs[6].task = "task-9";  // no match: scans the whole log
    qs[6].limit = 3;
    qs[7].run_id = kRun;
    qs[7].task = "task-1";
    return qs;
}

TEST(ProgressQuery, AnswersLikeAFullParseForEveryQuery) {
    for (const std::string indent : {"  ", "", "    "}) {
        const std::string log = house_log(3000, indent);
        Fixture f(log);
        for (const EntryQuery& q : sample_queries()) {
            Result<EntryList> r = query_entries(f.mem, f.ws, q);
            ASSERT_TRUE(r.ok()) << r.error().describe();
            EXPECT_EQ(evidence_of(*r), expected_evidence(log, q)) << "indent '" << indent << "' limit " << q.limit;
        }
    }
}

TEST(ProgressQuery, TheNewestEntriesCostTheSameOnAnyLogSize) {
    for (int n : {2000, 20000}) {
        Fixture f(house_log(n));
        CountingFileSystem counting(f.mem);
        EntryQuery q;
        q.limit = 5;
        Result<EntryList> r = query_entries(counting, f.ws, q);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->entries.size(), 5u);
        EXPECT_TRUE(r->more);
        EXPECT_EQ(r->entries.front()["evidence"], "e" + std::to_string(n - 1));
        EXPECT_EQ(counting.whole_reads, 0u);
        EXPECT_LE(counting.range_bytes, 2u * 64 * 1024) << n;  // head + first window, whatever n is
    }
}

TEST(ProgressQuery, UnusualShapesFallBackToTheFullParse) {
    const std::vector<std::string> logs = {
        "entries: [{timestamp: \"2026-01-01T00:00:00.1Z\", task_id: \"a\", status: \"completed\", evidence: \"x\"}]\n",
        "entries:\n  - {timestamp: \"2026-01-01T00:00:00.1Z\", task_id: \"a\", status: \"completed\", evidence: \"x\"}\n",
        "owner: agent\nentries:\n\n  # first\n  - timestamp: \"2026-01-01T00:00:00.1Z\"\n    evidence: \"x\"\n",
    };
    for (const std::string& log : logs) {
        Fixture f(log);
        Result<EntryList> r = query_entries(f.mem, f.ws, EntryQuery{});
        ASSERT_TRUE(r.ok()) << log << r.error().describe();
        ASSERT_EQ(r->entries.size(), 1u) << log;
        EXPECT_EQ(r->entries[0]["evidence"], "x");
    }
    Fixture empty("small_version: \"1.0.0\"\nentries: []\n");
    Result<EntryList> none = query_entries(empty.mem, empty.ws, EntryQuery{});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->entries.empty());
}

TEST(ProgressQuery, ALogThatDoesNotParseIsReportedWithItsPosition) {
    Fixture f("entries:\n  - timestamp: \"2026-01-01T00:00:00.1Z\n    evidence: x\n");
    Result<EntryList> r = query_entries(f.mem, f.ws, EntryQuery{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_GT(r.error().line, 0u);
}

}  // namespace
}  // namespace small
