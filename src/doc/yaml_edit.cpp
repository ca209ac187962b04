// In-place edits of YAML mapping members (see the header).
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
    // to replace (see after_colon).
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
bool same_value(const YamlValue& a, const YamlValue& b) { return same_yaml_data(a, b); }

std::optional<std::string> apply(std::string text, std::vector<Edit> edits) {
    std::sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) { return x.offset > y.offset; });
    for (std::size_t i = 1; i < edits.size(); ++i) {
        if (edits[i].offset + edits[i].length > edits[i - 1].offset) return std::nullopt;  // overlap
    }
    for (const Edit& e : edits) text.replace(e.offset, e.length, e.text);
    return text;
}

class MemberEditor {
public:
    explicit MemberEditor(const Document& doc) : src_(doc.source()), locator_(src_) {}

    // Edits that make mapping `node` hold `want`; the first refusal otherwise.
    std::optional<MemberEdit> mapping(NodeRef node, const YamlValue& want, std::string_view name);
    std::optional<std::string> result() const { return apply(std::string(src_), edits_); }

private:
    std::optional<MemberEdit> member(NodeRef key, NodeRef value, const YamlValue& want);
    std::optional<MemberEdit> added(NodeRef node, const YamlValue& want, std::string_view name);
    std::optional<MemberEdit> new_mapping(NodeRef key, const YamlValue& want);
    std::optional<std::size_t> after_colon(NodeRef key) const;
    bool is_flow(NodeRef node) const {  // a flow collection is marked at its bracket
        const std::optional<std::size_t> at = offset_of(src_, node.mark());
        return at && *at < src_.size() && (src_[*at] == '{' || src_[*at] == '[');
    }
    std::string newline() const { return src_.find("\r\n") != std::string_view::npos ? "\r\n" : "\n"; }

    std::string_view src_;
    ScalarLocator locator_;
    std::vector<Edit> edits_;
};

MemberEdit refusal(std::string why, NodeRef at) { return {std::nullopt, std::move(why), at.mark().line}; }

// `name` is the mapping's key ("" for the top level).
std::optional<MemberEdit> MemberEditor::mapping(NodeRef node, const YamlValue& want, std::string_view name) {
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string key(node.key(i));
        if (!want.contains(key)) return refusal("the field `" + key + "` is removed", node.key_node(i));
        if (std::optional<MemberEdit> r = member(node.key_node(i), node.value(i), want[key])) return r;
    }
    return added(node, want, name);
}

std::optional<MemberEdit> MemberEditor::member(NodeRef key, NodeRef value, const YamlValue& want) {
    if (same_value(to_yaml_value(value), want)) return std::nullopt;
    const std::string name(key.scalar_text());
    if (value.is_mapping() && want.is_object()) return mapping(value, want, name);
    if (value.is_null() && want.is_object()) return new_mapping(key, want);
    if (!is_scalar(want) || value.is_mapping() || value.is_sequence()) {
        return refusal("the value of `" + name + "` is not a scalar", key);
    }
    if (const std::optional<SourceRange> at = locate(src_, locator_, value)) {
        edits_.push_back({at->offset, at->length, scalar_styled(want, scalar_quote(src_.substr(at->offset)))});
        return std::nullopt;
    }
    // `key:` with nothing after it: the value goes after the colon.
    if (const std::optional<std::size_t> colon = value.is_null() ? after_colon(key) : std::nullopt) {
        edits_.push_back({*colon, 0, " " + scalar_styled(want, '"')});
        return std::nullopt;
    }
    return refusal("the value of `" + name + "` is not a one-line scalar", key);
}

// Just past the ':' that ends `key` on its line, when only spaces stand between.
std::optional<std::size_t> MemberEditor::after_colon(NodeRef key) const {
    const std::optional<std::size_t> at = offset_of(src_, key.mark());
    const std::string_view name = key.scalar_text();
    if (!at || *at >= src_.size() || name.empty()) return std::nullopt;
    std::size_t i = *at;
    if (i > 0 && scalar_quote(src_.substr(i - 1)) && !scalar_quote(src_.substr(i))) --i;  // marked inside the quotes
    const char quote = scalar_quote(src_.substr(i));
    if (src_.substr(i + (quote ? 1 : 0), name.size()) != name) return std::nullopt;
    i += name.size() + (quote ? 2 : 0);
    if (quote && (i > src_.size() || src_[i - 1] != quote)) return std::nullopt;
    while (i < src_.size() && src_[i] == ' ') ++i;
    if (i >= src_.size() || src_[i] != ':') return std::nullopt;
    return i + 1;
}

