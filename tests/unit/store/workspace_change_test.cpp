// Multi-file changes (workspace_change.hpp) on a real disk: commit, the
// start of every mutating command (begin_mutation), recovery of a change
// journal written by hand (roll forward, roll back, foreign edits, garbage)
// and SIGKILL at random instants with a "both or neither" check.
#include "small/store/workspace_change.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/store/local_work.hpp"
#include "small/store/progress_log.hpp"
#include "small/model/replay_id.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"

namespace small {
namespace {

using namespace small::testing;

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr const char* kHeader = "small_version: \"1.0.0\"\nowner: \"agent\"\n";
constexpr const char* kRunId = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";


std::string item(const std::string& stamp, const std::string& task = "task-1", const std::string& notes = "seed") {
    return "  - timestamp: \"" + stamp + "\"\n    task_id: \"" + task + "\"\n    status: \"completed\"\n" +
           "    evidence: \"done\"\n    notes: \"" + notes + "\"\n";
}

std::string seeded_log() {
    return std::string(kHeader) + "entries:\n" + item("2025-01-01T00:00:00.000000000Z", "meta/init");
}

std::string workspace_yaml(const std::string& kind = "repo-root", const std::string& run_id = "") {
    std::string out = std::string(kHeader) + "kind: \"" + kind + "\"\n";
    if (!run_id.empty()) out += "run:\n  replay_id: \"" + run_id + "\"\n";
    return out;
}

YamlValue entry(const std::string& task, const std::string& notes) {
    YamlValue e = YamlValue::object();
    e["task_id"] = task;
    e["status"] = "completed";
    e["evidence"] = "tests pass";
    e["notes"] = notes;
    return e;
}

Document parse_or_fail(const std::string& bytes, const std::string& label) {
    Result<Document> doc = parse_yaml(bytes, label);
    EXPECT_TRUE(doc.ok()) << label << ": " << (doc ? "" : doc.error().describe()) << "\n" << bytes;
    if (!doc) doc = parse_yaml("{}", label);
    return std::move(doc.value());
}

// (task_id, notes) of every entry of a log, which must parse.
std::vector<std::pair<std::string, std::string>> entries_of(const std::string& log_bytes) {
    const Document doc = parse_or_fail(log_bytes, "progress");
    std::vector<std::pair<std::string, std::string>> out;
    const NodeRef entries = doc.root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        out.emplace_back(std::string(entries.item(i).find("task_id").as_string()),
                         std::string(entries.item(i).find("notes").as_string()));
    }
    return out;
}

// --- the change journal, written by hand in the layout of workspace_change.cpp encode()

// The journal's fingerprint of a file's current version (size, mtime,
// ctime, inode, device), as workspace_change.cpp writes it.
std::string stamp_of(const std::string& path) { return *file_version(path); }

struct JournalFile {
    std::string path;
    std::string old_fingerprint;  // stamp_of() the old version, or "absent"
    std::string bytes;
};

// `append`: the record of the entries' bytes that commit_workspace_change
// journals for an in-place append (empty: none).
std::string journal_text(std::size_t entries, std::uint64_t progress_size, const std::vector<JournalFile>& files,
                         const std::string& append = "") {
    std::string out = append.empty() ? "small-change 1\n" : "small-change 2\n";  // version 2 has the record
    out += "entries " + std::to_string(entries) + " progress-size " + std::to_string(progress_size) + "\n";
    for (const JournalFile& f : files) {
        out += "file " + std::to_string(f.path.size()) + " " + f.old_fingerprint + " " + std::to_string(f.bytes.size()) +
               "\n" + f.path + f.bytes + "\n";
    }
    out += append;
    out += "end\n";
    return out;
}

// The append record for `bytes` added to `log` at `expected_size`.
std::string append_record(const std::string& log, std::uint64_t expected_size, const std::string& bytes) {
    struct stat st {};
    if (::stat(log.c_str(), &st) != 0) throw std::runtime_error("stat failed");
    return "append " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
           std::to_string(expected_size) + " " + std::to_string(bytes.size()) + "\n" + bytes + "\n";
}

std::string journal_path(const TempWorkspace& t) { return t.path(kChangeJournalName); }

void write_journal(const TempWorkspace& t, const std::string& text) {
    fs::create_directories(t.path(".small-cache"));
    write_text(journal_path(t), text);
}

// ============================================================ commit

TEST(WorkspaceChangeCommit, EntriesAndFilesAllChange) {
    TempWorkspace t;
    const std::string log_before = seeded_log();
    write_text(t.log(), log_before);
    const std::string plan = t.ws().path_of("plan.small.yml");
    const std::string meta = t.ws().path_of("workspace.small.yml");
    write_text(plan, "old plan: 1\n");

    WorkspaceChange change;
    change.entries = {entry("task-1", "first"), entry("task-2", "second")};
    change.files = {{plan, "new plan: 2\n"}, {meta, workspace_yaml()}};  // meta did not exist
    Result<CommittedChange> r = commit_workspace_change(real_fs, t.ws(), change);
    ASSERT_TRUE(r.ok()) << r.error().describe();

    ASSERT_EQ(r->appended.size(), 2u);
    EXPECT_LT(r->appended[0].timestamp, r->appended[1].timestamp);
    EXPECT_EQ(r->appended[0].entry.begin().key(), "timestamp");
    EXPECT_EQ(r->appended[1].entry["notes"], "second");
    const std::string log_after = read_text(t.log());
    EXPECT_EQ(log_after.compare(0, log_before.size(), log_before), 0) << "existing log bytes were rewritten";
    EXPECT_EQ(r->appended[1].new_size, log_after.size());
    const auto entries = entries_of(log_after);
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[1], std::make_pair(std::string("task-1"), std::string("first")));
    EXPECT_EQ(entries[2], std::make_pair(std::string("task-2"), std::string("second")));
    EXPECT_EQ(read_text(plan), "new plan: 2\n");
    EXPECT_EQ(read_text(meta), workspace_yaml());
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

TEST(WorkspaceChangeCommit, FilesOnlyNeedNoProgressLog) {
    TempWorkspace t;
    const std::string a = t.ws().path_of("plan.small.yml");
    const std::string b = t.ws().path_of("handoff.small.yml");
    write_text(a, "a: 1\n");
    WorkspaceChange change;
    change.files = {{a, "a: 2\n"}, {b, "b: 2\n"}};
    Result<CommittedChange> r = commit_workspace_change(real_fs, t.ws(), change);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->appended.empty());
    EXPECT_EQ(read_text(a), "a: 2\n");
    EXPECT_EQ(read_text(b), "b: 2\n");
    EXPECT_FALSE(fs::exists(t.log()));
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

TEST(WorkspaceChangeCommit, FirstAtIsTheFirstEntrysInstant) {
    TempWorkspace t;
    write_text(t.log(), seeded_log());
    const Instant at = *parse_progress_timestamp("2030-06-01T12:00:00.5Z");
    WorkspaceChange change;
    change.entries = {entry("task-1", "a"), entry("task-1", "b")};
    change.first_at = at;
    Result<CommittedChange> r = commit_workspace_change(real_fs, t.ws(), change);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->appended[0].timestamp, at);
    EXPECT_EQ(r->appended[0].timestamp_text, "2030-06-01T12:00:00.500000000Z");
    EXPECT_LT(at, r->appended[1].timestamp);
}

