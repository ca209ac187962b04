#include "small/store/artifact_merge.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "small/base/timestamp.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/doc/jcs.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/layout.hpp"
#include "small/model/workspace.hpp"
#include "small/store/progress_query.hpp"

namespace small {

namespace {

constexpr std::string_view kResolveHint =
    "resolve it by hand (edit the file so that both sides' changes are kept, then `small check --strict`), "
    "or take one side with `git checkout --ours|--theirs -- <file>`";

std::string where(const std::string& display, Mark m) {
    std::string out = display;
    if (m.line > 0) out += ":" + std::to_string(m.line) + ":" + std::to_string(m.column);
    return out;
}

// A side as a document; `label` (ancestor, current, other) goes into messages.
Result<Document> parse_side(std::string_view text, const std::string& display, std::string_view label) {
    Result<Document> doc = parse_yaml(std::string(text), display + " (" + std::string(label) + ")");
    if (!doc) return Error::invalid("cannot merge: " + doc.error().describe());
    if (doc->root().valid() && !doc->root().is_mapping()) {
        return Error::invalid("cannot merge: " + display + " (" + std::string(label) +
                              ") is not a YAML mapping at top level");
    }
    return doc;
}

// Schema and (non-strict) invariants of one artifact given as a value.
Status validate_value(ArtifactType type, const YamlValue& value, const std::string& label) {
    Result<Document> doc = parse_yaml(emit_document(value), label);
    if (!doc) return Error::internal("merged " + label + " does not re-read: " + doc.error().describe());
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return schemas.error();
    ArtifactSet set;
    set.artifacts[static_cast<std::size_t>(type)] = Artifact{type, label, label, std::move(*doc)};
    std::vector<Finding> findings = check_schemas(**schemas, set);
    const std::vector<Finding> more = check_invariants(set, InvariantOptions{});
    findings.insert(findings.end(), more.begin(), more.end());
    for (const Finding& f : findings) {
        if (f.severity == Severity::Error) {
            return Error::invalid("cannot merge " + label + ": the result would be invalid (" + f.rule + " at " +
                                  (f.pointer.empty() ? std::string("/") : f.pointer) + "): " + f.message);
        }
    }
    return ok_status();
}

// The top-level members other than `except`, as a value (for comparing headers).
YamlValue members_except(NodeRef root, std::string_view except) {
    YamlValue out = YamlValue::object();
    if (!root.valid()) return out;
    for (std::size_t i = 0; i < root.size(); ++i) {
        if (root.key(i) != except) out[std::string(root.key(i))] = to_yaml_value(root.value(i));
    }
    return out;
}

// ---- progress ----

struct NewEntry {
    Instant instant;
    std::string canonical;  // JCS bytes: identity and tie-break
    YamlValue value;
};

Result<NewEntry> new_entry(NodeRef node, const std::string& display, std::string_view label) {
    const std::string at = where(display + " (" + std::string(label) + ")", node.mark());
    if (!node.is_mapping()) return Error::invalid(at + ": a progress entry must be a mapping");
    const NodeRef ts = node.find("timestamp");
    if (!ts.is_string()) return Error::invalid(at + ": the entry has no timestamp string");
    Result<Instant> instant = parse_progress_timestamp(ts.as_string());
    if (!instant) return Error::invalid(at + ": " + instant.error().message);
    Result<std::string> canonical = canonical_json(node);
    if (!canonical) return Error::invalid(at + ": " + canonical.error().message);
    return NewEntry{*instant, std::move(*canonical), to_yaml_value(node)};
}

// The common header when there is no ancestor: both sides must agree on it.
Result<YamlValue> fresh_header(std::string_view current, std::string_view other, const std::string& display) {
    Result<Document> a = parse_side(current, display, "current");
    if (!a) return a.error();
    Result<Document> b = parse_side(other, display, "other");
    if (!b) return b.error();
    YamlValue ha = members_except(a->root(), "entries");
    if (ha != members_except(b->root(), "entries")) {
        return Error::invalid("cannot merge: " + display +
                              " was created on both sides with different top-level fields besides `entries`");
    }
    ha["entries"] = YamlValue::array();
    return ha;
}

// The ancestor's log as the merge needs it. A plain block log (the shape
// small writes) is read without parsing its entries: the header before
// `entries:`, the last item and the number of items come from a line scan,
// as in progress_query; anything else is parsed whole.
struct AncestorLog {
    std::string_view source;  // the caller's bytes
    std::string owned;        // a header made up when the file was added on both sides
    bool made_up = false;
    std::string_view text() const { return made_up ? std::string_view(owned) : source; }
    YamlValue header = YamlValue::object();  // the top-level members but `entries`
    std::optional<YamlValue> last;           // the last entry
    std::size_t count = 0;
    AppendPoint point;
    std::optional<Document> doc;  // the full parse, made only when needed
};

// Lines from `from`: the number of items at `indent` and where the last one
// starts; nothing when a line is neither an item, deeper content nor a comment.
std::optional<std::pair<std::size_t, std::size_t>> scan_items(std::string_view text, std::size_t from,
                                                              std::size_t indent) {
    std::size_t count = 0, last = std::string_view::npos;
    for (std::size_t pos = from; pos < text.size();) {
        const std::size_t eol = std::min(text.find('\n', pos), text.size());
        const std::string_view line = text.substr(pos, eol - pos);
        const std::size_t lead = line.find_first_not_of(' ');
        if (starts_item(line, indent)) {
            ++count;
            last = pos;
        } else if (lead != std::string_view::npos && lead <= indent && line[lead] != '#') {
            return std::nullopt;
        }
        pos = eol + 1;
    }
    if (count == 0) return std::nullopt;
    return std::pair{count, last};
}

bool fast_ancestor(AncestorLog& log, const std::string& display) {
    const std::string_view text = log.text();
    if (text.empty() || text.back() != '\n' || text.find('\r') != std::string_view::npos) return false;
    const std::optional<SequenceStart> seq = find_sequence(text, true);
    if (!seq) return false;
    const std::optional<std::pair<std::size_t, std::size_t>> items = scan_items(text, seq->offset, seq->indent);
    if (!items) return false;
    Result<Document> head = parse_yaml(std::string(text.substr(0, seq->offset)), display);
    if (!head || !head->root().is_mapping() || head->root().size() == 0) return false;
    const NodeRef root = head->root();
    if (root.key(root.size() - 1) != "entries" || !root.value(root.size() - 1).is_null()) return false;
    Result<Document> tail = parse_yaml(std::string(text.substr(items->second)), display);
    if (!tail || !tail->root().is_sequence() || tail->root().size() != 1) return false;
    log.header = members_except(root, "entries");
    log.last = to_yaml_value(tail->root().item(0));
    log.count = items->first;
    log.point = AppendPoint{text.size(), static_cast<int>(seq->indent), false, false, 0, false};
    return true;
}

Status parse_ancestor(AncestorLog& log, const std::string& display) {
    if (log.doc) return ok_status();
    Result<Document> doc = parse_side(log.text(), display, "ancestor");  // copies the bytes: slow path only
    if (!doc) return doc.error();
    log.doc = std::move(*doc);
    return ok_status();
}

Result<AncestorLog> read_ancestor(std::string_view ancestor, std::string_view current, std::string_view other,
                                  const std::string& display) {
    AncestorLog log;
    log.source = ancestor;
    if (fast_ancestor(log, display)) return log;
    if (Status s = parse_ancestor(log, display); !s) return s.error();
    if (!log.doc->root().valid()) {  // added on both sides: start from their common header
        Result<YamlValue> header = fresh_header(current, other, display);
        if (!header) return header.error();
        log.owned = emit_document(*header);
        log.made_up = true;
        log.doc.reset();
        if (Status s = parse_ancestor(log, display); !s) return s.error();
    }
    const NodeRef root = log.doc->root();
    Result<AppendPoint> point = progress_append_point(log.text(), *log.doc);
    if (!point)
        return Error::invalid("cannot merge: the common ancestor cannot be appended to: " + point.error().message);
    log.point = *point;
    log.header = members_except(root, "entries");
    const NodeRef entries = root.find("entries");
    log.count = entries.is_sequence() ? entries.size() : 0;
    if (log.count > 0) log.last = to_yaml_value(entries.item(log.count - 1));
    return log;
}

// The entries a side appended after the ancestor's. Fast path: the side's
// bytes start with the ancestor's, so only the appended bytes are parsed
// (a 100k-entry log is not parsed three times).
Result<std::vector<NewEntry>> side_entries(AncestorLog& base, std::string_view side, const std::string& display,
                                           std::string_view label) {
    std::vector<NewEntry> out;
    const std::string_view ancestor = base.text();
    if (base.count > 0 && ancestor.back() == '\n' && side.starts_with(ancestor)) {
        Result<Document> tail = parse_yaml(std::string(side.substr(ancestor.size())), display);
        if (tail && (!tail->root().valid() || tail->root().is_sequence())) {
            const NodeRef items = tail->root();
            for (std::size_t i = 0; items.valid() && i < items.size(); ++i) {
                Result<NewEntry> e = new_entry(items.item(i), display, label);
                if (!e) return e.error();
                out.push_back(std::move(*e));
            }
            return out;
        }
    }
    if (Status s = parse_ancestor(base, display); !s) return s.error();
    Result<Document> doc = parse_side(side, display, label);
    if (!doc) return doc.error();
    const NodeRef root = doc->root();
    const std::string side_label = display + " (" + std::string(label) + ")";
    if (!root.valid()) return Error::invalid("cannot merge: " + side_label + " is empty");
    if (members_except(root, "entries") != base.header) {
        return Error::invalid("cannot merge: " + side_label +
                              " changed a top-level field besides `entries`; the log's header must stay as it was");
    }
    const NodeRef entries = root.find("entries");
    const NodeRef base_entries = base.doc->root().find("entries");
    if (!entries.is_sequence()) return Error::invalid("cannot merge: " + side_label + " has no `entries` list");
    const std::size_t n = base.count;
    if (entries.size() < n) {
        return Error::invalid("cannot merge: " + side_label + " has fewer entries than the common ancestor (" +
                              std::to_string(entries.size()) + " < " + std::to_string(n) +
                              "); the progress log is append-only");
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Result<std::string> mine = canonical_json(entries.item(i));
        const Result<std::string> theirs = canonical_json(base_entries.item(i));
        if (!mine || !theirs || *mine != *theirs) {
            return Error::invalid("cannot merge: " + where(side_label, entries.item(i).mark()) + ": entry " +
                                  std::to_string(i + 1) +
                                  " differs from the common ancestor's; the progress log is append-only");
        }
    }
    for (std::size_t i = n; i < entries.size(); ++i) {
        Result<NewEntry> e = new_entry(entries.item(i), display, label);
        if (!e) return e.error();
        out.push_back(std::move(*e));
    }
    return out;
}

}  // namespace

MergeKind merge_kind_for(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (name == "progress.small.yml") return MergeKind::Progress;
    if (name == "plan.small.yml") return MergeKind::Plan;
    if (name == "handoff.small.yml") return MergeKind::Handoff;
    return MergeKind::Whole;
}

Result<MergeOutcome> merge_progress_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                                          const std::string& display) {
    Result<AncestorLog> base = read_ancestor(ancestor, current, other, display);
    if (!base) return base.error();
    Result<std::vector<NewEntry>> mine = side_entries(*base, current, display, "current");
    if (!mine) return mine.error();
    Result<std::vector<NewEntry>> theirs = side_entries(*base, other, display, "other");
    if (!theirs) return theirs.error();

    MergeOutcome out;
    std::vector<NewEntry> all = std::move(*mine);
    all.insert(all.end(), std::make_move_iterator(theirs->begin()), std::make_move_iterator(theirs->end()));
    std::sort(all.begin(), all.end(), [](const NewEntry& x, const NewEntry& y) {
        return x.instant != y.instant ? x.instant < y.instant : x.canonical < y.canonical;
    });
    const std::size_t before = all.size();
    all.erase(std::unique(all.begin(), all.end(),
                          [](const NewEntry& x, const NewEntry& y) { return x.canonical == y.canonical; }),
              all.end());
    out.duplicate_entries = before - all.size();

    out.ancestor_entries = base->count;
    std::optional<Instant> last;
    YamlValue check = base->header;
    check["entries"] = YamlValue::array();
    if (base->last) {
        const YamlValue& tail = *base->last;
        const std::string ts =
            tail.contains("timestamp") && tail["timestamp"].is_string() ? tail["timestamp"].get<std::string>() : "";
        Result<Instant> t = parse_progress_timestamp(ts);
        if (!t)
            return Error::invalid("cannot merge: " + display +
                                  " (ancestor): the last entry's timestamp: " + t.error().message);
        last = *t;
        check["entries"].push_back(tail);
    }
    std::string items;
    for (NewEntry& e : all) {
        if (last && e.instant <= *last) {
            const std::string was = e.value["timestamp"].get<std::string>();
            e.instant = plus_one_ns(*last);
            e.value["timestamp"] = format_timestamp_utc9(e.instant);
            out.notes.push_back("timestamp " + was + " moved to " + e.value["timestamp"].get<std::string>() +
                                " to keep the log strictly increasing");
            ++out.bumped_timestamps;
        }
        last = e.instant;
        items += emit_sequence_item(e.value, base->point.indent);
        check["entries"].push_back(e.value);
    }
    out.added_entries = all.size();
    if (Status s = validate_value(ArtifactType::Progress, check, display); !s) return s.error();
    const std::string_view text = base->text();
    if (all.empty()) {
        out.text = std::string(text);
        return out;
    }
    const AppendEdit edit = append_edit(base->point, items, text);
    out.text.reserve(text.size() + edit.text.size());
    out.text.append(text.substr(0, edit.offset)).append(edit.text).append(text.substr(edit.offset + edit.erase));
    return out;
}

