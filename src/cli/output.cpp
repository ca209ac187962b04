#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli.hpp"

namespace small::cli {

namespace {

bool env_set(const char* name) {
    const char* v = std::getenv(name);
    return v && *v;
}

// NO_COLOR and --no-color win; CLICOLOR_FORCE forces; else only on a terminal.
bool want_color(const Globals& g) {
    if (g.no_color || env_set("NO_COLOR")) return false;
    if (const char* force = std::getenv("CLICOLOR_FORCE"); force && *force && std::string(force) != "0") return true;
    return ::isatty(STDOUT_FILENO) && ::isatty(STDERR_FILENO);
}

}  // namespace

Output::Output(const Globals& globals) : globals_(globals), color_(want_color(globals)) {}

std::string Output::paint(const std::string& text, const char* code) const {
    return color_ ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

void Output::info(const std::string& line) const {
    if (!globals_.quiet && !globals_.json) std::cout << line << '\n';
}

void Output::success(const std::string& line) const {
    if (!globals_.quiet && !globals_.json) std::cout << paint(line, "32") << '\n';
}

void Output::problem(const std::string& line) const {
    if (!globals_.json) std::cerr << line << '\n';
}

void Output::findings(const std::vector<Finding>& findings, bool hints) const {
    if (globals_.json) return;
    for (const Finding& f : findings) {
        const bool error = f.severity == Severity::Error;
        if (!error && globals_.quiet) continue;
        std::string head = f.location_text();
        const std::string label = error ? paint("error", "31") : paint("warning", "33");
        // file:line:col: error: message [RULE]
        const std::string prefix = f.file.empty() ? "" : head.substr(0, head.size() - f.message.size());
        std::cerr << prefix << label << ": " << f.message << " [" << f.rule << "]\n";
        if (hints && !f.hint.empty()) std::cerr << "    Fix: " << f.hint << '\n';
    }
}

void Output::json_document(const nlohmann::json& doc) const { std::cout << doc.dump(2) << '\n'; }

nlohmann::json finding_json(const Finding& f) {
    nlohmann::json j = {{"rule", f.rule},
                        {"severity", f.severity == Severity::Error ? "error" : "warning"},
                        {"file", f.file},
                        {"line", f.mark.line},
                        {"column", f.mark.column},
                        {"message", f.message}};
    if (!f.pointer.empty()) j["pointer"] = f.pointer;
    if (!f.hint.empty()) j["hint"] = f.hint;
    return j;
}

nlohmann::json findings_json(const std::vector<Finding>& findings) {
    nlohmann::json out = nlohmann::json::array();
    for (const Finding& f : findings) out.push_back(finding_json(f));
    return out;
}

nlohmann::json error_json(const std::string& kind, const std::string& message) {
    return {{"ok", false}, {"error", {{"kind", kind}, {"message", message}}}};
}

int exit_code_for(VerdictOutcome outcome) {
    switch (outcome) {
        case VerdictOutcome::Ok: return kExitOk;
        case VerdictOutcome::Invalid: return kExitInvalid;
        case VerdictOutcome::SystemError: return kExitSystem;
    }
    return kExitSystem;
}

namespace {

const char* error_kind_name(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::Invalid: return "invalid";
        case Error::Kind::System: return "system";
        case Error::Kind::Usage: return "usage";
        case Error::Kind::Busy: return "busy";
    }
    return "invalid";
}

int exit_code_for(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::Invalid: return kExitInvalid;
        case Error::Kind::System: return kExitSystem;
        case Error::Kind::Usage: return kExitUsage;
        case Error::Kind::Busy: return kExitBusy;
    }
    return kExitSystem;
}

}  // namespace

int report_error(const Output& out, const Error& error) {
    if (out.json()) out.json_document(error_json(error_kind_name(error.kind), error.describe()));
    out.problem("Error: " + error.describe());
    return exit_code_for(error.kind);
}

void add_dir_option(CLI::App* cmd, std::optional<std::string>& dir) {
    cmd->add_option("--dir", dir,
                    "Workspace directory (or its .small/); default: the nearest directory with .small/ from here up");
}

void add_workspace_flags(CLI::App* cmd, WorkspaceFlags& flags, const std::string& scope_help) {
    cmd->add_option("--workspace", flags.scope, scope_help);
    add_dir_option(cmd, flags.dir);
}

Result<Target> resolve_target(const Context& ctx, const WorkspaceFlags& flags) {
    Result<WorkspaceScope> scope = parse_workspace_scope(flags.scope);
    if (!scope) return scope.error();
    return Target{locate_workspace(ctx.fs, flags.dir, current_directory()), *scope};
}

std::string current_directory() {
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    return ec ? std::string(".") : cwd.string();
}

}  // namespace small::cli
