#include "small/domain/artifact_merge.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/doc/jcs.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_edit.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/layout.hpp"
#include "small/model/plan_text_edit.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_query.hpp"

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
    Mark mark;              // in the whole file (slow path only)
    bool existing = false;  // the ancestor has it too
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
    return NewEntry{*instant, std::move(*canonical), to_yaml_value(node), node.mark(), false};
}

// The common header when there is no ancestor: both sides must agree on it.
Result<YamlValue> fresh_header(std::string_view current, std::string_view other, const std::string& display) {
    Result<Document> a = parse_side(current, display, "current");
    if (!a) return a.error();
    Result<Document> b = parse_side(other, display, "other");
    if (!b) return b.error();
    YamlValue ha = members_except(a->root(), "entries");
    if (!same_yaml_data(ha, members_except(b->root(), "entries"))) {
        return Error::invalid("cannot merge: " + display +
                              " was created on both sides with different top-level fields besides `entries`");
    }
    ha["entries"] = YamlValue::array();
    return ha;
}

// The three logs cut where they stop agreeing: `prefix` holds the leading
// entries all three share (kept as bytes), and each side's entries after it
// are parsed. In the usual case the prefix is the ancestor itself; after a
// merge that interleaved entries by time it is shorter, so a later merge
// whose ancestor is one of that merge's parents still finds its entries.
struct LogSplit {
    std::string prefix;                      // the bytes kept as they are
    AppendPoint point;                       // where entries go after them
    bool rewrite = false;                    // no usable prefix bytes: write the whole log
    YamlValue header = YamlValue::object();  // the top-level members but `entries`
    std::vector<YamlValue> prefix_entries;   // only when `rewrite`
    std::optional<YamlValue> last;           // the prefix's last entry
    std::size_t ancestor_count = 0;
    std::vector<NewEntry> o, a, b;  // each version's entries after the prefix
};

// Item start offsets of the block sequence from `from` (all items at
// `indent`); nullopt when a line at `indent` or less is neither an item nor
// a comment, or when the first content line is not an item (it would
// continue the entry before `from`).
std::optional<std::vector<std::size_t>> item_starts(std::string_view text, std::size_t from, std::size_t indent) {
    std::vector<std::size_t> starts;
    for (std::size_t pos = from; pos < text.size();) {
        const std::size_t eol = std::min(text.find('\n', pos), text.size());
        const std::string_view line = text.substr(pos, eol - pos);
        const std::size_t lead = line.find_first_not_of(' ');
        if (starts_item(line, indent)) {
            starts.push_back(pos);
        } else if (lead != std::string_view::npos && line[lead] != '#' && (lead <= indent || starts.empty())) {
            return std::nullopt;
        }
        pos = eol + 1;
    }
    return starts;
}

// The entries of `tail` (items only, as item_starts checked); nullopt when
// they do not parse or one is not a usable entry (the slow path then reports
// it with its position in the whole file).
std::optional<std::vector<NewEntry>> tail_entries(std::string_view tail, const std::string& display,
                                                  std::string_view label) {
    std::vector<NewEntry> out;
    if (tail.find_first_not_of(" \n") == std::string_view::npos) return out;
    Result<Document> doc = parse_yaml(std::string(tail), display);
    if (!doc) return std::nullopt;
    const NodeRef items = doc->root();
    if (items.valid() && !items.is_sequence()) return std::nullopt;
    for (std::size_t i = 0; items.valid() && i < items.size(); ++i) {
        Result<NewEntry> e = new_entry(items.item(i), display, label);
        if (!e) return std::nullopt;
        out.push_back(std::move(*e));
    }
    return out;
}

std::size_t common_prefix(std::string_view x, std::string_view y) {
    const std::size_t n = std::min(x.size(), y.size());
    return static_cast<std::size_t>(std::mismatch(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), y.begin()).first -
                                    x.begin());
}

// Fast path, for plain block logs (the shape small writes): the prefix is
// found by comparing bytes and cut back to an entry boundary of the
// ancestor; only the entries after it are parsed (a 100k-entry log is not
// parsed three times). nullopt sends the merge to the slow path.
std::optional<LogSplit> fast_split(std::string_view o, std::string_view a, std::string_view b,
                                   const std::string& display) {
    for (std::string_view t : {o, a, b}) {
        if (t.find('\r') != std::string_view::npos) return std::nullopt;
    }
    if (o.empty() || o.back() != '\n') return std::nullopt;
    const std::optional<SequenceStart> seq = find_sequence(o, true);
    if (!seq) return std::nullopt;
    const std::optional<std::vector<std::size_t>> starts = item_starts(o, seq->offset, seq->indent);
    if (!starts || starts->empty()) return std::nullopt;
    Result<Document> head = parse_yaml(std::string(o.substr(0, seq->offset)), display);
    if (!head || !head->root().is_mapping() || head->root().size() == 0) return std::nullopt;
    const NodeRef root = head->root();
    if (root.key(root.size() - 1) != "entries" || !root.value(root.size() - 1).is_null()) return std::nullopt;

    const std::size_t same = std::min({common_prefix(o, a), common_prefix(o, b), common_prefix(a, b)});
    // The first entry that is not whole in the shared bytes starts the tails.
    const auto first_differing = std::upper_bound(starts->begin(), starts->end(), same);
    std::size_t cut = same >= o.size() ? o.size() : first_differing == starts->begin() ? 0 : *(first_differing - 1);
    if (cut == 0) return std::nullopt;  // the headers differ
    const std::size_t kept = same >= o.size() ? starts->size() : static_cast<std::size_t>(first_differing - starts->begin()) - 1;

    LogSplit split;
    const std::string_view labels[3] = {"ancestor", "current", "other"};
    std::vector<NewEntry>* tails[3] = {&split.o, &split.a, &split.b};
    const std::string_view texts[3] = {o, a, b};
    for (int i = 0; i < 3; ++i) {
        // A tail must start with an item: a leading comment or blank line
        // may still belong to the last shared entry (a block scalar).
        const std::string_view tail = texts[i].substr(cut);
        if (!tail.empty() && !starts_item(tail.substr(0, tail.find('\n')), seq->indent)) return std::nullopt;
        if (!item_starts(tail, 0, seq->indent)) return std::nullopt;
        std::optional<std::vector<NewEntry>> entries = tail_entries(tail, display, labels[i]);
        if (!entries) return std::nullopt;
        *tails[i] = std::move(*entries);
    }
    if (kept > 0) {
        Result<Document> last = parse_yaml(std::string(o.substr((*starts)[kept - 1], cut - (*starts)[kept - 1])), display);
        if (!last || !last->root().is_sequence() || last->root().size() != 1) return std::nullopt;
        split.last = to_yaml_value(last->root().item(0));
    }
    split.prefix = std::string(o.substr(0, cut));
    split.point = AppendPoint{cut, static_cast<int>(seq->indent), false, false, 0, false};
    split.header = members_except(root, "entries");
    split.ancestor_count = starts->size();
    return split;
}

// A whole version's entries, parsed; `header` must match the ancestor's.
Result<std::vector<NewEntry>> all_entries(NodeRef root, const YamlValue& header, const std::string& display,
                                          std::string_view label) {
    const std::string side_label = display + " (" + std::string(label) + ")";
    if (!root.valid()) return Error::invalid("cannot merge: " + side_label + " is empty");
    if (!same_yaml_data(members_except(root, "entries"), header)) {
        return Error::invalid("cannot merge: " + side_label +
                              " changed a top-level field besides `entries`; the log's header must stay as it was");
    }
    const NodeRef entries = root.find("entries");
    if (!entries.is_sequence() && !(label == "ancestor" && !entries.valid())) {
        return Error::invalid("cannot merge: " + side_label + " has no `entries` list");
    }
    std::vector<NewEntry> out;
    for (std::size_t i = 0; entries.valid() && i < entries.size(); ++i) {
        Result<NewEntry> e = new_entry(entries.item(i), display, label);
        if (!e) return e.error();
        e->mark = entries.item(i).mark();
        out.push_back(std::move(*e));
    }
    return out;
}

