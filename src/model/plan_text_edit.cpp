// Applying a new plan to the old plan's bytes (see the header). The text is
// handled as lines: a task is the lines from its item's '-' line to the
// next item's (its leading comment lines go with the item they precede).
// Edits are collected as byte ranges of the old text and applied from the
// end, so earlier offsets stay valid.
#include "small/model/plan_text_edit.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

struct Replace {
    std::size_t offset, length;
    std::string text;
};

struct Refusal {
    std::string why;
    std::uint32_t line;
};

// The old text as lines, with the questions the edits ask of them.
class Lines {
public:
    explicit Lines(std::string_view src) : src_(src) {
        starts_.push_back(0);
        for (std::size_t i = 0; i < src.size(); ++i) {
            if (src[i] == '\n' && i + 1 < src.size()) starts_.push_back(i + 1);
        }
        crlf_ = uses_crlf(src);
    }
    std::size_t count() const { return starts_.size(); }
    std::size_t start(std::size_t line) const { return line < count() ? starts_[line] : src_.size(); }  // 0-based
    std::string_view text(std::size_t line) const {  // without its line break
        std::string_view t = src_.substr(start(line), start(line + 1) - start(line));
        while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
        return t;
    }
    std::size_t indent(std::size_t line) const {
        const std::string_view t = text(line);
        const std::size_t i = t.find_first_not_of(' ');
        return i == std::string_view::npos ? t.size() : i;
    }
    bool blank(std::size_t line) const { return text(line).find_first_not_of(" \t") == std::string_view::npos; }
    bool comment(std::size_t line) const {
        const std::string_view t = text(line);
        const std::size_t i = t.find_first_not_of(" \t");
        return i != std::string_view::npos && t[i] == '#';
    }
    bool filler(std::size_t line) const { return blank(line) || comment(line); }
    const char* newline() const { return crlf_ ? "\r\n" : "\n"; }
    bool ends_with_newline() const { return !src_.empty() && src_.back() == '\n'; }
    std::string_view source() const { return src_; }

private:
    std::string_view src_;
    std::vector<std::size_t> starts_;
    bool crlf_ = false;
};

char quote_at(std::string_view src, std::size_t offset) { return scalar_quote(src.substr(std::min(offset, src.size()))); }

bool is_scalar_value(const YamlValue& v) { return !v.is_object() && !v.is_array(); }

// The byte offset of 1-based column `column` (code points, as marks count)
// on `line`.
std::size_t column_offset(std::string_view line, std::uint32_t column) {
    std::size_t at = 0;
    for (std::uint32_t c = 1; c < column && at < line.size(); ++c) {
        ++at;
        while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) ++at;
    }
    return at;
}

// The bytes of the one-line scalar `node` in the text.
std::optional<SourceRange> scalar_range(const ScalarLocator& at, NodeRef node) {
    if (!node.valid() || node.is_mapping() || node.is_sequence()) return std::nullopt;
    const std::string_view written = node.is_string() ? node.as_string() : node.scalar_text();
    if (written.empty()) return std::nullopt;
    return at.find(node.mark(), written);
}

// A task as another text of the plan writes it (the merge's OTHER side):
// its value and its lines, leading comments included, line breaks as "\n".
struct DonorTask {
    YamlValue value;
    std::string lines;
};
struct DonorTasks {
    std::size_t dash_col = 0, key_col = 0;
    std::map<std::string, DonorTask> by_id;
};

class PlanPatcher {
public:
    PlanPatcher(const Document& old, const YamlValue& target, const DonorTasks* donor = nullptr)
        : doc_(old), target_(target), donor_(donor), lines_(old.source()), locate_(old.source()) {}