TEST(WorkspaceChangeCommit, RefusedAppendChangesNoFileAndLeavesNoJournal) {
    TempWorkspace t;
    const std::string log_before = seeded_log();
    write_text(t.log(), log_before);
    const std::string plan = t.ws().path_of("plan.small.yml");
    write_text(plan, "old\n");
    WorkspaceChange change;
    change.entries = {entry("task-1", "x")};
    change.first_at = *parse_progress_timestamp("2000-01-01T00:00:00.0Z");  // before the seed entry
    change.files = {{plan, "new\n"}};
    Result<CommittedChange> r = commit_workspace_change(real_fs, t.ws(), change);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << r.error().describe();
    EXPECT_EQ(read_text(plan), "old\n");
    EXPECT_EQ(read_text(t.log()), log_before);
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

TEST(WorkspaceChangeCommit, MissingProgressLogWithEntriesChangesNothing) {
    TempWorkspace t;
    const std::string plan = t.ws().path_of("plan.small.yml");
    write_text(plan, "old\n");
    WorkspaceChange change;
    change.entries = {entry("task-1", "x")};
    change.files = {{plan, "new\n"}};
    ASSERT_FALSE(commit_workspace_change(real_fs, t.ws(), change).ok());
    EXPECT_EQ(read_text(plan), "old\n");
    EXPECT_FALSE(fs::exists(t.log()));
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

// A file write that fails before any file changed (here: its folder does not
// exist, as a full disk would) takes the appended entries back out.
TEST(WorkspaceChangeCommit, FailedFileWriteBeforeAnyFileChangedUndoesTheEntries) {
    TempWorkspace t;
    const std::string log_before = seeded_log();
    write_text(t.log(), log_before);
    WorkspaceChange change;
    change.entries = {entry("task-1", "undone")};
    change.files = {{t.ws().path_of("missing-folder/plan.small.yml"), "x: 1\n"}};
    Result<CommittedChange> r = commit_workspace_change(real_fs, t.ws(), change);
    ASSERT_FALSE(r.ok());
    EXPECT_FALSE(r.error().change_stands);  // nothing of it is left: a claim it took is given back
    EXPECT_EQ(read_text(t.log()), log_before);
    EXPECT_FALSE(fs::exists(journal_path(t)));

    // The log is still appendable afterwards (the tail cache must not lie).
    WorkspaceChange next;
    next.entries = {entry("task-1", "after")};
    ASSERT_TRUE(commit_workspace_change(real_fs, t.ws(), next).ok());
    const auto entries = entries_of(read_text(t.log()));
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1].second, "after");
}

// This checkout's record of its own work (store/local_work) names only work
// whose entries stand: an undone change records nothing.
TEST(WorkspaceChangeCommit, AnUndoneChangeRecordsNoLocalWork) {
    TempWorkspace t;
    write_text(t.log(), seeded_log());
    const std::string run(64, 'c');
    YamlValue undone = entry("task-7", "undone");
    undone["replayId"] = run;
    WorkspaceChange change;
    change.entries = {undone};
    change.files = {{t.ws().path_of("missing-folder/plan.small.yml"), "x: 1\n"}};
    ASSERT_FALSE(commit_workspace_change(real_fs, t.ws(), change).ok());
    EXPECT_TRUE(local_work(RealFileSystem(), t.ws(), run).empty());

    YamlValue stands = entry("task-8", "stands");
    stands["replayId"] = run;
    WorkspaceChange next;
    next.entries = {stands};
    ASSERT_TRUE(commit_workspace_change(real_fs, t.ws(), next).ok());
    EXPECT_EQ(local_work(RealFileSystem(), t.ws(), run), (std::set<std::string, std::less<>>{"task-8"}));
}