// The ancestor's bytes before the line where the entry at `m` starts (a
// `- ` item line), and where entries go after them; nullopt when that cut
// does not leave an appendable log (the whole log is then written again).
std::optional<std::pair<std::string, AppendPoint>> bytes_before_entry(std::string_view text, Mark m) {
    if (m.line == 0) return std::nullopt;
    std::size_t start = 0;
    for (std::uint32_t line = 1; line < m.line; ++line) {
        start = text.find('\n', start);
        if (start == std::string_view::npos) return std::nullopt;
        ++start;
    }
    const std::string_view line = text.substr(start, text.find('\n', start) - start);
    const std::size_t lead = line.find_first_not_of(' ');
    if (lead == std::string_view::npos || !starts_item(line, lead)) return std::nullopt;
    std::string prefix(text.substr(0, start));
    Result<Document> doc = parse_yaml(prefix, "prefix");
    if (!doc) return std::nullopt;
    Result<AppendPoint> point = progress_append_point(prefix, *doc);
    if (!point || point->inline_empty_list || point->indent != static_cast<int>(lead)) return std::nullopt;
    return std::pair{std::move(prefix), *point};
}

// Slow path: every version parsed whole (CRLF, flow style, a comment
// between entries...); the prefix is the entries all three share, by
// content. Positions in messages are exact.
Result<LogSplit> slow_split(std::string_view ancestor, std::string_view current, std::string_view other,
                            const std::string& display) {
    std::string made_up;
    Result<Document> o = parse_side(ancestor, display, "ancestor");
    if (!o) return o.error();
    if (!o->root().valid()) {  // added on both sides: start from their common header
        Result<YamlValue> header = fresh_header(current, other, display);
        if (!header) return header.error();
        made_up = emit_document(*header);
        o = parse_side(made_up, display, "ancestor");
        if (!o) return o.error();
    }
    const std::string_view o_text = made_up.empty() ? ancestor : std::string_view(made_up);
    Result<Document> a = parse_side(current, display, "current");
    if (!a) return a.error();
    Result<Document> b = parse_side(other, display, "other");
    if (!b) return b.error();

    LogSplit split;
    split.header = members_except(o->root(), "entries");
    Result<std::vector<NewEntry>> eo = all_entries(o->root(), split.header, display, "ancestor");
    if (!eo) return eo.error();
    Result<std::vector<NewEntry>> ea = all_entries(a->root(), split.header, display, "current");
    if (!ea) return ea.error();
    Result<std::vector<NewEntry>> eb = all_entries(b->root(), split.header, display, "other");
    if (!eb) return eb.error();
    std::size_t k = 0;
    while (k < eo->size() && k < ea->size() && k < eb->size() && (*eo)[k].canonical == (*ea)[k].canonical &&
           (*eo)[k].canonical == (*eb)[k].canonical) {
        ++k;
    }
    split.ancestor_count = eo->size();
    if (k > 0) split.last = (*eo)[k - 1].value;
    if (k == eo->size()) {  // the ancestor's bytes stay; entries are appended after them
        Result<AppendPoint> point = progress_append_point(o_text, *o);
        if (!point) {
            return Error::invalid("cannot merge: the common ancestor cannot be appended to: " + point.error().message);
        }
        split.prefix = std::string(o_text);
        split.point = *point;
    } else if (std::optional<std::pair<std::string, AppendPoint>> kept = bytes_before_entry(o_text, (*eo)[k].mark)) {
        split.prefix = std::move(kept->first);  // the ancestor's bytes up to its first entry not shared
        split.point = kept->second;
    } else {
        split.rewrite = true;
        for (std::size_t i = 0; i < k; ++i) split.prefix_entries.push_back((*eo)[i].value);
    }
    split.o.assign(std::make_move_iterator(eo->begin() + static_cast<std::ptrdiff_t>(k)),
                   std::make_move_iterator(eo->end()));
    split.a.assign(std::make_move_iterator(ea->begin() + static_cast<std::ptrdiff_t>(k)),
                   std::make_move_iterator(ea->end()));
    split.b.assign(std::make_move_iterator(eb->begin() + static_cast<std::ptrdiff_t>(k)),
                   std::make_move_iterator(eb->end()));
    return split;
}

std::unordered_set<std::string> canonical_set(const std::vector<NewEntry>& entries) {
    std::unordered_set<std::string> out;
    for (const NewEntry& e : entries) out.insert(e.canonical);
    return out;
}

// Whether two entries are equal but for their timestamps.
bool same_but_timestamp(const YamlValue& x, const YamlValue& y) {
    if (!x.is_object() || !y.is_object() || x.size() != y.size()) return false;
    for (const auto& [key, value] : x.items()) {
        if (key == "timestamp") continue;
        const auto it = y.find(key);
        if (it == y.end() || !same_yaml_data(value, *it)) return false;
    }
    return true;
}

Instant plus_ns(Instant t, std::int64_t ns) {
    constexpr std::int64_t kPerSecond = 1'000'000'000;
    const std::int64_t total = static_cast<std::int64_t>(t.nanos) + ns;
    std::int64_t carry = total / kPerSecond, rest = total % kPerSecond;
    if (rest < 0) {
        rest += kPerSecond;
        --carry;
    }
    return Instant{t.seconds + carry, static_cast<std::uint32_t>(rest)};
}

// One side's entries after the prefix, indexed for the questions asked
// about each ancestor entry.
struct SideIndex {
    const std::vector<NewEntry>& entries;
    std::unordered_set<std::string> has;  // canonical JSON
    std::vector<std::size_t> by_time;     // positions, by instant
    std::optional<Instant> before;        // the instant of the entry before the first (the prefix's last)

    SideIndex(const std::vector<NewEntry>& side, std::optional<Instant> prefix_last)
        : entries(side), has(canonical_set(side)), before(prefix_last) {
        for (std::size_t i = 0; i < side.size(); ++i) by_time.push_back(i);
        std::stable_sort(by_time.begin(), by_time.end(),
                         [&](std::size_t x, std::size_t y) { return side[x].instant < side[y].instant; });
    }
    // Positions of the entries at instants in [from, to].
    std::pair<std::size_t, std::size_t> range(Instant from, Instant to) const {
        const auto at = [&](std::size_t i) { return entries[i].instant; };
        const auto lo = std::partition_point(by_time.begin(), by_time.end(), [&](std::size_t i) { return at(i) < from; });
        const auto hi = std::partition_point(lo, by_time.end(), [&](std::size_t i) { return at(i) <= to; });
        return {static_cast<std::size_t>(lo - by_time.begin()), static_cast<std::size_t>(hi - by_time.begin())};
    }
    // Whether the entry at `pos` sits where a merge's bump puts an entry
    // that was at `original`: exactly 1 ns after the entry before it, which
    // is at or after `original` (the entry the bump made room for).
    bool bumped_from(std::size_t pos, Instant original) const {
        const std::optional<Instant> prev = pos > 0 ? std::optional(entries[pos - 1].instant) : before;
        return prev && *prev >= original && plus_one_ns(*prev) == entries[pos].instant;
    }
};

// What a side did with an entry of the ancestor's tail. Entries are the
// same only when their canonical JSON is; two different entries a
// nanosecond apart stay two.
enum class Fate {
    Kept,           // the side has it, or only lacks it (a cherry-pick's CURRENT, a revert's OTHER)
    MovedByMerge,   // an earlier merge's bump moved it: `copy` stands for it
    MovedByHand,    // its content at another instant less than 1 µs away, not where a bump puts it
    Changed,        // another entry at its instant
};
struct EntryFate {
    Fate fate = Fate::Kept;
    const NewEntry* at = nullptr;  // the side's entry: the copy, the moved or the changed one
};

// The fate of ancestor entry `e` in `side`. Only entries the ancestor lacks
// and that no version holds beside `e` can be `e` moved: a bump is 1 ns,
// a few in a row at most, so a copy is less than 1 µs later.
EntryFate fate_of(const NewEntry& e, const SideIndex& side, const SideIndex& other,
                  const std::unordered_set<std::string>& in_ancestor) {
    if (side.has.count(e.canonical)) return {};
    constexpr std::int64_t kWindow = 1000;  // ns
    const Instant from = plus_ns(e.instant, -kWindow), to = plus_ns(e.instant, kWindow);
    const auto [lo, hi] = side.range(from, to);
    EntryFate moved, changed;
    for (std::size_t k = lo; k < hi; ++k) {
        const std::size_t pos = side.by_time[k];
        const NewEntry& c = side.entries[pos];
        if (c.instant == e.instant) {
            changed = {Fate::Changed, &c};
            continue;
        }
        if (in_ancestor.count(c.canonical) || (other.has.count(e.canonical) && other.has.count(c.canonical)) ||
            !same_but_timestamp(c.value, e.value)) {
            continue;
        }
        if (side.bumped_from(pos, e.instant)) return {Fate::MovedByMerge, &c};
        if (!moved.at) moved = {Fate::MovedByHand, &c};
    }
    return moved.at ? moved : changed;
}

// The first ancestor entry a side changed or moved by hand.
struct Refusal {
    const NewEntry* entry = nullptr;  // the ancestor's
    EntryFate fate;
    const char* side = "";            // CURRENT or OTHER
};

