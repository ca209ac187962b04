// `small`: parse the command line, run one command, map the outcome to an
// exit code (D4). Exceptions stop here; the library returns results.
#include <algorithm>
#include <csignal>
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"

namespace {

using namespace small;
using namespace small::cli;

bool wants_json(int argc, char** argv) {
    return std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string(a) == "--json"; });
}

// A usage error (D4: exit 2) as text on stderr or one JSON document, both
// pointing at the help of the command where it was found.
int report_usage(const UsageProblem& problem, const std::string& path, bool json) {
    const std::string text = problem.message + "\nRun '" + problem.help_command + "' for usage.";
    if (json) std::cout << with_envelope(error_json("usage", text), path, kExitUsage).dump(2) << '\n';
    else std::cerr << "Error: " << visible_lines(text) << '\n';
    return kExitUsage;
}

// --help under --json: the help text inside the envelope.
int print_help(const CLI::App& app, const CLI::Error& e, const std::string& path, bool json) {
    if (!json) return app.exit(e);
    const CLI::App* level = &app;
    std::string parent = "small";
    for (const CLI::App* sub = level; sub;) {
        const std::vector<CLI::App*> chosen = sub->get_subcommands();
        sub = chosen.empty() ? nullptr : chosen.front();
        if (sub) {
            if (level != &app) parent += " " + level->get_name();
            level = sub;
        }
    }
    const std::string text = level == &app ? app.help() : level->help(parent);
    std::cout << with_envelope({{"help", text}}, path, kExitOk).dump(2) << '\n';
    return kExitOk;
}

// CLI11 does not list the parent's flags under a command; say it, at every level.
void add_global_flags_footer(CLI::App& parent) {
    for (CLI::App* sub : parent.get_subcommands([](CLI::App*) { return true; })) {
        const std::string footer = sub->get_footer();
        sub->footer((footer.empty() ? "" : footer + "\n") + std::string(kGlobalFlagsFooter));
        add_global_flags_footer(*sub);
    }
}

// Every command's parser, in the order of the command registry
// (base/command_table), which names the commands: the static_assert below
// keeps the two lists one, so a command cannot be added to one and not the other.
struct Command {
    std::string_view name;
    void (*add)(CLI::App&, Context&);
};
constexpr Command kCommands[] = {
    {"accept", register_accept},
    {"agents", register_agents},
    {"apply", register_apply},
    {"archive", register_archive},
    {"board", register_board},
    {"check", register_check},
    {"checkpoint", register_checkpoint},
    {"claim", register_claim},
    {"claims", register_claims},
    {"completion", register_completion},
    {"doctor", register_doctor},
    {"draft", register_draft},
    {"drift", register_drift},
    {"emit", register_emit},
    {"fix", register_fix},
    {"graph", register_graph},
    {"handoff", register_handoff},
    {"help", register_help},
    {"hooks", register_hooks},
    {"init", register_init},
    {"lint", register_lint},
    {"lsp", register_lsp},
    {"mcp", register_mcp},
    {"merge", register_merge},
    {"plan", register_plan},
    {"progress", register_progress},
    {"ready", register_ready},
    {"release", register_release},
    {"replay-id", register_replay_id},
    {"report", register_report},
    {"reset", register_reset},
    {"run", register_run},
    {"schema", register_schema},
    {"selftest", register_selftest},
    {"serve", register_serve},
    {"start", register_start},
    {"status", register_status},
    {"validate", register_validate},
    {"verify", register_verify},
    {"version", register_version},
};

constexpr bool same_commands_as_the_registry() {
    if (std::size(kCommands) != std::size(kCommandTable)) return false;
    for (std::size_t i = 0; i < std::size(kCommands); ++i) {
        if (kCommands[i].name != kCommandTable[i].name) return false;
    }
    return true;
}
static_assert(same_commands_as_the_registry(), "src/cli/main.cpp's kCommands and base/command_table differ");

// The command a command line runs when its first word names one exactly
// (global flags take no values, so they may come first), `version` for a
// bare --version; "" otherwise.
// Building only that command's parser keeps the start-up floor low (issue
// 19); help, completion, did-you-mean and the usage errors of an unknown
// word see the whole tree.
std::string_view only_command(int argc, char** argv) {
    bool version_flag = false;  // `small --version` needs no command's parser
    for (int i = 1; i < argc; ++i) {
        const std::string_view word = argv[i];
        version_flag |= word == "--version" || word == "-v";
        if (word.empty() || word[0] == '-') continue;
        if (word == "help") return "";
        for (const Command& c : kCommands) {
            if (c.name == word) return c.name;
        }
        return "";
    }
    return version_flag ? "version" : "";
}

