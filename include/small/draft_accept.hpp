// `small draft` and `small accept` (authoring.md §2, §3 and §13.8 item 43, as
// amended by DECISIONS D4, D5, D7, D8): besides `init`, the only way to
// change the human-owned intent and constraints.
//
// draft   saves the source bytes verbatim to
//         <root>/.small-cache/drafts/<kind>.small.yml (atomic, under the
//         workspace lock). It never touches .small/; a draft that accept
//         would refuse is saved anyway, with warnings.
// accept  installs a draft that parses, passes the artifact's schema and its
//         invariants (owner "human", no secrets or insecure links) as
//         .small/<kind>.small.yml, together with a `meta/accept-<kind>`
//         progress entry, as ONE crash-safe change (workspace_change.hpp).
//         A refused draft changes nothing; the draft itself is kept.
#pragma once

#include <chrono>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "small/filesystem.hpp"
#include "small/finding.hpp"
#include "small/result.hpp"
#include "small/workspace.hpp"
#include "small/yaml_writer.hpp"

namespace small {

// The artifacts a draft may replace (the human-owned ones).
enum class DraftKind { Intent, Constraints };
inline constexpr DraftKind kDraftKinds[] = {DraftKind::Intent, DraftKind::Constraints};

// Folder of the drafts, relative to the workspace root.
inline constexpr std::string_view kDraftsDirName = ".small-cache/drafts";

std::string_view draft_kind_name(DraftKind kind);  // "intent"
ArtifactType draft_artifact(DraftKind kind);
// Usage error for anything but "intent" / "constraints".
Result<DraftKind> parse_draft_kind(std::string_view text);
// ".small-cache/drafts/intent.small.yml"
std::string draft_relative_path(DraftKind kind);

// Whether --from names standard input: "-" or "stdin" (any case).
bool is_stdin_source(std::string_view from);

// Why accept would refuse `bytes` as the `kind` artifact: YAML errors
// (rule LOAD), schema violations (SCHEMA) and invariants, strict hygiene
// included (INV-*, SEC, LINK). Located in `display` (the draft's name);
// sorted by line. Empty: the draft can be accepted.
std::vector<Finding> check_draft(DraftKind kind, const std::string& bytes, const std::string& display);

struct DraftRequest {
    DraftKind kind = DraftKind::Intent;
    std::string from;                // --from: a path (relative to cwd) or stdin
    std::string cwd;                 // absolute current directory
    std::istream* input = nullptr;   // standard input, read when `from` names it
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct DraftResult {
    std::string draft_path;         // absolute
    std::string draft_display;      // for messages
    std::string source;             // "stdin" or the --from path as given
    std::size_t bytes = 0;          // bytes saved
    std::vector<Finding> warnings;  // check_draft's problems, as warnings
};

// Error kinds: Usage (blank --from), Invalid (the source is empty or only
// white space; workspace metadata refuses the scope), System (no .small/,
// unreadable source, I/O), Busy (lock held). Nothing is written on error.
Result<DraftResult> save_draft(const FileSystem& fs, const WorkspacePaths& ws, const DraftRequest& req);

struct AcceptRequest {
    DraftKind kind = DraftKind::Intent;
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct AcceptResult {
    bool accepted = false;          // false: refused for `problems`, nothing written
    std::vector<Finding> problems;  // check_draft's findings
    std::string draft_path, draft_display;    // the draft (absolute / for messages)
    std::string target_path, target_display; // .small/<kind>.small.yml
    YamlValue entry;                // the progress entry as written, `timestamp` first
};

// Error kinds: Invalid (no draft: "draft not found: ... (run: small draft
// <kind> --from <path|stdin>)"; no progress log; workspace metadata; a log
// that cannot be appended to), System (no .small/, I/O, e.g. a read-only
// .small/), Busy (lock held). On error the change was not made, or, when a
// write failed half-way, it is journaled and the next write completes it
// (commit_workspace_change).
Result<AcceptResult> accept_draft(const FileSystem& fs, const WorkspacePaths& ws, const AcceptRequest& req);

}  // namespace small
