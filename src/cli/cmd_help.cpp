#include <iostream>

#include "cli.hpp"

namespace small::cli {

void register_help(CLI::App& app, Context& ctx) {
    auto topic = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("help", "Help about any command");
    cmd->add_option("command", *topic, "The command to explain");
    cmd->callback([&app, &ctx, topic] {
        // app.help() would describe the selected `help` command itself.
        const auto root_help = [&app] { return app.get_formatter()->make_help(&app, "small", CLI::AppFormatMode::Normal); };
        if (topic->empty()) {
            std::cout << root_help();
            return;
        }
        if (CLI::App* sub = find_subcommand(app, *topic)) {
            std::cout << sub->help("small");
            return;
        }
        std::cerr << "Error: unknown help topic \"" << *topic << "\"\n" << root_help();
        ctx.exit_code = kExitUsage;
    });
}

}  // namespace small::cli
