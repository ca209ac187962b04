// What a person may change from `small serve`'s page (only with --write):
// block a task with a reason, unblock one, add a task, edit a title. Each is
// the operation the CLI runs for the same change, so it takes the lock,
// keeps the plan's formatting and records its progress entry with the same
// actor as the CLI run by that person (claims' default agent: $SMALL_AGENT,
// else user@host:<root>):
//   block   = small checkpoint --task ID --status blocked --evidence REASON
//   unblock = small plan --pending ID   (the human's step the resume point names)
//   add     = small plan --add TITLE
//   title   = small plan --title ID TITLE
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small::serve {

struct PageAction {
    std::string action;  // block, unblock, add, title
    std::string task;    // block, unblock, title
    std::string text;    // block: the reason; add, title: the title
};

// The body of POST /action: {"action": ..., "task": ..., "text": ...}. Usage
// errors name what is missing or unknown.
Result<PageAction> parse_page_action(std::string_view body);

// Runs the action as `actor` (the person at the board: the entries and any
// claim name them; "" unnamed); the answer: {"action", "task", "messages"}.
// Errors as the CLI's (Invalid for an unknown task, Busy when locked).
Result<nlohmann::json> run_page_action(const FileSystem& fs, const WorkspacePaths& ws, WorkspaceScope scope,
                                       const PageAction& action, const std::string& actor);

}  // namespace small::serve