    std::optional<Refusal> run();
    DonorTasks tasks_as_written() const;  // after run() on the plan's own value
    std::optional<PlanTail> tail();       // instead of run()
    std::vector<TaskRegion> regions();    // instead of run()
    std::string result() const;
    std::uint32_t first_edited_line() const;  // 1-based line of the earliest edit (0: none)

private:
    std::optional<Refusal> check_top_level(NodeRef root);
    std::optional<Refusal> read_shape(std::map<std::string, std::size_t>* ids);
    std::optional<Refusal> edit_tasks(NodeRef tasks, const YamlValue& want);
    std::optional<Refusal> edit_task(std::size_t i, NodeRef task, const YamlValue& want);
    std::optional<Refusal> edit_field(NodeRef key, NodeRef value, const YamlValue& want);
    std::optional<Refusal> remove_field(std::size_t i, NodeRef task, std::size_t k);
    std::optional<Refusal> edit_list(NodeRef key, NodeRef seq, const YamlValue& want);
    std::optional<Refusal> empty_block_list(NodeRef key, NodeRef seq);
    std::optional<Refusal> edit_flow_list(NodeRef seq, const YamlValue& want, std::uint32_t line);
    std::string field_lines(const std::string& key, const YamlValue& value, std::size_t indent, NodeRef like) const;
    std::string task_lines(const YamlValue& task) const;
    void remove_tasks(const std::vector<bool>& kept);
    void append_tasks(const std::vector<const YamlValue*>& tasks);

    std::size_t item_line(std::size_t i) const { return items_[i].mark().line - 1; }
    bool leading_comment(std::size_t line) const;
    std::size_t comment_start(std::size_t i) const;
    std::size_t region_end(std::size_t i) const;   // first line after item i (next item's comments excluded)
    std::size_t content_end(std::size_t i) const;  // first line after item i's last non-filler line

    std::optional<std::string> donor_lines(const YamlValue& task) const;
    bool has_line(std::string_view trimmed_line) const;  // a line of the old text, trimmed

    const Document& doc_;
    const YamlValue& target_;
    const DonorTasks* donor_;
    mutable std::optional<std::set<std::string_view>> old_lines_;  // has_line's index of the old text
    Lines lines_;
    ScalarLocator locate_;
    std::vector<NodeRef> items_;
    std::size_t dash_col_ = 0, key_col_ = 0;
    std::vector<Replace> edits_;
};

// A comment line indented deeper than the items' '-' belongs to the task
// above it; one at the dash's column or left of it, directly above an item
// (no blank line between), to that item.
bool PlanPatcher::leading_comment(std::size_t line) const {
    return lines_.comment(line) && lines_.indent(line) <= dash_col_;
}

std::size_t PlanPatcher::comment_start(std::size_t i) const {
    std::size_t l = item_line(i);
    const std::size_t floor = i == 0 ? 0 : content_end(i - 1);
    while (l > floor && leading_comment(l - 1)) --l;
    return l;
}

std::size_t PlanPatcher::region_end(std::size_t i) const {
    if (i + 1 < items_.size()) return comment_start(i + 1);
    std::size_t l = item_line(i) + 1;
    while (l < lines_.count() && (lines_.filler(l) || lines_.indent(l) > dash_col_)) ++l;
    return l;
}

// After the task's last line of its own: its fields and the comments
// indented as them, not the blank lines and the next item's comments.
std::size_t PlanPatcher::content_end(std::size_t i) const {
    std::size_t end = i + 1 < items_.size() ? item_line(i + 1) : region_end(i);
    while (end > item_line(i) + 1 && (lines_.blank(end - 1) || leading_comment(end - 1))) --end;
    return end;
}

std::optional<Refusal> PlanPatcher::check_top_level(NodeRef root) {
    if (!root.is_mapping() || !target_.is_object()) return Refusal{"the plan is not a mapping", 1};
    std::set<std::string, std::less<>> seen;
    for (std::size_t i = 0; i < root.size(); ++i) {
        const std::string key(root.key(i));
        seen.insert(key);
        if (!target_.contains(key)) return Refusal{"the top-level field `" + key + "` is removed", root.key_node(i).mark().line};
        if (key == "tasks") continue;
        if (!same_yaml_data(to_yaml_value(root.value(i)), target_[key])) {
            return Refusal{"the top-level field `" + key + "` changes", root.key_node(i).mark().line};
        }
    }
    for (const auto& [key, value] : target_.items()) {
        if (!seen.count(key)) return Refusal{"a top-level field `" + key + "` is added", 0};
    }
    return std::nullopt;
}

