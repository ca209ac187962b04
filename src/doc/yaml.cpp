#include "small/doc/yaml.hpp"

#include "small/base/text.hpp"
#include "small/base/utf8.hpp"
#include "yaml_internal.hpp"

#include <libfyaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace small {

namespace {

bool is_digits(std::string_view s, int base) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [base](char c) {
        if (base == 8) return c >= '0' && c <= '7';
        if (base == 16) return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        return c >= '0' && c <= '9';
    });
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_core_float(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++int_digits;
    bool dot = false;
    if (i < s.size() && s[i] == '.') {
        dot = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac_digits;
    }
    if (int_digits == 0 && (!dot || frac_digits == 0)) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (!is_digits(s.substr(std::min(i, s.size())), 10)) return false;
        return true;
    }
    return i == s.size();
}

double parse_double(std::string_view s) {
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    std::string text(s);
    if (!text.empty() && text.front() == '.') text.insert(text.begin(), '0');
    double value = 0.0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
        // Too large is infinite; too small (1e-999) is zero, as in other YAML readers.
        const bool tiny = text.find_first_of("eE") != std::string::npos &&
                          text[text.find_first_of("eE") + 1] == '-';
        value = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    }
    (void)p;
    return negative ? -value : value;
}

PlainScalar make_int_or_float(std::string_view digits, int base, bool negative) {
    PlainScalar out;
    std::uint64_t magnitude = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
    if (ec == std::errc() && p == digits.data() + digits.size() && magnitude <= limit) {
        out.kind = NodeKind::Int;
        out.integer = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
        return out;
    }
    // Too large for int64: keep the value as a double (JSON numbers are doubles anyway).
    out.kind = NodeKind::Float;
    if (base == 10) {
        out.real = parse_double(std::string(negative ? "-" : "") + std::string(digits));
        return out;
    }
    double value = 0.0;
    for (char c : digits) value = value * base + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
    out.real = negative ? -value : value;
    return out;
}

}  // namespace

