// The in-memory document model: a parsed YAML file as a JSON-shaped tree
// (null, bool, int, float, string, sequence, mapping) in which every node
// remembers the line and column it came from.
//
// Nodes live in one arena per document (a few bytes each, strings in one
// text buffer) so that a 100k-entry progress log stays small and fast.
// Callers work with NodeRef, a cheap (document, index) handle.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace small {

enum class NodeKind : std::uint8_t { Null, Bool, Int, Float, String, Sequence, Mapping };

// "null", "boolean", "integer", "number", "string", "list", "mapping".
const char* kind_name(NodeKind kind);

struct Mark {
    std::uint32_t line = 0;    // 1-based; 0 = unknown
    std::uint32_t column = 0;  // 1-based; 0 = unknown
};

class Document;

// A document parsed separately from a slice of a larger source (see
// parse_yaml's parallel path): its lines and source offsets are shifted.
struct SplicePart {
    Document* doc;                // released by splice once copied
    std::uint32_t line_offset;    // lines of the source before the slice
    std::uint32_t source_offset;  // bytes of the source before the slice
};

class NodeRef {
public:
    NodeRef() = default;
    NodeRef(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}

    // An invalid ref stands for "absent" (e.g. find() of a missing key).
    bool valid() const { return doc_ != nullptr; }
    explicit operator bool() const { return valid(); }

    NodeKind kind() const;
    Mark mark() const;

    bool is_null() const { return valid() && kind() == NodeKind::Null; }
    bool is_bool() const { return valid() && kind() == NodeKind::Bool; }
    bool is_int() const { return valid() && kind() == NodeKind::Int; }
    bool is_float() const { return valid() && kind() == NodeKind::Float; }
    bool is_number() const { return is_int() || is_float(); }
    bool is_string() const { return valid() && kind() == NodeKind::String; }
    bool is_sequence() const { return valid() && kind() == NodeKind::Sequence; }
    bool is_mapping() const { return valid() && kind() == NodeKind::Mapping; }

    bool as_bool() const;
    std::int64_t as_int() const;
    double as_double() const;           // ints are converted
    std::string_view as_string() const; // empty unless a string
    // The text the scalar was written as (after YAML unescaping); for
    // non-scalars an empty view. Used for messages ("got: 1.0").
    std::string_view scalar_text() const;

    // Sequences: number of items; mappings: number of members.
    std::size_t size() const;
    NodeRef item(std::size_t i) const;          // sequence item
    std::string_view key(std::size_t i) const;  // mapping key i
    NodeRef key_node(std::size_t i) const;      // mapping key i as a node (for its mark)
    NodeRef value(std::size_t i) const;         // mapping value i
    NodeRef find(std::string_view key) const;   // mapping lookup; invalid if absent

    const Document* document() const { return doc_; }
    std::uint32_t index() const { return index_; }

private:
    const Document* doc_ = nullptr;
    std::uint32_t index_ = 0;
};

// One parsed file. Built by the YAML loader (or by tests through
// DocumentBuilder); immutable afterwards.
class Document {
public:
    struct Node {
        NodeKind kind;
        Mark mark;
        // Scalars: text_offset/text_size locate the (unescaped) text in the
        // text buffer. Containers: first/count locate the children in the
        // child index (mappings store key, value, key, value, ...).
        std::uint32_t text_offset = 0;
        std::uint32_t text_size : 31;
        std::uint32_t in_source : 1;  // text lives in the source bytes, not the text buffer
        union {
            bool boolean;
            std::int64_t integer;
            double real;
            struct {
                std::uint32_t first;
                std::uint32_t count;
            } children;
        };
        Node() : kind(NodeKind::Null), text_size(0), in_source(0), integer(0) {}
    };

    Document() = default;
    Document(Document&&) = default;
    Document& operator=(Document&&) = default;

    NodeRef root() const { return nodes_.empty() ? NodeRef() : NodeRef(this, root_); }
    bool empty() const { return nodes_.empty(); }

    const Node& node(std::uint32_t i) const { return nodes_[i]; }
    std::string_view text(const Node& n) const {
        return {(n.in_source ? source_.data() : text_.data()) + n.text_offset, n.text_size};
    }
    // The bytes the document was parsed from (empty for built documents).
    const std::string& source() const { return source_; }
    std::uint32_t child(std::uint32_t i) const { return child_index_[i]; }
    std::size_t node_count() const { return nodes_.size(); }

    // Joins a head document with separately parsed sequences: the head's
    // `placeholder` node becomes a sequence of the parts' root items. Head
    // source offsets at or after `head_shift_from` move by `head_shift`
    // (the head was parsed with the big block cut out of `source`).
    static Document splice(Document head, std::string source, std::uint32_t placeholder,
                           const std::vector<SplicePart>& parts, std::uint32_t head_shift_from, std::int64_t head_shift);

private:
    friend class DocumentBuilder;
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> child_index_;
    std::string text_;
    std::string source_;
    std::uint32_t root_ = 0;
};

