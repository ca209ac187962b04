// --open, --task, --depth and --limit: which tasks `board` and `graph` show
// (view/graph_focus), one spelling for both.
#include "cli.hpp"

namespace small::cli {

void add_focus_flags(CLI::App* cmd, FocusFlags& flags, const std::string& limit_help) {
    cmd->add_flag("--open", flags.open,
                  "Only the open tasks (not completed or cancelled) and the tasks they depend on");
    complete_as(cmd->add_option("--task", flags.task,
                                "Only this task and --depth hops of its dependencies and of its dependents"),
                ValueKind::TaskId);
    cmd->add_option("--depth", flags.depth, "With --task: how many hops around it (default 1; 0: the task alone)")
        ->check(CLI::Range(0, 1000000));
    cmd->add_option("--limit", flags.limit, limit_help)->check(CLI::Range(0, 100000000));
}

Result<GraphFocus> focus_of(const FocusFlags& flags) {
    if (flags.depth && flags.task.empty()) {
        return Error::usage("--depth counts hops around a task: add --task ID (`small plan show` lists the ids)");
    }
    GraphFocus focus;
    focus.open = flags.open;
    focus.task = flags.task;
    focus.depth = flags.depth.value_or(1);
    focus.limit = flags.limit.value_or(0);
    return focus;
}

}  // namespace small::cli
