// `small doctor`: every check of the workspace with what to do about it;
// exit 1 when any check is an error (warnings alone exit 0).
#include <memory>

#include "cli.hpp"
#include "small/ops/inspect/doctor.hpp"
#include "small/report/doctor.hpp"

namespace small::cli {

namespace {

struct DoctorFlags {
    std::optional<std::string> dir;
};

void print_check(const Output& out, const DoctorCheck& c) {
    std::vector<std::string> lines;
    const char* tag = c.status == DoctorStatus::Ok ? "[OK] " : c.status == DoctorStatus::Warning ? "[WARN] " : "[ERROR] ";
    lines.push_back(tag + c.category + ": " + c.message);
    for (const Finding& f : c.findings) {
        lines.push_back(std::string("       ") + (f.severity == Severity::Warning ? "warning: " : "") + "[" + f.rule +
                        "] " + f.location_text());
        if (!f.hint.empty()) lines.push_back("         Fix: " + f.hint);
    }
    if (!c.suggestion.empty()) lines.push_back("     -> " + c.suggestion);
    for (const std::string& line : lines) {
        if (c.status == DoctorStatus::Ok) out.info(line);
        else out.problem(line);
    }
}

int run_doctor(Context& ctx, const DoctorFlags& f) {
    const Output out(ctx.globals, "doctor");
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return report_error(out, schemas.error());
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    const DoctorReport r = doctor_command(ctx.fs, ws, **schemas);
    // D4: no .small/ at all is a system error (2); failed checks are 1.
    const bool no_workspace = r.checks.size() == 1 && r.errors;
    const int code = no_workspace ? kExitSystem : r.errors ? kExitInvalid : kExitOk;
    if (out.json()) {
        nlohmann::json doc = doctor_json(r, ws);
        if (code) {
            doc.update(error_json(no_workspace ? "system" : "invalid",
                                  no_workspace ? r.checks[0].message
                                               : std::to_string(r.errors) + " check(s) failed; see checks[]"));
        }
        out.json_document(std::move(doc), code);
        return code;
    }
    out.info("SMALL Doctor Report");
    out.info("===================");
    out.info("");
    for (const DoctorCheck& c : r.checks) print_check(out, c);
    out.info("");
    if (r.errors) out.problem("Summary: Issues found. See suggestions above.");
    else if (r.warnings) out.problem("Summary: Warnings present. Review suggestions above.");
    else out.success("Summary: All checks passed!");
    return code;
}

}  // namespace

void register_doctor(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<DoctorFlags>();
    CLI::App* cmd = add_command(app, "doctor");
    add_dir_option(cmd, f->dir);
    cmd->callback([&ctx, f] { ctx.exit_code = run_doctor(ctx, *f); });
}

}  // namespace small::cli
