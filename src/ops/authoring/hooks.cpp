#include "small/ops/authoring/hooks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <utility>

#include "small/base/line_diff.hpp"
#include "small/base/process.hpp"
#include "small/base/text.hpp"
#include "small/base/utf8.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"
#include "small/base/git_repo.hpp"
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
// Every path after `--`: git's %P is the file's path in the repository,
// which starts with '-' when a workspace folder's name does.
constexpr std::string_view kDriverCommand = "small merge -- %O %A %B %P";
// The line install registered before it passed the paths after `--`: still
// small's driver (not replaced, and not joined by a second one).
constexpr std::string_view kOldDriverCommand = "small merge %O %A %B %P";

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
    std::string hooks_dir;    // absolute, lexically normal
    std::string prefix;       // the workspace root below the top level ("" or "sub/")
    std::string config_path;  // the repository's own config file (.git/config), absolute
    std::string hooks_path;   // core.hooksPath as configured ("" when unset)
    std::string driver;       // merge.small.driver as git sees it, from any config file ("" when unset)
};

// git is found by the shell (PATH); its stderr is only wanted on failure,
// and the capture mixes the two streams, so a failing rev-parse runs again.
// merge.small.driver is read here, as git reads it, because the driver that
// git will run may come from a file libgit2 1.5 does not see the way git
// does (GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM); the repository's own file
// is read and written through libgit2 (GitRepo::local_config). The values
// are separated by NUL bytes: a folder name may hold a line break.
constexpr const char* kRevParseScript =
    "command -v git >/dev/null 2>&1 || exit 127\n"
    "prefix=$(git rev-parse --show-prefix 2>/dev/null) || "
    "{ git rev-parse --show-prefix 2>&1 >/dev/null; exit 128; }\n"
    "hooks=$(git rev-parse --git-path hooks 2>/dev/null) || exit 128\n"
    "config=$(git rev-parse --git-path config 2>/dev/null) || exit 128\n"
    "hooks_path=$(git config --get core.hooksPath 2>/dev/null) || hooks_path=\n"
    "driver=$(git config --get merge.small.driver 2>/dev/null) || driver=\n"
    "printf '%s\\0%s\\0%s\\0%s\\0%s' \"$prefix\" \"$hooks\" \"$config\" \"$hooks_path\" \"$driver\"\n";

// `path` as git printed it (relative to `root` or absolute), absolute and
// lexically normal, without a trailing '/'.
std::string absolute_from(const std::string& root, const std::string& path) {
    const stdfs::path p = stdfs::path(path).is_absolute() ? stdfs::path(path) : stdfs::path(root) / path;
    std::string normal = p.lexically_normal().string();
    while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    return normal;
}

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
    std::vector<std::string> fields;
    for (std::size_t at = 0;;) {
        const std::size_t end = text.find('\0', at);
        fields.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    if (fields.size() != 5) return Error::system("unexpected output of git rev-parse: " + text);
    if (fields[1].empty()) return Error::system("git rev-parse --git-path hooks printed nothing");
    return GitPlace{absolute_from(root, fields[1]), fields[0], absolute_from(root, fields[2]), fields[3], fields[4]};
}

// "sub/" → "sub", "" → "." (as `small check --dir` takes it).
std::string workspace_dir_of(const std::string& prefix) {
    return prefix.empty() ? "." : prefix.substr(0, prefix.size() - 1);
}

// A folder as a command's argument: "./-x" for "-x", which would read as a flag.
std::string dir_argument(const std::string& dir) { return !dir.empty() && dir[0] == '-' ? "./" + dir : dir; }

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
    e.hint = "run `small check --strict --dir " + shell_quote(dir_argument(workspace_dir_of(place.prefix))) +
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

// The hooks folder must be a folder of its own: small does not write
// through a symbolic link (the open below would only say "Not a directory").
Status refuse_linked_hooks_folder(const std::string& dir) {
    std::error_code ec;
    if (!stdfs::is_symlink(dir, ec)) return ok_status();
    const std::string target = stdfs::read_symlink(dir, ec).string();
    Error e = Error::invalid("refusing to use the hooks folder " + dir + ": it is a symbolic link" +
                             (target.empty() ? "" : " (to " + target + ")") +
                             "; small does not write hooks through a link; nothing was changed");
    e.hint = "point core.hooksPath at the folder itself (git config core.hooksPath " +
             shell_quote(target.empty() ? "FOLDER" : dir_argument(target)) + ") or replace the link with a folder";
    return e;
}