PlainScalar resolve_plain_scalar(std::string_view s) {
    PlainScalar out;
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
        out.kind = NodeKind::Null;
        return out;
    }
    if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
        out.kind = NodeKind::Bool;
        out.boolean = s[0] == 't' || s[0] == 'T';
        return out;
    }
    if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && is_digits(s.substr(2), 8)) return make_int_or_float(s.substr(2), 8, false);
    if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && is_digits(s.substr(2), 16)) return make_int_or_float(s.substr(2), 16, false);
    const bool sign = s[0] == '+' || s[0] == '-';
    if (is_digits(s.substr(sign ? 1 : 0), 10)) return make_int_or_float(s.substr(sign ? 1 : 0), 10, s[0] == '-');
    const std::string_view unsigned_part = s.substr(sign ? 1 : 0);
    if (unsigned_part == ".inf" || unsigned_part == ".Inf" || unsigned_part == ".INF") {
        out.kind = NodeKind::Float;
        out.real = s[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        return out;
    }
    if (s == ".nan" || s == ".NaN" || s == ".NAN") {
        out.kind = NodeKind::Float;
        out.real = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    if (is_core_float(s)) {
        out.kind = NodeKind::Float;
        out.real = parse_double(s);
        return out;
    }
    return out;  // a string
}

namespace {

Mark mark_at_offset(std::string_view s, std::size_t offset) {
    Mark m{1, 1};
    for (std::size_t i = 0; i < offset && i < s.size(); ++i) {
        if (s[i] == '\n') {
            ++m.line;
            m.column = 1;
        } else if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            ++m.column;
        }
    }
    return m;
}

Error content_error(const std::string& file, Mark m, std::string message) {
    Error e = Error::invalid(std::move(message));
    e.file = file;
    e.line = m.line;
    e.column = m.column;
    return e;
}

Mark token_mark(fy_token* token) {
    if (!token) return {};
    const fy_mark* m = fy_token_start_mark(token);
    if (!m) return {};
    return {static_cast<std::uint32_t>(m->line + 1), static_cast<std::uint32_t>(m->column + 1)};
}

std::string_view token_text(fy_token* token) {
    if (!token) return {};
    std::size_t len = 0;
    const char* text = fy_token_get_text(token, &len);
    return text ? std::string_view(text, len) : std::string_view();
}

// RAII owners for libfyaml objects.
struct DiagDeleter {
    void operator()(fy_diag* d) const { fy_diag_destroy(d); }
};
struct ParserDeleter {
    void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};

// Turns libfyaml's event stream into a Document.
class EventLoader {
public:
    EventLoader(const std::string& file, const YamlLimits& limits) : file_(file), limits_(limits) {}

    Result<Document> run(std::string bytes);

private:
    // What a node costs when an alias repeats it: nodes and scalar bytes.
    struct Cost {
        std::uint64_t nodes = 0;
        std::uint64_t bytes = 0;
        void add(const Cost& c) {
            nodes += c.nodes;
            bytes += c.bytes;
        }
    };
    struct Anchor {
        std::uint32_t node;
        Cost cost;
        NodeKind kind;
    };
    struct OpenContainer {
        Cost cost{1, 0};
        std::string anchor;
    };

    Status on_event(fy_event* ev);
    Status on_scalar(fy_event* ev);
    Status on_alias(fy_event* ev);
    Status on_collection_start(fy_event* ev, bool mapping);
    Status on_collection_end();
    Status check_key_position(Mark mark, bool scalar);
    Status check_duplicate_keys();
    Status apply_merge_keys();
    Status add_alias_cost(const Cost& cost, Mark mark);
    Result<Document> parser_failure(fy_diag* diag, std::string_view bytes);
    // A token's position, or (for empty values, which have no token) the
    // end of the last token seen, e.g. just after the key of `a:`.
    Mark mark_of(fy_token* token) {
        const Mark m = token_mark(token);
        if (m.line == 0) return last_end_;
        if (const fy_mark* end = fy_token_end_mark(token)) {
            last_end_ = {static_cast<std::uint32_t>(end->line + 1), static_cast<std::uint32_t>(end->column + 1)};
        }
        return m;
    }
    bool in_mapping() const { return !mapping_flags_.empty() && mapping_flags_.back(); }

    const std::string& file_;
    const YamlLimits& limits_;
    DocumentBuilder builder_;
    std::vector<OpenContainer> open_;
    std::vector<bool> mapping_flags_;
    std::unordered_map<std::string, Anchor> anchors_;
    bool done_ = false;
    Mark last_end_{1, 1};
    std::unordered_set<std::uint32_t> merge_keys_;  // plain `<<` keys

public:
    ParseStats stats;
};

// Aliases may not blow a file up (alias bombs): what they add is budgeted.
Status EventLoader::add_alias_cost(const Cost& cost, Mark mark) {
    if (!open_.empty()) open_.back().cost.add(cost);
    stats.alias_nodes += cost.nodes;
    stats.alias_bytes += cost.bytes;
    if (stats.alias_nodes > limits_.max_alias_nodes) {
        return content_error(file_, mark, "aliases expand to more than " + std::to_string(limits_.max_alias_nodes) +
                                              " nodes; remove the alias chain");
    }
    if (stats.alias_bytes > limits_.max_alias_bytes) {
        return content_error(file_, mark, "aliases expand to more than " + std::to_string(limits_.max_alias_bytes) +
                                              " bytes of text; remove the alias chain");
    }
    return ok_status();
}

Status EventLoader::check_key_position(Mark mark, bool scalar) {
    if (scalar || !in_mapping() || builder_.open_child_count() % 2 != 0) return ok_status();
    return content_error(file_, mark, "mapping keys must be plain text, not a list or mapping");
}

Status EventLoader::on_scalar(fy_event* ev) {
    fy_token* value = ev->scalar.value;
    const Mark mark = mark_of(value);
    const std::string_view text = token_text(value);
    std::string tag;
    if (fy_token* tag_token = fy_event_get_tag_token(ev)) {
        tag = std::string(fy_tag_token_handle0(tag_token) ? fy_tag_token_handle0(tag_token) : "") +
              (fy_tag_token_suffix0(tag_token) ? fy_tag_token_suffix0(tag_token) : "");
    }
    std::uint32_t index = 0;
    const bool plain = fy_token_scalar_style(value) == FYSS_PLAIN;
    if (tag == "!!str" || tag == "!" || tag == "!!binary" || (!plain && tag.empty())) {
        index = builder_.add_string(text, mark);
    } else {
        PlainScalar resolved = resolve_plain_scalar(text);
        // Core-schema tags force a type; the text must fit it.
        if (tag == "!!float" && resolved.kind == NodeKind::Int) {
            resolved.kind = NodeKind::Float;
            resolved.real = static_cast<double>(resolved.integer);
        }
        const bool fits = (tag == "!!int" && resolved.kind == NodeKind::Int) ||
                          (tag == "!!float" && resolved.kind == NodeKind::Float) ||
                          (tag == "!!bool" && resolved.kind == NodeKind::Bool) ||
                          (tag == "!!null" && resolved.kind == NodeKind::Null);
        if ((tag == "!!int" || tag == "!!float" || tag == "!!bool" || tag == "!!null") && !fits) {
            std::string message = quoted_excerpt(text);  // built by append: GCC 12 warns (falsely) on operator+
            message.append(" cannot be read as ").append(tag);
            return content_error(file_, mark, std::move(message));
        }
        if (resolved.kind == NodeKind::String) index = builder_.add_string(text, mark);
        else if (resolved.kind == NodeKind::Null) index = builder_.add_null(mark, text);
        else if (resolved.kind == NodeKind::Bool) index = builder_.add_bool(resolved.boolean, mark, text);
        else if (resolved.kind == NodeKind::Int) index = builder_.add_int(resolved.integer, mark, text);
        else index = builder_.add_float(resolved.real, mark, text);
    }
    if (builder_.overflowed()) return content_error(file_, mark, "the file holds more than 2 GiB of text; split it");
    const Cost cost{1, text.size()};
    if (fy_token* anchor = fy_event_get_anchor_token(ev)) {
        anchors_[std::string(token_text(anchor))] = {index, cost, builder_.node_kind(index)};
    }
    if (plain && tag.empty() && text == "<<" && in_mapping() && builder_.open_child_count() % 2 == 1) {
        merge_keys_.insert(index);  // the reference's YAML reader honours merge keys; so do we
    }
    if (!open_.empty()) open_.back().cost.add(cost);
    return ok_status();
}

Status EventLoader::on_alias(fy_event* ev) {
    fy_token* token = fy_event_get_token(ev);
    Mark mark = mark_of(token);
    if (mark.column > 1) --mark.column;  // libfyaml marks the name; point at the '*'
    const std::string name(token_text(token));
    const auto it = anchors_.find(name);
    if (it == anchors_.end()) {
        return content_error(file_, mark, "alias *" + excerpt(name) + " refers to an unknown anchor");
    }
    const bool scalar = it->second.kind != NodeKind::Sequence && it->second.kind != NodeKind::Mapping;
    if (Status s = check_key_position(mark, scalar); !s) return s;
    builder_.add_existing(it->second.node);
    return add_alias_cost(it->second.cost, mark);
}

Status EventLoader::on_collection_start(fy_event* ev, bool mapping) {
    const Mark mark = mark_of(fy_event_get_token(ev));
    if (Status s = check_key_position(mark, false); !s) return s;
    if (open_.size() >= limits_.max_depth) {
        return content_error(file_, mark, "nesting is deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
    OpenContainer open;
    if (fy_token* anchor = fy_event_get_anchor_token(ev)) open.anchor = std::string(token_text(anchor));
    if (mapping) builder_.begin_mapping(mark);
    else builder_.begin_sequence(mark);
    open_.push_back(std::move(open));
    mapping_flags_.push_back(mapping);
    return ok_status();
}

Status EventLoader::check_duplicate_keys() {
    const std::size_t count = builder_.open_child_count() / 2;
    if (count < 2) return ok_status();
    std::vector<std::pair<std::string_view, std::uint32_t>> keys;  // (text, node), document order
    keys.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t node = builder_.open_child(2 * i);
        keys.emplace_back(builder_.node_text(node), node);
    }
    // Stable sort keeps document order among equal keys: report the later one.
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 1; i < keys.size(); ++i) {
        if (keys[i].first != keys[i - 1].first) continue;
        const Mark first = builder_.node_mark(keys[i - 1].second);
        return content_error(file_, builder_.node_mark(keys[i].second),
                             "duplicate key " + quoted_excerpt(keys[i].first) + " (first defined at line " +
                                 std::to_string(first.line) + "); keep only one of them");
    }
    return ok_status();
}

// `<<: *base` (or a list of them) copies members the mapping lacks.
Status EventLoader::apply_merge_keys() {
    const std::size_t count = builder_.open_child_count() / 2;
    std::vector<std::uint32_t> merged, sources;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t key = builder_.open_child(2 * i), value = builder_.open_child(2 * i + 1);
        if (!merge_keys_.count(key)) {
            merged.push_back(key);
            merged.push_back(value);
            continue;
        }
        std::vector<std::uint32_t> candidates = {value};
        if (builder_.node_kind(value) == NodeKind::Sequence) candidates = builder_.node_children(value);
        for (std::uint32_t c : candidates) {
            if (builder_.node_kind(c) != NodeKind::Mapping) {
                return content_error(file_, builder_.node_mark(key), "a merge key (<<) needs a mapping or a list of mappings");
            }
            sources.push_back(c);
        }
    }
    if (sources.empty()) return ok_status();
    std::unordered_set<std::string_view> present;
    for (std::size_t i = 0; i < merged.size(); i += 2) present.insert(builder_.node_text(merged[i]));
    for (std::uint32_t source : sources) {
        const std::vector<std::uint32_t> members = builder_.node_children(source);
        for (std::size_t i = 0; i + 1 < members.size(); i += 2) {
            if (!present.insert(builder_.node_text(members[i])).second) continue;
            merged.push_back(members[i]);
            merged.push_back(members[i + 1]);
        }
    }
    builder_.replace_open_children(merged);
    return ok_status();
}

