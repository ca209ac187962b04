// `small status --all`: each side's plan and log, and what differs. The logs
// of two sides share their older entries byte for byte (the log is
// append-only and merges keep the ancestor's bytes), so only the entries
// after the common prefix are parsed to count what is not merged.
#include "small/ops/inspect/status_all.hpp"

#include <algorithm>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "small/base/fast_hash.hpp"
#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/doc/jcs.hpp"
#include "small/doc/yaml.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/progress_query.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

// A side's plan as text (nullopt: the side has none).
struct SideTexts {
    std::optional<std::string> plan;
};

// A side's log, read a range at a time (issue 39: memory stays flat in the
// log's length): a work tree's file, or a branch's blob held by `own`.
struct SideLog {
    const FileSystem* fs = nullptr;
    std::string path;
    std::uint64_t size = 0;
    std::shared_ptr<const FileSystem> own;
    std::string read(std::uint64_t offset, std::uint64_t length) const {
        if (!fs || length == 0) return {};
        Result<FileRange> r = fs->read_range(path, offset, static_cast<std::size_t>(length));
        return r ? std::move(r->bytes) : std::string();
    }
};


// The workspace as it lies in the work tree at `top`.
WorkspacePaths workspace_in(const std::string& top, const std::string& rel) {
    WorkspacePaths w;
    w.root = rel.empty() ? top : join_path(top, rel);
    w.small_dir = small_dir_path(w.root);
    w.display_prefix = w.root + "/";
    return w;
}

// The log's items from byte `from` on, parsed alone: they sit at the
// sequence's indentation, so "entries:\n" + them is the same sequence.
// A tail that does not parse reads as no items. Only the tail is read.
Document items_from(const SideLog& log, std::uint64_t from, const std::string& display) {
    if (from >= log.size) return {};
    Result<Document> doc = parse_yaml("entries:\n" + log.read(from, log.size - from), display);
    return doc ? std::move(*doc) : Document();
}

NodeRef sequence_of(const Document& items) {
    const NodeRef root = items.root();
    const NodeRef seq = root.is_mapping() ? root.find("entries") : NodeRef();
    return seq.is_sequence() ? seq : NodeRef();
}

constexpr std::uint64_t kFirstSpan = std::uint64_t{64} << 10;

// The `entries:` sequence of the log, from a head long enough to decide.
std::optional<SequenceStart> find_log_sequence(const SideLog& log) {
    for (std::uint64_t span = kFirstSpan;; span *= 4) {
        const std::uint64_t n = std::min(span, log.size);
        const std::string head = log.read(0, n);
        if (head.size() != n) return std::nullopt;
        const std::optional<SequenceStart> seq = find_sequence(head, n == log.size);
        if (seq || n == log.size) return seq;
    }
}

// Where the item holding byte `pos` starts: the nearest line at or before it
// that starts an item at the sequence's indentation (the first item's line
// at the latest). Read backwards from `pos`, a growing range at a time.
std::uint64_t item_start_at_or_before(const SideLog& log, std::uint64_t pos, const SequenceStart& seq) {
    pos = std::min(pos, log.size);
    for (std::uint64_t span = kFirstSpan;; span *= 4) {
        const std::uint64_t lo = pos > span ? pos - span : 0;
        // starts_item reads at most indent + 2 bytes of a line starting at or before `pos`.
        const std::uint64_t hi = std::min(log.size, pos + seq.indent + 2);
        const std::string chunk = log.read(lo, hi - lo);
        if (chunk.size() != hi - lo) return seq.offset;
        const std::string_view text = chunk;
        std::size_t p = static_cast<std::size_t>(pos - lo);
        for (;;) {
            const std::size_t nl = p == 0 ? std::string_view::npos : text.rfind('\n', p - 1);
            if (nl == std::string_view::npos && lo > 0) break;  // the line starts before the range: widen it
            const std::size_t begin_here = nl == std::string_view::npos ? 0 : nl + 1;
            const std::uint64_t begin = lo + begin_here;
            if (begin <= seq.offset) return seq.offset;
            if (starts_item(text.substr(begin_here, text.find('\n', begin_here) - begin_here), seq.indent)) return begin;
            p = begin_here - 1;
        }
    }
}