// The undo steps of the writes made so far: when a later write fails they
// run in reverse, so a failed command changes nothing.
class Rollback {
public:
    void add(std::function<Status()> undo) { steps_.push_back(std::move(undo)); }
    Error undo(Error failure) {
        std::string left;
        for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
            if (Status s = (*it)(); !s) left += "; could not undo an earlier write: " + s.error().message;
        }
        if (!steps_.empty()) failure.message += left.empty() ? "; the earlier writes were undone" : left;
        steps_.clear();
        return failure;
    }

private:
    std::vector<std::function<Status()>> steps_;
};

// The hooks folder's lock, when this run writes (install creates the folder
// first, undone by `rollback`; an uninstall with no folder has nothing to
// change).
Result<std::optional<Fd>> lock_hooks(const HooksRequest& req, const GitPlace& place, HooksResult& result,
                                     Rollback& rollback) {
    if (req.dry_run || req.action == HooksAction::Print) return std::optional<Fd>();
    if (req.action == HooksAction::Install) {
        Result<bool> made = ensure_hooks_folder(place.hooks_dir);
        if (!made) return made.error();
        if (*made) {
            result.notes.push_back("created the hooks folder " + place.hooks_dir);
            rollback.add([dir = place.hooks_dir] {
                if (::rmdir(dir.c_str()) != 0) return Status(Error::from_errno("cannot remove", dir, errno));
                return ok_status();
            });
        }
    } else if (!stdfs::is_directory(place.hooks_dir)) {
        return std::optional<Fd>();
    }
    Result<Fd> held = lock_hooks_folder(place.hooks_dir, req.lock_wait);
    if (!held) return held.error();
    return std::optional<Fd>(std::move(*held));
}

// ---------------------------------------------------------------- what install added

// A recorded file as it reads after uninstall: its bytes from before install
// while it is exactly as install left it, else with the entries install
// added taken out by `remove` (which returns the text and whether nothing
// else is left). nullopt: the file goes (install created it, and nothing
// else is in it).
using RemoveEntries = std::function<Result<std::pair<std::string, bool>>(const std::string& now,
                                                                         const std::vector<std::string>& entries)>;
Result<std::optional<std::string>> uninstalled_content(const HookRecordFile& rec, const std::string& now,
                                                       const RemoveEntries& remove) {
    if (now == rec.after) {
        if (rec.created) return std::optional<std::string>();
        if (rec.before) return std::optional<std::string>(*rec.before);
    }
    Result<std::pair<std::string, bool>> removed = remove(now, rec.entries);
    if (!removed) return removed.error();
    if (removed->second && rec.created) return std::optional<std::string>();
    return std::optional<std::string>(std::move(removed->first));
}

// Records that install changed `rel` from `old` (`existed`) to `now`,
// adding `added`. A second install keeps the first one's bytes-before while
// the file was not changed in between, and adds its entries to the list.
void record_install(HookRecord& record, const std::string& rel, bool existed, const std::string& old,
                    const std::string& now, const std::vector<std::string>& added) {
    HookRecordFile entry{rel, !existed, existed ? std::optional<std::string>(old) : std::nullopt, now, added};
    if (HookRecordFile* prior = record.file(rel); prior != nullptr) {
        if (existed) {
            entry.created = prior->created;
            entry.before = old == prior->after ? prior->before : std::nullopt;
            for (const std::string& e : prior->entries) {
                if (std::find(entry.entries.begin(), entry.entries.end(), e) == entry.entries.end())
                    entry.entries.push_back(e);
            }
        }
        *prior = std::move(entry);
    } else {
        record.files.push_back(std::move(entry));
    }
    // A copy that is not UTF-8 cannot be kept in the record's JSON.
    HookRecordFile& kept = *record.file(rel);
    if (kept.before && !is_valid_utf8(*kept.before)) kept.before.reset();
}

