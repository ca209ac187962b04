#include "small/doc/document.hpp"

#include <charconv>

#include "small/base/text.hpp"

namespace small {

const char* kind_name(NodeKind kind) {
    switch (kind) {
        case NodeKind::Null: return "null";
        case NodeKind::Bool: return "boolean";
        case NodeKind::Int: return "integer";
        case NodeKind::Float: return "number";
        case NodeKind::String: return "string";
        case NodeKind::Sequence: return "list";
        case NodeKind::Mapping: return "mapping";
    }
    return "unknown";
}

bool NodeRef::as_bool() const { return is_bool() && doc_->node(index_).boolean; }

std::int64_t NodeRef::as_int() const {
    if (is_int()) return doc_->node(index_).integer;
    if (is_float()) {
        const double v = doc_->node(index_).real;
        // Out-of-range or NaN conversions are undefined behaviour; clamp.
        if (!(v > -9.2e18 && v < 9.2e18)) return 0;
        return static_cast<std::int64_t>(v);
    }
    return 0;
}

double NodeRef::as_double() const {
    if (is_float()) return doc_->node(index_).real;
    if (is_int()) return static_cast<double>(doc_->node(index_).integer);
    return 0.0;
}

void DocumentBuilder::set_source(std::string source, std::size_t expected_nodes) {
    doc_.source_ = std::move(source);
    doc_.nodes_.reserve(expected_nodes);
    doc_.child_index_.reserve(expected_nodes);
}

bool DocumentBuilder::in_source(std::string_view text) const {
    const char* begin = doc_.source_.data();
    return !text.empty() && text.data() >= begin && text.data() + text.size() <= begin + doc_.source_.size();
}

std::uint32_t DocumentBuilder::add_scalar(NodeKind kind, Mark m, std::string_view text) {
    Document::Node n;
    n.kind = kind;
    n.mark = m;
    if (text.size() >= (1u << 31) || doc_.text_.size() + text.size() > UINT32_MAX) {
        overflowed_ = true;  // offsets are 32-bit; the loader turns this into a content error
        text = {};
    }
    n.text_size = static_cast<std::uint32_t>(text.size());
    if (in_source(text)) {
        n.in_source = 1;
        n.text_offset = static_cast<std::uint32_t>(text.data() - doc_.source_.data());
    } else {
        n.text_offset = static_cast<std::uint32_t>(doc_.text_.size());
        doc_.text_.append(text);
    }
    doc_.nodes_.push_back(n);
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size() - 1);
    attach(index);
    return index;
}

std::uint32_t DocumentBuilder::add_null(Mark m, std::string_view text) {
    return add_scalar(NodeKind::Null, m, text);
}

std::uint32_t DocumentBuilder::add_bool(bool v, Mark m, std::string_view text) {
    const auto i = add_scalar(NodeKind::Bool, m, text);
    doc_.nodes_[i].boolean = v;
    return i;
}

std::uint32_t DocumentBuilder::add_int(std::int64_t v, Mark m, std::string_view text) {
    const auto i = add_scalar(NodeKind::Int, m, text);
    doc_.nodes_[i].integer = v;
    return i;
}

std::uint32_t DocumentBuilder::add_float(double v, Mark m, std::string_view text) {
    const auto i = add_scalar(NodeKind::Float, m, text);
    doc_.nodes_[i].real = v;
    return i;
}

std::uint32_t DocumentBuilder::add_string(std::string_view v, Mark m) {
    return add_scalar(NodeKind::String, m, v);
}

void DocumentBuilder::attach(std::uint32_t index) {
    if (!stack_.empty()) {
        pending_.push_back(index);
    } else if (!have_root_) {
        doc_.root_ = index;
        have_root_ = true;
    }
}

std::uint32_t DocumentBuilder::begin_sequence(Mark m) {
    Document::Node n;
    n.kind = NodeKind::Sequence;
    n.mark = m;
    doc_.nodes_.push_back(n);
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size() - 1);
    attach(index);
    stack_.push_back({index, pending_.size()});
    return index;
}

std::uint32_t DocumentBuilder::begin_mapping(Mark m) {
    const auto index = begin_sequence(m);
    doc_.nodes_[index].kind = NodeKind::Mapping;
    return index;
}

std::uint32_t DocumentBuilder::end() {
    const Open open = stack_.back();
    stack_.pop_back();
    auto& n = doc_.nodes_[open.node];
    n.children.first = static_cast<std::uint32_t>(doc_.child_index_.size());
    n.children.count = static_cast<std::uint32_t>(pending_.size() - open.pending_start);
    doc_.child_index_.insert(doc_.child_index_.end(),
                             pending_.begin() + static_cast<std::ptrdiff_t>(open.pending_start),
                             pending_.end());
    pending_.resize(open.pending_start);
    return open.node;
}

std::size_t DocumentBuilder::open_child_count() const {
    return stack_.empty() ? 0 : pending_.size() - stack_.back().pending_start;
}

