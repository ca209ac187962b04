// `small draft` and `small accept` (D4, D5, D7, D8): besides `init`, the only way to
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

#include "small/base/filesystem.hpp"
#include "small/check/draft_check.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

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
Result<DraftResult> draft_command(const FileSystem& fs, const WorkspacePaths& ws, const DraftRequest& req);

}  // namespace small
