#include "small/doc/jsonc_edit.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace small {

namespace {

constexpr std::size_t kNone = std::string_view::npos;
constexpr int kMaxJsoncDepth = 256;           // deeper nesting is refused, not recursed into
constexpr std::string_view kNewFileIndent = "    ";  // VS Code's own

struct Member {
    std::string key;
    std::size_t key_begin = 0;
    std::size_t value_begin = 0;
    std::size_t value_end = 0;
    std::size_t comma = kNone;  // the comma after the value, when there is one
};

struct ObjectSpan {
    std::size_t open = 0, close = 0;  // the braces
    std::vector<Member> members;
    // The last member of that name: the one VS Code (and nlohmann) read.
    const Member* find(std::string_view key) const {
        for (auto it = members.rbegin(); it != members.rend(); ++it) {
            if (it->key == key) return &*it;
        }
        return nullptr;
    }
};

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == kNone; }

// A recursive-descent reader of JSON with comments and trailing commas that
// remembers where objects and their members are; `blanks` collects the
// comments and trailing commas a plain JSON reader must not see.
class Scanner {
public:
    Scanner(std::string_view text, const std::string& display) : t_(text), display_(display) {}

    std::vector<std::pair<std::size_t, std::size_t>> blanks;

    Result<std::size_t> skip_space(std::size_t pos) {
        while (pos < t_.size()) {
            const char c = t_[pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++pos;
            } else if (t_.substr(pos, 2) == "//") {
                const std::size_t end = std::min(t_.find('\n', pos), t_.size());
                blanks.emplace_back(pos, end);
                pos = end;
            } else if (t_.substr(pos, 2) == "/*") {
                const std::size_t end = t_.find("*/", pos + 2);
                if (end == kNone) return fault(pos, "a comment that is never closed");
                blanks.emplace_back(pos, end + 2);
                pos = end + 2;
            } else {
                break;
            }
        }
        return pos;
    }

    Result<std::size_t> skip_value(std::size_t pos, int depth) {
        if (depth > kMaxJsoncDepth) return fault(pos, "values nested more than " + std::to_string(kMaxJsoncDepth) + " deep");
        if (pos >= t_.size()) return fault(pos, "the text ends where a value should be");
        const char c = t_[pos];
        if (c == '{') {
            Result<ObjectSpan> obj = object_at(pos, depth);
            if (!obj) return obj.error();
            return obj->close + 1;
        }
        if (c == '[') return array_end(pos, depth);
        if (c == '"') return string_end(pos);
        for (const std::string_view word : {"true", "false", "null"}) {
            if (t_.substr(pos, word.size()) == word) return pos + word.size();
        }
        if (c == '-' || (c >= '0' && c <= '9')) return number_end(pos);
        return fault(pos, "a value was expected");
    }

    // The object whose '{' is at `pos`.
    Result<ObjectSpan> object_at(std::size_t pos, int depth) {
        ObjectSpan obj;
        obj.open = pos;
        bool need_comma = false;
        for (pos = pos + 1;;) {
            Result<std::size_t> at = skip_space(pos);
            if (!at) return at.error();
            pos = *at;
            if (pos >= t_.size()) return fault(pos, "the text ends inside an object (a '}' is missing)");
            if (t_[pos] == '}') {
                if (!obj.members.empty() && obj.members.back().comma != kNone) blanks.emplace_back(obj.members.back().comma, obj.members.back().comma + 1);
                obj.close = pos;
                return obj;
            }
            if (need_comma) return fault(pos, "a ',' or '}' was expected");
            Result<Member> m = member_at(pos, depth);
            if (!m) return m.error();
            Result<std::size_t> after = skip_space(m->value_end);
            if (!after) return after.error();
            pos = *after;
            if (pos < t_.size() && t_[pos] == ',') m->comma = pos++;
            need_comma = m->comma == kNone;
            obj.members.push_back(std::move(*m));
        }
    }

