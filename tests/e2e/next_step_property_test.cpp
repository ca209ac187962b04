// Issue 37: every next step small suggests works as written. A property test
// with the real binary over random plans and histories (tasks blocked,
// cancelled, claimed by another agent, held by this one, a stale handoff, a
// second worktree's work merged or not yet merged): an agent that does exactly
// what `small status --brief --json` says (next_command, next_action), each
// placeholder filled, reaches `nothing:` or `stop:`. No command fails, none
// repeats (a loop), none breaks a rule of AGENTS.md or D18 (start or complete
// only a task that is not blocked, not settled, not another agent's, whose
// dependencies are completed; never unblock, never force; never touch the human's
// files; the log only grows). A placeholder run as printed is refused and writes
// nothing. The same for MCP: `resume`'s next_call names a tool of tools/list
// with arguments its inputSchema accepts, and the call works.
//
// Deterministic: round i uses std::mt19937(kFirstSeed + i). A failing round
// prints its seed, its plan and every command it ran; SMALL_PROPERTY_SEED=<seed>
// runs that round alone, SMALL_PROPERTY_ROUNDS=<n> runs n rounds, and
// SMALL_PROPERTY_VERBOSE=1 prints every round's story.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "support/git_fixture.hpp"
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

constexpr std::uint32_t kFirstSeed = 3700;
constexpr int kRounds = 80;       // CLI rounds; a third of them with git
constexpr int kMcpEvery = 2;      // MCP runs every second round's seed
constexpr const char* kGit = "/usr/bin/git";
const std::string kMe = "alice";  // the agent that follows the steps
const std::string kOther = "bob";  // another agent: claims, the other worktree

// ---------------------------------------------------------------------------
// What the generator knows of the plan
// ---------------------------------------------------------------------------

enum class St { Pending, InProgress, Completed, Cancelled, Blocked };

const char* word(St s) {
    switch (s) {
        case St::Pending: return "pending";
        case St::InProgress: return "in_progress";
        case St::Completed: return "completed";
        case St::Cancelled: return "cancelled";
        case St::Blocked: return "blocked";
    }
    return "?";
}

bool open_status(St s) { return s == St::Pending || s == St::InProgress; }

struct Task {
    std::string id, title;
    std::vector<std::size_t> deps;  // earlier tasks
    St status = St::Pending;
    std::string held_by;            // a live claim
    bool other_side = false;        // worked on in the other worktree
};

// What the rounds covered, printed at the end.
struct Tally {
    int rounds = 0, git = 0, merged = 0, unmerged = 0, claimed_by_other = 0, held_by_me = 0, stale = 0;
    int stop = 0, complete = 0, steps = 0, placeholder_refusals = 0;
    std::map<std::string, int> tools;
    std::string text() const {
        std::string out = std::to_string(rounds) + " rounds (" + std::to_string(git) + " with git: " +
                          std::to_string(merged) + " merged, " + std::to_string(unmerged) + " not merged), " +
                          std::to_string(claimed_by_other) + " with another agent's claims, " +
                          std::to_string(held_by_me) + " with a task held, " + std::to_string(stale) +
                          " starting from a stale handoff; ended: " + std::to_string(stop) + " stop, " +
                          std::to_string(complete) + " complete; " + std::to_string(steps) + " steps followed (";
        std::string sep;
        for (const auto& [tool, n] : tools) out += sep + tool + " " + std::to_string(n), sep = ", ";
        return out + "), " + std::to_string(placeholder_refusals) + " placeholders refused as printed";
    }
};

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

// POSIX sh words of `line`: '…', "…" (\ escapes " \ $ `), \ outside quotes.
std::vector<std::string> shell_words(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t') {
            if (in_word) words.push_back(word), word.clear(), in_word = false;
        } else if (c == '\'') {
            in_word = true;
            for (++i; i < line.size() && line[i] != '\''; ++i) word += line[i];
        } else if (c == '"') {
            in_word = true;
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '\\' && i + 1 < line.size() && std::string("\"\\$`").find(line[i + 1]) != std::string::npos) ++i;
                word += line[i];
            }
        } else if (c == '\\' && i + 1 < line.size()) {
            in_word = true;
            word += line[++i];
        } else {
            in_word = true;
            word += c;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

std::string sh_single_quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string flag_of(std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return "--" + name;
}

// Every file under `dir`, by path: what a refused write must leave as it was.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_regular_file()) out[it->path().string()] = read_file(it->path());
    }
    return out;
}

std::string first_difference(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
    for (const auto& [path, bytes] : a) {
        const auto it = b.find(path);
        if (it == b.end()) return path + " was removed";
        if (it->second != bytes) return path + " changed";
    }
    for (const auto& [path, bytes] : b) {
        if (!a.count(path)) return path + " was created";
    }
    return "";
}

// The failed test parts so far: a round that adds one prints its story, a
// step whose checks add one ends its round. (HasFailure() is the test's, and
// stays true for every later round.)
int failures_so_far() {
    const ::testing::TestResult* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
    int n = 0;
    for (int i = 0; i < result->total_part_count(); ++i) n += result->GetTestPartResult(i).failed() ? 1 : 0;
    return n;
}

// The seeds to run: SMALL_PROPERTY_SEED alone, else SMALL_PROPERTY_ROUNDS (or
// kRounds) from kFirstSeed.
std::vector<std::uint32_t> seeds() {
    if (const char* one = std::getenv("SMALL_PROPERTY_SEED"); one && *one) {
        return {static_cast<std::uint32_t>(std::stoul(one))};
    }
    int rounds = kRounds;
    if (const char* n = std::getenv("SMALL_PROPERTY_ROUNDS"); n && *n) rounds = std::stoi(n);
    std::vector<std::uint32_t> out;
    for (int i = 0; i < rounds; ++i) out.push_back(kFirstSeed + static_cast<std::uint32_t>(i));
    return out;
}

// ---------------------------------------------------------------------------
// A round: a workspace made by a random history
// ---------------------------------------------------------------------------

class Round {
public:
    explicit Round(std::uint32_t seed) : seed_(seed), rng_(seed), env_(isolated_git_env(tmp_.path())) {
        fs::create_directory(repo());
        // A third of the rounds run in a git repository with a second worktree.
        git_ = fs::exists(kGit) && seed % 3 == 0;
    }

