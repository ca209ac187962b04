#include "small/check/schema.hpp"

#include "node_adapter.hpp"
#include "small/doc/node_json.hpp"
#include "small/base/parallel.hpp"
#include "small/base/text.hpp"
#include "small/base/utf8.hpp"

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <mutex>
#include <map>
#include <optional>
#include <sstream>

namespace small {

using SchemaJson = nlohmann::json;

namespace {

// `format` is an annotation in SMALL (D1); valijson would assert it.
void strip_format_keywords(SchemaJson& schema) {
    if (schema.is_object()) {
        if (auto it = schema.find("format"); it != schema.end() && it->is_string()) schema.erase(it);
        for (auto& [key, value] : schema.items()) strip_format_keywords(value);
    } else if (schema.is_array()) {
        for (auto& value : schema) strip_format_keywords(value);
    }
}

SchemaJson to_json(NodeRef node) { return node_to_json<SchemaJson>(node); }

}  // namespace

nlohmann::json schema_adapter::node_to_json(NodeRef node) { return to_json(node); }

namespace {

// valijson context ["<root>", "[entries]", "[3]"] -> "/entries/3".
std::string context_to_pointer(const std::vector<std::string>& context) {
    std::string pointer;
    for (const std::string& part : context) {
        if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
            pointer += "/" + json_pointer_escape(part.substr(1, part.size() - 2));
        }
    }
    return pointer;
}

// The subschema that governs the value at `pointer` (properties/items only;
// that is all the SMALL schemas use). Null when none applies.
const SchemaJson* subschema_at(const SchemaJson& schema, const std::string& pointer) {
    const SchemaJson* current = &schema;
    std::size_t pos = 1;
    while (pos <= pointer.size() && !pointer.empty()) {
        const std::size_t next = pointer.find('/', pos);
        const std::string segment = pointer.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (current->contains("properties") && (*current)["properties"].contains(segment)) {
            current = &(*current)["properties"][segment];
        } else if (current->contains("items") && (*current)["items"].is_object()) {
            current = &(*current)["items"];
        } else {
            return nullptr;
        }
        if (next == std::string::npos) break;
        pos = next + 1;
    }
    return current;
}

std::string article_type(const std::string& type) {
    if (type == "string") return "a string";
    if (type == "object") return "a mapping";
    if (type == "array") return "a list";
    if (type == "number") return "a number";
    if (type == "integer") return "an integer";
    if (type == "boolean") return "true or false";
    if (type == "null") return "null";
    return type;
}

std::string describe_branch(const SchemaJson& branch) {
    const std::string type = branch.value("type", "");
    if (type == "string" && branch.value("minLength", 0) > 0) return "a non-empty string";
    return article_type(type);
}

std::string describe_value(NodeRef value) {
    if (!value.valid()) return "nothing";
    std::string out = std::string(value.kind() == NodeKind::Int ? "an " : "a ") + kind_name(value.kind());
    if (value.kind() == NodeKind::Null) return "null";
    if (value.kind() == NodeKind::Int || value.kind() == NodeKind::Float || value.kind() == NodeKind::Bool) {
        out += " (" + excerpt(value.scalar_text()) + ")";
    }
    return out;
}

std::string quote_text(std::string_view s) { return quoted_excerpt(s); }

std::string join_enum(const SchemaJson& values) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + v.dump();
    return out;
}

std::string allowed_fields(const SchemaJson* schema) {
    if (!schema || !schema->contains("properties")) return "";
    std::string out;
    for (const auto& [key, value] : (*schema)["properties"].items()) out += (out.empty() ? "" : ", ") + key;
    return " (allowed: " + out + ")";
}

struct Explained {
    std::string pointer;
    std::string message;
    bool one_of = false;  // the summary of a failed oneOf: its branches' errors are noise
};

