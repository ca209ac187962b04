// `small status --all`: each side's plan and log, and what differs. The logs
// of two sides share their older entries byte for byte (the log is
// append-only and merges keep the ancestor's bytes), so only the entries
// after the common prefix are parsed to count what is not merged.
#include "small/ops/inspect/status_all.hpp"

#include <algorithm>
#include <map>
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

// A side's two files as text (nullopt: the side has none), and where its
// plan and facts come from.
struct SideTexts {
    std::optional<std::string> plan, progress;
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
// A tail that does not parse reads as no items.
Document items_from(std::string_view text, std::size_t from, const std::string& display) {
    if (from >= text.size()) return {};
    Result<Document> doc = parse_yaml("entries:\n" + std::string(text.substr(from)), display);
    return doc ? std::move(*doc) : Document();
}

NodeRef sequence_of(const Document& items) {
    const NodeRef root = items.root();
    const NodeRef seq = root.is_mapping() ? root.find("entries") : NodeRef();
    return seq.is_sequence() ? seq : NodeRef();
}

// Where the item holding byte `pos` starts: the nearest line at or before it
// that starts an item at the sequence's indentation (the first item's line
// at the latest).
std::size_t item_start_at_or_before(std::string_view text, std::size_t pos, const SequenceStart& seq) {
    pos = std::min(pos, text.size());
    for (;;) {
        const std::size_t nl = pos == 0 ? std::string_view::npos : text.rfind('\n', pos - 1);
        const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
        if (begin <= seq.offset) return seq.offset;
        if (starts_item(text.substr(begin, text.find('\n', begin) - begin), seq.indent)) return begin;
        pos = begin - 1;
    }
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
    const std::size_t n = std::min(a.size(), b.size());
    return static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin()).first -
                                    a.begin());
}

std::string field_text(NodeRef entry, std::string_view key) {
    const NodeRef v = entry.is_mapping() ? entry.find(key) : NodeRef();
    return v.is_string() ? std::string(v.as_string()) : std::string(v.scalar_text());
}

// The side's last entry and, against the current side's log, how many of
// its entries after the two logs' common prefix the current one lacks.
void compare_logs(std::string_view side, std::string_view current, const std::string& display, WorkSide& out) {
    const std::optional<SequenceStart> seq = find_sequence(side, true);
    if (!seq) return;
    const Document last = items_from(side, item_start_at_or_before(side, side.size(), *seq), display);
    if (const NodeRef items = sequence_of(last); items.valid() && items.size() > 0) {
        const NodeRef e = items.item(items.size() - 1);
        out.newest = SideEntry{field_text(e, "timestamp"), field_text(e, "task_id"), field_text(e, "status"),
                               field_text(e, "evidence")};
    }
    if (out.current) return;
    const std::size_t cut = item_start_at_or_before(side, common_prefix(side, current), *seq);
    std::unordered_map<std::string, std::size_t> theirs;
    const Document their_items = items_from(current, cut, display);
    const NodeRef ts = sequence_of(their_items);
    for (std::size_t i = 0; ts.valid() && i < ts.size(); ++i) ++theirs[entry_identity(ts.item(i))];
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
    void remember_log(std::string_view text, WorkFacts facts) { logs_.try_emplace(fast_hash_hex(text), std::move(facts)); }
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
    const WorkFacts& log(const std::string& text, const std::string& display, const std::string& run_id) {
        const std::string key = fast_hash_hex(text);
        if (const auto it = logs_.find(key); it != logs_.end()) return it->second;
        Result<Document> doc = parse_yaml(text, display);
        return logs_.emplace(key, doc ? log_facts(doc->root(), run_id).tasks : WorkFacts()).first->second;
    }

private:
    std::map<std::string, std::vector<PlanTaskOutline>> plans_;
    std::map<std::string, WorkFacts> logs_;
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
    SideTexts texts;                          // set for a branch; a work tree's log once read
};

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
    if (Result<std::string> log = fs.read_file(w.path_of(kProgressFileName))) {
        parsed.remember_log(*log, facts);
        s.texts.progress = std::move(*log);
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
    s.texts = {at(kPlanFileName), at(kProgressFileName)};
    if (!s.texts.plan) return;
    const std::string display = s.side.name + ":" + join_path(rel, small_relative(kPlanFileName));
    const std::optional<std::vector<PlanTaskOutline>> plan = parsed.plan(*s.texts.plan, display, s.side.problem);
    if (!plan) return;
    s.side.has_workspace = true;
    static const WorkFacts kNoFacts;
    const WorkFacts& facts =
        s.texts.progress ? parsed.log(*s.texts.progress, s.side.name + ":progress", run_id) : kNoFacts;
    s.side.tasks = side_tasks(*plan, facts);
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
        else read_branch(*repo, r.workspace, run_id, parsed, s);
    }
    const auto current = std::find_if(sources.begin(), sources.end(), [](const SideSource& s) { return s.side.current; });
    const std::string no_log;
    const std::string& current_log = current != sources.end() && current->texts.progress ? *current->texts.progress : no_log;
    for (SideSource& s : sources) {
        if (s.texts.progress) compare_logs(*s.texts.progress, current_log, s.side.name + ":progress", s.side);
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