void forget_file(HookRecord& record, const std::string& rel) {
    std::erase_if(record.files, [&](const HookRecordFile& f) { return f.path == rel; });
}

// Writes `now` as the record at `path` (after `before`, nullopt when there
// was none), undone by `rollback`.
Status apply_record(const WorkspacePaths& ws, const std::string& path, const std::optional<HookRecord>& before,
                    const HookRecord& now, Rollback& rollback) {
    if (Status s = write_hook_record(ws, path, now); !s) return s;
    rollback.add([&ws, path, old = before.value_or(HookRecord{})] { return write_hook_record(ws, path, old); });
    return ok_status();
}

// The record at `path`, or an empty one; `had` tells whether there was one.
Result<HookRecord> load_record(const std::string& path, std::optional<HookRecord>& had) {
    Result<std::optional<HookRecord>> read = read_hook_record(path);
    if (!read) return read.error();
    had = *read;
    return read->value_or(HookRecord{});
}

// Nothing may be written in `dir` (or, when it does not exist yet, in the
// folder that would hold it): refused before the first write.
Status check_writable_folder(std::string dir) {
    while (!dir.empty() && ::access(dir.c_str(), F_OK) != 0) {
        const std::string parent = stdfs::path(dir).parent_path().string();
        if (parent == dir) break;
        dir = parent;
    }
    if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) == 0) return ok_status();
    Error e = Error::from_errno("cannot write in", dir, errno);
    e.message += " (the folder is not writable); nothing was changed";
    e.hint = "make it writable if small should change it, or run the command as its owner";
    return e;
}

// ---------------------------------------------------------------- merge driver (D17)

// Whether `command` runs small's merge driver with git's three versions:
// `small merge` (any path to a program named small) with %O, %A and %B
// among its words, such as "/opt/small/bin/small merge -- %O %A %B %P".
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

// `text` without our line (and its line break); "" stays "" when absent.
std::string without_attributes_line(const std::string& text) {
    const std::size_t at = attributes_line_at(text);
    if (at == std::string::npos) return text;
    std::size_t end = at + kAttributesLine.size();
    if (text.compare(end, 2, "\r\n") == 0) end += 2;
    else if (end < text.size()) end += 1;
    return text.substr(0, at) + text.substr(end);
}

constexpr std::string_view kAttributesRel = ".gitattributes";

// The .gitattributes change install or uninstall makes (nothing when none),
// refused before anything is written when the file cannot be replaced.
// Install adds our line with the file's own line break (CRLF when its first
// line ends so) and records it; uninstall undoes only what the record says
// install did (a line the user wrote stays).
Result<std::optional<HookFileChange>> plan_attributes(const FileSystem& fs, const std::string& path, bool install,
                                                      HookRecord& record, std::vector<std::string>& notes) {
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
    const std::string rel(kAttributesRel);
    if (install) {
        if (at != std::string::npos) return std::optional<HookFileChange>();
        const std::size_t first_break = old.find('\n');
        const bool crlf = first_break != std::string::npos && first_break > 0 && old[first_break - 1] == '\r';
        const std::string eol = crlf ? "\r\n" : "\n";
        if (!old.empty() && old.back() != '\n') c.new_content += eol;
        c.new_content += std::string(kAttributesLine) + eol;
        c.change = existed ? "updated" : "created";
        record_install(record, rel, existed, old, c.new_content, {std::string(kAttributesLine)});
    } else {
        const HookRecordFile* rec = record.file(rel);
        if (rec == nullptr) {
            if (at != std::string::npos) {
                notes.push_back("the line `" + std::string(kAttributesLine) + "` in " + path +
                                " was not added by `small hooks install` (no record of it); left alone");
            }
            return std::optional<HookFileChange>();
        }
        Result<std::optional<std::string>> left =
            !existed ? Result<std::optional<std::string>>(std::optional<std::string>(old))
                     : uninstalled_content(*rec, old, [](const std::string& now, const std::vector<std::string>&) {
                           std::string rest = without_attributes_line(now);
                           const bool empty = rest.empty();
                           return Result<std::pair<std::string, bool>>(std::make_pair(std::move(rest), empty));
                       });
        if (!left) return left.error();
        forget_file(record, rel);
        if (*left && **left == old) return std::optional<HookFileChange>();
        c.new_content = left->value_or("");
        c.change = *left ? "updated" : "removed";
    }
    if (c.change == "updated") {
        if (Status writable = check_writable_file(path); !writable) return writable.error();
    }
    return std::optional<HookFileChange>(std::move(c));
}