// Rewrites one valijson message into what is wrong and what is expected.
std::vector<Explained> explain(const std::string& description, const std::string& pointer, const SchemaJson& root_schema,
                               NodeRef doc_root) {
    const SchemaJson* schema = subschema_at(root_schema, pointer);
    const NodeRef value = resolve_pointer(doc_root, pointer);
    const auto starts = [&](std::string_view p) { return description.rfind(p, 0) == 0; };
    if (starts("Failed to validate item #") || starts("Failed to validate against schema associated with property") ||
        starts("Failed to validate against additional properties schema") || starts("Failed to validate against child schema")) {
        return {};  // wrappers around a deeper, more precise error
    }
    if (starts("Missing required property '")) {
        const std::string name = description.substr(27, description.find('\'', 27) - 27);
        return {Explained{pointer + "/" + json_pointer_escape(name), "missing required field " + quote_text(name)}};
    }
    if (starts("Object contains a property that could not be validated")) {
        // valijson names only the first; list every field the schema lacks.
        std::vector<Explained> out;
        for (std::size_t i = 0; schema && schema->contains("properties") && i < value.size(); ++i) {
            const std::string name(value.key(i));
            if ((*schema)["properties"].contains(name)) continue;
            out.push_back({pointer + "/" + json_pointer_escape(name),
                           "field " + quote_text(name) + " is not allowed here" + allowed_fields(schema)});
        }
        if (out.empty()) {
            const std::size_t open = description.rfind(": '");
            const std::string name = open == std::string::npos ? "" : description.substr(open + 3, description.size() - open - 5);
            out.push_back({pointer + "/" + json_pointer_escape(name), "field " + quote_text(name) + " is not allowed here"});
        }
        return out;
    }
    if (starts("Value type not permitted") && schema && schema->contains("type")) {
        return {Explained{pointer, "expected " + article_type((*schema)["type"].get<std::string>()) + ", got " + describe_value(value)}};
    }
    if (starts("Failed to match expected value set by 'const'") && schema && schema->contains("const")) {
        return {Explained{pointer, "must be " + (*schema)["const"].dump() + ", got " +
                                      (value.is_string() ? quote_text(value.as_string()) : describe_value(value))}};
    }
    if (starts("Failed to match against any enum values") && schema && schema->contains("enum")) {
        return {Explained{pointer, "must be one of " + join_enum((*schema)["enum"]) + "; got " +
                                      (value.is_string() ? quote_text(value.as_string()) : describe_value(value))}};
    }
    if (starts("Failed to match regex") && schema && schema->contains("pattern")) {
        return {Explained{pointer, quote_text(value.as_string()) + " does not match the pattern " +
                                      (*schema)["pattern"].get<std::string>()}};
    }
    if (starts("String should be no fewer than")) return {Explained{pointer, "must not be empty"}};
    if (starts("Array should contain no fewer than") && schema) {
        return {Explained{pointer, "must have at least " + std::to_string(schema->value("minItems", 1)) + " item(s)"}};
    }
    if ((starts("Failed to validate against any child schemas allowed by oneOf") ||
         starts("Failed to validate against exactly one child schema")) && schema && schema->contains("oneOf")) {
        std::string expected;
        for (const auto& branch : (*schema)["oneOf"]) expected += (expected.empty() ? "" : " or ") + describe_branch(branch);
        return {Explained{pointer, "must be " + expected + ", got " +
                                       (value.is_string() ? "an empty string" : describe_value(value)), true}};
    }
    return {Explained{pointer, description}};
}

Mark mark_for(NodeRef root, const std::string& pointer) {
    // The value itself, else the nearest ancestor that exists.
    std::string p = pointer;
    while (true) {
        const NodeRef node = resolve_pointer(root, p);
        if (node.valid()) {
            // For a mapping member, point at its key: that is where the eye goes.
            const auto slash = p.rfind('/');
            if (slash != std::string::npos && !p.empty()) {
                const NodeRef parent = resolve_pointer(root, p.substr(0, slash));
                if (parent.is_mapping()) {
                    for (std::size_t i = 0; i < parent.size(); ++i) {
                        if (parent.value(i).index() == node.index()) return parent.key_node(i).mark();
                    }
                }
            }
            return node.mark();
        }
        const auto slash = p.rfind('/');
        if (slash == std::string::npos) return root.mark();
        p = p.substr(0, slash);
    }
}


}  // namespace

// ---- The fast accept path ----
// valijson stays the authority. This validator is compiled from the same
// schema JSON (format already stripped) and knows only the keywords the
// SMALL schemas use, with valijson's semantics: strict types, minLength in
// the code points valijson counts, an ECMAScript pattern of the one form
// `^[class]{m,n}$`. It answers only "certainly valid"; a schema with any
// other keyword gets none, and any doubt sends the document to valijson.
namespace fast_accept {

class QuickSchema {
public:
    // Null when the schema holds anything this validator does not know.
    static std::unique_ptr<QuickSchema> compile(const SchemaJson& schema) {
        auto quick = std::unique_ptr<QuickSchema>(new QuickSchema());
        if (!quick->add(schema)) return nullptr;
        return quick;
    }

    bool certainly_valid(NodeRef value) const { return judge(0, value) == Verdict::Valid; }

private:
    enum class Verdict { Valid, Invalid, Unsure };
    // `^[class]{min,max}$`: every byte in the class, the length in range.
    struct Pattern {
        std::array<bool, 256> in_class{};
        std::size_t min = 0, max = 0;
    };
    struct Property {
        std::string name;
        std::size_t rule;
        bool required = false;
    };
    struct Rule {
        std::uint8_t kinds = 0;  // bit per NodeKind; 0: any
        std::vector<std::string> required;  // those without a property of their own
        std::vector<Property> properties;
        std::size_t required_properties = 0;
        bool closed = false;  // additionalProperties: false
        std::optional<std::uint64_t> min_length, min_items;
        std::optional<std::vector<std::string>> one_of_strings;  // enum
        std::optional<std::string> constant;
        std::optional<Pattern> pattern;
        std::vector<std::size_t> one_of;
        std::optional<std::size_t> items;
    };

    QuickSchema() = default;

