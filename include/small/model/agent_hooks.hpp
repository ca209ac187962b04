// What `small hooks` installs, as text, with no disk access: the git
// pre-commit hook and the entries merged into an agent's JSON settings
// (Claude Code's `.claude/settings.json`, Codex's `.codex/hooks.json`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"

namespace small {

// The command every agent hook runs (the bounded resume primer).
inline constexpr std::string_view kAgentHookCommand = "small status --brief";
// With `hooks install claude|codex --claim`, the session start claims the
// next ready task first (D19); its line and the primer go to the agent.
inline constexpr std::string_view kAgentClaimHookCommand = "small claim --next 2>/dev/null; small status --brief";

// ---------------------------------------------------------------- the files install manages

// The agent settings files `small hooks install claude|codex` merges its
// entries into (relative to the workspace root): the only files beside the
// D7 list a command writes, and only that explicit command.
inline constexpr std::string_view kAgentSettingsFiles[] = {".claude/settings.json", ".codex/hooks.json"};

// The file in the workspace root and the line in it by which `small hooks
// install git` gives the `.small/` files small's merge driver (D17).
inline constexpr std::string_view kGitAttributesFile = ".gitattributes";
inline constexpr std::string_view kMergeAttributesLine = ".small/*.small.yml merge=small";

// `small hooks install vscode`: VS Code's workspace settings, where the YAML
// language server's schema map (`yaml.schemas`) goes, and the folder beside
// it that holds the schemas the map points at (committed with the settings,
// so a clone validates without running small first).
inline constexpr std::string_view kEditorSettingsFile = ".vscode/settings.json";
inline constexpr std::string_view kEditorSchemaFolder = ".vscode/small-schemas";

// The files above are small's to change, so `small drift` never counts them
// (model/scope_glob's is_small_own_file, domain/scope_drift).

// ---------------------------------------------------------------- git

inline constexpr std::string_view kPreCommitHookName = "pre-commit";
// Where an existing, foreign pre-commit hook is kept while ours runs it.
inline constexpr std::string_view kChainedHookName = "pre-commit.small-chained";
// The line that marks a pre-commit hook as small's own.
inline constexpr std::string_view kPreCommitMarker = "# small-managed-hook: pre-commit v1";

// The POSIX sh pre-commit hook for the workspaces whose roots are
// `prefixes` below the repository's top level (each "" or "sub/dir/", as
// `git rev-parse --show-prefix` prints it; sorted and deduplicated here):
// one hook serves every workspace of a repository. It runs the chained
// original first (if executable; its failure stops the commit with its
// status; a sh, dash or bash hook runs with this hook's "$0", which hook
// managers dispatch on), then `small check --strict` on each workspace whose
// .small/ the staged changes touch.
std::string pre_commit_hook_text(const std::vector<std::string>& prefixes);

// The workspace prefixes a hook small wrote checks (sorted, unique), also
// from the one-workspace hook of earlier versions; {} for any other text.
std::vector<std::string> pre_commit_hook_prefixes(std::string_view text);

// Whether `text` is a pre-commit hook small wrote (any prefixes).
bool is_small_pre_commit_hook(std::string_view text);

// ---------------------------------------------------------------- agent settings

// One hook event small adds an entry to: {"matcher": matcher (left out when
// empty), "hooks": [{"type": "command", "command": kAgentHookCommand}]}.
struct AgentHookEvent {
    std::string name;     // "SessionStart"
    std::string matcher;  // "" = every source
    std::string command = std::string(kAgentHookCommand);
};

// Claude Code: SessionStart (every source, compaction included: its output
// is added to the context) and PreCompact. Codex: SessionStart. `claim`:
// SessionStart runs kAgentClaimHookCommand.
std::vector<AgentHookEvent> claude_hook_events(bool claim = false);
std::vector<AgentHookEvent> codex_hook_events(bool claim = false);

// What adding or removing small's entries did to a settings text.
struct AgentHooksEdit {
    std::string text;                 // the new text; the old one byte for byte when nothing changed
    std::vector<std::string> events;  // the events whose entry was added (or removed)
    bool empty = false;               // remove: nothing but `{}` is left
};

// Adds small's entry to each of `events` in `existing` ("" = no file) that
// does not run kAgentHookCommand yet. Other keys, hooks and key order are
// kept; the result is pretty-printed with 2 spaces and keeps the original's
// final line break (a new file gets one). Adding is idempotent: an event
// that already runs kAgentHookCommand (small's entry, or the user's own) is
// left alone and not listed in `events`. Errors (Invalid, nothing to
// write): invalid JSON (file, line and column of the parse error set), a
// top level that is not an object, `hooks` or an event that is not of the
// documented type.
Result<AgentHooksEdit> add_agent_hooks(std::string_view existing, const std::vector<AgentHookEvent>& events,
                                       const std::string& display);

// Removes the hooks running kAgentHookCommand from the events named in
// `events` only (those install recorded as added: an identical entry of the
// user's in another event stays), then the matcher groups, event arrays and
// `hooks` object this leaves empty. When only `{}` is left, `empty` is set
// and `text` is "{}" (with the original's final line break).
Result<AgentHooksEdit> remove_agent_hooks(std::string_view existing, const std::vector<std::string>& events,
                                          const std::string& display);

// ---------------------------------------------------------------- editors

// One entry of the `yaml.schemas` map install adds: a schema file (relative
// to the workspace root, as the key `./<file>`) and the artifact files it
// validates (any `.small/` below the root, examples' included).
struct EditorSchemaEntry {
    std::string artifact;  // "plan"
    std::string file;      // ".vscode/small-schemas/plan.schema.json"
    std::string key;       // "./.vscode/small-schemas/plan.schema.json"
    std::string glob;      // "**/.small/plan.small.yml"
};
// The five, in canonical order, then workspace.small.yml's (issue 41).
std::vector<EditorSchemaEntry> editor_schema_entries();

// Adds the `yaml.schemas` entries of `entries` that `existing` (VS Code's
// settings: JSON with comments, "" = no file) does not have, in place:
// comments, other settings and their formatting stay byte for byte. An
// entry whose key the user already maps (to any files) is left alone and
// not listed in `events` (the keys added). Errors (Invalid, line and
// column set): text that is not JSON with comments, a top level or
// `yaml.schemas` that is not an object.
Result<AgentHooksEdit> add_editor_schemas(std::string_view existing, const std::vector<EditorSchemaEntry>& entries,
                                          const std::string& display);

// Removes the `yaml.schemas` entries named by `keys` (those install
// recorded) in place, then `yaml.schemas` itself when that leaves it empty;
// `empty` when nothing but `{}` is left.
Result<AgentHooksEdit> remove_editor_schemas(std::string_view existing, const std::vector<std::string>& keys,
                                             const std::string& display);

}  // namespace small
