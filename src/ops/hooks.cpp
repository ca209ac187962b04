#include "small/ops/hooks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "small/base/line_diff.hpp"
#include "small/base/process.hpp"
#include "small/base/text.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/git_repo.hpp"
#include "small/store/hook_files.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

namespace stdfs = std::filesystem;

namespace {

const std::string kPre(kPreCommitHookName);
const std::string kChained(kChainedHookName);

// The merge driver (D17): the .gitattributes line and the git config values
// `small hooks install git` writes.
constexpr std::string_view kAttributesLine = ".small/*.small.yml merge=small";
constexpr std::string_view kDriverName = "small merge driver";
constexpr std::string_view kDriverCommand = "small merge %O %A %B %P";

Result<std::optional<WorkspaceLock>> lock_workspace(const FileSystem& fs, const WorkspacePaths& ws,
                                                    const HooksRequest& req) {
    if (req.dry_run || req.action == HooksAction::Print || !fs.directory_exists(ws.small_dir)) {
        return std::optional<WorkspaceLock>();
    }
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(ws, req.lock_wait);
    if (!lock) return lock.error();
    return std::optional<WorkspaceLock>(std::move(*lock));
}

// ---------------------------------------------------------------- git

struct GitPlace {
    std::string hooks_dir;   // absolute, lexically normal
    std::string prefix;      // the workspace root below the top level ("" or "sub/")
    std::string hooks_path;  // core.hooksPath as configured ("" when unset)
    std::string driver;      // merge.small.driver as git sees it, from any config file ("" when unset)
};

// git is found by the shell (PATH); its stderr is only wanted on failure,
// and the capture mixes the two streams, so a failing rev-parse runs again.
// merge.small.driver is read here, as git reads it, because the driver that
// git will run may come from a file libgit2 1.5 does not see the way git
// does (GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM); the repository's own file
// is read and written through libgit2 (GitRepo::local_config).
constexpr const char* kRevParseScript =
    "command -v git >/dev/null 2>&1 || exit 127\n"
    "out=$(git rev-parse --show-prefix --git-path hooks 2>/dev/null) || "
    "{ git rev-parse --show-prefix 2>&1 >/dev/null; exit 128; }\n"
    "hooks_path=$(git config --get core.hooksPath 2>/dev/null) || hooks_path=\n"
    "driver=$(git config --get merge.small.driver 2>/dev/null) || driver=\n"
    "printf '%s\\n%s\\n%s' \"$out\" \"$hooks_path\" \"$driver\"\n";

Result<GitPlace> find_git_hooks(const std::string& root) {
    ProcessOptions o;
    o.argv = {"/bin/sh", "-c", kRevParseScript};
    o.cwd = root;
    o.timeout = std::chrono::seconds(30);
    Result<ProcessResult> run = run_process(o);
    if (!run) return run.error();
    const std::string text = run->output.text();
    if (run->exit_code == 127) {
        Error e = Error::system("git was not found on PATH; `small hooks` needs git to find the repository's hooks folder");
        e.hint = "install git, or run the command where git is on PATH";
        return e;
    }
    if (run->exit_code != 0) {
        std::string why = text;
        while (!why.empty() && why.back() == '\n') why.pop_back();
        Error e = Error::system(root + " is not inside a git work tree (git rev-parse: " + why + ")");
        e.hint = "run `git init` first, or pass --dir with a workspace inside a git repository";
        return e;
    }
    const std::size_t nl = text.find('\n');
    const std::size_t nl2 = nl == std::string::npos ? nl : text.find('\n', nl + 1);
    const std::size_t nl3 = nl2 == std::string::npos ? nl2 : text.find('\n', nl2 + 1);
    if (nl3 == std::string::npos) return Error::system("unexpected output of git rev-parse: " + text);
    const std::string hooks = text.substr(nl + 1, nl2 - nl - 1);
    if (hooks.empty()) return Error::system("git rev-parse --git-path hooks printed nothing");
    const stdfs::path dir = stdfs::path(hooks).is_absolute() ? stdfs::path(hooks) : stdfs::path(root) / hooks;
    std::string normal = dir.lexically_normal().string();
    while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    return GitPlace{normal, text.substr(0, nl), text.substr(nl2 + 1, nl3 - nl2 - 1), text.substr(nl3 + 1)};
}

// "sub/" → "sub", "" → "." (as `small check --dir` takes it).
std::string workspace_dir_of(const std::string& prefix) {
    return prefix.empty() ? "." : prefix.substr(0, prefix.size() - 1);
}

// "the workspace at a" or "the workspaces at a, b".
std::string workspaces_at(const std::vector<std::string>& prefixes) {
    std::string out = prefixes.size() == 1 ? "the workspace at " : "the workspaces at ";
    for (std::size_t i = 0; i < prefixes.size(); ++i) out += (i ? ", " : "") + workspace_dir_of(prefixes[i]);
    return out;
}

Status refuse_odd(const HookFileState& state, const std::string& path) {
    if (state.kind == HookFileState::Kind::Link) {
        return Error::invalid("refusing to change " + path +
                              ": it is a symbolic link (small does not follow or replace it; move it away or chain "
                              "it by hand)");
    }
    if (state.kind == HookFileState::Kind::Other) {
        return Error::invalid("refusing to change " + path + ": it is not a regular file");
    }
    return ok_status();
}

bool same_file(const HookFileState& a, const HookFileState& b) { return a.device == b.device && a.inode == b.inode; }

bool is_ours(const HookFileState& state) {
    return state.kind == HookFileState::Kind::Regular && is_small_pre_commit_hook(state.content);
}

HookFileChange change_of(const std::string& path, std::string change, const HookFileState* old_state,
                         std::string new_content) {
    HookFileChange c;
    c.path = path;
    c.change = std::move(change);
    c.existed = old_state != nullptr && old_state->kind == HookFileState::Kind::Regular;
    if (c.existed) c.old_content = old_state->content;
    c.new_content = std::move(new_content);
    return c;
}

// A hook manager (husky, lefthook, ...) or the repository's own committed
// hooks own a core.hooksPath folder: a chained hook there would be
// overwritten by the manager, or show up as a change to commit. Nothing is
// written, the merge driver included (`driver_by_hand`: how to register
// what install would have, "" when it is registered already).
Error refuse_managed_folder(const GitPlace& place, const std::string& pre_path, const std::string& driver_by_hand) {
    Error e = Error::invalid("refusing to chain " + pre_path + ": core.hooksPath (" + place.hooks_path +
                             ") names a folder that a hook manager or the repository owns, where a replaced hook "
                             "would be overwritten or committed; nothing was changed");
    e.hint = "run `small check --strict --dir " + shell_quote(workspace_dir_of(place.prefix)) +
             "` from that pre-commit hook instead (with husky, add it to .husky/pre-commit)";
    if (!driver_by_hand.empty()) e.hint += ". The merge driver was not registered either: " + driver_by_hand;
    return e;
}

// The hook text install writes: small's hook keeps the workspaces it
// checks and adds this one.
std::string wanted_hook(const GitPlace& place, const HookFileState& pre) {
    std::vector<std::string> prefixes = is_ours(pre) ? pre_commit_hook_prefixes(pre.content) : std::vector<std::string>{};
    prefixes.push_back(place.prefix);
    return pre_commit_hook_text(prefixes);
}

// What install changes, decided from the two files (docs/commands.md).
Result<std::vector<HookFileChange>> plan_git_install(const GitPlace& place, const HookFileState& pre,
                                                     const HookFileState& chained, const std::string& driver_by_hand,
                                                     std::vector<std::string>& notes) {
    const std::string pre_path = place.hooks_dir + "/" + kPre;
    const std::string chained_path = place.hooks_dir + "/" + kChained;
    if (Status odd = refuse_odd(pre, pre_path); !odd) return odd.error();
    if (Status odd = refuse_odd(chained, chained_path); !odd) return odd.error();
    const bool have_pre = pre.kind == HookFileState::Kind::Regular;
    const bool have_chained = chained.kind == HookFileState::Kind::Regular;
    const std::string want = wanted_hook(place, pre);
    if (is_ours(pre)) {
        std::vector<std::string> others = pre_commit_hook_prefixes(want);
        std::erase(others, place.prefix);
        if (!others.empty()) notes.push_back("the hook also checks " + workspaces_at(others));
        return std::vector<HookFileChange>{change_of(pre_path, pre.content == want ? "unchanged" : "updated", &pre, want)};
    }
    if (have_pre) {
        if (!place.hooks_path.empty()) return refuse_managed_folder(place, pre_path, driver_by_hand);
        if (have_chained && !same_file(pre, chained)) {
            Error e = Error::invalid("refusing to install: " + pre_path + " is not small's hook and " + chained_path +
                                     " exists too; nothing was changed");
            e.hint = "merge the two hooks by hand, or move one of them away, then run the command again";
            return e;
        }
        if (Status writable = check_writable_file(pre_path); !writable) return writable.error();
        notes.push_back("the existing pre-commit hook is kept as " + chained_path + " and still runs first");
        // Both names on one file: an install stopped between its two steps.
        const HookFileState* linked = have_chained ? &chained : nullptr;
        return std::vector<HookFileChange>{change_of(chained_path, "chained", linked, pre.content),
                                           change_of(pre_path, "updated", &pre, want)};
    }
    if (have_chained) notes.push_back("the hook runs the existing " + chained_path + " first");
    return std::vector<HookFileChange>{change_of(pre_path, "created", nullptr, want)};
}

Result<std::vector<HookFileChange>> plan_git_uninstall(const GitPlace& place, const HookFileState& pre,
                                                       const HookFileState& chained, std::vector<std::string>& notes) {
    const std::string dir = place.hooks_dir;
    const std::string pre_path = dir + "/" + kPre;
    const std::string chained_path = dir + "/" + kChained;
    const bool ours = is_ours(pre);
    if (!ours && pre.kind != HookFileState::Kind::Missing) {
        notes.push_back(pre_path + " is not small's hook; left alone");
        if (chained.kind != HookFileState::Kind::Missing) notes.push_back(chained_path + " left alone");
        return std::vector<HookFileChange>{};
    }
    if (ours) {
        // Other workspaces of the repository keep the hook.
        std::vector<std::string> prefixes = pre_commit_hook_prefixes(pre.content);
        const bool listed = std::find(prefixes.begin(), prefixes.end(), place.prefix) != prefixes.end();
        std::erase(prefixes, place.prefix);
        if (!listed && !prefixes.empty()) {
            notes.push_back("the hook does not check this workspace (it checks " + workspaces_at(prefixes) + "); left alone");
            return std::vector<HookFileChange>{};
        }
        if (!prefixes.empty()) {
            notes.push_back("the hook still checks " + workspaces_at(prefixes));
            return std::vector<HookFileChange>{change_of(pre_path, "updated", &pre, pre_commit_hook_text(prefixes))};
        }
    }
    if (Status odd = refuse_odd(chained, chained_path); !odd) return odd.error();
    if (chained.kind == HookFileState::Kind::Regular) {
        return std::vector<HookFileChange>{change_of(chained_path, "removed", &chained, ""),
                                           change_of(pre_path, "restored", &pre, chained.content)};
    }
    if (!ours) {
        notes.push_back("no small pre-commit hook is installed in " + dir);
        return std::vector<HookFileChange>{};
    }
    return std::vector<HookFileChange>{change_of(pre_path, "removed", &pre, "")};
}

Status apply_git(const std::string& dir, const std::vector<HookFileChange>& files) {
    const bool chaining = std::any_of(files.begin(), files.end(),
                                      [](const HookFileChange& c) { return c.change == "chained" && !c.existed; });
    for (const HookFileChange& c : files) {
        const std::string name = stdfs::path(c.path).filename().string();
        if (c.change == "chained") {
            continue;  // done with the write of the hook, below
        } else if ((c.change == "created" || c.change == "updated") && chaining) {
            if (Status s = chain_hook_file(dir, kPre, kChained, c.new_content); !s) return s;
        } else if (c.change == "created" || c.change == "updated") {
            if (Status s = write_file_in_folder_atomic(dir, kPre, c.new_content, 0755); !s) return s;
        } else if (c.change == "restored") {
            if (Status s = rename_hook_file(dir, kChained, kPre); !s) return s;
        } else if (c.change == "removed" && name == kPre) {
            if (Status s = remove_hook_file(dir, kPre); !s) return s;
        }
        // "removed" chained: done by the rename of "restored".
    }
    return ok_status();
}

// The hooks folder's lock, when this run writes (install creates the folder
// first; an uninstall with no folder has nothing to change).
Result<std::optional<Fd>> lock_hooks(const HooksRequest& req, const GitPlace& place, HooksResult& result) {
    if (req.dry_run || req.action == HooksAction::Print) return std::optional<Fd>();
    if (req.action == HooksAction::Install) {
        Result<bool> made = ensure_hooks_folder(place.hooks_dir);
        if (!made) return made.error();
        if (*made) result.notes.push_back("created the hooks folder " + place.hooks_dir);
    } else if (!stdfs::is_directory(place.hooks_dir)) {
        return std::optional<Fd>();
    }
    Result<Fd> held = lock_hooks_folder(place.hooks_dir, req.lock_wait);
    if (!held) return held.error();
    return std::optional<Fd>(std::move(*held));
}

// ---------------------------------------------------------------- merge driver (D17)

// Whether `command` runs small's merge driver with git's three versions:
// `small merge` (any path to a program named small) with %O, %A and %B
// among its words, such as "/opt/small/bin/small merge %O %A %B %P".
bool runs_small_merge(std::string_view command) {
    std::vector<std::string_view> words;
    for (std::size_t at = 0; at < command.size();) {
        const std::size_t end = std::min(command.find_first_of(" \t", at), command.size());
        if (end > at) words.push_back(command.substr(at, end - at));
        at = end + 1;
    }
    const auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
    return words.size() >= 2 && stdfs::path(words[0]).filename() == "small" && words[1] == "merge" && has("%O") &&
           has("%A") && has("%B");
}

// The byte offset of our line in `text` (a whole line), npos when absent.
std::size_t attributes_line_at(std::string_view text) {
    for (std::size_t at = text.find(kAttributesLine); at != std::string_view::npos;
         at = text.find(kAttributesLine, at + 1)) {
        const std::size_t end = at + kAttributesLine.size();
        const bool starts = at == 0 || text[at - 1] == '\n';
        const bool ends = end == text.size() || text[end] == '\n' || text.substr(end, 2) == "\r\n";
        if (starts && ends) return at;
    }
    return std::string_view::npos;
}

// The .gitattributes change install or uninstall makes (nothing when none),
// refused before anything is written when the file cannot be replaced.
// Install adds our line with the file's own line break (CRLF when its first
// line ends so); uninstall takes it out, and the file goes only when the
// line was all it held.
Result<std::optional<HookFileChange>> plan_attributes(const FileSystem& fs, const std::string& path, bool install) {
    const std::string refused = "refusing to edit " + path;
    if (fs.is_symlink(path)) return Error::invalid(refused + ": it is a symbolic link; nothing was changed");
    if (fs.directory_exists(path)) return Error::invalid(refused + ": it is not a regular file; nothing was changed");
    const bool existed = fs.file_exists(path);
    std::string old;
    if (existed) {
        Result<std::string> text = fs.read_file(path);
        if (!text) return text.error();
        old = std::move(*text);
    }
    const std::size_t at = attributes_line_at(old);
    HookFileChange c{path, "", existed, old, old};
    if (install) {
        if (at != std::string::npos) return std::optional<HookFileChange>();
        const std::size_t first_break = old.find('\n');
        const bool crlf = first_break != std::string::npos && first_break > 0 && old[first_break - 1] == '\r';
        const std::string eol = crlf ? "\r\n" : "\n";
        if (!old.empty() && old.back() != '\n') c.new_content += eol;
        c.new_content += std::string(kAttributesLine) + eol;
        c.change = existed ? "updated" : "created";
    } else {
        if (at == std::string::npos) return std::optional<HookFileChange>();
        std::size_t end = at + kAttributesLine.size();
        if (old.compare(end, 2, "\r\n") == 0) end += 2;
        else if (end < old.size()) end += 1;
        c.new_content = old.substr(0, at) + old.substr(end);
        c.change = c.new_content.empty() ? "removed" : "updated";
    }
    if (c.change == "updated") {
        if (Status writable = check_writable_file(path); !writable) return writable.error();
    }
    return std::optional<HookFileChange>(std::move(c));
}

Status apply_attributes(const WorkspacePaths& ws, const HookFileChange& c) {
    if (c.change != "removed") return write_named_file_atomic(ws, c.path, c.new_content);
    if (::unlink(c.path.c_str()) != 0) return Error::from_errno("cannot remove", c.path, errno);
    return ok_status();
}

// One key of the repository's own git config to set, or to remove (nullopt).
struct ConfigChange {
    std::string key;
    std::optional<std::string> value;
};

// The `git config` command that makes the same change.
std::string config_command(const ConfigChange& c) {
    return c.value ? "git config " + c.key + " \"" + *c.value + "\"" : "git config --unset " + c.key;
}

// Everything the merge driver part of install or uninstall changes, decided
// before anything is written.
struct DriverPlan {
    std::optional<HookFileChange> attributes;
    std::vector<ConfigChange> config;
    std::vector<std::string> notes;
};

constexpr std::string_view kElsewhere =
    "a git config file other than this repository's own (`git config --show-origin --get merge.small.driver` "
    "names it)";

// The git config keys install sets: merge.small.driver and .name go into the
// repository's own config only when git sees no merge.small.driver at all; a
// driver already there (small's, another path to small, or a command of the
// user's) is kept, never replaced.
void plan_driver_install(const GitPlace& place, const std::optional<std::string>& driver,
                         const std::optional<std::string>& name, DriverPlan& plan) {
    const std::string quoted_ours = "\"" + std::string(kDriverCommand) + "\"";
    if (driver && *driver == kDriverCommand) {
        plan.notes.push_back("merge driver already registered (git config merge.small.driver)");
    } else if (driver && runs_small_merge(*driver)) {
        plan.notes.push_back("merge driver already registered as \"" + *driver +
                             "\" (git config merge.small.driver); kept");
    } else if (driver) {
        plan.notes.push_back("merge.small.driver is \"" + *driver +
                             "\" in this repository's git config, which is not small's merge driver; kept, so git "
                             "merges .small/ files with it (to use small's: git config merge.small.driver " +
                             quoted_ours + ")");
    } else if (!place.driver.empty()) {
        const bool registered = place.driver == kDriverCommand || runs_small_merge(place.driver);
        const std::string where = "merge.small.driver is \"" + place.driver + "\" in " + std::string(kElsewhere);
        if (registered) {
            plan.notes.push_back(where + "; the merge driver is registered there, so it is not added to this "
                                         "repository's config");
        } else {
            plan.notes.push_back(where + "; not small's merge driver, and not overridden in this repository's config, "
                                         "so git merges .small/ files with it (to use small's here: git config "
                                         "merge.small.driver " + quoted_ours + ")");
        }
    } else {
        if (!name) plan.config.push_back({"merge.small.name", std::string(kDriverName)});
        plan.config.push_back({"merge.small.driver", std::string(kDriverCommand)});
    }
}

// The keys uninstall removes: only values small writes, only from the
// repository's own config.
void plan_driver_uninstall(const GitPlace& place, const std::optional<std::string>& driver,
                           const std::optional<std::string>& name, DriverPlan& plan) {
    const bool ours = driver && *driver == kDriverCommand;
    if (ours) plan.config.push_back({"merge.small.driver", std::nullopt});
    if (name && *name == kDriverName && (ours || !driver)) plan.config.push_back({"merge.small.name", std::nullopt});
    if (driver && !ours) {
        plan.notes.push_back("merge.small.driver is \"" + *driver +
                             "\" in this repository's git config, not the command small writes; left alone");
    } else if (!driver && !place.driver.empty()) {
        plan.notes.push_back("merge.small.driver is set in " + std::string(kElsewhere) + "; left alone");
    }
}

// The .gitattributes line and the merge.small keys of the repository's own
// git config (docs/commands.md, "The merge driver"), planned without writing.
Result<DriverPlan> plan_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place,
                               const GitRepo& repo, const HooksRequest& req, bool dry_run) {
    const bool install = req.action == HooksAction::Install;
    DriverPlan plan;
    Result<std::optional<HookFileChange>> attrs = plan_attributes(fs, ws.root + "/.gitattributes", install);
    if (!attrs) return attrs.error();
    plan.attributes = std::move(*attrs);
    Result<std::optional<std::string>> driver = repo.local_config("merge.small.driver");
    if (!driver) return driver.error();
    Result<std::optional<std::string>> name = repo.local_config("merge.small.name");
    if (!name) return name.error();
    if (install) plan_driver_install(place, *driver, *name, plan);
    else plan_driver_uninstall(place, *driver, *name, plan);
    for (const ConfigChange& c : plan.config) {
        const std::string verb = c.value ? (dry_run ? "would set" : "set") : (dry_run ? "would remove" : "removed");
        plan.notes.push_back(verb + ": " + config_command(c));
    }
    return plan;
}

