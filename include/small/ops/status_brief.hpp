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
    std::string next_command;                   // the one command to run next
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