    static std::uint8_t bit(NodeKind k) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(k)); }

    static std::optional<std::uint8_t> kinds_of(const std::string& type) {
        if (type == "string") return bit(NodeKind::String);
        if (type == "object") return bit(NodeKind::Mapping);
        if (type == "array") return bit(NodeKind::Sequence);
        if (type == "boolean") return bit(NodeKind::Bool);
        if (type == "null") return bit(NodeKind::Null);
        if (type == "integer") return bit(NodeKind::Int);
        if (type == "number") return static_cast<std::uint8_t>(bit(NodeKind::Int) | bit(NodeKind::Float));
        return std::nullopt;
    }

    static std::optional<std::uint64_t> count_of(const SchemaJson& j) {
        if (j.is_number_unsigned()) return j.get<std::uint64_t>();
        return std::nullopt;
    }

    static bool is_class_char(char c) { return is_ascii_alnum(c); }

    // `^[a-f0-9]{64}$`, `^[a-fA-F0-9]{7,40}$`: the only pattern form read.
    static std::optional<Pattern> compile_pattern(std::string_view p) {
        if (!p.starts_with("^[") || !p.ends_with("}$")) return std::nullopt;
        const std::size_t close = p.find(']');
        const std::size_t brace = p.find('{');
        if (close == std::string_view::npos || brace != close + 1) return std::nullopt;
        Pattern out;
        const std::string_view set = p.substr(2, close - 2);
        for (std::size_t i = 0; i < set.size(); ++i) {
            const char first = set[i];
            char last = first;
            if (i + 2 < set.size() && set[i + 1] == '-') last = set[i += 2];
            if (!is_class_char(first) || !is_class_char(last) || first > last) return std::nullopt;
            for (int c = first; c <= last; ++c) out.in_class[static_cast<unsigned char>(c)] = true;
        }
        const std::string_view bounds = p.substr(brace + 1, p.size() - brace - 3);
        const std::size_t comma = bounds.find(',');
        const auto number = [](std::string_view digits, std::size_t& n) {
            if (digits.empty() || digits.size() > 6) return false;
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
            return ec == std::errc() && end == digits.data() + digits.size();
        };
        if (set.empty() || !number(bounds.substr(0, comma), out.min)) return std::nullopt;
        out.max = out.min;
        if (comma != std::string_view::npos && !number(bounds.substr(comma + 1), out.max)) return std::nullopt;
        if (out.min > out.max) return std::nullopt;
        return out;
    }

    static bool is_annotation(const std::string& key) {
        return key == "$schema" || key == "$id" || key == "title" || key == "description" || key == "$comment" ||
               key == "default" || key == "examples";
    }

    bool add_keyword(std::size_t at, const std::string& key, const SchemaJson& value);
    bool add_value_keyword(std::size_t at, const std::string& key, const SchemaJson& value);

    // Compiles `schema` into rules_ at a new index; false on anything unknown.
    bool add(const SchemaJson& schema) {
        if (!schema.is_object()) return false;
        const std::size_t at = rules_.size();
        rules_.emplace_back();
        for (const auto& [key, value] : schema.items()) {
            if (!is_annotation(key) && !add_keyword(at, key, value)) return false;
        }
        mark_required(rules_[at]);
        return true;
    }

    // Required names that have a property are counted as the members are
    // judged; only the others are looked up. A name required twice counts once.
    static void mark_required(Rule& r) {
        std::sort(r.required.begin(), r.required.end());
        r.required.erase(std::unique(r.required.begin(), r.required.end()), r.required.end());
        std::erase_if(r.required, [&](const std::string& name) {
            for (Property& p : r.properties) {
                if (p.name == name) return p.required = true, ++r.required_properties, true;
            }
            return false;
        });
    }

    static const Property* property_named(const Rule& r, std::string_view name) {
        for (const Property& p : r.properties) {
            if (p.name.size() == name.size() && (name.empty() || p.name[0] == name[0]) && p.name == name) return &p;
        }
        return nullptr;
    }

    bool add_child(const SchemaJson& schema, std::size_t& index) {
        index = rules_.size();
        return add(schema);
    }

    static Verdict both(Verdict a, Verdict b) {
        if (a == Verdict::Invalid || b == Verdict::Invalid) return Verdict::Invalid;
        return a == Verdict::Unsure || b == Verdict::Unsure ? Verdict::Unsure : Verdict::Valid;
    }
    static Verdict holds(bool ok) { return ok ? Verdict::Valid : Verdict::Invalid; }

    // valijson's u8_strlen, where it is sure to be the count of characters:
    // valid UTF-8 without NUL (it stops at a NUL).
    static std::optional<std::uint64_t> characters(std::string_view s) {
        if (std::memchr(s.data(), '\0', s.size()) != nullptr || !is_valid_utf8(s)) return std::nullopt;
        return static_cast<std::uint64_t>(
            std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    }

    static bool matches(const Pattern& p, std::string_view s) {
        if (s.size() < p.min || s.size() > p.max) return false;
        return std::all_of(s.begin(), s.end(), [&](char c) { return p.in_class[static_cast<unsigned char>(c)]; });
    }

    Verdict judge_string(const Rule& r, std::string_view s) const;
    Verdict judge_mapping(const Rule& r, NodeRef v) const;
    Verdict judge_sequence(const Rule& r, NodeRef v) const;
    Verdict judge_one_of(const Rule& r, NodeRef v) const;
    Verdict judge(std::size_t rule, NodeRef v) const;

    std::vector<Rule> rules_;
};

