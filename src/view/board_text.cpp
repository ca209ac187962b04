#include "small/view/board_text.hpp"

#include <algorithm>
#include <unordered_map>

#include "small/base/text.hpp"

namespace small {

namespace {

constexpr std::string_view kReset = "\033[0m";
constexpr std::string_view kSeparator = " \u2502 ";  // " │ "

std::size_t chars_of(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(),
                                                  [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// One line of at most `width` characters ("…" marks a cut).
std::string fit(std::string_view text, std::size_t width) {
    const std::string line = one_line(text, text.size() + 3);
    if (chars_of(line) <= width) return line;
    return width == 0 ? std::string() : excerpt(line, width - 1);
}

std::string_view status_color(std::string_view status) {
    if (status == "in_progress") return "\033[1;34m";
    if (status == "blocked") return "\033[1;31m";
    if (status == "completed") return "\033[1;32m";
    if (status == "cancelled") return "\033[2m";
    return "\033[1m";
}

std::string paint(std::string_view code, const std::string& text, bool color) {
    return color && !text.empty() ? std::string(code) + text + std::string(kReset) : text;
}

// A card as lines of at most `width` characters, painted when asked.
std::vector<std::string> card_lines(const BoardCard& c, std::size_t width, bool color) {
    std::vector<std::string> lines;
    std::string head = c.id;
    for (const std::string& mark : c.marks) head += " [" + mark + "]";
    lines.push_back(fit(head, width));
    if (color && lines.back() == head) {  // the whole head fits: paint its parts
        std::string painted = paint("\033[1m", c.id, true);
        for (const std::string& mark : c.marks) {
            const std::string_view code = mark == "ready" ? "\033[34m" : mark == "critical path" ? "\033[31m" : "\033[35m";
            painted += " " + paint(code, "[" + mark + "]", true);
        }
        lines.back() = painted;
    }
    if (!c.title.empty()) lines.push_back(fit(c.title, width));
    if (!c.claim.empty()) lines.push_back(paint("\033[33m", fit("@ " + c.claim, width), color));
    if (!c.waits_on.empty()) {
        std::string waits = "waits on ";
        for (std::size_t i = 0; i < c.waits_on.size(); ++i) waits += (i ? ", " : "") + c.waits_on[i];
        lines.push_back(fit(waits, width));
    }
    if (!c.evidence.text.empty()) {
        const std::string when = c.evidence.timestamp.size() >= 16 ? c.evidence.timestamp.substr(0, 16) + "Z " : "";
        lines.push_back(paint("\033[2m", fit("> " + when + c.evidence.text, width), color));
    }
    return lines;
}

// Pads `line` (whose visible length is `visible`) to `width`.
std::string padded(const std::string& line, std::size_t width) {
    std::string plain;  // visible length without colour codes
    bool escape = false;
    std::size_t visible = 0;
    for (const char c : line) {
        if (c == '\033') escape = true;
        else if (escape && c == 'm') escape = false;
        else if (!escape && (static_cast<unsigned char>(c) & 0xC0) != 0x80) ++visible;
    }
    return line + std::string(width > visible ? width - visible : 0, ' ');
}

struct Column {
    std::string status;
    std::vector<std::string> lines;
};

Column column_of(const BoardReport& board, const std::string& status, std::size_t width, bool color) {
    const std::vector<BoardCard> cards = board_cards(board, status);
    Column col{status, {}};
    col.lines.push_back(paint(status_color(status), fit(status + " (" + std::to_string(cards.size()) + ")", width), color));
    col.lines.push_back(std::string());
    std::string rule;
    for (std::size_t i = 0; i < width; ++i) rule += "\u2500";
    col.lines.back() = rule;
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (i) col.lines.emplace_back();
        for (std::string& line : card_lines(cards[i], width, color)) col.lines.push_back(std::move(line));
    }
    return col;
}

// `text` in lines of at most `width` characters, broken at spaces (a longer
// word is cut).
std::string wrapped(const std::string& text, std::size_t width) {
    std::string out, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t space = text.find(' ', start);
        if (space == std::string::npos) space = text.size();
        const std::string word = text.substr(start, space - start);
        if (!line.empty() && chars_of(line) + 1 + chars_of(word) > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + fit(word, width);
        start = space + 1;
    }
    return out + line + "\n";
}

std::string footer(const BoardReport& board) {
    std::size_t ready = 0;
    for (const GraphTask& t : board.graph.tasks) ready += t.ready;
    std::string out = std::to_string(board.graph.tasks.size()) + " tasks, " + std::to_string(ready) + " ready";
    if (!board.graph.critical_path.empty()) {
        out += "; critical path: ";
        for (std::size_t i = 0; i < board.graph.critical_path.size(); ++i) out += (i ? " -> " : "") + board.graph.critical_path[i];
    }
    for (const std::vector<std::string>& cycle : board.graph.cycles) {
        out += "; cycle:";
        for (const std::string& id : cycle) out += " " + id;
    }
    if (!board.graph.missing.empty()) out += "; " + std::to_string(board.graph.missing.size()) + " missing dependencies";
    return out;
}

}  // namespace

std::vector<BoardCard> board_cards(const BoardReport& board, const std::string& status) {
    std::unordered_map<std::string, const GraphTask*> by_id;
    for (const GraphTask& t : board.graph.tasks) by_id.emplace(t.id, &t);
    std::unordered_map<std::string, std::vector<std::string>> waits;
    for (const GraphEdge& e : board.graph.edges) {
        const auto dep = by_id.find(e.from);
        if (dep == by_id.end() || !dep->second->status.is(TaskStatus::Completed)) waits[e.to].push_back(e.from);
    }
    std::vector<BoardCard> cards;
    for (const GraphTask& t : board.graph.tasks) {
        if (t.status.word() != status) continue;
        BoardCard c{t.id, t.title == t.id ? "" : t.title, {}, t.claim, {}, {}};
        if (t.ready) c.marks.push_back("ready");
        if (t.critical) c.marks.push_back("critical path");
        if (t.in_cycle) c.marks.push_back("cycle");
        if (const auto w = waits.find(t.id); w != waits.end() && !is_done(t.status)) c.waits_on = w->second;
        if (const auto e = board.evidence.find(t.id); e != board.evidence.end()) c.evidence = e->second;
        cards.push_back(std::move(c));
    }
    return cards;
}

nlohmann::json board_json(const BoardReport& board) {
    nlohmann::json columns = nlohmann::json::array();
    for (const std::string& status : board.columns) {
        nlohmann::json cards = nlohmann::json::array();
        for (const BoardCard& c : board_cards(board, status)) {
            nlohmann::json card = {{"id", c.id}, {"title", c.title}, {"marks", c.marks}, {"claim", c.claim},
                                   {"waits_on", c.waits_on}};
            card["evidence"] = c.evidence.text.empty()
                                   ? nlohmann::json(nullptr)
                                   : nlohmann::json{{"timestamp", c.evidence.timestamp}, {"status", c.evidence.status},
                                                    {"text", c.evidence.text}};
            cards.push_back(std::move(card));
        }
        columns.push_back({{"status", status}, {"tasks", cards}});
    }
    return {{"columns", columns},
            {"critical_path", board.graph.critical_path},
            {"cycles", board.graph.cycles},
            {"run_id", board.run_id},
            {"evidence_window_full", board.window_full}};
}

std::string board_text(const BoardReport& board, const BoardStyle& style) {
    std::vector<std::string> shown;
    for (const std::string& status : board.columns) {
        const bool any = std::any_of(board.graph.tasks.begin(), board.graph.tasks.end(),
                                     [&](const GraphTask& t) { return t.status.word() == status; });
        if (any) shown.push_back(status);
    }
    const std::size_t width = std::max<std::size_t>(style.width, 20);
    std::string out;
    const std::size_t separators = shown.empty() ? 0 : (shown.size() - 1) * chars_of(kSeparator);
    const std::size_t side_by_side = shown.empty() ? 0 : (width > separators ? (width - separators) / shown.size() : 0);
    if (shown.size() > 1 && side_by_side >= kMinBoardColumn) {
        std::vector<Column> cols;
        std::size_t rows = 0;
        for (const std::string& s : shown) {
            cols.push_back(column_of(board, s, side_by_side, style.color));
            rows = std::max(rows, cols.back().lines.size());
        }
        for (std::size_t r = 0; r < rows; ++r) {
            std::string line;
            for (std::size_t c = 0; c < cols.size(); ++c) {
                const std::string cell = r < cols[c].lines.size() ? cols[c].lines[r] : "";
                line += c + 1 < cols.size() ? padded(cell, side_by_side) + std::string(kSeparator) : cell;
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
    } else {
        for (std::size_t i = 0; i < shown.size(); ++i) {
            if (i) out += "\n";
            for (const std::string& line : column_of(board, shown[i], width, style.color).lines) out += line + "\n";
        }
    }
    if (shown.empty()) out += wrapped("No tasks yet: small plan --add \"TITLE\" adds one.", width);
    return out + "\n" + wrapped(footer(board), width);
}

}  // namespace small
