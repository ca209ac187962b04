// The verified prefix of the progress log (check/verified_prefix) never
// changes a verdict: random workspaces, random changes anywhere (appends
// good and bad, edits inside the verified bytes, truncation, reordering,
// other files), and every verdict read after the prefix equals the one read
// from the whole log. And it is used: plain appends are read warm.
#include "small/check/verified_prefix.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "small/check/verdict.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/resume_point.hpp"
#include "small/store/verified_cache.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

namespace small {
namespace {

using namespace small::testing;

// INV-R8 quotes the clock, which moves between two runs.
std::string without_clock(std::string message) {
    const std::string marker = "ahead of the clock (";
    if (const std::size_t at = message.find(marker); at != std::string::npos) {
        message.erase(at + marker.size(), message.find(')', at) - at - marker.size());
    }
    return message;
}

std::string full(const Verdict& v) {
    std::string out = "outcome " + std::to_string(static_cast<int>(v.outcome)) + "\n";
    const auto add = [&](const std::vector<Finding>& fs) {
        for (const Finding& f : fs) {
            out += "  [" + f.rule + "/" + std::to_string(static_cast<int>(f.severity)) + "] " + f.file + ":" +
                   std::to_string(f.mark.line) + ":" + std::to_string(f.mark.column) + " " + f.pointer + ": " +
                   without_clock(f.message) + " | " + f.hint + "\n";
        }
    };
    add(v.blocking);
    for (const StageResult& s : v.stages) {
        out += "stage " + s.name + " " + stage_status_name(s.status) + "\n";
        add(s.findings);
    }
    return out;
}

enum class Kind { Validate, Lint, Verify, Check };

}  // namespace

// Readable in a failed comparison.
void PrintTo(const VerifiedPrefix& p, std::ostream* os) {
    *os << "{length " << p.length << ", header " << p.header_length << ", indent " << p.item_indent << ", hash "
        << p.hash << ", entries " << p.entries << ", checks " << p.checks << ", last " << p.last_timestamp << ", work "
        << p.work_entries << " newest " << p.newest_work << ", evidence";
    for (const auto& [id, has] : p.evidence) *os << " " << id << "=" << has;
    *os << ", task ids";
    for (const auto& [run, ids] : p.task_ids) {
        for (const std::string& id : ids) *os << " " << run.substr(0, 8) << ":" << id;
    }
    *os << ", stamped " << p.stamp.has_value() << "}";
}

namespace {

// Without windows (the whole log is read) unless `windows` says otherwise.
constexpr LogWindows kWhole{UINT64_MAX, 1};

Verdict run(Kind kind, const FileSystem& fs, const VerifiedPrefix* prefix, bool strict, LogWindows windows = kWhole) {
    const VerdictInput in{fs, TestWorkspace::paths(fs), builtin_schemas(), prefix, true, windows};
    VerdictOptions options;
    options.strict = strict;
    switch (kind) {
        case Kind::Validate: return run_validate(in);
        case Kind::Lint: return run_lint(in, options);
        case Kind::Verify: return run_verify(in, options);
        case Kind::Check: break;
    }
    return run_check(in, options);
}

// Random SMALL text, formatted the ways people and tools write it.
class Gen {
public:
    explicit Gen(unsigned seed) : rng_(seed) {
        indent_ = pick(3) == 0 ? "" : "  ";
        crlf_ = pick(8) == 0;
    }
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

    std::string nl() const { return crlf_ ? "\r\n" : "\n"; }
    std::string task() { return pick(8) == 0 ? "meta/note" : "task-" + std::to_string(1 + pick(tasks_)); }

    std::string plan() {
        static const char* statuses[] = {"pending", "in_progress", "completed", "blocked"};
        std::string out = "small_version: \"1.0.0\"" + nl() + "owner: \"agent\"" + nl() + "tasks:" + nl();
        for (int i = 1; i <= tasks_; ++i) {
            // Completed or blocked only where an entry will carry evidence (S1).
            const char* status = statuses[pick(2)];
            out += "  - id: \"task-" + std::to_string(i) + "\"" + nl() + "    title: \"Task " + std::to_string(i) + "\"" +
                   nl() + "    status: \"" + status + "\"" + nl();
        }
        return out;
    }

    std::string timestamp() {
        ++clock_;
        char buf[64];
        std::snprintf(buf, sizeof buf, "2025-06-01T%02d:%02d:%02d.%09dZ", 10 + clock_ / 3600 % 10, clock_ / 60 % 60,
                      clock_ % 60, 100000000 + clock_);
        return buf;
    }

