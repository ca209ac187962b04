// `small progress migrate` (see the header).
#include "small/ops/session/progress_migrate.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

// ---------------------------------------------------------------------------
// migrate
// ---------------------------------------------------------------------------

namespace {

// One timestamp's bytes in the source, replaced by its canonical form.
struct Edit {
    std::size_t offset, length;
    std::string text;
};

Error entry_error(const WorkspacePaths& ws, std::string message, NodeRef at) {
    Error e = Error::invalid(std::move(message));
    e.file = ws.display_of(kProgressFileName);
    e.line = at.mark().line;
    e.column = at.mark().column;
    return e;
}

// The log, parsed; `entries` must be a list.
Result<Document> read_log(const FileSystem& fs, const WorkspacePaths& ws, ProgressMigrateResult& result) {
    result.file = ws.path_of(kProgressFileName);
    if (!fs.file_exists(result.file)) {
        return Error::system(ws.display_of(kProgressFileName) + " not found; run `small init` first");
    }
    Result<std::string> bytes = fs.read_file(result.file);
    if (!bytes) return bytes.error();
    Result<Document> doc = parse_yaml(*bytes, ws.display_of(kProgressFileName));
    if (!doc) return doc.error();
    if (!doc->root().is_mapping() || !doc->root().find("entries").is_sequence()) {
        return Error::invalid(ws.display_of(kProgressFileName) + ": `entries` must be a list of progress entries");
    }
    result.entries = doc->root().find("entries").size();
    return doc;
}

// The line of `entry`'s key `key` (a block scalar's mark is on its content).
std::uint32_t key_line(NodeRef entry, std::string_view key) {
    for (std::size_t k = 0; k < entry.size(); ++k) {
        if (entry.key(k) == key) return entry.key_node(k).mark().line;
    }
    return entry.mark().line;
}

// Every timestamp in canonical form, strictly increasing (a tie is bumped by
// 1 ns): the changes, and where their bytes are (`edits`, each quoted as the
// old value was (D20); the line of the first that cannot be located, then
// the whole file is re-emitted). Fail-fast on a missing or unparseable
// timestamp.
Result<std::uint32_t> plan_changes(const WorkspacePaths& ws, NodeRef entries, std::string_view src,
                          ProgressMigrateResult& result, std::vector<Edit>& edits) {
    const ScalarLocator locate(src);
    std::uint32_t unlocatable = 0;
    std::optional<Instant> previous;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef ts = entries.item(i).find("timestamp");
        const std::string label = "progress entry " + std::to_string(i);
        if (!ts || ts.is_null() || (ts.is_string() && trim(ts.as_string()).empty())) {
            return entry_error(ws, label + " timestamp is required", entries.item(i));
        }
        const std::string raw(ts.is_string() ? ts.as_string() : ts.scalar_text());
        Result<Instant> parsed = ts.is_string() ? parse_lenient_timestamp(raw) : Result<Instant>(Error::invalid("not a string"));
        if (!parsed) {
            return entry_error(ws, label + " timestamp \"" + raw + "\" is not parseable: " + parsed.error().message, ts);
        }
        Instant t = *parsed;
        if (previous && !(*previous < t)) t = plus_one_ns(*previous);
        previous = t;
        const std::string canonical = format_timestamp_utc9(t);
        if (canonical == raw) continue;
        result.changes.push_back({i, raw, canonical});
        const std::optional<SourceRange> at = locate.find(ts.mark(), raw);
        if (!at) {
            if (unlocatable == 0) unlocatable = key_line(entries.item(i), "timestamp");
        } else {
            edits.push_back({at->offset, at->length, scalar_styled(YamlValue(canonical), scalar_quote(src.substr(at->offset)))});
        }
    }
    return unlocatable;
}

// The new file's bytes: only the timestamp scalars replaced when they could
// all be located (comments kept), else the whole log re-emitted.
std::string migrated_text(const Document& doc, std::string_view src, const std::vector<Edit>& edits,
                          std::uint32_t unlocatable, const WorkspacePaths& ws, ProgressMigrateResult& result) {
    if (unlocatable == 0) {
        std::string out(src);
        for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->offset, it->length, it->text);
        return out;
    }
    YamlValue whole = to_yaml_value(doc.root());
    for (const TimestampChange& c : result.changes) whole["entries"][c.index]["timestamp"] = c.after;
    result.whole_file_rewritten = true;
    result.warning = ws.display_of(kProgressFileName) + ":" + std::to_string(unlocatable) +
                     ": rewritten in house style, its comments and formatting not kept (the timestamp is not a "
                     "one-line scalar)";
    return emit_document(whole);
}

// The rewrite must re-read as the same log with the new timestamps.
Status check_rewrite(const std::string& out, const WorkspacePaths& ws, const ProgressMigrateResult& result) {
    const Error broken = Error::internal("the migrated progress log does not re-read; nothing written");
    Result<Document> check = parse_yaml(out, ws.display_of(kProgressFileName));
    if (!check || !check->root().find("entries").is_sequence() ||
        check->root().find("entries").size() != result.entries) {
        return broken;
    }
    for (const TimestampChange& c : result.changes) {
        if (check->root().find("entries").item(c.index).find("timestamp").as_string() != c.after) return broken;
    }
    return ok_status();
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
    Result<Document> doc = read_log(fs, ws, result);
    if (!doc) return doc.error();
    std::vector<Edit> edits;
    const std::string_view src = doc->source();
    Result<std::uint32_t> unlocatable = plan_changes(ws, doc->root().find("entries"), src, result, edits);
    if (!unlocatable) return unlocatable.error();
    if (result.changes.empty() || req.dry_run) return result;

    const std::string out = migrated_text(*doc, src, edits, *unlocatable, ws, result);
    if (Status s = check_rewrite(out, ws, result); !s) return s.error();
    if (Status w = write_file_atomic(fs, ws, result.file, out); !w) return w.error();
    result.written = true;
    return result;
}

}  // namespace small