Status apply_driver(const WorkspacePaths& ws, const GitRepo& repo, const DriverPlan& plan) {
    if (plan.attributes) {
        if (Status s = apply_attributes(ws, *plan.attributes); !s) return s;
    }
    for (const ConfigChange& c : plan.config) {
        if (c.value) {
            if (Status s = repo.set_local_config(c.key, *c.value); !s) return s;
        } else if (Result<bool> removed = repo.unset_local_config(c.key); !removed) {
            return removed.error();
        }
    }
    return ok_status();
}

// The driver changes a plan makes, as steps to take by hand ("" when none).
std::string by_hand(const DriverPlan& plan) {
    std::string commands;
    for (const ConfigChange& c : plan.config) {
        if (c.value) commands += (commands.empty() ? "run `" : "` and `") + config_command(c);
    }
    if (!commands.empty()) commands += "`";
    if (!plan.attributes) return commands;
    const std::string line = "add the line `" + std::string(kAttributesLine) + "` to " + plan.attributes->path;
    return commands.empty() ? line : line + ", then " + commands;
}

Result<GitRepo> open_repo(const std::string& root) {
    Result<std::optional<GitRepo>> found = GitRepo::discover(root);
    if (!found) return found.error();
    if (!*found) return Error::system("libgit2 finds no git repository at " + root + ", where git found one");
    return std::move(found->value());
}