// Writes (or removes) .gitattributes as planned, undone by `rollback`.
Status apply_attributes(const WorkspacePaths& ws, const HookFileChange& c, Rollback& rollback) {
    if (c.change != "removed") {
        if (Status s = write_file_atomic(ws, c.path, c.new_content, {.scope = WriteScope::UserNamed}); !s) return s;
    } else if (::unlink(c.path.c_str()) != 0) {
        return Error::from_errno("cannot remove", c.path, errno);
    }
    rollback.add([&ws, c] {
        if (c.existed) return write_file_atomic(ws, c.path, c.old_content, {.scope = WriteScope::UserNamed});
        if (::unlink(c.path.c_str()) != 0) return Status(Error::from_errno("cannot remove", c.path, errno));
        return ok_status();
    });
    return ok_status();
}

// One key of the repository's own git config to set, or to remove (nullopt).
struct ConfigChange {
    std::string key;
    std::optional<std::string> value;
    std::optional<std::string> previous;  // its value before, for an undo
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
// driver already there (small's, in this or the earlier form, another path
// to small, or a command of the user's) is kept, never replaced.
void plan_driver_install(const GitPlace& place, const std::optional<std::string>& driver,
                         const std::optional<std::string>& name, DriverPlan& plan) {
    const std::string quoted_ours = "\"" + std::string(kDriverCommand) + "\"";
    if (driver && *driver == kDriverCommand) {
        plan.notes.push_back("merge driver already registered (git config merge.small.driver)");
    } else if (driver && *driver == kOldDriverCommand) {
        plan.notes.push_back("merge driver already registered in the earlier form \"" + std::string(kOldDriverCommand) +
                             "\" (git config merge.small.driver); kept. That form misreads a workspace folder whose "
                             "name starts with '-'; to update it: git config merge.small.driver " +
                             quoted_ours);
    } else if (driver && runs_small_merge(*driver)) {
        plan.notes.push_back("merge driver already registered as \"" + *driver +
                             "\" (git config merge.small.driver); kept");
    } else if (driver) {
        plan.notes.push_back("merge.small.driver is \"" + *driver +
                             "\" in this repository's git config, which is not small's merge driver; kept, so git "
                             "merges .small/ files with it (to use small's: git config merge.small.driver " +
                             quoted_ours + ")");
    } else if (!place.driver.empty()) {
        const bool registered = runs_small_merge(place.driver);
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
        if (!name) plan.config.push_back({"merge.small.name", std::string(kDriverName), std::nullopt});
        plan.config.push_back({"merge.small.driver", std::string(kDriverCommand), std::nullopt});
    }
}

// The keys uninstall removes: only those install recorded as set, only
// while they still hold the value it set, only from the repository's own
// config. A key the user set (even to small's own value) stays.
void plan_driver_uninstall(const GitPlace& place, const std::optional<std::string>& driver,
                           const std::optional<std::string>& name, const HookRecord& record, DriverPlan& plan) {
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::optional<std::string>>>{
             {"merge.small.driver", driver}, {"merge.small.name", name}}) {
        const std::string* recorded = record.config_value(key);
        if (recorded != nullptr && value && *value == *recorded) {
            plan.config.push_back({key, std::nullopt, value});
        } else if (recorded != nullptr && value) {
            plan.notes.push_back(key + " changed since `small hooks install` set it; left alone");
        } else if (recorded == nullptr && value && (*value == kDriverCommand || *value == kOldDriverCommand)) {
            plan.notes.push_back(key + " is \"" + *value +
                                 "\", but not set by `small hooks install` here (no record "
                                 "of it); left alone (to remove it: git config --unset " +
                                 key + ")");
        }
    }
    const bool ours = std::any_of(plan.config.begin(), plan.config.end(),
                                  [](const ConfigChange& c) { return c.key == "merge.small.driver"; });
    if (driver && !ours && *driver != kDriverCommand && *driver != kOldDriverCommand) {
        plan.notes.push_back("merge.small.driver is \"" + *driver +
                             "\" in this repository's git config, not the command small writes; left alone");
    } else if (!driver && !place.driver.empty()) {
        plan.notes.push_back("merge.small.driver is set in " + std::string(kElsewhere) + "; left alone");
    }
}

