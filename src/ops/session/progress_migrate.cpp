// `small progress migrate` (see the header). A long log is read, and
// rewritten, in windows of whole entries (doc/entry_windows): the plan pass
// parses one window at a time, the write pass copies the file window by
// window into the staged replacement with the timestamps replaced, and
// checks each rewritten window as the whole rewrite was checked. Anything
// windows cannot follow, and a timestamp the in-place edit cannot reach,
// goes to the whole read, which does exactly what it always did.
#include "small/ops/session/progress_migrate.hpp"

#include <optional>

#include "small/base/text.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

// ---------------------------------------------------------------------------
// migrate
// ---------------------------------------------------------------------------

namespace {

// Where one timestamp's bytes are in the file, and the quote they were
// written with; its new text is its change's `after` in that style (D20).
struct Edit {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    char quote = 0;
};

// What the plan pass has found so far: one edit per change (until a
// timestamp cannot be located: `unlocatable`, its file line).
struct MigratePlan {
    std::vector<Edit> edits;
    std::optional<Instant> previous;
    std::uint64_t unlocatable = 0;
    std::optional<Error> error;  // the first missing or unparseable timestamp
};

std::string edit_text(const Edit& edit, const TimestampChange& change) {
    return scalar_styled(YamlValue(change.after), edit.quote);
}

Error entry_error(const WorkspacePaths& ws, std::string message, NodeRef at, const WindowPlace& place) {
    Error e = Error::invalid(std::move(message));
    e.file = ws.display_of(kProgressFileName);
    e.line = static_cast<std::uint32_t>(place.line_in_file(at.mark().line));
    e.column = at.mark().column;
    return e;
}

Status require_log(const FileSystem& fs, const WorkspacePaths& ws, ProgressMigrateResult& result) {
    result.file = ws.path_of(kProgressFileName);
    if (!fs.file_exists(result.file)) {
        return Error::system(ws.display_of(kProgressFileName) + " not found; run `small init` first");
    }
    return ok_status();
}

// The log, parsed whole; `entries` must be a list.
Result<Document> read_log(const FileSystem& fs, const WorkspacePaths& ws, const ProgressMigrateResult& result) {
    Result<std::string> bytes = fs.read_file(result.file);
    if (!bytes) return bytes.error();
    Result<Document> doc = parse_yaml(*bytes, ws.display_of(kProgressFileName));
    if (!doc) return doc.error();
    if (!doc->root().is_mapping() || !doc->root().find("entries").is_sequence()) {
        return Error::invalid(ws.display_of(kProgressFileName) + ": `entries` must be a list of progress entries");
    }
    return doc;
}

// The line of `entry`'s key `key` (a block scalar's mark is on its content).
std::uint32_t key_line(NodeRef entry, std::string_view key) {
    for (std::size_t k = 0; k < entry.size(); ++k) {
        if (entry.key(k) == key) return entry.key_node(k).mark().line;
    }
    return entry.mark().line;
}

// Entry `i`'s timestamp in canonical form, strictly after the previous one
// (a tie is bumped by 1 ns); nullopt when it already is. Fail-fast on a
// missing or unparseable timestamp.
Result<std::optional<TimestampChange>> plan_entry(const WorkspacePaths& ws, NodeRef entry, std::size_t i,
                                                  const WindowPlace& place, MigratePlan& plan) {
    const NodeRef ts = entry.find("timestamp");
    const std::string label = "progress entry " + std::to_string(i);
    if (!ts || ts.is_null() || (ts.is_string() && trim(ts.as_string()).empty())) {
        return entry_error(ws, label + " timestamp is required", entry, place);
    }
    const std::string raw(ts.is_string() ? ts.as_string() : ts.scalar_text());
    Result<Instant> parsed = ts.is_string() ? parse_lenient_timestamp(raw) : Result<Instant>(Error::invalid("not a string"));
    if (!parsed) {
        return entry_error(ws, label + " timestamp \"" + raw + "\" is not parseable: " + parsed.error().message, ts, place);
    }
    Instant t = *parsed;
    if (plan.previous && !(*plan.previous < t)) t = plus_one_ns(*plan.previous);
    plan.previous = t;
    std::string canonical = format_timestamp_utc9(t);
    if (canonical == raw) return std::optional<TimestampChange>();
    return std::optional<TimestampChange>(TimestampChange{i, raw, std::move(canonical)});
}

// Plans the entries of one document (the whole log, or a window placed at
// `place`): the changes and where their bytes are in the file (each quoted
// as the old value was, D20; the file line of the first that cannot be
// located, then the whole file is re-emitted).
void plan_document(const WorkspacePaths& ws, const Document& doc, const WindowPlace& place,
                   ProgressMigrateResult& result, MigratePlan& plan) {
    const NodeRef entries = doc.root().find("entries");
    std::optional<ScalarLocator> locate;  // built on the first change only
    for (std::size_t k = 0; !plan.error && k < entries.size(); ++k) {
        Result<std::optional<TimestampChange>> change = plan_entry(ws, entries.item(k), result.entries + k, place, plan);
        if (!change) plan.error = change.error();
        if (!change || !*change) continue;
        const NodeRef ts = entries.item(k).find("timestamp");
        if (!locate) locate.emplace(doc.source());
        const std::optional<SourceRange> at = locate->find(ts.mark(), (*change)->before);
        if (!at && plan.unlocatable == 0) plan.unlocatable = place.line_in_file(key_line(entries.item(k), "timestamp"));
        if (at) {
            plan.edits.push_back({place.offset_in_file(at->offset), static_cast<std::uint32_t>(at->length),
                                  scalar_quote(std::string_view(doc.source()).substr(at->offset))});
        }
        result.changes.push_back(std::move(**change));
    }
    result.entries += entries.size();
}

// `text` (the file's bytes from `from` on) with the edits that fall in it
// applied; `next` is the first edit not yet applied.
std::string apply_edits(std::string_view text, std::uint64_t from, const std::vector<Edit>& edits,
                        const std::vector<TimestampChange>& changes, std::size_t& next) {
    std::string out;
    out.reserve(text.size() + 64);
    std::size_t copied = 0;
    for (; next < edits.size() && edits[next].offset < from + text.size(); ++next) {
        const std::size_t at = static_cast<std::size_t>(edits[next].offset - from);
        out.append(text.substr(copied, at - copied));
        out += edit_text(edits[next], changes[next]);
        copied = at + edits[next].length;
    }
    out.append(text.substr(copied));
    return out;
}

// ---- the whole read (a short log, a layout windows cannot follow) ----

// The new file's bytes: only the timestamp scalars replaced when they could
// all be located (comments kept), else the whole log re-emitted.
std::string migrated_text(const Document& doc, const MigratePlan& plan, const WorkspacePaths& ws,
                          ProgressMigrateResult& result) {
    if (plan.unlocatable == 0) {
        std::size_t next = 0;
        return apply_edits(doc.source(), 0, plan.edits, result.changes, next);
    }
    YamlValue whole = to_yaml_value(doc.root());
    for (const TimestampChange& c : result.changes) whole["entries"][c.index]["timestamp"] = c.after;
    result.whole_file_rewritten = true;
    result.warning = ws.display_of(kProgressFileName) + ":" + std::to_string(plan.unlocatable) +
                     ": rewritten in house style, its comments and formatting not kept (the timestamp is not a "
                     "one-line scalar)";
    return emit_document(whole);
}

const Error& broken_rewrite() {
    static const Error broken = Error::internal("the migrated progress log does not re-read; nothing written");
    return broken;
}

// The changes from `next` on that fall among `entries` (whose first is the
// log's entry `base`) must read there as their new timestamps.
bool changes_read_back(NodeRef entries, std::size_t base, const std::vector<TimestampChange>& changes,
                       std::size_t& next) {
    for (; next < changes.size() && changes[next].index < base + entries.size(); ++next) {
        if (entries.item(changes[next].index - base).find("timestamp").as_string() != changes[next].after) return false;
    }
    return true;
}

// The rewrite must re-read as the same log with the new timestamps.
Status check_rewrite(const std::string& out, const WorkspacePaths& ws, const ProgressMigrateResult& result) {
    Result<Document> check = parse_yaml(out, ws.display_of(kProgressFileName));
    const NodeRef entries = check ? check->root().find("entries") : NodeRef();
    std::size_t next = 0;
    if (!entries.is_sequence() || entries.size() != result.entries || !changes_read_back(entries, 0, result.changes, next)) {
        return broken_rewrite();
    }
    return ok_status();
}

Result<ProgressMigrateResult> migrate_whole(const FileSystem& fs, const WorkspacePaths& ws, const ProgressMigrateRequest& req,
                                            ProgressMigrateResult result) {
    result.entries = 0;
    result.changes.clear();
    Result<Document> doc = read_log(fs, ws, result);
    if (!doc) return doc.error();
    MigratePlan plan;
    plan_document(ws, *doc, WindowPlace{}, result, plan);
    if (plan.error) return *plan.error;
    if (result.changes.empty() || req.dry_run) return result;

    const std::string out = migrated_text(*doc, plan, ws, result);
    if (Status s = check_rewrite(out, ws, result); !s) return s.error();
    if (Status w = write_file_atomic(fs, ws, result.file, out); !w) return w.error();
    result.written = true;
    return result;
}

// ---- in windows (a long log) ----

// The plan pass; false when windows cannot follow the log (nothing decided).
bool plan_in_windows(const FileSystem& fs, const WorkspacePaths& ws, const LogWindows& windows,
                     ProgressMigrateResult& result, MigratePlan& plan) {
    return for_each_entry_window(fs, result.file, ws.display_of(kProgressFileName), windows,
                                 [&](const Document& window, const WindowPlace& place) {
                                     // After an error, the windows still read to the end: a
                                     // log they cannot follow is judged by the whole read.
                                     if (!plan.error) plan_document(ws, window, place, result, plan);
                                 });
}

// Rewrites the log window by window into `put`, each rewritten window
// checked as check_rewrite checks the whole: its entries whole, reading as
// the input's did, the new timestamps where they belong.
class WindowRewriter {
public:
    WindowRewriter(const WorkspacePaths& ws, const MigratePlan& plan, const ProgressMigrateResult& result, const PieceSink& put)
        : ws_(ws), plan_(plan), result_(result), put_(put) {}

