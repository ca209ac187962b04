// Shared pieces of the `small` command line: global flags, output and the
// registration function of every command (one file per command).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/path.hpp"
#include "small/check/finding.hpp"
#include "small/base/command_table.hpp"
#include "small/domain/gitignore.hpp"
#include "small/check/verdict.hpp"
#include "small/ops/inspect/verdict.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/view/graph_focus.hpp"

namespace small::cli {

struct Globals {
    bool json = false;
    bool quiet = false;
    bool no_color = false;
};

// Everything a command needs besides its own flags.
struct Context {
    Globals globals;
    RealFileSystem fs;
    int exit_code = kExitOk;
};

// Text and JSON rendering. Text goes to stdout (results) and stderr
// (problems); JSON is always exactly one document on stdout, wrapped in the
// envelope (D16) of `command`, the command path ("progress add").
class Output {
public:
    Output(const Globals& globals, std::string command);

    bool json() const { return globals_.json; }
    bool quiet() const { return globals_.quiet; }
    bool color() const { return color_; }  // ANSI colour on (a terminal, no NO_COLOR or --no-color)
    const std::string& command() const { return command_; }
    // Text goes through the one sanitizer (base/text visible): control
    // characters become escapes; a line never starts with "::".
    void info(const std::string& line) const;     // stdout, silenced by --quiet; one line ("\n" shown as an escape)
    void lines(const std::string& block) const;   // the same for a block of lines (its line breaks kept)
    void success(const std::string& line) const;  // stdout, green
    void problem(const std::string& line) const;  // stderr, never silenced; one line, as info
    void problem_lines(const std::string& block) const;  // the same for a block of lines (an error's guidance)
    void findings(const std::vector<Finding>& findings, bool hints = true) const;
    // Prints `doc` with the envelope keys set: schema_version, command, ok
    // (exit_code == 0) and exit_code. A failure without an `error` gets one.
    void json_document(nlohmann::json doc, int exit_code = 0) const;

private:
    std::string paint(const std::string& text, const char* code) const;
    Globals globals_;
    std::string command_;
    bool color_;
};

// Prints a command's failure (one JSON document with --json, else
// "Error: ..." on stderr) and returns its exit code (D4: Busy is 3).
int report_error(const Output& out, const Error& error);
// The runtime lines a command added to .gitignore (init, start) as a text
// line ("" when none were added); report/session.hpp has the JSON.
std::string gitignore_line(const GitignoreUpdate& update);

// D15: an explicit confirmation. With `yes` (-y/--yes) it is given;
// otherwise `question` goes to stderr and one answer is read from stdin (a
// pipe works). On a pipe the answer is read before the question is shown,
// so end of input leaves no dangling prompt.
enum class Confirmation { Yes, No, NoAnswer };
Confirmation confirm(bool yes, const std::string& question);

// The outcome of a declined confirmation: "n" cancels (exit 0, nothing
// changed), end of input refuses (exit 1) and names --yes.
int report_declined(const Output& out, Confirmation answer, const std::string& what);

// `small progress` alone: its help, or under --json a usage error (exit 2)
// that names the sub-commands.
int run_group_without_subcommand(const Context& ctx, const CLI::App& group);

// The command path ("progress add") that argv names, as far as it names
// one: for the envelope of errors raised before a command runs.
std::string command_path_of(const CLI::App& app, int argc, char** argv);

// A usage error (D4, exit 2) and the help that explains the level where it
// was found ("small progress add --help").
struct UsageProblem {
    std::string message;
    std::string help_command;
};

// Checks argv against the command tree before CLI11 parses it: an unknown
// command or sub-command, an unknown flag at the level it was given (with
// the closest names there), a one-value flag given twice, a flag without its
// value, an argument to a command that takes none. Nothing when argv asks
// for --help or --version (CLI11 answers those).
std::optional<UsageProblem> find_usage_problem(const CLI::App& app, int argc, char** argv);

// A flag's value checked against `values`: "invalid value "x" (valid: a, b)".
CLI::Validator one_of(std::vector<std::string> values);

// The options usable at `level`: its own and, since every level falls
// through to its parent, those of its ancestors.
std::vector<const CLI::Option*> usable_options(const CLI::App& level);
// The option `name` ("--dir", "-y") names at `level`, or nullptr.
const CLI::Option* find_flag(const CLI::App& level, const std::string& name);

// Shell completion (complete.cpp). What the value of an option or argument
// completes to; the generator reads it from the option itself, so commands
// and flags added later complete without a list to keep in step. Options
// without one complete by their name: --task (plan task ids), --status
// (task statuses), --workspace (scopes), --dir/--out/--store/--spec-dir
// (directories); any other value completes to file names.
enum class ValueKind { Words, TaskId, Directory, File, Command, Nothing };
struct ValueCompletion {
    ValueKind kind = ValueKind::File;
    std::vector<std::string> words;  // ValueKind::Words
};
// Records what `option`'s value completes to; returns `option` for chaining.
CLI::Option* complete_as(CLI::Option* option, ValueKind kind);
CLI::Option* complete_as(CLI::Option* option, std::vector<std::string> words);
template <std::size_t N>
CLI::Option* complete_as(CLI::Option* option, const std::string_view (&words)[N]) {
    return complete_as(option, std::vector<std::string>(std::begin(words), std::end(words)));
}
// `small __complete WORD... CURRENT`: what the shell scripts call. Prints a
// directive line (words, files or dirs) and then one `candidate<TAB>description`
// per line; never an error (a shell must stay quiet). Returns 0.
int run_complete_request(const CLI::App& app, const Context& ctx, const std::vector<std::string>& words);
// The sub-commands of `level` that --help lists (a hidden one has no group).
std::vector<const CLI::App*> visible_subcommands(const CLI::App& level);

// The line every command's --help ends with; the manual pages list the
// global flags in a section of their own instead.
inline constexpr std::string_view kGlobalFlagsFooter =
    "Global flags: --json (one JSON document on stdout), --quiet, --no-color";
// `small __man [--list | COMMAND]` (man.cpp): prints small(1), or
// small-COMMAND(1), in roff from the command tree; --list names the
// commands that have a page. The build writes the installed pages with it.
int run_man_request(const CLI::App& app, const std::vector<std::string>& words);

// small called as git-merge-small (merge_strategy.cpp): whether argv[0]'s
// last component is that name, and the strategy run with git's arguments
// (it replaces this process with /bin/sh; returns only when that fails).
bool called_as_merge_strategy(const char* argv0);
int run_merge_strategy(int argc, char** argv);
// The strategy's text, src/git/git-merge-small, compiled in by CMake
// (cmake/embed_text.cmake).
const char* merge_strategy_script();

// Adds --dir to `cmd`, storing into `dir`.
void add_dir_option(CLI::App* cmd, std::optional<std::string>& dir);

// --dir and --workspace, shared by the commands that work on a workspace.
struct WorkspaceFlags {
    std::optional<std::string> dir;
    std::string scope = "root";
};
void add_workspace_flags(CLI::App* cmd, WorkspaceFlags& flags, const std::string& scope_help);

// --open, --task, --depth and --limit, shared by `board` and `graph` (view_flags.cpp).
struct FocusFlags {
    bool open = false;
    std::string task;
    std::optional<std::size_t> depth, limit;
};
void add_focus_flags(CLI::App* cmd, FocusFlags& flags, const std::string& limit_help);
// The focus the flags ask for (the limit 0 when not given); Usage error: --depth without --task.
Result<GraphFocus> focus_of(const FocusFlags& flags);

// The workspace those flags name (D5) and the parsed scope (Usage error on a bad value).
struct Target {
    WorkspacePaths ws;
    WorkspaceScope scope = WorkspaceScope::Root;
};
Result<Target> resolve_target(const Context& ctx, const WorkspaceFlags& flags);
std::string current_directory();

// A writing command's request aimed at its target: the scope the workspace
// was named with and the lock wait every writer uses (SMALL_LOCK_WAIT).
template <typename Request>
void aim_at(const Target& target, Request& req) {
    req.scope = target.scope;
    req.lock_wait = default_lock_wait();
}

// The flags of a command that takes a workspace and fills one library request.
template <typename Request>
struct RequestFlags {
    WorkspaceFlags where;
    Request req;
};

// The workspace `where` names, with `req` aimed at it: the prologue of a writing command.
template <typename Request>
Result<WorkspacePaths> aimed_workspace(const Context& ctx, const WorkspaceFlags& where, Request& req) {
    Result<Target> target = resolve_target(ctx, where);
    if (!target) return target.error();
    aim_at(*target, req);
    return std::move(target->ws);
}

// Gives `cmd` flags of its own, which live as long as the parser (CLI11 binds
// options to them); when called, `run(ctx, flags)` gives the exit code.
template <typename Flags, typename Run>
std::pair<CLI::App*, std::shared_ptr<Flags>> bind_command(CLI::App* cmd, Context& ctx, Run run) {
    auto flags = std::make_shared<Flags>();
    cmd->callback([&ctx, flags, run] { ctx.exit_code = run(ctx, *flags); });
    return {cmd, flags};
}

// Adds the subcommand `name` with flags of its own (bind_command).
template <typename Flags, typename Run>
std::pair<CLI::App*, std::shared_ptr<Flags>> add_command(CLI::App& parent, Context& ctx, const std::string& name,
                                                         Run run, const std::string& description) {
    return bind_command<Flags>(parent.add_subcommand(name, description), ctx, run);
}

// The command `name` of the registry (base/command_table) under `app`,
// with the registry's summary: a command missing from the table cannot be added.
inline CLI::App* add_command(CLI::App& app, std::string_view name) {
    const CommandInfo* info = find_command(name);
    if (!info) throw std::logic_error("small " + std::string(name) + " is not in the command table");
    return app.add_subcommand(std::string(name), std::string(info->summary));
}

// The same for a command with flags of its own.
template <typename Flags, typename Run>
std::pair<CLI::App*, std::shared_ptr<Flags>> add_command(CLI::App& app, Context& ctx, std::string_view name, Run run) {
    return bind_command<Flags>(add_command(app, name), ctx, run);
}

// Flags shared by validate, lint, check and verify.
struct VerdictFlags {
    std::optional<std::string> dir;
    std::optional<std::string> spec_dir;  // default: $SMALL_SPEC_DIR
    std::string scope = "root";
    bool strict = false;
    bool format_strict = false;
    bool ci = false;
    bool evidence = false;  // verify --evidence: progress evidence against git
    bool no_cache = false;  // read the whole progress log, not just what follows its verified prefix
    bool verbose = false;   // say on stderr why a verified-prefix cache was not used
    std::string format = "text";  // text, json (= --json), sarif, github, gitlab
};

// The --format flag of the four verdict commands: text, json, sarif
// (SARIF 2.1.0 on stdout), github (workflow annotations on stdout) or
// gitlab (a Code Quality report on stdout).
void add_format_option(CLI::App* cmd, std::string& format);

// The --no-cache and --verbose flags of the four verdict commands.
void add_no_cache_flag(CLI::App* cmd, VerdictFlags& flags);

// Resolves the workspace, loads the schemas (embedded or --spec-dir), runs
// the verdict, renders it as text or JSON and returns the exit code.
int run_verdict_command(Context& ctx, VerdictKind kind, const VerdictFlags& flags);

// `check --strict` on `ws`: rendered as text, or stored in *json_out
// (check --json shape) when json_out is given. Returns the exit code.
int run_strict_check(Context& ctx, const WorkspacePaths& ws, nlohmann::json* json_out);

void register_version(CLI::App& app, Context& ctx);
void register_validate(CLI::App& app, Context& ctx);
void register_schema(CLI::App& app, Context& ctx);  // schema print, schema export
void register_graph(CLI::App& app, Context& ctx);
void register_board(CLI::App& app, Context& ctx);
void register_report(CLI::App& app, Context& ctx);

// The terminal's width in characters: stdout's window, else $COLUMNS, else 100.
std::size_t terminal_width();
// The servers' byte I/O (mcp, lsp): stdin read past EINTR (0 at its end, < 0 on
// an error); stdout written whole, false once the client is gone.
long read_stdin_bytes(char* buffer, std::size_t size);
bool write_stdout_bytes(std::string_view bytes);
void register_lint(CLI::App& app, Context& ctx);
void register_lsp(CLI::App& app, Context& ctx);  // the Language Server (small/lsp)
void register_mcp(CLI::App& app, Context& ctx);  // the MCP server (small/mcp)
void register_check(CLI::App& app, Context& ctx);
void register_verify(CLI::App& app, Context& ctx);
void register_merge(CLI::App& app, Context& ctx);
void register_replay_id(CLI::App& app, Context& ctx);
void register_progress(CLI::App& app, Context& ctx);  // progress add, progress migrate
void register_init(CLI::App& app, Context& ctx);
void register_help(CLI::App& app, Context& ctx);
void register_plan(CLI::App& app, Context& ctx);
void register_checkpoint(CLI::App& app, Context& ctx);
void register_ready(CLI::App& app, Context& ctx);    // D19: ready, claim, release, claims
void register_claim(CLI::App& app, Context& ctx);
void register_release(CLI::App& app, Context& ctx);
void register_claims(CLI::App& app, Context& ctx);
void register_handoff(CLI::App& app, Context& ctx);
void register_serve(CLI::App& app, Context& ctx);
void register_start(CLI::App& app, Context& ctx);
void register_status(CLI::App& app, Context& ctx);
void register_emit(CLI::App& app, Context& ctx);
void register_doctor(CLI::App& app, Context& ctx);
void register_reset(CLI::App& app, Context& ctx);
void register_draft(CLI::App& app, Context& ctx);
void register_drift(CLI::App& app, Context& ctx);
void register_fix(CLI::App& app, Context& ctx);  // fix, fix workspace
void register_accept(CLI::App& app, Context& ctx);
void register_agents(CLI::App& app, Context& ctx);  // agents apply, check, print
void register_hooks(CLI::App& app, Context& ctx);   // hooks install, uninstall, print
void register_apply(CLI::App& app, Context& ctx);
void register_selftest(CLI::App& app, Context& ctx);
void register_completion(CLI::App& app, Context& ctx);         // completion bash, zsh, fish
void register_run(CLI::App& app, Context& ctx);     // run snapshot, list, show, diff, checkout
void register_archive(CLI::App& app, Context& ctx);
void register_plan_show(CLI::App* plan, Context& ctx);         // plan show
void register_progress_list(CLI::App* group, Context& ctx);    // progress list
// One progress entry as a line: timestamp, task, status, first evidence field.
std::string progress_entry_line(const YamlValue& entry);

std::string version_text();

}  // namespace small::cli

namespace small::cli {
// The subcommand called `name`, or nullptr (CLI11 2.1 only has a throwing lookup).
inline CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name() == name) return const_cast<CLI::App*>(sub);
    }
    return nullptr;
}
}  // namespace small::cli