// The .gitattributes line and the merge.small keys of the repository's own
// git config (docs/commands.md, "The merge driver"), planned without
// writing; `record` gets what install adds, or loses what uninstall removes.
Result<DriverPlan> plan_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place,
                               const GitRepo& repo, const HooksRequest& req, bool dry_run, HookRecord& record) {
    const bool install = req.action == HooksAction::Install;
    DriverPlan plan;
    Result<std::optional<HookFileChange>> attrs =
        plan_attributes(fs, ws.root + "/" + std::string(kAttributesRel), install, record, plan.notes);
    if (!attrs) return attrs.error();
    plan.attributes = std::move(*attrs);
    Result<std::optional<std::string>> driver = repo.local_config("merge.small.driver");
    if (!driver) return driver.error();
    Result<std::optional<std::string>> name = repo.local_config("merge.small.name");
    if (!name) return name.error();
    if (install) {
        plan_driver_install(place, *driver, *name, plan);
        for (const ConfigChange& c : plan.config) {
            std::erase_if(record.config, [&](const auto& kept) { return kept.first == c.key; });
            record.config.emplace_back(c.key, *c.value);
        }
    } else {
        plan_driver_uninstall(place, *driver, *name, record, plan);
        record.config.clear();
    }
    for (const ConfigChange& c : plan.config) {
        const std::string verb = c.value ? (dry_run ? "would set" : "set") : (dry_run ? "would remove" : "removed");
        plan.notes.push_back(verb + ": " + config_command(c));
    }
    return plan;
}

// Sets or removes one key; `value` nullopt removes it.
Status set_config(const GitRepo& repo, const std::string& key, const std::optional<std::string>& value) {
    if (value) return repo.set_local_config(key, *value);
    Result<bool> removed = repo.unset_local_config(key);
    if (!removed) return removed.error();
    return ok_status();
}

// The config file keeps its permission bits (libgit2 writes a new file).
Status keep_mode(const std::string& path, mode_t mode) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || (st.st_mode & 07777) == mode) return ok_status();
    if (::chmod(path.c_str(), mode) != 0) return Error::from_errno("cannot restore the mode of", path, errno);
    return ok_status();
}

