#include "small/domain/hook_install.hpp"

#include <algorithm>

#include "small/base/line_diff.hpp"
#include "small/base/utf8.hpp"

namespace small {

Result<HookTarget> parse_hook_target(std::string_view text) {
    if (text == "git") return HookTarget::Git;
    if (text == "claude") return HookTarget::Claude;
    if (text == "codex") return HookTarget::Codex;
    if (text == "vscode") return HookTarget::VSCode;
    return Error::usage("unknown hook target \"" + std::string(text) + "\" (valid: git, claude, codex, vscode)");
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

std::string hook_change_diff(const HookFileChange& change) {
    if (change.change == "unchanged") return "";
    const std::string old_label = change.existed ? change.path : "/dev/null";
    const std::string new_label = change.new_content.empty() && change.change == "removed" ? "/dev/null" : change.path;
    return unified_diff(change.old_content, change.new_content, old_label, new_label).text;
}

Result<std::optional<WorkspaceLock>> lock_workspace_for_hooks(const FileSystem& fs, const WorkspacePaths& ws,
                                                              const HooksRequest& req) {
    if (req.dry_run || req.action == HooksAction::Print || !fs.directory_exists(ws.small_dir)) {
        return std::optional<WorkspaceLock>();
    }
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(fs, ws, req.lock_wait);
    if (!lock) return lock.error();
    return std::optional<WorkspaceLock>(std::move(*lock));
}

namespace {

Error not_in_work_tree(const std::string& root) {
    Error e = Error::system(root + " is not inside a git work tree");
    e.hint = "run `git init` first, or pass --dir with a workspace inside a git repository";
    return e;
}

// A value of any config level, "" when unset.
Result<std::string> effective_value(const GitRepo& repo, const std::string& key) {
    Result<std::optional<std::string>> value = repo.effective_config(key);
    if (!value) return value.error();
    return value->value_or("");
}

}  // namespace

Result<GitPlace> find_git_place(const std::string& root) {
    Result<std::optional<GitRepo>> found = GitRepo::discover(root);
    if (!found) return found.error();
    if (!*found || found->value().workdir().empty()) return not_in_work_tree(root);
    const std::optional<std::string> below = path_in_workdir(found->value().workdir(), root);
    if (!below) return not_in_work_tree(root);
    GitPlace place{std::move(found->value()), "", below->empty() ? "" : *below + "/", "", "", ""};
    Result<std::string> hooks = place.repo.hooks_dir();
    if (!hooks) return hooks.error();
    place.hooks_dir = std::move(*hooks);
    place.config_path = place.repo.config_path();
    Result<std::string> hooks_path = effective_value(place.repo, "core.hooksPath");
    if (!hooks_path) return hooks_path.error();
    place.hooks_path = std::move(*hooks_path);
    Result<std::string> driver = effective_value(place.repo, "merge.small.driver");
    if (!driver) return driver.error();
    place.driver = std::move(*driver);
    return place;
}

Error Rollback::undo(Error failure) {
    std::string left;
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
        if (Status s = (*it)(); !s) left += "; could not undo an earlier write: " + s.error().message;
    }
    if (!steps_.empty()) failure.message += left.empty() ? "; the earlier writes were undone" : left;
    steps_.clear();
    return failure;
}

// ---------------------------------------------------------------- what install added

Result<HookRecord> load_hook_record(const std::string& path, std::optional<HookRecord>& had) {
    Result<std::optional<HookRecord>> read = read_hook_record(path);
    if (!read) return read.error();
    had = *read;
    return read->value_or(HookRecord{});
}

bool same_hook_record(const std::optional<HookRecord>& had, const HookRecord& now) {
    return had ? hook_record_text(*had) == hook_record_text(now) : now.empty();
}

Status apply_hook_record(const FileSystem& fs, const WorkspacePaths& ws, const std::string& path, const std::optional<HookRecord>& before,
                         const HookRecord& now, Rollback& rollback) {
    if (Status s = write_hook_record(fs, ws, path, now); !s) return s;
    rollback.add([&fs, &ws, path, old = before.value_or(HookRecord{})] { return write_hook_record(fs, ws, path, old); });
    return ok_status();
}

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

void forget_recorded_file(HookRecord& record, const std::string& rel) {
    std::erase_if(record.files, [&](const HookRecordFile& f) { return f.path == rel; });
}

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

}  // namespace small