    std::uint32_t seed() const { return seed_; }
    bool git() const { return git_; }
    fs::path repo() const { return tmp_.path() / "repo"; }
    fs::path side() const { return tmp_.path() / "wt-side"; }
    const fs::path& tmp() const { return tmp_.path(); }
    const std::vector<Task>& tasks() const { return tasks_; }
    std::size_t task_count() const { return tasks_.size(); }

    Env env_of(const std::string& agent) const {
        Env env = env_;
        env.emplace_back("SMALL_AGENT", agent);
        return env;
    }

    // What the round did, for a failure: the seed, the plan, every command.
    std::string story() const {
        std::string out = "Round seed " + std::to_string(seed_) + (git_ ? " (git)" : "") +
                          ": rerun alone with SMALL_PROPERTY_SEED=" + std::to_string(seed_) + "\nPlan (as the history left it):\n";
        for (const Task& t : tasks_) {
            out += "  " + t.id + " \"" + t.title + "\"";
            if (!t.deps.empty()) {
                out += " depends on";
                for (std::size_t d : t.deps) out += " " + tasks_[d].id;
            }
            out += std::string(" -> ") + word(t.status) + (t.held_by.empty() ? "" : ", held by " + t.held_by) +
                   (t.other_side ? ", other worktree" : "") + "\n";
        }
        return out + "Commands:\n" + log_;
    }
    void note(const std::string& line) { log_ += "  # " + line + "\n"; }

    RunResult small(const std::string& agent, const fs::path& cwd, const std::vector<std::string>& args) {
        const RunResult r = run_in(cwd, args, env_of(agent));
        record(agent, cwd, "small", args, r);
        return r;
    }
    bool ok(const std::string& agent, const fs::path& cwd, const std::vector<std::string>& args) {
        const RunResult r = small(agent, cwd, args);
        EXPECT_EQ(r.exit_code, 0) << "a history command failed (the generator's own)\n" << r;
        return r.exit_code == 0;
    }
    // `small ARGS --json`, which must succeed: its document (null when not).
    // Logged when it fails or `write` says it is part of the history.
    json json_of(const std::string& agent, const fs::path& cwd, std::vector<std::string> args, bool write = false) {
        args.push_back("--json");
        const RunResult r = run_in(cwd, args, env_of(agent));
        const std::optional<json> doc = parse_single_json(r.out);
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(doc) << "not one JSON document\n" << r;
        if (write || r.exit_code != 0) record(agent, cwd, "small", args, r);
        return r.exit_code == 0 && doc ? *doc : json();
    }
    // `line` run by sh as `agent` would type it (the built small is first on PATH).
    RunResult shell(const std::string& agent, const fs::path& cwd, const std::string& line) {
        RunOptions o;
        o.cwd = cwd;
        o.env = env_of(agent);
        o.program = "/bin/sh";
        const RunResult r = run_small({"-c", line}, o);
        record(agent, cwd, "sh -c", {line}, r);
        return r;
    }
    bool git_ok(const std::vector<std::string>& args, const fs::path& cwd) {
        RunOptions o;
        o.cwd = cwd;
        o.env = env_;
        o.program = kGit;
        const RunResult r = run_small(args, o);
        record("", cwd, "git", args, r);
        EXPECT_EQ(r.exit_code, 0) << r;
        return r.exit_code == 0;
    }

    // The tasks `agent` holds live claims on, as `small ready --agent` lists them.
    std::set<std::string> held_by(const std::string& agent, const fs::path& cwd) {
        std::set<std::string> out;
        const json ready = json_of(kMe, cwd, {"ready", "--agent", agent});
        for (const json& c : ready.value("held", json::array())) out.insert(c.value("task", ""));
        return out;
    }

    // Builds the round's workspace; false when a history command failed.
    bool build(Tally& tally);

private:
    void record(const std::string& agent, const fs::path& cwd, const std::string& program,
                const std::vector<std::string>& args, const RunResult& r) {
        std::string where = cwd == repo() ? "repo" : cwd == side() ? "wt-side" : cwd.string();
        log_ += "  [" + (agent.empty() ? std::string("git") : agent) + " in " + where + "] " + program;
        for (const std::string& a : args) log_ += " " + (a.find_first_of(" \"'<>") == std::string::npos ? a : sh_single_quoted(a));
        log_ += "  -> exit " + std::to_string(r.exit_code) + "\n";
        if (r.exit_code != 0) log_ += "    stdout: " + r.out.substr(0, 600) + "\n    stderr: " + r.err.substr(0, 600) + "\n";
    }

    // Straight from mt19937's numbers (the standard distributions and shuffle
    // differ between standard libraries): a seed means the same round everywhere.
    double uniform() { return static_cast<double>(rng_()) / 4294967296.0; }
    bool chance(double p) { return uniform() < p; }
    std::size_t pick(std::size_t lo, std::size_t hi) { return lo + rng_() % (hi - lo + 1); }
    template <typename T>
    void shuffle(std::vector<T>& v) {
        for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[pick(0, i - 1)]);
    }

    bool deps_completed(const std::vector<Task>& view, std::size_t i) const {
        return std::all_of(view[i].deps.begin(), view[i].deps.end(),
                           [&](std::size_t d) { return view[d].status == St::Completed; });
    }

    bool make_plan();
    // One random move on task i by `agent` in `cwd`, on `view` (what that checkout's plan says).
    bool act(std::vector<Task>& view, std::size_t i, const std::string& agent, const fs::path& cwd);
    bool claims(Tally& tally);
    bool two_worktrees(Tally& tally);

    std::uint32_t seed_;
    std::mt19937 rng_;
    TempDir tmp_{true};  // under /dev/shm when there is one: the many small writes sync at memory speed
    Env env_;
    bool git_ = false;
    std::vector<Task> tasks_;
    std::string log_;
};