std::optional<Refusal> PlanPatcher::run() {
    const NodeRef root = doc_.root();
    if (doc_.source().empty()) return Refusal{"the plan has no text to keep", 0};
    if (std::optional<Refusal> r = check_top_level(root)) return r;
    const NodeRef tasks = root.find("tasks");
    if (!tasks.valid() || !target_.contains("tasks")) return std::nullopt;  // unchanged, checked above
    return edit_tasks(tasks, target_["tasks"]);
}

// The old tasks' ids in order must be the new ones minus those removed,
// followed by the new ones.
// The items' shape, from the first: "<dash_col>-<spaces><key_col>key: ...",
// alike for every item, each a mapping with its own id (indexed in `ids`).
std::optional<Refusal> PlanPatcher::read_shape(std::map<std::string, std::size_t>* ids) {
    for (const NodeRef& t : items_) {
        if (!t.is_mapping() || t.size() == 0) return Refusal{"a task is not a mapping", t.mark().line};
    }
    const std::size_t first = item_line(0);
    const std::string_view text = lines_.text(first);
    dash_col_ = lines_.indent(first);
    key_col_ = items_[0].mark().column - 1;
    if (dash_col_ >= text.size() || text[dash_col_] != '-' || key_col_ <= dash_col_) {
        return Refusal{"the tasks are not a block list of mappings", items_[0].mark().line};
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
        const NodeRef id = items_[i].find("id");
        if (!id.is_string() || !ids->emplace(std::string(id.as_string()), i).second) {
            return Refusal{"a task has no id, or shares it", items_[i].mark().line};
        }
        if (lines_.indent(item_line(i)) != dash_col_ || items_[i].mark().column - 1 != key_col_) {
            return Refusal{"the tasks are not indented alike", items_[i].mark().line};
        }
    }
    return std::nullopt;
}

std::vector<TaskRegion> PlanPatcher::regions() {
    const NodeRef tasks = doc_.root().find("tasks");
    if (doc_.source().empty() || !tasks.is_sequence() || tasks.size() == 0) return {};
    for (std::size_t i = 0; i < tasks.size(); ++i) items_.push_back(tasks.item(i));
    std::map<std::string, std::size_t> ids;
    if (read_shape(&ids)) return {};
    std::vector<TaskRegion> out;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        out.push_back({std::string(items_[i].find("id").as_string()), lines_.start(comment_start(i)),
                       lines_.start(content_end(i))});
    }
    return out;
}

std::optional<PlanTail> PlanPatcher::tail() {
    const NodeRef tasks = doc_.root().find("tasks");
    if (doc_.source().empty() || !tasks.is_sequence() || tasks.size() < 2) return std::nullopt;
    for (std::size_t i = 0; i < tasks.size(); ++i) items_.push_back(tasks.item(i));
    std::map<std::string, std::size_t> ids;
    if (read_shape(&ids)) return std::nullopt;
    const std::size_t last = items_.size() - 1;
    return PlanTail{lines_.start(comment_start(last - 1)), lines_.start(content_end(last))};
}

std::optional<Refusal> PlanPatcher::edit_tasks(NodeRef tasks, const YamlValue& want) {
    const std::uint32_t line = tasks.mark().line;
    if (!tasks.is_sequence() || !want.is_array()) return Refusal{"`tasks` is not a list", line};
    for (std::size_t i = 0; i < tasks.size(); ++i) items_.push_back(tasks.item(i));
    if (items_.empty()) {
        if (want.empty()) return std::nullopt;
        return Refusal{"the plan had no task to take the style from", line};
    }
    std::map<std::string, std::size_t> old_at;
    if (std::optional<Refusal> r = read_shape(&old_at)) return r;
    std::vector<bool> kept(items_.size(), false);
    std::vector<const YamlValue*> added;
    std::size_t next_old = 0;
    for (const YamlValue& t : want) {
        const auto id = t.is_object() && t.contains("id") && t["id"].is_string() ? t["id"].get<std::string>() : "";
        const auto it = old_at.find(id);
        if (it == old_at.end()) {
            added.push_back(&t);
            continue;
        }
        if (!added.empty() || it->second < next_old) return Refusal{"the tasks are reordered", items_[it->second].mark().line};
        next_old = it->second + 1;
        kept[it->second] = true;
        if (std::optional<Refusal> r = edit_task(it->second, items_[it->second], t)) return r;
    }
    if (std::none_of(kept.begin(), kept.end(), [](bool k) { return k; })) return Refusal{"every task is replaced", line};
    remove_tasks(kept);
    if (!added.empty()) append_tasks(added);
    return std::nullopt;
}