    // One entry; `defect` picks what is wrong with it (0: nothing).
    std::string entry(int defect = 0) {
        const std::string i = indent_;
        std::string ts = timestamp();
        if (defect == 1) ts = "2025-06-01T10:00:00Z";                    // no fraction (INV-R5)
        if (defect == 2) ts = "2024-01-01T00:00:00.000000000Z";          // before the others (INV-R6)
        if (defect == 3) ts = "2099-01-01T00:00:00.000000000Z";          // far ahead (INV-R8)
        const std::string id = defect == 4 ? "task-99" : task();         // not in the plan (S2)
        std::string out = i + "- timestamp: \"" + ts + "\"" + nl() + i + "  task_id: \"" + id + "\"" + nl();
        out += i + "  status: \"" + std::string(pick(2) ? "completed" : "in_progress") + "\"" + nl();
        if (defect != 5) {  // no evidence (INV-R7)
            std::string evidence = pick(4) == 0 ? "ran make && ctest -R 'a*'" : "step " + std::to_string(clock_);
            if (defect == 6) evidence = "token ghp_" + std::string(36, 'a');  // a secret (strict)
            out += i + "  evidence: \"" + evidence + "\"" + nl();
        }
        if (pick(3) == 0) out += i + "  notes: |" + nl() + i + "    line one" + nl() + i + "    line two" + nl();
        if (rich_) out += rich_lines();
        if (defect == 7) out += i + "  surprise: 1" + nl();  // not in the schema
        const int run = pick(4);
        if (run == 0) out += i + "  replayId: \"" + std::string(kRunId) + "\"" + nl();
        if (run == 1) out += i + "  replayId: \"" + std::string(kOtherRunId) + "\"" + nl();
        return out;
    }

    std::string progress(int entries) {
        std::string out = "small_version: \"1.0.0\"" + nl();
        if (pick(4) == 0) out += "# the log" + nl();
        out += "owner: \"agent\"" + nl() + "entries:" + (pick(5) == 0 ? std::string("  # newest last") : "") + nl();
        // Now and then a defect a narrower verdict does not see (validate: INV-*; lint: secrets).
        const int flawed = pick(4) == 0 ? pick(entries) : -1;
        for (int n = 0; n < entries; ++n) {
            out += entry(n == flawed ? 2 + pick(5) : 0);
            if (rich_ && pick(6) == 0) out += pick(2) ? nl() : (pick(2) ? indent_ : "") + "# between entries" + nl();
        }
        return out;
    }

    // Comments, folded and kept block scalars and blank lines inside entries
    // (windows cut only before an entry, so these must read as in the whole file).
    void enable_rich_entries(bool quirks = true) {
        rich_ = true;
        quirks_ = quirks;
    }

    // Bytes that do not make whole entries, or make them oddly.
    std::string odd_suffix() {
        switch (pick(12)) {
            case 0: return indent_ + "  extra: \"continues the last entry\"" + nl();
            case 1: return "extra_key: 1" + nl();
            case 2: return "---" + nl() + entry();
            case 3: return "..." + nl() + entry();
            case 4: return "# a comment" + nl() + entry();
            case 5: return nl() + nl() + entry();
            case 6: return indent_ + "- &a {task_id: \"task-1\"}" + nl() + indent_ + "- *a" + nl();
            case 7: return indent_ + "- *nowhere" + nl();
            case 8: return indent_ + "  - nested: 1" + nl();
            case 9: return indent_ + "- [1, 2]" + nl();
            case 10: return entry().substr(0, 20);  // torn in the middle of a line
            default: return indent_ + "-" + nl() + indent_ + "  task_id: \"task-1\"" + nl();
        }
    }

private:
    std::string rich_lines() {
        const std::string i = indent_;
        switch (pick(quirks_ ? 7 : 6)) {
            case 6:  // read at the end of the input, not before another entry
                return i + "  command_ref:" + nl() + i + "  a:\"x\"" + nl();
            case 0: return i + "  # a comment in the entry" + nl();
            case 1: return i + "  command_summary: |+" + nl() + i + "    kept" + nl() + nl() + nl();
            case 2: return i + "  command_summary: >-" + nl() + i + "    folded" + nl() + nl() + i + "    text" + nl();
            case 3: return i + "  command_summary: |" + nl() + i + "    # not a comment" + nl() + i + "    - not an entry" + nl();
            case 4: return nl();
            default: return "";
        }
    }

