// `small progress list`: the newest progress entries, filtered. Read-only;
// reads only the end of the log (progress_query.hpp).
#include <memory>

#include "cli.hpp"
#include "small/ops/inspect/plan_show.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/base/text.hpp"
#include "small/ops/inspect/progress_list.hpp"

namespace small::cli {

namespace {

struct ListFlags {
    std::optional<std::string> dir, task, status, since;
    std::size_t limit = 20;
};

int run_list(Context& ctx, const ListFlags& f) {
    const Output out(ctx.globals, "progress list");
    EntryQuery q;
    q.task = f.task;
    q.status = f.status;
    q.limit = f.limit;
    if (f.since) {
        Result<Instant> since = parse_lenient_timestamp(trim(*f.since));
        if (!since) return report_error(out, Error::usage("--since \"" + *f.since + "\" invalid: " + since.error().message));
        q.since = *since;
    }
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    Result<EntryList> r = progress_list_command(ctx.fs, ws, q);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document(entry_list_json(*r, ws));
        return kExitOk;
    }
    for (const YamlValue& e : r->entries) out.info(progress_entry_line(e));
    if (r->entries.empty()) out.info("no matching progress entries");
    if (r->more) out.info("… more: raise --limit, or --limit 0 for all");
    return kExitOk;
}

}  // namespace

void register_progress_list(CLI::App* group, Context& ctx) {
    auto f = std::make_shared<ListFlags>();
    CLI::App* cmd = group->add_subcommand(
        "list", "List progress entries, newest first (reads only the end of the log)");
    complete_as(cmd->add_option("--task", f->task, "Only entries of this task id"), ValueKind::TaskId);
    complete_as(cmd->add_option("--status", f->status, "Only entries with this status"), status_names(kTaskStatuses));
    cmd->add_option("--since", f->since, "Only entries at or after this time (RFC 3339, e.g. 2026-01-31T00:00:00Z)");
    cmd->add_option("--limit", f->limit, "At most N entries (0 = all; default 20)");
    add_dir_option(cmd, f->dir);
    cmd->callback([&ctx, f] { ctx.exit_code = run_list(ctx, *f); });
}

}  // namespace small::cli
