// `small board` for a terminal: one column per status that has tasks, side
// by side when each gets at least kMinColumn characters of `width`, else one
// under another; a card per task (id, title, ready / critical / cycle marks,
// its claim, a blocked task's reason, what it waits on, its newest
// evidence). The reason and the waits wrap, never cut. The tasks shown are
// those a focus (view/graph_focus) chose; a column that lost cards to the
// limit or the fold ends with how many. ANSI colour only when asked (the CLI
// asks on a terminal without NO_COLOR).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "small/ops/inspect/board.hpp"
#include "small/view/graph_focus.hpp"

namespace small {

inline constexpr std::size_t kMinBoardColumn = 22;

struct BoardStyle {
    std::size_t width = 100;  // characters (UTF-8 code points) a line may take
    bool color = false;
};

// The cards of the tasks `shown` chose (what they wait on comes from the
// whole plan in `board`); without `shown`, every task.
std::string board_text(const BoardReport& board, const FocusedGraph& shown, const GraphFocus& focus,
                       const BoardStyle& style);
std::string board_text(const BoardReport& board, const BoardStyle& style);

// The board as data: columns (status, tasks: the cards, left_out), the
// critical path, cycles, whether the evidence window was full, and the
// focus's keys (view/graph_focus add_focus_json).
nlohmann::json board_json(const BoardReport& board, const FocusedGraph& shown, const GraphFocus& focus);
nlohmann::json board_json(const BoardReport& board);

// The tasks of the board's evidence, most recently worked on first: the
// order in which a fold or a limit keeps settled tasks.
std::vector<std::string> recent_tasks(const BoardReport& board);

// What the text and the HTML report show of a task.
struct BoardCard {
    std::string id, title;
    std::vector<std::string> marks;  // "ready", "critical path", "cycle"
    std::string claim;               // "alice until 14:05 UTC" ("" none)
    std::string blocked_reason;      // a blocked task's, whole ("" none)
    std::vector<std::string> waits_on;
    CardEvidence evidence;           // empty text when none in the window
};
// The cards of column `status` among the tasks `shown` chose, in plan order.
std::vector<BoardCard> board_cards(const BoardReport& board, const FocusedGraph& shown, const std::string& status);

}  // namespace small
