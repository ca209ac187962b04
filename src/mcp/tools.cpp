// The tools of `small mcp`. Each calls one ops/ operation (the same one the
// CLI command calls, so writes take the same lock and journal) and answers
// with the report/ body the command's --json prints, in the D16 envelope.
#include "tools.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/ops/checkpoint.hpp"
#include "small/ops/handoff.hpp"
#include "small/ops/plan.hpp"
#include "small/ops/progress_add.hpp"
#include "small/ops/status.hpp"
#include "small/ops/status_brief.hpp"
#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"
#include "small/report/status.hpp"
#include "small/report/status_brief.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::mcp {

namespace {

using nlohmann::json;

// Compact JSON; text from files may hold invalid UTF-8, which is replaced
// rather than thrown about.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// `status` is the one tool whose answer grows with the log (recent entries):
// it is bounded so that one call cannot fill an agent's context.
constexpr long long kMaxStatusRecent = 50;
constexpr std::size_t kMaxToolText = 64 * 1024;

json str() { return {{"type", "string"}}; }
json str_enum(std::initializer_list<const char*> values) {
    json e = json::array();
    for (const char* v : values) e.push_back(v);
    return {{"type", "string"}, {"enum", e}};
}
json object(json properties, json required = json::array()) {
    json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    if (!required.empty()) s["required"] = std::move(required);
    return s;
}
json tool(const char* name, const char* description, json schema) {
    return {{"name", name}, {"description", description}, {"inputSchema", std::move(schema)}};
}

// The evidence fields progress_add and checkpoint take (D9), besides notes.
json entry_properties(json status) {
    return {{"task", str()},  {"status", std::move(status)}, {"evidence", str()}, {"command", str()},
            {"test", str()},  {"commit", str()},             {"notes", str()}};
}

json described(json schema, const char* description) {
    schema["description"] = description;
    return schema;
}

// The plan tool: one edit (add, or task with status/title/depends_on), or a
// whole list of tasks merged by id (`small plan --from`), or both.
json plan_schema() {
    const json statuses = str_enum({"pending", "in_progress", "blocked", "completed", "cancelled"});
    const json strings = {{"type", "array"}, {"items", str()}};
    json task = object({{"id", described(str(), "Task id; omit for a new task (gets task-<max+1>)")},
                        {"title", described(str(), "Title (required for a new task)")},
                        {"status", described(statuses, "Plan status")},
                        {"depends_on", described(strings, "Ids of the tasks it depends on (replaces the list)")},
                        {"steps", described(strings, "Steps (replaces the list)")},
                        {"acceptance", described(strings, "Acceptance criteria (replaces the list)")}});
    task["additionalProperties"] = true;
    json plan = object(
        {{"add", described(str(), "Title of a new pending task")},
         {"task", described(str(), "Id of the task that status, title and depends_on edit")},
         {"status", described(statuses, "New status of task (completed needs its dependencies completed)")},
         {"title", described(str(), "New title of task")},
         {"depends_on", described(str(), "Id(s) task depends on, comma-separated")},
         {"tasks", described({{"type", "array"}, {"items", std::move(task)}},
                             "Tasks merged by id, as small plan --from: new ids appended, existing tasks updated "
                             "field by field (null removes a field)")},
         {"force", described({{"type", "boolean"}}, "Complete a task whose dependencies are not all completed "
                                                    "(recorded in its entry)")}});
    plan["dependentRequired"] = {{"status", {"task"}}, {"title", {"task"}}, {"depends_on", {"task"}}};
    return plan;
}

json build_entries() {
    json plan = plan_schema();
    return json::array({
        tool("resume", "Start here: a short primer of the run (intent, current and next tasks, handoff, recent "
                       "progress, the next command).",
             object({{"max_bytes", {{"type", "integer"}, {"minimum", kMinBriefBytes}}}})),
        tool("status", "Plan counts, next actionable tasks, replay id and recent progress.",
             object({{"recent", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxStatusRecent}}}})),
        tool("plan", "Edit the plan in one atomic, logged change: add a task (add), set a task's status, retitle "
                     "it or add dependencies (task with status/title/depends_on), and/or merge a list of tasks "
                     "(tasks).",
             std::move(plan)),
        tool("progress_add", "Append a progress entry for a plan task (or meta/...) to the append-only log.",
             object(entry_properties(str_enum({"pending", "in_progress", "completed", "blocked", "cancelled"})),
                    {"task", "status"})),
        tool("checkpoint", "Set a task's status in the plan and record its progress entry, atomically.",
             object(entry_properties(str_enum({"completed", "blocked", "cancelled", "in_progress"})),
                    {"task", "status"})),
        tool("handoff", "Write the handoff (the resume point) from the plan and progress.",
             object({{"summary", str()}})),
        tool("check", "Strict check of the workspace: validate, lint, verify.", object(json::object())),
    });
}

// --- results ---