std::optional<Instant> last_instant(const LogSplit& split) {
    if (!split.last || !split.last->contains("timestamp") || !(*split.last)["timestamp"].is_string()) return std::nullopt;
    Result<Instant> t = parse_progress_timestamp((*split.last)["timestamp"].get<std::string>());
    return t ? std::optional(*t) : std::nullopt;
}

std::optional<Refusal> refused_change(const LogSplit& split) {
    const std::optional<Instant> before = last_instant(split);
    const SideIndex a(split.a, before), b(split.b, before);
    const std::unordered_set<std::string> in_o = canonical_set(split.o);
    for (const NewEntry& e : split.o) {
        for (const auto& [side, other, label] : {std::tuple{&a, &b, "CURRENT"}, {&b, &a, "OTHER"}}) {
            const EntryFate f = fate_of(e, *side, *other, in_o);
            if (f.fate == Fate::MovedByHand || f.fate == Fate::Changed) return Refusal{&e, f, label};
        }
    }
    return std::nullopt;
}

Error refusal_error(const Refusal& r, const std::string& display) {
    const std::string side_at = where(display + " (" + (r.side == std::string("CURRENT") ? "current" : "other") + ")",
                                      r.fate.at->mark);
    const std::string what =
        r.fate.fate == Fate::Changed
            ? " changed this entry of the common ancestor (same timestamp, other content, at " + side_at + ")"
            : " moved this entry of the common ancestor to " + r.fate.at->value["timestamp"].get<std::string>() +
                  " (same content, at " + side_at + "); a merge moves an entry only to 1 ns after the entry before it";
    return Error::invalid("cannot merge: " + where(display + " (ancestor)", r.entry->mark) + ": " + r.side + what +
                          "; the progress log is append-only: restore the entry as it was, then merge again");
}

// Every entry the three versions have after the prefix, once: CURRENT's,
// OTHER's, then the ancestor's that a side lacks (the log is append-only).
// An ancestor entry that a side has as its copy moved by a merge is that
// copy; no other entry ever stands for another.
std::vector<NewEntry> union_of(LogSplit& split, MergeOutcome& out) {
    const std::unordered_set<std::string> in_o = canonical_set(split.o);
    std::unordered_set<std::string> superseded;
    {
        const std::optional<Instant> before = last_instant(split);
        const SideIndex a(split.a, before), b(split.b, before);
        for (const NewEntry& e : split.o) {
            if (fate_of(e, a, b, in_o).fate == Fate::MovedByMerge || fate_of(e, b, a, in_o).fate == Fate::MovedByMerge) {
                superseded.insert(e.canonical);
                out.notes.push_back("the entry at " + e.value["timestamp"].get<std::string>() +
                                    " is here with its timestamp moved by an earlier merge; the moved copy stays");
            }
        }
    }
    const std::unordered_set<std::string> in_a = canonical_set(split.a), in_b = canonical_set(split.b);
    std::unordered_set<std::string> taken = superseded;
    std::vector<NewEntry> all;
    std::size_t kept_back = 0;
    const auto take = [&](NewEntry& e) {
        if (!taken.insert(e.canonical).second) return;  // already in, superseded, or a side that repeats an entry
        e.existing = in_o.count(e.canonical) > 0;
        kept_back += e.existing && !(in_a.count(e.canonical) && in_b.count(e.canonical));
        all.push_back(std::move(e));
    };
    for (NewEntry& e : split.a) {
        out.duplicate_entries += !in_o.count(e.canonical) && in_b.count(e.canonical);
        take(e);
    }
    for (NewEntry& e : split.b) take(e);
    for (NewEntry& e : split.o) take(e);
    if (kept_back > 0) {
        out.notes.push_back(std::to_string(kept_back) +
                            " entries of the common ancestor were missing on one side (a cherry-pick of a later "
                            "commit, a revert of appended entries); the log is append-only, so they are kept");
    }
    return all;
}

// The order of the result: the entries the ancestor had stay where their
// instants put them and keep their timestamps; a new entry goes before the
// first of them that is later than it, and when its instant is not after
// the previous entry's it moves to that plus one nanosecond (after a
// ancestor entry it would reach, it goes after that entry).
std::vector<NewEntry> placed(std::vector<NewEntry> all, std::optional<Instant> last, MergeOutcome& out) {
    std::vector<NewEntry> fixed, fresh, result;
    for (NewEntry& e : all) (e.existing ? fixed : fresh).push_back(std::move(e));
    const auto by_time = [](const NewEntry& x, const NewEntry& y) {
        return x.instant != y.instant ? x.instant < y.instant : x.canonical < y.canonical;
    };
    std::stable_sort(fixed.begin(), fixed.end(), by_time);
    std::stable_sort(fresh.begin(), fresh.end(), by_time);
    std::size_t i = 0, j = 0;
    while (i < fixed.size() || j < fresh.size()) {
        std::optional<Instant> at;
        if (j < fresh.size()) at = last && fresh[j].instant <= *last ? plus_one_ns(*last) : fresh[j].instant;
        if (at && (i == fixed.size() || *at < fixed[i].instant)) {
            NewEntry& e = fresh[j++];
            if (*at != e.instant) {
                const std::string was = e.value["timestamp"].get<std::string>();
                e.instant = *at;
                e.value["timestamp"] = format_timestamp_utc9(e.instant);
                out.notes.push_back("timestamp " + was + " moved to " + e.value["timestamp"].get<std::string>() +
                                    " to keep the log strictly increasing");
                ++out.bumped_timestamps;
            }
            last = e.instant;
            result.push_back(std::move(e));
        } else {
            last = fixed[i].instant;  // out of order only in a log that is already invalid (validation refuses it)
            result.push_back(std::move(fixed[i++]));
        }
    }
    return result;
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
    // A fast split with a changed entry is redone slowly, which names the
    // entry with its position in the whole file.
    std::optional<LogSplit> fast = fast_split(ancestor, current, other, display);
    const bool fast_ok = fast && !refused_change(*fast);
    Result<LogSplit> split = fast_ok ? Result<LogSplit>(std::move(*fast)) : slow_split(ancestor, current, other, display);
    if (!split) return split.error();
    if (const std::optional<Refusal> r = fast_ok ? std::nullopt : refused_change(*split)) return refusal_error(*r, display);

    MergeOutcome out;
    out.ancestor_entries = split->ancestor_count;
    std::optional<Instant> last;
    YamlValue check = split->header;
    check["entries"] = YamlValue::array();
    if (split->last) {
        const YamlValue& tail = *split->last;
        const std::string ts =
            tail.contains("timestamp") && tail["timestamp"].is_string() ? tail["timestamp"].get<std::string>() : "";
        Result<Instant> t = parse_progress_timestamp(ts);
        if (!t) {
            return Error::invalid("cannot merge: " + display +
                                  " (ancestor): the last shared entry's timestamp: " + t.error().message);
        }
        last = *t;
        check["entries"].push_back(tail);
    }
    std::vector<NewEntry> all = placed(union_of(*split, out), last, out);
    std::string items;
    bool rewritten = split->rewrite;
    for (NewEntry& e : all) {
        out.added_entries += !e.existing;
        rewritten = rewritten || e.existing;
        if (!split->rewrite) items += emit_sequence_item(e.value, split->point.indent);
        check["entries"].push_back(e.value);
    }
    if (Status s = validate_value(ArtifactType::Progress, check, display); !s) return s.error();
    if (split->rewrite) {
        YamlValue doc = split->header;
        doc["entries"] = YamlValue::array();
        for (YamlValue& v : split->prefix_entries) doc["entries"].push_back(std::move(v));
        for (NewEntry& e : all) doc["entries"].push_back(std::move(e.value));
        out.text = emit_document(doc);
    } else if (all.empty()) {
        out.text = split->prefix;
    } else {
        const AppendEdit edit = append_edit(split->point, items, split->prefix);
        out.text.reserve(split->prefix.size() + edit.text.size());
        out.text.append(std::string_view(split->prefix).substr(0, edit.offset))
            .append(edit.text)
            .append(std::string_view(split->prefix).substr(edit.offset + edit.erase));
    }
    if (rewritten) {
        out.notes.push_back("entries after the part all three versions share were written again in small's style, "
                            "in timestamp order");
    }
    return out;
}

// ---- plan ----