// Keywords about the value itself. rules_ may grow while children are
// added: index it, never keep a reference.
bool QuickSchema::add_value_keyword(std::size_t at, const std::string& key, const SchemaJson& value) {
    if (key == "type") {
        if (!value.is_string()) return false;
        const std::optional<std::uint8_t> kinds = kinds_of(value.get<std::string>());
        return kinds && (rules_[at].kinds = *kinds, true);
    }
    if (key == "additionalProperties") return value.is_boolean() && (rules_[at].closed = !value.get<bool>(), true);
    if (key == "minLength" || key == "minItems") {
        const std::optional<std::uint64_t> n = count_of(value);
        if (!n) return false;
        (key == "minLength" ? rules_[at].min_length : rules_[at].min_items) = n;
        return true;
    }
    if (key == "enum") {
        if (!value.is_array() || value.empty()) return false;
        std::vector<std::string> values;
        for (const auto& v : value) {
            if (!v.is_string()) return false;
            values.push_back(v.get<std::string>());
        }
        rules_[at].one_of_strings = std::move(values);
        return true;
    }
    if (key == "const") return value.is_string() && (rules_[at].constant = value.get<std::string>(), true);
    if (key == "pattern") {
        if (!value.is_string()) return false;
        std::optional<Pattern> pattern = compile_pattern(value.get<std::string>());
        return pattern && (rules_[at].pattern = std::move(pattern), true);
    }
    return false;
}

// Keywords about members, items and branches: each child schema is compiled too.
bool QuickSchema::add_keyword(std::size_t at, const std::string& key, const SchemaJson& value) {
    if (key == "required") {
        if (!value.is_array()) return false;
        for (const auto& name : value) {
            if (!name.is_string()) return false;
            rules_[at].required.push_back(name.get<std::string>());
        }
        return true;
    }
    if (key == "properties") {
        if (!value.is_object()) return false;
        for (const auto& [name, sub] : value.items()) {
            std::size_t child = 0;
            if (!add_child(sub, child)) return false;
            rules_[at].properties.push_back({name, child});
        }
        return true;
    }
    if (key == "oneOf" || key == "items") {
        const bool one_of = key == "oneOf";
        if (one_of ? !value.is_array() || value.empty() : !value.is_object()) return false;
        for (const auto& sub : one_of ? value : SchemaJson::array({value})) {
            std::size_t child = 0;
            if (!add_child(sub, child)) return false;
            if (one_of) rules_[at].one_of.push_back(child);
            else rules_[at].items = child;
        }
        return true;
    }
    return add_value_keyword(at, key, value);
}

// Each keyword applies to its own kind of value only (valijson's visitors
// return true for the others); enum and const compare strings strictly.
QuickSchema::Verdict QuickSchema::judge_string(const Rule& r, std::string_view s) const {
    if (r.one_of_strings && std::find(r.one_of_strings->begin(), r.one_of_strings->end(), s) == r.one_of_strings->end()) {
        return Verdict::Invalid;
    }
    if (r.constant && *r.constant != s) return Verdict::Invalid;
    if (r.pattern && !matches(*r.pattern, s)) return Verdict::Invalid;
    if (!r.min_length) return Verdict::Valid;
    const std::uint64_t n = *r.min_length;
    if (s.size() < n) return Verdict::Invalid;
    // n ASCII bytes other than NUL first: n characters to valijson too.
    if (std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n),
                    [](char c) { return c != '\0' && static_cast<unsigned char>(c) < 0x80; })) {
        return Verdict::Valid;
    }
    const std::optional<std::uint64_t> length = characters(s);
    if (!length) return Verdict::Unsure;
    return holds(*length >= n);
}

QuickSchema::Verdict QuickSchema::judge_mapping(const Rule& r, NodeRef v) const {
    Verdict out = Verdict::Valid;
    std::size_t required_seen = 0;
    const Document& doc = *v.document();
    const Document::Node& node = doc.node(v.index());
    for (std::uint32_t c = node.children.first; c < node.children.first + node.children.count; c += 2) {
        const Property* p = property_named(r, NodeRef(&doc, doc.child(c)).scalar_text());  // v.key(i)
        if (!p && r.closed) return Verdict::Invalid;
        if (!p) continue;
        required_seen += p->required ? 1 : 0;  // keys are unique (the loader refuses duplicates)
        out = both(out, judge(p->rule, NodeRef(&doc, doc.child(c + 1))));
        if (out == Verdict::Invalid) return out;
    }
    if (required_seen != r.required_properties) return Verdict::Invalid;
    for (const std::string& name : r.required) {
        if (!v.find(name).valid()) return Verdict::Invalid;
    }
    return out;
}

QuickSchema::Verdict QuickSchema::judge_sequence(const Rule& r, NodeRef v) const {
    if (r.min_items && v.size() < *r.min_items) return Verdict::Invalid;
    if (!r.items) return Verdict::Valid;
    // A progress log's entries: checked in chunks on all cores.
    constexpr std::size_t kChunk = 4096;
    const std::size_t chunks = (v.size() + kChunk - 1) / kChunk;
    std::vector<Verdict> verdicts(chunks, Verdict::Valid);
    const Document& doc = *v.document();
    const std::uint32_t first = doc.node(v.index()).children.first;
    const auto check = [&](std::size_t c) {
        for (std::size_t i = c * kChunk; i < std::min(v.size(), (c + 1) * kChunk) && verdicts[c] != Verdict::Invalid; ++i) {
            verdicts[c] = both(verdicts[c], judge(*r.items, NodeRef(&doc, doc.child(first + static_cast<std::uint32_t>(i)))));
        }
    };
    if (chunks > 1) run_parallel(chunks, check);
    else if (chunks == 1) check(0);
    Verdict out = Verdict::Valid;
    for (Verdict c : verdicts) out = both(out, c);
    return out;
}