    void take(const Document& window, const WindowPlace& place) {
        if (!status_) return;
        const std::string_view source = window.source();
        const std::string text = apply_edits(source.substr(place.doc_start), place.file_start, plan_.edits,
                                             result_.changes, next_edit_);
        // No timestamp lies in the header: the first window's is its own.
        const std::string_view items = std::string_view(text).substr(place.header_bytes - place.doc_start);
        if (!check(window, source.substr(0, place.header_bytes), items)) {
            status_ = broken_rewrite();
            return;
        }
        status_ = put_(text);
    }

    Status finish(bool read) const {
        if (!read) return broken_rewrite();
        if (!status_) return status_;
        return entries_ == result_.entries && next_change_ == result_.changes.size() ? ok_status() : Status(broken_rewrite());
    }

private:
    // The rewritten entries of a window (`items`) behind its header.
    bool check(const Document& window, std::string_view header, std::string_view items) {
        if (indent_ == std::string::npos) indent_ = indent_at(items, 0);
        if (!whole_entries(items, indent_) || (!last_.empty() && !seam_holds(items))) return false;
        Result<Document> again = parse_yaml(std::string(header) + std::string(items), ws_.display_of(kProgressFileName));
        const NodeRef after = again ? again->root().find("entries") : NodeRef();
        if (!after.is_sequence() || after.size() != window.root().find("entries").size()) return false;
        if (!changes_read_back(after, entries_, result_.changes, next_change_)) return false;
        entries_ += after.size();
        last_ = last_entry_of(items, indent_);
        return true;
    }