namespace {

// A status conflict keeps the status further along; -1 for any other value.
int status_rank(const YamlValue& v) {
    constexpr TaskStatus kRanked[] = {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Blocked,
                                      TaskStatus::Cancelled, TaskStatus::Completed};
    const std::optional<TaskStatus> status = v.is_string() ? parse_task_status(v.get<std::string>()) : std::nullopt;
    if (!status) return -1;
    return static_cast<int>(std::find(std::begin(kRanked), std::end(kRanked), *status) - std::begin(kRanked));
}

// One member present or absent on each side.
using Slot = std::optional<YamlValue>;

bool same(const Slot& x, const Slot& y) { return x.has_value() == y.has_value() && (!x || same_yaml_data(*x, *y)); }

// Task ids in natural order ("task-2" before "task-10"), so that new tasks
// from both sides land in the same order whichever side merges.
bool id_less(const std::string& x, const std::string& y) {
    const auto split = [](const std::string& id) {
        std::size_t digits = id.size();
        while (digits > 0 && id[digits - 1] >= '0' && id[digits - 1] <= '9') --digits;
        const std::string number = id.substr(digits);
        const std::size_t nonzero = std::min(number.find_first_not_of('0'), number.size());
        return std::tuple(id.substr(0, digits), number.size() - nonzero, number.substr(nonzero), number.size());
    };
    return split(x) < split(y) || (split(x) == split(y) && x < y);
}

Slot slot(const YamlValue& obj, const std::string& key) {
    if (!obj.is_object() || !obj.contains(key)) return std::nullopt;
    return obj.at(key);
}

// Three-way choice for one value; nothing when it conflicts.
std::optional<Slot> choose(const Slot& o, const Slot& a, const Slot& b, bool is_status) {
    if (same(a, b)) return !a || a->dump() <= b->dump() ? a : b;  // the same bytes whichever side merges
    if (same(a, o)) return b;
    if (same(b, o)) return a;
    if (is_status && a && b && status_rank(*a) >= 0 && status_rank(*b) >= 0) {
        return status_rank(*a) >= status_rank(*b) ? a : b;
    }
    return std::nullopt;
}

// Keys of the three objects: the ancestor's order, then the new ones, in
// their side's order when only one side added keys, else sorted (the same
// order whichever side merges).
std::vector<std::string> key_union(const YamlValue& o, const YamlValue& a, const YamlValue& b) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    if (o.is_object()) {
        for (const auto& [k, ignored] : o.items()) {
            if (seen.insert(k).second) keys.push_back(k);
        }
    }
    std::vector<std::string> added[2];
    for (int side = 0; side < 2; ++side) {
        const YamlValue& v = side == 0 ? a : b;
        if (!v.is_object()) continue;
        for (const auto& [k, ignored] : v.items()) {
            if (!seen.count(k)) added[side].push_back(k);
        }
    }
    std::vector<std::string> fresh = added[0].empty() ? added[1] : added[0];
    if (!added[0].empty() && !added[1].empty() && added[0] != added[1]) {
        fresh = added[0];
        fresh.insert(fresh.end(), added[1].begin(), added[1].end());
        std::sort(fresh.begin(), fresh.end());
    }
    for (const std::string& k : fresh) {
        if (seen.insert(k).second) keys.push_back(k);
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

namespace {

// The lines of text[from, to), without their line breaks, each with its offset.
std::vector<std::pair<std::size_t, std::string_view>> lines_in(std::string_view text, std::size_t from, std::size_t to) {
    std::vector<std::pair<std::size_t, std::string_view>> out;
    for (std::size_t at = from; at < to;) {
        const std::size_t nl = std::min(text.find('\n', at), to);
        std::string_view line = text.substr(at, nl - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.emplace_back(at, line);
        at = nl + 1;
    }
    return out;
}

bool comment_line(std::string_view line) { return trim(line).substr(0, 1) == "#"; }

// What a line is found by in another text of the task: a field (or the
// task's `- id:` line) by its indentation and key, as its value and quoting
// may differ after the merge; other lines (list items) whole.
std::string_view anchor_of(std::string_view line) {
    const std::size_t colon = line.find(": ");
    return colon == std::string_view::npos ? line : line.substr(0, colon + 1);
}

std::map<std::string, TaskRegion> regions_of(std::string_view text, const std::string& display) {
    std::map<std::string, TaskRegion> out;
    if (Result<Document> doc = parse_yaml(std::string(text), display)) {
        for (TaskRegion& r : plan_task_regions(*doc)) out.emplace(r.id, std::move(r));
    }
    return out;
}

struct CommentInsert {
    std::size_t offset;
    std::string line;
};

// Every line of `text`, trimmed: a comment either side already has, wherever
// and however indented, is not OTHER's addition (it was moved, re-indented,
// or removed by CURRENT).
std::set<std::string_view> trimmed_lines(std::string_view text) {
    std::set<std::string_view> out;
    for (const auto& [at, line] : lines_in(text, 0, text.size())) out.insert(trim(line));
    return out;
}

std::vector<bool> block_scalar_lines(const std::vector<std::pair<std::size_t, std::string_view>>& lines) {
    std::vector<std::string_view> texts;
    for (const auto& [at, line] : lines) texts.push_back(line);
    return block_scalar_text(texts);
}

// The comment lines OTHER added to one task both sides have: each goes
// before the line it stands above in OTHER (found by its key), or at the
// task's end when nothing follows it. Returns how many could not be placed.
std::size_t other_comments_of(std::string_view merged, const TaskRegion& in_merged, std::string_view other,
                              const TaskRegion& in_other, const std::set<std::string_view>& known,
                              std::vector<CommentInsert>& inserts) {
    const auto mine = lines_in(merged, in_merged.from, in_merged.to);
    const auto theirs = lines_in(other, in_other.from, in_other.to);
    const std::vector<bool> in_block = block_scalar_lines(theirs);
    const std::string nl = uses_crlf(merged) ? "\r\n" : "\n";
    std::size_t lost = 0;
    for (std::size_t k = 0; k < theirs.size(); ++k) {
        const std::string_view line = theirs[k].second;
        if (!comment_line(line) || in_block[k] || known.count(trim(line))) continue;
        std::size_t j = k + 1;
        while (j < theirs.size() && ((comment_line(theirs[j].second) && !in_block[j]) || trim(theirs[j].second).empty())) {
            ++j;
        }
        std::optional<std::size_t> at;
        if (j == theirs.size()) {
            at = in_merged.to;
        } else {
            for (const auto& [offset, mine_line] : mine) {
                if (!comment_line(mine_line) && anchor_of(mine_line) == anchor_of(theirs[j].second)) {
                    at = offset;
                    break;
                }
            }
        }
        if (!at) {
            ++lost;
            continue;
        }
        const bool joins = *at == merged.size() && !merged.empty() && merged.back() != '\n';
        inserts.push_back({*at, (joins ? nl : "") + std::string(line) + nl});
    }
    return lost;
}

// Comment lines OTHER added outside every task (above the first, after the
// last, among the top-level fields): not placed, only counted.
std::size_t comments_outside_tasks(std::string_view other, const std::map<std::string, TaskRegion>& regions,
                                   const std::set<std::string_view>& known) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [from, to) of each task, in file order
    for (const auto& [id, r] : regions) spans.emplace_back(r.from, r.to);
    std::sort(spans.begin(), spans.end());
    std::size_t n = 0, next = 0;
    for (const auto& [at, line] : lines_in(other, 0, other.size())) {
        while (next < spans.size() && spans[next].second <= at) ++next;
        const bool inside = next < spans.size() && spans[next].first <= at;
        if (!inside && comment_line(line) && !known.count(trim(line))) ++n;
    }
    return n;
}

// OTHER's text without the comment lines CURRENT removed (ANCESTOR has them,
// CURRENT does not): the tasks copied from OTHER must not bring them back.
std::string without_removed_comments(std::string_view other, std::string_view ancestor, std::string_view current) {
    const std::set<std::string_view> had = trimmed_lines(ancestor), has = trimmed_lines(current);
    const auto lines = lines_in(other, 0, other.size());
    const std::vector<bool> in_block = block_scalar_lines(lines);
    std::string out;
    out.reserve(other.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& [at, line] = lines[i];
        const std::size_t end = std::min(other.find('\n', at), other.size() - 1) + 1;
        if (comment_line(line) && !in_block[i] && had.count(trim(line)) && !has.count(trim(line))) continue;
        out.append(other.substr(at, end - at));
    }
    return out;
}

// D20 item 3: the merged text (`merged_doc`, as the edit's read-back check
// parsed it) with the comment lines OTHER added to tasks both sides have;
// unchanged (and a note) when the result would not read back as `plan`.
std::string with_others_comments(std::string merged, const Document& merged_doc, const YamlValue& plan,
                                 std::string_view ancestor, std::string_view other, const std::string& display,
                                 std::vector<std::string>& notes) {
    std::map<std::string, TaskRegion> m;
    for (TaskRegion& r : plan_task_regions(merged_doc)) m.emplace(r.id, std::move(r));
    const std::map<std::string, TaskRegion> b = regions_of(other, display);
    std::set<std::string_view> known = trimmed_lines(merged);
    for (std::string_view line : trimmed_lines(ancestor)) known.insert(line);
    std::vector<CommentInsert> inserts;
    std::size_t lost = b.empty() ? 0 : comments_outside_tasks(other, b, known);
    std::vector<const TaskRegion*> in_file_order;
    for (const auto& [id, region] : m) in_file_order.push_back(&region);
    std::sort(in_file_order.begin(), in_file_order.end(),
              [](const TaskRegion* x, const TaskRegion* y) { return x->from < y->from; });
    for (const TaskRegion* region : in_file_order) {
        if (const auto in_other = b.find(region->id); in_other != b.end()) {
            lost += other_comments_of(merged, *region, other, in_other->second, known, inserts);
        }
    }
    if (lost) {
        notes.push_back(display + ": " + std::to_string(lost) + " comment line(s) OTHER added were not carried: " +
                        "the line they stood above is gone in the merge, or they stand outside the tasks");
    }
    if (inserts.empty()) return merged;
    // File order; at one place, in the order found (tasks visited in file order).
    std::stable_sort(inserts.begin(), inserts.end(),
                     [](const CommentInsert& x, const CommentInsert& y) { return x.offset < y.offset; });
    std::string out;
    out.reserve(merged.size() + inserts.size() * 32);
    std::size_t done = 0;
    for (const CommentInsert& c : inserts) {
        out.append(merged, done, c.offset - done);
        out += c.line;
        done = c.offset;
    }
    out.append(merged, done, std::string::npos);
    Result<Document> after = parse_yaml(out, display);
    if (!after || !same_yaml_data(to_yaml_value(after->root()), plan)) {
        notes.push_back(display + ": the comment lines OTHER added were not carried (they would change the plan)");
        return merged;
    }
    return out;
}

// D20: the merged plan applied to CURRENT's bytes, so its comments and
// layout survive the merge, and the tasks only OTHER has keep OTHER's lines
// and comments; house style (with a note that says why) when the merge
// cannot be written that way.
std::string text_on_current(std::string_view ancestor, std::string_view current, std::string_view other,
                            const YamlValue& merged, const std::string& display, std::vector<std::string>& notes) {
    Result<Document> doc = parse_yaml(std::string(current), display);
    if (doc) {
        Result<Document> donor = parse_yaml(without_removed_comments(other, ancestor, current), display);
        PlanTextEdit edit = edit_plan_text(*doc, merged, donor ? &*donor : nullptr);
        for (const std::string& c : edit.dropped_comments) {  // issue 41: never without a word
            notes.push_back(display + ":" + c.substr(0, c.find(':')) + ": CURRENT's comment " + c.substr(c.find(':') + 2) +
                            " was not kept: the value it was written beside was removed or rewritten by the merge");
        }
        if (edit.text) {
            return with_others_comments(std::move(*edit.text), *edit.parsed, merged, ancestor, other, display, notes);
        }
        notes.push_back(display + (edit.line ? ":" + std::to_string(edit.line) : "") +
                        ": written in house style, CURRENT's comments and formatting not kept (" + edit.why + ")");
    }
    return with_layout_of(emit_document(merged), current);  // issue 41: CURRENT's BOM and CRLF kept
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

    // The ancestor's tasks in its order, then the new ones by id.
    std::vector<std::string> ids = to->order;
    std::set<std::string> seen(ids.begin(), ids.end());
    std::vector<std::string> fresh;
    for (const TaskList* t : {&*ta, &*tb}) {
        for (const std::string& id : t->order) {
            if (seen.insert(id).second) fresh.push_back(id);
        }
    }
    std::stable_sort(fresh.begin(), fresh.end(), id_less);
    ids.insert(ids.end(), fresh.begin(), fresh.end());
    YamlValue tasks = YamlValue::array();
    for (const std::string& id : ids) {
        const auto get = [&](const TaskList& t) -> Slot {
            const auto it = t.by_id.find(id);
            return it == t.by_id.end() ? Slot() : Slot(it->second);
        };
        const Slot so = get(*to), sa = get(*ta), sb = get(*tb);
        if (!so && sa && sb && !same(sa, sb)) {
            out.conflicts.push_back(
                {id, "",
                 "task id " + id + " was added on both sides with different content (current: " +
                     sa->value("title", YamlValue()).dump() + ", other: " + sb->value("title", YamlValue()).dump() +
                     ")",
                 "keep both tasks under different ids: take CURRENT's plan (`git checkout --ours -- " +
                     shell_quote(display) +
                     "`), add OTHER's task again with `small plan --add \"<its title>\"` (it gets the next free id), "
                     "then `git add -- " + shell_quote(display) + "`; OTHER's progress entries still name " + id +
                     ": add a progress entry for the new id that says so"});
            continue;
        }
        if (so && (!sa || !sb)) {  // removed on one side
            const Slot& kept = sa ? sa : sb;
            if (kept && !same(kept, so)) {
                out.conflicts.push_back({id, "", "task " + id + " was removed on one side and changed on the other",
                                         std::string(kResolveHint)});
            }
            continue;
        }
        if (!so) {  // new: one side's, or both sides' same task (the same bytes whichever side merges)
            tasks.push_back(!sb || (sa && sa->dump() <= sb->dump()) ? *sa : *sb);
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
    out.text = text_on_current(ancestor, current, other, result, display, out.notes);
    return out;
}

namespace {

// The handoff both sides changed: CURRENT's, its summary followed by
// OTHER's when they differ and OTHER's is not the ancestor's (only that
// value's bytes change); CURRENT's as it is when that cannot be written.
std::string with_both_summaries(std::string_view ancestor, std::string_view current, std::string_view other,
                                const std::string& display) {
    const auto summary_of = [&](std::string_view text) -> std::optional<std::string> {
        Result<Document> doc = parse_yaml(std::string(text), display);
        if (!doc || !doc->root().is_mapping()) return std::nullopt;
        const NodeRef s = doc->root().find("summary");
        return s.is_string() ? std::optional(std::string(s.as_string())) : std::nullopt;
    };
    const std::optional<std::string> mine = summary_of(current), theirs = summary_of(other);
    if (!mine || !theirs || *mine == *theirs || theirs == summary_of(ancestor) ||
        mine->find(*theirs) != std::string::npos) {
        return std::string(current);
    }
    Result<Document> doc = parse_yaml(std::string(current), display);
    if (!doc) return std::string(current);
    YamlValue target = to_yaml_value(doc->root());
    target["summary"] = *mine + " Merged with another side, whose handoff said: " + *theirs;
    const MemberEdit edit = edit_mapping_members(*doc, target);
    return edit.text ? *edit.text : std::string(current);
}

}  // namespace

MergeOutcome merge_whole_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                               bool handoff_keeps_current, const std::string& display) {
    MergeOutcome out;
    if (current == other || other == ancestor) {
        out.text = current;
    } else if (current == ancestor) {
        out.text = other;
    } else if (handoff_keeps_current) {
        out.text = with_both_summaries(ancestor, current, other, display);
        out.notes.push_back(display +
                            " changed on both sides: CURRENT's is kept, with OTHER's summary after its own; run "
                            "`small handoff` after the merge to regenerate it from the merged plan and progress");
    } else {
        out.conflicts.push_back({"", "", display + " changed differently on both sides", std::string(kResolveHint)});
    }
    return out;
}

const char* merge_rule_name(MergeKind kind) {
    switch (kind) {
        case MergeKind::Progress: return "progress";
        case MergeKind::Plan: return "plan";
        case MergeKind::Handoff: return "handoff";
        case MergeKind::Whole: return "whole";
    }
    return "whole";
}

Result<MergeOutcome> merge_by_rule(MergeKind kind, std::string_view ancestor, std::string_view current,
                                   std::string_view other, const std::string& display) {
    switch (kind) {
        case MergeKind::Progress:
            if (current == other) {  // nothing to union (also when all three agree)
                MergeOutcome same;
                same.text = std::string(current);
                return same;
            }
            return merge_progress_texts(ancestor, current, other, display);
        case MergeKind::Plan: return merge_plan_texts(ancestor, current, other, display);
        case MergeKind::Handoff: return merge_whole_texts(ancestor, current, other, true, display);
        case MergeKind::Whole: break;
    }
    return merge_whole_texts(ancestor, current, other, false, display);
}

// ---- D21: a task id added on both sides ----

namespace {

constexpr std::string_view kNotePrefix = "small merge: renamed ";
constexpr std::string_view kArrow = " -> ";
constexpr std::string_view kTitleOpen = " (title ";

bool id_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '/' || c == '.';
}

// N of "task-<N>", nullopt for any other id.
std::optional<long long> task_number(std::string_view id) {
    if (!id.starts_with("task-") || id.size() == 5 || id.size() > 20) return std::nullopt;
    long long n = 0;
    for (char c : id.substr(5)) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// Task ids in natural order ("task-2" before "task-10").
bool natural_less(const std::string& x, const std::string& y) {
    const std::optional<long long> nx = task_number(x), ny = task_number(y);
    if (nx && ny && *nx != *ny) return *nx < *ny;
    if (nx.has_value() != ny.has_value()) return nx.has_value();
    return x < y;
}

std::string string_at(NodeRef map, std::string_view key) {
    const NodeRef v = map.valid() && map.is_mapping() ? map.find(key) : NodeRef();
    return v.valid() && v.is_string() ? std::string(v.as_string()) : std::string();
}

// One version of the pair, parsed.
struct Version {
    std::string plan_text, log_text;
    std::optional<Document> plan, log;
    YamlValue plan_value = YamlValue::object();

    NodeRef tasks() const {
        return plan && plan->root().valid() && plan->root().is_mapping() ? plan->root().find("tasks") : NodeRef();
    }
    NodeRef entries() const {
        return log && log->root().valid() && log->root().is_mapping() ? log->root().find("entries") : NodeRef();
    }
};

Result<Version> parse_version(std::string plan_text, std::string log_text, std::string_view label) {
    Version v;
    v.plan_text = std::move(plan_text);
    v.log_text = std::move(log_text);
    Result<Document> plan = parse_yaml(v.plan_text, "plan.small.yml (" + std::string(label) + ")");
    if (!plan) return plan.error();
    Result<Document> log = parse_yaml(v.log_text, "progress.small.yml (" + std::string(label) + ")");
    if (!log) return log.error();
    v.plan = std::move(*plan);
    v.log = std::move(*log);
    if (v.plan->root().valid()) v.plan_value = to_yaml_value(v.plan->root());
    return v;
}

std::map<std::string, YamlValue> tasks_by_id(const YamlValue& plan) {
    std::map<std::string, YamlValue> out;
    if (!plan.is_object() || !plan.contains("tasks") || !plan.at("tasks").is_array()) return out;
    for (const YamlValue& t : plan.at("tasks")) {
        if (t.is_object() && t.contains("id") && t.at("id").is_string()) out.emplace(t.at("id").get<std::string>(), t);
    }
    return out;
}

// Byte offsets of line starts, for turning a node's line and column into an offset.
std::vector<std::size_t> line_starts(std::string_view text) {
    std::vector<std::size_t> out{0};
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') out.push_back(i + 1);
    }
    return out;
}

struct ScalarEdit {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::string text;
};

// The edit that turns the scalar `node` (which reads `from`) into `to`,
// plain or quoted as written; nullopt when its bytes are not `from` in one
// of those forms (an escape, a block scalar...).
std::optional<ScalarEdit> scalar_edit(std::string_view text, const std::vector<std::size_t>& lines, NodeRef node,
                                      std::string_view from, std::string_view to) {
    const Mark m = node.mark();
    if (m.line == 0 || m.line > lines.size() || m.column == 0) return std::nullopt;
    const std::size_t at = lines[m.line - 1] + m.column - 1;
    if (at >= text.size()) return std::nullopt;
    const std::string_view rest = text.substr(at);
    if (rest.starts_with(from) && (rest.size() == from.size() || !id_char(rest[from.size()]))) {
        return ScalarEdit{at, from.size(), std::string(to)};
    }
    if ((rest[0] == '"' || rest[0] == '\'') && rest.substr(1).starts_with(from) && rest.size() > from.size() + 1 &&
        rest[from.size() + 1] == rest[0]) {
        return ScalarEdit{at + 1, from.size(), std::string(to)};
    }
    return std::nullopt;
}

std::string apply_edits(std::string_view text, std::vector<ScalarEdit> edits) {
    std::sort(edits.begin(), edits.end(), [](const ScalarEdit& x, const ScalarEdit& y) { return x.offset < y.offset; });
    std::string out;
    out.reserve(text.size() + edits.size() * 4);
    std::size_t done = 0;
    for (const ScalarEdit& e : edits) {
        out.append(text.substr(done, e.offset - done)).append(e.text);
        done = e.offset + e.size;
    }
    out.append(text.substr(done));
    return out;
}

using IdMap = std::map<std::string, std::string>;

// The plan with every id in `map` renamed: task ids and dependencies.
Result<std::string> renamed_plan(const Version& v, const IdMap& map, YamlValue& expected) {
    std::vector<ScalarEdit> edits;
    const std::vector<std::size_t> lines = line_starts(v.plan_text);
    const NodeRef tasks = v.tasks();
    for (std::size_t i = 0; tasks.valid() && tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef task = tasks.item(i);
        if (!task.is_mapping()) continue;
        const auto rename_id = [&](NodeRef node, YamlValue& value) -> Status {
            if (!node.valid() || !node.is_string()) return ok_status();
            const auto it = map.find(std::string(node.as_string()));
            if (it == map.end()) return ok_status();
            std::optional<ScalarEdit> e = scalar_edit(v.plan_text, lines, node, it->first, it->second);
            if (!e) {
                return Error::invalid("plan.small.yml line " + std::to_string(node.mark().line) + ": " + it->first +
                                      " is not written as a plain or quoted id");
            }
            edits.push_back(std::move(*e));
            value = it->second;
            return ok_status();
        };
        YamlValue& task_value = expected["tasks"][i];
        if (Status s = rename_id(task.find("id"), task_value["id"]); !s) return s.error();
        for (const char* key : {"depends_on", "dependencies"}) {
            const NodeRef deps = task.find(key);
            if (!deps.valid() || !deps.is_sequence()) continue;
            for (std::size_t d = 0; d < deps.size(); ++d) {
                if (Status s = rename_id(deps.item(d), task_value[key][d]); !s) return s.error();
            }
        }
    }
    return apply_edits(v.plan_text, std::move(edits));
}

// The log with the entries `pick` selects renamed by `map`.
template <typename Pick>
Result<std::string> renamed_log(const Version& v, const IdMap& map, Pick pick, YamlValue& expected) {
    std::vector<ScalarEdit> edits;
    const std::vector<std::size_t> lines = line_starts(v.log_text);
    const NodeRef entries = v.entries();
    for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        const std::string task = string_at(entry, "task_id");
        const auto it = map.find(task);
        if (it == map.end() || !pick(i)) continue;
        std::optional<ScalarEdit> e = scalar_edit(v.log_text, lines, entry.find("task_id"), it->first, it->second);
        if (!e) {
            return Error::invalid("progress.small.yml line " + std::to_string(entry.mark().line) + ": " + it->first +
                                  " is not written as a plain or quoted id");
        }
        edits.push_back(std::move(*e));
        expected["entries"][i]["task_id"] = it->second;
    }
    return apply_edits(v.log_text, std::move(edits));
}

// `v` with `map` applied to its plan and to the log entries `pick` selects;
// the edited texts are read again and must be exactly the renamed data.
template <typename Pick>
Result<Version> renamed(const Version& v, const IdMap& map, Pick pick, std::string_view label) {
    if (map.empty()) return parse_version(v.plan_text, v.log_text, label);
    YamlValue plan_expected = v.plan_value;
    Result<std::string> plan = renamed_plan(v, map, plan_expected);
    if (!plan) return plan.error();
    YamlValue log_expected = v.log && v.log->root().valid() ? to_yaml_value(v.log->root()) : YamlValue();
    Result<std::string> log = renamed_log(v, map, pick, log_expected);
    if (!log) return log.error();
    Result<Version> out = parse_version(std::move(*plan), std::move(*log), label);
    if (!out) return out.error();
    const YamlValue log_now = out->log->root().valid() ? to_yaml_value(out->log->root()) : YamlValue();
    if (!same_yaml_data(out->plan_value, plan_expected) || !same_yaml_data(log_now, log_expected)) {
        return Error::invalid("the renamed ids do not read back as written");
    }
    return out;
}

// The renames `v`'s log records, in log order.
std::vector<TaskRename> renames_in(const Version& v) {
    std::vector<TaskRename> out;
    const NodeRef entries = v.entries();
    for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
        if (std::optional<TaskRename> r = parse_rename_note(string_at(entries.item(i), "notes"))) out.push_back(*r);
    }
    return out;
}

bool holds(const std::vector<TaskRename>& recorded, const TaskRename& r) {
    return std::find(recorded.begin(), recorded.end(), r) != recorded.end();
}

// Whether `v`, which lacks the record of `r`, descends from the side `r`
// renamed: an entry of it naming r.from is, renamed, an entry of a version
// that holds the record; with no entry naming r.from, its task r.from has
// the recorded title.
bool descends_from_renamed(const Version& v, const TaskRename& r, const std::vector<const Version*>& holders) {
    std::multimap<std::string, YamlValue> renamed_there;  // by timestamp
    for (const Version* h : holders) {
        const NodeRef entries = h->entries();
        for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
            const NodeRef e = entries.item(i);
            if (string_at(e, "task_id") == r.to) renamed_there.emplace(string_at(e, "timestamp"), to_yaml_value(e));
        }
    }
    bool names_old = false;
    const NodeRef entries = v.entries();
    for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef e = entries.item(i);
        if (string_at(e, "task_id") != r.from) continue;
        names_old = true;
        YamlValue value = to_yaml_value(e);
        value["task_id"] = r.to;
        const auto [lo, hi] = renamed_there.equal_range(string_at(e, "timestamp"));
        for (auto it = lo; it != hi; ++it) {
            if (same_yaml_data(it->second, value)) return true;
        }
    }
    if (names_old) return false;
    const std::map<std::string, YamlValue> tasks = tasks_by_id(v.plan_value);
    const auto t = tasks.find(r.from);
    return t != tasks.end() && t->second.contains("title") && t->second.at("title").is_string() &&
           t->second.at("title").get<std::string>() == r.title;
}