    Error fault(std::size_t pos, const std::string& what) const {
        Error e = Error::invalid("invalid JSON in " + display_ + ": " + what + "; nothing was written");
        e.file = display_;
        e.line = 1;
        std::size_t line_start = 0;
        for (std::size_t i = 0; i < pos && i < t_.size(); ++i) {
            if (t_[i] == '\n') {
                ++e.line;
                line_start = i + 1;
            }
        }
        e.column = static_cast<unsigned>(std::min(pos, t_.size()) - line_start + 1);
        e.hint = "fix the file (or move it away) and run the command again";
        return e;
    }

private:
    Result<Member> member_at(std::size_t pos, int depth) {
        if (t_[pos] != '"') return fault(pos, "a member name in double quotes was expected");
        Member m;
        m.key_begin = pos;
        Result<std::size_t> key_end = string_end(pos);
        if (!key_end) return key_end.error();
        const nlohmann::json key = nlohmann::json::parse(t_.substr(pos, *key_end - pos), nullptr, false);
        if (!key.is_string()) return fault(pos, "a member name that is not a valid string");
        m.key = key.get<std::string>();
        Result<std::size_t> colon = skip_space(*key_end);
        if (!colon) return colon.error();
        if (*colon >= t_.size() || t_[*colon] != ':') return fault(*colon, "a ':' was expected after the member name");
        Result<std::size_t> value = skip_space(*colon + 1);
        if (!value) return value.error();
        m.value_begin = *value;
        Result<std::size_t> end = skip_value(*value, depth + 1);
        if (!end) return end.error();
        m.value_end = *end;
        return m;
    }

    Result<std::size_t> array_end(std::size_t pos, int depth) {
        std::size_t last_comma = kNone;
        bool need_comma = false;
        for (pos = pos + 1;;) {
            Result<std::size_t> at = skip_space(pos);
            if (!at) return at.error();
            pos = *at;
            if (pos >= t_.size()) return fault(pos, "the text ends inside an array (a ']' is missing)");
            if (t_[pos] == ']') {
                if (last_comma != kNone) blanks.emplace_back(last_comma, last_comma + 1);
                return pos + 1;
            }
            if (need_comma) return fault(pos, "a ',' or ']' was expected");
            Result<std::size_t> end = skip_value(pos, depth + 1);
            if (!end) return end.error();
            Result<std::size_t> after = skip_space(*end);
            if (!after) return after.error();
            pos = *after;
            last_comma = kNone;
            if (pos < t_.size() && t_[pos] == ',') last_comma = pos++;
            need_comma = last_comma == kNone;
        }
    }

    Result<std::size_t> string_end(std::size_t pos) {
        for (std::size_t i = pos + 1; i < t_.size(); ++i) {
            if (t_[i] == '\\') {
                ++i;
            } else if (t_[i] == '"') {
                return i + 1;
            } else if (t_[i] == '\n') {
                break;
            }
        }
        return fault(pos, "a string that is never closed");
    }

    Result<std::size_t> number_end(std::size_t pos) {
        std::size_t end = pos;
        while (end < t_.size() && std::string_view("+-0123456789.eE").find(t_[end]) != kNone) ++end;
        const nlohmann::json n = nlohmann::json::parse(t_.substr(pos, end - pos), nullptr, false);
        if (!n.is_number()) return fault(pos, "a number that is not valid JSON");
        return end;
    }

    std::string_view t_;
    const std::string& display_;
};

