// Multi-file changes and the start of every mutating command (see the header).
#include "small/store/workspace_change.hpp"


#include <algorithm>
#include <cerrno>
#include <sstream>
#include <system_error>
#include <thread>

#include "small/base/path.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/local_work.hpp"
#include "small/model/replay_id.hpp"
#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_edit.hpp"

namespace small {

namespace {

// Version 2 adds the "append" record; version 1 journals (no record) are still read.
constexpr std::string_view kJournalMagic = "small-change 2\n";
constexpr std::string_view kJournalMagicV1 = "small-change 1\n";
constexpr std::string_view kAbsent = "absent";

std::string journal_path(const WorkspacePaths& ws) { return ws.root + "/" + kChangeJournalName; }


Result<std::uint64_t> file_size(const FileSystem& fs, const std::string& path) {
    Result<std::optional<FileInfo>> info = fs.inspect(path);
    if (!info) return info.error();
    return *info ? (*info)->size : std::uint64_t{0};
}

// Which version of the file is there ("absent" when none): see
// FileSystem::version_stamp.
Result<std::string> version_of(const FileSystem& fs, const std::string& path) {
    Result<std::optional<FileInfo>> info = fs.inspect(path);
    if (!info) return info.error();
    if (!*info) return std::string(kAbsent);
    std::optional<std::string> stamp = fs.version_stamp(path);
    if (!stamp) return Error::system("cannot tell which version of " + path + " is on disk");
    return *stamp;
}

struct ChangeJournalFile {
    std::string path;
    std::string old_fingerprint;  // see version_of(), or "absent"
    std::string bytes;
};

struct ChangeJournal {
    std::size_t entries = 0;
    std::uint64_t progress_size = 0;
    std::vector<ChangeJournalFile> files;
    std::vector<PathMove> moves;
    std::optional<AppendRecord> append;  // the entries' bytes, for an in-place append
    // In memory only: the whole log before a first append to `entries: []`,
    // which rewrites the file instead of appending, so undoing it means
    // restoring these bytes, never truncating.
    std::optional<std::string> whole_log;
};

// Layout: magic, "entries <n> progress-size <N>\n", then per file
// "file <path-length> <old-fingerprint> <byte-length>\n<path><bytes>\n",
// then per move "move <kind> <from-length> <to-length>\n<from><to>\n",
// then, for an in-place append, "append <dev> <ino> <expected-size>
// <byte-length>\n<bytes>\n", then "end\n". Lengths make any byte content safe.
std::string encode(const ChangeJournal& j) {
    std::string out(kJournalMagic);
    out += "entries " + std::to_string(j.entries) + " progress-size " + std::to_string(j.progress_size) + "\n";
    for (const ChangeJournalFile& f : j.files) {
        out += "file " + std::to_string(f.path.size()) + " " + f.old_fingerprint + " " +
               std::to_string(f.bytes.size()) + "\n" + f.path + f.bytes + "\n";
    }
    for (const PathMove& m : j.moves) {
        out += "move " + std::to_string(static_cast<int>(m.kind)) + " " + std::to_string(m.from.size()) + " " +
               std::to_string(m.to.size()) + "\n" + m.from + m.to + "\n";
    }
    if (const std::optional<AppendRecord>& a = j.append) {
        out += "append " + std::to_string(a->dev) + " " + std::to_string(a->ino) + " " +
               std::to_string(a->expected_size) + " " + std::to_string(a->bytes.size()) + "\n" + a->bytes + "\n";
    }
    out += "end\n";
    return out;
}

std::optional<ChangeJournal> decode(const std::string& text) {
    if (text.rfind(kJournalMagic, 0) != 0 && text.rfind(kJournalMagicV1, 0) != 0) return std::nullopt;
    std::size_t pos = kJournalMagic.size();  // both versions' magic have this length
    const auto line = [&]() -> std::optional<std::string> {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) return std::nullopt;
        std::string l = text.substr(pos, nl - pos);
        pos = nl + 1;
        return l;
    };
    ChangeJournal j;
    {
        const auto head = line();
        if (!head) return std::nullopt;
        std::istringstream in(*head);
        std::string w1, w2;
        if (!(in >> w1 >> j.entries >> w2 >> j.progress_size) || w1 != "entries" || w2 != "progress-size") {
            return std::nullopt;
        }
    }
    for (;;) {
        const auto l = line();
        if (!l) return std::nullopt;
        if (*l == "end") return j;
        std::istringstream in(*l);
        if (l->rfind("move ", 0) == 0) {
            std::string word;
            int kind = -1;
            std::size_t from_len = 0, to_len = 0;
            if (!(in >> word >> kind >> from_len >> to_len) || kind < 0 || kind > 2) return std::nullopt;
            if (pos + from_len + to_len + 1 > text.size()) return std::nullopt;
            PathMove m{static_cast<PathMove::Kind>(kind), text.substr(pos, from_len), text.substr(pos + from_len, to_len)};
            pos += from_len + to_len;
            if (text[pos] != '\n') return std::nullopt;
            ++pos;
            j.moves.push_back(std::move(m));
            continue;
        }
        if (l->rfind("append ", 0) == 0) {
            std::string word;
            AppendRecord a;
            std::size_t byte_len = 0;
            if (!(in >> word >> a.dev >> a.ino >> a.expected_size >> byte_len) || j.append) return std::nullopt;
            if (pos + byte_len + 1 > text.size() || text[pos + byte_len] != '\n') return std::nullopt;
            a.bytes = text.substr(pos, byte_len);
            pos += byte_len + 1;
            j.append = std::move(a);
            continue;
        }
        std::string word;
        std::size_t path_len = 0, byte_len = 0;
        ChangeJournalFile f;
        if (!(in >> word >> path_len >> f.old_fingerprint >> byte_len) || word != "file") return std::nullopt;
        if (pos + path_len + byte_len + 1 > text.size()) return std::nullopt;
        f.path = text.substr(pos, path_len);
        f.bytes = text.substr(pos + path_len, byte_len);
        pos += path_len + byte_len;
        if (text[pos] != '\n') return std::nullopt;
        ++pos;
        j.files.push_back(std::move(f));
    }
}

// Removes the journal. After a roll-back the removal must be durable: a
// journal that came back after a power cut would find the log longer (later
// appends) and roll its files forward without their entries. After a
// successful commit it need not be: its files no longer hold their old
// bytes, so roll-forward skips them, and the only writes that could restore
// those bytes (plan edits) journal their own change first, which fsyncs
// .small-cache and with it this removal.
Status remove_change_journal(const FileSystem& fs, const WorkspacePaths& ws, bool durable = true) {
    return fs.remove_file(ws.root, journal_path(ws), durable ? Durability::Full : Durability::None);
}

// Replaces every file that still holds its old bytes (roll forward).
// `skipped` (when given) collects the files left because they changed.
Status apply_files(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<ChangeJournalFile>& files,
                   std::vector<std::string>* skipped = nullptr) {
    for (const ChangeJournalFile& f : files) {
        Result<std::string> current = version_of(fs, f.path);
        if (!current) return current.error();
        if (*current != f.old_fingerprint) {  // already new (or changed by hand): leave it
            if (skipped) skipped->push_back(f.path);
            continue;
        }
        if (Status s = write_file_atomic(fs, ws, f.path, f.bytes); !s) return s;
    }
    return ok_status();
}

// The files' new bytes written and synced beside their targets, not yet in
// place (commit_workspace_change overlaps this with the journal and the append).
Result<std::vector<StagedFile>> stage_files(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<ChangeJournalFile>& files) {
    std::vector<StagedFile> staged;
    for (const ChangeJournalFile& f : files) {
        Result<StagedFile> one = stage_file_atomic(fs, ws, f.path, f.bytes);
        if (!one) return one.error();
        staged.push_back(std::move(*one));
    }
    return staged;
}

// apply_files for staged files: each still holding its old bytes is replaced.
Status publish_files(const FileSystem& fs, const std::vector<ChangeJournalFile>& files, Result<std::vector<StagedFile>>& staged,
                     std::vector<std::string>& skipped) {
    if (!staged) return staged.error();
    for (std::size_t i = 0; i < files.size(); ++i) {
        Result<std::string> current = version_of(fs, files[i].path);
        if (!current) return current.error();
        if (*current != files[i].old_fingerprint) {  // changed by hand meanwhile: leave it
            skipped.push_back(files[i].path);
            continue;
        }
        if (Status s = (*staged)[i]->publish(); !s) return s;
    }
    return ok_status();
}


// Paths and parents of a move: inside the workspace's `.small*` folders, no
// symbolic link on the way (ensure_directory walks and checks; the parents
// of an existing `from` exist, so nothing is created for it).
Status check_move_parents(const FileSystem& fs, const WorkspacePaths& ws, const PathMove& m) {
    if (Status s = ensure_directory(fs, ws, parent_path(m.from)); !s) return s;
    return m.to.empty() ? ok_status() : ensure_directory(fs, ws, parent_path(m.to));
}

// One step of PathMove (see the header); repeating a finished step is a no-op.
Status apply_move(const FileSystem& fs, const WorkspacePaths& ws, const PathMove& m) {
    Result<std::optional<FileInfo>> from = fs.inspect(m.from);
    if (!from) return from.error();
    if (!*from) return ok_status();  // done before
    if (Status s = check_move_parents(fs, ws, m); !s) return s;
    switch (m.kind) {
        case PathMove::Kind::Rename:
            return fs.rename_no_replace(m.from, m.to);
        case PathMove::Kind::RemoveDuplicate: {
            Result<std::optional<std::string>> a = fs.read_file_if_present(m.from);
            if (!a) return a.error();
            Result<std::optional<std::string>> b = fs.read_file_if_present(m.to);
            if (!b) return b.error();
            if (!*a || !*b || **a != **b) {
                return Error::invalid("refusing to remove " + m.from + ": its bytes differ from " + m.to);
            }
            return fs.remove_file(ws.root, m.from);
        }
        case PathMove::Kind::RemoveEmptyDir:
            return fs.remove_empty_directory(ws.root, m.from);
    }
    return ok_status();
}

Status apply_moves(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<PathMove>& moves) {
    for (const PathMove& m : moves) {
        if (Status s = apply_move(fs, ws, m); !s) return s;
    }
    return ok_status();
}

std::string progress_file(const WorkspacePaths& ws) { return ws.artifact_path(ArtifactType::Progress); }

// Whether the log is as it was before the change's entries: the same bytes
// when the append rewrote a fresh `entries: []` log whole, else the same size.
bool log_as_before(const FileSystem& fs, const WorkspacePaths& ws, const ChangeJournal& j) {
    if (j.entries == 0) return true;
    if (j.whole_log) {
        Result<std::optional<std::string>> now = fs.read_file_if_present(progress_file(ws));
        return now && *now && **now == *j.whole_log;
    }
    Result<std::uint64_t> size = file_size(fs, progress_file(ws));
    return size && *size == j.progress_size;
}

// Puts the log back as it was before the change's entries: the old bytes of
// a fresh `entries: []` log the first append rewrote whole (never cut: the
// file was replaced, not appended to), else the journaled size.
bool restore_log(const FileSystem& fs, const WorkspacePaths& ws, const ChangeJournal& j) {
    if (j.whole_log) return static_cast<bool>(write_file_atomic(fs, ws, progress_file(ws), *j.whole_log));
    const Result<bool> cut = fs.truncate_file(progress_file(ws), j.progress_size);
    return cut && *cut;
}

// A file write failed (e.g. the disk is full). When no file got its new
// bytes yet, cutting the log back to its journaled size removes the entries
// (we hold the lock: nobody appended after us) and the change never happened.
bool undo_entries_if_no_file_changed(const FileSystem& fs, const WorkspacePaths& ws, const ChangeJournal& j) {
    for (const ChangeJournalFile& f : j.files) {
        Result<std::string> now = version_of(fs, f.path);
        if (!now || *now != f.old_fingerprint) return false;
    }
    if (!log_as_before(fs, ws, j) && !restore_log(fs, ws, j)) return false;
    return static_cast<bool>(remove_change_journal(fs, ws));
}

}  // namespace