// Same, on a fresh log larger than 4 KiB (a long header comment): the old
// bytes are put back whatever the log's size; cutting it would leave `entries:\n  -`.
TEST(WorkspaceChangeCommit, FailedFileWriteOnALargeFreshEmptyLogRestoresTheLog) {
    TempWorkspace t;
    const std::string log_before = "# " + std::string(5000, 'x') + "\n" + std::string(kHeader) + "entries: []\n";
    write_text(t.log(), log_before);
    WorkspaceChange change;
    change.entries = {entry("task-1", "undone")};
    change.files = {{t.ws().path_of("missing-folder/plan.small.yml"), "x: 1\n"}};
    ASSERT_FALSE(commit_workspace_change(real_fs, t.ws(), change).ok());
    EXPECT_EQ(read_text(t.log()), log_before);
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

// Same, on a fresh log `entries: []`: its first append REWRITES `[]` (see
// progress_log.hpp), so cutting the file back to its old size cannot undo it.
TEST(WorkspaceChangeCommit, FailedFileWriteOnAFreshEmptyLogRestoresTheLog) {
    TempWorkspace t;
    const std::string log_before = std::string(kHeader) + "entries: []\n";
    write_text(t.log(), log_before);
    WorkspaceChange change;
    change.entries = {entry("task-1", "undone")};
    change.files = {{t.ws().path_of("missing-folder/plan.small.yml"), "x: 1\n"}};
    ASSERT_FALSE(commit_workspace_change(real_fs, t.ws(), change).ok());
    const std::string log_after = read_text(t.log());
    EXPECT_EQ(log_after, log_before) << "the log was left as:\n" << log_after;
    EXPECT_TRUE(entries_of(log_after).empty());
}

// ============================================================ begin_mutation

TEST(WorkspaceChangeBeginMutation, NoSmallDirectoryIsASystemError) {
    TempWorkspace t;
    fs::remove_all(t.ws().small_dir);
    Result<MutationSession> s = begin_mutation(real_fs, t.ws(), MutationRequest{});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, Error::Kind::System);
    EXPECT_NE(s.error().message.find("small init"), std::string::npos) << s.error().message;
    EXPECT_FALSE(fs::exists(t.path(".small-cache/lock"))) << "refused before locking";
}

TEST(WorkspaceChangeBeginMutation, ExamplesKindIsRefusedWhenAskedEvenForScopeAny) {
    TempWorkspace t;
    write_text(t.ws().path_of("workspace.small.yml"), workspace_yaml("examples"));
    MutationRequest req;
    req.scope = WorkspaceScope::Any;
    req.refuse_examples = true;
    Result<MutationSession> s = begin_mutation(real_fs, t.ws(), req);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, Error::Kind::Invalid);
    EXPECT_NE(s.error().message.find("examples"), std::string::npos) << s.error().message;

    req.refuse_examples = false;  // scope any admits it
    Result<MutationSession> ok = begin_mutation(real_fs, t.ws(), req);
    ASSERT_TRUE(ok.ok()) << ok.error().describe();
    EXPECT_EQ(ok->metadata["kind"], "examples");
}

TEST(WorkspaceChangeBeginMutation, ScopeMismatchIsInvalid) {
    TempWorkspace t;
    write_text(t.ws().path_of("workspace.small.yml"), workspace_yaml("examples"));
    Result<MutationSession> root = begin_mutation(real_fs, t.ws(), MutationRequest{WorkspaceScope::Root});
    ASSERT_FALSE(root.ok());
    EXPECT_EQ(root.error().kind, Error::Kind::Invalid);
    EXPECT_NE(root.error().message.find("not allowed for scope"), std::string::npos) << root.error().message;
    EXPECT_TRUE(begin_mutation(real_fs, t.ws(), MutationRequest{WorkspaceScope::Examples}).ok());

    write_text(t.ws().path_of("workspace.small.yml"), workspace_yaml("repo-root"));
    Result<MutationSession> ex = begin_mutation(real_fs, t.ws(), MutationRequest{WorkspaceScope::Examples});
    ASSERT_FALSE(ex.ok());
    EXPECT_EQ(ex.error().kind, Error::Kind::Invalid);
}

TEST(WorkspaceChangeBeginMutation, MissingMetadataOnlyToleratedForScopeAny) {
    TempWorkspace t;
    Result<MutationSession> root = begin_mutation(real_fs, t.ws(), MutationRequest{WorkspaceScope::Root});
    ASSERT_FALSE(root.ok());
    EXPECT_EQ(root.error().kind, Error::Kind::Invalid);
    Result<MutationSession> any = begin_mutation(real_fs, t.ws(), MutationRequest{WorkspaceScope::Any});
    ASSERT_TRUE(any.ok()) << any.error().describe();
    EXPECT_TRUE(any->metadata.is_null());
    EXPECT_EQ(any->run_replay_id, "");
}

TEST(WorkspaceChangeBeginMutation, BadRunReplayIdIsInvalid) {
    TempWorkspace t;
    for (const std::string& bad : {std::string("xyz"), std::string(63, 'a'), std::string(64, 'g'), std::string(65, 'a')}) {
        write_text(t.ws().path_of("workspace.small.yml"), workspace_yaml("repo-root", bad));
        Result<MutationSession> s = begin_mutation(real_fs, t.ws(), MutationRequest{});
        ASSERT_FALSE(s.ok()) << bad;
        EXPECT_EQ(s.error().kind, Error::Kind::Invalid);
        EXPECT_NE(s.error().message.find("run.replay_id"), std::string::npos) << s.error().message;
    }
}

