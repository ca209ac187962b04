// `small board`: flags and rendering; the work is in small/ops/inspect/board.hpp,
// the focus in small/view/graph_focus.hpp, the layout in small/view/board_text.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/ops/inspect/board.hpp"
#include "small/view/board_text.hpp"

namespace small::cli {

namespace {

// Without --limit a settled column (completed, cancelled) shows its newest
// few cards and a count: the board of a long plan is its open work.
constexpr std::size_t kSettledCards = 5;

struct BoardFlags {
    WorkspaceFlags where;
    std::size_t width = 0;  // 0: the terminal's
    FocusFlags focus;
};

int run_board(Context& ctx, BoardFlags& f) {
    const Output out(ctx.globals, "board");
    Result<GraphFocus> focus = focus_of(f.focus);
    if (!focus) return report_error(out, focus.error());
    if (!f.focus.limit) focus->settled_newest = kSettledCards;
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<BoardReport> board = board_command(ctx.fs, target->ws, BoardOptions{});
    if (!board) return report_error(out, board.error());
    Result<FocusedGraph> shown = focus_graph(board->graph, *focus, recent_tasks(*board));
    if (!shown) return report_error(out, shown.error());
    if (out.json()) {
        out.json_document(board_json(*board, *shown, *focus));
        return kExitOk;
    }
    std::cout << board_text(*board, *shown, *focus, BoardStyle{f.width ? f.width : terminal_width(), out.color()});
    return kExitOk;
}

}  // namespace

void register_board(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<BoardFlags>(app, ctx, "board", run_board);
    cmd->add_option("--width", f->width, "Characters per line (default: the terminal's width, else $COLUMNS, else 100)")
        ->check(CLI::Range(20, 10000));
    add_focus_flags(cmd, f->focus,
                    "At most N cards, the open ones first, then the newest settled (0: all; default: every open task "
                    "and the newest 5 of each settled column)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer("Columns sit side by side when each gets 22 characters, else one under another. Marks: [ready] may be "
                "started now, [critical path] is on the longest chain still to do, [cycle] is in a dependency cycle; "
                "@ is a live claim; a blocked task's reason is shown whole; > is the task's newest work entry of the "
                "run (from the newest 2,000 entries). A column that shows fewer cards than it counts ends with how "
                "many more; --limit 0 shows all. Colour only on a terminal; NO_COLOR and --no-color turn it off.");
}

}  // namespace small::cli