// The text content repeats the structured result for clients that only read
// text, up to kMaxToolText bytes; past that it says where the result is.
ToolResult success(const std::string& command, json body) {
    ToolResult r;
    r.structured = with_envelope(std::move(body), command, kExitOk);
    r.text = dump(r.structured);
    if (r.text.size() > kMaxToolText) {
        r.text = command + ": the result is " + std::to_string(r.text.size()) +
                 " bytes of JSON, too long to repeat as text; read structuredContent, or ask for less";
    }
    return r;
}

// The failure as the CLI prints it ("Error: ...", "    Fix: ...") and its --json document.
ToolResult failure(const std::string& command, const Error& error) {
    ToolResult r;
    r.structured = with_envelope(error_document(error), command, exit_code_for(error.kind));
    r.text = "Error: " + error.describe();
    if (!error.rule.empty()) r.text += " [" + error.rule + "]";
    if (!error.hint.empty()) r.text += "\n    Fix: " + error.hint;
    r.is_error = true;
    return r;
}

std::optional<std::string> opt(const json& args, const char* key) {
    const auto it = args.find(key);
    if (it == args.end()) return std::nullopt;
    return it->get<std::string>();
}
std::string req(const json& args, const char* key) { return opt(args, key).value_or(""); }

// --- the tools ---

ToolResult status_tool(const json& args, const ToolContext& ctx, const std::string& command) {
    StatusOptions options;
    if (const auto it = args.find("recent"); it != args.end()) options.recent = it->get<std::size_t>();  // 1..50
    Result<StatusReport> r = workspace_status(ctx.fs, ctx.ws, options);
    if (r) return success(command, status_json(&*r, "v" + ctx.version, false));
    // As `status --json` answers: the report's keys (nothing found) plus the error.
    ToolResult failed = failure(command, r.error());
    json body = status_json(nullptr, "v" + ctx.version, false);
    body.update(error_document(r.error()));
    failed.structured = with_envelope(std::move(body), command, exit_code_for(r.error().kind));
    return failed;
}

// `status --brief`: the bounded primer. Its text is what the agent reads, so
// it is the text content (the JSON carries it too). Without a workspace the
// primer says to run init, as the CLI's does.
ToolResult resume_tool(const json& args, const ToolContext& ctx) {
    const std::size_t max_bytes = args.value("max_bytes", kDefaultBriefBytes);
    Result<ResumeBrief> brief = resume_brief(ctx.fs, ctx.ws, BriefOptions{});
    if (!brief && !ctx.fs.directory_exists(ctx.ws.small_dir)) brief = brief_for_missing_workspace();
    if (!brief) return failure("status", brief.error());
    const FittedBrief fit = fit_brief(*brief, max_bytes);
    ToolResult r;
    r.structured = with_envelope(brief_json(*brief, fit, max_bytes), "status", kExitOk);
    r.text = fit.text;
    return r;
}

ToolResult plan_tool(const json& args, const ToolContext& ctx) {
    PlanRequest req;
    if (const auto add = opt(args, "add")) req.add.push_back(*add);
    const std::string task = small::mcp::req(args, "task");
    if (const auto status = opt(args, "status")) {
        const std::map<std::string, std::vector<std::string> PlanRequest::*> fields = {
            {"pending", &PlanRequest::pending},     {"in_progress", &PlanRequest::in_progress},
            {"blocked", &PlanRequest::blocked},     {"completed", &PlanRequest::done},
            {"cancelled", &PlanRequest::cancel}};
        (req.*fields.at(*status)).push_back(task);
    }
    if (const auto title = opt(args, "title")) req.retitle.emplace_back(task, *title);
    if (const auto dep = opt(args, "depends_on")) req.depends.push_back(task + ":" + *dep);
    // The list as indented JSON, so that an error's line and column point into it.
    if (const auto it = args.find("tasks"); it != args.end()) req.from = PlanInput{it->dump(2), "tasks"};
    req.force = args.value("force", false);
    if (req.add.empty() && !args.contains("status") && req.retitle.empty() && req.depends.empty() && !req.from) {
        return failure("plan", Error::usage("nothing to do: give add, tasks, or task with status, title or depends_on"));
    }
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    Result<PlanResult> r = plan_command(ctx.fs, ctx.ws, req);
    if (!r) return failure("plan", r.error());
    return success("plan", plan_json(*r, ctx.ws));
}

template <typename Request>
Request entry_request(const json& args, const ToolContext& ctx) {
    Request req;
    req.task = small::mcp::req(args, "task");
    req.status = small::mcp::req(args, "status");
    req.evidence = opt(args, "evidence");
    req.command = opt(args, "command");
    req.test = opt(args, "test");
    req.commit = opt(args, "commit");
    req.notes = opt(args, "notes");
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    return req;
}

ToolResult progress_add_tool(const json& args, const ToolContext& ctx) {
    Result<ProgressAddResult> r = progress_add(ctx.fs, ctx.ws, entry_request<ProgressAddRequest>(args, ctx));
    if (!r) return failure("progress add", r.error());
    return success("progress add", progress_add_json(*r, ctx.ws));
}

