#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"

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

Output::Output(const Globals& globals, std::string command)
    : globals_(globals), command_(std::move(command)), color_(want_color(globals)) {}

std::string Output::paint(const std::string& text, const char* code) const {
    return color_ ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

// Issue 41: the one sanitizer at the edge. Every line of text output passes
// visible(): a control character that a file, a flag or another machine put
// into a value is shown as an escape, never sent to the terminal, and no
// line starts with a GitHub workflow command ("::error::").
void Output::info(const std::string& line) const {
    if (!globals_.quiet && !globals_.json) std::cout << visible(line) << '\n';
}

void Output::lines(const std::string& block) const {
    if (!globals_.quiet && !globals_.json) std::cout << visible_lines(block) << '\n';
}

void Output::success(const std::string& line) const {
    if (!globals_.quiet && !globals_.json) std::cout << paint(visible(line), "32") << '\n';
}

void Output::problem(const std::string& line) const {
    if (!globals_.json) std::cerr << visible(line) << '\n';
}

void Output::problem_lines(const std::string& block) const {
    if (!globals_.json) std::cerr << visible_lines(block) << '\n';
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
        std::cerr << visible(prefix) << label << ": " << visible(f.message) << " [" << visible(f.rule) << "]\n";
        if (hints && !f.hint.empty()) std::cerr << "    Fix: " << visible(f.hint) << '\n';
    }
}

void Output::json_document(nlohmann::json doc, int exit_code) const {
    std::cout << with_envelope(std::move(doc), command_, exit_code).dump(2) << '\n';
}

int report_error(const Output& out, const Error& error) {
    const int code = exit_code_for(error.kind);
    if (out.json()) out.json_document(error_document(error), code);
    out.problem_lines("Error: " + error.describe());  // an error's own line breaks are kept (its guidance)
    if (!error.hint.empty()) out.problem_lines("    Fix: " + error.hint);
    return code;
}

std::string gitignore_line(const GitignoreUpdate& update) {
    if (update.added.empty()) return "";
    std::string added;
    for (const std::string& l : update.added) added += (added.empty() ? "" : ", ") + l;
    return (update.created() ? "Created .gitignore with " : "Added to .gitignore: ") + added;
}

Confirmation confirm(bool yes, const std::string& question) {
    if (yes) return Confirmation::Yes;
    const bool terminal = ::isatty(STDIN_FILENO);
    if (terminal) std::cerr << question << " [y/N]: " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) {
        if (terminal) std::cerr << '\n';
        return Confirmation::NoAnswer;
    }
    if (!terminal) std::cerr << question << " [y/N]: " << answer << '\n';
    const std::string a = lower_ascii(trim(answer));
    return a == "y" || a == "yes" ? Confirmation::Yes : Confirmation::No;
}

int report_declined(const Output& out, Confirmation answer, const std::string& what) {
    if (answer == Confirmation::NoAnswer) {
        return report_error(out, Error::invalid("no answer on standard input, so " + what +
                                                " was refused; nothing changed. Pass --yes (-y) to confirm "
                                                "without a question"));
    }
    if (out.json()) out.json_document({{"cancelled", true}, {"message", what + " cancelled; nothing changed"}});
    else out.problem(what + " cancelled; nothing changed");
    return kExitOk;
}

int run_group_without_subcommand(const Context& ctx, const CLI::App& group) {
    if (!ctx.globals.json) {
        std::cout << group.help();
        return kExitOk;
    }
    std::string names;
    for (const CLI::App* sub : group.get_subcommands([](const CLI::App*) { return true; })) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    const Output out(ctx.globals, group.get_name());
    return report_error(out, Error::usage("small " + group.get_name() + " needs a sub-command (" + names +
                                          "); see small " + group.get_name() + " --help"));
}

std::string command_path_of(const CLI::App& app, int argc, char** argv) {
    const CLI::App* level = &app;
    std::string path;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--") break;
        if (word.empty() || word[0] == '-') continue;
        const CLI::App* sub = find_subcommand(*level, word);
        if (!sub) break;
        // draft and accept: intent|constraints is what the command works on
        // (its `kind` key), not part of the command's name.
        if (level->get_option_no_throw("kind")) break;
        path += (path.empty() ? "" : " ") + word;
        level = sub;
        if (level->get_subcommands([](const CLI::App*) { return true; }).empty()) break;
    }
    return path.empty() ? std::string("small") : path;
}

void add_dir_option(CLI::App* cmd, std::optional<std::string>& dir) {
    complete_as(cmd->add_option("--dir", dir,
                                "Workspace directory (or its .small/); default: the nearest directory with .small/ "
                                "from here up"),
                ValueKind::Directory);
}

void add_workspace_flags(CLI::App* cmd, WorkspaceFlags& flags, const std::string& scope_help) {
    complete_as(cmd->add_option("--workspace", flags.scope, scope_help), kWorkspaceScopeNames);
    add_dir_option(cmd, flags.dir);
}

Result<Target> resolve_target(const Context& ctx, const WorkspaceFlags& flags) {
    Result<WorkspaceScope> scope = parse_workspace_scope(flags.scope);
    if (!scope) return scope.error();
    return Target{locate_workspace(ctx.fs, flags.dir, current_directory()), *scope};
}

std::string current_directory() { return process_directory(); }

std::size_t terminal_width() {
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
        const long n = std::strtol(columns, nullptr, 10);
        if (n > 0 && n < 10000) return static_cast<std::size_t>(n);
    }
    return 100;
}

long read_stdin_bytes(char* buffer, std::size_t size) {
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, size);
        if (n >= 0 || errno != EINTR) return n;
    }
}

// False once the client is gone (EPIPE and other write errors).
bool write_stdout_bytes(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

}  // namespace small::cli
