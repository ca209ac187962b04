// `small progress migrate` (see the header).
#include "small/ops/progress_migrate.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

// ---------------------------------------------------------------------------
// migrate
// ---------------------------------------------------------------------------

Result<ProgressMigrateResult> progress_migrate(const FileSystem& fs, const WorkspacePaths& ws,
                                               const ProgressMigrateRequest& req) {
    // A dry run only checks: no lock, no recovery (which may write).
    MutationRequest mutation{req.scope, false, req.lock_wait};
    mutation.read_only = req.dry_run;
    Result<MutationSession> session = begin_mutation(fs, ws, mutation);
    if (!session) return session.error();

    ProgressMigrateResult result;
    result.file = ws.path_of(kProgressFileName);
    if (!fs.file_exists(result.file)) {
        return Error::system(ws.display_of(kProgressFileName) + " not found; run `small init` first");
    }
    Result<std::string> bytes = fs.read_file(result.file);
    if (!bytes) return bytes.error();
    Result<Document> doc = parse_yaml(*bytes, ws.display_of(kProgressFileName));
    if (!doc) return doc.error();
    const NodeRef entries = doc->root().find("entries");
    if (!doc->root().is_mapping() || !entries.is_sequence()) {
        return Error::invalid(ws.display_of(kProgressFileName) + ": `entries` must be a list of progress entries");
    }
    result.entries = entries.size();

    struct Edit {
        std::size_t offset, length;
        std::string text;
    };
    std::vector<Edit> edits;
    bool locatable = true;
    const std::string_view src = doc->source().empty() ? std::string_view(*bytes) : std::string_view(doc->source());
    const ScalarLocator locate(src);
    std::optional<Instant> previous;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef ts = entries.item(i).find("timestamp");
        const std::string label = "progress entry " + std::to_string(i);
        if (!ts || ts.is_null() || (ts.is_string() && trim(ts.as_string()).empty())) {
            Error e = Error::invalid(label + " timestamp is required");
            e.file = ws.display_of(kProgressFileName);
            e.line = entries.item(i).mark().line;
            e.column = entries.item(i).mark().column;
            return e;
        }
        const std::string raw(ts.is_string() ? ts.as_string() : ts.scalar_text());
        Result<Instant> parsed = ts.is_string() ? parse_lenient_timestamp(raw) : Result<Instant>(Error::invalid("not a string"));
        if (!parsed) {
            Error e = Error::invalid(label + " timestamp \"" + raw + "\" is not parseable: " + parsed.error().message);
            e.file = ws.display_of(kProgressFileName);
            e.line = ts.mark().line;
            e.column = ts.mark().column;
            return e;
        }
        Instant t = *parsed;
        if (previous && !(*previous < t)) t = plus_one_ns(*previous);
        previous = t;
        const std::string canonical = format_timestamp_utc9(t);
        if (canonical == raw) continue;
        result.changes.push_back({i, raw, canonical});
        const std::optional<SourceRange> at = locate.find(ts.mark(), raw);
        if (!at) locatable = false;
        else edits.push_back({at->offset, at->length, yaml_quoted(canonical)});
    }
    if (result.changes.empty() || req.dry_run) return result;

    std::string out;
    if (locatable) {
        out = std::string(src);
        for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->offset, it->length, it->text);
    } else {
        YamlValue whole = to_yaml_value(doc->root());
        for (const TimestampChange& c : result.changes) whole["entries"][c.index]["timestamp"] = c.after;
        out = emit_document(whole);
        result.whole_file_rewritten = true;
    }
    // The rewrite must re-read as the same log with the new timestamps.
    Result<Document> check = parse_yaml(out, ws.display_of(kProgressFileName));
    if (!check || !check->root().find("entries").is_sequence() ||
        check->root().find("entries").size() != result.entries) {
        return Error::internal("the migrated progress log does not re-read; nothing written");
    }
    for (const TimestampChange& c : result.changes) {
        if (check->root().find("entries").item(c.index).find("timestamp").as_string() != c.after) {
            return Error::internal("the migrated progress log does not re-read; nothing written");
        }
    }
    if (Status w = write_file_atomic(ws, result.file, out); !w) return w.error();
    result.written = true;
    return result;
}

}  // namespace small
