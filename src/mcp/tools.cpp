// The tools of `small mcp`. Each calls one ops/ operation (the same one the
// CLI command calls, so writes take the same lock and journal) and answers
// with the report/ body the command's --json prints, in the D16 envelope.
#include "tools.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <functional>

#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/base/command_table.hpp"
#include "small/ops/inspect/verdict.hpp"
#include "small/model/task_status.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/claim.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/ops/inspect/status.hpp"
#include "small/ops/inspect/status_brief.hpp"
#include "small/report/claims.hpp"
#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"
#include "small/report/status.hpp"
#include "small/report/status_brief.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::mcp {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

// `status` is the one tool whose answer grows with the log (recent entries):
// it is bounded so that one call cannot fill an agent's context.
constexpr long long kMaxStatusRecent = 50;
constexpr std::size_t kMaxToolText = 64 * 1024;
// The text of a write tool: one line, as the CLI prints it.
constexpr std::size_t kMaxWriteText = 200;

json str(const char* description) { return {{"type", "string"}, {"description", description}}; }
json str_enum(const char* description, const std::vector<std::string>& values) {
    return {{"type", "string"}, {"description", description}, {"enum", values}};
}
json integer(const char* description, long long minimum) {
    return {{"type", "integer"}, {"description", description}, {"minimum", minimum}};
}
json object(json properties, json required = json::array()) {
    json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    if (!required.empty()) s["required"] = std::move(required);
    return s;
}

// The fields progress_add and checkpoint take: the task, its status, the
// evidence fields (D9) and notes.
json entry_properties(const char* task, json status) {
    return {{"task", str(task)},
            {"status", std::move(status)},
            {"evidence", str("What shows it")},
            {"verification", str("How verified")},
            {"command", str("Command run")},
            {"test", str("Test run")},
            {"link", str("Evidence URI")},
            {"commit", str("Commit hash")},
            {"notes", str("Notes")}};
}

json strings(const char* description) {
    return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}

// The plan tool's statuses, in the order its schema has always listed them.
constexpr TaskStatus kPlanToolStatuses[] = {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Blocked,
                                            TaskStatus::Completed, TaskStatus::Cancelled};

// The plan tool: one edit (add, or task with status/title/depends_on), a
// list of tasks merged by id (`small plan --from`), or both, as one change.
json plan_schema() {
    json tasks = strings("Tasks merged by id");
    tasks["items"] = {{"type", "object"}};
    json plan = object({{"add", str("New task's title")},
                        {"task", str("Task to change")},
                        {"status", str_enum("New status of task", status_names(kPlanToolStatuses))},
                        {"title", str("Its new title")},
                        {"depends_on", str("Ids, comma-separated")},
                        {"tasks", std::move(tasks)},
                        {"force", {{"type", "boolean"}, {"description", "Complete despite open deps"}}}});
    plan["dependentRequired"] = {{"status", {"task"}}, {"title", {"task"}}, {"depends_on", {"task"}}};
    return plan;
}

// Each tool's arguments, by tool name; which tools exist, their descriptions
// and annotations come from the command registry (base/command_table).
std::map<std::string_view, json> tool_schemas() {
    json resume = object({{"max_bytes", integer("Byte budget", kMinBriefBytes)}});
    json status = object({{"recent", integer("Entries to list", 1)}});
    status["properties"]["recent"]["maximum"] = kMaxStatusRecent;
    return {
        {"resume", std::move(resume)},
        {"status", std::move(status)},
        {"plan", plan_schema()},
        {"progress_add",
         object(entry_properties("Task id (or meta/...)", str_enum("Entry status", status_names(kTaskStatuses))),
                {"task", "status"})},
        {"checkpoint",
         object(entry_properties("Task id", str_enum("New status", status_names(kCheckpointStatuses))),
                {"task", "status"})},
        {"ready", object(json::object())},
        {"claim", object({{"task", str("Task id, else next ready")}, {"ttl", str("Lease, e.g. 45m")}})},
        {"release", object({{"task", str("Task id")}}, {"task"})},
        {"handoff", object({{"summary", str("Summary (default: computed)")}})},
        {"check", object(json::object())},
        {"init", object({{"intent", str("What the run is for")},
                         {"agents_mode", str_enum("Into an existing AGENTS.md", {"append", "prepend"})},
                         {"no_agents", {{"type", "boolean"}, {"description", "Leave AGENTS.md alone"}}}})},
    };
}