std::unordered_set<std::string> canonical_entries(const Version& v) {
    std::unordered_set<std::string> out;
    const NodeRef entries = v.entries();
    for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
        if (Result<std::string> c = canonical_json(entries.item(i))) out.insert(std::move(*c));
    }
    return out;
}

// Ids CURRENT and OTHER both added since the ancestor, with different content.
std::vector<std::string> collisions(const Version& o, const Version& a, const Version& b) {
    const std::map<std::string, YamlValue> to = tasks_by_id(o.plan_value), ta = tasks_by_id(a.plan_value),
                                           tb = tasks_by_id(b.plan_value);
    std::vector<std::string> out;
    for (const auto& [id, task] : ta) {
        const auto other = tb.find(id);
        if (!to.count(id) && other != tb.end() && !same_yaml_data(task, other->second)) out.push_back(id);
    }
    std::sort(out.begin(), out.end(), natural_less);
    return out;
}

// Whether a text holds a rename note, and the lines that do (a cheap first look).
std::vector<std::string_view> note_lines(std::string_view log) {
    std::vector<std::string_view> out;
    for (std::size_t at = log.find(kNotePrefix); at != std::string_view::npos; at = log.find(kNotePrefix, at + 1)) {
        const std::size_t from = log.rfind('\n', at);
        const std::size_t begin = from == std::string_view::npos ? 0 : from + 1;
        out.push_back(log.substr(begin, std::min(log.find('\n', at), log.size()) - begin));
    }
    return out;
}

}  // namespace