std::optional<Refusal> PlanPatcher::edit_task(std::size_t i, NodeRef task, const YamlValue& want) {
    if (!want.is_object()) return Refusal{"a task becomes something else than a mapping", task.mark().line};
    std::set<std::string, std::less<>> old_keys;
    for (std::size_t k = 0; k < task.size(); ++k) {
        const std::string key(task.key(k));
        old_keys.insert(key);
        if (!want.contains(key)) {
            if (std::optional<Refusal> r = remove_field(i, task, k)) return r;
            continue;
        }
        if (std::optional<Refusal> r = edit_field(task.key_node(k), task.value(k), want[key])) return r;
    }
    std::string added;
    for (const auto& [key, value] : want.items()) {
        if (!old_keys.count(key)) added += field_lines(key, value, key_col_, task);
    }
    if (added.empty()) return std::nullopt;
    const std::size_t at = content_end(i);
    if (at >= lines_.count() && !lines_.ends_with_newline()) {
        edits_.push_back({lines_.source().size(), 0, lines_.newline() + added});
    } else {
        edits_.push_back({lines_.start(at), 0, std::move(added)});
    }
    return std::nullopt;
}

// A field's lines: from its key's line to the next key's (or the task's
// last line). Not the first field, which shares the item's '-' line.
std::optional<Refusal> PlanPatcher::remove_field(std::size_t i, NodeRef task, std::size_t k) {
    const std::size_t from = task.key_node(k).mark().line - 1;
    if (k == 0 || from == task.key_node(k - 1).mark().line - 1 || lines_.indent(from) != key_col_) {
        return Refusal{"the field `" + std::string(task.key(k)) + "` of a task is removed", task.key_node(k).mark().line};
    }
    std::size_t to = k + 1 < task.size() ? task.key_node(k + 1).mark().line - 1 : content_end(i);
    while (k + 1 < task.size() && to > from + 1 && lines_.comment(to - 1)) --to;  // the next field's comments stay
    edits_.push_back({lines_.start(from), lines_.start(to) - lines_.start(from), ""});
    return std::nullopt;
}

std::optional<Refusal> PlanPatcher::edit_field(NodeRef key, NodeRef value, const YamlValue& want) {
    const std::uint32_t line = key.mark().line;
    if (same_yaml_data(to_yaml_value(value), want)) return std::nullopt;
    if (is_scalar_value(want) && !value.is_mapping() && !value.is_sequence()) {
        const std::optional<SourceRange> at = scalar_range(locate_, value);
        if (!at) return Refusal{"the value is not a one-line scalar", line};
        edits_.push_back({at->offset, at->length, scalar_styled(want, quote_at(lines_.source(), at->offset))});
        return std::nullopt;
    }
    if (value.is_sequence() && want.is_array()) return edit_list(key, value, want);
    return Refusal{"a nested value changes", line};
}