// The length of the two logs' common prefix, compared a range at a time.
std::uint64_t common_prefix(const SideLog& a, const SideLog& b) {
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
    const std::uint64_t n = std::min(a.size, b.size);
    for (std::uint64_t at = 0; at < n; at += kPiece) {
        const std::uint64_t len = std::min(kPiece, n - at);
        const std::string x = a.read(at, len), y = b.read(at, len);
        const std::size_t m = std::min(x.size(), y.size());
        const std::size_t same =
            static_cast<std::size_t>(std::mismatch(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m), y.begin()).first -
                                     x.begin());
        if (same < len) return at + same;
    }
    return n;
}

std::string field_text(NodeRef entry, std::string_view key) {
    const NodeRef v = entry.is_mapping() ? entry.find(key) : NodeRef();
    return v.is_string() ? std::string(v.as_string()) : std::string(v.scalar_text());
}

// The side's last entry and, against the current side's log, how many of
// its entries after the two logs' common prefix the current one lacks.
void compare_logs(const SideLog& side, const SideLog& current, const std::string& display, WorkSide& out) {
    const std::optional<SequenceStart> seq = find_log_sequence(side);
    if (!seq) return;
    const Document last = items_from(side, item_start_at_or_before(side, side.size, *seq), display);
    if (const NodeRef items = sequence_of(last); items.valid() && items.size() > 0) {
        const NodeRef e = items.item(items.size() - 1);
        out.newest = SideEntry{field_text(e, "timestamp"), field_text(e, "task_id"), field_text(e, "status"),
                               field_text(e, "evidence")};
    }
    if (out.current) return;
    const std::uint64_t cut = item_start_at_or_before(side, common_prefix(side, current), *seq);
    std::unordered_map<std::string, std::size_t> theirs;
    {
        const Document their_items = items_from(current, cut, display);
        const NodeRef ts = sequence_of(their_items);
        for (std::size_t i = 0; ts.valid() && i < ts.size(); ++i) ++theirs[entry_identity(ts.item(i))];
    }
    const Document our_items = items_from(side, cut, display);
    const NodeRef os = sequence_of(our_items);
    for (std::size_t i = 0; os.valid() && i < os.size(); ++i) {
        const auto it = theirs.find(entry_identity(os.item(i)));
        if (it != theirs.end() && it->second > 0) --it->second;
        else ++out.unmerged;
    }
}

// Plans and logs parsed once per content: branches at one commit, a merge
// base that is a side's tip, and texts a work tree's caches already
// describe are not parsed again.
class ParsedTexts {
public:
    void remember_plan(std::string_view text, std::vector<PlanTaskOutline> outline) {
        plans_.try_emplace(fast_hash_hex(text), std::move(outline));
    }
    // Logs are known by a hash streamed through them (log_key), never held whole.
    void remember_log(const std::string& key, WorkFacts facts) { logs_.try_emplace(key, std::move(facts)); }
    // nullopt when the plan does not parse (`problem` says why).
    std::optional<std::vector<PlanTaskOutline>> plan(const std::string& text, const std::string& display,
                                                     std::string& problem) {
        const std::string key = fast_hash_hex(text);
        if (const auto it = plans_.find(key); it != plans_.end()) return it->second;
        Result<Document> doc = parse_yaml(text, display);
        if (!doc) {
            problem = doc.error().describe();
            return std::nullopt;
        }
        return plans_.emplace(key, outline_plan(doc->root())).first->second;
    }
    // The facts of the log `log` (its key `key`), read in windows when it is
    // long; a log that does not parse has none.
    const WorkFacts& log(const std::string& key, const SideLog& log, const std::string& display,
                         const std::string& run_id) {
        if (const auto it = logs_.find(key); it != logs_.end()) return it->second;
        Result<LogFacts> facts = read_log_facts(*log.fs, log.path, display, run_id);
        WorkFacts tasks = facts ? std::move(facts->tasks) : WorkFacts();
        if (key.empty()) return unkeyed_.emplace_back(std::move(tasks));  // no key: not remembered
        return logs_.emplace(key, std::move(tasks)).first->second;
    }

private:
    std::map<std::string, std::vector<PlanTaskOutline>> plans_;
    std::map<std::string, WorkFacts> logs_;
    std::list<WorkFacts> unkeyed_;
};