TEST(WorkspaceChangeBeginMutation, RunIdIsTrimmedAndLowerCasedAndTheLockIsHeld) {
    TempWorkspace t;
    std::string upper = kRunId;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    write_text(t.ws().path_of("workspace.small.yml"), workspace_yaml("repo-root", " " + upper + " "));
    Result<MutationSession> s = begin_mutation(real_fs, t.ws(), MutationRequest{});
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(s->run_replay_id, kRunId);
    ASSERT_TRUE(s->lock.has_value());
    EXPECT_TRUE(s->lock->held());
    Result<WorkspaceLock> other = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0));
    ASSERT_FALSE(other.ok());
    EXPECT_EQ(other.error().kind, Error::Kind::Busy);
}

TEST(WorkspaceChangeBeginMutation, RecoversAnInterruptedChangeBeforeReadingMetadata) {
    TempWorkspace t;
    const std::string meta = t.ws().path_of("workspace.small.yml");
    write_text(meta, workspace_yaml());
    // A change with no entries that had not replaced the metadata yet.
    write_journal(t, journal_text(0, 0, {{meta, stamp_of(meta), workspace_yaml("repo-root", kRunId)}}));
    Result<MutationSession> s = begin_mutation(real_fs, t.ws(), MutationRequest{});
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(s->run_replay_id, kRunId) << "metadata read before recovery";
    EXPECT_EQ(read_text(meta), workspace_yaml("repo-root", kRunId));
    EXPECT_FALSE(fs::exists(journal_path(t)));
}

TEST(WorkspaceChangeMetadata, WithRunKeepsOtherKeysInPlace) {
    YamlValue meta = YamlValue::object();
    meta["small_version"] = "1.0.0";
    meta["owner"] = "agent";
    meta["kind"] = "repo-root";
    meta["custom"] = "kept";
    meta["updated_at"] = "old";
    MutationSession session;
    session.metadata = meta;  // no text: written in house style
    const WorkspacePaths ws{"/w", "/w/.small", "", false};
    const MetadataText text = workspace_metadata_with_run(session, ws, kRunId, "2030-01-01T00:00:00.000000000Z");
    EXPECT_EQ(text.warning, "");
    const Document doc = parse_or_fail(text.text, "workspace");
    const NodeRef root = doc.root();
    ASSERT_EQ(root.size(), 6u) << text.text;
    EXPECT_EQ(root.key(3), "custom");
    EXPECT_EQ(root.find("custom").as_string(), "kept");
    EXPECT_EQ(root.key(4), "updated_at");
    EXPECT_EQ(root.find("updated_at").as_string(), "2030-01-01T00:00:00.000000000Z");
    EXPECT_EQ(root.find("run").find("replay_id").as_string(), kRunId);

    const Document fresh = parse_or_fail(workspace_metadata_with_run(MutationSession{}, ws, kRunId, "T").text, "workspace");
    EXPECT_EQ(fresh.root().find("kind").as_string(), "repo-root");
    EXPECT_EQ(fresh.root().find("created_at").as_string(), "T");
    EXPECT_EQ(fresh.root().find("run").find("replay_id").as_string(), kRunId);
}

// D20: the pin changes the bytes of updated_at and run.replay_id only.
TEST(WorkspaceChangeMetadata, ThePinKeepsTheFilesFormatting) {
    const WorkspacePaths ws{"/w", "/w/.small", "", false};
    const auto pinned = [&](const std::string& text) {
        MutationSession session;
        session.metadata_text = text;
        session.metadata = to_yaml_value(parse_or_fail(text, "workspace").root());
        return workspace_metadata_with_run(session, ws, kRunId, "2030-01-01T00:00:00.000000000Z");
    };
    const std::string head = "# this workspace\nsmall_version: \"1.0.0\"\nowner: me  # not the agent\nkind: repo-root\n";
    MetadataText a = pinned(head + "updated_at: '2020-01-01T00:00:00Z'\n\nrun:\n  replay_id: " + std::string(64, 'a') +
                            "   # old run\n");
    EXPECT_EQ(a.warning, "");
    // A plain value stays plain only where that re-reads the same for every
    // YAML reader (a 1.1 reader would take this time for a timestamp, an id
    // starting with digits may look numeric): else it is double-quoted.
    EXPECT_EQ(a.text, head + "updated_at: '2030-01-01T00:00:00.000000000Z'\n\nrun:\n  replay_id: \"" + kRunId +
                          "\"   # old run\n");
    MetadataText b = pinned(head + "updated_at: 2020-01-01T00:00:00Z\n");
    EXPECT_EQ(b.text, head + "updated_at: \"2030-01-01T00:00:00.000000000Z\"\nrun:\n  replay_id: \"" + kRunId + "\"\n");
    MetadataText c = pinned(head + "updated_at:\nrun: {replay_id: \"" + std::string(64, 'b') + "\"}\n");
    EXPECT_EQ(c.warning, "");
    EXPECT_EQ(c.text, head + "updated_at: \"2030-01-01T00:00:00.000000000Z\"\nrun: {replay_id: \"" + kRunId + "\"}\n");
    MetadataText d = pinned(head + "updated_at: x\nrun:\n  by: me\n");
    EXPECT_EQ(d.text, head + "updated_at: \"2030-01-01T00:00:00.000000000Z\"\nrun:\n  by: me\n  replay_id: \"" + kRunId + "\"\n");
    MetadataText crlf = pinned("small_version: \"1.0.0\"\r\nowner: agent\r\nkind: repo-root\r\nupdated_at: x\r\n");
    EXPECT_EQ(crlf.text, std::string("small_version: \"1.0.0\"\r\nowner: agent\r\nkind: repo-root\r\n"
                         "updated_at: \"2030-01-01T00:00:00.000000000Z\"\r\nrun:\r\n  replay_id: \"") + kRunId + "\"\r\n");
    MetadataText empty_run = pinned(head + "updated_at: \"x\"\nrun:   # pinned below\nnotes: kept\n");
    EXPECT_EQ(empty_run.warning, "");
    EXPECT_EQ(empty_run.text, head + "updated_at: \"2030-01-01T00:00:00.000000000Z\"\nrun:   # pinned below\n"
                                     "  replay_id: \"" + kRunId + "\"\nnotes: kept\n");
    MetadataText flow_empty = pinned(head + "updated_at: \"x\"\nrun: {}\n");
    EXPECT_NE(flow_empty.warning.find(":6: rewritten in house style, its comments and formatting not kept (a field is "
                                      "added to `run`, a flow mapping)"),
              std::string::npos) << flow_empty.warning;
    MetadataText folded = pinned(head + "updated_at: \"x\"\nrun:\n  note: >\n    long\n    text\n");
    EXPECT_EQ(folded.warning, ".small/workspace.small.yml:7: rewritten in house style, its comments and formatting not "
                              "kept (a field is added to `run`, which is not a block mapping ending in a one-line scalar)");
    // Where it cannot be kept, the file is written whole and the warning says where and why.
    MetadataText e = pinned(head + "updated_at: |\n  2020\n");
    EXPECT_EQ(e.warning, ".small/workspace.small.yml:5: rewritten in house style, its comments and formatting not "
                         "kept (the value of `updated_at` is not a one-line scalar)");
    EXPECT_EQ(parse_or_fail(e.text, "workspace").root().find("run").find("replay_id").as_string(), kRunId);
}

