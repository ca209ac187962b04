// A remote ref as a compare-and-swap register of text (see the header).
#include "small/base/git.hpp"

#include <cstdlib>

#include "small/base/process.hpp"
#include "small/base/text.hpp"

namespace small {

namespace {

constexpr std::chrono::seconds kGitTimeout{120};

struct GitRun {
    int exit_code = 0;
    std::string out, err;
    std::optional<int> interrupted;  // a signal forwarded to git (this process is being stopped)
    bool timed_out = false;
};

Result<GitRun> run_git(const std::string& cwd, const std::vector<std::string>& args,
                       std::chrono::seconds timeout = kGitTimeout) {
    const std::optional<std::string> git = find_executable("git");
    if (!git) return Error::system("`git` is not on PATH: cannot reach the remote");
    ProcessOptions o;
    o.argv = {*git};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.cwd = cwd;
    o.timeout = timeout;
    o.separate_stderr = true;
    // A signal that stops small stops git with it, and git never outlives
    // small (D21: no claim is published by a process that reported failure).
    o.forward_signals = true;
    o.die_with_parent = true;
    o.kill_grace = std::chrono::milliseconds(2000);
    // No credential prompt: it would wait for a terminal nobody watches (a
    // hook, an agent) while the claims lock is held. git fails instead.
    o.set_env = {{"GIT_TERMINAL_PROMPT", "0"}};
    Result<ProcessResult> r = run_process(o);
    if (!r) return r.error();
    return GitRun{r->exit_code, r->output.text(), r->errors.text(), r->interrupted_by, r->timed_out};
}

Error stopped(const std::string& what, const GitRun& r) {
    const std::string why = r.interrupted ? "interrupted by " + signal_name(*r.interrupted) : std::string("timed out");
    return Error::system(what + " " + why + ": nothing changed");
}

Error git_failed(const std::string& what, const GitRun& r) {
    return Error::system(what + " failed (git exit " + std::to_string(r.exit_code) + "): " +
                         std::string(trim(r.err.empty() ? r.out : r.err)));
}

// A commit object's message: what follows the headers' blank line.
std::string message_of(const std::string& commit_text) {
    const std::size_t body = commit_text.find("\n\n");
    return body == std::string::npos ? std::string() : commit_text.substr(body + 2);
}

// A push stopped half way may or may not have reached the remote: ask the
// remote (briefly; a second signal stops that too) instead of guessing.
// Accepted: true, so the caller reports what is true; else nothing changed.
Result<bool> settle_interrupted_push(const RemoteRef& ref, const std::string& tip, const GitRun& push) {
    const std::string what = "git push " + ref.remote + " " + ref.ref;
    Result<GitRun> seen = run_git(ref.work_tree, {"ls-remote", "--quiet", ref.remote, ref.ref}, std::chrono::seconds(10));
    if (!seen || seen->exit_code != 0 || seen->interrupted || seen->timed_out) {
        Error e = stopped(what, push);
        e.message.resize(e.message.size() - std::string(": nothing changed").size());
        e.message += "; whether the remote took the change is unknown (`small claims` shows the remote's table)";
        return e;
    }
    if (std::string(trim(seen->out)).rfind(tip, 0) == 0) {
        (void)run_git(ref.work_tree, {"update-ref", ref.tracking, tip});
        return true;
    }
    return stopped(what, push);
}

}  // namespace

Result<std::optional<std::string>> configured_remote(const std::string& work_tree, const char* env, const std::string& key) {
    // git's configuration as `git config` reads it, through libgit2 (no process).
    Result<std::optional<GitRepo>> repo = GitRepo::discover(work_tree);
    if (!repo) return repo.error();
    if (!*repo) return std::optional<std::string>();
    const auto config_value = [&](const std::string& k) {
        Result<std::optional<std::string>> v = (*repo)->effective_config(k);
        return v && *v ? std::string(trim(**v)) : std::string();
    };
    std::string name;
    if (const char* e = std::getenv(env)) name = std::string(trim(e));
    if (name.empty()) name = config_value(key);
    const bool named = !name.empty();
    if (!named) name = "origin";
    if (name == "none") return std::optional<std::string>();
    if (config_value("remote." + name + ".url").empty()) {
        if (!named) return std::optional<std::string>();
        return Error::usage("`" + name + "` (" + env + " or git config " + key + ") is not a remote of this " +
                            "repository; `git remote -v` lists them (\"none\" keeps it local)");
    }
    return std::optional(name);
}

Result<RefText> fetch_ref_text(const RemoteRef& ref) {
    // A refspec with `*` that matches nothing is no error: a ref that does
    // not exist yet reads as empty. --prune forgets a tip the remote dropped.
    const std::string spec = "+" + ref.ref + "*:" + ref.tracking + "*";
    Result<GitRun> fetched =
        run_git(ref.work_tree, {"fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", ref.remote, spec});
    if (!fetched) return fetched.error();
    if (fetched->interrupted || fetched->timed_out) return stopped("git fetch " + ref.remote + " " + ref.ref, *fetched);
    if (fetched->exit_code != 0) return git_failed("git fetch " + ref.remote + " " + ref.ref, *fetched);
    Result<GitRun> tip = run_git(ref.work_tree, {"rev-parse", "--quiet", "--verify", ref.tracking + "^{commit}"});
    if (!tip) return tip.error();
    RefText out;
    if (tip->exit_code != 0) return out;  // no ref yet
    out.tip = std::string(trim(tip->out));
    Result<GitRun> commit = run_git(ref.work_tree, {"cat-file", "commit", out.tip});
    if (!commit) return commit.error();
    if (commit->exit_code != 0) return git_failed("git cat-file commit " + out.tip, *commit);
    out.message = message_of(commit->out);
    return out;
}

Result<bool> push_ref_text(const RemoteRef& ref, const std::string& expected_tip, const std::string& message,
                           const std::string& author) {
    // The empty tree, written for real: a repository that never held it
    // cannot send it otherwise.
    Result<GitRun> tree = run_git(ref.work_tree, {"hash-object", "-w", "-t", "tree", "/dev/null"});
    if (!tree) return tree.error();
    if (tree->exit_code != 0) return git_failed("git hash-object", *tree);
    std::vector<std::string> args = {"-c", "user.name=" + author, "-c", "user.email=" + author, "commit-tree",
                                     std::string(trim(tree->out)), "-m", message};
    if (!expected_tip.empty()) args.insert(args.end(), {"-p", expected_tip});
    Result<GitRun> commit = run_git(ref.work_tree, args);
    if (!commit) return commit.error();
    if (commit->exit_code != 0) return git_failed("git commit-tree", *commit);
    const std::string tip(trim(commit->out));
    Result<GitRun> pushed = run_git(ref.work_tree, {"push", "--quiet", "--porcelain",
                                                    "--force-with-lease=" + ref.ref + ":" + expected_tip, ref.remote,
                                                    tip + ":" + ref.ref});
    if (!pushed) return pushed.error();
    if (pushed->interrupted || pushed->timed_out) return settle_interrupted_push(ref, tip, *pushed);
    if (pushed->exit_code == 0) {
        (void)run_git(ref.work_tree, {"update-ref", ref.tracking, tip});
        return true;
    }
    // Someone moved the ref: refused here ("[rejected] (stale info)", "(fetch first)") or by the
    // remote's own compare-and-swap ("cannot lock ref ...: is at X but expected Y", or its lock
    // file held by a push under way).
    const std::string all = pushed->out + pushed->err;
    for (const char* lost : {"[rejected]", "stale info", "fetch first", "non-fast-forward", "cannot lock ref"}) {
        if (all.find(lost) != std::string::npos) return false;
    }
    Error e = git_failed("git push " + ref.remote + " " + ref.ref, *pushed);
    e.message += " (nothing changed there; retry when the remote accepts pushes)";
    return e;
}

}  // namespace small
