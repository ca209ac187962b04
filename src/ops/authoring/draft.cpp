// `small draft` (see the header).
#include "small/ops/authoring/draft.hpp"

#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "small/store/atomic_file.hpp"
#include "small/check/invariants.hpp"
#include "small/store/progress_log.hpp"
#include "small/check/schema.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/store/workspace_change.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

// ---------------------------------------------------------------------------
// draft: reading the source
// ---------------------------------------------------------------------------

// At most kMaxFileBytes, like a file: `--from - < /dev/zero` must end.
Result<std::string> read_stream(std::istream* in) {
    if (in == nullptr) return Error::system("standard input is not available");
    std::string bytes;
    char buf[65536];
    while (in->read(buf, sizeof buf) || in->gcount() > 0) {
        bytes.append(buf, static_cast<std::size_t>(in->gcount()));
        if (bytes.size() > kMaxFileBytes) {
            return Error::invalid("standard input is larger than " + std::to_string(kMaxFileBytes >> 20) +
                                  " MiB, the most small reads as one draft; nothing saved");
        }
    }
    if (in->bad()) return Error::system("cannot read standard input");
    return bytes;
}

Result<std::string> read_source_file(const FileSystem& fs, const DraftRequest& req) {
    const std::string path = req.from.front() == '/' ? req.from : req.cwd + "/" + req.from;
    Result<std::string> bytes = fs.read_file(path);
    if (!bytes) {
        Error e = bytes.error();
        e.file.clear();  // the message already names the path
        e.message = "cannot read the draft source: " + e.message;
        return e;
    }
    return bytes;
}

// The bytes --from names; blank flag and empty input are refused.
Result<std::string> read_source(const FileSystem& fs, const DraftRequest& req) {
    if (trim(req.from).empty()) {
        return Error::usage("--from must name a file, or - (or stdin) for standard input");
    }
    const bool from_stdin = is_stdin_source(req.from);
    Result<std::string> bytes = from_stdin ? read_stream(req.input) : read_source_file(fs, req);
    if (!bytes) return bytes;
    if (trim(*bytes).empty()) {
        // An empty draft could only ever be refused by accept; keep the old one.
        return Error::invalid((from_stdin ? std::string("standard input") : req.from) +
                              " is empty; nothing saved (a draft holds a whole " +
                              std::string(draft_kind_name(req.kind)) + ".small.yml)");
    }
    return bytes;
}

}  // namespace

Result<DraftResult> draft_command(const FileSystem& fs, const WorkspacePaths& ws, const DraftRequest& req) {
    Result<std::string> bytes = read_source(fs, req);  // before the lock: stdin may be slow
    if (!bytes) return bytes.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();

    DraftResult result;
    const std::string relative = draft_relative_path(req.kind);
    result.draft_path = runtime_path(ws.root, relative);
    result.draft_display = ws.display_prefix + relative;
    result.source = is_stdin_source(req.from) ? "stdin" : req.from;
    result.bytes = bytes->size();
    if (Status s = ensure_directory(fs, ws, runtime_path(ws.root, kDraftsDirName)); !s) return s.error();
    if (Status s = write_file_atomic(fs, ws, result.draft_path, *bytes); !s) return s.error();
    result.warnings = check_draft(req.kind, *bytes, result.draft_display);
    for (Finding& f : result.warnings) f.severity = Severity::Warning;
    return result;
}

}  // namespace small
