// `small archive` and `small archive --verify DIR`: flags and rendering; the
// work is in small/ops/maintenance/archive.hpp.
#include <memory>

#include "cli.hpp"
#include "small/ops/maintenance/archive.hpp"
#include "small/report/run.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct ArchiveFlags {
    std::optional<std::string> dir, out, verify;
    std::vector<std::string> include;
};

// A relative path is relative to the working directory (as in the reference).
std::string from_working_directory(const std::string& p) {
    return p.empty() || is_absolute_path(p) ? p : absolute_path(current_directory(), p);
}

int run_verify(Context& ctx, const ArchiveFlags& f) {
    const Output out(ctx.globals, "archive");
    Result<ArchiveVerifyResult> v = archive_verify_command(ctx.fs, from_working_directory(*f.verify));
    if (!v) return report_error(out, v.error());
    const int code = v->ok() ? kExitOk : kExitInvalid;
    if (out.json()) {
        nlohmann::json doc = archive_verify_json(*v);
        if (code != kExitOk) doc["error"] = {{"kind", "invalid"}, {"message", "archive verification failed: " + v->dir}};
        out.json_document(doc, code);
        return code;
    }
    for (const ArchiveCheck& c : v->files) {
        const std::string line = c.status + "  " + c.name;
        if (c.status == "ok") out.info(line);
        else out.problem(line + (c.status == "mismatch" ? " (sha256 " + c.actual + ", manifest " + c.expected + ")" : ""));
    }
    if (code == kExitOk) out.success("Archive verified: " + std::to_string(v->files.size()) + " files match the manifest");
    else out.problem("Error: archive verification failed: " + v->dir);
    return code;
}

int run_archive(Context& ctx, const ArchiveFlags& f) {
    if (f.verify) return run_verify(ctx, f);
    const Output out(ctx.globals, "archive");
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    if (Status linked = refuse_linked_small_dir(ctx.fs, ws); !linked) return report_error(out, linked.error());
    ArchiveRequest req;
    if (f.out) req.out = from_working_directory(*f.out);
    req.include = f.include;
    req.lock_wait = default_lock_wait();
    Result<ArchiveResult> r = archive_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document(archive_json(*r));
        return kExitOk;
    }
    out.success("Archived " + std::to_string(r->files.size()) + " files to " + r->dir +
                (r->replaced ? " (replaced the older archive of this run)" : ""));
    out.info("ReplayId: " + r->replay_id.substr(0, 16) + "...");
    return kExitOk;
}

}  // namespace

void register_archive(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ArchiveFlags>(app, ctx, "archive", run_archive);
    cmd->add_option("--out", f->out, "Output folder, new or empty (default: <workspace>/.small-archive/<replayId>)");
    cmd->add_option("--include", f->include,
                    "Artifact file names to archive, comma-separated or repeated (default: the five artifacts and "
                    "workspace.small.yml)")
        ->delimiter(',');
    cmd->add_option("--verify", f->verify, "Re-check every SHA-256 of the manifest in DIR (writes nothing)");
    add_dir_option(cmd, f->dir);
}

}  // namespace small::cli