// The whole text read, its top-level object found.
// A UTF-8 byte order mark, which VS Code accepts before the text.
std::size_t bom_size(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

// Whether `text` holds nothing but white space and comments (VS Code reads it as `{}`).
bool is_empty_jsonc(std::string_view text, const std::string& display) {
    Scanner s(text, display);
    Result<std::size_t> end = s.skip_space(bom_size(text));
    return end && *end == text.size();
}

Result<ObjectSpan> top_object(Scanner& s, std::string_view text) {
    Result<std::size_t> start = s.skip_space(bom_size(text));
    if (!start) return start.error();
    if (*start >= text.size() || text[*start] != '{') return s.fault(*start, "the top level is not a JSON object");
    Result<ObjectSpan> top = s.object_at(*start, 0);
    if (!top) return top.error();
    Result<std::size_t> end = s.skip_space(top->close + 1);
    if (!end) return end.error();
    if (*end != text.size()) return s.fault(*end, "text after the top-level object");
    return top;
}

// The object `path` leads to; nullopt when a member on the way is missing
// (`missing` is then its index in `path` and `parent` the last object found).
struct Walk {
    ObjectSpan object;
    std::size_t missing = kNone;
};

Result<Walk> walk(Scanner& s, std::string_view text, const std::vector<std::string>& path) {
    Result<ObjectSpan> obj = top_object(s, text);
    if (!obj) return obj.error();
    Walk w{std::move(*obj)};
    for (std::size_t i = 0; i < path.size(); ++i) {
        const Member* m = w.object.find(path[i]);
        if (m == nullptr) {
            w.missing = i;
            return w;
        }
        if (text[m->value_begin] != '{') {
            Error e = s.fault(m->value_begin, "\"" + path[i] + "\" is not a JSON object");
            return e;
        }
        Result<ObjectSpan> inner = s.object_at(m->value_begin, 1);
        if (!inner) return inner.error();
        w.object = std::move(*inner);
    }
    return w;
}

std::size_t line_start(std::string_view text, std::size_t pos) {
    const std::size_t nl = pos == 0 ? kNone : text.rfind('\n', pos - 1);
    return nl == kNone ? 0 : nl + 1;
}

// The white space a line starts with, when only white space comes before `pos` on it.
std::optional<std::string> own_line_indent(std::string_view text, std::size_t pos) {
    const std::string_view before = text.substr(line_start(text, pos), pos - line_start(text, pos));
    if (before.find_first_not_of(" \t") != kNone) return std::nullopt;
    return std::string(before);
}

// One level of indentation as the file writes it: its first indented line's.
std::string indent_unit(std::string_view text) {
    for (std::size_t pos = text.find('\n'); pos != kNone; pos = text.find('\n', pos + 1)) {
        const std::size_t first = text.find_first_not_of(" \t", pos + 1);
        if (first == kNone || first == pos + 1 || text[first] == '\n' || text[first] == '\r') continue;
        const std::string_view lead = text.substr(pos + 1, first - pos - 1);
        return lead.front() == '\t' ? "\t" : std::string(lead);
    }
    return std::string(kNewFileIndent);
}

// `value` pretty-printed with `unit` and every line after the first indented
// by `base`; a list of plain values stays on one line, as people write them.
std::string render(const nlohmann::json& value, const std::string& unit, const std::string& base,
                   const std::string& nl = "\n") {
    if (!value.is_structured() || value.empty()) return value.dump();
    const bool flat = std::none_of(value.begin(), value.end(), [](const nlohmann::json& v) { return v.is_structured(); });
    if (value.is_array() && flat) {
        std::string out = "[";
        for (const nlohmann::json& v : value) out += (out.size() > 1 ? ", " : "") + v.dump();
        return out + "]";
    }
    std::string out = value.is_object() ? "{" : "[";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        out += (first ? "" : ",") + nl + base + unit;
        if (value.is_object()) out += nlohmann::json(it.key()).dump() + ": ";
        out += render(*it, unit, base + unit, nl);
        first = false;
    }
    return out + nl + base + (value.is_object() ? "}" : "]");
}

// The line break `text` uses.
std::string line_break(std::string_view text) {
    const std::size_t nl = text.find('\n');
    return nl != kNone && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
}

// Where the rest of the line after `pos` ends, when only white space and
// comments follow there (kNone otherwise).
std::size_t quiet_line_end(std::string_view text, std::size_t pos) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (text.substr(pos, 2) == "//") {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        return end > pos && end < text.size() && text[end - 1] == '\r' ? end - 1 : end;  // before CRLF's \r
    }
    if (text.substr(pos, 2) == "/*") {
        const std::size_t end = text.find("*/", pos + 2);
        const std::size_t nl = text.find('\n', pos);
        if (end == kNone || (nl != kNone && nl < end)) return kNone;
        return quiet_line_end(text, end + 2);
    }
    if (pos == text.size()) return pos;
    if (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') return pos;
    return text[pos] == '\n' ? pos : kNone;
}

// The white space the line holding `pos` starts with.
std::string line_indent(std::string_view text, std::size_t pos) {
    const std::size_t start = line_start(text, pos);
    const std::size_t first = text.find_first_not_of(" \t", start);
    return std::string(text.substr(start, std::min(first, pos) - start));
}

std::string insert_member(std::string_view text, const ObjectSpan& obj, const std::string& key,
                          const nlohmann::json& value) {
    const std::string unit = indent_unit(text);
    const std::string nl = line_break(text);
    const std::string name = nlohmann::json(key).dump();
    std::string out(text);
    if (obj.members.empty()) {
        const std::string base = line_indent(text, obj.open);
        const std::string member = base + unit + name + ": " + render(value, unit, base + unit, nl);
        if (is_blank(text.substr(obj.open + 1, obj.close - obj.open - 1))) {
            return out.replace(obj.open + 1, obj.close - obj.open - 1, nl + member + nl + base);
        }
        // Comments inside stay where they are, on their lines: the member goes before the brace.
        if (own_line_indent(text, obj.close)) return out.insert(line_start(text, obj.close), member + nl);
        return out.insert(obj.close, nl + member + nl + base);
    }
    const Member& last = obj.members.back();
    const std::size_t after = last.comma != kNone ? last.comma + 1 : last.value_end;
    const std::optional<std::string> indent = own_line_indent(text, last.key_begin);
    const std::size_t end = indent ? quiet_line_end(text, after) : kNone;
    if (end != kNone) {
        out.insert(end, nl + *indent + name + ": " + render(value, unit, *indent, nl));
    } else {
        out.insert(after, (last.comma != kNone ? " " : ", ") + name + ": " + value.dump());
        return out;
    }
    if (last.comma == kNone) out.insert(last.value_end, ",");
    return out;
}

