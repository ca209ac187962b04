// The command registry: one row per `small` command, naming its summary,
// its job, the library operation it runs, the report that shapes its JSON,
// and whether the MCP server exposes it (as which tools, with which hints).
// The CLI builds its command list and every command's summary from it (a
// static_assert in src/cli/main.cpp keeps the two lists one), so `--help`, the
// manual pages and the completion scripts, which are generated from the CLI's
// tree, follow it; the MCP server's tools/list takes its tools, descriptions
// and annotations from it; tests hold the docs' counts to it. A new command is
// one row here, one ops/ operation and one src/cli/cmd_<name>.cpp.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace small {

// How the MCP server offers a command: the tool's name, its description
// (short: tools/list is read into every agent's context) and the
// annotations MCP clients use to decide what to ask the user.
struct McpTool {
    std::string_view name;
    std::string_view description;
    bool read_only = false;    // readOnlyHint: changes nothing
    bool destructive = false;  // destructiveHint: may overwrite what is there (not only add)
    bool idempotent = false;   // idempotentHint: a repeat with the same arguments changes nothing more
};

struct CommandInfo {
    std::string_view name;       // the word after `small`
    std::string_view summary;    // one line: --help, the manual page's NAME
    std::string_view job;        // session, inspect, authoring, maintenance, meta (the CLI's own)
    std::string_view operation;  // the library module it runs ("" when the CLI alone does it)
    std::string_view report;     // the module shaping its --json ("" when it prints no JSON of its own)
    std::span<const McpTool> mcp;  // the tools the MCP server offers for it (empty: none)
};

namespace command_table_detail {
inline constexpr McpTool kStatusTools[] = {
    {"resume", "Start here: the primer and the next call.", true, false, true},
    {"status", "Counts, next tasks, recent entries.", true, false, true},
};
inline constexpr McpTool kPlanTools[] = {
    {"plan", "Edit the plan in one logged change: add or edit a task, or merge a task list.", false, true, false},
    {"show", "One task with its deps and entries.", true, false, true},
};
inline constexpr McpTool kProgressTools[] = {
    {"progress_add", "Log a progress entry.", false, false, false},
};
inline constexpr McpTool kCheckpointTools[] = {
    {"checkpoint", "Set a task's status and log it.", false, true, false},
};
inline constexpr McpTool kReadyTools[] = {
    {"ready", "Tasks you may take.", true, false, true},
};
inline constexpr McpTool kClaimTools[] = {
    {"claim", "Claim a task as a lease.", false, false, false},
};
inline constexpr McpTool kClaimsTools[] = {
    // Not read-only: it publishes this machine's unpublished claims to the claims remote.
    {"claims", "Who holds what, until when.", false, false, true},
};
inline constexpr McpTool kReleaseTools[] = {
    {"release", "Release a claim.", false, true, true},
};
inline constexpr McpTool kHandoffTools[] = {
    {"handoff", "Write the handoff.", false, true, true},
};
inline constexpr McpTool kCheckTools[] = {
    {"check", "Strict check: validate, lint, verify.", true, false, true},
};
inline constexpr McpTool kInitTools[] = {
    {"init", "Create .small/ here.", false, false, false},
};
}  // namespace command_table_detail

