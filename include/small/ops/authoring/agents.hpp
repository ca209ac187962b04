// `small agents apply|check|print` (D4, D5, D7, D11): the harness block of agents_block.hpp applied to,
// checked in, or printed for one file. The CLI parses flags and renders; the
// decisions and the disk access are here. The file is found from the
// workspace root as every command finds it (D5); these commands never read
// or write inside `.small/`.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "small/model/agents_block.hpp"
#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"

namespace small {

inline constexpr std::string_view kDefaultAgentsFile = "AGENTS.md";

// The file an agents command works on.
struct AgentsTarget {
    std::string path;     // absolute, lexically normalised
    std::string display;  // the --file value as given, for messages
};

// The workspace root (locate_workspace: `--dir`, which may name the root or
// its .small/; else the nearest directory with .small/ from `cwd` up; else
// `cwd` itself, since AGENTS.md may exist before init) joined with `--file`
// (empty: AGENTS.md). An absolute --file is used as it is (the reference
// nests it under --dir). `display` is the --file value, prefixed with the
// root's absolute path when the root was found above `cwd`. Usage error when
// --file names no file (it ends in '/', or is "." or "..") or a path inside
// a `.small/` directory.
Result<AgentsTarget> resolve_agents_target(const FileSystem& fs, const std::optional<std::string>& dir,
                                           std::string_view file, const std::string& cwd);

// ---------------------------------------------------------------- apply

struct AgentsApplyRequest {
    AgentsTarget target;
    std::string agents_mode;  // raw --agents-mode
    bool overwrite = false;   // --overwrite-agents, --force, -f
    bool dry_run = false;     // --dry-run or --print: decide, never write
    std::chrono::milliseconds lock_wait{10'000};  // for the workspace lock, see agents_apply
};

struct AgentsApplyResult {
    AgentsAction action = AgentsAction::Created;  // never Skipped
    bool existed = false;          // the file was there before
    std::string old_content;       // "" when it did not exist
    std::string new_content;
    std::string previous_version;  // marker version of the block replaced in place, if any
    bool written = false;          // false for a dry run and when nothing changed

    bool changed() const { return !existed || old_content != new_content; }
};

// Decides the new content, then (unless dry_run) writes it atomically
// (write_file_atomic with WriteScope::UserNamed, staged in <dir>/.small-cache/tmp/, which is
// removed again when it did not exist before). Identical bytes are not
// rewritten. When the target's directory holds `.small/`, the read-decide-
// write runs under the workspace lock (init writes AGENTS.md too; Busy
// after `lock_wait`). Decision, first match wins:
//   file missing                  → the block                       Created
//   --overwrite-agents / --force  → the block alone, even when the
//                                   file already has a block or
//                                   malformed markers               Overwrote
//   a block present (any version) → replaced in place               Updated
//   no block, --agents-mode       → composed (agents_block.hpp)     Appended/Prepended
//   no block, no flag             → Invalid "<file> already exists without SMALL
//                                   harness block." + "Use one of:" guidance
// Errors: Usage (bad --agents-mode; a mode together with overwrite);
// Invalid (malformed markers without overwrite: "malformed <file>: ..."; the target is a
// symbolic link; no block and no flag); System (unreadable file, missing
// directory, read-only file, I/O failure); Busy (workspace lock held).
Result<AgentsApplyResult> agents_apply_command(const FileSystem& fs, const AgentsApplyRequest& req);

// The dry-run pseudo-diff ("" when nothing changes): `--- <path> (current)`,
// `+++ <path> (proposed)`, then a hunk header saying what happens
// (`@@ -0,0 +1 @@`, `@@ SMALL harness block updated @@`,
// `@@ SMALL harness block added @@` or `@@ file contents changed @@`) and
// the proposed lines prefixed "+ ". Every line ends with "\n".
std::string agents_apply_diff(const AgentsApplyResult& result, const std::string& path);

// The guidance of a refused apply, after the "<file> already exists ..." line.
std::string agents_apply_options_text();

// ---------------------------------------------------------------- check

struct AgentsCheckRequest {
    AgentsTarget target;
    bool allow_missing = false;
    bool strict = false;
};

// The reference's check report (JSON keys in comments, in output order).
struct AgentsCheckReport {
    bool has_file = false;        // hasFile
    bool has_block = false;       // hasBlock
    bool block_valid = false;     // blockValid
    std::string block_version;    // blockVersion (omitted when empty)
    std::size_t span_begin = 0;   // blockSpan[0]: start of BEGIN
    std::size_t span_end = 0;     // blockSpan[1]: end of END marker
    bool has_drift = false;       // hasDrift
    std::string error;            // error (omitted when empty)
    std::string recommendation;   // recommendation (omitted when empty)
    std::string file_path;        // filePath (absolute)
    bool passed = true;           // exit 0 when true, 1 when false
};

// The decision table (first match wins; docs/commands.md, agents check): missing file
// (pass only with allow_missing), malformed markers (fail), no block (fail
// only with strict), a block lacking a required section (fail), drift from
// the canonical block (fail only with strict). A block of another marker
// version is drift too, but the error/recommendation say so. Never writes.
// Error (System) only when the file exists but cannot be read.
Result<AgentsCheckReport> agents_check_command(const FileSystem& fs, const AgentsCheckRequest& req);

// ---------------------------------------------------------------- print

enum class HarnessFormat { Markdown, Plain };

// `--format` of print: "md" or "plain"; anything else is a Usage error.
Result<HarnessFormat> parse_harness_format(std::string_view text);

// What `agents print` writes. Markdown with markers: exactly harness_block().
// Markdown without markers: the body. Plain: the body with heading marks
// ("# " prefixes), "**" and backticks removed and indentation kept; plain
// text never carries the markers (they are markdown comments), so
// `with_markers` is ignored for it (the CLI refuses an explicit
// --with-markers=true with --format plain).
std::string harness_print_text(bool with_markers, HarnessFormat format);

// Markdown → plain text, line by line (see harness_print_text).
std::string strip_markdown(std::string_view markdown);

}  // namespace small