// The ids of the plan at a commit (a merge base), read once per commit.
class BasePlans {
public:
    BasePlans(const GitRepo& repo, std::string plan_path, ParsedTexts& parsed)
        : repo_(repo), plan_path_(std::move(plan_path)), parsed_(parsed) {}
    const std::set<std::string, std::less<>>& ids_at(const std::string& commit) {
        auto [it, fresh] = ids_.try_emplace(commit);
        if (!fresh) return it->second;
        Result<std::optional<std::string>> text = repo_.file_at(commit, plan_path_);
        if (!text || !*text) return it->second;
        std::string problem;
        if (const auto outline = parsed_.plan(**text, plan_path_, problem)) {
            for (const PlanTaskOutline& t : *outline) it->second.insert(t.id);
        }
        return it->second;
    }

private:
    const GitRepo& repo_;
    std::string plan_path_;
    ParsedTexts& parsed_;
    std::map<std::string, std::set<std::string, std::less<>>> ids_;
};

// What one side holds, before comparison: its work tree's workspace (read
// through its caches) or its branch's files.
struct SideSource {
    WorkSide side;
    std::optional<WorkspacePaths> checkout;  // set for a work tree
    SideTexts texts;                          // the plan's text
    std::optional<SideLog> log;               // the log, when the side has one to compare
};

// The key ParsedTexts knows a log by (a hash of its bytes, streamed) and
// its size; nullopt when read_file would not read it (missing, not a file,
// longer than kMaxFileBytes).
std::optional<std::pair<std::string, std::uint64_t>> log_key(const FileSystem& fs, const std::string& path) {
    FastHasher hasher;
    Result<std::uint64_t> size = fs.stream_prefix(path, std::numeric_limits<std::uint64_t>::max(),
                                                  [&](std::string_view piece) { hasher.update(piece); });
    if (!size || *size > kMaxFileBytes) return std::nullopt;
    return std::make_pair(hasher.digest(), *size);
}

void read_checkout(const FileSystem& fs, const std::string& run_id, ParsedTexts& parsed, SideSource& s) {
    const WorkspacePaths& w = *s.checkout;
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, w);
    if (!plan) {
        s.side.problem = plan.error().describe();
        return;
    }
    if (!*plan) return;
    s.side.has_workspace = true;
    WorkFacts facts;
    if (Result<LogFacts> f = cached_log_facts(fs, w, run_id)) facts = std::move(f->tasks);
    else s.side.problem = f.error().describe();
    s.side.tasks = side_tasks(**plan, facts);
    // The log as read_file would have it: a regular file of a size it reads.
    const std::string log_path = w.path_of(kProgressFileName);
    if (auto key = log_key(fs, log_path)) {
        parsed.remember_log(key->first, facts);
        s.log = SideLog{&fs, log_path, key->second, nullptr};
    }
    if (Result<std::string> text = fs.read_file(w.path_of(kPlanFileName))) {
        parsed.remember_plan(*text, std::move(**plan));
        s.texts.plan = std::move(*text);
    }
}