bool Round::make_plan() {
    const std::size_t n = pick(2, 8);
    if (!ok(kMe, repo(), {"init", "--no-agents", "--intent", "Property round " + std::to_string(seed_)})) return false;
    for (std::size_t i = 0; i < n; ++i) {
        Task t;
        t.id = "task-" + std::to_string(i + 1);
        t.title = "Part " + std::to_string(i + 1) + " of round " + std::to_string(seed_);
        if (i == 0) {
            if (!ok(kMe, repo(), {"plan", "--title", t.id, t.title})) return false;
        } else {
            const json added = json_of(kMe, repo(), {"plan", "--add", t.title}, true);
            EXPECT_EQ(added.value("added_task_id", ""), t.id) << added;
            if (added.value("added_task_id", "") != t.id) return false;
        }
        tasks_.push_back(t);
    }
    for (std::size_t i = 1; i < n; ++i) {
        std::vector<std::string> edit = {"plan"};
        if (chance(0.45)) {
            std::vector<std::size_t> earlier(i);
            for (std::size_t k = 0; k < i; ++k) earlier[k] = k;
            shuffle(earlier);
            earlier.resize(std::min<std::size_t>(i, pick(1, 2)));
            std::sort(earlier.begin(), earlier.end());
            std::string deps;
            for (std::size_t d : earlier) deps += (deps.empty() ? "" : ",") + tasks_[d].id;
            tasks_[i].deps = earlier;
            edit.insert(edit.end(), {"--depends", tasks_[i].id + ":" + deps});
        }
        if (chance(0.3)) edit.insert(edit.end(), {"--step", tasks_[i].id + ":Write part " + std::to_string(i + 1)});
        if (chance(0.3)) edit.insert(edit.end(), {"--acceptance", tasks_[i].id + ":Part " + std::to_string(i + 1) + " passes its test"});
        if (edit.size() > 1 && !ok(kMe, repo(), edit)) return false;
    }
    return true;
}

bool Round::act(std::vector<Task>& view, std::size_t i, const std::string& agent, const fs::path& cwd) {
    Task& t = view[i];
    const double r = uniform();
    // How a status is written: checkpoint, progress add (it sets the plan's
    // status too), or, now and then, the plan edit alone (a log line, no evidence).
    const double how = uniform();
    const auto write = [&](St status, const std::string& evidence, const char* plan_flag) {
        t.status = status;
        if (plan_flag && how < 0.15) return ok(agent, cwd, {"plan", plan_flag, t.id});
        std::vector<std::string> args = how < 0.55 ? std::vector<std::string>{"progress", "add"} : std::vector<std::string>{"checkpoint"};
        args.insert(args.end(), {"--task", t.id, "--status", word(status), "--evidence", evidence});
        return ok(agent, cwd, args);
    };
    const bool ready = deps_completed(view, i);
    if (r < 0.22) return true;  // left pending
    if (r < 0.30) {  // looked at, and left pending by an entry (a work entry: the task counts as started)
        t.status = St::Pending;
        return ok(agent, cwd, {"progress", "add", "--task", t.id, "--status", "pending", "--evidence", "Read the code of " + t.id});
    }
    if (r < 0.50 || (r < 0.82 && !ready)) return write(St::InProgress, "Started " + t.id, "--in-progress");
    if (r < 0.82) {
        if (chance(0.3) && !write(St::InProgress, "Started " + t.id, nullptr)) return false;
        return write(St::Completed, "Finished " + t.id + ": its test passes", "--done");
    }
    if (r < 0.90) {
        t.status = St::Cancelled;
        if (how < 0.2) return ok(agent, cwd, {"plan", "--cancel", t.id});
        return ok(agent, cwd, {"checkpoint", "--task", t.id, "--status", "cancelled", "--evidence", "Dropped " + t.id});
    }
    // A human's reason is sometimes long (the log keeps up to 200 bytes of it).
    const std::string reason = chance(0.15) ? "Needs the production database credentials from the operations team, who "
                                              "are away until Monday; asked in the ops channel (" + t.id + ")"
                                            : "Needs credentials from ops (" + t.id + ")";
    return write(St::Blocked, reason, "--blocked");
}

// Another agent's claims (from the other worktree when there is one: all
// worktrees share them), and sometimes a task this agent holds.
bool Round::claims(Tally& tally) {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
        if (open_status(tasks_[i].status) && !tasks_[i].other_side && tasks_[i].held_by.empty()) open.push_back(i);
    }
    shuffle(open);
    const fs::path where = git_ && fs::exists(side()) ? side() : repo();
    if (!open.empty() && chance(0.3)) {
        ++tally.claimed_by_other;
        const std::size_t n = std::min<std::size_t>(open.size(), pick(1, 2));
        for (std::size_t k = 0; k < n; ++k) {
            Task& t = tasks_[open[k]];
            std::vector<std::string> args = {"claim", t.id};
            if (!deps_completed(tasks_, open[k])) args.push_back("--force");
            const bool by_flag = chance(0.5);
            if (by_flag) args.insert(args.end(), {"--agent", kOther});
            if (!ok(by_flag ? kMe : kOther, by_flag ? repo() : where, args)) return false;
            t.held_by = kOther;
        }
        open.erase(open.begin(), open.begin() + static_cast<std::ptrdiff_t>(n));
    }
    // The other agent claims a task and settles it (the claim ends with it).
    if (!open.empty() && deps_completed(tasks_, open.front()) && chance(0.2)) {
        Task& t = tasks_[open.front()];
        t.status = chance(0.7) ? St::Completed : St::Blocked;
        t.other_side = where == side();  // settled there; main's plan learns it at the next merge (D21)
        if (!ok(kOther, where, {"claim", t.id}) ||
            !ok(kOther, where, {"checkpoint", "--task", t.id, "--status", word(t.status), "--evidence", "Settled " + t.id + " by " + kOther})) {
            return false;
        }
        open.erase(open.begin());
    }
    for (std::size_t i : open) {
        if (!chance(0.25)) continue;
        ++tally.held_by_me;
        tasks_[i].held_by = kMe;
        if (deps_completed(tasks_, i)) return ok(kMe, repo(), {"claim", tasks_[i].id});
        return ok(kMe, repo(), {"claim", tasks_[i].id, "--force"});  // held, yet it waits
    }
    return true;
}