// Builds a Document bottom-up in document order: scalars directly,
// containers by begin_*/end(). Mapping children are added as key, value.
class DocumentBuilder {
public:
    std::uint32_t add_null(Mark m, std::string_view text = "");
    std::uint32_t add_bool(bool v, Mark m, std::string_view text);
    std::uint32_t add_int(std::int64_t v, Mark m, std::string_view text);
    std::uint32_t add_float(double v, Mark m, std::string_view text);
    std::uint32_t add_string(std::string_view v, Mark m);
    // Keeps the source bytes; scalars whose text is a slice of them are
    // then stored as (offset, size) instead of being copied.
    void set_source(std::string source, std::size_t expected_nodes);
    const std::string& source() const { return doc_.source_; }
    std::uint32_t begin_sequence(Mark m);
    std::uint32_t begin_mapping(Mark m);
    // Adds an already built node again (a resolved YAML alias).
    void add_existing(std::uint32_t index) { attach(index); }
    // Closes the innermost open container; returns its node index.
    std::uint32_t end();
    // Number of children added so far to the innermost open container.
    std::size_t open_child_count() const;
    // Index of a child (in order) of the innermost open container.
    std::uint32_t open_child(std::size_t i) const;
    bool has_open_container() const { return !stack_.empty(); }
    // Read access to nodes built so far (the loader checks keys with it).
    std::string_view node_text(std::uint32_t index) const { return doc_.text(doc_.nodes_[index]); }
    Mark node_mark(std::uint32_t index) const { return doc_.nodes_[index].mark; }
    NodeKind node_kind(std::uint32_t index) const { return doc_.nodes_[index].kind; }
    // Children of a finished container (mappings: key, value, ...).
    std::vector<std::uint32_t> node_children(std::uint32_t index) const;
    // Replaces the children added so far to the innermost open container
    // (YAML merge keys rewrite a mapping's members).
    void replace_open_children(const std::vector<std::uint32_t>& children);
    // The first node added at top level becomes the root.
    Document finish();
    // True once a scalar did not fit the 32-bit text offsets (its text was
    // dropped); the document must then be rejected, not used.
    bool overflowed() const { return overflowed_; }

private:
    std::uint32_t add_scalar(NodeKind kind, Mark m, std::string_view text);
    bool in_source(std::string_view text) const;
    void attach(std::uint32_t index);

    Document doc_;
    struct Open {
        std::uint32_t node;
        std::size_t pending_start;  // where its children begin in pending_
    };
    std::vector<Open> stack_;
    bool overflowed_ = false;
    std::vector<std::uint32_t> pending_;
    bool have_root_ = false;
};

// Hot accessors, inline: validators call them millions of times.
inline NodeKind NodeRef::kind() const { return valid() ? doc_->node(index_).kind : NodeKind::Null; }
inline Mark NodeRef::mark() const { return valid() ? doc_->node(index_).mark : Mark{}; }

inline std::string_view NodeRef::as_string() const {
    return is_string() ? doc_->text(doc_->node(index_)) : std::string_view();
}

inline std::string_view NodeRef::scalar_text() const {
    if (!valid()) return {};
    const auto& n = doc_->node(index_);
    if (n.kind == NodeKind::Sequence || n.kind == NodeKind::Mapping) return {};
    return doc_->text(n);
}

inline std::size_t NodeRef::size() const {
    if (!valid()) return 0;
    const auto& n = doc_->node(index_);
    if (n.kind == NodeKind::Sequence) return n.children.count;
    if (n.kind == NodeKind::Mapping) return n.children.count / 2;
    return 0;
}

inline NodeRef NodeRef::item(std::size_t i) const {
    if (!is_sequence() || i >= size()) return {};
    return {doc_, doc_->child(doc_->node(index_).children.first + static_cast<std::uint32_t>(i))};
}

inline NodeRef NodeRef::key_node(std::size_t i) const {
    if (!is_mapping() || i >= size()) return {};
    return {doc_, doc_->child(doc_->node(index_).children.first + static_cast<std::uint32_t>(2 * i))};
}

inline std::string_view NodeRef::key(std::size_t i) const { return key_node(i).scalar_text(); }

inline NodeRef NodeRef::value(std::size_t i) const {
    if (!is_mapping() || i >= size()) return {};
    return {doc_, doc_->child(doc_->node(index_).children.first + static_cast<std::uint32_t>(2 * i + 1))};
}

// key(i) == k over the children directly: the lookup of every rule.
inline NodeRef NodeRef::find(std::string_view k) const {
    if (!is_mapping()) return {};
    const Document::Node& n = doc_->node(index_);
    for (std::uint32_t c = n.children.first; c < n.children.first + n.children.count; c += 2) {
        const Document::Node& key = doc_->node(doc_->child(c));
        const bool scalar = key.kind != NodeKind::Sequence && key.kind != NodeKind::Mapping;
        if ((scalar ? doc_->text(key) : std::string_view()) == k) return {doc_, doc_->child(c + 1)};
    }
    return {};
}

// A value as messages show it: strings quoted and cut (quoted_excerpt),
// lists and mappings by kind, other scalars as written (cut too);
// "(missing)" for an invalid ref.
std::string shown_value(NodeRef node);

// A JSON pointer (RFC 6901) built from path segments, e.g. /entries/3/status.
std::string json_pointer_escape(std::string_view segment);

// Follows a JSON pointer from `root`; invalid ref if it leads nowhere.
NodeRef resolve_pointer(NodeRef root, std::string_view pointer);

}  // namespace small