void read_branch(const GitRepo& repo, const std::string& rel, const std::string& run_id, ParsedTexts& parsed,
                 SideSource& s) {
    const auto at = [&](std::string_view name) {
        Result<std::optional<std::string>> t = repo.file_at(s.side.head, join_path(rel, small_relative(name)));
        return t ? std::move(*t) : std::optional<std::string>();
    };
    // The log's blob is streamed when it is a loose object, else held once;
    // either way it is read as a file of its own, in windows as a work
    // tree's log is; its key as log_key's.
    std::string key;
    const std::string log_path = "/" + std::string(kProgressFileName);
    Result<std::unique_ptr<GitBlobStream>> stream =
        repo.stream_file_at(s.side.head, join_path(rel, small_relative(kProgressFileName)));
    if (stream && *stream) {
        const std::uint64_t size = (*stream)->size();
        std::shared_ptr<const FileSystem> own = blob_file_system(log_path, std::move(*stream));
        s.log = SideLog{own.get(), log_path, size, own};
    } else if (std::optional<std::string> progress = at(kProgressFileName)) {
        FastHasher hasher;
        hasher.update(*progress);
        key = hasher.digest();
        const std::uint64_t size = progress->size();
        auto own = std::make_shared<MemoryFileSystem>();
        std::string path = "/" + std::string(kProgressFileName);
        own->add_file(path, std::move(*progress));
        s.log = SideLog{own.get(), std::move(path), size, own};
    }
    s.texts = {at(kPlanFileName)};
    if (!s.texts.plan) return;
    const std::string display = s.side.name + ":" + join_path(rel, small_relative(kPlanFileName));
    const std::optional<std::vector<PlanTaskOutline>> plan = parsed.plan(*s.texts.plan, display, s.side.problem);
    if (!plan) return;
    s.side.has_workspace = true;
    static const WorkFacts kNoFacts;
    if (s.log && key.empty()) {
        if (std::optional<std::pair<std::string, std::uint64_t>> k = log_key(*s.log->fs, s.log->path)) key = k->first;
    }
    s.side.tasks = side_tasks(*plan, s.log ? parsed.log(key, *s.log, s.side.name + ":progress", run_id) : kNoFacts);
}

// The sides in display order: the work trees (the main one first), then
// the local branches no work tree has checked out.
std::vector<SideSource> list_sides(const FileSystem& fs, const GitRepo& repo, const std::string& rel,
                                   const std::vector<GitCheckout>& checkouts, const std::vector<GitBranch>& branches) {
    const std::optional<std::string> here = fs.real_path(normal_dir_path(repo.workdir()));
    std::vector<SideSource> out;
    std::set<std::string, std::less<>> checked_out;
    for (const GitCheckout& c : checkouts) {
        SideSource s;
        // A detached work tree is named by its folder: names key the JSON's
        // statuses, and two detached work trees must not share one.
        s.side.name = c.branch.empty() ? "HEAD (" + file_name(c.path) + ")" : c.branch;
        s.side.worktree = c.path;
        s.side.head = c.head;
        s.side.current = here && fs.real_path(c.path) == here;
        s.checkout = workspace_in(c.path, rel);
        if (!c.branch.empty()) checked_out.insert(c.branch);
        out.push_back(std::move(s));
    }
    for (const GitBranch& b : branches) {
        if (checked_out.count(b.name)) continue;
        SideSource s;
        s.side.name = b.name;
        s.side.head = b.tip;
        out.push_back(std::move(s));
    }
    return out;
}

// The ids each side added since its merge base with the current side.
void find_added(const GitRepo& repo, const std::string& rel, ParsedTexts& parsed, std::vector<SideSource>& sources,
                const WorkSide& current) {
    if (current.head.empty()) return;
    BasePlans bases(repo, join_path(rel, small_relative(kPlanFileName)), parsed);
    for (SideSource& s : sources) {
        if (s.side.current || !s.side.has_workspace || s.side.head.empty()) continue;
        Result<std::optional<std::string>> base = repo.merge_base(s.side.head, current.head);
        static const std::set<std::string, std::less<>> kNone;
        const auto& known = base && *base ? bases.ids_at(**base) : kNone;
        for (const SideTask& t : s.side.tasks) {
            if (!t.id.empty() && !known.count(t.id)) s.side.added.push_back(t.id);
        }
    }
}

