// `small board` for a terminal: one column per status that has tasks, side
// by side when each gets at least kMinColumn characters of `width`, else one
// under another; a card per task (id, title, ready / critical / cycle marks,
// its claim, what it waits on, its newest evidence). ANSI colour only when
// asked (the CLI asks on a terminal without NO_COLOR).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "small/ops/inspect/board.hpp"

namespace small {

inline constexpr std::size_t kMinBoardColumn = 22;

struct BoardStyle {
    std::size_t width = 100;  // characters (UTF-8 code points) a line may take
    bool color = false;
};

std::string board_text(const BoardReport& board, const BoardStyle& style);

// The board as data: columns (status, tasks: the cards), the critical
// path, cycles and whether the evidence window was full.
nlohmann::json board_json(const BoardReport& board);

// The lines of one card, each at most `width` characters, without colour:
// what the text and the HTML report show of a task.
struct BoardCard {
    std::string id, title;
    std::vector<std::string> marks;  // "ready", "critical path", "cycle"
    std::string claim;               // "alice until 14:05 UTC" ("" none)
    std::vector<std::string> waits_on;
    CardEvidence evidence;           // empty text when none in the window
};
// The cards of column `status`, in plan order.
std::vector<BoardCard> board_cards(const BoardReport& board, const std::string& status);

}  // namespace small
