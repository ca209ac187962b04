// A ref on a git remote used as a compare-and-swap register of text (the
// claims of D19 travel this way). The text is the message of the ref's tip
// commit, whose tree is empty (nothing to check out; `git log REF` is the
// history of every change). A change is a new commit on the tip that was
// read, pushed with --force-with-lease naming that tip: the push fails when
// anyone moved the ref meanwhile, and the caller reads and decides again.
//
// `git` is spawned for every step, so the user's credential helpers, SSH
// configuration and insteadOf rules apply as for any fetch or push.
#pragma once

#include <optional>
#include <string>

#include "small/base/result.hpp"

namespace small {

struct RemoteRef {
    std::string remote;     // "origin"
    std::string ref;        // "refs/small/claims"
    std::string tracking;   // where the last fetched tip is kept: "refs/small-remotes/origin/claims"
    std::string work_tree;  // where git runs
};

// The remote to use: the value of environment variable `env`, else git
// config `key`, else `origin` when the repository has it. nullopt when none
// is set up or the value is "none"; Usage error when a named one is not a
// remote of the repository. `work_tree` must be in a repository.
Result<std::optional<std::string>> configured_remote(const std::string& work_tree, const char* env, const std::string& key);

// The ref's tip ("" when the remote has no such ref) and its message.
// A failed fetch (network, authentication) is a System error with git's words.
struct RefText {
    std::string tip, message;
};
Result<RefText> fetch_ref_text(const RemoteRef& ref);

// Pushes `message` as the new tip on top of `expected_tip` (what
// fetch_ref_text returned). true: accepted; false: the ref moved meanwhile
// (nothing changed). `author` names the commit's author and committer.
Result<bool> push_ref_text(const RemoteRef& ref, const std::string& expected_tip, const std::string& message,
                           const std::string& author);

}  // namespace small