QuickSchema::Verdict QuickSchema::judge_one_of(const Rule& r, NodeRef v) const {
    std::size_t valid = 0;
    bool unsure = false;
    for (std::size_t branch : r.one_of) {
        const Verdict b = judge(branch, v);
        valid += b == Verdict::Valid;
        unsure = unsure || b == Verdict::Unsure;
    }
    if (valid > 1) return Verdict::Invalid;
    return unsure ? Verdict::Unsure : holds(valid == 1);
}

QuickSchema::Verdict QuickSchema::judge(std::size_t rule, NodeRef v) const {
    const Rule& r = rules_[rule];
    if (r.kinds != 0 && (r.kinds & bit(v.kind())) == 0) return Verdict::Invalid;
    Verdict out = r.one_of.empty() ? Verdict::Valid : judge_one_of(r, v);
    if (out == Verdict::Invalid) return out;
    if (v.is_string()) return both(out, judge_string(r, v.as_string()));
    // enum and const of strings fail every other value.
    if (r.one_of_strings || r.constant) return Verdict::Invalid;
    if (v.is_mapping()) return both(out, judge_mapping(r, v));
    if (v.is_sequence()) return both(out, judge_sequence(r, v));
    return out;
}

}  // namespace fast_accept

namespace {

}  // namespace

struct SchemaSet::Impl {
    // A top-level array property whose items can be validated chunk by
    // chunk (its schema has no array-level constraints besides items).
    struct ChunkableArray {
        std::string property;
        SchemaJson items_source;
        valijson::Schema items;
    };
    struct Compiled {
        SchemaJson source;
        valijson::Schema schema;
        std::vector<std::unique_ptr<ChunkableArray>> arrays;
        std::unique_ptr<fast_accept::QuickSchema> quick;  // null: valijson alone
    };
    std::map<std::string, std::unique_ptr<Compiled>, std::less<>> schemas;
    // Embedded schemas compiled on first use (embedded_shared): a write
    // validates one or two artifacts, and compiling all five costs more.
    std::map<std::string, const char*, std::less<>> uncompiled;
    std::mutex compile_mutex;

    // The compiled schema of `artifact`; null when there is none or it does
    // not compile (`error` then says why).
    const Compiled* get(std::string_view artifact, std::string& error);
    // One validator for the small, whole-document validations, so each
    // pattern's regex is compiled once per process rather than per file.
    std::mutex shell_mutex;
    valijson::Validator shell_validator;
};

SchemaSet::SchemaSet() : impl_(std::make_unique<Impl>()) {}
SchemaSet::SchemaSet(SchemaSet&&) noexcept = default;
SchemaSet& SchemaSet::operator=(SchemaSet&&) noexcept = default;
SchemaSet::~SchemaSet() = default;