// `key:` with nothing after it becoming a mapping of scalars: its members on
// the lines after, two columns deeper than the key.
std::optional<MemberEdit> MemberEditor::new_mapping(NodeRef key, const YamlValue& want) {
    const std::optional<std::size_t> colon = after_colon(key);
    const bool scalars = std::all_of(want.begin(), want.end(), [](const YamlValue& v) { return is_scalar(v); });
    if (!colon || !scalars || want.empty()) {
        return refusal("the value of `" + std::string(key.scalar_text()) + "` is not a scalar", key);
    }
    const std::size_t line_end = src_.find('\n', *colon);
    const std::size_t at = line_end == std::string_view::npos ? src_.size() : line_end + 1;
    std::string text = at == src_.size() && (src_.empty() || src_.back() != '\n') ? newline() : "";
    for (const auto& [k, v] : want.items()) {
        text += std::string(key.mark().column + 1, ' ') + yaml_scalar(k) + ": " + scalar_styled(v, '"') + newline();
    }
    edits_.push_back({at, 0, std::move(text)});
    return std::nullopt;
}

// New members: at the end of the file for the top-level mapping (house
// style); in a nested block mapping, scalar lines after its last member at
// its members' indentation (when that member is a one-line scalar).
std::optional<MemberEdit> MemberEditor::added(NodeRef node, const YamlValue& want, std::string_view name) {
    const bool top = name.empty();
    std::string text;
    for (const auto& [key, value] : want.items()) {
        if (node.find(key).valid()) continue;
        if (top) {
            YamlValue one = YamlValue::object();
            one[key] = value;
            text += emit_document(one);
            continue;
        }
        if (is_flow(node)) return refusal("a field is added to `" + std::string(name) + "`, a flow mapping", node);
        const NodeRef first = node.size() ? node.key_node(0) : NodeRef();
        const NodeRef last = node.size() ? node.value(node.size() - 1) : NodeRef();
        if (!is_scalar(value) || !first.valid() || !last.valid() ||
            !locate(src_, locator_, last)) {
            return refusal("a field is added to `" + std::string(name) +
                               "`, which is not a block mapping ending in a one-line scalar",
                           node);
        }
        text += std::string(first.mark().column - 1, ' ') + yaml_scalar(key) + ": " + scalar_styled(value, '"') +
                newline();
    }
    if (text.empty()) return std::nullopt;
    if (top) {
        if (is_flow(node)) return refusal("a field is added to a flow mapping", node);
        if (!src_.empty() && src_.back() != '\n') text.insert(0, "\n");
        if (newline() == "\r\n") text = with_crlf(text);
        edits_.push_back({src_.size(), 0, text});
        return std::nullopt;
    }
    const NodeRef last = node.value(node.size() - 1);
    std::size_t end = src_.find('\n', *offset_of(src_, last.mark()));
    end = end == std::string_view::npos ? src_.size() : end + 1;
    if (end == src_.size() && !src_.empty() && src_.back() != '\n') text.insert(0, newline());
    edits_.push_back({end, 0, text});
    return std::nullopt;
}

}  // namespace

MemberEdit edit_mapping_members(const Document& doc, const YamlValue& target) {
    const NodeRef root = doc.root();
    if (!root.is_mapping() || !target.is_object()) return {std::nullopt, "the file is not a mapping", 1};
    MemberEditor editor(doc);
    if (std::optional<MemberEdit> refused = editor.mapping(root, target, "")) return *refused;
    std::optional<std::string> out = editor.result();
    Result<Document> again = out ? parse_yaml(*out, "edit") : Result<Document>(Error::internal("overlap"));
    if (!again || !again->root().is_mapping() || !same_value(to_yaml_value(again->root()), target)) {
        return {std::nullopt, "the edited text would not read back as the new value", root.mark().line};
    }
    return {std::move(out), "", 0};
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