    std::mt19937 rng_;
    bool rich_ = false;
    bool quirks_ = false;
    std::string indent_;
    bool crlf_ = false;
    int tasks_ = 4;
    int clock_ = 0;
};

// The handoff's first line records the plan and log it was computed from
// (HANDOFF-STALE compares; the prefix carries the log's side).
void record_source(TestWorkspace& ws) {
    Result<Document> plan = parse_yaml(ws.text("plan"), "plan");
    Result<Document> log = parse_yaml(ws.text("progress"), "progress");
    if (!plan || !log) return;  // a log that does not parse has nothing to record
    const HandoffSource source = handoff_source(outline_plan(plan->root()), log_facts(log->root(), ""));
    ws.set("handoff", source_comment(source) + kHandoff);
}

// A change of the workspace, after the prefix was taken.
void mutate(Gen& g, TestWorkspace& ws, std::string& what) {
    std::string& log = ws.text("progress");
    switch (g.pick(14)) {
        case 0: what = "nothing"; break;
        case 1: case 2: case 3:
            what = "append";
            for (int n = 1 + g.pick(3); n > 0; --n) log += g.entry();
            break;
        case 4: case 5:
            what = "append a defect";
            log += g.entry(1 + g.pick(7));
            break;
        case 6:
            what = "append odd bytes";
            log += g.odd_suffix();
            break;
        case 7: {
            what = "same-size edit";
            const std::size_t at = static_cast<std::size_t>(g.pick(static_cast<int>(log.size())));
            log[at] = log[at] == '1' ? '2' : (log[at] == '"' ? '\'' : '1');
            break;
        }
        case 8:
            what = "truncate";
            log.resize(static_cast<std::size_t>(g.pick(static_cast<int>(log.size()))));
            break;
        case 9: {
            what = "swap two entries";
            const std::size_t a = log.find("- timestamp"), b = log.rfind("- timestamp");
            if (a != b) {
                const std::string first = log.substr(a, log.find("- timestamp", a + 1) - a);
                const std::string last = log.substr(b);
                log = log.substr(0, a) + last + log.substr(a + first.size(), b - a - first.size()) + first;
            }
            break;
        }
        case 10:
            what = "plan changed";
            ws.set("plan", g.plan());
            if (const std::size_t at = ws.text("plan").find("in_progress"); at != std::string::npos && g.pick(2)) {
                ws.text("plan").replace(at, 11, "completed");  // S1 may now want evidence
            }
            break;
        case 11:
            what = "handoff names an unknown task";
            if (!contains(ws.text("handoff"), "task-77")) {
                ws.replace("handoff", "  next_steps: []", "  current_task_id: \"task-77\"\n  next_steps: []");
            }
            break;
        case 12:
            what = "intent owned by the agent";
            if (contains(ws.text("intent"), "\"human\"")) ws.replace("intent", "owner: \"human\"", "owner: \"agent\"");
            break;
        default:
            what = "append, then a defect";
            log += g.entry();
            log += g.entry(1 + g.pick(7));
            break;
    }
}

TEST(VerifiedPrefix, NeverChangesAVerdict) {
    constexpr int kCases = 300;
    int warm = 0, plain_appends = 0, plain_appends_warm = 0;
    for (int c = 0; c < kCases; ++c) {
        Gen g(static_cast<unsigned>(c));
        TestWorkspace ws;
        ws.set("plan", g.plan());
        ws.set("progress", g.progress(1 + g.pick(8)));
        if (g.pick(2)) record_source(ws);
        const MemoryFileSystem before_fs = ws.fs();
        // Half the prefixes come from check --strict, the rest from any verdict.
        const bool hook = g.pick(2) == 0;
        const Verdict first = run(hook ? Kind::Check : static_cast<Kind>(g.pick(4)), before_fs, nullptr, hook || g.pick(2));
        if (!first.next_prefix) continue;
        VerifiedPrefix prefix = *first.next_prefix;
        bool tip = true;  // the prefix covers the whole log as it was before this round's change
        // Two rounds: the second starts from the prefix a warm verdict left.
        for (int round = 0; round < 2; ++round) {
            std::string what;
            mutate(g, ws, what);
            const MemoryFileSystem fs = ws.fs();
            std::optional<VerifiedPrefix> next;
            // check --strict (the pre-commit hook's) every time, and two other verdicts.
            const std::pair<Kind, bool> verdicts[] = {{Kind::Check, true},
                                                      {static_cast<Kind>(g.pick(4)), g.pick(2) == 1},
                                                      {static_cast<Kind>(g.pick(4)), g.pick(2) == 1}};
            for (std::size_t n = 0; n < std::size(verdicts); ++n) {
                const auto [kind, strict] = verdicts[n];
                const Verdict with = run(kind, fs, &prefix, strict);
                const Verdict without = run(kind, fs, nullptr, strict);
                ASSERT_EQ(full(with), full(without))
                    << "case " << c << " round " << round << " (" << what << "), kind " << static_cast<int>(kind)
                    << (strict ? " strict" : "") << "\nlog:\n"
                    << ws.text("progress");
                warm += with.used_prefix;
                if (n == 0 && with.used_prefix && with.next_prefix) next = with.next_prefix;
                if (n == 0 && what == "append" && tip && prefix.checks == (kPrefixSchema | kPrefixRules | kPrefixStrict)) {
                    ++plain_appends;
                    plain_appends_warm += with.used_prefix;
                    EXPECT_TRUE(with.used_prefix) << "case " << c << " round " << round << ": a clean append read cold\n"
                                                  << ws.text("progress");
                }
                if (n == 0) tip = with.used_prefix;
            }
            // An unchanged or unusable prefix stays: the next round must see through it too.
            if (next) prefix = *next;
        }
    }
    // Not vacuous: most clean appends were read after the prefix.
    EXPECT_GT(warm, kCases);
    EXPECT_GT(plain_appends, 30);
}

// Issue 39: a log read in windows gives the verdict the whole log gives,
// and keeps the prefix a whole read keeps (the same facts, length and hash).
TEST(VerifiedPrefix, WindowsNeverChangeAVerdict) {
    constexpr int kCases = 300;
    int windowed = 0, clean = 0;
    for (int c = 0; c < kCases; ++c) {
        Gen g(static_cast<unsigned>(1000 + c));
        if (c % 2) g.enable_rich_entries();
        TestWorkspace ws;
        ws.set("plan", g.plan());
        ws.set("progress", g.progress(1 + g.pick(12)));
        if (g.pick(2)) record_source(ws);
        std::string what = "none";
        if (g.pick(3) == 0) mutate(g, ws, what);
        const MemoryFileSystem fs = ws.fs();
        // Windows of one entry or a few: every cut is exercised.
        const LogWindows windows{0, static_cast<std::size_t>(1 + g.pick(400))};
        const Kind kind = g.pick(2) ? Kind::Check : static_cast<Kind>(g.pick(4));
        const bool strict = g.pick(3) != 0;
        const Verdict in_windows = run(kind, fs, nullptr, strict, windows);
        const Verdict whole = run(kind, fs, nullptr, strict);
        ASSERT_EQ(full(in_windows), full(whole)) << "case " << c << " (" << what << "), window " << windows.window_bytes
                                                 << "\nlog:\n" << ws.text("progress");
        ASSERT_EQ(in_windows.next_prefix.has_value(), whole.next_prefix.has_value())
            << "case " << c << " kind " << static_cast<int>(kind) << (strict ? " strict" : "") << "\n"
            << full(whole) << "\nlog:\n" << ws.text("progress");
        if (whole.next_prefix) {
            // The windows ran every check the verdict asked for on the log, even
            // where a finding in another file skipped the whole read's lint stage.
            std::optional<VerifiedPrefix> same = whole.next_prefix;
            EXPECT_EQ(in_windows.next_prefix->checks & same->checks, same->checks);
            same->checks = in_windows.next_prefix->checks;
            ASSERT_EQ(in_windows.next_prefix, same) << "case " << c << "\nlog:\n" << ws.text("progress");
        }
        windowed += in_windows.read_in_windows;
        clean += whole.next_prefix.has_value();
    }
    // Not vacuous: most clean logs were read in windows.
    EXPECT_GT(clean, kCases / 3);
    EXPECT_GT(windowed, clean / 2);
}

// The same on a real filesystem: the reader's reads at offsets, the stamps
// taken before and after, and the prefix's recorded stamp.
TEST(VerifiedPrefix, WindowsOnARealFileSystemReadAsTheWholeLog) {
    int windowed = 0, clean = 0;
    for (int c = 0; c < 24; ++c) {
        Gen g(static_cast<unsigned>(5000 + c));
        g.enable_rich_entries(c % 4 == 0);
        TestWorkspace ws;
        ws.set("plan", g.plan());
        ws.set("progress", g.progress(4 + g.pick(30)));
        const test_support::TempDir dir;
        std::filesystem::create_directory(dir.path(".small"));
        for (const char* name : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
            std::ofstream(dir.path(std::string(".small/") + name + ".small.yml"), std::ios::binary) << ws.text(name);
        }
        const RealFileSystem fs;
        const WorkspacePaths paths = locate_workspace(fs, dir.root(), dir.root());
        VerdictOptions strict;
        strict.strict = true;
        const auto verdict = [&](LogWindows windows) {
            return run_check(VerdictInput{fs, paths, builtin_schemas(), nullptr, true, windows}, strict);
        };
        const Verdict in_windows = verdict(LogWindows{0, static_cast<std::size_t>(16 + g.pick(600))});
        const Verdict whole = verdict(kWhole);
        ASSERT_EQ(full(in_windows), full(whole)) << "case " << c << "\n" << ws.text("progress");
        ASSERT_EQ(in_windows.next_prefix.has_value(), whole.next_prefix.has_value()) << "case " << c;
        if (whole.next_prefix) {
            VerifiedPrefix same = *whole.next_prefix;
            same.stamp_clock_ns = in_windows.next_prefix->stamp_clock_ns;  // read at each verdict's start
            EXPECT_TRUE(in_windows.next_prefix->stamp.has_value());
            EXPECT_EQ(*in_windows.next_prefix, same) << "case " << c;
        }
        windowed += in_windows.read_in_windows;
        clean += whole.next_prefix.has_value();
    }
    EXPECT_GT(windowed, 6) << clean;  // not vacuous
}

// Issue 39: windows hold a window at a time, so a log longer than the file
// system reads whole (kMaxFileBytes on a disk; the fake's limit here) is
// judged in windows, and its prefix kept; only a finding in it needs the
// whole read, which is refused saying what to do.
TEST(VerifiedPrefix, WindowsJudgeALogLargerThanAWholeRead) {
    Gen g(7);
    TestWorkspace ws;
    ws.set("plan", g.plan());
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < 60; ++i) log += g.entry();
    ws.set("progress", log);
    MemoryFileSystem fs = ws.fs();
    fs.set_max_read_bytes(log.size() / 3);
    const Verdict clean = run(Kind::Check, fs, nullptr, true, LogWindows{0, 200});
    EXPECT_EQ(clean.outcome, VerdictOutcome::Ok) << full(clean);
    EXPECT_TRUE(clean.read_in_windows);
    ASSERT_TRUE(clean.next_prefix);
    EXPECT_EQ(clean.next_prefix->length, log.size());
    EXPECT_EQ(clean.next_prefix->entries, 60u);
    // Warm: the prefix decides, nothing is read whole either.
    ws.text("progress") += g.entry();
    MemoryFileSystem appended = ws.fs();
    appended.set_max_read_bytes(log.size() / 3);
    const Verdict warm = run(Kind::Check, appended, &*clean.next_prefix, true, LogWindows{0, 200});
    EXPECT_EQ(warm.outcome, VerdictOutcome::Ok) << full(warm);
    EXPECT_TRUE(warm.used_prefix);