// MCP's hints, only where they differ from what a client assumes without
// them (not read-only, destructive, not idempotent): tools/list stays short.
json annotations(const McpTool& t) {
    if (t.read_only) return {{"readOnlyHint", true}};
    json a = {{"destructiveHint", t.destructive}};
    if (t.idempotent) a["idempotentHint"] = true;
    return a;
}

json build_entries() {
    std::map<std::string_view, json> schemas = tool_schemas();
    json entries = json::array();
    for (const CommandInfo& command : kCommandTable) {
        for (const McpTool& t : command.mcp) {
            const auto schema = schemas.find(t.name);
            if (schema == schemas.end()) throw std::logic_error("MCP tool " + std::string(t.name) + " has no schema");
            json entry = {{"name", t.name}, {"description", t.description}, {"inputSchema", schema->second}};
            entry["annotations"] = annotations(t);
            entries.push_back(std::move(entry));
        }
    }
    return entries;
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

// A write's answer as an agent reads it: one line of at most kMaxWriteText
// bytes, the CLI's own result line and the first warning, while the whole
// --json document is the structuredContent.
ToolResult written(const std::string& command, json body, std::string line) {
    const json warnings = body.value("warnings", json::array());
    if (!warnings.empty()) {
        const json& first = warnings.front();
        line += warnings.size() == 1 ? "; warning: " : "; " + std::to_string(warnings.size()) + " warnings, first: ";
        line += first.is_string() ? first.get<std::string>() : first.value("message", dump(first));
    }
    ToolResult r;
    r.structured = with_envelope(std::move(body), command, kExitOk);
    r.text = one_line(line, kMaxWriteText);
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
bool flag(const json& args, const char* key) { return args.value(key, false); }

// --- the tools ---

ToolResult status_tool(const json& args, const ToolContext& ctx, const std::string& command) {
    StatusOptions options;
    if (const auto it = args.find("recent"); it != args.end()) options.recent = it->get<std::size_t>();  // 1..50
    Result<StatusReport> r = status_command(ctx.fs, ctx.ws, options);
    if (r) return success(command, status_json(&*r, "v" + ctx.version, false));
    // As `status --json` answers: the report's keys (nothing found) plus the error.
    ToolResult failed = failure(command, r.error());
    json body = status_json(nullptr, "v" + ctx.version, false);
    body.update(error_document(r.error()));
    failed.structured = with_envelope(std::move(body), command, exit_code_for(r.error().kind));
    return failed;
}

// The brief's next step as a call of one of these tools: the structured
// {tool, arguments, placeholders} and the text `tool {"arg":"value",...}`
// (arguments in the step's order). Null when no tool takes the step as it
// is: the primer then gives the shell line alone. A CLI switch without a
// value (check's --strict) is what the tool always does, so it is dropped.
struct NextCall {
    json structured;
    std::string text;
};

NextCall next_call(const NextAction& action) {
    const json* tool = action.tool.empty() ? nullptr : find_tool(action.tool);
    if (!tool) return {};
    const json& schema = (*tool)["inputSchema"];
    json arguments = json::object(), placeholders = json::array();
    nlohmann::ordered_json in_order = nlohmann::ordered_json::object();
    for (const NextAction::Arg& arg : action.args) {
        if (!schema["properties"].contains(arg.name)) {
            if (arg.value.empty()) continue;
            return {};
        }
        arguments[arg.name] = arg.value;
        in_order[arg.name] = arg.value;
        if (arg.placeholder) placeholders.push_back(arg.name);
    }
    if (argument_problem(schema, arguments)) return {};
    return {{{"tool", action.tool}, {"arguments", arguments}, {"placeholders", placeholders}},
            action.tool + " " + in_order.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// `status --brief`: the bounded primer. Its text is what the agent reads, so
// it is the text content (the JSON carries it too), and it ends with the
// next tool call, then the same step as a shell line. Without a workspace
// the primer says to call init, as the CLI's says to run it.
ToolResult resume_tool(const json& args, const ToolContext& ctx) {
    const std::size_t max_bytes = args.value("max_bytes", kDefaultBriefBytes);
    Result<ResumeBrief> brief = status_brief_command(ctx.fs, ctx.ws, BriefOptions{});
    if (!brief && !ctx.fs.directory_exists(ctx.ws.small_dir)) brief = brief_for_missing_workspace();
    if (!brief) return failure("status", brief.error());
    const NextCall call = next_call(brief->next_action);
    const std::vector<std::string> last =
        call.structured.is_null()
            ? std::vector<std::string>{"Run next: " + brief->next_command}
            : std::vector<std::string>{"Call next: " + call.text, "In a shell: " + brief->next_command};
    const FittedBrief fit = fit_brief(*brief, max_bytes, last);
    json body = brief_json(*brief, fit, max_bytes);
    body["next_call"] = call.structured;
    ToolResult r;
    r.structured = with_envelope(std::move(body), "status", kExitOk);
    r.text = fit.text;
    return r;
}

// "Added task task-2: Design widget; Task task-2 depends on task-1", as the
// CLI prints it line by line.
std::string plan_line(const PlanResult& r) {
    std::string line;
    for (const std::string& m : r.messages) line += (line.empty() ? "" : "; ") + m;
    if (r.pinned_run) line += "; pinned run replay id " + r.replay_id.substr(0, 16) + "...";
    return line.empty() ? "plan: nothing changed" : line;
}

ToolResult plan_tool(const json& args, const ToolContext& ctx) {
    PlanRequest req;
    if (const auto add = opt(args, "add")) req.add.push_back(*add);
    const std::string task = small::mcp::req(args, "task");
    if (const auto status = opt(args, "status")) {
        for (const PlanStatusFlag& f : kPlanStatusFlags) {
            if (status_name(f.status) == *status) (req.*f.ids).push_back(task);
        }
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
    return written("plan", plan_json(*r, ctx.ws), plan_line(*r));
}

// The request of an entry tool, its status parsed as the command's flag is.
template <typename Request>
Result<Request> entry_request(const json& args, const ToolContext& ctx,
                              Result<TaskStatus> (*parse_status)(std::string_view, std::string_view)) {
    Request req;
    req.task = small::mcp::req(args, "task");
    Result<TaskStatus> status = parse_status(req.task, small::mcp::req(args, "status"));
    if (!status) return status.error();
    req.status = *status;
    req.evidence = opt(args, "evidence");
    req.verification = opt(args, "verification");
    req.command = opt(args, "command");
    req.test = opt(args, "test");
    req.link = opt(args, "link");
    req.commit = opt(args, "commit");
    req.notes = opt(args, "notes");
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    return req;
}

ToolResult progress_add_tool(const json& args, const ToolContext& ctx) {
    Result<ProgressAddRequest> req = entry_request<ProgressAddRequest>(args, ctx, parse_progress_status);
    if (!req) return failure("progress add", req.error());
    Result<ProgressAddResult> r = progress_add_command(ctx.fs, ctx.ws, *req);
    if (!r) return failure("progress add", r.error());
    const std::string line = "progress added: " + r->entry["task_id"].get<std::string>() + " " +
                             r->entry["status"].get<std::string>() + " " + r->timestamp;
    return written("progress add", progress_add_json(*r, ctx.ws), line);
}

ToolResult checkpoint_tool(const json& args, const ToolContext& ctx) {
    Result<CheckpointRequest> req = entry_request<CheckpointRequest>(args, ctx, parse_checkpoint_status);
    if (!req) return failure("checkpoint", req.error());
    Result<CheckpointResult> r = checkpoint_command(ctx.fs, ctx.ws, *req);
    if (!r) return failure("checkpoint", r.error());
    json body = checkpoint_json(*r, ctx.ws);
    const std::string line = body["checkpoint"];  // "checkpoint: task-1 -> completed at ..."
    return written("checkpoint", std::move(body), line);
}

// The server acts for one agent: $SMALL_AGENT (else user@host), as the CLI.
ClaimOptions claim_options(const ToolContext& ctx) {
    ClaimOptions o;
    o.scope = ctx.scope;
    o.lock_wait = default_lock_wait();
    return o;
}

ToolResult ready_tool(const ToolContext& ctx) {
    Result<ReadyResult> r = ready_command(ctx.fs, ctx.ws, claim_options(ctx));
    if (!r) return failure("ready", r.error());
    return success("ready", ready_json(*r, current_instant()));
}

ToolResult claim_tool(const json& args, const ToolContext& ctx) {
    std::int64_t ttl = kDefaultLeaseSeconds;
    if (const auto text = opt(args, "ttl")) {
        Result<std::int64_t> parsed = parse_lease_duration(*text);
        if (!parsed) return failure("claim", parsed.error());
        ttl = *parsed;
    }
    Result<ClaimResult> r = claim_command(ctx.fs, ctx.ws, small::mcp::req(args, "task"), ttl, claim_options(ctx));
    if (!r) return failure("claim", r.error());
    const Instant now = current_instant();
    return written("claim", claim_json(*r, now), claim_line(*r, now));
}

ToolResult release_tool(const json& args, const ToolContext& ctx) {
    Result<ReleaseResult> r = release_command(ctx.fs, ctx.ws, small::mcp::req(args, "task"), claim_options(ctx));
    if (!r) return failure("release", r.error());
    return written("release", release_json(*r), "Released " + r->released.task + " (was held by " + r->released.agent + ")");
}

ToolResult handoff_tool(const json& args, const ToolContext& ctx) {
    HandoffRequest req;
    req.summary = opt(args, "summary");
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    Result<HandoffResult> r = handoff_command(ctx.fs, ctx.ws, req);
    if (!r) return failure("handoff", r.error());
    const std::size_t steps = r->handoff["resume"]["next_steps"].size();
    const std::string line = "Generated handoff.small.yml with " + std::to_string(steps) + " next step" +
                             (steps == 1 ? "" : "s");
    return written("handoff", handoff_json(*r, ctx.ws), line);
}

// `small init` in the server's folder (the root of --dir, or where it was
// started): it never walks up, as the command does not.
ToolResult init_tool(const json& args, const ToolContext& ctx) {
    InitRequest req;
    req.dir = ctx.ws.root;
    req.cwd = ctx.ws.root;
    req.intent = opt(args, "intent");
    req.agents_mode = small::mcp::req(args, "agents_mode");
    req.no_agents = flag(args, "no_agents");
    req.lock_wait = default_lock_wait();
    Result<InitResult> r = init_command(ctx.fs, req);
    if (!r) return failure("init", r.error());
    const std::string line = "Initialized SMALL v1.0.0 in " + r->small_dir + "; run " + r->replay_id.substr(0, 16) +
                             "...; a human writes intent and constraints";
    return written("init", init_json(*r), line);
}

// `check --strict`: a pass is one line; a failed verdict is a tool error
// whose text lists the findings as the CLI prints them (file:line:column:
// error: message [RULE]).
ToolResult check_tool(const ToolContext& ctx) {
    VerdictRequest request;
    request.options.strict = true;
    request.options.scope = ctx.scope;
    Result<VerdictRun> run = verdict_command(ctx.fs, ctx.ws, request);
    if (!run) return failure("check", run.error());
    const Verdict& verdict = run->verdict;
    const int code = exit_code_for(verdict.outcome);
    ToolResult r;
    r.structured = with_envelope(check_json(verdict, code), "check", code);
    r.is_error = verdict.outcome != VerdictOutcome::Ok;
    std::size_t errors = 0, warnings = 0;
    std::string listed;
    for (const Finding& f : verdict.all_findings()) {
        const bool error = f.severity == Severity::Error;
        (error ? errors : warnings) += 1;
        const std::string where = f.location_text();
        listed += where.substr(0, where.size() - f.message.size()) + (error ? "error: " : "warning: ") +
                  f.message + " [" + f.rule + "]\n";
        if (!f.hint.empty()) listed += "    Fix: " + f.hint + "\n";
    }
    if (!r.is_error) {
        const std::string line = warnings ? "Check passed (" + std::to_string(warnings) + " warning" +
                                                (warnings == 1 ? "" : "s") + ": " + listed + ")"
                                          : std::string("Check passed");
        r.text = one_line(line, kMaxWriteText);
        return r;
    }
    r.text = listed + "Check failed (" + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ")";
    return r;
}

bool has_type(const json& value, const std::string& type) {
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_number_integer();
    if (type == "boolean") return value.is_boolean();
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
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
    if (name == "ready") return ready_tool(ctx);
    if (name == "claim") return claim_tool(arguments, ctx);
    if (name == "release") return release_tool(arguments, ctx);
    if (name == "init") return init_tool(arguments, ctx);
    return check_tool(ctx);
}

}  // namespace small::mcp
