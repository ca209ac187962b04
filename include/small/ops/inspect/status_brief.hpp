// `small status --brief`: what an agent needs to resume, gathered for a
// bounded primer (report/status_brief fits it into N bytes). Read-only, no
// lock; reads the plan's cached outline, the log's cached facts
// (store/log_facts_cache: one full read per log version), the handoff, intent,
// constraints, workspace.small.yml and the end of the progress log.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct BriefTask {
    std::string id, title;
    WrittenStatus status;
    std::string note;  // a blocked task's reason; what a waiting task waits on
    std::vector<std::string> steps, acceptance;  // the current task's, from the plan
};

struct BriefEntry {
    std::string timestamp, task_id, status, text;  // text: evidence, else notes
};

struct ResumeBrief {
    bool has_workspace = true;                  // false: only the problem and `small init`
    std::string intent;                         // intent.small.yml intent ("" when none)
    std::string run_id;                         // pinned run.replay_id ("" when none)
    std::optional<BriefTask> current;           // the resume point's task (model/resume_point, D18)
    std::vector<std::string> claims;            // D19: "You (alice) hold task-3 until 14:05 UTC", others' after
    std::vector<BriefTask> next;                // other ready pending tasks nobody else claims, plan order
    std::vector<BriefTask> blocked;             // plan order, each with its reason
    std::string handoff_summary;
    std::vector<std::string> handoff_next_steps;  // the handoff's, or computed now when it is stale
    std::string handoff_stale;                  // why the handoff is stale ("" fresh, or none written)
    std::vector<BriefEntry> recent;             // newest first
    std::vector<std::string> constraint_ids;    // file order
    std::vector<std::string> problems;          // files that could not be read, positioned
    std::vector<std::string> shown_reasons;     // the blocked reasons the primer shows (never repeated in Recent)
    NextAction next_action;                     // the one step to take next
    std::string next_command;                   // cli_line(next_action)
    std::size_t total_tasks = 0, completed_tasks = 0;
};

struct BriefOptions {
    std::size_t recent = 3;  // newest signal entries; 0 = all (as `status --recent 0`: reads the whole log)
};

// System error when there is no .small/ (the brief then says to run init:
// see `brief_for_missing_workspace`); every other problem lands in `problems`.
Result<ResumeBrief> status_brief_command(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& options);

// The brief of a folder with no workspace: one command, `small init`.
ResumeBrief brief_for_missing_workspace();

}  // namespace small