    ws.text("progress") += g.entry(1);  // INV-R5: a finding, whose position needs the whole log
    MemoryFileSystem flawed = ws.fs();
    flawed.set_max_read_bytes(log.size() / 3);
    const Verdict refused = run(Kind::Check, flawed, nullptr, true, LogWindows{0, 200});
    EXPECT_EQ(refused.outcome, VerdictOutcome::Invalid) << full(refused);
    ASSERT_EQ(refused.blocking.size(), 1u) << full(refused);
    EXPECT_EQ(refused.blocking[0].file, ".small/progress.small.yml");
    EXPECT_NE(refused.blocking[0].message.find("small reads whole"), std::string::npos) << full(refused);
    EXPECT_NE(refused.blocking[0].hint.find("small archive"), std::string::npos) << full(refused);
}

// An append without a final line break must not become verified: the next
// append would continue its last line, which the file reads as one line.
TEST(VerifiedPrefix, AnAppendWithoutAFinalLineBreakIsNotKept) {
    TestWorkspace ws;
    const Verdict first = run(Kind::Check, ws.fs(), nullptr, true);
    ASSERT_TRUE(first.next_prefix) << full(first);
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.100000006Z\"\n    task_id: \"task-1\"\n"
                          "    status: \"completed\"\n    evidence: \"again\"");
    const MemoryFileSystem fs1 = ws.fs();
    const Verdict unended = run(Kind::Check, fs1, &*first.next_prefix, true);
    EXPECT_EQ(full(unended), full(run(Kind::Check, fs1, nullptr, true)));
    const VerifiedPrefix kept = unended.next_prefix ? *unended.next_prefix : *first.next_prefix;
    EXPECT_EQ(kept.length, first.next_prefix->length);
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:07.100000007Z\"\n    task_id: \"task-1\"\n"
                          "    status: \"completed\"\n    evidence: \"glued\"\n");
    const MemoryFileSystem fs2 = ws.fs();
    const Verdict glued = run(Kind::Check, fs2, &kept, true);
    EXPECT_EQ(full(glued), full(run(Kind::Check, fs2, nullptr, true)));
    EXPECT_NE(glued.outcome, VerdictOutcome::Ok) << full(glued);
}