// ============================================================ recover_workspace

struct RecoveryFixture {
    TempWorkspace t;
    std::string log_bytes = seeded_log();
    std::string plan = t.ws().path_of("plan.small.yml");
    std::string handoff = t.ws().path_of("handoff.small.yml");
    std::string fresh = t.ws().path_of("constraints.small.yml");  // absent before the change
    RecoveryFixture() {
        write_text(t.log(), log_bytes);
        write_text(plan, "plan: old\n");
        write_text(handoff, "handoff: old\n");
    }
    std::vector<JournalFile> files() const {
        return {{plan, stamp_of(plan), "plan: new\n"},
                {handoff, stamp_of(handoff), "handoff: new\n"},
                {fresh, "absent", "constraints: new\n"}};
    }
    // The log's size before the change's entry was appended.
    std::uint64_t size_before_entry() const {
        return std::string(kHeader).size() + std::string("entries:\n").size();
    }
};

TEST(WorkspaceChangeRecover, RollsForwardWhenTheEntriesMadeItIntoTheLog) {
    RecoveryFixture f;
    ASSERT_LT(f.size_before_entry(), f.log_bytes.size());
    write_journal(f.t, journal_text(1, f.size_before_entry(), f.files()));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: new\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: new\n");
    EXPECT_EQ(read_text(f.fresh), "constraints: new\n");
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes);
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

TEST(WorkspaceChangeRecover, RollForwardFinishesAChangeThatWasHalfApplied) {
    RecoveryFixture f;
    write_text(f.plan, "plan: new\n");  // the first replacement had happened
    write_journal(f.t, journal_text(1, f.size_before_entry(), f.files()));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: new\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: new\n");
    EXPECT_EQ(read_text(f.fresh), "constraints: new\n");
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

TEST(WorkspaceChangeRecover, ChangeWithoutEntriesAlwaysRollsForward) {
    RecoveryFixture f;
    write_journal(f.t, journal_text(0, 0, f.files()));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: new\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: new\n");
    EXPECT_EQ(read_text(f.fresh), "constraints: new\n");
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

TEST(WorkspaceChangeRecover, RollsBackWhenTheLogIsStillItsJournaledSize) {
    RecoveryFixture f;
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files()));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: old\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: old\n");
    EXPECT_FALSE(fs::exists(f.fresh));
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes);
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

// The append journal's layout (progress_log_test.cpp), for a torn append.
std::string progress_journal_text(const std::string& log, std::uint64_t expected_size, const std::string& bytes) {
    struct stat st {};
    if (::stat(log.c_str(), &st) != 0) throw std::runtime_error("stat failed");
    return "small-progress-journal 1\ndev " + std::to_string(st.st_dev) + "\nino " + std::to_string(st.st_ino) +
           "\nexpected_size " + std::to_string(expected_size) + "\nlength " + std::to_string(bytes.size()) +
           "\nsha256 " + sha256_hex(bytes) + "\nend\n" + bytes;
}

// Killed in the middle of the change's append: recovery first removes the
// torn entry (recover_progress), then the log is back at its journaled size
// and the change is rolled back.
TEST(WorkspaceChangeRecover, TornAppendIsRemovedAndTheChangeRolledBack) {
    RecoveryFixture f;
    const std::string added = item("2026-01-01T00:00:00.000000000Z", "task-9", "torn");
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files()));
    write_text(f.t.path(kProgressJournalName), progress_journal_text(f.t.log(), f.log_bytes.size(), added));
    write_text(f.t.log(), f.log_bytes + added.substr(0, added.size() / 2));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes);
    EXPECT_EQ(read_text(f.plan), "plan: old\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: old\n");
    EXPECT_FALSE(fs::exists(f.fresh));
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
    EXPECT_FALSE(fs::exists(f.t.path(kProgressJournalName)));
}

// The log holds the whole journaled append: recovery keeps it and rolls the change forward.
void expect_complete_append_rolls_forward(const RecoveryFixture& f, const std::string& added) {
    write_text(f.t.log(), f.log_bytes + added);
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes + added);
    EXPECT_EQ(read_text(f.plan), "plan: new\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: new\n");
    EXPECT_EQ(read_text(f.fresh), "constraints: new\n");
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

