#include "small/domain/merge_driver.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "small/base/path.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

// The .gitattributes line and the git config values install writes.
constexpr std::string_view kAttributesLine = kMergeAttributesLine;  // model/agent_hooks
constexpr std::string_view kAttributesRel = kGitAttributesFile;
constexpr std::string_view kDriverName = "small merge driver";
// Every path after `--`: git's %P is the file's path in the repository,
// which starts with '-' when a workspace folder's name does.
constexpr std::string_view kDriverCommand = "small merge -- %O %A %B %P";
// The line install registered before it passed the paths after `--`: still
// small's driver (not replaced, and not joined by a second one).
constexpr std::string_view kOldDriverCommand = "small merge %O %A %B %P";

constexpr std::string_view kOtherConfigFile =
    "a git config file other than this repository's own (`git config --show-origin --get merge.small.driver` "
    "names it)";

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
    return words.size() >= 2 && file_name(words[0]) == "small" && words[1] == "merge" && has("%O") && has("%A") &&
           has("%B");
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

// Install adds our line with the file's own line break (CRLF when its first
// line ends so) and records it; nothing when the line is there.
std::optional<HookFileChange> plan_attributes_install(HookFileChange c, HookRecord& record) {
    if (attributes_line_at(c.old_content) != std::string::npos) return std::nullopt;
    const std::string& old = c.old_content;
    const std::size_t first_break = old.find('\n');
    const bool crlf = first_break != std::string::npos && first_break > 0 && old[first_break - 1] == '\r';
    const std::string eol = crlf ? "\r\n" : "\n";
    if (!old.empty() && old.back() != '\n') c.new_content += eol;
    c.new_content += std::string(kAttributesLine) + eol;
    c.change = c.existed ? "updated" : "created";
    record_install(record, std::string(kAttributesRel), c.existed, old, c.new_content, {std::string(kAttributesLine)});
    return c;
}

// Uninstall undoes only what the record says install did (a line the user
// wrote stays).
Result<std::optional<HookFileChange>> plan_attributes_uninstall(HookFileChange c, HookRecord& record,
                                                                std::vector<std::string>& notes) {
    const std::string rel(kAttributesRel);
    const HookRecordFile* rec = record.file(rel);
    if (rec == nullptr) {
        if (attributes_line_at(c.old_content) != std::string::npos) {
            notes.push_back("the line `" + std::string(kAttributesLine) + "` in " + c.path +
                            " was not added by `small hooks install` (no record of it); left alone");
        }
        return std::optional<HookFileChange>();
    }
    Result<std::optional<std::string>> left =
        !c.existed ? Result<std::optional<std::string>>(std::optional<std::string>(c.old_content))
                   : uninstalled_content(*rec, c.old_content, [](const std::string& now, const std::vector<std::string>&) {
                         std::string rest = without_attributes_line(now);
                         const bool empty = rest.empty();
                         return Result<std::pair<std::string, bool>>(std::make_pair(std::move(rest), empty));
                     });
    if (!left) return left.error();
    forget_recorded_file(record, rel);
    if (*left && **left == c.old_content) return std::optional<HookFileChange>();
    c.new_content = left->value_or("");
    c.change = *left ? "updated" : "removed";
    return std::optional<HookFileChange>(std::move(c));
}

// The .gitattributes change install or uninstall makes (nothing when none),
// refused before anything is written when the file cannot be replaced.
Result<std::optional<HookFileChange>> plan_attributes(const FileSystem& fs, const std::string& path, bool install,
                                                      HookRecord& record, std::vector<std::string>& notes) {
    const std::string refused = "refusing to edit " + path;
    if (fs.is_symlink(path)) return Error::invalid(refused + ": it is a symbolic link; nothing was changed");
    if (fs.directory_exists(path)) return Error::invalid(refused + ": it is not a regular file; nothing was changed");
    HookFileChange now{path, "", fs.file_exists(path), "", ""};
    if (now.existed) {
        Result<std::string> text = fs.read_file(path);
        if (!text) return text.error();
        now.old_content = std::move(*text);
        now.new_content = now.old_content;
    }
    using Planned = Result<std::optional<HookFileChange>>;
    Planned c = install ? Planned(plan_attributes_install(std::move(now), record))
                        : plan_attributes_uninstall(std::move(now), record, notes);
    if (c && *c && (*c)->change == "updated") {
        if (Status writable = check_writable_file(fs, path); !writable) return writable.error();
    }
    return c;
}

// Writes (or removes) .gitattributes as planned, undone by `rollback`.
Status apply_attributes(const FileSystem& fs, const WorkspacePaths& ws, const HookFileChange& c, Rollback& rollback) {
    const Status done = c.change == "removed" ? remove_named_file(c.path)
                                              : write_file_atomic(fs, ws, c.path, c.new_content, {.scope = WriteScope::UserNamed});
    if (!done) return done;
    rollback.add([&fs, &ws, c] {
        if (c.existed) return write_file_atomic(fs, ws, c.path, c.old_content, {.scope = WriteScope::UserNamed});
        return remove_named_file(c.path);
    });
    return ok_status();
}

// The `git config` command that makes the same change.
std::string config_command(const ConfigChange& c) {
    return c.value ? "git config " + c.key + " \"" + *c.value + "\"" : "git config --unset " + c.key;
}