std::uint32_t DocumentBuilder::open_child(std::size_t i) const {
    return pending_[stack_.back().pending_start + i];
}

std::vector<std::uint32_t> DocumentBuilder::node_children(std::uint32_t index) const {
    const auto& n = doc_.nodes_[index];
    if (n.kind != NodeKind::Sequence && n.kind != NodeKind::Mapping) return {};
    return {doc_.child_index_.begin() + n.children.first, doc_.child_index_.begin() + n.children.first + n.children.count};
}

void DocumentBuilder::replace_open_children(const std::vector<std::uint32_t>& children) {
    pending_.resize(stack_.back().pending_start);
    pending_.insert(pending_.end(), children.begin(), children.end());
}

Document DocumentBuilder::finish() {
    while (!stack_.empty()) end();
    Document out = std::move(doc_);
    doc_ = Document();
    have_root_ = false;
    return out;
}

std::string shown_value(NodeRef node) {
    if (!node.valid()) return "(missing)";
    if (node.is_string()) return quoted_excerpt(node.as_string());
    if (node.is_sequence()) return "a list";
    if (node.is_mapping()) return "a mapping";
    return node.scalar_text().empty() ? std::string("null") : excerpt(node.scalar_text());
}

std::string json_pointer_escape(std::string_view segment) {
    std::string out;
    out.reserve(segment.size());
    for (char c : segment) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

static std::string unescape_segment(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '~' && i + 1 < s.size() && (s[i + 1] == '0' || s[i + 1] == '1')) {
            out += s[i + 1] == '0' ? '~' : '/';
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

NodeRef resolve_pointer(NodeRef node, std::string_view pointer) {
    if (pointer.empty()) return node;
    if (pointer.front() != '/') return {};
    std::size_t pos = 1;
    while (node.valid()) {
        const std::size_t next = pointer.find('/', pos);
        const std::string segment =
            unescape_segment(pointer.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (node.is_mapping()) {
            node = node.find(segment);
        } else if (node.is_sequence()) {
            // RFC 6901: "0" or digits without a leading zero.
            if (segment.empty() || (segment.size() > 1 && segment[0] == '0')) return {};
            std::size_t i = 0;
            const auto [p, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), i);
            if (ec != std::errc() || p != segment.data() + segment.size()) return {};
            node = node.item(i);
        } else {
            return {};
        }
        if (next == std::string_view::npos) return node;
        pos = next + 1;
    }
    return {};
}

}  // namespace small

namespace small {

Document Document::splice(Document head, std::string source, std::uint32_t placeholder,
                          const std::vector<SplicePart>& parts, std::uint32_t head_shift_from, std::int64_t head_shift) {
    Document out = std::move(head);
    for (Node& n : out.nodes_) {
        if (n.in_source && n.text_offset >= head_shift_from) {
            n.text_offset = static_cast<std::uint32_t>(static_cast<std::int64_t>(n.text_offset) + head_shift);
        }
    }
    out.source_ = std::move(source);
    std::size_t total_nodes = out.nodes_.size(), total_children = out.child_index_.size();
    for (const SplicePart& part : parts) {
        total_nodes += part.doc->nodes_.size();
        total_children += 2 * part.doc->child_index_.size();  // items are listed twice
    }
    out.nodes_.reserve(total_nodes);
    out.child_index_.reserve(total_children);
    std::vector<std::uint32_t> items;
    Mark first_mark;
    for (const SplicePart& part : parts) {
        const auto node_base = static_cast<std::uint32_t>(out.nodes_.size());
        const auto child_base = static_cast<std::uint32_t>(out.child_index_.size());
        const auto text_base = static_cast<std::uint32_t>(out.text_.size());
        out.text_ += part.doc->text_;
        for (Node n : part.doc->nodes_) {
            n.mark.line += part.line_offset;
            if (n.in_source) n.text_offset += part.source_offset;
            else n.text_offset += text_base;
            if (n.kind == NodeKind::Sequence || n.kind == NodeKind::Mapping) n.children.first += child_base;
            out.nodes_.push_back(n);
        }
        for (std::uint32_t c : part.doc->child_index_) out.child_index_.push_back(c + node_base);
        const Node& root = part.doc->nodes_[part.doc->root_];
        if (items.empty()) first_mark = {root.mark.line + part.line_offset, root.mark.column};
        for (std::uint32_t i = 0; i < root.children.count; ++i) {
            items.push_back(part.doc->child_index_[root.children.first + i] + node_base);
        }
        *part.doc = Document();  // release the piece before copying the next
    }
    Node& seq = out.nodes_[placeholder];
    seq.kind = NodeKind::Sequence;
    seq.mark = first_mark;
    seq.text_size = 0;
    seq.in_source = 0;
    seq.children.first = static_cast<std::uint32_t>(out.child_index_.size());
    seq.children.count = static_cast<std::uint32_t>(items.size());
    out.child_index_.insert(out.child_index_.end(), items.begin(), items.end());
    return out;
}

}  // namespace small