// main and a worktree of branch `side`: the other agent works there on some
// tasks while this one works on others in main, each side commits, and main
// merges the side (the strategy or the merge driver), or not yet.
bool Round::two_worktrees(Tally& tally) {
    ++tally.git;
    if (!ok(kMe, repo(), {"hooks", "install", "git"})) return false;
    if (chance(0.5) && !ok(kMe, repo(), {"handoff"})) return false;
    if (!git_ok({"add", "-A"}, repo()) || !git_ok({"commit", "-q", "-m", "base"}, repo())) return false;
    if (!git_ok({"worktree", "add", "-q", "-b", "side", side().string(), "main"}, repo())) return false;
    const std::size_t n = tasks_.size();
    std::vector<Task> theirs = tasks_, mine = tasks_;
    std::vector<int> owner(n, 0);  // 1: the other side, 2: this one
    for (std::size_t i = 0; i < n; ++i) {
        if (open_status(tasks_[i].status)) owner[i] = chance(0.45) ? 1 : chance(0.6) ? 2 : 0;
    }
    // A side may add a task of its own (ids are reserved across the worktrees).
    const auto add_task = [&](std::vector<Task>& view, const std::string& agent, const fs::path& cwd) {
        Task t;
        t.title = "Added by " + agent + " in round " + std::to_string(seed_);
        t.id = json_of(agent, cwd, {"plan", "--add", t.title}, true).value("added_task_id", "");
        view.push_back(t);
        return !t.id.empty() && act(view, view.size() - 1, agent, cwd);
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (owner[i] != 1) continue;
        // The other agent claims first, now and then (the claims table is shared by the worktrees).
        if (chance(0.4)) {
            std::vector<std::string> claim = {"claim", tasks_[i].id};
            if (!deps_completed(theirs, i)) claim.push_back("--force");
            if (!ok(kOther, side(), claim)) return false;
            theirs[i].held_by = kOther;
        }
        if (!act(theirs, i, kOther, side())) return false;
        if (!open_status(theirs[i].status)) theirs[i].held_by.clear();  // settling ends the claim
    }
    if (chance(0.35) && !add_task(theirs, kOther, side())) return false;
    if (chance(0.5) && !ok(kOther, side(), {"handoff"})) return false;
    for (std::size_t i = 0; i < n; ++i) {
        if (owner[i] == 2 && !act(mine, i, kMe, repo())) return false;
    }
    if (chance(0.35) && !add_task(mine, kMe, repo())) return false;
    if (!git_ok({"add", "-A"}, side()) || !git_ok({"commit", "-q", "--allow-empty", "-m", "their work"}, side())) return false;
    if (!git_ok({"add", "-A"}, repo()) || !git_ok({"commit", "-q", "--allow-empty", "-m", "my work"}, repo())) return false;
    const bool merge = chance(0.6);
    for (std::size_t i = 0; i < n; ++i) {
        if (owner[i] == 2) tasks_[i].status = mine[i].status;
        if (owner[i] != 1) continue;
        tasks_[i].held_by = theirs[i].held_by;
        // Merged, the other side's status is main's; not merged, main's plan
        // has not seen it (only what the claims table says of settled tasks).
        if (merge) tasks_[i].status = theirs[i].status;
        else tasks_[i].other_side = theirs[i].status != tasks_[i].status;
    }
    for (std::size_t i = n; i < theirs.size(); ++i) {
        tasks_.push_back(theirs[i]);
        tasks_.back().other_side = !merge;  // not merged: not in main's plan at all
    }
    for (std::size_t i = n; i < mine.size(); ++i) tasks_.push_back(mine[i]);
    if (!merge) {
        ++tally.unmerged;
        note("the other worktree's work is not merged");
        return true;
    }
    ++tally.merged;
    const bool strategy = chance(0.5);
    return strategy ? git_ok({"merge", "--no-edit", "-s", "small", "side"}, repo())
                    : git_ok({"merge", "--no-edit", "side"}, repo());
}

bool Round::build(Tally& tally) {
    ++tally.rounds;
    if (git_ && !git_ok({"init", "-q", "-b", "main"}, repo())) return false;
    if (!make_plan()) return false;
    // A history in plan order (a dependency's fate is known before its dependents').
    std::optional<std::size_t> handoff_after;
    if (chance(0.35)) handoff_after = pick(0, tasks_.size() - 1);
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
        if (!git_ || chance(0.5)) {
            // Now and then the other agent writes here too, without a claim.
            if (!act(tasks_, i, chance(0.15) ? kOther : kMe, repo())) return false;
        }
        if (handoff_after == i && !ok(kMe, repo(), {"handoff"})) return false;  // stale by what follows
    }
    if (chance(0.3)) {  // priorities (0 or P0 first) reorder the ready tasks
        json edits = json::array();
        for (const Task& t : tasks_) {
            if (chance(0.4)) edits.push_back({{"id", t.id}, {"priority", chance(0.5) ? json(pick(0, 3)) : json("P" + std::to_string(pick(0, 3)))}});
        }
        const fs::path file = tmp() / "priorities.json";
        write_file(file, edits.dump());
        if (!edits.empty() && !ok(kMe, repo(), {"plan", "--from", file.string()})) return false;
    }
    if (git_ && !two_worktrees(tally)) return false;
    if (!claims(tally)) return false;
    if (chance(0.4)) {
        if (!ok(kMe, repo(), {"handoff"})) return false;
        // Then something changes: the handoff is stale.
        for (std::size_t i = 0; i < tasks_.size() && chance(0.6); ++i) {
            const Task& t = tasks_[i];
            if (!t.held_by.empty() || t.other_side) continue;
            if (t.status == St::Pending) return ok(kMe, repo(), {"plan", "--step", t.id + ":One more step"});
            if (t.status == St::InProgress) {
                return ok(kMe, repo(), {"progress", "add", "--task", t.id, "--status", "in_progress", "--evidence", "Half of " + t.id});
            }
        }
    }
    return true;
}

// ---------------------------------------------------------------------------
// The rules a suggested step must keep (AGENTS.md, D18)
// ---------------------------------------------------------------------------

