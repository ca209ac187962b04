// `small progress migrate` (ops/session/progress_migrate.hpp) read and
// rewritten in windows of whole entries (issue 39): for every layout, the
// same report and the same bytes as the whole read, which windows cannot
// follow everywhere (then the whole read runs); the errors placed in the
// file as the whole read places them; nothing written on a failure.
#include "small/ops/session/progress_migrate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/artifact_texts.hpp"

namespace small {
namespace {

namespace fx = small::test_fixtures;

constexpr LogWindows kWholeLog{UINT64_MAX, 1};
const std::string kLog = "/w/.small/progress.small.yml";

// A workspace on a fake disk, its log `log`.
struct MemoryWorkspace {
    MemoryFileSystem fs;
    WorkspacePaths ws;
    explicit MemoryWorkspace(const std::string& log) {
        ws.root = "/w";
        ws.small_dir = "/w/.small";
        ws.display_prefix = "/w/";
        fs.add_directory("/w/.small");
        fs.add_file("/w/.small/intent.small.yml", fx::kIntent);
        fs.add_file("/w/.small/constraints.small.yml", fx::kConstraints);
        fs.add_file("/w/.small/plan.small.yml", fx::kPlan);
        fs.add_file("/w/.small/handoff.small.yml", fx::kHandoff);
        fs.add_file("/w/.small/workspace.small.yml", fx::minimal_workspace_meta(true));
        fs.add_file(kLog, log);
    }
    Result<ProgressMigrateResult> migrate(const LogWindows& windows, bool dry_run = false) {
        ProgressMigrateRequest req;
        req.dry_run = dry_run;
        req.windows = windows;
        req.lock_wait = std::chrono::milliseconds(1000);
        return progress_migrate_command(fs, ws, req);
    }
    // (Read in a range: a whole read may be refused, see set_max_read_bytes.)
    std::string log() const { return fs.read_range(kLog, 0, std::size_t{1} << 30)->bytes; }
};

// What a migration says and leaves, as one text to compare.
std::string outcome(const Result<ProgressMigrateResult>& r, const MemoryWorkspace& w) {
    if (!r) {
        const Error& e = r.error();
        return "error " + e.message + " at " + e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
               "\n" + w.log();
    }
    std::string out = std::to_string(r->entries) + " entries, written " + std::to_string(r->written) + ", whole " +
                      std::to_string(r->whole_file_rewritten) + ", " + r->warning + "\n";
    for (const TimestampChange& c : r->changes) out += std::to_string(c.index) + " " + c.before + " -> " + c.after + "\n";
    return out + w.log();
}

// One entry in a layout that varies with `i`: quoting of the timestamp,
// ties, time zones, comments between entries, block scalars, flow entries,
// the timestamp not first.
std::string entry(int i) {
    const std::string second = std::to_string(10 + i / 3);  // every three entries share a second: ties
    const std::string ts[] = {"2025-01-01T00:00:" + second + "Z", "'2025-01-01T00:00:" + second + "Z'",
                              "\"2025-01-01T02:00:" + second + "+02:00\"", "\"2025-01-01T00:00:" + second + ".5Z\""};
    const std::string stamp = ts[i % 4];
    std::string e;
    if (i % 5 == 4) e += "  # a comment between entries\n";
    if (i % 11 == 10) e += "# a comment at the left margin\n";
    if (i % 7 == 3) return e + "  - {timestamp: " + stamp + ", task_id: \"t" + std::to_string(i) + "\", status: \"completed\"}\n";
    if (i % 6 == 1) {
        return e + "  - task_id: \"t" + std::to_string(i) + "\"\n    timestamp: " + stamp + "   # trailing\n" +
               "    notes: |\n      - timestamp: not an entry\n\n      a block of lines\n";
    }
    e += "  - timestamp: " + stamp + "\n    task_id: \"t" + std::to_string(i) + "\"\n    status: \"completed\"\n";
    if (i % 4 == 2) e += "    evidence: >-\n      folded\n      text\n";
    return e;
}

std::string entries(int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += entry(i);
    return out;
}

std::string crlf(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

const std::string kHead = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";

std::vector<std::string> layouts() {
    const std::string body = entries(40);
    std::string indentless;
    for (int i = 0; i < 20; ++i) indentless += "- timestamp: 2025-01-01T00:00:0" + std::to_string(i % 10) + "Z\n  task_id: \"x\"\n";
    std::string canonical;
    for (int i = 0; i < 20; ++i) canonical += "  - timestamp: \"2025-01-01T00:00:0" + std::to_string(i % 10) + ".00000000" + std::to_string(i / 10) + "Z\"\n    task_id: \"x\"\n";
    return {
        kHead + body,
        "# a header comment\n" + kHead + body,
        crlf(kHead + body),
        "\xEF\xBB\xBF" + kHead + body,                                         // a byte order mark
        "small_version: \"1.0.0\"\nentries:\n" + indentless,                   // entries at the left margin
        kHead + "  # a comment before the first entry\n" + body,              // read whole
        kHead + body + "trailing: key\n",                                      // read whole
        kHead + body.substr(0, body.size() - 1),                               // no final line break
        "small_version: \"1.0.0\"\nowner: &o \"agent\"\nentries:\n" + body,  // an anchor in the header
        kHead + canonical,                                                     // nothing to change
    };
}

TEST(ProgressMigrateWindows, RewriteToTheWholeReadsBytes) {
    int windowed = 0;
    for (const std::string& log : layouts()) {
        for (bool dry_run : {true, false}) {
            MemoryWorkspace whole(log);
            const std::string expected = outcome(whole.migrate(kWholeLog, dry_run), whole);
            for (std::size_t window : {1u, 64u, 300u, 4096u}) {
                MemoryWorkspace w(log);
                EXPECT_EQ(outcome(w.migrate(LogWindows{0, window}, dry_run), w), expected)
                    << "window " << window << (dry_run ? " (dry run)\n" : "\n") << log;
                // Refused a whole read, only windows can do it: not vacuous.
                MemoryWorkspace bounded(log);
                bounded.fs.set_max_read_bytes(log.size() - 1);
                const Result<ProgressMigrateResult> r = bounded.migrate(LogWindows{0, window}, dry_run);
                if (r) {
                    EXPECT_EQ(outcome(r, bounded), expected) << "window " << window << "\n" << log;
                    ++windowed;
                }
            }
        }
    }
    EXPECT_GE(windowed, 50);  // most layouts and windows were read (and written) in windows alone
}

// A timestamp that is not a string of a time stops the migration before
// anything is written, placed (file, line, column) as the whole read places
// it, in any window.
TEST(ProgressMigrateWindows, ABadTimestampIsPlacedInTheFile) {
    const std::string body = entries(30);
    const std::vector<std::string> bad = {
        kHead + body + "  - timestamp: \"not-a-time\"\n    task_id: \"x\"\n" + entries(10),
        kHead + body + "  - task_id: \"no time\"\n" + entries(10),
        crlf(kHead + body + "  - timestamp: 12\n    task_id: \"x\"\n" + entries(10)),
    };
    for (const std::string& log : bad) {
        MemoryWorkspace whole(log);
        const Result<ProgressMigrateResult> expected = whole.migrate(kWholeLog);
        ASSERT_FALSE(expected);
        EXPECT_GT(expected.error().line, 60u);
        for (std::size_t window : {1u, 200u, 5000u}) {
            MemoryWorkspace w(log);
            w.fs.set_max_read_bytes(log.size() - 1);
            EXPECT_EQ(outcome(w.migrate(LogWindows{0, window}), w), outcome(expected, whole)) << window << "\n" << log;
            EXPECT_EQ(w.log(), log);
        }
    }
}

// An entry that does not parse, mid-log: the whole read's error, with its
// line and column, and the log untouched.
TEST(ProgressMigrateWindows, AMalformedEntryMidLogIsTheWholeReadsError) {
    const std::string log = kHead + entries(30) + "  - timestamp: [broken\n    task_id: \"x\"\n" + entries(10);
    MemoryWorkspace whole(log);
    const Result<ProgressMigrateResult> expected = whole.migrate(kWholeLog);
    ASSERT_FALSE(expected);
    EXPECT_EQ(expected.error().file, whole.ws.display_of("progress.small.yml"));
    EXPECT_GT(expected.error().line, 60u);
    EXPECT_GT(expected.error().column, 0u);
    for (std::size_t window : {1u, 200u}) {
        MemoryWorkspace w(log);
        EXPECT_EQ(outcome(w.migrate(LogWindows{0, window}), w), outcome(expected, whole));
        EXPECT_EQ(w.log(), log);
    }
}

// A timestamp the in-place edit cannot reach (a block scalar): a dry run
// stays in windows; the write re-emits the whole file, as it always did.
TEST(ProgressMigrateWindows, AnUnreachableTimestampRewritesTheWholeFile) {
    const std::string log = kHead + entries(20) + "  - timestamp: >-\n      2025-01-01T00:00:00Z\n    task_id: \"x\"\n" +
                            entries(5);
    for (bool dry_run : {true, false}) {
        MemoryWorkspace whole(log);
        const std::string expected = outcome(whole.migrate(kWholeLog, dry_run), whole);
        EXPECT_NE(expected.find(dry_run ? "written 0" : ": rewritten in house style"), std::string::npos) << expected;
        MemoryWorkspace w(log);
        EXPECT_EQ(outcome(w.migrate(LogWindows{0, 100}, dry_run), w), expected);
    }
}

}  // namespace
}  // namespace small
