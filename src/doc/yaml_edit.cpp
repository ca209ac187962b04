// In-place edits of top-level YAML members (see the header).
#include "small/doc/yaml_edit.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "small/doc/yaml.hpp"

namespace small {

namespace {

struct Edit {
    std::size_t offset = 0, length = 0;
    std::string text;
};

bool is_scalar(const YamlValue& v) { return !v.is_object() && !v.is_array(); }

// A scalar value as YAML text in house style (strings always quoted).
std::string scalar_text_of(const YamlValue& v) {
    if (v.is_string()) return yaml_quoted(v.get<std::string>());
    if (v.is_null()) return "null";
    return v.dump();
}

// The offset of a mark (1-based line and column) in `src`.
std::optional<std::size_t> offset_of(std::string_view src, Mark mark) {
    if (mark.line == 0 || mark.column == 0) return std::nullopt;
    std::size_t at = 0;
    for (std::uint32_t line = 1; line < mark.line; ++line) {
        at = src.find('\n', at);
        if (at == std::string_view::npos) return std::nullopt;
        ++at;
    }
    return at + mark.column - 1;
}

// Where `node`'s scalar bytes are, when it sits on one line.
std::optional<SourceRange> locate(std::string_view src, const ScalarLocator& locator, NodeRef node) {
    if (node.is_mapping() || node.is_sequence()) return std::nullopt;
    const std::string_view text = node.is_string() ? node.as_string() : node.scalar_text();
    if (!text.empty()) return locator.find(node.mark(), text);
    // An empty quoted string: its two quotes stand at the mark (which may
    // point just inside the opening quote). `key:` with nothing has no bytes
    // to replace.
    const std::optional<std::size_t> mark = offset_of(src, node.mark());
    if (!mark || !node.is_string()) return std::nullopt;
    for (const std::size_t at : {*mark > 0 ? *mark - 1 : *mark, *mark}) {
        if (at + 2 > src.size()) continue;
        const std::string_view quotes = src.substr(at, 2);
        if (quotes == "\"\"" || quotes == "''") return SourceRange{at, 2};
    }
    return std::nullopt;
}

// Member order does not matter for equality here (appended keys go last).
bool same_value(const YamlValue& a, const YamlValue& b) {
    return nlohmann::json::parse(a.dump()) == nlohmann::json::parse(b.dump());
}

std::optional<std::string> apply(std::string text, std::vector<Edit> edits) {
    std::sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) { return x.offset > y.offset; });
    for (std::size_t i = 1; i < edits.size(); ++i) {
        if (edits[i].offset + edits[i].length > edits[i - 1].offset) return std::nullopt;  // overlap
    }
    for (const Edit& e : edits) text.replace(e.offset, e.length, e.text);
    return text;
}

}  // namespace

std::optional<std::string> edit_top_level_members(const Document& doc, const YamlValue& target) {
    const NodeRef root = doc.root();
    if (!root.is_mapping() || !target.is_object()) return std::nullopt;
    const std::string_view src = doc.source();
    const ScalarLocator locator(src);
    std::vector<Edit> edits;
    for (std::size_t i = 0; i < root.size(); ++i) {
        const std::string key(root.key(i));
        if (!target.contains(key)) return std::nullopt;  // removals are not in-place edits
        const NodeRef node = root.value(i);
        const YamlValue& want = target[key];
        if (same_value(to_yaml_value(node), want)) continue;
        if (!is_scalar(want)) return std::nullopt;
        const std::optional<SourceRange> at = locate(src, locator, node);
        if (!at) return std::nullopt;
        edits.push_back({at->offset, at->length, scalar_text_of(want)});
    }
    std::string appended;
    for (const auto& [key, value] : target.items()) {
        if (root.find(key).valid()) continue;
        YamlValue one = YamlValue::object();
        one[key] = value;
        appended += emit_document(one);
    }
    if (!appended.empty()) {
        const bool crlf = src.find("\r\n") != std::string_view::npos;
        if (!src.empty() && src.back() != '\n') appended.insert(0, crlf ? "\r\n" : "\n");
        edits.push_back({src.size(), 0, appended});
    }
    std::optional<std::string> out = apply(std::string(src), std::move(edits));
    if (!out) return std::nullopt;
    Result<Document> again = parse_yaml(*out, "edit");
    if (!again || !again->root().is_mapping() || !same_value(to_yaml_value(again->root()), target)) {
        return std::nullopt;
    }
    return out;
}

std::optional<std::string> requote_top_level_scalar(const Document& doc, std::string_view key, const std::string& text) {
    const NodeRef node = doc.root().find(key);
    if (!node.valid()) return std::nullopt;
    const std::optional<SourceRange> at = locate(doc.source(), ScalarLocator(doc.source()), node);
    if (!at) return std::nullopt;
    std::string out(doc.source());
    out.replace(at->offset, at->length, text);
    Result<Document> again = parse_yaml(out, "edit");
    if (!again || !again->root().find(key).is_string() || again->root().find(key).as_string() != node.scalar_text()) {
        return std::nullopt;
    }
    return out;
}

}  // namespace small
