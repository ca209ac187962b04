// `small help [COMMAND [SUB-COMMAND]]`: the same text as `--help` at that level.
#include <iostream>

#include "cli.hpp"

namespace small::cli {

void register_help(CLI::App& app, Context& ctx) {
    auto topic = std::make_shared<std::vector<std::string>>();
    CLI::App* cmd = add_command(app, "help");
    complete_as(cmd->add_option("command", *topic, "The command (and sub-command) to explain"), ValueKind::Command);
    cmd->callback([&app, &ctx, topic] {
        const Output out(ctx.globals, "help");
        // app.help() would describe the selected `help` command itself.
        const CLI::App* level = &app;
        std::string parent, name = "small";
        for (const std::string& word : *topic) {
            const CLI::App* sub = find_subcommand(*level, word);
            if (!sub) {
                ctx.exit_code = report_error(
                    out, Error::usage("unknown help topic \"" + word + "\" under \"" + name + "\"; run " + name +
                                      " --help for the list"));
                return;
            }
            level = sub;
            parent = name;
            name += " " + word;
        }
        const std::string text = level == &app
                                     ? app.get_formatter()->make_help(&app, "small", CLI::AppFormatMode::Normal)
                                     : level->help(parent);
        if (out.json()) out.json_document({{"help", text}, {"topic", name}});
        else std::cout << text;
    });
}

}  // namespace small::cli