bool CommittedChange::was_skipped(const std::string& path) const {
    return std::find(skipped.begin(), skipped.end(), path) != skipped.end();
}

Status recover_workspace(const FileSystem& fs, const WorkspacePaths& ws) {
    if (Status s = recover_progress(fs, ws); !s) return s;
    Result<std::optional<std::string>> text = fs.read_file_if_present(journal_path(ws));
    if (!text) return text.error();
    if (!*text) return ok_status();
    if (const std::optional<ChangeJournal> j = decode(**text)) {
        // A torn append is cut off first: then the log is longer than the
        // journal says only if every entry byte made it.
        if (j->append) {
            if (Status s = settle_interrupted_append(fs, *j->append, progress_file(ws)); !s) return s;
        }
        Result<std::uint64_t> size = file_size(fs, progress_file(ws));
        if (!size) return size.error();
        // With the entries' bytes at hand, "committed" means they are in the
        // log; without them (or when the log is another file now), that it grew.
        std::optional<bool> landed = j->append ? append_landed(fs, *j->append, progress_file(ws)) : std::nullopt;
        const bool entries_committed = j->entries == 0 || (landed ? *landed : *size > j->progress_size);
        if (entries_committed) {
            Status s = apply_files(fs, ws, j->files);
            if (s) s = apply_moves(fs, ws, j->moves);
            if (!s) {
                Error e = s.error();
                e.message = "cannot finish the interrupted change recorded in " + journal_path(ws) + ": " +
                            e.message + " (fix the cause, or delete that file to abandon the change)";
                return e;
            }
        }
    }
    return remove_change_journal(fs, ws);
}