// Everything is decided (and any refusal made) before the first write: the
// merge driver's part first, as creating the hooks folder to lock it is
// already a write.
Result<HooksResult> run_git(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    Result<GitPlace> place = find_git_hooks(ws.root);
    if (!place) return place.error();
    Result<std::optional<WorkspaceLock>> lock = lock_workspace(fs, ws, req);
    if (!lock) return lock.error();
    std::optional<GitRepo> repo;
    std::optional<DriverPlan> driver;
    if (req.action != HooksAction::Print) {
        Result<GitRepo> opened = open_repo(ws.root);
        if (!opened) return opened.error();
        repo.emplace(std::move(*opened));
        Result<DriverPlan> planned = plan_driver(fs, ws, *place, *repo, req, result.dry_run);
        if (!planned) return planned.error();
        driver.emplace(std::move(*planned));
    }
    Result<std::optional<Fd>> hooks_lock = lock_hooks(req, *place, result);
    if (!hooks_lock) return hooks_lock.error();
    Result<HookFileState> pre = read_hook_file(place->hooks_dir, kPre);
    if (!pre) return pre.error();
    if (req.action == HooksAction::Print) {
        result.content = wanted_hook(*place, *pre);
        result.notes.push_back("would be installed as " + place->hooks_dir + "/" + kPre);
        return result;
    }
    Result<HookFileState> chained = read_hook_file(place->hooks_dir, kChained);
    if (!chained) return chained.error();
    Result<std::vector<HookFileChange>> files =
        req.action == HooksAction::Install ? plan_git_install(*place, *pre, *chained, by_hand(*driver), result.notes)
                                           : plan_git_uninstall(*place, *pre, *chained, result.notes);
    if (!files) return files.error();
    result.files = *files;
    const bool hook_changes = result.changed();
    if (driver->attributes) result.files.push_back(*driver->attributes);
    result.notes.insert(result.notes.end(), driver->notes.begin(), driver->notes.end());
    if (req.dry_run) return result;
    if (hook_changes) {
        if (Status applied = apply_git(place->hooks_dir, *files); !applied) return applied.error();
    }
    // .gitattributes is staged in .small-cache/tmp, which a folder that is
    // not a workspace does not keep.
    const Status applied = write_leaving_no_staging(ws, [&] { return apply_driver(ws, *repo, *driver); });
    if (!applied) return applied.error();
    result.written = hook_changes || driver->attributes || !driver->config.empty();
    return result;
}

