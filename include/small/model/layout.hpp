// Where everything of a workspace lives: the artifact files under .small/
// and every runtime file name under the workspace root. No other file spells
// these names (D7: nothing is written outside these folders).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace small {

enum class ArtifactType { Intent, Constraints, Plan, Progress, Handoff };

// Canonical order: every report lists files in this order.
inline constexpr std::array<ArtifactType, 5> kArtifactTypes = {
    ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan, ArtifactType::Progress,
    ArtifactType::Handoff};

std::string_view artifact_name(ArtifactType type);       // "intent"
std::string artifact_file_name(ArtifactType type);       // "intent.small.yml"
inline constexpr std::string_view kWorkspaceFileName = "workspace.small.yml";

struct WorkspacePaths {
    std::string root;       // absolute directory that contains .small/
    std::string small_dir;  // root + "/.small"
    // How files are named in messages: relative to the current directory
    // when the workspace lies below it, else absolute.
    std::string display_prefix;
    bool from_dir_flag = false;  // named by --dir (no search of parent directories)

    std::string path_of(std::string_view file_name) const { return small_dir + "/" + std::string(file_name); }
    std::string display_of(std::string_view file_name) const {
        return display_prefix + ".small/" + std::string(file_name);
    }
    std::string artifact_path(ArtifactType type) const { return path_of(artifact_file_name(type)); }
    std::string artifact_display(ArtifactType type) const { return display_of(artifact_file_name(type)); }
};

// The artifact file names, for messages and paths.
inline constexpr std::string_view kPlanFileName = "plan.small.yml";
inline constexpr std::string_view kProgressFileName = "progress.small.yml";
inline constexpr std::string_view kHandoffFileName = "handoff.small.yml";

// The workspace's own folder, below its root.
inline constexpr std::string_view kSmallDirName = ".small";

// Runtime folders beside .small/ (never part of the protocol's state).
inline constexpr std::string_view kCacheDirName = ".small-cache";
inline constexpr std::string_view kRunsDirName = ".small-runs";
inline constexpr std::string_view kArchiveDirName = ".small-archive";
// The legacy places of the run and archive stores, inside .small/, and
// where `fix --runtime-layout` moves them (relative to the root).
inline constexpr std::string_view kLegacyArchiveDirName = ".small/archive";
inline constexpr std::string_view kLegacyRunsDirName = ".small/runs";
// The lines `init` adds to .gitignore, in this order.
inline constexpr std::string_view kRuntimeIgnoreLines[] = {".small-cache/", ".small-runs/", ".small-archive/"};

// Runtime files, relative to the workspace root.
inline constexpr std::string_view kTempDirName = ".small-cache/tmp";            // atomic writes stage here
inline constexpr const char* kLockFileName = ".small-cache/lock";               // one writer at a time
inline constexpr const char* kChangeJournalName = ".small-cache/change.journal";  // multi-file changes
inline constexpr const char* kProgressTailName = ".small-cache/progress.tail";  // O(1) appends
inline constexpr const char* kProgressJournalName = ".small-cache/progress.journal";
inline constexpr std::string_view kDraftsDirName = ".small-cache/drafts";       // draft / accept
inline constexpr std::string_view kBackupsDirName = ".small-cache/backups";     // files fix / checkout replaced
// apply: <kCommandLogsDirName>/<replayId>/commands/<stamp>.txt (+ .output.txt)
inline constexpr std::string_view kCommandLogsDirName = ".small-cache/logs";
// small hooks: <kHookRecordDirName>/<target>.json, what an install changed
inline constexpr std::string_view kHookRecordDirName = ".small-cache/hooks";
// Stamped caches in .small-cache/, named without the folder.
inline constexpr const char* kProgressFactsName = "progress.facts";  // per-task work facts (resume point)
inline constexpr const char* kVerifiedPrefixName = "progress.verified";  // the log's verified prefix (verdicts)
// The key that authenticates it when the workspace is in no git repository
// (in one, the key lives in git's own folder: store/verified_cache).
inline constexpr const char* kVerifiedKeyName = "verified-prefix.key";
// The plan's caches are sections of one file, so that a write that updates
// them all replaces one file instead of several.
inline constexpr const char* kPlanCacheName = "plan.cache";
inline constexpr const char* kPlanTasksName = "plan.tasks";  // the plan's task ids and statuses
inline constexpr const char* kPlanValidName = "plan.valid";  // the plan passed schema + invariants
inline constexpr const char* kPlanOutlineName = "plan.outline2";  // ids, statuses, titles, priorities, dependencies
inline constexpr const char* kPlanSpansName = "plan.spans";  // where each task's status sits (checkpoint)
inline constexpr const char* kPlanTailName = "plan.tail";    // where the last two tasks are written (plan --add)
inline constexpr const char* kPlanChecklistsName = "plan.checklists";  // each task's steps and acceptance (the primer)

// ".small/<name>": a file of .small/ named from the workspace root.
inline std::string small_relative(std::string_view name) {
    return std::string(kSmallDirName) + "/" + std::string(name);
}

// <root>/.small
inline std::string small_dir_path(const std::string& root) {
    return (root == "/" ? std::string() : root) + "/" + std::string(kSmallDirName);
}

// <root>/<relative>, for the runtime names above.
inline std::string runtime_path(const std::string& root, std::string_view relative) {
    return (root == "/" ? std::string() : root) + "/" + std::string(relative);
}

}  // namespace small