// Killed after the append's bytes were all written but before its journal
// was removed: the entry is kept, so the change rolls forward.
TEST(WorkspaceChangeRecover, CompleteUnacknowledgedAppendRollsTheChangeForward) {
    RecoveryFixture f;
    const std::string added = item("2026-01-01T00:00:00.000000000Z", "task-9", "complete");
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files()));
    write_text(f.t.path(kProgressJournalName), progress_journal_text(f.t.log(), f.log_bytes.size(), added));
    expect_complete_append_rolls_forward(f, added);
}

// The same two kills with the entries' bytes in the change journal itself
// (what commit_workspace_change writes; no progress.journal).
TEST(WorkspaceChangeRecover, TornAppendRecordedInTheChangeJournalIsCutAndTheChangeRolledBack) {
    RecoveryFixture f;
    const std::string added = item("2026-01-01T00:00:00.000000000Z", "task-9", "torn");
    for (const std::size_t kept : {std::size_t{1}, added.size() / 2, added.size() - 1}) {
        write_text(f.t.log(), f.log_bytes);
        const std::string record = append_record(f.t.log(), f.log_bytes.size(), added);
        write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files(), record));
        // What a power cut can leave: a prefix, maybe zero-filled, never past the bytes' end.
        const std::size_t zeros = std::min(kept % 3, added.size() - kept);
        write_text(f.t.log(), f.log_bytes + added.substr(0, kept) + std::string(zeros, '\0'));
        ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok()) << kept;
        EXPECT_EQ(read_text(f.t.log()), f.log_bytes) << kept;
        EXPECT_EQ(read_text(f.plan), "plan: old\n") << kept;
        EXPECT_EQ(read_text(f.handoff), "handoff: old\n") << kept;
        EXPECT_FALSE(fs::exists(f.fresh)) << kept;
        EXPECT_FALSE(fs::exists(journal_path(f.t))) << kept;
    }
}

TEST(WorkspaceChangeRecover, CompleteAppendRecordedInTheChangeJournalRollsTheChangeForward) {
    RecoveryFixture f;
    const std::string added = item("2026-01-01T00:00:00.000000000Z", "task-9", "complete");
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files(), append_record(f.t.log(), f.log_bytes.size(), added)));
    expect_complete_append_rolls_forward(f, added);
}

// Bytes after the journaled size that are not the record's (or a log that
// is another file now) are never cut: only the size decides, as without a record.
TEST(WorkspaceChangeRecover, AnAppendRecordNeverCutsBytesThatAreNotItsOwn) {
    RecoveryFixture f;
    const std::string added = item("2026-01-01T00:00:00.000000000Z", "task-9", "mine");
    const std::string foreign = item("2027-01-01T00:00:00.000000000Z", "task-8", "someone else");
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files(), append_record(f.t.log(), f.log_bytes.size(), added)));
    write_text(f.t.log(), f.log_bytes + foreign.substr(0, 40));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes + foreign.substr(0, 40));
    EXPECT_EQ(read_text(f.plan), "plan: old\n") << "the entries are not in the log: the change is rolled back";

    const std::string other_inode = f.t.log() + ".new";
    write_text(f.t.log(), f.log_bytes);
    const std::string record = append_record(f.t.log(), f.log_bytes.size(), added);
    write_text(other_inode, f.log_bytes + added.substr(0, 10));
    fs::rename(other_inode, f.t.log());  // same bytes as a torn append, but another file
    write_journal(f.t, journal_text(1, f.log_bytes.size(), f.files(), record));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes + added.substr(0, 10));
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

TEST(WorkspaceChangeRecover, AFileChangedBySomeoneElseIsLeftAlone) {
    RecoveryFixture f;
    const std::string journal = journal_text(1, f.size_before_entry(), f.files());
    write_text(f.handoff, "handoff: edited by hand\n");
    write_text(f.fresh, "constraints: created by hand\n");  // journaled as absent
    write_journal(f.t, journal);
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: new\n");
    EXPECT_EQ(read_text(f.handoff), "handoff: edited by hand\n");
    EXPECT_EQ(read_text(f.fresh), "constraints: created by hand\n");
    EXPECT_FALSE(fs::exists(journal_path(f.t)));
}

TEST(WorkspaceChangeRecover, NoJournalIsANoOp) {
    RecoveryFixture f;
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), "plan: old\n");
    EXPECT_EQ(read_text(f.t.log()), f.log_bytes);
    EXPECT_FALSE(fs::exists(f.fresh));
}

TEST(WorkspaceChangeRecover, MalformedJournalsAreDroppedAndChangeNothing) {
    RecoveryFixture fx;
    const std::string good = journal_text(0, 0, fx.files());
    ASSERT_EQ(good.substr(good.size() - 4), "end\n");
    const std::string longer_bytes = journal_text(0, 0, {{fx.plan, stamp_of(fx.plan), "plan: new\n"}});
    std::string overrun = longer_bytes;  // claims more bytes than the journal holds
    overrun.replace(overrun.find(" 10\n"), 4, " 9999\n");
    std::string wrong_separator = longer_bytes;  // byte length one short: no '\n' after the bytes
    wrong_separator.replace(wrong_separator.find(" 10\n"), 4, " 9\n");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"empty", ""},
        {"wrong magic", "small-change 9\n" + good.substr(15)},
        {"no end line (torn write)", good.substr(0, good.size() - 4)},
        {"cut inside the file bytes", good.substr(0, good.size() / 2)},
        {"bad head line", "small-change 1\nentries x progress-size 0\nend\n"},
        {"head words swapped", "small-change 1\nprogress-size 0 entries 0\nend\n"},
        {"unknown record", "small-change 1\nentries 0 progress-size 0\nfolder 3 absent 0\nabc\nend\n"},
        {"length overrun", overrun},
        {"missing separator", wrong_separator},
        {"binary garbage", std::string("\x00\xff\xfe small-change 1\n", 20)},
    };
    for (const auto& [label, text] : cases) {
        RecoveryFixture f;
        write_journal(f.t, text);
        const Status s = recover_workspace(real_fs, f.t.ws());
        EXPECT_TRUE(s.ok()) << label << ": " << (s ? "" : s.error().describe());
        EXPECT_EQ(read_text(f.plan), "plan: old\n") << label;
        EXPECT_EQ(read_text(f.handoff), "handoff: old\n") << label;
        EXPECT_FALSE(fs::exists(f.fresh)) << label;
        EXPECT_EQ(read_text(f.t.log()), f.log_bytes) << label;
        EXPECT_FALSE(fs::exists(journal_path(f.t))) << label;
    }
}