std::string rename_note(const TaskRename& r) {
    return std::string(kNotePrefix) + r.from + std::string(kArrow) + r.to + std::string(kTitleOpen) +
           nlohmann::json(r.title).dump() + ")";
}

std::optional<TaskRename> parse_rename_note(std::string_view notes) {
    if (!notes.starts_with(kNotePrefix)) return std::nullopt;
    notes.remove_prefix(kNotePrefix.size());
    const std::size_t arrow = notes.find(kArrow);
    if (arrow == std::string_view::npos) return std::nullopt;
    TaskRename r;
    r.from = std::string(notes.substr(0, arrow));
    notes.remove_prefix(arrow + kArrow.size());
    const std::size_t open = notes.find(kTitleOpen);
    r.to = std::string(notes.substr(0, open));
    if (open != std::string_view::npos) {
        std::string_view title = notes.substr(open + kTitleOpen.size());
        if (!title.ends_with(")")) return std::nullopt;
        title.remove_suffix(1);
        const nlohmann::json parsed = nlohmann::json::parse(title, nullptr, false);
        if (!parsed.is_string()) return std::nullopt;
        r.title = parsed.get<std::string>();
    }
    if (r.from.empty() || r.to.empty() || r.from == r.to) return std::nullopt;
    for (const std::string& id : {r.from, r.to}) {
        if (!std::all_of(id.begin(), id.end(), id_char)) return std::nullopt;
    }
    return r;
}