// ---- plan ----

namespace {

int status_rank(const YamlValue& v) {
    if (!v.is_string()) return -1;
    static const std::map<std::string, int, std::less<>> ranks = {
        {"pending", 0}, {"in_progress", 1}, {"blocked", 2}, {"cancelled", 3}, {"completed", 4}};
    const auto it = ranks.find(v.get<std::string>());
    return it == ranks.end() ? -1 : it->second;
}

// One member present or absent on each side.
using Slot = std::optional<YamlValue>;

Slot slot(const YamlValue& obj, const std::string& key) {
    if (!obj.is_object() || !obj.contains(key)) return std::nullopt;
    return obj.at(key);
}

// Three-way choice for one value; nothing when it conflicts.
std::optional<Slot> choose(const Slot& o, const Slot& a, const Slot& b, bool is_status) {
    if (a == b) return a;
    if (a == o) return b;
    if (b == o) return a;
    if (is_status && a && b && status_rank(*a) >= 0 && status_rank(*b) >= 0) {
        return status_rank(*a) >= status_rank(*b) ? a : b;
    }
    return std::nullopt;
}

// Keys of the three objects: the ancestor's order, then CURRENT's new ones, then OTHER's.
std::vector<std::string> key_union(const YamlValue& o, const YamlValue& a, const YamlValue& b) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const YamlValue* v : {&o, &a, &b}) {
        if (!v->is_object()) continue;
        for (const auto& [k, ignored] : v->items()) {
            if (seen.insert(k).second) keys.push_back(k);
        }
    }
    return keys;
}