// libfyaml reads `key:` then `a:"x"` at the key's indentation as a value at
// the end of its input, and refuses it before another entry: a prefix ending
// so is not kept, and a window ending so is read with the whole log.
TEST(VerifiedPrefix, AnEntryThatReadsOtherwiseBeforeAnotherIsNeverTheLastVerified) {
    const std::string quirk = "  - timestamp: \"2025-06-01T10:00:06.100000006Z\"\n    task_id: \"task-1\"\n"
                              "    status: \"completed\"\n    evidence: \"again\"\n    command_ref:\n    a:\"x\"\n";
    const std::string next = "  - timestamp: \"2025-06-01T10:00:07.100000007Z\"\n    task_id: \"task-1\"\n"
                             "    status: \"completed\"\n    evidence: \"next\"\n";
    EXPECT_FALSE(last_entry_reads_the_same_before(quirk, 2));
    EXPECT_TRUE(last_entry_reads_the_same_before(next, 2));
    // Kept by a cold verdict, and by a warm one over an append.
    for (const bool appended : {false, true}) {
        TestWorkspace ws;
        std::optional<VerifiedPrefix> prefix;
        if (appended) {
            const Verdict first = run(Kind::Check, ws.fs(), nullptr, true);
            ASSERT_TRUE(first.next_prefix) << full(first);
            prefix = first.next_prefix;
        }
        ws.append("progress", quirk);
        const MemoryFileSystem fs1 = ws.fs();
        const Verdict clean = run(Kind::Check, fs1, prefix ? &*prefix : nullptr, true);
        EXPECT_EQ(full(clean), full(run(Kind::Check, fs1, nullptr, true)));
        EXPECT_FALSE(clean.next_prefix && clean.next_prefix->length == fs1.read_file("/ws/.small/progress.small.yml")->size())
            << "a prefix ending with the odd entry was kept";
        const std::optional<VerifiedPrefix> kept = clean.next_prefix ? clean.next_prefix : prefix;
        ws.append("progress", next);
        const MemoryFileSystem fs2 = ws.fs();
        const Verdict after = run(Kind::Check, fs2, kept ? &*kept : nullptr, true);
        const Verdict whole = run(Kind::Check, fs2, nullptr, true);
        EXPECT_NE(whole.outcome, VerdictOutcome::Ok) << full(whole);
        EXPECT_EQ(full(after), full(whole)) << "appended " << appended;
    }
    // Cut in windows right after it.
    TestWorkspace ws;
    ws.append("progress", quirk + next);
    const MemoryFileSystem fs = ws.fs();
    for (std::size_t window = 1; window < 400; window += 7) {
        EXPECT_EQ(full(run(Kind::Check, fs, nullptr, true, LogWindows{0, window})), full(run(Kind::Check, fs, nullptr, true)))
            << "window " << window;
    }
}

