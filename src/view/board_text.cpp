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

// `text` on as many lines of at most `width` characters as it takes, the
// later ones indented: nothing is cut.
std::vector<std::string> wrapped_lines(std::string_view text, std::size_t width) {
    const std::size_t indent = width > 2 ? 2 : 0;
    std::vector<std::string> lines = wrap_words(one_line(text, text.size() + 3), width - indent, width);
    for (std::size_t i = 1; i < lines.size(); ++i) lines[i].insert(0, indent, ' ');
    return lines;
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
    if (!c.blocked_reason.empty()) {
        for (std::string& line : wrapped_lines("blocked: " + c.blocked_reason, width)) {
            lines.push_back(paint("\033[31m", line, color));
        }
    }
    if (!c.waits_on.empty()) {
        std::string waits = "waits on ";
        for (std::size_t i = 0; i < c.waits_on.size(); ++i) waits += (i ? ", " : "") + c.waits_on[i];
        for (std::string& line : wrapped_lines(waits, width)) lines.push_back(std::move(line));
    }
    if (!c.evidence.text.empty() && c.evidence.text != c.blocked_reason) {
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

// A column's count: its tasks the focus chose, shown or not.
std::size_t chosen_in(const FocusedGraph& shown, const std::string& status) {
    std::size_t n = 0;
    for (const GraphTask& t : shown.graph.tasks) n += t.status.word() == status;
    const auto out = shown.left_out.find(status);
    return n + (out == shown.left_out.end() ? 0 : out->second);
}

Column column_of(const BoardReport& board, const FocusedGraph& shown, const std::string& status, std::size_t width,
                 bool color) {
    const std::vector<BoardCard> cards = board_cards(board, shown, status);
    Column col{status, {}};
    const std::string head = status + " (" + std::to_string(chosen_in(shown, status)) + ")";
    col.lines.push_back(paint(status_color(status), fit(head, width), color));
    std::string rule;
    for (std::size_t i = 0; i < width; ++i) rule += "\u2500";
    col.lines.push_back(rule);
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (i) col.lines.emplace_back();
        for (std::string& line : card_lines(cards[i], width, color)) col.lines.push_back(std::move(line));
    }
    if (const auto out = shown.left_out.find(status); out != shown.left_out.end()) {
        if (!cards.empty()) col.lines.emplace_back();
        const std::string more = "\u2026 " + std::to_string(out->second) + " more " + status + " not shown (--limit 0 shows all)";
        for (std::string& line : wrapped_lines(more, width)) col.lines.push_back(paint("\033[2m", line, color));
    }
    return col;
}

// `text` in lines of at most `width` characters, broken at spaces (a longer
// word is broken too: nothing is cut).
std::string wrapped(const std::string& text, std::size_t width) {
    std::string out;
    for (const std::string& line : wrap_words(text, width)) out += line + "\n";
    return out;
}

// The critical path, its middle elided when long (the graph's JSON has it whole).
std::string path_text(const std::vector<std::string>& path) {
    constexpr std::size_t kHead = 6, kTail = 2;
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path.size() > kHead + kTail + 1 && i == kHead) {
            out += " -> \u2026 " + std::to_string(path.size() - kHead - kTail) + " more";
            i = path.size() - kTail - 1;
            continue;
        }
        out += (i ? " -> " : "") + path[i];
    }
    return out;
}

std::string footer(const BoardReport& board, const FocusedGraph& shown, const GraphFocus& focus) {
    // "ready" counts the tasks ready to start ([ready]); a task under way is
    // counted as in progress, so a board with only started work does not
    // read as "0 ready" and nothing else.
    std::size_t ready = 0, started = 0;
    for (const GraphTask& t : board.graph.tasks) {
        ready += t.ready;
        started += t.status.is(TaskStatus::InProgress);
    }
    std::string out = std::to_string(board.graph.tasks.size()) + " tasks, " + std::to_string(ready) + " ready";
    if (started) out += ", " + std::to_string(started) + " in progress";
    if (!board.graph.critical_path.empty()) out += "; critical path: " + path_text(board.graph.critical_path);
    for (const std::vector<std::string>& cycle : board.graph.cycles) {
        out += "; cycle:";
        for (const std::string& id : cycle) out += " " + id;
    }
    if (!board.graph.missing.empty()) out += "; " + std::to_string(board.graph.missing.size()) + " missing dependencies";
    const std::string scope = focus_scope(shown, focus), cut = left_out_sentence(shown);
    if (!scope.empty()) out += ". Shown: " + scope;
    if (!cut.empty()) out += "; " + cut;
    return out;
}

FocusedGraph everything(const BoardReport& board) {
    Result<FocusedGraph> all = focus_graph(board.graph, GraphFocus{});
    return all ? std::move(*all) : FocusedGraph{board.graph, board.graph.tasks.size(), board.graph.tasks.size(), {}};
}

}  // namespace