// A list of one-line scalars: items appended or dropped, order kept.
std::optional<Refusal> PlanPatcher::edit_list(NodeRef key, NodeRef seq, const YamlValue& want) {
    const std::uint32_t line = key.mark().line;
    for (const YamlValue& v : want) {
        if (!is_scalar_value(v)) return Refusal{"a list gets an item that is not a scalar", line};
    }
    const std::string_view src = lines_.source();
    const Mark m = seq.mark();
    const std::size_t l = m.line - 1;
    const std::size_t col = l < lines_.count() ? column_offset(lines_.text(l), m.column) : 0;
    if (l < lines_.count() && col < lines_.text(l).size() && lines_.text(l)[col] == '[') return edit_flow_list(seq, want, line);
    if (seq.size() == 0) return Refusal{"an empty list is not written in flow style", line};
    if (want.empty()) return empty_block_list(key, seq);
    std::vector<SourceRange> at;
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const NodeRef item = seq.item(i);
        const std::optional<SourceRange> r = scalar_range(locate_, item);
        if (!r) return Refusal{"a list item is not a one-line scalar", item.mark().line};
        const std::size_t il = item.mark().line - 1;
        const std::string_view t = lines_.text(il);
        const std::size_t dash = lines_.indent(il);
        if (dash >= t.size() || t[dash] != '-' || (i > 0 && il == seq.item(i - 1).mark().line - 1)) {
            return Refusal{"a list item is not on a line of its own", item.mark().line};
        }
        at.push_back(*r);
    }
    // Kept items in order, the rest dropped; then appended ones.
    std::size_t next = 0;
    std::vector<bool> kept(seq.size(), false);
    std::size_t w = 0;
    for (; w < want.size(); ++w) {
        while (next < seq.size() && !same_yaml_data(to_yaml_value(seq.item(next)), want[w])) ++next;
        if (next == seq.size()) break;
        kept[next++] = true;
    }
    for (std::size_t i = 0; i < seq.size(); ++i) {
        if (kept[i]) continue;
        const std::size_t il = seq.item(i).mark().line - 1;
        edits_.push_back({lines_.start(il), lines_.start(il + 1) - lines_.start(il), ""});
    }
    if (w == want.size()) return std::nullopt;
    // Appended items take the last old item's shape ("    - ") and quoting.
    const std::size_t last_line = seq.item(seq.size() - 1).mark().line - 1;
    const std::string lead(lines_.text(last_line).substr(0, at.back().offset - lines_.start(last_line)));
    const char quote = quote_at(src, at.back().offset);
    std::string text;
    for (; w < want.size(); ++w) text += lead + scalar_styled(want[w], quote) + lines_.newline();
    std::size_t insert = lines_.start(last_line + 1);
    if (last_line + 1 >= lines_.count() && !lines_.ends_with_newline()) text = lines_.newline() + text, insert = src.size();
    edits_.push_back({insert, 0, std::move(text)});
    return std::nullopt;
}

// A block list emptied: its item lines go and the key says `[]` (a key
// with nothing after it would read as null).
std::optional<Refusal> PlanPatcher::empty_block_list(NodeRef key, NodeRef seq) {
    const std::uint32_t line = key.mark().line;
    const std::string_view src = lines_.source();
    const std::string_view name = key.as_string();
    const std::size_t at = lines_.start(line - 1) + column_offset(lines_.text(line - 1), key.mark().column);
    if (src.substr(at, name.size()) != name || at + name.size() >= src.size() || src[at + name.size()] != ':') {
        return Refusal{"the list's key is not written `key:`", line};
    }
    const std::optional<SourceRange> k = SourceRange{at, name.size()};
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const std::size_t il = seq.item(i).mark().line - 1;
        if (!scalar_range(locate_, seq.item(i)) || il + 1 == line) return Refusal{"a list item is not a one-line scalar", line};
        if (i > 0 && il == seq.item(i - 1).mark().line - 1) return Refusal{"list items share a line", line};
        edits_.push_back({lines_.start(il), lines_.start(il + 1) - lines_.start(il), ""});
    }
    edits_.push_back({k->offset + k->length + 1, 0, " []"});
    return std::nullopt;
}

// `[a, b]` on one line: rewritten whole, items quoted like its first.
std::optional<Refusal> PlanPatcher::edit_flow_list(NodeRef seq, const YamlValue& want, std::uint32_t line) {
    const std::size_t l = seq.mark().line - 1;
    const std::size_t open = lines_.start(l) + column_offset(lines_.text(l), seq.mark().column);
    const std::string_view t = lines_.source().substr(open, lines_.start(l) + lines_.text(l).size() - open);
    char in_quote = 0;
    std::size_t close = std::string_view::npos;
    for (std::size_t i = 1; i < t.size() && close == std::string_view::npos; ++i) {
        if (in_quote) {
            if (t[i] == in_quote) in_quote = 0;
            else if (t[i] == '\\' && in_quote == '"') ++i;
        } else if (t[i] == '"' || t[i] == '\'') {
            in_quote = t[i];
        } else if (t[i] == '[' || t[i] == '{') {
            return Refusal{"a flow list holds a collection", line};
        } else if (t[i] == ']') {
            close = i;
        }
    }
    if (close == std::string_view::npos) return Refusal{"a flow list spans lines", line};
    char quote = '"';
    if (seq.size() > 0) {
        const std::optional<SourceRange> first = scalar_range(locate_, seq.item(0));
        if (!first) return Refusal{"a flow list item is not a one-line scalar", line};
        quote = quote_at(lines_.source(), first->offset);
    }
    std::string text = "[";
    for (std::size_t i = 0; i < want.size(); ++i) text += (i ? ", " : "") + scalar_styled(want[i], quote);
    edits_.push_back({open, close + 1, text + "]"});
    return std::nullopt;
}