// ---------------------------------------------------------------- agent settings

Result<HooksResult> run_settings(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const bool claude = req.target == HookTarget::Claude;
    const std::vector<AgentHookEvent> events = claude ? claude_hook_events() : codex_hook_events();
    const std::string rel(claude ? kAgentSettingsFiles[0] : kAgentSettingsFiles[1]);
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    const std::string path = ws.root + "/" + rel;
    if (req.action == HooksAction::Print) {
        Result<std::string> ours = merge_agent_hooks("", events, true, rel);
        if (!ours) return ours.error();
        result.content = *ours;
        result.notes.push_back("would be merged into " + path);
        return result;
    }
    if (Status where = check_agent_settings_replaceable(ws, path); !where) return where.error();
    Result<std::optional<WorkspaceLock>> lock = lock_workspace(fs, ws, req);
    if (!lock) return lock.error();
    const bool existed = fs.file_exists(path);
    std::string old_content;
    if (existed) {
        Result<std::string> read = fs.read_file(path);
        if (!read) return read.error();
        old_content = std::move(*read);
    }
    Result<std::string> merged =
        merge_agent_hooks(old_content, events, req.action == HooksAction::Install, ws.display_prefix + rel);
    if (!merged) return merged.error();
    if (!existed && merged->empty()) {
        result.notes.push_back("no " + rel + " in " + ws.root + "; nothing to remove");
        return result;
    }
    HookFileChange c;
    c.path = path;
    c.existed = existed;
    c.old_content = old_content;
    c.new_content = *merged;
    c.change = !existed ? "created" : merged->empty() ? "removed" : *merged == old_content ? "unchanged" : "updated";
    result.files.push_back(c);
    if (req.dry_run || !result.changed()) return result;
    Status done = write_leaving_no_staging(ws, [&] {
        return merged->empty() ? remove_agent_settings_file(ws, path) : write_agent_settings_atomic(ws, path, *merged);
    });
    if (!done) return done.error();
    result.written = true;
    return result;
}

}  // namespace