std::string describe_rename(const TaskRename& r) {
    return r.from + " -> " + r.to + (r.title.empty() ? "" : " (" + nlohmann::json(r.title).dump() + ")");
}

Result<std::optional<TaskRenames>> task_renames(const WorkspaceMergeSides& sides) {
    constexpr std::string_view kLabels[3] = {"ancestor", "current", "other"};
    // A first look without the logs: a collision, or rename notes that the
    // three logs do not all share.
    std::vector<std::string_view> notes[3];
    for (int i = 0; i < 3; ++i) notes[i] = note_lines(sides.progress[i]);
    const bool notes_differ = notes[0] != notes[1] || notes[0] != notes[2];
    std::vector<Version> v;
    for (int i = 0; i < 3; ++i) {
        Result<Version> parsed = parse_version(sides.plan[i], notes_differ ? sides.progress[i] : "", kLabels[i]);
        if (!parsed) return parsed.error();
        v.push_back(std::move(*parsed));
    }
    if (!notes_differ && collisions(v[0], v[1], v[2]).empty()) return std::optional<TaskRenames>();
    if (!notes_differ) {
        for (int i = 0; i < 3; ++i) {
            Result<Version> parsed = parse_version(sides.plan[i], sides.progress[i], kLabels[i]);
            if (!parsed) return parsed.error();
            v[i] = std::move(*parsed);
        }
    }

    TaskRenames out;
    // Recorded renames, applied to the versions from before them.
    std::vector<TaskRename> recorded[3];
    std::vector<TaskRename> all;
    for (int i = 0; i < 3; ++i) {
        recorded[i] = renames_in(v[i]);
        for (const TaskRename& r : recorded[i]) {
            if (!holds(all, r)) all.push_back(r);
        }
    }
    IdMap replay[3];
    for (const TaskRename& r : all) {
        std::vector<const Version*> holders;
        for (int i = 0; i < 3; ++i) {
            if (holds(recorded[i], r)) holders.push_back(&v[i]);
        }
        for (int i = 0; i < 3; ++i) {
            if (holds(recorded[i], r) || !descends_from_renamed(v[i], r, holders)) continue;
            if (replay[i].count(r.from)) return Error::invalid(r.from + " was renamed twice");
            if (tasks_by_id(v[i].plan_value).count(r.to)) {
                return Error::invalid("the " + std::string(kLabels[i]) + " has a task " + r.to +
                                      " of its own besides " + r.from + ", which an earlier merge renamed to " + r.to);
            }
            replay[i].emplace(r.from, r.to);
            if (!holds(out.replayed, r)) out.replayed.push_back(r);
        }
    }
    const auto every_entry = [](std::size_t) { return true; };
    for (int i = 0; i < 3; ++i) {
        Result<Version> mapped = renamed(v[i], replay[i], every_entry, kLabels[i]);
        if (!mapped) return mapped.error();
        v[i] = std::move(*mapped);
    }

    // Ids both sides added: OTHER's task takes the next free id.
    const std::vector<std::string> colliding = collisions(v[0], v[1], v[2]);
    if (!colliding.empty()) {
        if (sides.progress[0] == sides.progress[1] || sides.progress[0] == sides.progress[2] ||
            sides.progress[1] == sides.progress[2]) {
            return Error::invalid(
                "the progress log did not change on both sides, so git merges it without small's "
                "driver and the rename could not be recorded");
        }
        long long next = 0;
        for (const Version& x : v) {
            for (const auto& [id, task] : tasks_by_id(x.plan_value)) next = std::max(next, task_number(id).value_or(0));
        }
        const std::map<std::string, YamlValue> theirs = tasks_by_id(v[2].plan_value);
        IdMap fresh;
        for (const std::string& id : colliding) {
            TaskRename r{id, "task-" + std::to_string(++next), ""};
            const YamlValue& task = theirs.at(id);
            if (task.contains("title") && task.at("title").is_string()) r.title = task.at("title").get<std::string>();
            fresh.emplace(r.from, r.to);
            out.fresh.push_back(std::move(r));
        }
        // OTHER's own entries follow; an entry the ancestor or CURRENT has too is not OTHER's alone.
        std::unordered_set<std::string> elsewhere = canonical_entries(v[0]);
        for (std::string c : canonical_entries(v[1])) elsewhere.insert(std::move(c));
        const NodeRef entries = v[2].entries();
        const auto others_own = [&](std::size_t i) {
            Result<std::string> c = canonical_json(entries.item(i));
            return c && !elsewhere.count(*c);
        };
        Result<Version> mapped = renamed(v[2], fresh, others_own, kLabels[2]);
        if (!mapped) return mapped.error();
        v[2] = std::move(*mapped);
    }
    if (out.fresh.empty() && out.replayed.empty()) return std::optional<TaskRenames>();
    for (int i = 0; i < 3; ++i) {
        out.plan[i] = std::move(v[i].plan_text);
        out.progress[i] = std::move(v[i].log_text);
    }
    return std::optional<TaskRenames>(std::move(out));
}