// "key: value" lines at `indent`, shaped like the task `like`'s fields:
// strings quoted as its title (else its id) is, lists flow or block as its
// first list is.
std::string PlanPatcher::field_lines(const std::string& key, const YamlValue& value, std::size_t indent,
                                     NodeRef like) const {
    const std::string nl = lines_.newline();
    const std::string pad(indent, ' ');
    char quote = '"';  // as the same field of `like` is quoted, else its title or id
    for (const std::string_view k : {std::string_view(key), std::string_view("title"), std::string_view("id")}) {
        const NodeRef same = like.find(k);
        if (!same.is_string()) continue;
        const std::optional<SourceRange> r = scalar_range(locate_, same);
        if (r) {
            quote = quote_at(lines_.source(), r->offset);
            break;
        }
    }
    if (is_scalar_value(value)) return pad + yaml_scalar(key) + ": " + scalar_styled(value, quote) + nl;
    const bool scalars = value.is_array() && std::all_of(value.begin(), value.end(), is_scalar_value);
    if (scalars) {
        bool flow = value.empty();
        for (std::size_t k = 0; k < like.size(); ++k) {
            const NodeRef v = like.value(k);
            if (!v.is_sequence()) continue;
            const std::string_view t = lines_.text(v.mark().line - 1);
            const std::size_t at = column_offset(t, v.mark().column);
            flow = at < t.size() && t[at] == '[';
            break;
        }
        if (flow) {
            std::string text = pad + yaml_scalar(key) + ": [";
            for (std::size_t i = 0; i < value.size(); ++i) text += (i ? ", " : "") + scalar_styled(value[i], quote);
            return text + "]" + nl;
        }
        std::string text = pad + yaml_scalar(key) + ":" + nl;
        for (const YamlValue& v : value) text += pad + "  - " + scalar_styled(v, quote) + nl;
        return text;
    }
    // Anything deeper: house style, shifted to the fields' indentation.
    YamlValue one = YamlValue::object();
    one[key] = value;
    if (indent < 2) return pad + yaml_scalar(key) + ": " + value.dump() + nl;  // JSON is YAML flow
    std::string text = emit_sequence_item(one, static_cast<int>(indent) - 2);
    text.replace(indent - 2, 1, " ");
    return nl == "\r\n" ? with_crlf(text) : text;
}

// A new task shaped like the last one: its dash and field columns, its
// quoting and list style.
std::string PlanPatcher::task_lines(const YamlValue& task) const {
    std::string text;
    bool first = true;
    for (const auto& [key, value] : task.items()) {
        std::string lines = field_lines(key, value, key_col_, items_.back());
        if (first) lines.replace(dash_col_, 1, "-");
        text += lines;
        first = false;
    }
    return text;
}

// The lines of the tasks not kept, as one deletion per run of them (two
// neighbours' ranges overlap at the blank line between them).
void PlanPatcher::remove_tasks(const std::vector<bool>& kept) {
    struct Run {
        std::size_t first_item, from, to;  // lines [from, to)
    };
    std::vector<Run> ranges;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (kept[i]) continue;
        const bool last = i + 1 == items_.size();
        const std::size_t from = comment_start(i), to = last ? content_end(i) : region_end(i);
        if (!ranges.empty() && from <= ranges.back().to) {
            ranges.back().to = std::max(ranges.back().to, to);
        } else {
            ranges.push_back({i, from, to});
        }
        // A run that ends the list takes the blank lines before it too.
        if (last && ranges.back().first_item > 0) {
            ranges.back().from = std::min(ranges.back().from, content_end(ranges.back().first_item - 1));
        }
    }
    for (const Run& r : ranges) edits_.push_back({lines_.start(r.from), lines_.start(r.to) - lines_.start(r.from), ""});
}