// Fills the canonical JSON of the tasks a collision must be judged on: the
// copies of an id two sides (the current one counted when it holds it)
// added with the same title (different titles already differ). Each plan
// involved is parsed once.
void fill_contents(std::vector<SideSource>& sources) {
    std::map<std::string, std::set<std::string>> titles;  // id -> the titles its adders give it
    std::map<std::string, int> adders;
    const auto current = std::find_if(sources.begin(), sources.end(), [](const SideSource& s) { return s.side.current; });
    const auto title_in = [](const WorkSide& side, const std::string& id) -> std::optional<std::string> {
        for (const SideTask& t : side.tasks) {
            if (t.id == id) return t.title;
        }
        return std::nullopt;
    };
    for (const SideSource& s : sources) {
        for (const std::string& id : s.side.added) {
            adders[id] += 1;
            if (const auto t = title_in(s.side, id)) titles[id].insert(*t);
            if (current == sources.end() || &*current == &s) continue;
            if (const auto t = title_in(current->side, id)) {
                adders[id] += 1;
                titles[id].insert(*t);
            }
        }
    }
    for (SideSource& s : sources) {
        std::optional<Document> plan;
        for (SideTask& t : s.side.tasks) {
            const auto it = adders.find(t.id);
            if (it == adders.end() || it->second < 2 || titles[t.id].size() > 1) continue;
            if (!plan) {
                Result<Document> doc = parse_yaml(s.texts.plan.value_or(""), s.side.name);
                plan = doc ? std::move(*doc) : Document();
            }
            if (Result<std::string> json = canonical_json(find_task_node(*plan, t.id))) t.content = std::move(*json);
        }
    }
}

void read_claims(const FileSystem& fs, const WorkspacePaths& ws, StatusAllReport& r) {
    const ClaimStore store = locate_claim_store(fs, ws);
    if (!fs.file_exists(store.file)) return;
    Result<ClaimTable> table = read_claim_table(fs, store);
    if (!table) {
        r.claims_problem = table.error().describe();
        return;
    }
    const std::string host = this_host_name();
    const std::set<std::string, std::less<>> done = done_task_ids(fs, ws);  // a lease on a settled task holds nothing
    for (const Claim& c : table->claims) {
        if (lease_state(c, r.now, host) != LeaseState::Expired && !done.count(c.task)) r.claims.push_back(c);
    }
}

}  // namespace

void resolve_side_log(const FileSystem& fs, const std::string& side_path, const std::string& current_path,
                      const std::string& display, WorkSide& side) {
    const auto log_at = [&](const std::string& path) {
        if (path.empty()) return SideLog{};
        Result<FileRange> head = fs.read_range(path, 0, 0);
        return head ? SideLog{&fs, path, head->file_size, nullptr} : SideLog{};
    };
    compare_logs(log_at(side_path), log_at(current_path), display, side);
}

Result<StatusAllReport> status_all_command(const FileSystem& fs, const WorkspacePaths& ws) {
    if (Status ok = require_small_dir(fs, ws); !ok) return ok.error();
    Result<GitRepo> repo = open_workspace_repo(ws.root, "small status --all");
    if (!repo) return repo.error();
    Result<std::vector<GitCheckout>> checkouts = repo->checkouts();
    if (!checkouts) return checkouts.error();
    Result<std::vector<GitBranch>> branches = repo->local_branches();
    if (!branches) return branches.error();
    StatusAllReport r;
    r.now = current_instant();
    r.workspace = path_in_workdir(repo->workdir(), ws.root).value_or("");
    std::string run_id;
    if (Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws)) run_id = meta->run_replay_id;
    std::vector<SideSource> sources = list_sides(fs, *repo, r.workspace, *checkouts, *branches);
    ParsedTexts parsed;
    for (SideSource& s : sources) {
        if (s.checkout) read_checkout(fs, run_id, parsed, s);
    }
    const auto current = std::find_if(sources.begin(), sources.end(), [](const SideSource& s) { return s.side.current; });
    const SideLog no_log;
    const SideLog& current_log = current != sources.end() && current->log ? *current->log : no_log;
    // A branch's log is compared as soon as it is read, and let go: a packed
    // one (held whole) is held one at a time.
    for (SideSource& s : sources) {
        if (s.checkout) continue;
        read_branch(*repo, r.workspace, run_id, parsed, s);
        if (s.log) compare_logs(*s.log, current_log, s.side.name + ":progress", s.side);
        s.log.reset();
    }
    for (SideSource& s : sources) {
        if (s.checkout && s.log) compare_logs(*s.log, current_log, s.side.name + ":progress", s.side);
    }
    if (current != sources.end()) {
        find_added(*repo, r.workspace, parsed, sources, current->side);
        fill_contents(sources);
    }
    for (SideSource& s : sources) r.sides.push_back(std::move(s.side));
    r.comparison = compare_sides(r.sides);
    read_claims(fs, ws, r);
    return r;
}

}  // namespace small