// What to say when git already sees a merge.small.driver in this
// repository's own config (`driver`): it is kept, whatever it is.
std::string kept_local_driver(const std::string& driver) {
    const std::string quoted_ours = "\"" + std::string(kDriverCommand) + "\"";
    if (driver == kDriverCommand) return "merge driver already registered (git config merge.small.driver)";
    if (driver == kOldDriverCommand) {
        return "merge driver already registered in the earlier form \"" + std::string(kOldDriverCommand) +
               "\" (git config merge.small.driver); kept. That form misreads a workspace folder whose name starts "
               "with '-'; to update it: git config merge.small.driver " + quoted_ours;
    }
    if (runs_small_merge(driver)) return "merge driver already registered as \"" + driver + "\" (git config merge.small.driver); kept";
    return "merge.small.driver is \"" + driver +
           "\" in this repository's git config, which is not small's merge driver; kept, so git merges .small/ "
           "files with it (to use small's: git config merge.small.driver " + quoted_ours + ")";
}

// The same for a driver set in another config file only (`elsewhere`).
std::string kept_other_driver(const std::string& elsewhere) {
    const std::string where = "merge.small.driver is \"" + elsewhere + "\" in " + std::string(kOtherConfigFile);
    if (runs_small_merge(elsewhere)) {
        return where + "; the merge driver is registered there, so it is not added to this repository's config";
    }
    return where + "; not small's merge driver, and not overridden in this repository's config, so git merges "
                   ".small/ files with it (to use small's here: git config merge.small.driver \"" +
           std::string(kDriverCommand) + "\")";
}

// The git config keys install sets: merge.small.driver and .name go into the
// repository's own config only when git sees no merge.small.driver at all; a
// driver already there (small's, in this or the earlier form, another path
// to small, or a command of the user's) is kept, never replaced.
void plan_driver_install(const GitPlace& place, const std::optional<std::string>& driver,
                         const std::optional<std::string>& name, DriverPlan& plan) {
    if (driver) {
        plan.notes.push_back(kept_local_driver(*driver));
    } else if (!place.driver.empty()) {
        plan.notes.push_back(kept_other_driver(place.driver));
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
        plan.notes.push_back("merge.small.driver is set in " + std::string(kOtherConfigFile) + "; left alone");
    }
}

// The merge.small keys of the repository's own config, planned; the record
// follows the plan.
Status plan_driver_config(const GitPlace& place, bool install, HookRecord& record, DriverPlan& plan) {
    Result<std::optional<std::string>> driver = place.repo.local_config("merge.small.driver");
    if (!driver) return driver.error();
    Result<std::optional<std::string>> name = place.repo.local_config("merge.small.name");
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
    return ok_status();
}

// Sets or removes one key; `value` nullopt removes it.
Status set_config(const GitRepo& repo, const std::string& key, const std::optional<std::string>& value) {
    if (value) return repo.set_local_config(key, *value);
    Result<bool> removed = repo.unset_local_config(key);
    if (!removed) return removed.error();
    return ok_status();
}

Status apply_config(const GitPlace& place, const DriverPlan& plan, Rollback& rollback) {
    if (plan.config.empty()) return ok_status();
    // Of the file itself: .git/config may be a link, and chmod follows it.
    const unsigned mode = file_mode(place.config_path).value_or(0644);
    rollback.add([path = place.config_path, mode] { return restore_file_mode(path, mode); });
    for (const ConfigChange& c : plan.config) {
        if (Status s = set_config(place.repo, c.key, c.value); !s) return s;
        rollback.add([&repo = place.repo, c] { return set_config(repo, c.key, c.previous); });
    }
    return restore_file_mode(place.config_path, mode);
}

}  // namespace

Result<DriverPlan> plan_merge_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place,
                                     HooksAction action, bool dry_run, HookRecord& record) {
    const bool install = action == HooksAction::Install;
    DriverPlan plan;
    Result<std::optional<HookFileChange>> attrs =
        plan_attributes(fs, join_path(ws.root, kAttributesRel), install, record, plan.notes);
    if (!attrs) return attrs.error();
    plan.attributes = std::move(*attrs);
    if (Status config = plan_driver_config(place, install, record, plan); !config) return config.error();
    for (const ConfigChange& c : plan.config) {
        const std::string verb = c.value ? (dry_run ? "would set" : "set") : (dry_run ? "would remove" : "removed");
        plan.notes.push_back(verb + ": " + config_command(c));
    }
    return plan;
}

Status check_driver_writable(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place, const DriverPlan& plan,
                             const std::string& record_path, bool record_changes) {
    if (!plan.config.empty()) {
        if (Status s = check_writable_file(fs, place.config_path); !s) return s;
        if (Status s = check_writable_folder(parent_path(place.config_path)); !s) return s;
    }
    if (plan.attributes && plan.attributes->change != "updated") {
        if (Status s = check_writable_folder(ws.root); !s) return s;
    }
    if (record_changes) return check_writable_folder(parent_path(record_path));
    return ok_status();
}

std::string driver_by_hand(const DriverPlan& plan) {
    std::string commands;
    for (const ConfigChange& c : plan.config) {
        if (c.value) commands += (commands.empty() ? "run `" : "` and `") + config_command(c);
    }
    if (!commands.empty()) commands += "`";
    if (!plan.attributes) return commands;
    const std::string line = "add the line `" + std::string(kAttributesLine) + "` to " + plan.attributes->path;
    return commands.empty() ? line : line + ", then " + commands;
}

Status apply_merge_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place, const DriverPlan& plan,
                          Rollback& rollback) {
    if (Status s = apply_config(place, plan, rollback); !s) return s;
    if (plan.attributes) return apply_attributes(fs, ws, *plan.attributes, rollback);
    return ok_status();
}

}  // namespace small