TEST(WorkspaceChangeRecover, BinaryFileContentsRoundTripThroughTheJournal) {
    RecoveryFixture f;
    // Journal keywords, line breaks and NUL bytes inside the contents.
    const char raw[] = "end\nfile 3 absent 2\n\n\0\r\nsmall-change 1\n\0";
    const std::string weird(raw, sizeof raw - 1);
    ASSERT_EQ(std::count(weird.begin(), weird.end(), '\0'), 2);
    write_journal(f.t, journal_text(0, 0, {{f.plan, stamp_of(f.plan), weird}}));
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    EXPECT_EQ(read_text(f.plan), weird);
}

TEST(WorkspaceChangeRecover, JournalNamingAPathOutsideTheWorkspaceWritesNothingThere) {
    RecoveryFixture f;
    const std::string outside = f.t.path("outside.txt");  // not inside a .small* folder
    write_journal(f.t, journal_text(0, 0, {{outside, "absent", "pwned\n"}}));
    (void)recover_workspace(real_fs, f.t.ws());
    EXPECT_FALSE(fs::exists(outside));
}

// ============================================================ SIGKILL

constexpr const char* kPlanName = "plan.small.yml";

// The plan carries the number of the last committed iteration in its task,
// and workspace.small.yml the same number: both files and the entry are one
// change, so after recovery the three must agree.
std::string plan_text(int iteration) {
    YamlValue plan = YamlValue::object();
    plan["small_version"] = "1.0.0";
    plan["owner"] = "agent";
    YamlValue task = YamlValue::object();
    task["id"] = "task-1";
    task["title"] = "Iteration " + std::to_string(iteration);
    task["status"] = "in_progress";
    task["iteration"] = iteration;
    task["steps"] = YamlValue::array();
    for (int i = 0; i < 50; ++i) task["steps"].push_back("padding step " + std::to_string(i) + std::string(60, 'p'));
    plan["tasks"] = YamlValue::array({task});
    return emit_document(plan);
}

std::string metadata_text(int iteration) {
    YamlValue meta = YamlValue::object();
    meta["small_version"] = "1.0.0";
    meta["owner"] = "agent";
    meta["kind"] = "repo-root";
    meta["iteration"] = iteration;
    return emit_document(meta);
}