// Field-by-field merge of two objects (a task, or the top level without tasks).
YamlValue merge_object(const YamlValue& o, const YamlValue& a, const YamlValue& b, const std::string& id,
                       std::vector<MergeConflict>& conflicts) {
    YamlValue out = YamlValue::object();
    for (const std::string& key : key_union(o, a, b)) {
        const Slot sa = slot(a, key), sb = slot(b, key);
        const std::optional<Slot> pick = choose(slot(o, key), sa, sb, key == "status");
        if (!pick) {
            conflicts.push_back(
                {id, key,
                 (id.empty() ? "top-level field `" + key + "`" : "task " + id + " field `" + key + "`") +
                     " changed differently on both sides: current " + (sa ? sa->dump() : "(removed)") + ", other " +
                     (sb ? sb->dump() : "(removed)"),
                 id.empty() ? std::string(kResolveHint)
                            : "keep one value: after resolving, `small plan --task " + id +
                                  " ...` or edit the task, then `small check --strict`"});
            continue;
        }
        if (*pick) out[key] = **pick;
    }
    return out;
}

struct TaskList {
    std::vector<std::string> order;
    std::map<std::string, YamlValue> by_id;
};

Result<TaskList> tasks_of(const YamlValue& plan, const std::string& label) {
    TaskList out;
    if (!plan.is_object() || !plan.contains("tasks")) return out;
    const YamlValue& tasks = plan.at("tasks");
    if (!tasks.is_array()) return Error::invalid("cannot merge: " + label + ": `tasks` is not a list");
    for (const YamlValue& t : tasks) {
        if (!t.is_object() || !t.contains("id") || !t.at("id").is_string()) {
            return Error::invalid("cannot merge: " + label + ": a task without a string `id`");
        }
        const std::string id = t.at("id").get<std::string>();
        if (!out.by_id.emplace(id, t).second)
            return Error::invalid("cannot merge: " + label + ": task id " + id + " appears twice");
        out.order.push_back(id);
    }
    return out;
}