namespace {

constexpr std::size_t kChunkSize = 2048;

void populate(const SchemaJson& source, valijson::Schema& schema) {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(source);
    parser.populateSchema(adapter, schema);
}

bool contains_ref(const SchemaJson& j) {
    if (j.is_object()) {
        if (j.contains("$ref")) return true;
        return std::any_of(j.begin(), j.end(), [](const SchemaJson& v) { return contains_ref(v); });
    }
    if (j.is_array()) return std::any_of(j.begin(), j.end(), [](const SchemaJson& v) { return contains_ref(v); });
    return false;
}

// Only {type: array, items: {...}} plus annotations can be split safely.
bool chunkable(const SchemaJson& property_schema) {
    if (!property_schema.is_object() || property_schema.value("type", "") != "array") return false;
    if (!property_schema.contains("items") || !property_schema["items"].is_object()) return false;
    for (const auto& [key, value] : property_schema.items()) {
        if (key != "type" && key != "items" && key != "description" && key != "title" && key != "$comment") return false;
    }
    return !contains_ref(property_schema["items"]);
}

std::unique_ptr<SchemaSet::Impl::Compiled> compile_schema(const std::string& text) {
    auto compiled = std::make_unique<SchemaSet::Impl::Compiled>();
    compiled->source = SchemaJson::parse(text);
    strip_format_keywords(compiled->source);
    populate(compiled->source, compiled->schema);
    compiled->quick = fast_accept::QuickSchema::compile(compiled->source);
    if (compiled->source.contains("properties") && compiled->source["properties"].is_object()) {
        for (const auto& [name, property] : compiled->source["properties"].items()) {
            if (!chunkable(property)) continue;
            auto array = std::make_unique<SchemaSet::Impl::ChunkableArray>();
            array->property = name;
            array->items_source = property["items"];
            populate(array->items_source, array->items);
            compiled->arrays.push_back(std::move(array));
        }
    }
    return compiled;
}

// Validates `target`; collects explained violations. `prefix` is the
// pointer of the target within the document ("" for the root).
// `validator` caches compiled regexes: reuse one per thread.
template <typename Adapter>
void validate_value(valijson::Validator& validator, const valijson::Schema& schema, const Adapter& target,
                    const std::string& prefix, const SchemaJson& root_schema, NodeRef doc_root,
                    std::vector<SchemaViolation>& out) {
    // Fast path: no error collection (and no context strings) when valid.
    if (validator.validate(schema, target, nullptr)) return;
    valijson::ValidationResults results;
    validator.validate(schema, target, &results);
    valijson::ValidationResults::Error error;
    std::vector<Explained> all;
    while (results.popError(error)) {
        for (Explained& e : explain(error.description, prefix + context_to_pointer(error.context), root_schema, doc_root)) {
            all.push_back(std::move(e));
        }
    }
    // A failed oneOf speaks for its value: drop its branches' errors there and below.
    std::vector<std::string> one_of;
    for (const Explained& e : all) {
        if (e.one_of) one_of.push_back(e.pointer);
    }
    const auto under_one_of = [&](const Explained& e) {
        return !e.one_of && std::any_of(one_of.begin(), one_of.end(), [&](const std::string& p) {
                   return e.pointer == p || e.pointer.rfind(p + "/", 0) == 0;
               });
    };
    std::vector<std::string> seen;
    for (const Explained& e : all) {
        if (under_one_of(e)) continue;
        const std::string key = e.pointer + "\n" + e.message;
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        out.push_back({e.pointer, e.message, mark_for(doc_root, e.pointer)});
    }
}

// Large arrays are validated item by item, in chunks spread over the
// cores: the wall time of a 100k-entry log is divided.
void validate_chunks(const SchemaSet::Impl::ChunkableArray& array, NodeRef items, const SchemaJson& root_schema,
                     NodeRef doc_root, std::vector<SchemaViolation>& out) {
    const std::size_t chunks = (items.size() + kChunkSize - 1) / kChunkSize;
    std::vector<std::vector<SchemaViolation>> results(chunks);
    const std::string prefix = "/" + json_pointer_escape(array.property) + "/";
    run_parallel(chunks, [&](std::size_t c) {
        valijson::Validator validator;  // one a chunk: it keeps per-run state (a regex cache)
        const std::size_t begin = c * kChunkSize;
        const std::size_t end = std::min(items.size(), begin + kChunkSize);
        for (std::size_t i = begin; i < end; ++i) {
            validate_value(validator, array.items, schema_adapter::NodeAdapter(items.item(i)), prefix + std::to_string(i),
                           root_schema, doc_root, results[c]);
        }
    });
    for (auto& r : results) out.insert(out.end(), r.begin(), r.end());
}

}  // namespace

const SchemaSet::Impl::Compiled* SchemaSet::Impl::get(std::string_view artifact, std::string& error) {
    const std::lock_guard<std::mutex> lock(compile_mutex);
    if (const auto it = schemas.find(artifact); it != schemas.end()) return it->second.get();
    const auto pending = uncompiled.find(artifact);
    if (pending == uncompiled.end()) return nullptr;
    try {
        auto& slot = schemas[pending->first];
        slot = compile_schema(pending->second);
        uncompiled.erase(pending);
        return slot.get();
    } catch (const std::exception& e) {
        error = "embedded schema " + std::string(artifact) + " is broken: " + e.what();
        return nullptr;
    }
}

Result<SchemaSet> SchemaSet::embedded() {
    SchemaSet set;
    set.source_ = "embedded v1.0.0 schemas";
    for (const EmbeddedSchema& s : embedded_schemas()) {
        try {
            set.impl_->schemas[s.artifact] = compile_schema(s.json);
        } catch (const std::exception& e) {
            return Error::system(std::string("embedded schema ") + s.artifact + " is broken: " + e.what());
        }
    }
    return set;
}

Result<const SchemaSet*> SchemaSet::embedded_shared() {
    static const SchemaSet shared = [] {
        SchemaSet set;
        set.source_ = "embedded v1.0.0 schemas";
        for (const EmbeddedSchema& s : embedded_schemas()) set.impl_->uncompiled[s.artifact] = s.json;
        return set;
    }();
    return &shared;
}