// Commits iteration N+1 (N read from the plan under the lock) forever; after
// each commit returned, records N+1 (one write() of one line) in `done_file`.
[[noreturn]] void change_loop(const WorkspacePaths& ws, const std::string& done_file) {
    const int done = ::open(done_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    for (;;) {
        Result<MutationSession> session = begin_mutation(real_fs, ws, MutationRequest{WorkspaceScope::Root, false,
                                                                                      milliseconds(60'000)});
        if (!session) ::_exit(2);
        Result<Document> plan = load_yaml_file(real_fs, ws.path_of(kPlanName), "plan");
        if (!plan) ::_exit(3);
        const int n = static_cast<int>(plan->root().find("tasks").item(0).find("iteration").as_int()) + 1;
        WorkspaceChange change;
        change.entries = {entry("task-1", "iteration " + std::to_string(n))};
        change.files = {{ws.path_of(kPlanName), plan_text(n)}, {ws.path_of(kWorkspaceFileName), metadata_text(n)}};
        if (!commit_workspace_change(real_fs, ws, change)) ::_exit(4);
        const std::string line = std::to_string(n) + "\n";
        if (::write(done, line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(5);
    }
}

struct ChangeCrashStats {
    int kills = 0;
    int change_journals = 0;    // kills that left a change journal
    int progress_journals = 0;  // kills that left an append journal (a change journals its own entries)
    int append_records = 0;     // change journals that carried the entries' bytes
    int rolled_forward = 0;     // recovery advanced the plan
    int rolled_back = 0;        // a change journal was found and the plan stayed
};

// Recovery, then: every file parses, and entries == plan == metadata counter.
void recover_and_check(const TempWorkspace& t, const std::string& done_file, ChangeCrashStats& stats) {
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(1000));
    ASSERT_TRUE(lock.ok()) << lock.error().describe();
    const bool had_change_journal = fs::exists(journal_path(t));
    stats.change_journals += had_change_journal;
    if (had_change_journal) stats.append_records += read_text(journal_path(t)).find("\nappend ") != std::string::npos;
    stats.progress_journals += fs::exists(t.path(kProgressJournalName));
    const std::string plan_before = read_text(t.ws().path_of(kPlanName));
    const Status recovered = recover_workspace(real_fs, t.ws());
    ASSERT_TRUE(recovered.ok()) << recovered.error().describe();
    EXPECT_FALSE(fs::exists(journal_path(t)));
    EXPECT_FALSE(fs::exists(t.path(kProgressJournalName)));
    // The killed child's staged files are swept (by pid) with the journal.
    EXPECT_TRUE(!fs::exists(t.path(".small-cache/tmp")) || fs::is_empty(t.path(".small-cache/tmp")))
        << "after kill " << stats.kills;

    const std::string plan_bytes = read_text(t.ws().path_of(kPlanName));
    const Document plan = parse_or_fail(plan_bytes, "plan");
    const Document meta = parse_or_fail(read_text(t.ws().path_of(kWorkspaceFileName)), "workspace");
    const auto entries = entries_of(read_text(t.log()));
    ASSERT_FALSE(::testing::Test::HasFailure()) << "after kill " << stats.kills;
    if (had_change_journal) (plan_bytes != plan_before ? stats.rolled_forward : stats.rolled_back) += 1;

    const std::int64_t plan_n = plan.root().find("tasks").item(0).find("iteration").as_int();
    const std::int64_t meta_n = meta.root().find("iteration").as_int();
    const std::int64_t committed = static_cast<std::int64_t>(entries.size()) - 1;  // minus the seed
    ASSERT_EQ(plan_n, committed) << "plan and log disagree after kill " << stats.kills;
    ASSERT_EQ(meta_n, committed) << "workspace.small.yml and log disagree after kill " << stats.kills;
    for (std::size_t i = 1; i < entries.size(); ++i) {
        ASSERT_EQ(entries[i].second, "iteration " + std::to_string(i)) << "entry " << i << " after kill " << stats.kills;
    }
    std::string done = read_text(done_file);
    done.resize(done.rfind('\n') == std::string::npos ? 0 : done.rfind('\n') + 1);  // drop a torn line
    if (!done.empty()) {
        const std::size_t start = done.rfind('\n', done.size() - 2);
        const long acknowledged = std::stol(done.substr(start == std::string::npos ? 0 : start + 1));
        ASSERT_LE(acknowledged, committed) << "an acknowledged change was lost after kill " << stats.kills;
    }
}

// Forks a change_loop child, kills it after `delay`, then recovers and checks.
void kill_and_check(const TempWorkspace& t, const std::string& done_file, std::chrono::microseconds delay,
                    ChangeCrashStats& stats) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) change_loop(t.ws(), done_file);
    std::this_thread::sleep_for(delay);
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child failed with exit code " << WEXITSTATUS(status);
    ++stats.kills;
    recover_and_check(t, done_file, stats);
}

// SIGKILL loses no page cache and cannot tear a write of a few hundred
// bytes, so this test proves the ordering a kill can see (journal, entries,
// staged files, publish, recovery); torn appends and a power cut's lost
// writes are the recovery tests' job above.
TEST(WorkspaceChangeCrash, SigkillAtRandomInstantsKeepsEntriesAndFilesTogether) {
    // /dev/shm when there is one: fsync is free there, so one iteration takes
    // well under a millisecond and kills land in every step of the change.
    TempWorkspace t(true);
    write_text(t.log(), seeded_log());
    write_text(t.ws().path_of(kPlanName), plan_text(0));
    write_text(t.ws().path_of(kWorkspaceFileName), metadata_text(0));
    const std::string done_file = t.path("done.txt");
    ChangeCrashStats stats;

    // Calibration: how long one iteration takes here (a slow disk's fsyncs
    // make it much longer), so that the random delays span a few iterations.
    kill_and_check(t, done_file, std::chrono::milliseconds(300), stats);
    if (HasFatalFailure()) return;
    const std::size_t calibrated = entries_of(read_text(t.log())).size() - 1;
    const long per_iteration_us = 300'000 / static_cast<long>(calibrated + 1);
    const int max_delay_us = static_cast<int>(std::clamp(3 * per_iteration_us, 2'000L, 60'000L));

    std::mt19937 rng(20250611);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    // Keep killing (within the deadline) until at least one kill has landed
    // inside a change: on a busy machine the first 300 may all miss.
    // When a child's start-up (fork, page faults) outlasts the delays, the
    // kills keep landing before its first change: then aim later, doubling.
    int min_delay_us = 100, top_delay_us = max_delay_us;
    while ((stats.kills < 300 || stats.change_journals == 0) && std::chrono::steady_clock::now() < deadline) {
        const std::chrono::microseconds delay(std::uniform_int_distribution<int>(min_delay_us, top_delay_us)(rng));
        kill_and_check(t, done_file, delay, stats);
        if (HasFatalFailure()) return;
        if (stats.kills % 300 == 0 && stats.change_journals == 0 && top_delay_us < 500'000) {
            min_delay_us = top_delay_us;
            top_delay_us *= 2;
        }
    }
    EXPECT_GE(stats.kills, 200);
    const auto entries = entries_of(read_text(t.log()));
    EXPECT_GE(entries.size(), 20u) << "the children hardly committed anything";
    EXPECT_GT(stats.change_journals, 0) << "no kill landed inside a change: the test proved nothing";
    // Every change here has an entry: its journal carries the entry's bytes,
    // and no append journal of its own is ever written.
    EXPECT_EQ(stats.append_records, stats.change_journals);
    EXPECT_EQ(stats.progress_journals, 0);
    RecordProperty("kills", stats.kills);
    RecordProperty("change_journals", stats.change_journals);
    RecordProperty("rolled_forward", stats.rolled_forward);
    std::printf("iteration ~%ld us, kills %d, committed %zu, change journals %d (rolled forward %d, back %d), append journals %d\n",
                per_iteration_us, stats.kills, entries.size() - 1, stats.change_journals, stats.rolled_forward, stats.rolled_back,
                stats.progress_journals);
}

}  // namespace
}  // namespace small