    bool seam_holds(std::string_view items) const {
        const std::size_t end = items.find('\n');
        return last_entry_reads_the_same_before(last_, indent_, items.substr(0, end == std::string_view::npos ? end : end + 1));
    }

    const WorkspacePaths& ws_;
    const MigratePlan& plan_;
    const ProgressMigrateResult& result_;
    const PieceSink& put_;
    Status status_ = ok_status();
    std::size_t next_edit_ = 0, next_change_ = 0, entries_ = 0;
    std::size_t indent_ = std::string::npos;
    std::string last_;
};

// The write pass: the staged replacement is published only when every
// window was rewritten and checked, and the log read in the same windows.
Status write_in_windows(const FileSystem& fs, const WorkspacePaths& ws, const LogWindows& windows,
                        const MigratePlan& plan, const ProgressMigrateResult& result) {
    return write_stream_atomic(fs, ws, result.file, [&](const PieceSink& put) {
        WindowRewriter rewriter(ws, plan, result, put);
        const bool read = for_each_entry_window(fs, result.file, ws.display_of(kProgressFileName), windows,
                                                [&](const Document& window, const WindowPlace& place) {
                                                    rewriter.take(window, place);
                                                });
        return rewriter.finish(read);
    });
}

}  // namespace

Result<ProgressMigrateResult> progress_migrate_command(const FileSystem& fs, const WorkspacePaths& ws,
                                               const ProgressMigrateRequest& req) {
    // A dry run only checks: no lock, no recovery (which may write).
    MutationRequest mutation{req.scope, false, req.lock_wait};
    mutation.read_only = req.dry_run;
    Result<MutationSession> session = begin_mutation(fs, ws, mutation);
    if (!session) return session.error();

    ProgressMigrateResult result;
    if (Status s = require_log(fs, ws, result); !s) return s.error();
    MigratePlan plan;
    if (!plan_in_windows(fs, ws, req.windows, result, plan)) return migrate_whole(fs, ws, req, std::move(result));
    if (plan.error) return *plan.error;
    if (result.changes.empty() || req.dry_run) return result;
    // Re-emitting the whole file needs all of it (the old layout is not kept).
    if (plan.unlocatable != 0) return migrate_whole(fs, ws, req, std::move(result));
    if (Status w = write_in_windows(fs, ws, req.windows, plan, result); !w) return w.error();
    result.written = true;
    return result;
}

}  // namespace small
