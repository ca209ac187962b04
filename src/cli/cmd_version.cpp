#include <iostream>

#include "cli.hpp"
#include "small/model/replay_id.hpp"
#include "small/base/version.hpp"

namespace small::cli {

std::string version_text() {
    return "small v" + std::string(tool_version()) + "\nSupported spec versions: [\"" + std::string(kProtocolVersion) + "\"]";
}

void register_version(CLI::App& app, Context& ctx) {
    CLI::App* cmd = add_command(app, "version");
    cmd->callback([&ctx] {
        const Output out(ctx.globals, "version");
        if (out.json()) {
            out.json_document(version_json());
        } else {
            out.lines(version_text());
        }
    });
}

}  // namespace small::cli