void PlanPatcher::append_tasks(const std::vector<const YamlValue*>& tasks) {
    const std::size_t last = items_.size() - 1;
    const std::size_t at = content_end(last);
    // Tasks separated by a blank line stay so.
    const bool spaced = last > 0 && lines_.blank(comment_start(last) - 1);
    std::string text;
    for (const YamlValue* t : tasks) {
        text += (spaced ? lines_.newline() : "") + donor_lines(*t).value_or(task_lines(*t));
    }
    if (at >= lines_.count() && !lines_.ends_with_newline()) {
        edits_.push_back({lines_.source().size(), 0, lines_.newline() + text});
        return;
    }
    edits_.push_back({lines_.start(at), 0, std::move(text)});
}

DonorTasks PlanPatcher::tasks_as_written() const {
    DonorTasks out{dash_col_, key_col_, {}};
    for (std::size_t i = 0; i < items_.size(); ++i) {
        const std::size_t from = lines_.start(comment_start(i)), to = lines_.start(content_end(i));
        std::string text(lines_.source().substr(from, to - from));
        std::erase(text, '\r');
        if (!text.empty() && text.back() != '\n') text += '\n';
        out.by_id[std::string(items_[i].find("id").as_string())] = {to_yaml_value(items_[i]), std::move(text)};
    }
    return out;
}

// A new task the donor holds with the same value and in the same columns:
// its own lines, comments and quoting kept.
std::optional<std::string> PlanPatcher::donor_lines(const YamlValue& task) const {
    if (!donor_ || donor_->dash_col != dash_col_ || donor_->key_col != key_col_) return std::nullopt;
    if (!task.is_object() || !task.contains("id") || !task["id"].is_string()) return std::nullopt;
    const auto it = donor_->by_id.find(task["id"].get<std::string>());
    if (it == donor_->by_id.end() || !same_yaml_data(it->second.value, task)) return std::nullopt;
    // Its comment lines this text already has stay where they are, not
    // doubled (a comment both sides had after their last task leads each
    // side's new one; one OTHER moved into it). A block scalar's `#` lines
    // are its text: kept.
    std::vector<std::string_view> lines;
    for (std::size_t from = 0; from < it->second.lines.size();) {
        const std::size_t end = it->second.lines.find('\n', from) + 1;
        lines.push_back(std::string_view(it->second.lines).substr(from, end - from));
        from = end;
    }
    const std::vector<bool> in_block = block_scalar_text(lines);
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view body = trim(lines[i]);
        if (!body.empty() && body.front() == '#' && !in_block[i] && has_line(body)) continue;
        text += lines[i];
    }
    return std::string(lines_.newline()) == "\r\n" ? with_crlf(text) : text;
}

bool PlanPatcher::has_line(std::string_view trimmed_line) const {
    if (!old_lines_) {  // built once: a donor may bring many comment lines
        old_lines_.emplace();
        for (std::size_t i = 0; i < lines_.count(); ++i) old_lines_->insert(trim(lines_.text(i)));
    }
    return old_lines_->count(trimmed_line) > 0;
}

std::string PlanPatcher::result() const {
    // From the end, so earlier offsets stay valid; of two insertions at one
    // offset the one made first ends up first (it is applied last).
    std::vector<std::size_t> order(edits_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return edits_[a].offset != edits_[b].offset ? edits_[a].offset > edits_[b].offset : a > b;
    });
    std::string text(lines_.source());
    for (std::size_t i : order) text.replace(edits_[i].offset, edits_[i].length, edits_[i].text);
    return text;
}