Status apply_config(const GitRepo& repo, const GitPlace& place, const DriverPlan& plan, Rollback& rollback) {
    if (plan.config.empty()) return ok_status();
    struct stat st {};
    const mode_t mode = ::stat(place.config_path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
    rollback.add([path = place.config_path, mode] { return keep_mode(path, mode); });
    for (const ConfigChange& c : plan.config) {
        if (Status s = set_config(repo, c.key, c.value); !s) return s;
        rollback.add([&repo, c] { return set_config(repo, c.key, c.previous); });
    }
    return keep_mode(place.config_path, mode);
}

// Refuses, before the first write, what a user without write access could
// not change: the config file and its folder (git's lock file goes there),
// the folders .gitattributes and the record are written in.
Status check_driver_writable(const WorkspacePaths& ws, const GitPlace& place, const DriverPlan& plan,
                             const std::string& record_path, bool record_changes) {
    if (!plan.config.empty()) {
        if (Status s = check_writable_file(place.config_path); !s) return s;
        if (Status s = check_writable_folder(stdfs::path(place.config_path).parent_path().string()); !s) return s;
    }
    if (plan.attributes && plan.attributes->change != "updated") {
        if (Status s = check_writable_folder(ws.root); !s) return s;
    }
    if (record_changes) return check_writable_folder(stdfs::path(record_path).parent_path().string());
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

bool same_record(const std::optional<HookRecord>& had, const HookRecord& now) {
    return had ? hook_record_text(*had) == hook_record_text(now) : now.empty();
}

// Everything is decided (and any refusal made) before the first write: the
// merge driver's part first, as creating the hooks folder to lock it is
// already a write. The writes then go record, git config, .gitattributes,
// hook; when one fails, those before it are undone.
Result<HooksResult> run_git(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    Result<GitPlace> place = find_git_hooks(ws.root);
    if (!place) return place.error();
    if (req.action != HooksAction::Print) {
        if (Status linked = refuse_linked_hooks_folder(place->hooks_dir); !linked) return linked.error();
    }
    Result<std::optional<WorkspaceLock>> lock = lock_workspace(fs, ws, req);
    if (!lock) return lock.error();
    std::optional<GitRepo> repo;
    std::optional<DriverPlan> driver;
    const std::string record_path = hook_record_path(ws.root, "git");
    std::optional<HookRecord> had_record;
    HookRecord record;
    if (req.action != HooksAction::Print) {
        Result<GitRepo> opened = open_repo(ws.root);
        if (!opened) return opened.error();
        repo.emplace(std::move(*opened));
        Result<HookRecord> loaded = load_record(record_path, had_record);
        if (!loaded) return loaded.error();
        record = std::move(*loaded);
        Result<DriverPlan> planned = plan_driver(fs, ws, *place, *repo, req, result.dry_run, record);
        if (!planned) return planned.error();
        driver.emplace(std::move(*planned));
        const bool record_changes = !same_record(had_record, record);
        if (!req.dry_run) {
            if (Status s = check_driver_writable(ws, *place, *driver, record_path, record_changes); !s)
                return s.error();
        }
    }
    Rollback rollback;
    Result<std::optional<Fd>> hooks_lock = lock_hooks(req, *place, result, rollback);
    if (!hooks_lock) return rollback.undo(hooks_lock.error());
    Result<HookFileState> pre = read_hook_file(place->hooks_dir, kPre);
    if (!pre) return rollback.undo(pre.error());
    if (req.action == HooksAction::Print) {
        result.content = wanted_hook(*place, *pre);
        result.notes.push_back("would be installed as " + place->hooks_dir + "/" + kPre);
        return result;
    }
    Result<HookFileState> chained = read_hook_file(place->hooks_dir, kChained);
    if (!chained) return rollback.undo(chained.error());
    Result<std::vector<HookFileChange>> files =
        req.action == HooksAction::Install ? plan_git_install(*place, *pre, *chained, by_hand(*driver), result.notes)
                                           : plan_git_uninstall(*place, *pre, *chained, result.notes);
    if (!files) return rollback.undo(files.error());
    result.files = *files;
    const bool hook_changes = result.changed();
    if (driver->attributes) result.files.push_back(*driver->attributes);
    result.notes.insert(result.notes.end(), driver->notes.begin(), driver->notes.end());
    if (req.dry_run) return result;
    if (hook_changes) {
        if (Status s = check_writable_folder(place->hooks_dir); !s) return rollback.undo(s.error());
    }
    // .gitattributes and the record are staged in .small-cache/tmp, which a
    // folder that is not a workspace does not keep.
    const Status applied = write_leaving_no_staging(ws, [&]() -> Status {
        if (!same_record(had_record, record)) {
            if (Status s = apply_record(ws, record_path, had_record, record, rollback); !s)
                return rollback.undo(s.error());
        }
        if (Status s = apply_config(*repo, *place, *driver, rollback); !s) return rollback.undo(s.error());
        if (driver->attributes) {
            if (Status s = apply_attributes(ws, *driver->attributes, rollback); !s) return rollback.undo(s.error());
        }
        if (hook_changes) {
            if (Status s = apply_git(place->hooks_dir, *files); !s) return rollback.undo(s.error());
        }
        return ok_status();
    });
    if (!applied) return applied.error();
    if (!fs.directory_exists(ws.small_dir)) remove_empty_staging_folders(ws);
    result.written = hook_changes || driver->attributes || !driver->config.empty() || !same_record(had_record, record);
    return result;
}

// ---------------------------------------------------------------- agent settings

Result<HooksResult> run_settings(const FileSystem& fs, const HooksRequest& req, HooksResult result) {
    const bool claude = req.target == HookTarget::Claude;
    const std::vector<AgentHookEvent> events = claude ? claude_hook_events() : codex_hook_events();
    const std::string rel(claude ? kAgentSettingsFiles[0] : kAgentSettingsFiles[1]);
    const WorkspacePaths ws = locate_workspace(fs, req.dir, req.cwd);
    const std::string path = ws.root + "/" + rel;
    const std::string display = ws.display_prefix + rel;
    if (req.action == HooksAction::Print) {
        Result<AgentHooksEdit> ours = add_agent_hooks("", events, rel);
        if (!ours) return ours.error();
        result.content = ours->text;
        result.notes.push_back("would be merged into " + path);
        return result;
    }
    if (Status where = check_replaceable(ws, path, WriteScope::AgentSettings); !where) return where.error();
    Result<std::optional<WorkspaceLock>> lock = lock_workspace(fs, ws, req);
    if (!lock) return lock.error();
    const std::string record_path = hook_record_path(ws.root, hook_target_name(req.target));
    std::optional<HookRecord> had_record;
    Result<HookRecord> record = load_record(record_path, had_record);
    if (!record) return record.error();
    const bool existed = fs.file_exists(path);
    std::string old_content;
    if (existed) {
        Result<std::string> read = fs.read_file(path);
        if (!read) return read.error();
        old_content = std::move(*read);
    }
    std::optional<std::string> new_content;  // nullopt: the file goes
    if (req.action == HooksAction::Install) {
        Result<AgentHooksEdit> added = add_agent_hooks(old_content, events, display);
        if (!added) return added.error();
        if (!added->events.empty()) record_install(*record, rel, existed, old_content, added->text, added->events);
        new_content = std::move(added->text);
    } else {
        const HookRecordFile* rec = record->file(rel);
        if (rec == nullptr || !existed) {
            if (rec == nullptr && existed) {
                Result<AgentHooksEdit> ours = remove_agent_hooks(old_content, {}, display);  // the JSON must parse
                if (!ours) return ours.error();
                if (old_content.find(kAgentHookCommand) != std::string::npos) {
                    result.notes.push_back(display + " runs `" + std::string(kAgentHookCommand) +
                                           "`, but no record says `small hooks install " +
                                           std::string(hook_target_name(req.target)) + "` added it; left alone");
                }
            }
            forget_file(*record, rel);
            if (!existed) result.notes.push_back("no " + rel + " in " + ws.root + "; nothing to remove");
            new_content = old_content;
        } else {
            Result<std::optional<std::string>> left = uninstalled_content(
                *rec, old_content, [&](const std::string& now, const std::vector<std::string>& entries) {
                    Result<AgentHooksEdit> removed = remove_agent_hooks(now, entries, display);
                    if (!removed) return Result<std::pair<std::string, bool>>(removed.error());
                    return Result<std::pair<std::string, bool>>(std::make_pair(removed->text, removed->empty));
                });
            if (!left) return left.error();
            forget_file(*record, rel);
            new_content = std::move(*left);
        }
    }
    const bool record_changes = !same_record(had_record, *record);
    if (existed || new_content) {
        HookFileChange c;
        c.path = path;
        c.existed = existed;
        c.old_content = old_content;
        c.new_content = new_content.value_or("");
        c.change = !existed                      ? "created"
                   : !new_content                ? "removed"
                   : *new_content == old_content ? "unchanged"
                                                 : "updated";
        if (req.action == HooksAction::Install || c.change != "unchanged") result.files.push_back(c);
    }
    if (req.dry_run || (!result.changed() && !record_changes)) return result;
    Rollback rollback;
    Status done = write_leaving_no_staging(ws, [&]() -> Status {
        if (record_changes) {
            if (Status s = apply_record(ws, record_path, had_record, *record, rollback); !s)
                return rollback.undo(s.error());
        }
        if (!result.changed()) return ok_status();
        const Status s =
            new_content ? write_file_atomic(ws, path, *new_content, {.scope = WriteScope::AgentSettings})
                        : remove_file(ws, path, WriteScope::AgentSettings);
        return s ? s : Status(rollback.undo(s.error()));
    });
    if (!done) return done.error();
    if (!fs.directory_exists(ws.small_dir)) remove_empty_staging_folders(ws);
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

Result<HooksResult> hooks_command(const FileSystem& fs, const HooksRequest& req) {
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