TEST(VerifiedPrefix, AppendedEntriesAreFoldedLikeTheWholeLog) {
    TestWorkspace ws;
    const MemoryFileSystem fs0 = ws.fs();
    const Verdict first = run(Kind::Check, fs0, nullptr, true);
    ASSERT_TRUE(first.next_prefix) << full(first);
    EXPECT_FALSE(first.used_prefix);
    EXPECT_EQ(first.next_prefix->entries, 6u);
    EXPECT_EQ(first.next_prefix->checks, kPrefixSchema | kPrefixRules | kPrefixStrict);

    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.100000006Z\"\n    task_id: \"task-1\"\n"
                          "    status: \"completed\"\n    evidence: \"again\"\n");
    const MemoryFileSystem fs1 = ws.fs();
    const Verdict warm = run(Kind::Check, fs1, &*first.next_prefix, true);
    EXPECT_TRUE(warm.used_prefix);
    ASSERT_TRUE(warm.next_prefix);
    const Verdict cold = run(Kind::Check, fs1, nullptr, true);
    ASSERT_TRUE(cold.next_prefix);
    EXPECT_EQ(*warm.next_prefix, *cold.next_prefix);  // same facts, length and hash either way
    EXPECT_EQ(warm.next_prefix->entries, 7u);

    // Unchanged: read warm, nothing new to keep.
    const Verdict again = run(Kind::Check, fs1, &*warm.next_prefix, true);
    EXPECT_TRUE(again.used_prefix);
    EXPECT_FALSE(again.next_prefix);
}