std::vector<BoardCard> board_cards(const BoardReport& board, const FocusedGraph& shown, const std::string& status) {
    std::unordered_map<std::string, const GraphTask*> by_id;
    for (const GraphTask& t : board.graph.tasks) by_id.emplace(t.id, &t);
    std::unordered_map<std::string, std::vector<std::string>> waits;  // from the whole plan: a dependency may not be shown
    for (const GraphEdge& e : board.graph.edges) {
        const auto dep = by_id.find(e.from);
        if (dep == by_id.end() || !dep->second->status.is(TaskStatus::Completed)) waits[e.to].push_back(e.from);
    }
    std::vector<BoardCard> cards;
    for (const GraphTask& t : shown.graph.tasks) {
        if (t.status.word() != status) continue;
        BoardCard c{t.id, t.title == t.id ? "" : t.title, {}, t.claim, t.blocked_reason, {}, {}};
        if (t.ready) c.marks.push_back("ready");
        if (t.critical) c.marks.push_back("critical path");
        if (t.in_cycle) c.marks.push_back("cycle");
        if (const auto w = waits.find(t.id); w != waits.end() && !is_done(t.status)) c.waits_on = w->second;
        if (const auto e = board.evidence.find(t.id); e != board.evidence.end()) c.evidence = e->second;
        cards.push_back(std::move(c));
    }
    return cards;
}

std::vector<std::string> recent_tasks(const BoardReport& board) {
    std::vector<std::pair<std::string, std::string>> by_time;  // (timestamp, id)
    for (const auto& [id, evidence] : board.evidence) by_time.emplace_back(evidence.timestamp, id);
    std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> ids;
    for (auto& [when, id] : by_time) ids.push_back(std::move(id));
    return ids;
}

nlohmann::json board_json(const BoardReport& board, const FocusedGraph& shown, const GraphFocus& focus) {
    nlohmann::json columns = nlohmann::json::array();
    for (const std::string& status : board.columns) {
        nlohmann::json cards = nlohmann::json::array();
        for (const BoardCard& c : board_cards(board, shown, status)) {
            nlohmann::json card = {{"id", c.id}, {"title", c.title}, {"marks", c.marks}, {"claim", c.claim},
                                   {"blocked_reason", c.blocked_reason}, {"waits_on", c.waits_on}};
            card["evidence"] = c.evidence.text.empty()
                                   ? nlohmann::json(nullptr)
                                   : nlohmann::json{{"timestamp", c.evidence.timestamp}, {"status", c.evidence.status},
                                                    {"text", c.evidence.text}};
            cards.push_back(std::move(card));
        }
        const auto out = shown.left_out.find(status);
        columns.push_back({{"status", status}, {"tasks", cards}, {"left_out", out == shown.left_out.end() ? 0 : out->second}});
    }
    nlohmann::json doc = {{"columns", columns},
                          {"critical_path", board.graph.critical_path},
                          {"cycles", board.graph.cycles},
                          {"run_id", board.run_id},
                          {"evidence_window_full", board.window_full}};
    add_focus_json(doc, shown, focus);
    return doc;
}

nlohmann::json board_json(const BoardReport& board) { return board_json(board, everything(board), GraphFocus{}); }

std::string board_text(const BoardReport& board, const FocusedGraph& focused, const GraphFocus& focus,
                       const BoardStyle& style) {
    std::vector<std::string> shown;
    for (const std::string& status : board.columns) {
        if (chosen_in(focused, status) > 0) shown.push_back(status);
    }
    const std::size_t width = std::max<std::size_t>(style.width, 20);
    std::string out;
    const std::size_t separators = shown.empty() ? 0 : (shown.size() - 1) * chars_of(kSeparator);
    const std::size_t side_by_side = shown.empty() ? 0 : (width > separators ? (width - separators) / shown.size() : 0);
    if (shown.size() > 1 && side_by_side >= kMinBoardColumn) {
        std::vector<Column> cols;
        std::size_t rows = 0;
        for (const std::string& s : shown) {
            cols.push_back(column_of(board, focused, s, side_by_side, style.color));
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
            for (const std::string& line : column_of(board, focused, shown[i], width, style.color).lines) out += line + "\n";
        }
    }
    if (board.graph.tasks.empty()) out += wrapped("No tasks yet: small plan --add \"TITLE\" adds one.", width);
    else if (shown.empty()) out += wrapped("No task to show: " + focus_scope(focused, focus) + ".", width);
    return out + "\n" + wrapped(footer(board, focused, focus), width);
}

std::string board_text(const BoardReport& board, const BoardStyle& style) {
    return board_text(board, everything(board), GraphFocus{}, style);
}

}  // namespace small