// Starting or completing only a task that is open, not blocked, not another
// agent's and whose dependencies are completed; never unblocking (a human's
// `small plan --pending`), never --force, never back to pending.
void expect_step_keeps_the_rules(Round& r, const std::string& tool, const json& args, const std::string& shown) {
    EXPECT_FALSE(args.contains("force")) << "a suggested step overrides a rule with force: " << shown;
    if (tool == "plan") {
        for (const char* edit : {"pending", "in_progress", "done", "blocked", "cancel", "remove", "reset", "status"}) {
            EXPECT_FALSE(args.contains(edit)) << "a suggested plan edit sets a status or removes a task: " << shown;
        }
        return;
    }
    if (tool != "checkpoint" && tool != "progress_add") return;
    const std::string task = args.value("task", ""), status = args.value("status", "");
    EXPECT_NE(status, "pending") << "a suggested step sets a task back to pending: " << shown;
    const json show = r.json_of(kMe, r.repo(), {"plan", "show", task});
    if (show.is_null()) return;
    ASSERT_EQ(show["tasks"].size(), 1u) << "the suggested task is not one task of the plan: " << shown << "\n" << show;
    const std::string now = show["tasks"][0].value("status", "");
    EXPECT_TRUE(now == "pending" || now == "in_progress")
        << "a suggested step writes " << status << " on a task that is " << now << ": " << shown;
    if (status != "completed" && status != "in_progress") return;
    EXPECT_NE(now, "blocked") << "only a human unblocks a task (small plan --pending), yet: " << shown;
    for (const json& dep : show.value("dependencies", json::array())) {
        EXPECT_EQ(dep.value("status", ""), "completed")
            << "a suggested step starts or completes " << task << " while its dependency " << dep.value("id", "")
            << " is not completed: " << shown;
    }
    const std::set<std::string> theirs = r.held_by(kOther, r.repo());
    EXPECT_FALSE(theirs.count(task)) << "a suggested step takes " << task << ", which " << kOther << " holds: " << shown;
    // The resume point and `small ready` agree on what this agent may take.
    const json ready = r.json_of(kMe, r.repo(), {"ready"});
    const json listed = ready.value("ready", json::array());
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](const json& t) { return t.value("id", "") == task; }))
        << "a suggested step takes " << task << ", which `small ready` does not list: " << shown << "\n" << ready.dump(2);
}

// What no step may do: edit the human's files, or rewrite the log.
struct Invariants {
    std::string intent, constraints, log;
    static Invariants of(const fs::path& dir) {
        return {read_file(dir / ".small" / "intent.small.yml"), read_file(dir / ".small" / "constraints.small.yml"),
                read_file(dir / ".small" / "progress.small.yml")};
    }
    void expect_kept_by(const Invariants& after, const std::string& step) const {
        EXPECT_EQ(after.intent, intent) << "intent.small.yml is the human's, yet it changed by: " << step;
        EXPECT_EQ(after.constraints, constraints) << "constraints.small.yml is the human's, yet it changed by: " << step;
        EXPECT_TRUE(after.log.starts_with(log)) << "the progress log is append-only, yet it was rewritten by: " << step;
    }
};

constexpr std::string_view kWriteTheHandoff = "; write the handoff and end the session";
constexpr std::string_view kHandoffUpToDate = "; the handoff is up to date: end the session";

// A stop's line ends with what to do: whether the handoff is still to write
// (true too when the line does not say, which fails: the agent cannot know).
bool handoff_to_write(const std::string& next) {
    const bool write = next.ends_with(kWriteTheHandoff), done = next.ends_with(kHandoffUpToDate);
    EXPECT_TRUE(write || done) << "the stop line does not end with what to do (write the handoff and end the "
                                  "session, or end it): "
                               << next;
    return !done;
}

// At a stop, nothing is left that this agent may take: `small ready` is
// empty, and the stop names a blocked task or another agent's claim.
void expect_honest_stop(Round& r, const std::string& stop) {
    const json ready = r.json_of(kMe, r.repo(), {"ready"});
    EXPECT_TRUE(ready.value("ready", json::array()).empty())
        << "stop, yet " << kMe << " may take a task: " << stop << "\n" << ready.dump(2);
    // Every task not settled is blocked, another agent's, waits on an
    // unfinished dependency, or was settled in the other worktree (D21).
    const json plan = r.json_of(kMe, r.repo(), {"plan", "show"});
    const std::set<std::string> theirs = r.held_by(kOther, r.repo());
    std::map<std::string, std::string> status;
    for (const json& t : plan.value("tasks", json::array())) status[t.value("id", "")] = t.value("status", "");
    for (const json& t : plan.value("tasks", json::array())) {
        const std::string id = t.value("id", ""), now = t.value("status", "");
        if (now != "pending" && now != "in_progress") continue;
        const json deps = t.value("depends_on", json::array());
        const bool waits = std::any_of(deps.begin(), deps.end(), [&](const json& d) { return status[d.get<std::string>()] != "completed"; });
        const auto known = std::find_if(r.tasks().begin(), r.tasks().end(), [&](const Task& x) { return x.id == id; });
        const bool elsewhere = known != r.tasks().end() && known->other_side;
        EXPECT_TRUE(theirs.count(id) || waits || elsewhere)
            << "stop, yet " << id << " (" << now << ") is neither blocked, another agent's, nor waiting: " << stop;
    }
    const std::string first = stop.substr(0, stop.find(' '));
    if (stop.find(" waits on a human") != std::string::npos) {
        const json show = r.json_of(kMe, r.repo(), {"plan", "show", first});
        const bool blocked = !show.is_null() && show["tasks"].size() == 1 && show["tasks"][0]["status"] == "blocked";
        const auto t = std::find_if(r.tasks().begin(), r.tasks().end(), [&](const Task& x) { return x.id == first; });
        EXPECT_TRUE(blocked || (t != r.tasks().end() && t->other_side)) << "the stop names a task that is not blocked: " << stop;
    } else if (const std::size_t on = stop.find(" waits on "); on != std::string::npos &&
                                                                  stop.find(", settled on another side") != std::string::npos) {
        // D21: what is left waits on a task another side settled, not merged here: merging is the way on.
        const std::string dep = stop.substr(on + 10, stop.find(',', on) - on - 10);
        const auto t = std::find_if(r.tasks().begin(), r.tasks().end(), [&](const Task& x) { return x.id == dep; });
        EXPECT_TRUE(t != r.tasks().end() && t->other_side) << "the stop names a dependency no other side settled: " << stop;
    } else {
        EXPECT_NE(stop.find("claimed by another agent"), std::string::npos) << "a stop for no known reason: " << stop;
        EXPECT_FALSE(theirs.empty()) << "a stop for other agents' claims, and " << kOther << " holds none: " << stop;
    }
}