TEST(VerifiedPrefix, LayoutsItCannotFollowAreNotKept) {
    for (const std::string& log : {
             std::string("small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n"),  // flow
             std::string("small_version: \"1.0.0\"\nentries:\n  - timestamp: \"2025-06-01T10:00:00.1Z\"\n    task_id: \"t\"\n"
                         "    evidence: \"e\"\nowner: \"agent\"\n"),  // a key after the entries
             std::string("small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n  - timestamp: \"2025-06-01T10:00:00.1Z\"\n"
                         "    task_id: \"t\"\n    evidence: \"e\""),  // no final line break
             std::string("\"small_version\": \"1.0.0\"\nowner: \"agent\"\nentries:\n  - timestamp: \"2025-06-01T10:00:00.1Z\"\n"
                         "    task_id: \"t\"\n    evidence: \"e\"\n    notes: |\n      small_version: 1.0.0\n"),  // FMT-1 would read an entry
             std::string("small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n  - timestamp: \"2025-06-01T10:00:00.1Z\"\n"
                         "    task_id: \"t\"\n    evidence: \"e\"\n") + std::string(20, '\n'),  // a blank run at the seam
         }) {
        TestWorkspace ws;
        ws.set("plan", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks: []\n");
        ws.set("progress", log);
        const MemoryFileSystem fs = ws.fs();
        const Verdict v = run(Kind::Lint, fs, nullptr, false);
        EXPECT_FALSE(v.next_prefix) << log << full(v);
    }
}

// A filesystem with stamps: "same" answers one stamp, else each call a new
// one (a new ctime), as when a writer renames or appends between the prefix's reads.
class StampedFileSystem final : public FileSystem {
public:
    StampedFileSystem(MemoryFileSystem files, bool same) : files_(std::move(files)), same_(same) {}
    Result<std::string> read_file(const std::string& path) const override { return files_.read_file(path); }
    bool file_exists(const std::string& path) const override { return files_.file_exists(path); }
    bool directory_exists(const std::string& path) const override { return files_.directory_exists(path); }
    bool is_symlink(const std::string& path) const override { return files_.is_symlink(path); }
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override {
        return files_.list_directory(path);
    }
    std::optional<std::string> version_stamp(const std::string&) const override {
        return same_ ? std::string("v") : "v" + std::to_string(++calls_);
    }
    std::optional<FileInfo> stat(const std::string& path) const override {
        std::optional<FileInfo> info = files_.stat(path);
        if (info && !same_) info->ctime_nsec = static_cast<std::uint32_t>(++calls_);
        return info;
    }

private:
    MemoryFileSystem files_;
    bool same_;
    mutable std::atomic<int> calls_{0};
};

TEST(VerifiedPrefix, ALogChangedBetweenItsReadsIsReadWhole) {
    TestWorkspace ws;
    const Verdict first = run(Kind::Check, ws.fs(), nullptr, true);
    ASSERT_TRUE(first.next_prefix) << full(first);
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.100000006Z\"\n    task_id: \"task-1\"\n"
                          "    status: \"completed\"\n    evidence: \"again\"\n");
    const StampedFileSystem steady(ws.fs(), true);
    EXPECT_TRUE(load_after_prefix(steady, TestWorkspace::paths(steady), *first.next_prefix));
    EXPECT_TRUE(run(Kind::Check, steady, &*first.next_prefix, true).used_prefix);
    const StampedFileSystem changing(ws.fs(), false);
    EXPECT_FALSE(load_after_prefix(changing, TestWorkspace::paths(changing), *first.next_prefix));
    const Verdict whole = run(Kind::Check, changing, &*first.next_prefix, true);
    EXPECT_FALSE(whole.used_prefix);
    EXPECT_EQ(full(whole), full(run(Kind::Check, steady, nullptr, true)));
}

