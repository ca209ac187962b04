// `small status --brief`: what an agent needs to resume, gathered for a
// bounded primer (report/status_brief fits it into N bytes). Read-only, no
// lock; reads the plan's cached outline, the handoff, intent, constraints,
// workspace.small.yml and only the end of the progress log, so the cost is
// flat in the log's size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct BriefTask {
    std::string id, title, status;
};

struct BriefEntry {
    std::string timestamp, task_id, status, text;  // text: evidence, else notes
};

// The one step that moves the run forward, as data: the operation (the CLI
// command and the MCP tool of the same name: checkpoint, progress_add,
// handoff, plan, init, check, status) and its arguments in order. `tool`
// empty: nothing to run (say `note` instead). `placeholder` arguments are
// for the agent to fill (`<what proves it is done>`).
struct NextAction {
    struct Arg {
        std::string name, value;  // MCP argument name; the CLI flag is --name (with _ as -)
        bool placeholder = false;
    };
    std::string tool;
    std::vector<Arg> args;
    std::string note;  // why, or what to do when no tool fits
};

// `small checkpoint --task 'a b' --status completed --evidence "<...>"`.
std::string cli_line(const NextAction& a);

struct ResumeBrief {
    bool has_workspace = true;                  // false: only the problem and `small init`
    std::string intent;                         // intent.small.yml intent ("" when none)
    std::string run_id;                         // pinned run.replay_id ("" when none)
    std::optional<BriefTask> current;           // first in_progress task, else the handoff's
    std::vector<BriefTask> next;                // actionable pending tasks, plan order
    std::vector<BriefTask> blocked;             // plan order
    std::string handoff_summary;
    std::vector<std::string> handoff_next_steps;
    std::vector<BriefEntry> recent;             // newest first
    std::vector<std::string> constraint_ids;    // file order
    std::vector<std::string> problems;          // files that could not be read, positioned
    NextAction next_action;                     // the one step to take next
    std::string next_command;                   // cli_line(next_action)
    std::size_t total_tasks = 0, completed_tasks = 0;
};

struct BriefOptions {
    std::size_t recent = 3;  // newest signal entries; 0 = all (as `status --recent 0`: reads the whole log)
};

// System error when there is no .small/ (the brief then says to run init:
// see `brief_for_missing_workspace`); every other problem lands in `problems`.
Result<ResumeBrief> resume_brief(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& options);

// The brief of a folder with no workspace: one command, `small init`.
ResumeBrief brief_for_missing_workspace();

}  // namespace small
