// `small init`: create a SMALL workspace (D3, D5, D7, D8). The CLI parses flags and renders; everything
// that touches the disk is here.
//
// What init writes, under the workspace lock (.small-cache/lock):
//   .small/intent, constraints, plan  templates in house style (every string
//                                     double-quoted, small_version "1.0.0");
//   .small/progress.small.yml         a new log holding one `meta/init` entry,
//                                     or, with --force over an existing log,
//                                     that log with the entry APPENDED
//                                     (existing bytes never rewritten, D7);
//   .small/workspace.small.yml        kind repo-root, created_at/updated_at,
//                                     run.replay_id: init writes a plan, so
//                                     it starts a run (D3) and pins its id;
//   .small/handoff.small.yml          "Project initialized.", replayId =
//                                     the pinned id, source auto;
//   .gitignore                        .small-cache/, .small-runs/,
//                                     .small-archive/ appended once each;
//   AGENTS.md                         the harness block (see agents_block.hpp)
//                                     unless --no-agents.
// Every refusal happens before the first write: a refused init writes nothing.
// Every file is written atomically (staged in .small-cache/tmp/).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/model/agents_block.hpp"
#include "small/base/filesystem.hpp"
#include "small/domain/gitignore.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct InitRequest {
    std::optional<std::string> dir;  // --dir; absent = cwd (init never walks up, D5)
    std::string cwd;                 // absolute current directory
    std::optional<std::string> intent;  // --intent; blank = the template's text
    bool force = false;
    bool no_agents = false;
    bool overwrite_agents = false;
    std::string agents_mode;  // raw --agents-mode
    std::chrono::milliseconds lock_wait{10'000};
};

struct InitResult {
    std::string root;       // absolute workspace root
    std::string small_dir;  // root + "/.small"
    std::vector<std::string> written;  // .small/ file names written whole, in write order
    bool progress_kept = false;        // --force: the existing log was kept and appended to
    std::string replay_id;             // pinned in workspace.small.yml run.replay_id
    std::string previous_replay_id;    // --force: the run id that was pinned before, if any
    std::string snapshot_dir;          // --force: where the replaced artifacts were copied (D15), or ""
    YamlValue progress_entry;          // the meta/init entry as written
    std::string timestamp;             // its timestamp
    AgentsAction agents = AgentsAction::Skipped;
    std::string agents_path;           // absolute AGENTS.md path
    GitignoreUpdate gitignore;         // the runtime lines added to .gitignore
    std::string outer_workspace;       // root of a workspace this one sits inside, or ""
    std::vector<std::string> warnings; // e.g. naming that outer workspace
};

// Inside another workspace's subtree (a parent directory holds .small/) init
// still initializes (D5: it never walks up for its target) but warns and
// names the outer workspace: commands run below the new root now find it.
// Error kinds: Usage (bad --agents-mode, conflicting agents flags), Invalid
// (.small/ exists without --force; .small, AGENTS.md, .gitignore or a .small
// file that would be written is a symbolic link; AGENTS.md exists without a
// flag; AGENTS.md markers malformed; --force over a progress log that cannot
// be appended to), Busy (lock held), System (I/O, a read-only target).
Result<InitResult> init_command(const FileSystem& fs, const InitRequest& req);

// The workspace root init uses: --dir (or cwd) made absolute and normalised;
// a path whose last component is `.small` means its parent.
std::string resolve_init_root(const std::optional<std::string>& dir, const std::string& cwd);

}  // namespace small