Result<YamlValue> plan_value(std::string_view text, const std::string& display, std::string_view label) {
    Result<Document> doc = parse_side(text, display, label);
    if (!doc) return doc.error();
    if (!doc->root().valid()) return YamlValue::object();
    return to_yaml_value(doc->root());
}

}  // namespace

Result<MergeOutcome> merge_plan_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                                      const std::string& display) {
    Result<YamlValue> o = plan_value(ancestor, display, "ancestor");
    if (!o) return o.error();
    Result<YamlValue> a = plan_value(current, display, "current");
    if (!a) return a.error();
    Result<YamlValue> b = plan_value(other, display, "other");
    if (!b) return b.error();
    Result<TaskList> to = tasks_of(*o, display + " (ancestor)");
    if (!to) return to.error();
    Result<TaskList> ta = tasks_of(*a, display + " (current)");
    if (!ta) return ta.error();
    Result<TaskList> tb = tasks_of(*b, display + " (other)");
    if (!tb) return tb.error();

    MergeOutcome out;
    YamlValue head_o = *o, head_a = *a, head_b = *b;
    for (YamlValue* h : {&head_o, &head_a, &head_b}) {
        if (h->is_object()) h->erase("tasks");
    }
    YamlValue merged = merge_object(head_o, head_a, head_b, "", out.conflicts);

    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (const TaskList* t : {&*to, &*ta, &*tb}) {
        for (const std::string& id : t->order) {
            if (seen.insert(id).second) ids.push_back(id);
        }
    }
    YamlValue tasks = YamlValue::array();
    for (const std::string& id : ids) {
        const auto get = [&](const TaskList& t) -> Slot {
            const auto it = t.by_id.find(id);
            return it == t.by_id.end() ? Slot() : Slot(it->second);
        };
        const Slot so = get(*to), sa = get(*ta), sb = get(*tb);
        if (!so && sa && sb && *sa != *sb) {
            out.conflicts.push_back(
                {id, "",
                 "task id " + id + " was added on both sides with different content (current: " +
                     sa->value("title", YamlValue()).dump() + ", other: " + sb->value("title", YamlValue()).dump() +
                     ")",
                 "keep both tasks under different ids: take CURRENT's plan (`git checkout --ours -- "
                 ".small/plan.small.yml`), add OTHER's task again with `small plan --add \"<its title>\"` (it gets "
                 "the next free id), then `git add .small/plan.small.yml`; OTHER's progress entries still name " +
                     id + ": add a progress entry for the new id that says so"});
            continue;
        }
        if (so && (!sa || !sb)) {  // removed on one side
            const Slot& kept = sa ? sa : sb;
            if (kept && *kept != *so) {
                out.conflicts.push_back({id, "", "task " + id + " was removed on one side and changed on the other",
                                         std::string(kResolveHint)});
            }
            continue;
        }
        if (!so) {
            tasks.push_back(sa ? *sa : *sb);
            continue;
        }
        tasks.push_back(merge_object(*so, *sa, *sb, id, out.conflicts));
    }
    if (!out.conflicts.empty()) return out;
    // `tasks` keeps its place among the top-level keys.
    YamlValue result = YamlValue::object();
    bool placed = false;
    for (const std::string& key : key_union(*o, *a, *b)) {
        if (key == "tasks") {
            result["tasks"] = tasks;
            placed = true;
        } else if (merged.contains(key)) {
            result[key] = merged[key];
        }
    }
    if (!placed && !tasks.empty()) result["tasks"] = tasks;
    if (Status s = validate_value(ArtifactType::Plan, result, display); !s) return s.error();
    out.text = emit_document(result);
    return out;
}

MergeOutcome merge_whole_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                               bool handoff_keeps_current, const std::string& display) {
    MergeOutcome out;
    if (current == other || other == ancestor) {
        out.text = current;
    } else if (current == ancestor) {
        out.text = other;
    } else if (handoff_keeps_current) {
        out.text = current;
        out.notes.push_back(display +
                            " changed on both sides: CURRENT's is kept; run `small handoff` after the "
                            "merge to regenerate it from the merged plan and progress");
    } else {
        out.conflicts.push_back({"", "", display + " changed differently on both sides", std::string(kResolveHint)});
    }
    return out;
}

}  // namespace small