Result<HookTarget> parse_hook_target(std::string_view text) {
    if (text == "git") return HookTarget::Git;
    if (text == "claude") return HookTarget::Claude;
    if (text == "codex") return HookTarget::Codex;
    return Error::usage("unknown hook target \"" + std::string(text) + "\" (valid: git, claude, codex)");
}

std::string_view hook_target_name(HookTarget target) { return kHookTargetNames[static_cast<int>(target)]; }

std::string_view hooks_action_name(HooksAction action) {
    switch (action) {
        case HooksAction::Install: return "install";
        case HooksAction::Uninstall: return "uninstall";
        case HooksAction::Print: return "print";
    }
    return "install";
}

bool HooksResult::changed() const {
    for (const HookFileChange& f : files) {
        if (f.change != "unchanged") return true;
    }
    return false;
}

Result<HooksResult> run_hooks(const FileSystem& fs, const HooksRequest& req) {
    HooksResult result;
    result.target = req.target;
    result.action = req.action;
    result.dry_run = req.dry_run || req.action == HooksAction::Print;
    if (req.target == HookTarget::Git) return run_git(fs, req, std::move(result));
    return run_settings(fs, req, std::move(result));
}

std::string hook_change_diff(const HookFileChange& change) {
    if (change.change == "unchanged") return "";
    const std::string old_label = change.existed ? change.path : "/dev/null";
    const std::string new_label = change.new_content.empty() && change.change == "removed" ? "/dev/null" : change.path;
    return unified_diff(change.old_content, change.new_content, old_label, new_label).text;
}

}  // namespace small
