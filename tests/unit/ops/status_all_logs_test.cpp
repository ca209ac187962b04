// `small status --all` compares each side's log with the current side's a
// range at a time (issue 39: neither log is held whole). For every layout
// (comments, block scalars, long entries, a malformed tail, no common
// prefix, no current log), it must say what the whole-text comparison it
// replaced says: the side's newest entry and its entries the current side
// lacks. The reference below is that comparison, as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/doc/yaml.hpp"
#include "small/domain/progress_query.hpp"
#include "small/ops/inspect/status_all.hpp"

namespace small {
namespace {

// ---- The whole-text comparison (the reference) ----

Document whole_items_from(std::string_view text, std::size_t from) {
    if (from >= text.size()) return {};
    Result<Document> doc = parse_yaml("entries:\n" + std::string(text.substr(from)), "log");
    return doc ? std::move(*doc) : Document();
}

NodeRef whole_sequence_of(const Document& items) {
    const NodeRef root = items.root();
    const NodeRef seq = root.is_mapping() ? root.find("entries") : NodeRef();
    return seq.is_sequence() ? seq : NodeRef();
}

std::size_t whole_item_start(std::string_view text, std::size_t pos, const SequenceStart& seq) {
    pos = std::min(pos, text.size());
    for (;;) {
        const std::size_t nl = pos == 0 ? std::string_view::npos : text.rfind('\n', pos - 1);
        const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
        if (begin <= seq.offset) return seq.offset;
        if (starts_item(text.substr(begin, text.find('\n', begin) - begin), seq.indent)) return begin;
        pos = begin - 1;
    }
}

std::string whole_field(NodeRef entry, std::string_view key) {
    const NodeRef v = entry.is_mapping() ? entry.find(key) : NodeRef();
    return v.is_string() ? std::string(v.as_string()) : std::string(v.scalar_text());
}

void whole_compare(std::string_view side, std::string_view current, WorkSide& out) {
    const std::optional<SequenceStart> seq = find_sequence(side, true);
    if (!seq) return;
    const Document last = whole_items_from(side, whole_item_start(side, side.size(), *seq));
    if (const NodeRef items = whole_sequence_of(last); items.valid() && items.size() > 0) {
        const NodeRef e = items.item(items.size() - 1);
        out.newest = SideEntry{whole_field(e, "timestamp"), whole_field(e, "task_id"), whole_field(e, "status"),
                               whole_field(e, "evidence")};
    }
    if (out.current) return;
    const std::size_t n = std::min(side.size(), current.size());
    const std::size_t prefix =
        static_cast<std::size_t>(std::mismatch(side.begin(), side.begin() + static_cast<std::ptrdiff_t>(n), current.begin()).first -
                                 side.begin());
    const std::size_t cut = whole_item_start(side, prefix, *seq);
    std::unordered_map<std::string, std::size_t> theirs;
    const Document their_items = whole_items_from(current, cut);
    const NodeRef ts = whole_sequence_of(their_items);
    for (std::size_t i = 0; ts.valid() && i < ts.size(); ++i) ++theirs[entry_identity(ts.item(i))];
    const Document our_items = whole_items_from(side, cut);
    const NodeRef os = whole_sequence_of(our_items);
    for (std::size_t i = 0; os.valid() && i < os.size(); ++i) {
        const auto it = theirs.find(entry_identity(os.item(i)));
        if (it != theirs.end() && it->second > 0) --it->second;
        else ++out.unmerged;
    }
}

// ---- Fixtures ----

std::string entry(std::size_t i, const std::string& task = "", const std::string& status = "completed") {
    const std::string id = task.empty() ? "task-" + std::to_string(i % 7 + 1) : task;
    return "  - timestamp: \"2026-01-01T00:00:" + std::to_string(10 + i % 50) + "." + std::to_string(100000000 + i) +
           "Z\"\n    task_id: \"" + id + "\"\n    status: \"" + status + "\"\n    evidence: \"step " +
           std::to_string(i) + "\"\n";
}

std::string log_of(std::size_t n, const std::string& extra = "") {
    std::string out = "small_version: \"1.0.0\"\nowner: \"agent\"\n# a comment\nentries:\n";
    for (std::size_t i = 0; i < n; ++i) out += entry(i);
    return out + extra;
}

// An entry with a comment and a long block scalar: lines at deeper
// indentation, some looking like items.
std::string block_entry(std::size_t lines, const std::string& task) {
    std::string out = "  # about the next one\n  - timestamp: \"2026-02-01T00:00:00.000000001Z\"\n    task_id: \"" + task +
                      "\"\n    status: \"in_progress\"\n    evidence: |\n";
    for (std::size_t i = 0; i < lines; ++i) out += "      - line " + std::to_string(i) + " of a long note\n";
    return out + "    notes: >-\n      folded\n      text\n";
}

struct Case {
    std::string name, side, current;
    bool current_side = false;
};

std::vector<Case> cases() {
    const std::string base = log_of(3000);  // about 400 KB: several backward ranges
    std::vector<Case> out;
    out.push_back({"same", base, base});
    out.push_back({"side ahead", base + entry(9001, "task-9") + entry(9002, "task-9", "blocked"), base});
    out.push_back({"both ahead", base + entry(9001, "task-9"), base + entry(9003, "task-8") + entry(9001, "task-9")});
    out.push_back({"current ahead", base, base + entry(9001)});
    out.push_back({"block scalar last", base + block_entry(20000, "task-5"), base});
    out.push_back({"block scalar both", base + block_entry(10, "task-5"), base + block_entry(11, "task-5")});
    out.push_back({"comment tail", base + entry(9001) + "# trailing comment\n\n", base});
    out.push_back({"malformed tail", base + "  - timestamp: [unclosed\n    task_id: x\n", base});
    out.push_back({"malformed current", base + entry(9001), base + "  - : : [\n"});
    out.push_back({"no common prefix", log_of(50), "small_version: \"1.0.0\"\nentries:\n" + entry(1)});
    out.push_back({"no current log", base + entry(9001), ""});
    out.push_back({"current side", base + entry(9001), base, true});
    out.push_back({"no entries", "small_version: \"1.0.0\"\nentries: []\n", base});
    out.push_back({"no sequence", "small_version: \"1.0.0\"\nowner: x\n", base});
    out.push_back({"indented", "small_version: \"1.0.0\"\nentries:\n    - task_id: a\n      status: completed\n"
                               "    - task_id: b\n      status: blocked\n",
                   "small_version: \"1.0.0\"\nentries:\n    - task_id: a\n      status: completed\n"});
    out.push_back({"crlf", "small_version: \"1.0.0\"\r\nentries:\r\n  - task_id: a\r\n    status: completed\r\n", base});
    out.push_back({"no final newline", base + entry(9001).substr(0, entry(9001).size() - 1), base});
    // A header longer than the first range read.
    std::string long_header = "small_version: \"1.0.0\"\nnotes: |\n";
    for (int i = 0; i < 5000; ++i) long_header += "  header line " + std::to_string(i) + "\n";
    out.push_back({"long header", long_header + "entries:\n" + entry(1) + entry(2), long_header + "entries:\n" + entry(1)});
    return out;
}

TEST(StatusAllLogs, RangedComparisonSaysWhatTheWholeTextOneSaid) {
    for (const Case& c : cases()) {
        MemoryFileSystem fs;
        fs.add_directory("/s");
        fs.add_file("/s/side.yml", c.side);
        if (!c.current.empty()) fs.add_file("/s/current.yml", c.current);
        WorkSide ranged, whole;
        ranged.current = whole.current = c.current_side;
        resolve_side_log(fs, "/s/side.yml", c.current.empty() ? "" : "/s/current.yml", "side:progress", ranged);
        whole_compare(c.side, c.current, whole);
        EXPECT_EQ(ranged.unmerged, whole.unmerged) << c.name;
        ASSERT_EQ(ranged.newest.has_value(), whole.newest.has_value()) << c.name;
        if (!whole.newest) continue;
        EXPECT_EQ(ranged.newest->timestamp, whole.newest->timestamp) << c.name;
        EXPECT_EQ(ranged.newest->task_id, whole.newest->task_id) << c.name;
        EXPECT_EQ(ranged.newest->status, whole.newest->status) << c.name;
        EXPECT_EQ(ranged.newest->evidence, whole.newest->evidence) << c.name;
    }
}

TEST(StatusAllLogs, TheCasesSayWhatTheyMeanTo) {
    // Guards the reference: the fixtures must exercise counts and newest entries.
    const std::vector<Case> all = cases();
    WorkSide ahead;
    whole_compare(all[1].side, all[1].current, ahead);
    EXPECT_EQ(ahead.unmerged, 2u);
    ASSERT_TRUE(ahead.newest);
    EXPECT_EQ(ahead.newest->status, "blocked");
    WorkSide both;
    whole_compare(all[2].side, all[2].current, both);
    EXPECT_EQ(both.unmerged, 0u);  // the current side has task-9's entry too
    WorkSide block;
    whole_compare(all[4].side, all[4].current, block);
    ASSERT_TRUE(block.newest);
    EXPECT_EQ(block.newest->task_id, "task-5");
    EXPECT_EQ(block.unmerged, 1u);
}

}  // namespace
}  // namespace small