// An appended alias could reach an anchor the header or a verified entry
// defines (the latest wins); such an append is read with the whole log.
TEST(VerifiedPrefix, AnAppendedAliasIsReadWithTheWholeLog) {
    TestWorkspace ws;
    ws.replace("progress", "owner: \"agent\"", "owner: &o \"agent\"");
    ws.replace("progress", "notes: \"Design widget\"", "notes: &o \"\"");
    const MemoryFileSystem fs0 = ws.fs();
    const Verdict first = run(Kind::Check, fs0, nullptr, true);
    ASSERT_TRUE(first.next_prefix) << full(first);
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.100000006Z\"\n    task_id: \"task-1\"\n"
                          "    status: \"completed\"\n    evidence: *o\n");
    const MemoryFileSystem fs1 = ws.fs();
    const Verdict warm = run(Kind::Check, fs1, &*first.next_prefix, true);
    EXPECT_FALSE(warm.used_prefix);
    EXPECT_EQ(full(warm), full(run(Kind::Check, fs1, nullptr, true)));
}

TEST(VerifiedPrefixCache, RoundTripsAndRefusesCorruptText) {
    TestWorkspace ws;
    const MemoryFileSystem fs = ws.fs();
    const Verdict v = run(Kind::Check, fs, nullptr, true);
    ASSERT_TRUE(v.next_prefix);
    const std::string key(32, 'k');
    const std::string text = encode_verified_prefix(*v.next_prefix, key);
    const std::optional<VerifiedPrefix> back = decode_verified_prefix(text, key);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, *v.next_prefix);
    const std::size_t cut = text.find("\nT ");  // at a line end: only the check line tells
    ASSERT_NE(cut, std::string::npos);
    for (const std::string& bad : {std::string(), text.substr(0, text.size() / 2), text.substr(0, cut + 1), "X" + text,
                                   text + "Z what\n", std::string("P 1 2 3\n"),
                                   "P 99999999999999999999 0 0 0 0 0 " + std::string(32, 'a') + " t n\n"}) {
        EXPECT_FALSE(decode_verified_prefix(bad, key)) << bad;
    }
}

// Issue 39: the stamp and its clock travel with the prefix, under the MAC;
// a stamp of another length than the prefix's is refused.
TEST(VerifiedPrefixCache, TheStampRoundTripsUnderTheKey) {
    TestWorkspace ws;
    const MemoryFileSystem fs = ws.fs();
    const Verdict v = run(Kind::Check, fs, nullptr, true);
    ASSERT_TRUE(v.next_prefix);
    VerifiedPrefix p = *v.next_prefix;
    record_stamp(p, FileStamp{p.length, 1'700'000'000'123'456'789, 1'700'000'000'223'456'789, FileIdentity{5, 77}},
                 1'700'000'009'000'000'000);
    ASSERT_TRUE(p.stamp);
    const std::string key(32, 'k');
    const std::string text = encode_verified_prefix(p, key);
    EXPECT_NE(text.find("\nS "), std::string::npos);
    const std::optional<VerifiedPrefix> back = decode_verified_prefix(text, key);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, p);
    VerifiedPrefix other_length = p;
    other_length.stamp->size = p.length + 1;  // not what record_stamp keeps: forged
    EXPECT_FALSE(decode_verified_prefix(encode_verified_prefix(other_length, key), key));
    VerifiedPrefix none = p;
    record_stamp(none, FileStamp{p.length + 1, 1, 1, FileIdentity{}}, 5);  // not the whole prefix: no stamp
    EXPECT_FALSE(none.stamp);
    record_stamp(none, FileStamp{p.length, 1, 1, FileIdentity{}}, 0);  // a filesystem without a clock: none
    EXPECT_FALSE(none.stamp);
}

// Issue 41: the check line is a MAC under this user's key, not a checksum
// anyone can recompute: the same text under another key, or no key, fails.
TEST(VerifiedPrefixCache, AnotherKeyOrNoKeyFailsTheCheckLine) {
    TestWorkspace ws;
    const MemoryFileSystem fs = ws.fs();
    const Verdict v = run(Kind::Check, fs, nullptr, true);
    ASSERT_TRUE(v.next_prefix);
    const std::string text = encode_verified_prefix(*v.next_prefix, std::string(32, 'k'));
    EXPECT_FALSE(decode_verified_prefix(text, std::string(32, 'x')));
    EXPECT_FALSE(decode_verified_prefix(text, ""));
}

}  // namespace
}  // namespace small