Status EventLoader::on_collection_end() {
    OpenContainer open = std::move(open_.back());
    const bool mapping = mapping_flags_.back();
    if (mapping) {
        if (!merge_keys_.empty()) {
            if (Status s = apply_merge_keys(); !s) return s;
        }
        if (Status s = check_duplicate_keys(); !s) return s;
    }
    open_.pop_back();
    mapping_flags_.pop_back();
    const std::uint32_t index = builder_.end();
    if (!open.anchor.empty()) {
        anchors_[open.anchor] = {index, open.cost, mapping ? NodeKind::Mapping : NodeKind::Sequence};
    }
    if (!open_.empty()) open_.back().cost.add(open.cost);
    return ok_status();
}

Status EventLoader::on_event(fy_event* ev) {
    switch (ev->type) {
        case FYET_DOCUMENT_END:
            done_ = true;  // only the first document counts (as in the reference)
            return ok_status();
        case FYET_SCALAR:
            if (Status s = check_key_position(mark_of(ev->scalar.value), true); !s) return s;
            return on_scalar(ev);
        case FYET_ALIAS:
            return on_alias(ev);
        case FYET_MAPPING_START:
            return on_collection_start(ev, true);
        case FYET_SEQUENCE_START:
            return on_collection_start(ev, false);
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END:
            return on_collection_end();
        default:
            return ok_status();
    }
}

