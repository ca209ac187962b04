// A SMALL workspace: a directory holding `.small/` with the five canonical
// artifacts and workspace.small.yml (D5 for discovery).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/doc/document.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/layout.hpp"
#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"

namespace small {

// Resolves the workspace (D5): `dir` (the --dir flag) wins and may name
// the root or its .small/; otherwise walk up from `cwd` to the nearest
// directory containing .small/ (or a `.small` symbolic link, even dangling). Without one, the root is `dir` or `cwd`
// itself (callers then report the missing .small/).
WorkspacePaths locate_workspace(const FileSystem& fs, const std::optional<std::string>& dir, const std::string& cwd);

// System error "no .small/ directory found in <root> ...; run `small init`
// first" unless ws.small_dir is a directory (a readers' precondition).
Status require_small_dir(const FileSystem& fs, const WorkspacePaths& ws);

// System error "<file> is missing; <what_to_do>" unless artifact `t` exists.
Status require_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t,
                        std::string_view what_to_do = "run `small init` first");

// D7: a `.small` that is a symbolic link (dangling or not) is refused by
// every write (Kind::Invalid, exit 1). Readers follow a link to a folder.
// So is a root that, reached through a link (`--dir lnk`, lnk -> .small),
// really lies inside a `.small/` folder: every write would land there.
Status refuse_linked_small_dir(const FileSystem& fs, const WorkspacePaths& ws);

struct Artifact {
    ArtifactType type;
    std::string path;     // absolute
    std::string display;  // for messages
    Document doc;
};

// The five artifacts as loaded. A missing or unparsable file leaves its
// slot empty and adds an error (file:line:column for content errors).
struct ArtifactSet {
    std::array<std::optional<Artifact>, 5> artifacts;
    std::vector<Error> errors;
    // How many of `errors` come before the log's (load_artifacts_but_progress
    // sets it: add_progress inserts the log's error there, before the handoff's).
    std::size_t errors_before_progress = 0;

    const Artifact* get(ArtifactType type) const {
        const auto& a = artifacts[static_cast<std::size_t>(type)];
        return a ? &*a : nullptr;
    }
    NodeRef root(ArtifactType type) const {
        const Artifact* a = get(type);
        return a ? a->doc.root() : NodeRef();
    }
    bool complete() const { return errors.empty(); }
};

// `progress`, when given, is used as loaded instead of reading the log.
ArtifactSet load_artifacts(const FileSystem& fs, const WorkspacePaths& ws, std::optional<Artifact> progress = std::nullopt);
// The same in two steps, so that the log can be read beside the others: every
// artifact but the log (its slot stays empty, so complete() says nothing about
// it yet), then the log (`progress`, or the file).
ArtifactSet load_artifacts_but_progress(const FileSystem& fs, const WorkspacePaths& ws);
void add_progress(ArtifactSet& set, const FileSystem& fs, const WorkspacePaths& ws, std::optional<Artifact> progress);

// Loads and parses one YAML file of the workspace; the root must be a mapping.
Result<Document> load_yaml_file(const FileSystem& fs, const std::string& path, const std::string& display);

// The progress log at `path` read whole, as load_yaml_file reads a file;
// a log larger than the file system reads whole (kMaxFileBytes) is refused
// with what to do (Invalid): the windowed readers below read one of any
// length, but whatever needs the whole file at once cannot.
Result<Document> load_whole_log(const FileSystem& fs, const std::string& path, const std::string& display);

// Calls `visit` for every entry of the `entries` list of the log at `path`,
// in order, until it returns false: in windows when the log is long (memory
// stays flat), else, or when windows cannot follow it, from a whole read;
// `restart` comes first when a whole read follows a partial windowed pass.
// The error is the whole read's (a missing file, a parse error with its
// position); a log without an `entries` list visits nothing. An entry's
// marks are lines of its window, not of the file: a caller that reports
// positions reads the file whole.
Status for_each_log_entry(const FileSystem& fs, const std::string& path, const std::string& display,
                          const std::function<void()>& restart, const std::function<bool(NodeRef entry)>& visit,
                          const LogWindows& windows = {});

// workspace.small.yml (not a canonical artifact; no schema).
enum class WorkspaceKind { RepoRoot, Examples };
enum class WorkspaceScope { Root, Examples, Any };
// The `--workspace` values parse_workspace_scope accepts (shell completion lists them).
inline constexpr std::string_view kWorkspaceScopeNames[] = {"root", "examples", "any"};

struct WorkspaceMetadata {
    WorkspaceKind kind = WorkspaceKind::RepoRoot;
    std::string run_replay_id;  // run.replay_id (pinned_run_id), empty when absent or unusable
    // Why run.replay_id is unusable, when it is: every write refuses it
    // (begin_mutation); verify and check only warn, as the reference
    // accepts any string there.
    std::optional<Error> run_id_error;
};

Result<WorkspaceScope> parse_workspace_scope(std::string_view text);
std::string_view workspace_kind_name(WorkspaceKind kind);
std::string_view workspace_scope_name(WorkspaceScope scope);

// run.replay_id (D3), the one rule for verify (a WS-2 warning) and every
// write (a refusal): absent or null (or no `run` at all) means no run yet
// (""); otherwise 64 hex digits, returned trimmed. Anything else is an
// error at its position, with the repair as hint.
Result<std::string> pinned_run_id(NodeRef root, const WorkspacePaths& ws);

// Loads workspace.small.yml; errors name the file and say how to fix it.
Result<WorkspaceMetadata> load_workspace_metadata(const FileSystem& fs, const WorkspacePaths& ws);
// The same, from workspace.small.yml already parsed.
Result<WorkspaceMetadata> workspace_metadata_from(const Document& doc, const WorkspacePaths& ws);

// Error unless `kind` is admitted by `scope`.
Status check_workspace_scope(const WorkspaceMetadata& meta, WorkspaceScope scope, const WorkspacePaths& ws);

}  // namespace small
