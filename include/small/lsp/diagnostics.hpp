// A verdict's findings as LSP diagnostics: each on its document (the
// finding's file under the workspace root), its range from the finding's
// line and column (UTF-16, 0-based) to the end of the value it marks, its rule
// id as the code, its hint after the message. Where the fix is mechanical a
// diagnostic carries the edit a quick fix applies: the value a "did you mean"
// names (a status, a task key), or the one task id close to a dependency
// that names no task.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/check/finding.hpp"
#include "small/lsp/task_facts.hpp"
#include "small/lsp/text_position.hpp"

namespace small::lsp {

struct QuickFix {
    std::string title;
    Range range;
    std::string new_text;
};

struct Diagnostic {
    Range range;
    Severity severity = Severity::Error;
    std::string rule, message;
    std::optional<QuickFix> fix;
};

// The text of a file as the verdict read it (the open buffer or the disk);
// nullopt when unreadable (its diagnostics then sit at 0:0).
using TextOf = std::function<std::optional<std::string>(const std::string& path)>;

// `findings` grouped by the absolute path of their file (`root` joined with
// the finding's relative display path); `tasks` offers the ids a dangling
// dependency may have meant.
std::map<std::string, std::vector<Diagnostic>> diagnostics_of(const std::vector<Finding>& findings,
                                                              const std::string& root, const TextOf& text_of,
                                                              const TaskIndex& tasks);

nlohmann::json diagnostic_json(const Diagnostic& d);
nlohmann::json range_json(const Range& r);
// Range or Position from a client's JSON; nullopt when malformed.
std::optional<Position> position_from_json(const nlohmann::json& j);
std::optional<Range> range_from_json(const nlohmann::json& j);

}  // namespace small::lsp