// At the end, every task is completed or cancelled (or settled in the other worktree).
void expect_complete(Round& r) {
    const json plan = r.json_of(kMe, r.repo(), {"plan", "show"});
    for (const json& t : plan.value("tasks", json::array())) {
        const std::string id = t.value("id", ""), status = t.value("status", "");
        const auto known = std::find_if(r.tasks().begin(), r.tasks().end(), [&](const Task& x) { return x.id == id; });
        const bool elsewhere = known != r.tasks().end() && known->other_side;
        EXPECT_TRUE(status == "completed" || status == "cancelled" || elsewhere)
            << "the run is called complete, yet " << id << " is " << status;
    }
    const json ready = r.json_of(kMe, r.repo(), {"ready"});
    EXPECT_TRUE(ready.value("ready", json::array()).empty()) << "complete, yet tasks are ready: " << ready.dump(2);
}

// ---------------------------------------------------------------------------
// Following the CLI's `Run next:`
// ---------------------------------------------------------------------------

// The words `small …` of next_action: the command, then each argument as
// --flag value (a switch alone), in any order.
void expect_line_matches_action(const std::string& line, const json& action) {
    const std::vector<std::string> words = shell_words(line);
    const std::string tool = action["tool"];
    std::vector<std::string> command = {"small"};
    if (tool == "progress_add") command.insert(command.end(), {"progress", "add"});
    else command.push_back(tool);
    ASSERT_GE(words.size(), command.size()) << line;
    EXPECT_TRUE(std::equal(command.begin(), command.end(), words.begin())) << line << " is not " << action.dump();
    std::map<std::string, std::string> flags;
    for (std::size_t i = command.size(); i < words.size(); ++i) {
        ASSERT_TRUE(words[i].starts_with("--")) << "not a flag: " << words[i] << " in " << line;
        const std::string flag = words[i];
        const bool has_value = i + 1 < words.size() && !words[i + 1].starts_with("--");
        flags[flag] = has_value ? words[i + 1] : "";
        if (has_value) ++i;
    }
    std::map<std::string, std::string> expected;
    for (const auto& [name, value] : action["arguments"].items()) {
        expected[flag_of(name)] = value.is_boolean() ? "" : value.get<std::string>();
    }
    EXPECT_EQ(flags, expected) << "next_command and next_action disagree: " << line << " vs " << action.dump();
}

// What an agent writes for placeholder `name` of `task`.
std::string filled(const std::string& name, const json& args, int step, std::uint32_t seed) {
    return "Real " + name + " for " + args.value("task", std::string("the run")) + " at step " + std::to_string(step) +
           " of round " + std::to_string(seed);
}

void follow_cli(Round& r, Tally& tally) {
    const fs::path dir = r.repo();
    std::set<std::string> seen;
    bool refused_once = false;
    const std::size_t bound = 4 * r.task_count() + 5;
    for (std::size_t step = 0;; ++step) {
        ASSERT_LT(step, bound) << "no end after " << bound << " steps";
        const json brief = r.json_of(kMe, dir, {"status", "--brief"});
        ASSERT_FALSE(brief.is_null());
        if (step == 0 && brief.contains("handoff") && !brief["handoff"]["stale"].is_null()) ++tally.stale;
        const std::string next = brief["next_command"];
        const json& action = brief["next_action"];
        r.note("Run next: " + next);
        if (action["tool"].is_null()) {
            if (next.starts_with("nothing:")) {
                ++tally.complete;
                EXPECT_TRUE(brief["stop"].is_null()) << brief.dump(2);
                expect_complete(r);
                const RunResult check = r.small(kMe, dir, {"check", "--strict"});
                EXPECT_EQ(check.exit_code, 0) << "complete, yet check --strict fails\n" << check;
                return;
            }
            ASSERT_TRUE(next.starts_with("stop: ")) << "no command, and neither nothing: nor stop: " << next;
            ++tally.stop;
            ASSERT_TRUE(brief["stop"].is_string()) << brief.dump(2);
            ASSERT_EQ(action["stop"], brief["stop"]) << brief.dump(2);
            const std::string stop = brief["stop"];
            expect_honest_stop(r, stop);
            // AGENTS.md: before you stop, small handoff, then small check --strict.
            if (handoff_to_write(next)) {
                const RunResult handoff = r.small(kMe, dir, {"handoff"});
                ASSERT_EQ(handoff.exit_code, 0) << handoff;
            }
            const RunResult check = r.small(kMe, dir, {"check", "--strict"});
            EXPECT_EQ(check.exit_code, 0) << "at a stop, check --strict fails\n" << check;
            const json after = r.json_of(kMe, dir, {"status", "--brief"});
            ASSERT_FALSE(after.is_null());
            EXPECT_TRUE(after["next_action"]["tool"].is_null()) << after.dump(2);
            EXPECT_EQ(after["stop"], brief["stop"]) << "the handoff changed the stop";
            EXPECT_TRUE(after.value("next_command", "").ends_with(kHandoffUpToDate))
                << "after the handoff, the stop line does not say it is up to date: " << after.value("next_command", "");
            return;
        }
        ASSERT_TRUE(next.starts_with("small ")) << next;
        ASSERT_TRUE(seen.insert(next).second) << "the same step again (a loop): " << next;
        const std::string tool = action["tool"];
        const json& args = action["arguments"];
        ++tally.steps;
        ++tally.tools[tool];
        const int failed = failures_so_far();
        expect_line_matches_action(next, action);
        expect_step_keeps_the_rules(r, tool, args, next);
        if (failures_so_far() > failed) return;  // what follows would only repeat it

        // A placeholder as printed is refused (exit 2) and writes nothing.
        const json placeholders = action.value("placeholders", json::array());
        if (!placeholders.empty() && !refused_once) {
            refused_once = true;
            ++tally.placeholder_refusals;
            const auto before = snapshot(dir / ".small");
            const RunResult literal = r.shell(kMe, dir, next);
            EXPECT_EQ(literal.exit_code, 2) << "a placeholder run as printed is not refused\n" << literal;
            EXPECT_TRUE(contains(literal.err, "placeholder")) << literal;
            EXPECT_EQ(first_difference(before, snapshot(dir / ".small")), "") << "a refused placeholder wrote";
        }
        std::string line = next;
        for (const json& p : placeholders) {
            const std::string name = p, shown = flag_of(name) + " \"" + args.value(name, "") + "\"";
            const std::size_t at = line.find(shown);
            ASSERT_NE(at, std::string::npos) << "placeholder " << name << " is not " << shown << " in " << next;
            line.replace(at, shown.size(), flag_of(name) + " " + sh_single_quoted(filled(name, args, int(step), r.seed())));
        }
        const Invariants before = Invariants::of(dir);
        const RunResult run = r.shell(kMe, dir, line);
        ASSERT_EQ(run.exit_code, 0) << "the suggested step fails as written\n" << run;
        before.expect_kept_by(Invariants::of(dir), line);
    }
}