Result<std::string> with_rename_records(std::string_view merged_log, std::string_view merged_plan,
                                        const std::vector<TaskRename>& fresh, const std::string& display) {
    if (fresh.empty()) return std::string(merged_log);
    Result<Document> doc = parse_yaml(std::string(merged_log), display);
    if (!doc) return doc.error();
    const NodeRef entries = doc->root().valid() && doc->root().is_mapping() ? doc->root().find("entries") : NodeRef();
    std::optional<Instant> last;
    std::string run;
    for (std::size_t i = entries.valid() && entries.is_sequence() ? entries.size() : 0; i-- > 0;) {
        const NodeRef e = entries.item(i);
        if (!last) {
            if (Result<Instant> t = parse_progress_timestamp(string_at(e, "timestamp"))) last = *t;
        }
        if (run.empty()) run = string_at(e, "replayId");
        if (last && !run.empty()) break;
    }
    if (!last) return Error::invalid("cannot record the renames: " + display + " has no timestamped entry");
    Result<AppendPoint> point = progress_append_point(merged_log, *doc);
    if (!point) return point.error();
    std::map<std::string, YamlValue> tasks;
    if (Result<Document> plan = parse_yaml(std::string(merged_plan), "plan.small.yml"); plan && plan->root().valid()) {
        tasks = tasks_by_id(to_yaml_value(plan->root()));
    }
    std::string items;
    for (const TaskRename& r : fresh) {
        last = plus_one_ns(*last);
        YamlValue entry = YamlValue::object();
        entry["timestamp"] = format_timestamp_utc9(*last);
        entry["task_id"] = r.to;
        const auto t = tasks.find(r.to);
        entry["status"] = t != tasks.end() && t->second.contains("status") && t->second.at("status").is_string()
                              ? t->second.at("status").get<std::string>()
                              : std::string("pending");
        entry["evidence"] = "Renamed task " + r.from + " to " + r.to + " via small merge";
        entry["notes"] = rename_note(r);
        if (!run.empty()) entry["replayId"] = run;
        items += emit_sequence_item(entry, point->indent);
    }
    const AppendEdit edit = append_edit(*point, items, merged_log);
    std::string out;
    out.reserve(merged_log.size() + edit.text.size());
    out.append(merged_log.substr(0, edit.offset)).append(edit.text).append(merged_log.substr(edit.offset + edit.erase));
    return out;
}

std::vector<RecordedRename> recorded_renames(std::string_view progress_text) {
    std::vector<RecordedRename> out;
    if (note_lines(progress_text).empty()) return out;
    Result<Document> doc = parse_yaml(std::string(progress_text), "progress.small.yml");
    if (!doc || !doc->root().valid() || !doc->root().is_mapping()) return out;
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; entries.valid() && entries.is_sequence() && i < entries.size(); ++i) {
        if (std::optional<TaskRename> r = parse_rename_note(string_at(entries.item(i), "notes"))) {
            out.push_back({string_at(entries.item(i), "timestamp"), std::move(*r)});
        }
    }
    return out;
}

Result<MergeOutcome> merge_with_renames(MergeKind kind, std::string_view ancestor, std::string_view current,
                                        std::string_view other, const std::string& display,
                                        const std::optional<WorkspaceMergeSides>& sides) {
    if (!sides || (kind != MergeKind::Plan && kind != MergeKind::Progress)) {
        return merge_by_rule(kind, ancestor, current, other, display);
    }
    Result<std::optional<TaskRenames>> renames = task_renames(*sides);
    if (!renames || !*renames) {
        Result<MergeOutcome> plain = merge_by_rule(kind, ancestor, current, other, display);
        if (plain && !renames && !plain->conflicts.empty()) {
            plain->notes.push_back("task ids were not renamed: " + renames.error().message);
        }
        return plain;
    }
    const TaskRenames& t = **renames;
    const std::string* texts = kind == MergeKind::Plan ? t.plan : t.progress;
    Result<MergeOutcome> out = merge_by_rule(kind, texts[0], texts[1], texts[2], display);
    if (!out || !out->conflicts.empty()) return out;
    if (kind == MergeKind::Progress && !t.fresh.empty()) {
        Result<MergeOutcome> plan = merge_plan_texts(t.plan[0], t.plan[1], t.plan[2], "plan.small.yml");
        const std::string merged_plan = plan && plan->conflicts.empty() ? plan->text : t.plan[2];
        Result<std::string> text = with_rename_records(out->text, merged_plan, t.fresh, display);
        if (!text) return text.error();
        out->text = std::move(*text);
        out->added_entries += t.fresh.size();
    }
    for (const TaskRename& r : t.fresh) {
        out->renamed.push_back(describe_rename(r));
        out->notes.push_back("task " + r.from + " was added on both sides: OTHER's task " + describe_rename(r) +
                             ", with its entries; the progress log records the rename");
    }
    for (const TaskRename& r : t.replayed) {
        out->notes.push_back("an earlier merge renamed " + describe_rename(r) +
                             "; a side from before it was mapped the same way");
    }
    return out;
}

std::optional<WorkspaceMergeSides> merge_sides_from_git(const std::string& top, const std::string& pathname,
                                                        const std::string_view texts[3], const std::string& sides_hint,
                                                        const std::vector<std::string>& others) {
    const MergeKind kind = merge_kind_for(pathname);
    if (pathname.empty() || kind == MergeKind::Whole) return std::nullopt;
    Result<std::optional<GitRepo>> found = GitRepo::discover(top);
    if (!found || !*found) return std::nullopt;
    const GitRepo& repo = **found;
    std::string revs[3];
    if (!sides_hint.empty()) {
        std::size_t at = 0;
        for (std::string& rev : revs) {
            const std::size_t end = std::min(sides_hint.find(' ', at), sides_hint.size());
            rev = sides_hint.substr(at, end - at);
            at = end + 1;
        }
        if (revs[2].empty() || at <= sides_hint.size()) return std::nullopt;
    } else {
        if (others.size() != 1) return std::nullopt;
        Result<std::optional<std::string>> head = repo.head();
        if (!head || !*head) return std::nullopt;
        Result<std::optional<std::string>> base = repo.merge_base(**head, others[0]);
        if (!base || !*base) return std::nullopt;
        revs[0] = **base;
        revs[1] = **head;
        revs[2] = others[0];
    }
    const std::string dir = parent_path(pathname);
    const auto in_dir = [&](const char* name) { return dir.empty() ? std::string(name) : dir + "/" + name; };
    WorkspaceMergeSides sides;
    std::string handoff[3];
    for (int i = 0; i < 3; ++i) {
        Result<std::optional<std::string>> plan = repo.file_at(revs[i], in_dir("plan.small.yml"));
        Result<std::optional<std::string>> log = repo.file_at(revs[i], in_dir("progress.small.yml"));
        Result<std::optional<std::string>> hand = repo.file_at(revs[i], in_dir("handoff.small.yml"));
        if (!plan || !log || !hand) return std::nullopt;
        sides.plan[i] = plan->value_or("");
        sides.progress[i] = log->value_or("");
        handoff[i] = hand->value_or("");
        const std::string& mine = kind == MergeKind::Plan       ? sides.plan[i]
                                  : kind == MergeKind::Progress ? sides.progress[i]
                                                                : handoff[i];
        if (mine != texts[i]) return std::nullopt;  // not the merge git is doing: no renames
    }
    const auto by_driver = [](const std::string* t) { return t[0] != t[1] && t[0] != t[2] && t[1] != t[2]; };
    sides.advises = by_driver(handoff)          ? "handoff.small.yml"
                    : by_driver(sides.progress) ? "progress.small.yml"
                    : by_driver(sides.plan)     ? "plan.small.yml"
                                                : "";
    return sides;
}

}  // namespace small