namespace {

// A file that will be refused (symbolic link, read-only, ...) is found
// before the journal, so the change is refused whole instead of being left
// journaled for a roll-forward that would fail the same way.
Status check_targets(const FileSystem& fs, const WorkspacePaths& ws, const WorkspaceChange& change) {
    if (!change.entries.empty()) {
        if (Status s = check_replaceable(fs, ws, progress_file(ws)); !s) return s;
    }
    for (const FileReplacement& f : change.files) {
        if (Status s = check_replaceable(fs, ws, f.path); !s) return s;
    }
    for (const PathMove& m : change.moves) {
        if (Status s = check_move_parents(fs, ws, m); !s) return s;
    }
    return ok_status();
}

}  // namespace

Result<CommittedChange> commit_workspace_change(const FileSystem& fs, const WorkspacePaths& ws, const WorkspaceChange& change) {
    if (Status s = check_targets(fs, ws, change); !s) return s.error();
    ChangeJournal j;
    j.entries = change.entries.size();
    std::optional<PendingAppend> pending;
    if (!change.entries.empty()) {
        Result<PendingAppend> prepared = prepare_progress_append(fs, ws, change.entries, change.first_at);
        if (!prepared) return prepared.error();
        pending = std::move(*prepared);
        j.progress_size = pending->tail.size;
        j.append = pending->in_place;
        if (!pending->in_place) {
            Result<std::optional<std::string>> log = fs.read_file_if_present(progress_file(ws));
            if (!log) return log.error();
            j.whole_log = *log;
        }
    }
    for (const FileReplacement& f : change.files) {
        Result<std::string> old = version_of(fs, f.path);
        if (!old) return old.error();
        j.files.push_back({f.path, *old, f.bytes});
    }
    j.moves = change.moves;
    const std::size_t steps = change.files.size() + change.moves.size();
    const bool needs_journal = steps > 1 || (steps == 1 && !change.entries.empty());
    // The files are staged on another thread while the journal and the
    // entries are written, so that their fsyncs overlap; none is in place
    // before the entries are durable (publish_files below).
    Result<std::vector<StagedFile>> staged = std::vector<StagedFile>{};
    const bool stage_early = needs_journal && !j.files.empty();
    std::jthread stager;  // declared after `staged`: joined before it goes
    if (stage_early) {
        try {
            stager = std::jthread([&] { staged = stage_files(fs, ws, j.files); });
        } catch (const std::system_error&) {
            staged = stage_files(fs, ws, j.files);  // no thread to be had (a pids limit): stage here
        }
    }
    if (needs_journal) {
        // Durable before the first entry byte: it carries the entries'
        // bytes, so the append needs no journal of its own.
        if (Status s = ensure_directory(fs, ws, runtime_path(ws.root, kCacheDirName)); !s) return s.error();
        if (Status s = write_file_atomic(fs, ws, journal_path(ws), encode(j)); !s) return s.error();
    }

    CommittedChange result;
    if (pending) {
        const TornAppendGuard guard = needs_journal ? TornAppendGuard::CallersJournal : TornAppendGuard::OwnJournal;
        Result<std::vector<AppendResult>> appended =
            write_progress_append(fs, ws, std::move(*pending), guard, /*record_local=*/false);
        if (!appended) {
            // FileSystem::append_file rolled its bytes back; cut whatever it could
            // not. Only a log as it was means nothing was committed; bytes that
            // landed anyway (a failed close or directory sync after them) leave
            // the change journaled, for the next writer to complete.
            if (!needs_journal) return appended.error();
            if (j.append) (void)settle_interrupted_append(fs, *j.append, progress_file(ws));
            if (log_as_before(fs, ws, j)) {
                (void)remove_change_journal(fs, ws);
                return appended.error();
            }
            Error e = appended.error();
            e.message += " (the change is journaled; the next small command that writes will complete it)";
            e.change_stands = true;
            return e;
        }
        result.appended = std::move(*appended);
    }
    if (stager.joinable()) stager.join();
    if (Status s = stage_early ? publish_files(fs, j.files, staged, result.skipped)
                               : apply_files(fs, ws, j.files, &result.skipped);
        !s) {
        if (!needs_journal || undo_entries_if_no_file_changed(fs, ws, j)) {
            return s.error();  // nothing of the change is left
        }
        Error e = s.error();
        e.message += " (the change is journaled; the next small command that writes will complete it)";
        e.change_stands = true;
        return e;
    }
    // The entries stand from here (a later failure is completed, never undone).
    std::vector<YamlValue> written;
    for (const AppendResult& a : result.appended) written.push_back(a.entry);
    record_local_work(fs, ws, written);
    if (Status s = apply_moves(fs, ws, j.moves); !s) {
        Error e = s.error();
        e.change_stands = true;
        if (!needs_journal) return e;
        e.message += " (the change is journaled; the next small command that writes will complete it)";
        e.change_stands = true;
        return e;
    }
    if (needs_journal) {
        if (Status s = remove_change_journal(fs, ws, /*durable=*/false); !s) {
            Error e = s.error();
            e.change_stands = true;
            return e;
        }
    }
    return result;
}