Result<Document> EventLoader::parser_failure(fy_diag* diag, std::string_view bytes) {
    void* iter = nullptr;
    if (fy_diag_error* err = fy_diag_errors_iterate(diag, &iter)) {
        // Collected diagnostics are already 1-based (unlike token marks).
        Mark m{static_cast<std::uint32_t>(std::max(err->line, 1)), static_cast<std::uint32_t>(std::max(err->column, 1))};
        if (err->line <= 0) m = mark_at_offset(bytes, bytes.size());
        std::string msg = err->msg ? err->msg : "invalid YAML";
        Error e = content_error(file_, m, "YAML syntax error: " + msg);
        e.hint = syntax_error_hint(bytes, m, msg);
        return e;
    }
    return content_error(file_, mark_at_offset(bytes, bytes.size()), "YAML syntax error");
}

Result<Document> EventLoader::run(std::string source) {
    // A scalar node costs ~2 nodes (key + value) per ~20 bytes of YAML.
    const std::size_t expected_nodes = source.size() / 16 + 16;
    builder_.set_source(std::move(source), expected_nodes);
    const std::string_view bytes = builder_.source();
    fy_diag_cfg diag_cfg;
    fy_diag_cfg_default(&diag_cfg);
    diag_cfg.fp = nullptr;
    diag_cfg.output_fn = [](fy_diag*, void*, const char*, size_t) {};
    diag_cfg.colorize = false;
    std::unique_ptr<fy_diag, DiagDeleter> diag(fy_diag_create(&diag_cfg));
    if (!diag) return Error::system("cannot initialise the YAML parser");
    fy_diag_set_collect_errors(diag.get(), true);

    fy_parse_cfg cfg{};
    cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE);
    cfg.diag = diag.get();
    std::unique_ptr<fy_parser, ParserDeleter> parser(fy_parser_create(&cfg));
    if (!parser || fy_parser_set_string(parser.get(), bytes.data(), bytes.size()) != 0) {
        return Error::system("cannot initialise the YAML parser");
    }
    while (!done_) {
        fy_event* ev = fy_parser_parse(parser.get());
        if (!ev) break;
        Status status = on_event(ev);
        fy_parser_event_free(parser.get(), ev);
        if (!status) {
            stats.loader_error = true;
            return status.error();
        }
    }
    if (fy_parser_get_stream_error(parser.get())) return parser_failure(diag.get(), bytes);
    return builder_.finish();
}