ToolResult checkpoint_tool(const json& args, const ToolContext& ctx) {
    Result<CheckpointResult> r = checkpoint_command(ctx.fs, ctx.ws, entry_request<CheckpointRequest>(args, ctx));
    if (!r) return failure("checkpoint", r.error());
    return success("checkpoint", checkpoint_json(*r, ctx.ws));
}

ToolResult handoff_tool(const json& args, const ToolContext& ctx) {
    HandoffRequest req;
    req.summary = opt(args, "summary");
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    Result<HandoffResult> r = handoff_command(ctx.fs, ctx.ws, req);
    if (!r) return failure("handoff", r.error());
    return success("handoff", handoff_json(*r, ctx.ws));
}

// `check --strict`: a failed verdict is a tool error whose text lists the
// findings as the CLI prints them (file:line:column: error: message [RULE]).
ToolResult check_tool(const ToolContext& ctx) {
    Result<SchemaSet> schemas = SchemaSet::embedded();
    if (!schemas) return failure("check", schemas.error());
    VerdictOptions options;
    options.strict = true;
    options.scope = ctx.scope;
    const Verdict verdict = run_check(VerdictInput{ctx.fs, ctx.ws, *schemas}, options);
    const int code = exit_code_for(verdict.outcome);
    ToolResult r;
    r.structured = with_envelope(check_json(verdict, code), "check", code);
    r.is_error = verdict.outcome != VerdictOutcome::Ok;
    if (!r.is_error) {
        r.text = dump(r.structured);
        return r;
    }
    std::size_t errors = 0;
    for (const Finding& f : verdict.all_findings()) {
        const bool error = f.severity == Severity::Error;
        errors += error ? 1 : 0;
        const std::string where = f.location_text();
        r.text += where.substr(0, where.size() - f.message.size()) + (error ? "error: " : "warning: ") +
                  f.message + " [" + f.rule + "]\n";
        if (!f.hint.empty()) r.text += "    Fix: " + f.hint + "\n";
    }
    r.text += "Check failed (" + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ")";
    return r;
}

bool has_type(const json& value, const std::string& type) {
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_number_integer();
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "boolean") return value.is_boolean();
    return false;
}

// An integer argument against a bound; an unsigned value past the range of
// long long is above every bound (a cast would wrap it below).
bool integer_below(const json& value, long long bound) {
    if (value.is_number_unsigned()) return bound > 0 && value.get<unsigned long long>() < static_cast<unsigned long long>(bound);
    return value.get<long long>() < bound;
}
bool integer_above(const json& value, long long bound) {
    if (value.is_number_unsigned()) return bound < 0 || value.get<unsigned long long>() > static_cast<unsigned long long>(bound);
    return value.get<long long>() > bound;
}

}  // namespace

const json& tool_entries() {
    static const json entries = build_entries();
    return entries;
}

const json* find_tool(const std::string& name) {
    for (const json& t : tool_entries()) {
        if (t["name"] == name) return &t;
    }
    return nullptr;
}

std::optional<std::string> argument_problem(const json& schema, const json& arguments) {
    if (!arguments.is_object()) return "arguments must be an object";
    const json& properties = schema["properties"];
    for (const auto& [key, value] : arguments.items()) {
        const auto p = properties.find(key);
        if (p == properties.end()) return "unknown argument '" + key + "'";
        if (!has_type(value, (*p)["type"].get<std::string>())) {
            return "argument '" + key + "' must be of type " + (*p)["type"].get<std::string>();
        }
        if (const auto e = p->find("enum"); e != p->end() && std::find(e->begin(), e->end(), value) == e->end()) {
            return "argument '" + key + "' must be one of " + e->dump();
        }
        if (const auto m = p->find("minimum"); m != p->end() && integer_below(value, m->get<long long>())) {
            return "argument '" + key + "' must be at least " + m->dump();
        }
        if (const auto m = p->find("maximum"); m != p->end() && integer_above(value, m->get<long long>())) {
            return "argument '" + key + "' must be at most " + m->dump();
        }
    }
    for (const json& key : schema.value("required", json::array())) {
        if (!arguments.contains(key.get<std::string>())) return "missing argument '" + key.get<std::string>() + "'";
    }
    const json dependent = schema.value("dependentRequired", json::object());  // kept alive for items()
    for (const auto& [key, needs] : dependent.items()) {
        if (!arguments.contains(key)) continue;
        for (const json& need : needs) {
            if (!arguments.contains(need.get<std::string>())) {
                return "argument '" + key + "' needs '" + need.get<std::string>() + "'";
            }
        }
    }
    return std::nullopt;
}

ToolResult run_tool(const std::string& name, const json& arguments, const ToolContext& ctx) {
    if (name == "resume") return resume_tool(arguments, ctx);
    if (name == "status") return status_tool(arguments, ctx, "status");
    if (name == "plan") return plan_tool(arguments, ctx);
    if (name == "progress_add") return progress_add_tool(arguments, ctx);
    if (name == "checkpoint") return checkpoint_tool(arguments, ctx);
    if (name == "handoff") return handoff_tool(arguments, ctx);
    return check_tool(ctx);
}

}  // namespace small::mcp