// ---------------------------------------------------------------------------

Result<MutationSession> begin_mutation(const FileSystem& fs, const WorkspacePaths& ws, const MutationRequest& req) {
    if (Status s = refuse_linked_small_dir(fs, ws); !s) return s.error();
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    // The value and run id of workspace.small.yml. A bad run.replay_id is
    // refused whatever the scope: a write must not replace it unseen.
    struct Metadata {
        YamlValue value;  // null when absent / unusable with scope Any
        std::string run_id;
        std::string text;
    };
    const auto read_metadata = [&]() -> Result<Metadata> {
        const std::string path = ws.path_of(kWorkspaceFileName);
        if (!fs.file_exists(path)) {
            if (req.scope == WorkspaceScope::Any) return Metadata{};
            return load_workspace_metadata(fs, ws).error();  // says how to create it
        }
        Result<Document> doc = load_yaml_file(fs, path, ws.display_of(kWorkspaceFileName));
        if (doc) {
            if (Result<std::string> id = pinned_run_id(doc->root(), ws); !id) return id.error();
        }
        Result<WorkspaceMetadata> meta = doc ? workspace_metadata_from(*doc, ws) : Result<WorkspaceMetadata>(doc.error());
        if (!meta) {
            if (req.scope == WorkspaceScope::Any) return Metadata{};
            return meta.error();
        }
        if (req.refuse_examples && meta->kind == WorkspaceKind::Examples) {
            Error e = Error::invalid("this command does not run in an examples workspace (kind \"examples\" in " +
                                     ws.display_of(kWorkspaceFileName) + ")");
            e.file = ws.display_of(kWorkspaceFileName);
            return e;
        }
        if (Status s = check_workspace_scope(*meta, req.scope, ws); !s) return s.error();
        return Metadata{to_yaml_value(doc->root()), lower_ascii(meta->run_replay_id), std::string(doc->source())};
    };
    std::optional<WorkspaceLock> lock;
    if (!req.read_only) {
        if (Result<Metadata> early = read_metadata(); !early) return early.error();  // refuse before locking
        Result<WorkspaceLock> got = WorkspaceLock::acquire(fs, ws, req.lock_wait);
        if (!got) return got.error();
        lock.emplace(std::move(*got));
        if (Status s = recover_workspace(fs, ws); !s) return s.error();
    }
    Result<Metadata> metadata = read_metadata();
    if (!metadata) return metadata.error();
    return MutationSession{std::move(lock), std::move(metadata->value), std::move(metadata->text),
                           std::move(metadata->run_id)};
}

MetadataText workspace_metadata_with_run(const MutationSession& session, const WorkspacePaths& ws,
                                         const std::string& run_id, const std::string& now_text) {
    const YamlValue& metadata = session.metadata;
    YamlValue out = metadata.is_object() ? metadata : YamlValue::object();
    if (!metadata.is_object()) {
        out["small_version"] = std::string(kProtocolVersion);
        out["owner"] = "agent";
        out["kind"] = "repo-root";
        out["created_at"] = now_text;
    }
    out["updated_at"] = now_text;
    if (!out.contains("run") || !out["run"].is_object()) out["run"] = YamlValue::object();
    out["run"]["replay_id"] = run_id;
    if (!metadata.is_object() || session.metadata_text.empty()) return {emit_document(out), ""};
    const std::string name = ws.display_of(kWorkspaceFileName);
    Result<Document> old = parse_yaml(session.metadata_text, name);
    MemberEdit edit = old ? edit_mapping_members(*old, out) : MemberEdit{std::nullopt, "it does not parse", 1};
    if (edit.text) return {std::move(*edit.text), ""};
    return {emit_document(out), name + ":" + std::to_string(edit.line) +
                                    ": rewritten in house style, its comments and formatting not kept (" + edit.why + ")"};
}

}  // namespace small