// One pass of the event loader, without the flow-depth precheck.
Result<Document> load_events(std::string bytes, const std::string& file, const YamlLimits& limits, ParseStats* stats) {
    EventLoader loader(file, limits);
    Result<Document> doc = loader.run(std::move(bytes));
    if (stats) *stats = loader.stats;
    return doc;
}

// Where a line's brackets may first nest deeper than `max_depth` (the
// offset just after that bracket). Quoting is ignored, so this may
// overestimate, never underestimate, the flow nesting of a line. Only lines
// longer than `max_depth` can get there: the others are skipped by looking
// for line breaks a window at a time (a large log has few long lines).
std::optional<std::size_t> deep_flow_candidate(std::string_view bytes, std::size_t max_depth) {
    const char* data = bytes.data();
    std::size_t p = 0;
    while (bytes.size() - p > max_depth) {
        if (const void* nl = ::memrchr(data + p, '\n', max_depth + 1)) {
            p = static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1;
            continue;
        }
        std::size_t depth = 0;  // a long line starts at p
        for (; p < bytes.size() && data[p] != '\n'; ++p) {
            const char c = data[p];
            if (c == '[' || c == '{') {
                if (++depth > max_depth) return p + 1;
            } else if ((c == ']' || c == '}') && depth > 0) {
                --depth;
            }
        }
    }
    return std::nullopt;
}

// libfyaml keeps every token of a line while a flow collection on it is
// open (each could start an implicit key), so a line of 5M '[' costs
// gigabytes before the first event reaches the depth check. The text up to
// the suspicious bracket is parsed first: deep nesting fails there, cheaply.
// Only the loader's own errors count (the rest of the line can only make
// nodes keys or nest deeper, never undo them); a syntax error of the cut
// text, or a false alarm (brackets in quotes), goes on to the full parse.
std::optional<Error> deep_flow_error(const std::string& bytes, const std::string& file, const YamlLimits& limits) {
    const std::optional<std::size_t> cut = deep_flow_candidate(bytes, limits.max_depth);
    if (!cut) return std::nullopt;
    ParseStats stats;
    Result<Document> prefix = load_events(bytes.substr(0, *cut), file, limits, &stats);
    if (!prefix && stats.loader_error) return prefix.error();
    return std::nullopt;
}

}  // namespace

// Also each piece of the parallel path: the precheck runs on all cores.
Result<Document> parse_yaml_events(std::string bytes, const std::string& file, const YamlLimits& limits,
                                   ParseStats* stats) {
    if (std::optional<Error> deep = deep_flow_error(bytes, file, limits)) {
        if (stats) stats->loader_error = true;
        return *deep;
    }
    return load_events(std::move(bytes), file, limits, stats);
}

Result<Document> parse_yaml(std::string bytes, const std::string& file, const YamlLimits& limits) {
    // libfyaml would stop at a NUL and silently ignore the rest.
    if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
        const std::size_t at = static_cast<const char*>(nul) - bytes.data();
        return content_error(file, mark_at_offset(bytes, at),
                             "the file contains a NUL byte (byte " + std::to_string(at) + "); is it a binary file?");
    }
    if (const std::size_t bad = find_invalid_utf8(bytes); bad != std::string_view::npos) {
        return content_error(file, mark_at_offset(bytes, bad),
                             "the file is not valid UTF-8 (byte " + std::to_string(bad) + "); save it as UTF-8");
    }
    if (const std::optional<CostlyConstruct> costly = find_quadratic_construct(bytes)) {
        return content_error(file, mark_at_offset(bytes, costly->offset), costly->message);
    }
    if (limits.parallel) {
        if (auto spliced = parse_yaml_split(bytes, file, limits)) return std::move(*spliced);
    }
    return parse_yaml_events(std::move(bytes), file, limits);
}

}  // namespace small