// Issue 41: a value is kept as typed. CLI11 reads a value of an option that
// may take several ("[a,b]") as a list and splits or strips it: `plan --add
// '[draft]'` stored "draft". An option with a bounded count of values takes
// each as given (only its greed for following words depends on the setting,
// and a bounded one has none).
void keep_values_whole(CLI::App& app) {
    for (CLI::Option* opt : app.get_options()) {
        if (opt->get_allow_extra_args() && opt->get_expected_max() < CLI::detail::expected_max_vector_size) {
            opt->allow_extra_args(false);
        }
    }
    for (CLI::App* sub : app.get_subcommands({})) keep_values_whole(*sub);
}

// `only` empty: every command.
void configure(CLI::App& app, Context& ctx, std::string_view only) {
    app.description("SMALL is a protocol for durable, agent-legible project state: intent, constraints, plan,\n"
                    "progress and handoff in .small/, validated by schemas and invariants.");
    app.set_version_flag("-v,--version", version_text(), "Print the version and exit");
    app.add_flag("--json", ctx.globals.json, "Print exactly one JSON document on stdout");
    app.add_flag("--quiet", ctx.globals.quiet, "Suppress non-error output");
    app.add_flag("--no-color", ctx.globals.no_color, "Disable ANSI color output");
    app.fallthrough();  // global flags may follow the command name
    app.require_subcommand(0, 1);
    for (const Command& c : kCommands) {
        if (only.empty() || only == c.name) c.add(app, ctx);
    }
    keep_values_whole(app);
    app.footer("Exit codes: 0 ok, 1 invalid workspace or refused, 2 usage or system error, 3 workspace busy.\n"
               "Run 'small <command> --help' for a command's flags. Docs: README.md, docs/.");
    add_global_flags_footer(app);
}

}  // namespace

int main(int argc, char** argv) {
    // git runs `git merge -s small` as git-merge-small: a link to this binary (D17).
    if (argc >= 1 && called_as_merge_strategy(argv[0])) return run_merge_strategy(argc, argv);
    // A file-size limit must surface as an EFBIG error (and a rollback), not kill us.
    std::signal(SIGXFSZ, SIG_IGN);
    Context ctx;
    CLI::App app("small", "small");
    const bool tooling = argc >= 2 && (std::string(argv[1]) == "__complete" || std::string(argv[1]) == "__man");
    configure(app, ctx, tooling ? std::string_view() : only_command(argc, argv));
    // Shell completion asks here, before the usage check: its words are a half-typed command line.
    if (argc >= 2 && std::string(argv[1]) == "__complete") {
        return run_complete_request(app, ctx, std::vector<std::string>(argv + 2, argv + argc));
    }
    // The build asks here for the manual pages (hidden, like __complete).
    if (argc >= 2 && std::string(argv[1]) == "__man") {
        return run_man_request(app, std::vector<std::string>(argv + 2, argv + argc));
    }
    const bool json = wants_json(argc, argv);
    const std::string path = command_path_of(app, argc, argv);
    if (const auto problem = find_usage_problem(app, argc, argv)) return report_usage(*problem, path, json);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return print_help(app, e, path, json);
    } catch (const CLI::CallForAllHelp& e) {
        return print_help(app, e, path, json);
    } catch (const CLI::CallForVersion& e) {
        if (!json) return app.exit(e);
        std::cout << with_envelope(version_json(), "version", kExitOk).dump(2) << '\n';
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        const std::string help = (path == "small" ? path : "small " + path) + " --help";
        return report_usage(UsageProblem{e.what(), help}, path, json);
    } catch (const std::exception& e) {
        // The library reports failures as values; an exception here is a bug.
        Globals globals = ctx.globals;
        globals.json = json;  // the parse may have stopped before --json was stored
        return report_error(Output(globals, path), small::Error::internal(e.what()));
    }
    if (app.get_subcommands().empty()) {
        if (json) return report_error(Output(ctx.globals, "small"),
                                      small::Error::usage("no command given; run small --help for the list"));
        std::cout << app.help();
        return kExitOk;
    }
    return ctx.exit_code;
}