std::uint32_t PlanPatcher::first_edited_line() const {
    if (edits_.empty()) return 0;
    const Replace* first = &edits_.front();
    for (const Replace& r : edits_) first = r.offset < first->offset ? &r : first;
    std::size_t at = first->offset;
    // Lines inserted at a line's start belong after the line above them.
    if (first->length == 0 && at > 0 && lines_.source()[at - 1] == '\n') --at;
    const std::string_view src = lines_.source().substr(0, at);
    return static_cast<std::uint32_t>(std::count(src.begin(), src.end(), '\n') + 1);
}

}  // namespace

namespace {

// The tasks of `donor` as it writes them; none when its tasks are not a
// block list the patcher reads.
std::optional<DonorTasks> donor_tasks(const Document& donor) {
    const YamlValue value = to_yaml_value(donor.root());
    PlanPatcher reader(donor, value);
    if (reader.run()) return std::nullopt;
    return reader.tasks_as_written();
}

}  // namespace

std::vector<bool> block_scalar_text(const std::vector<std::string_view>& lines) {
    std::vector<bool> out(lines.size(), false);
    std::optional<std::size_t> open;  // the indentation of the line that opened one
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
        if (open && (trim(line).empty() || indent > *open)) {
            out[i] = true;
            continue;
        }
        open.reset();
        std::string_view value = trim(line);
        if (const std::size_t colon = value.find(": "); colon != std::string_view::npos) value = value.substr(colon + 2);
        else if (value.substr(0, 2) == "- ") value = value.substr(2);
        value = trim(value.substr(0, value.find(" #")));
        if (!value.empty() && (value[0] == '|' || value[0] == '>') &&
            value.find_first_not_of("+-0123456789", 1) == std::string_view::npos) {
            open = indent;
        }
    }
    return out;
}

std::vector<TaskRegion> plan_task_regions(const Document& plan) {
    const YamlValue unused;
    return PlanPatcher(plan, unused).regions();
}

std::optional<PlanTail> plan_tail(const Document& plan) {
    const YamlValue unused;
    return PlanPatcher(plan, unused).tail();
}

std::vector<std::pair<std::uint32_t, std::string>> yaml_comments(std::string_view text) {
    std::vector<std::pair<std::uint32_t, std::string>> out;
    std::uint32_t line = 1;
    for (std::size_t start = 0; start < text.size(); ++line) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(start, end - start);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        char quote = 0;
        for (std::size_t i = 0; i < l.size(); ++i) {
            const char c = l[i];
            if (quote == '"' && c == '\\') {
                ++i;
            } else if (quote && c == quote) {
                quote = 0;
            } else if (!quote && (c == '"' || c == '\'') && (i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t' ||
                                                             l[i - 1] == '[' || l[i - 1] == '{' || l[i - 1] == ',' ||
                                                             l[i - 1] == ':' || l[i - 1] == '-')) {
                quote = c;
            } else if (!quote && c == '#' && (i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t')) {
                std::string_view comment = l.substr(i);
                while (!comment.empty() && (comment.back() == ' ' || comment.back() == '\t')) comment.remove_suffix(1);
                out.emplace_back(line, std::string(comment));
                break;
            }
        }
        start = end + 1;
    }
    return out;
}

PlanTextEdit edit_plan_text(const Document& old, const YamlValue& target, const Document* donor) {
    const std::optional<DonorTasks> tasks = donor ? donor_tasks(*donor) : std::nullopt;
    PlanPatcher patcher(old, target, tasks ? &*tasks : nullptr);
    if (std::optional<Refusal> r = patcher.run()) return {std::nullopt, r->why, r->line, std::nullopt, {}};
    std::string text = patcher.result();
    Result<Document> again = parse_yaml(text, "plan");
    if (!again || !same_yaml_data(to_yaml_value(again->root()), target)) {
        return {std::nullopt, "the edited text would not read back as the new plan", patcher.first_edited_line(), std::nullopt,
                {}};
    }
    PlanTextEdit out{std::move(text), "", 0, std::move(*again), {}};
    std::multiset<std::string> now;
    for (auto& [line, c] : yaml_comments(*out.text)) now.insert(std::move(c));
    for (const auto& [line, c] : yaml_comments(old.source())) {
        const auto it = now.find(c);
        if (it != now.end()) now.erase(it);
        else out.dropped_comments.push_back(std::to_string(line) + ": " + c);
    }
    return out;
}

}  // namespace small