// ---------------------------------------------------------------------------
// `small mcp` over pipes, one request at a time
// ---------------------------------------------------------------------------

class McpServer {
public:
    McpServer(const fs::path& cwd, const Env& env, const fs::path& stderr_file) {
        RunOptions o;
        o.cwd = cwd;
        o.env = env;
        const ExecArgs exec({"mcp"}, o);
        const std::string dir = cwd.string();
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
        const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            if (err >= 0) ::dup2(err, STDERR_FILENO);
            if (::chdir(dir.c_str()) != 0) ::_exit(126);
            exec.exec();
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        if (err >= 0) ::close(err);
        to_ = in[1];
        from_ = out[0];
    }
    ~McpServer() {
        if (to_ >= 0) ::close(to_);  // the end of input ends the server
        if (pid_ > 0) {
            int status = 0;
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (::waitpid(pid_, &status, WNOHANG) == 0) {
                if (std::chrono::steady_clock::now() > deadline) {
                    ::kill(pid_, SIGKILL);
                    ::waitpid(pid_, &status, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        }
        if (from_ >= 0) ::close(from_);
    }
    McpServer(const McpServer&) = delete;
    McpServer& operator=(const McpServer&) = delete;

    // The reply to a request (null when none came within 30 s).
    json request(const std::string& method, const json& params) {
        const int id = next_id_++;
        if (!send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump())) return json();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (const std::optional<std::string> line = read_line(deadline)) {
            const json reply = json::parse(*line, nullptr, false);
            if (reply.is_object() && reply.contains("id") && reply["id"] == id) return reply;
        }
        return json();
    }
    void notify(const std::string& method) { send(json{{"jsonrpc", "2.0"}, {"method", method}}.dump()); }

private:
    bool send(const std::string& message) {
        const std::string line = message + "\n";
        struct sigaction ignore {}, old {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &old);  // a server that died must not kill the test
        std::size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::write(to_, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        ::sigaction(SIGPIPE, &old, nullptr);
        return done == line.size();
    }
    std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline) {
        for (;;) {
            if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
                std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                return line;
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return std::nullopt;
            pollfd p{from_, POLLIN, 0};
            const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return std::nullopt;
            char chunk[65536];
            const ssize_t n = ::read(from_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return std::nullopt;
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
    int next_id_ = 1;
    std::string buffer_;
};

// valijson's reasons why `arguments` does not satisfy `schema` ("" when it does).
std::string schema_violations(const json& schema, const json& arguments) {
    valijson::Schema compiled;
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(schema), compiled);
    valijson::Validator validator;
    valijson::ValidationResults results;
    if (validator.validate(compiled, valijson::adapters::NlohmannJsonAdapter(arguments), &results)) return "";
    std::string out;
    valijson::ValidationResults::Error error;
    while (results.popError(error)) {
        std::string where;
        for (const std::string& part : error.context) where += part;
        out += where + ": " + error.description + "; ";
    }
    return out.empty() ? "rejected" : out;
}

// next_call's arguments against the tool's inputSchema: valijson (draft-07),
// and by hand what draft-07 does not know (dependentRequired) or might let
// pass silently (a name the schema does not have).
void expect_call_fits_schema(const std::string& tool, const json& arguments, const json& schema) {
    ASSERT_TRUE(arguments.is_object()) << tool << ": " << arguments;
    const json properties = schema.value("properties", json::object());
    for (const auto& [name, value] : arguments.items()) {
        EXPECT_TRUE(properties.contains(name)) << "tool " << tool << " has no argument " << name;
    }
    for (const json& name : schema.value("required", json::array())) {
        EXPECT_TRUE(arguments.contains(name.get<std::string>())) << "tool " << tool << " needs " << name;
    }
    for (const auto& [name, needs] : schema.value("dependentRequired", json::object()).items()) {
        if (!arguments.contains(name)) continue;
        for (const json& need : needs) EXPECT_TRUE(arguments.contains(need.get<std::string>())) << tool << ": " << name << " needs " << need;
    }
    EXPECT_EQ(schema_violations(schema, arguments), "") << "tool " << tool << " rejects " << arguments.dump();
}

// result of a tools/call, which must be a result (not a JSON-RPC error).
json call(McpServer& server, Round& r, const std::string& tool, const json& arguments) {
    const json reply = server.request("tools/call", {{"name", tool}, {"arguments", arguments}});
    r.note("MCP " + tool + " " + arguments.dump() + " -> " +
           (reply.contains("result") ? "isError " + reply["result"].value("isError", json(false)).dump()
                                     : reply.dump().substr(0, 400)));
    EXPECT_TRUE(reply.contains("result")) << tool << " " << arguments.dump() << ": " << reply.dump();
    return reply.value("result", json::object());
}

std::string text_of(const json& result) {
    const json content = result.value("content", json::array());
    return content.empty() ? "" : content[0].value("text", "");
}

void follow_mcp(Round& r, Tally& tally) {
    const fs::path dir = r.repo();
    McpServer server(dir, r.env_of(kMe), r.tmp() / "mcp.stderr");
    const json init = server.request("initialize", {{"protocolVersion", "2025-06-18"},
                                                    {"capabilities", json::object()},
                                                    {"clientInfo", {{"name", "property"}, {"version", "1"}}}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    server.notify("notifications/initialized");
    const json list = server.request("tools/list", json::object());
    ASSERT_TRUE(list.contains("result")) << list.dump();
    std::map<std::string, json> schemas;
    for (const json& t : list["result"]["tools"]) schemas[t["name"]] = t["inputSchema"];
    ASSERT_TRUE(schemas.count("resume")) << list.dump();

    std::set<std::string> seen;
    bool refused_once = false;
    const std::size_t bound = 4 * r.task_count() + 5;
    for (std::size_t step = 0;; ++step) {
        ASSERT_LT(step, bound) << "no end after " << bound << " calls";
        const json resume = call(server, r, "resume", json::object());
        ASSERT_FALSE(resume.value("isError", true)) << resume.dump(2);
        const json& brief = resume["structuredContent"];
        if (step == 0 && brief.contains("handoff") && !brief["handoff"]["stale"].is_null()) ++tally.stale;
        const std::string next = brief.value("next_command", "");
        const json& next_call = brief["next_call"];
        r.note("MCP next_call: " + next_call.dump() + " (in a shell: " + next + ")");
        if (next_call.is_null()) {
            if (brief["stop"].is_string()) {
                ++tally.stop;
                const std::string stop = brief["stop"];
                expect_honest_stop(r, stop);
                // Write the handoff, check, end: the next resume says the handoff is up to date.
                handoff_to_write(next);
                const json handoff = call(server, r, "handoff", json::object());
                EXPECT_FALSE(handoff.value("isError", true)) << text_of(handoff);
                const json check = call(server, r, "check", json::object());
                EXPECT_FALSE(check.value("isError", true)) << "at a stop, check fails: " << text_of(check);
                const json again = call(server, r, "resume", json::object());
                const json& after = again["structuredContent"];
                EXPECT_TRUE(after["next_call"].is_null()) << after.dump(2);
                EXPECT_EQ(after["stop"], brief["stop"]);
                EXPECT_TRUE(after.value("next_command", "").ends_with(kHandoffUpToDate))
                    << "after the handoff, the stop line does not say it is up to date: " << after.value("next_command", "");
                return;
            }
            ASSERT_TRUE(next.starts_with("nothing:"))
                << "next_call is null, yet the run neither stops nor is complete: an MCP agent cannot take the step `"
                << next << "` (next_action " << brief["next_action"].dump() << ")";
            ++tally.complete;
            expect_complete(r);
            const json check = call(server, r, "check", json::object());
            EXPECT_FALSE(check.value("isError", true)) << "complete, yet check fails: " << text_of(check);
            return;
        }
        ASSERT_TRUE(seen.insert(next_call.dump()).second) << "the same call again (a loop): " << next_call.dump();
        ASSERT_TRUE(next_call["tool"].is_string()) << next_call.dump();
        const std::string tool = next_call["tool"];
        const json args = next_call.value("arguments", json::object());
        ++tally.steps;
        ++tally.tools["mcp " + tool];
        ASSERT_TRUE(schemas.count(tool)) << "next_call names a tool tools/list does not have: " << tool;
        const int failed = failures_so_far();
        expect_call_fits_schema(tool, args, schemas[tool]);
        EXPECT_EQ(next_call["tool"], brief["next_action"]["tool"]) << brief.dump(2);
        expect_step_keeps_the_rules(r, tool, args, next_call.dump());
        if (failures_so_far() > failed) return;  // what follows would only repeat it

        const json placeholders = next_call.value("placeholders", json::array());
        json with = args;
        for (const json& p : placeholders) {
            ASSERT_TRUE(p.is_string() && args.contains(p.get<std::string>())) << "placeholder " << p << " is no argument";
            with[p.get<std::string>()] = filled(p, args, int(step), r.seed());
        }
        if (!placeholders.empty() && !refused_once) {
            refused_once = true;
            ++tally.placeholder_refusals;
            const auto before = snapshot(dir / ".small");
            const json literal = call(server, r, tool, args);
            EXPECT_TRUE(literal.value("isError", false)) << "a placeholder as given is not refused: " << literal.dump(2);
            EXPECT_EQ(literal["structuredContent"].value("exit_code", -1), 2) << literal.dump(2);
            EXPECT_EQ(first_difference(before, snapshot(dir / ".small")), "") << "a refused placeholder wrote";
        }
        const Invariants before = Invariants::of(dir);
        const json result = call(server, r, tool, with);
        ASSERT_FALSE(result.value("isError", true)) << "the suggested call fails: " << tool << " " << with.dump()
                                                    << "\n" << text_of(result);
        before.expect_kept_by(Invariants::of(dir), tool + " " + with.dump());
    }
}

// ---------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------

template <typename Follow>
void run_rounds(const std::vector<std::uint32_t>& round_seeds, Follow follow, const char* what) {
    Tally tally;
    const auto start = std::chrono::steady_clock::now();
    for (const std::uint32_t seed : round_seeds) {
        const int failures = failures_so_far();
        Round round(seed);
        if (round.build(tally)) follow(round, tally);
        if (failures_so_far() > failures) ADD_FAILURE() << what << ": the round that failed\n" << round.story();
        else if (std::getenv("SMALL_PROPERTY_VERBOSE")) std::cout << what << ": " << round.story() << "\n";
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    std::cout << "[ property ] " << what << ": " << tally.text() << "; " << ms.count() << " ms\n";
    ::testing::Test::RecordProperty("tally", tally.text());
}

TEST(NextStepProperty, EveryRunNextWorksAsWrittenUntilNothingOrStop) {
    run_rounds(seeds(), follow_cli, "CLI");
}

TEST(NextStepProperty, EveryMcpNextCallFitsItsToolAndWorksUntilNothingOrStop) {
    std::vector<std::uint32_t> subset;
    const std::vector<std::uint32_t> all = seeds();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all.size() == 1 || i % kMcpEvery == 0) subset.push_back(all[i]);
    }
    run_rounds(subset, follow_mcp, "MCP");
}

}  // namespace
}  // namespace small_e2e
