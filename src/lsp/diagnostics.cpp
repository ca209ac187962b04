#include "small/lsp/diagnostics.hpp"

#include <algorithm>

#include "small/base/path.hpp"
#include "small/base/text.hpp"

namespace small::lsp {

namespace {

using nlohmann::json;

// X of `did you mean "X"?` in a finding's message, "" when there is none.
std::string meant_value(const std::string& message) {
    constexpr std::string_view kLead = "did you mean \"";
    const std::size_t at = message.find(kLead);
    if (at == std::string::npos) return {};
    const std::size_t begin = at + kLead.size();
    const std::size_t end = message.find('"', begin);
    return end == std::string::npos ? std::string() : message.substr(begin, end - begin);
}

// The token's bytes without its quotes, and the range of those bytes.
struct Token {
    std::string_view text;
    std::size_t begin = 0, end = 0;  // offsets in the line, quotes excluded
};

Token token_at(std::string_view line, std::size_t offset) {
    const std::size_t end = token_end(line, offset);
    Token t{line.substr(offset, end - offset), offset, end};
    if (t.text.size() >= 2 && (t.text.front() == '"' || t.text.front() == '\'') && t.text.back() == t.text.front()) {
        t.text = t.text.substr(1, t.text.size() - 2);
        ++t.begin;
        --t.end;
    }
    return t;
}

std::optional<std::string> fix_value(const Finding& f, std::string_view written, const TaskIndex& tasks) {
    if (f.rule == "INV-P8" || f.rule == "INV-P9") {
        const std::string meant = meant_value(f.message);
        if (!meant.empty() && meant.find_first_of("\"'\\\n") == std::string::npos) return meant;
        return std::nullopt;
    }
    if (f.rule == "INV-P6" && f.message.find("depends on unknown task") != std::string::npos) {
        std::vector<std::string> ids;
        for (const TaskFacts& t : tasks.tasks) ids.push_back(t.id);
        const std::vector<std::string> near = closest_matches(trim(written), ids, 1);
        if (near.size() == 1 && near.front().find_first_of("\"'\\\n") == std::string::npos) return near.front();
    }
    return std::nullopt;
}

Diagnostic diagnostic_in(const Finding& f, const std::optional<std::string>& text, const TaskIndex& tasks) {
    Diagnostic d{{}, f.severity, f.rule, f.message, std::nullopt};
    if (!f.hint.empty()) d.message += "\nFix: " + f.hint;
    if (!text || f.mark.line == 0) return d;
    const LineIndex lines(*text);
    const Position start = lines.from_mark(f.mark.line, f.mark.column);
    const std::string_view line = lines.line(start.line);
    const std::size_t line_start = lines.offset_of({start.line, 0});
    const std::size_t offset = token_start(line, lines.offset_of(start) - line_start);
    const std::size_t end = std::max(token_end(line, offset), offset);
    d.range = Range{lines.position_of(line_start + offset), lines.position_of(line_start + end)};
    const Token token = token_at(line, offset);
    if (const std::optional<std::string> value = fix_value(f, token.text, tasks)) {
        const Range where{lines.position_of(line_start + token.begin), lines.position_of(line_start + token.end)};
        d.fix = QuickFix{"Replace with \"" + *value + "\" (" + f.rule + ")", where, *value};
    }
    return d;
}

}  // namespace

std::map<std::string, std::vector<Diagnostic>> diagnostics_of(const std::vector<Finding>& findings,
                                                              const std::string& root, const TextOf& text_of,
                                                              const TaskIndex& tasks) {
    std::map<std::string, std::vector<Diagnostic>> out;
    std::map<std::string, std::optional<std::string>> texts;
    for (const Finding& f : findings) {
        if (f.file.empty()) continue;
        std::string path = normal_path(is_absolute_path(f.file) ? f.file : join_path(root, f.file));
        if (path.size() > 1 && path.back() == '/') path.pop_back();
        auto it = texts.find(path);
        if (it == texts.end()) it = texts.emplace(path, text_of(path)).first;
        out[path].push_back(diagnostic_in(f, it->second, tasks));
    }
    return out;
}

json range_json(const Range& r) {
    return {{"start", {{"line", r.start.line}, {"character", r.start.character}}},
            {"end", {{"line", r.end.line}, {"character", r.end.character}}}};
}

json diagnostic_json(const Diagnostic& d) {
    return {{"range", range_json(d.range)},
            {"severity", d.severity == Severity::Error ? 1 : 2},
            {"code", d.rule},
            {"source", "small"},
            {"message", visible_lines(d.message)}};
}

std::optional<Position> position_from_json(const json& j) {
    if (!j.is_object()) return std::nullopt;
    const auto line = j.find("line"), character = j.find("character");
    const auto count = [](const json& v) { return v.is_number_integer() && v.get<std::int64_t>() >= 0; };
    if (line == j.end() || character == j.end() || !count(*line) || !count(*character)) return std::nullopt;
    return Position{line->get<std::size_t>(), character->get<std::size_t>()};
}

std::optional<Range> range_from_json(const json& j) {
    if (!j.is_object() || !j.contains("start") || !j.contains("end")) return std::nullopt;
    const std::optional<Position> start = position_from_json(j["start"]), end = position_from_json(j["end"]);
    if (!start || !end) return std::nullopt;
    return Range{*start, *end};
}

}  // namespace small::lsp