// Sorted by name (the order of `small --help`).
inline constexpr CommandInfo kCommandTable[] = {
    {"accept",
     "Install a draft from small draft as .small/intent or constraints, with a progress entry",
     "authoring", "ops/authoring/accept", "report/authoring", {}},
    {"agents",
     "Manage the SMALL harness block in AGENTS.md (apply, check, print)",
     "authoring", "ops/authoring/agents", "report/authoring", {}},
    {"apply",
     "Run a shell command (/bin/sh -c) and record it in progress",
     "session", "ops/session/apply", "report/apply", {}},
    {"archive",
     "Copy the artifacts with a SHA-256 manifest to .small-archive/<replayId>/ (or --out), or --verify one",
     "maintenance", "ops/maintenance/archive", "report/run", {}},
    {"board",
     "Show the plan as a board: a column per status, each task with its claim, what it waits on and its newest evidence",
     "inspect", "ops/inspect/board", "view/board_text", {}},
    {"check",
     "Run validate, lint, and verify (stops at the first failing stage)",
     "inspect", "ops/inspect/verdict", "report/findings", command_table_detail::kCheckTools},
    {"checkpoint",
     "Set a plan task's status AND record the progress entry, as one atomic change",
     "session", "ops/session/checkpoint", "report/session", command_table_detail::kCheckpointTools},
    {"claim",
     "Claim a task for an agent, as a lease that its progress entries renew (D19)",
     "session", "ops/session/claim", "report/claims", command_table_detail::kClaimTools},
    {"claims",
     "List the claims on this repository's tasks: who holds what until when",
     "session", "ops/session/claim", "report/claims", command_table_detail::kClaimsTools},
    {"completion",
     "Print a shell completion script (bash, zsh or fish) for commands, flags, values and task ids",
     "meta", "", "", {}},
    {"doctor",
     "Diagnose SMALL workspace issues and suggest fixes",
     "inspect", "ops/inspect/doctor", "report/doctor", {}},
    {"draft",
     "Stage a new intent or constraints in .small-cache/drafts/ (small accept installs it)",
     "authoring", "ops/authoring/draft", "report/authoring", {}},
    {"drift",
     "Files changed in the run (committed, staged, unstaged, untracked) outside the intent's scope",
     "inspect", "domain/scope_drift", "report/drift", {}},
    {"emit",
     "Emit structured SMALL state in JSON",
     "inspect", "ops/inspect/emit", "report/emit", {}},
    {"fix",
     "Repair formatting, orphan progress, the legacy runtime layout or workspace.small.yml (backs up what it rewrites)",
     "maintenance", "ops/maintenance/fix", "report/fix", {}},
    {"graph",
     "Draw the plan's dependency graph: status colours, the ready set and the critical path marked",
     "inspect", "ops/inspect/graph", "view/graph_render", {}},
    {"handoff",
     "Write .small/handoff.small.yml, the resume point, from the plan and progress",
     "session", "ops/session/handoff", "report/session", command_table_detail::kHandoffTools},
    {"help",
     "Help about any command (small help progress add)",
     "meta", "", "", {}},
    {"hooks",
     "Install, remove or print the git pre-commit hook and merge driver (.gitattributes, git config merge.small.*) the agent session hooks (claude, codex) and the editor's schema map (vscode)",
     "authoring", "ops/authoring/hooks", "report/hooks", {}},
    {"init",
     "Create .small/ with templates for the five artifacts, workspace.small.yml, the AGENTS.md harness block and .gitignore lines (never searches parent directories)",
     "session", "ops/session/init", "report/session", command_table_detail::kInitTools},
    {"lint",
     "Lint SMALL artifacts for invariant violations",
     "inspect", "ops/inspect/verdict", "report/findings", {}},
    {"lsp",
     "Serve the .small/ files to an editor over LSP: diagnostics of check --strict on unsaved text, quick fixes, hover, definition, completion (stdin/stdout)",
     "meta", "lsp/server", "", {}},
    {"mcp",
     "Serve the workspace to an agent over MCP (JSON-RPC on stdin/stdout; logs on stderr)",
     "meta", "mcp/server", "", {}},
    {"merge",
     "Git merge driver for .small/ files: three-way merge of ANCESTOR, CURRENT and OTHER into CURRENT",
     "maintenance", "ops/maintenance/merge", "report/merge", {}},
    {"plan",
     "Edit .small/plan.small.yml: add tasks, set statuses, steps and dependencies, all in one logged change; plan show lists them",
     "session", "ops/session/plan", "report/session", command_table_detail::kPlanTools},
    {"progress",
     "Record progress entries (add), list them (list) or repair timestamps (migrate)",
     "session", "ops/session/progress_add", "report/session", command_table_detail::kProgressTools},
    {"ready",
     "List the tasks an agent may take now: open, dependencies completed, not claimed by another agent, not settled on another side",
     "session", "ops/session/claim", "report/claims", command_table_detail::kReadyTools},
    {"release",
     "Release a claim on a task, so another agent may take it",
     "session", "ops/session/claim", "report/claims", command_table_detail::kReleaseTools},
    {"replay-id",
     "Print the replay id of the current manifest: sha256(\"SMALL|1.0.0|\" + JCS(intent, plan, constraints))",
     "inspect", "ops/inspect/replay_id", "report/session", {}},
    {"report",
     "Write the workspace as one self-contained HTML page: board, graph, findings, timeline, runs",
     "inspect", "view/html_report", "", {}},
    {"reset",
     "Start a new run: template plan, new pinned replay id; intent, constraints and history kept",
     "session", "ops/session/reset", "report/session", {}},
    {"run",
     "Run history: snapshot, list, show, diff and check out snapshots",
     "maintenance", "ops/maintenance/run", "report/run", {}},
    {"schema",
     "Print or export the built-in JSON Schemas of the five artifacts",
     "inspect", "ops/inspect/schema", "", {}},
    {"selftest",
     "Run the real commands (init, plan, progress, checkpoint, handoff, verify, ...) on a fresh workspace in a temporary directory, then remove it",
     "maintenance", "ops/maintenance/selftest", "report/selftest", {}},
    {"serve",
     "Serve a live board of every side in a browser: tasks, claims, ready queue, what waits on a human, the graph, the log",
     "meta", "serve/http_server", "", {}},
    {"start",
     "Begin a session: create missing artifacts, pin the run, write the handoff, run check --strict",
     "session", "ops/session/start", "report/authoring", {}},
    {"status",
     "Show SMALL project status summary",
     "inspect", "ops/inspect/status", "report/status", command_table_detail::kStatusTools},
    {"validate",
     "Validate all canonical SMALL artifacts against the v1.0.0 schemas",
     "inspect", "ops/inspect/verdict", "report/findings", {}},
    {"verify",
     "CI/local enforcement gate for SMALL artifacts",
     "inspect", "ops/inspect/verdict", "report/findings", {}},
    {"version",
     "Print CLI version and supported spec versions",
     "meta", "", "report/envelope", {}},
};

// The row of `name`, or nullptr.
constexpr const CommandInfo* find_command(std::string_view name) {
    for (const CommandInfo& c : kCommandTable) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

// How many MCP tools the commands expose.
constexpr std::size_t mcp_tool_count() {
    std::size_t n = 0;
    for (const CommandInfo& c : kCommandTable) n += c.mcp.size();
    return n;
}

}  // namespace small