namespace {

// Descriptions for editors, by artifact and field path ("tasks.status":
// a property of an item of `tasks`). Fields not listed keep none.
struct FieldHelp {
    const char* artifact;
    const char* path;
    const char* text;
};

constexpr FieldHelp kFieldHelp[] = {
    {"*", "small_version", "The SMALL protocol version: \"1.0.0\" (quoted: an unquoted 1.0.0 is a FMT-1 warning)."},
    {"intent", "owner", "Who owns the file: \"human\" (small writes it only on init and accept)."},
    {"intent", "intent", "What the work is for, in one sentence."},
    {"intent", "scope", "Which paths the work may touch (drift compares changed files with it)."},
    {"intent", "scope.include", "Globs of the paths in scope."},
    {"intent", "scope.exclude", "Globs of the paths out of scope."},
    {"intent", "success_criteria", "How to tell the work is done: one criterion per item."},
    {"constraints", "owner", "Who owns the file: \"human\"."},
    {"constraints", "constraints", "Rules the work must respect."},
    {"constraints", "constraints.id", "The rule's id, unique in this file."},
    {"constraints", "constraints.rule", "The rule, in words."},
    {"constraints", "constraints.severity", "\"error\" (must hold) or \"warn\" (should hold)."},
    {"plan", "owner", "Who owns the file: \"agent\" (small plan edits it)."},
    {"plan", "tasks", "The tasks, in order. Edit with small plan --add/--done/--step ...; tasks may carry more keys."},
    {"plan", "tasks.id", "The task's id (small plan --add makes task-<n>); unique in the plan (INV-P11)."},
    {"plan", "tasks.title", "What the task is, in a few words."},
    {"plan", "tasks.steps", "How to do it, one step per item (small plan --step ID:TEXT)."},
    {"plan", "tasks.acceptance", "How to tell it is done (small plan --acceptance ID:TEXT)."},
    {"plan", "tasks.status", "pending, in_progress, completed, blocked or cancelled (small plan --done ID ... sets it)."},
    {"plan", "tasks.depends_on", "Ids of the tasks that must be completed first (small plan --depends TASK:DEP)."},
    {"plan", "tasks.dependencies", "Read as an alias of depends_on."},
    {"plan", "tasks.priority", "An integer or P<integer> (P0 first): the order ready work is suggested in."},
    {"progress", "owner", "Who owns the file: \"agent\". Append-only: small progress add / checkpoint write it."},
    {"progress", "entries", "What was done, oldest first; existing entries are never edited."},
    {"progress", "entries.task_id", "A task id of the plan, or meta/... for bookkeeping."},
    {"progress", "entries.timestamp", "RFC 3339 with fractional seconds, after the previous entry's."},
    {"progress", "entries.replayId", "The run's replay id (64 hex digits)."},
    {"progress", "entries.status", "The task's status after this step."},
    {"progress", "entries.evidence", "What shows the step happened (one evidence field is required for completed)."},
    {"progress", "entries.verification", "How the result was verified (evidence)."},
    {"progress", "entries.command", "The command that was run (evidence)."},
    {"progress", "entries.command_summary", "The command, shortened for display."},
    {"progress", "entries.command_sha256", "SHA-256 of the full command."},
    {"progress", "entries.command_ref", "Where the full command is kept."},
    {"progress", "entries.test", "The test that was run (evidence)."},
    {"progress", "entries.link", "A URI to evidence (https)."},
    {"progress", "entries.commit", "A commit hash, 7-40 lower-case hex digits (evidence)."},
    {"progress", "entries.notes", "Free-form notes, e.g. why a task is blocked (not evidence)."},
    {"handoff", "owner", "Who owns the file: \"agent\" (small handoff writes it)."},
    {"handoff", "summary", "Where the work stands, in a sentence or two."},
    {"handoff", "resume", "How the next session resumes."},
    {"handoff", "resume.current_task_id", "The task to resume, or null when none is left."},
    {"handoff", "resume.next_steps", "The next steps, in order."},
    {"handoff", "links", "Links that help the next session."},
    {"handoff", "links.url", "The link (a URI)."},
    {"handoff", "links.description", "What it is."},
    {"handoff", "replayId", "The run this handoff belongs to."},
    {"handoff", "replayId.value", "The run's replay id (64 hex digits)."},
    {"handoff", "replayId.source", "\"auto\" (computed) or \"manual\" (--replay-id)."},
    {"handoff", "run", "How this run started."},
    {"handoff", "run.created_at", "When the run started."},
    {"handoff", "run.transition_reason", "Why a new run started: reset, archive, manual or self_heal."},
    {"handoff", "run.previous_replay_id", "The replay id of the run before."},
    {"handoff", "run.previous_run_ref", "Where the run before is kept."},
};

// The fields small reads in a plan task beyond the canonical four.
constexpr const char* kEditorPlanTaskFields = R"({
  "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "blocked", "cancelled"]},
  "depends_on": {"oneOf": [{"type": "array", "items": {"type": "string", "minLength": 1}}, {"type": "null"}]},
  "dependencies": {"oneOf": [{"type": "array", "items": {"type": "string", "minLength": 1}}, {"type": "null"}]},
  "priority": {}
})";

constexpr const char* kWorkspaceSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$id": "urn:small-cli:workspace.schema.json",
  "title": "SMALL workspace metadata, as small reads it",
  "description": "What kind of workspace this is and which run is current. Written by small init, start and reset.",
  "type": "object",
  "required": ["small_version", "kind"],
  "properties": {
    "small_version": {"type": "string", "const": "1.0.0", "description": "The SMALL protocol version: \"1.0.0\"."},
    "owner": {"type": "string", "description": "Who writes the file: small writes \"agent\"."},
    "kind": {"type": "string", "enum": ["repo-root", "examples"],
             "description": "repo-root: the repository's own workspace; examples: sample workspaces, checked with --workspace examples."},
    "created_at": {"type": "string", "description": "When the workspace was made, RFC 3339."},
    "updated_at": {"type": "string", "description": "When small last updated this file, RFC 3339."},
    "run": {"type": "object", "description": "The current run.",
            "properties": {"replay_id": {"type": "string", "pattern": "^[a-fA-F0-9]{64}$",
                                         "description": "The pinned replay id of the current run: 64 hex digits."}}}
  }
})";

void describe(nlohmann::ordered_json& schema, const std::string& artifact, const std::string& path) {
    if (!schema.is_object()) return;
    if (schema.contains("items")) describe(schema["items"], artifact, path);
    if (!schema.contains("properties") || !schema["properties"].is_object()) return;
    for (auto& [key, field] : schema["properties"].items()) {
        const std::string at = path.empty() ? key : path + "." + key;
        for (const FieldHelp& h : kFieldHelp) {
            if ((h.artifact == artifact || std::string_view(h.artifact) == "*") && h.path == at &&
                field.is_object() && !field.contains("description")) {
                field["description"] = h.text;
                break;
            }
        }
        describe(field, artifact, at);
    }
}

}  // namespace

