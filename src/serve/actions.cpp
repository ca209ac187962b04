// The page's actions through the CLI's operations: see actions.hpp.
#include "small/serve/actions.hpp"

#include <algorithm>

#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/plan.hpp"

namespace small::serve {

namespace {

using nlohmann::json;

std::string string_field(const json& doc, const char* key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// A control character (a NUL, a line break, an escape) has no place in one line of text.
bool has_control(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

constexpr std::size_t kMaxText = 1000;

Result<json> block(const FileSystem& fs, const WorkspacePaths& ws, WorkspaceScope scope, const PageAction& a,
                   const std::string& actor) {
    CheckpointRequest req;
    req.scope = scope;
    // The person is the actor: the claims' agent and the entry's notes name them.
    if (!actor.empty()) req.agent = actor;
    req.notes = "blocked" + (actor.empty() ? std::string() : " by " + actor) + " on the board (small serve)";
    req.task = a.task;
    req.status = TaskStatus::Blocked;
    req.evidence = a.text;  // the reason the board and the resume point show (docs: checkpoint --status blocked --evidence)
    Result<CheckpointResult> done = checkpoint_command(fs, ws, req);
    if (!done) return done.error();
    return json{{"action", a.action}, {"task", a.task}, {"messages", json::array({"Blocked " + a.task + ": " + a.text})}};
}

Result<json> plan_change(const FileSystem& fs, const WorkspacePaths& ws, WorkspaceScope scope, const PageAction& a,
                         const std::string& actor) {
    PlanRequest req;
    req.scope = scope;
    req.origin = PlanOrigin::Board;  // entries: "… via the board (small serve) by <actor>"
    req.actor = actor;
    if (!actor.empty()) req.agent = actor;
    if (a.action == "unblock") req.pending.push_back(a.task);
    if (a.action == "add") req.add.push_back(a.text);
    if (a.action == "title") req.retitle.emplace_back(a.task, a.text);
    Result<PlanResult> done = plan_command(fs, ws, req);
    if (!done) return done.error();
    const std::string task = a.action == "add" ? done->added_task_id : a.task;
    return json{{"action", a.action}, {"task", task}, {"messages", done->messages}};
}

}  // namespace

Result<PageAction> parse_page_action(std::string_view body) {
    const json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return Error::usage("the action must be a JSON object");
    PageAction a{string_field(doc, "action"), string_field(doc, "task"), string_field(doc, "text")};
    if (a.action != "block" && a.action != "unblock" && a.action != "add" && a.action != "title") {
        return Error::usage("unknown action \"" + a.action + "\": use block, unblock, add or title");
    }
    if (a.action != "add" && blank(a.task)) return Error::usage(a.action + " needs the task's id");
    if (a.action != "unblock" && blank(a.text)) {
        return Error::usage(a.action == "block" ? "block needs a reason" : a.action + " needs a title");
    }
    if (has_control(a.task) || has_control(a.text)) return Error::usage("one line of text, without control characters");
    if (a.text.size() > kMaxText || a.task.size() > kMaxText) {
        return Error::usage("at most " + std::to_string(kMaxText) + " bytes of text");
    }
    return a;
}

Result<json> run_page_action(const FileSystem& fs, const WorkspacePaths& ws, WorkspaceScope scope,
                             const PageAction& action, const std::string& actor) {
    if (action.action == "block") return block(fs, ws, scope, action, actor);
    return plan_change(fs, ws, scope, action, actor);
}

}  // namespace small::serve