std::string replace_value(std::string_view text, const Member& m, const nlohmann::json& value) {
    const std::string base = own_line_indent(text, m.key_begin).value_or("");
    std::string out(text);
    return out.replace(m.value_begin, m.value_end - m.value_begin, render(value, indent_unit(text), base, line_break(text)));
}

// `value` wrapped in the objects path[from..] names.
nlohmann::json nested(const std::vector<std::string>& path, std::size_t from, const std::string& key,
                      const nlohmann::json& value) {
    nlohmann::json inner = nlohmann::json::object();
    inner[key] = value;
    for (std::size_t i = path.size(); i-- > from + 1;) {
        nlohmann::json outer = nlohmann::json::object();
        outer[path[i]] = std::move(inner);
        inner = std::move(outer);
    }
    return inner;
}

}  // namespace

Result<nlohmann::json> jsonc_parse(std::string_view text, const std::string& display) {
    if (is_blank(text) || is_empty_jsonc(text, display)) return nlohmann::json::object();
    Scanner s(text, display);
    Result<ObjectSpan> top = top_object(s, text);
    if (!top) return top.error();
    std::string plain(text);
    plain.replace(0, bom_size(text), bom_size(text), ' ');
    for (const auto& [begin, end] : s.blanks) {
        for (std::size_t i = begin; i < end; ++i) {
            if (plain[i] != '\n' && plain[i] != '\r') plain[i] = ' ';
        }
    }
    nlohmann::json doc = nlohmann::json::parse(plain, nullptr, false);
    if (doc.is_discarded()) return s.fault(0, "it does not read as JSON once its comments are set aside");
    return doc;
}

Result<std::string> jsonc_set_member(std::string_view text, const std::vector<std::string>& path, const std::string& key,
                                     const nlohmann::json& value, const std::string& display) {
    if (is_blank(text) || is_empty_jsonc(text, display)) {  // a new object (after the comments, if any)
        nlohmann::json doc = path.empty() ? nested(path, 0, key, value) : nlohmann::json::object();
        if (!path.empty()) doc[path.front()] = nested(path, 0, key, value);
        const std::string before = is_blank(text) ? "" : std::string(text) + (text.ends_with('\n') ? "" : "\n");
        return before + render(doc, std::string(kNewFileIndent), "") + "\n";
    }
    Scanner s(text, display);
    Result<Walk> w = walk(s, text, path);
    if (!w) return w.error();
    if (w->missing != kNone) return insert_member(text, w->object, path[w->missing], nested(path, w->missing, key, value));
    if (const Member* m = w->object.find(key)) return replace_value(text, *m, value);
    return insert_member(text, w->object, key, value);
}

Result<std::string> jsonc_remove_member(std::string_view text, const std::vector<std::string>& path,
                                        const std::string& key, const std::string& display) {
    if (is_blank(text) || is_empty_jsonc(text, display)) return std::string(text);
    Scanner s(text, display);
    Result<Walk> w = walk(s, text, path);
    if (!w) return w.error();
    const std::vector<Member>& members = w->object.members;
    std::size_t i = 0;
    while (i < members.size() && members[i].key != key) ++i;
    if (w->missing != kNone || i == members.size()) return std::string(text);
    const Member& m = members[i];
    const bool last = i + 1 == members.size();
    std::size_t begin = m.key_begin;
    std::string out(text);
    // A comment between the value and its comma stays: the comma goes on its own.
    const bool comma_apart = m.comma != kNone && !is_blank(text.substr(m.value_end, m.comma - m.value_end));
    if (comma_apart) out.erase(m.comma, 1);
    std::size_t end = m.comma != kNone && !comma_apart ? m.comma + 1 : m.value_end;
    if (own_line_indent(text, m.key_begin) && quiet_line_end(text, end) != kNone) {
        begin = line_start(text, m.key_begin);
        end = quiet_line_end(text, end);
        end = end < text.size() ? text.find('\n', end) + 1 : end;
    } else if (m.comma != kNone && !comma_apart) {
        end = std::min(text.find_first_not_of(" \t", end), text.size());
    }
    out.erase(begin, end - begin);
    // The member before a removed last one keeps no comma it had only for it.
    if (last && m.comma == kNone && i > 0 && members[i - 1].comma != kNone) out.erase(members[i - 1].comma, 1);
    return out;
}

}  // namespace small
