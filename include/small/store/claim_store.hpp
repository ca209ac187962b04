// Where the claims of a workspace live on this machine (D19), and their
// lock. All worktrees of one repository share one table: it is kept in the
// repository's common git folder (`<common>/small/claims*.json`, beside the
// refs all worktrees see), never under `.small/` (strict S4). A workspace
// outside git keeps its table in `.small-cache/`. One lock file beside the
// table serialises every change; readers take no lock (the table is
// replaced atomically).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/git.hpp"
#include "small/base/result.hpp"
#include "small/model/claims.hpp"
#include "small/model/layout.hpp"

namespace small {

struct ClaimStore {
    std::string root;       // the folder writes stay below (the common git folder, or ws.root)
    std::string dir;        // the table's folder
    std::string file;       // the table
    std::string lock_file;
    std::string work_tree;  // the git work tree's top ("" outside git)
    std::string workspace;  // the workspace's path below the work tree ("" at its top)
    bool in_git = false;
};

// The store of `ws`. A workspace below the work tree's top gets its own
// table (named after that path), so two workspaces of one repository never
// share claims.
ClaimStore locate_claim_store(const FileSystem& fs, const WorkspacePaths& ws);

// The table as stored; empty when there is none yet. A table that does not
// parse is an error naming the file (never silently emptied: it holds
// other agents' leases).
// Records that fail validation are left out and described in `problems`.
Result<ClaimTable> read_claim_table(const FileSystem& fs, const ClaimStore& store,
                                    std::vector<std::string>* problems = nullptr);
// Replaces the table atomically; temporary files that killed writers left
// in its folder are swept first (call it under the store's lock).
Status write_claim_table(const FileSystem& fs, const ClaimStore& store, const ClaimTable& table);

// Held while a command reads, decides and writes the table (and publishes
// it to the remote): every worktree's commands wait for it. Taken after the
// workspace lock when a command holds both.
// Where the claims travel across machines (D19): the remote named by
// $SMALL_CLAIMS_REMOTE, else git config small.claimsRemote, else `origin`
// ("none": nowhere), ref `refs/small/claims` (a workspace below the work
// tree's top: `refs/small/claims@<path>`). nullopt outside git or without one.
// A repository whose own config defines no remote (and no $SMALL_CLAIMS_REMOTE)
// is answered from that file alone: libgit2 is not loaded for it.
Result<std::optional<RemoteRef>> claims_remote(const FileSystem& fs, const ClaimStore& store);

// Whether a claims remote is probably configured, told without libgit2
// (fast enough for `ready` and the primer): $SMALL_CLAIMS_REMOTE other than
// "none", else the repository's config defines a remote (or includes
// another file) and does not set small.claimsRemote to none. An answer that
// only decides what is said or suggested, never whether a claim is published
// (claims_remote decides that).
bool claims_remote_likely(const FileSystem& fs, const ClaimStore& store);

// The remote's table as a commit message ("<summary>\n\n<table JSON>"), and back.
std::string claims_message(const ClaimTable& table, const std::string& summary);
// The remote's table is input (D21): see parse_claims_json.
Result<ClaimTable> table_of_message(const std::string& message, const std::string& name, Instant now,
                                    std::vector<std::string>* problems);

Result<std::unique_ptr<HeldLock>> lock_claim_store(const FileSystem& fs, const ClaimStore& store,
                                                   std::chrono::milliseconds wait);

}  // namespace small