std::vector<std::string> editor_schema_names() {
    return {"intent", "constraints", "plan", "progress", "handoff", "workspace"};
}

std::string editor_schema(std::string_view name) {
    nlohmann::ordered_json doc;  // the canonical schema's key order: "$schema" first
    if (name == "workspace") {
        doc = nlohmann::ordered_json::parse(kWorkspaceSchema);
    } else {
        const char* canonical = embedded_schema(name);
        if (canonical == nullptr) return "";
        doc = nlohmann::ordered_json::parse(canonical);
        if (name == "plan") {
            nlohmann::ordered_json& task = doc["properties"]["tasks"]["items"]["properties"];
            const nlohmann::ordered_json more = nlohmann::ordered_json::parse(kEditorPlanTaskFields);
            for (const auto& [key, field] : more.items()) task[key] = field;
        }
        describe(doc, std::string(name), "");
    }
    return doc.dump(2) + "\n";
}

Result<SchemaSet> SchemaSet::editor() {
    SchemaSet set;
    set.source_ = "editor schemas";
    for (const std::string& name : editor_schema_names()) {
        try {
            set.impl_->schemas[name] = compile_schema(editor_schema(name));
        } catch (const std::exception& e) {
            return Error::internal("editor schema " + name + " does not compile: " + e.what());
        }
    }
    return set;
}

Result<SchemaSet> SchemaSet::from_directory(const FileSystem& fs, const std::string& dir) {
    SchemaSet set;
    set.source_ = dir;
    for (const char* artifact : {"intent", "constraints", "plan", "progress", "handoff"}) {
        const std::string name = std::string(artifact) + ".schema.json";
        std::string path = dir + "/small/v1.0.0/schemas/" + name;
        if (!fs.file_exists(path)) path = dir + "/" + name;
        Result<std::string> text = fs.read_file(path);
        if (!text) return Error::system("schema not found at --spec-dir path: " + dir + "/small/v1.0.0/schemas/" + name);
        try {
            set.impl_->schemas[artifact] = compile_schema(*text);
        } catch (const std::exception& e) {
            return Error::system("cannot use schema " + path + ": " + e.what());
        }
    }
    return set;
}

std::vector<SchemaViolation> SchemaSet::validate(std::string_view artifact, const Document& doc) const {
    std::vector<SchemaViolation> out;
    std::string broken;
    const Impl::Compiled* found = impl_->get(artifact, broken);
    if (!broken.empty()) out.push_back({"", broken, doc.root().mark()});  // only a bad build
    if (!found) return out;
    const Impl::Compiled& compiled = *found;
    const NodeRef root = doc.root();
    if (compiled.quick && root.valid() && compiled.quick->certainly_valid(root)) return out;
    if (!root.is_mapping()) {
        const SchemaJson instance = root.valid() ? to_json(root) : SchemaJson::object();
        const std::lock_guard<std::mutex> lock(impl_->shell_mutex);
        validate_value(impl_->shell_validator, compiled.schema, valijson::adapters::NlohmannJsonAdapter(instance), "", compiled.source,
                       root, out);
        return out;
    }
    // The root without its large arrays (left empty), then the arrays in chunks.
    SchemaJson shell = SchemaJson::object();
    std::vector<std::pair<const Impl::ChunkableArray*, NodeRef>> chunked;
    for (std::size_t i = 0; i < root.size(); ++i) {
        const std::string key(root.key(i));
        const NodeRef value = root.value(i);
        const auto array = std::find_if(compiled.arrays.begin(), compiled.arrays.end(),
                                        [&](const auto& a) { return a->property == key; });
        if (array != compiled.arrays.end() && value.is_sequence() && value.size() >= kChunkSize) {
            shell[key] = SchemaJson::array();
            chunked.emplace_back(array->get(), value);
        } else {
            shell[key] = to_json(value);
        }
    }
    {
        const std::lock_guard<std::mutex> lock(impl_->shell_mutex);
        validate_value(impl_->shell_validator, compiled.schema, valijson::adapters::NlohmannJsonAdapter(shell), "",
                       compiled.source, root, out);
    }
    for (const auto& [array, items] : chunked) validate_chunks(*array, items, compiled.source, root, out);
    std::stable_sort(out.begin(), out.end(), [](const SchemaViolation& a, const SchemaViolation& b) {
        return std::tie(a.mark.line, a.mark.column) < std::tie(b.mark.line, b.mark.column);
    });
    return out;
}

bool SchemaSet::fast_accepts(std::string_view artifact, const Document& doc) const {
    std::string broken;
    const Impl::Compiled* compiled = impl_->get(artifact, broken);
    return compiled && compiled->quick && doc.root().valid() && compiled->quick->certainly_valid(doc.root());
}

const char* embedded_schema(std::string_view artifact) {
    for (const EmbeddedSchema& s : embedded_schemas()) {
        if (artifact == s.artifact) return s.json;
    }
    return nullptr;
}

}  // namespace small
