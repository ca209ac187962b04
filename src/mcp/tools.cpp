// The tools of `small mcp`. Each calls one ops/ operation (the same one the
// CLI command calls, so writes take the same lock and journal) and answers
// with the report/ body the command's --json prints, in the D16 envelope.
#include "tools.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <functional>

#include "small/base/text.hpp"
#include "small/mcp/cli_words.hpp"
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
#include "small/ops/inspect/plan_show.hpp"
#include "small/ops/inspect/status.hpp"
#include "small/ops/inspect/status_brief.hpp"
#include "small/report/claims.hpp"
#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"
#include "small/report/status.hpp"
#include "small/report/status_brief.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/mcp/answer_cache.hpp"

namespace small::mcp {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

// `status` is the one tool whose answer grows with the log (recent entries):
// it is bounded so that one call cannot fill an agent's context.
constexpr long long kMaxStatusRecent = 50;
// A tool's text (but resume's primer and a failure): one sentence of at most
// this many bytes; the whole document is the structuredContent.
constexpr std::size_t kMaxSentence = 200;
// The progress entries `show` returns, newest first (as `plan show ID`).
constexpr std::size_t kShowEntries = 20;

json str(const char* description) { return {{"type", "string"}, {"description", description}}; }
json str_enum(const char* description, const std::vector<std::string>& values) {
    return {{"type", "string"}, {"description", description}, {"enum", values}};
}
json boolean(const char* description) { return {{"type", "boolean"}, {"description", description}}; }
json integer(const char* description, long long minimum) {
    return {{"type", "integer"}, {"description", description}, {"minimum", minimum}};
}
// No "additionalProperties": false (28 bytes a tool of every agent's
// context): the server refuses an argument the schema does not name anyway,
// as a tool error that lists the ones it takes (argument_problem).
json object(json properties, json required = json::array()) {
    json s = {{"type", "object"}, {"properties", std::move(properties)}};
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
            {"command", str("Command")},
            {"test", str("Test")},
            {"link", str("URI")},
            {"commit", str("Commit")},
            {"notes", str("Notes")}};
}

json strings(const char* description) {
    return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}

// The plan tool's statuses, in the order its schema has always listed them.
constexpr TaskStatus kPlanToolStatuses[] = {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Blocked,
                                            TaskStatus::Completed, TaskStatus::Cancelled};

// The plan tool: one edit (add a task, or change task: status, title), the
// steps, acceptance criteria and dependencies of either, a list of tasks
// merged by id (`small plan --from`), or all of it, as one change. A list
// of ids or texts is always an array.
json plan_schema() {
    const json statuses = status_names(kPlanToolStatuses);
    const json list = {{"type", "array"}, {"items", {{"type", "string"}}}};
    json item = {{"type", "object"},
                 {"properties",
                  {{"id", {{"type", "string"}}},
                   {"title", {{"type", "string"}}},
                   {"status", {{"type", "string"}, {"enum", statuses}}},
                   {"depends_on", list},
                   {"steps", list},
                   {"acceptance", list}}}};
    json tasks = strings("Tasks merged by id");
    tasks["items"] = std::move(item);
    json plan = object({{"add", str("New task's title")},
                        {"task", str("Task to change")},
                        {"status", str_enum("Its new status", statuses)},
                        {"title", str("Its new title")},
                        {"depends_on", strings("Ids it waits on")},
                        {"undepend", strings("Ids it no longer waits on")},
                        {"steps", strings("Steps to add")},
                        {"acceptance", strings("Criteria to add")},
                        {"tasks", std::move(tasks)},
                        {"force", boolean("Complete despite open deps")}});
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
         object(entry_properties("Task id (or meta/...)", str_enum("Status", status_names(kTaskStatuses))),
                {"task", "status"})},
        {"checkpoint",
         object(entry_properties("Task id", str_enum("New status", status_names(kCheckpointStatuses))),
                {"task", "status"})},
        {"ready", object(json::object())},
        {"claim", object({{"task", str("Task id, else next ready")},
                          {"ttl", str("Lease, e.g. 45m")},
                          {"force", boolean("Take it over")}})},
        {"claims", object(json::object())},
        {"show", object({{"task", str("Task id")}}, {"task"})},
        {"release", object({{"task", str("Task id")}}, {"task"})},
        {"handoff", object({{"summary", str("Default: computed")}})},
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

// What the tool's text says: one sentence of at most kMaxSentence bytes,
// ending with a period.
std::string sentence(const std::string& text) {
    std::string out = one_line(text, kMaxSentence - 1);
    if (out.empty() || std::string_view(".!?").find(out.back()) == std::string_view::npos) out += '.';
    return out;
}

// "3 tasks ready: task-2 Design API; task-4 Write docs; 1 more." as many
// items as fit in one sentence, the rest counted.
std::string listing(const std::string& head, const std::vector<std::string>& items) {
    std::string out = head;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string item = one_line(items[i], 80);
        const std::string rest = i + 1 < items.size() ? "; " + std::to_string(items.size() - i - 1) + " more" : "";
        const std::string next = out + (i ? "; " : ": ") + item;
        if (next.size() + 1 > kMaxSentence || (!rest.empty() && next.size() + rest.size() + 1 > kMaxSentence)) {
            out += (i ? "; " : ": ") + std::to_string(items.size() - i) + " more";
            return out + ".";
        }
        out = next;
    }
    return sentence(out);
}

std::string plural(std::size_t n, const std::string& word, const std::string& words) {
    return std::to_string(n) + " " + (n == 1 ? word : words);
}

// The library's CLI words in MCP's (mcp/cli_words): the strings of `list`.
void list_in_mcp_words(json& list, std::string_view tool) {
    if (!list.is_array()) return;
    for (json& item : list) {
        if (item.is_string()) item = in_mcp_words(item.get<std::string>(), tool);
    }
}

ToolResult success(const std::string& command, json body, const std::string& text) {
    ToolResult r;
    r.structured = with_envelope(std::move(body), command, kExitOk);
    r.text = sentence(text);
    return r;
}

// A write's answer as an agent reads it: the CLI's own result line and the
// first warning, in one sentence, while the whole --json document is the
// structuredContent; its warnings in MCP's words.
ToolResult written(const std::string& tool, const std::string& command, json body, std::string line) {
    if (body.contains("warnings")) list_in_mcp_words(body["warnings"], tool);
    const json warnings = body.value("warnings", json::array());
    if (!warnings.empty()) {
        const json& first = warnings.front();
        line += warnings.size() == 1 ? "; warning: " : "; " + std::to_string(warnings.size()) + " warnings, first: ";
        line += first.is_string() ? first.get<std::string>() : in_mcp_words(first.value("message", dump(first)), tool);
    }
    return success(command, std::move(body), line);
}

// The failure as the CLI prints it ("Error: ...", "    Fix: ..."), and its
// --json document, in MCP's words.
ToolResult failure(const std::string& tool, const std::string& command, Error error) {
    error.message = in_mcp_words(error.message, tool);
    error.hint = in_mcp_words(error.hint, tool);
    ToolResult r;
    r.structured = with_envelope(error_document(error), command, exit_code_for(error.kind));
    r.text = "Error: " + error.describe();
    if (!error.rule.empty()) r.text += " [" + error.rule + "]";
    if (!error.hint.empty()) r.text += "\n    Fix: " + error.hint;
    r.is_error = true;
    return r;
}
ToolResult failure(const std::string& command, const Error& error) { return failure(command, command, error); }

std::optional<std::string> opt(const json& args, const char* key) {
    const auto it = args.find(key);
    if (it == args.end()) return std::nullopt;
    return it->get<std::string>();
}
std::string req(const json& args, const char* key) { return opt(args, key).value_or(""); }
bool flag(const json& args, const char* key) { return args.value(key, false); }
std::vector<std::string> texts(const json& args, const char* key) {
    return args.value(key, std::vector<std::string>{});
}

// --- how long an answer holds (issue 39) ---

// Until when the clock leaves an answer built from the claims table as it
// is (leases, their dates, the table's age); nullopt when the table has
// records left out, which a later clock may accept.
std::optional<Instant> claims_horizon(const ToolContext& ctx) {
    std::vector<std::string> left_out;
    const Result<ClaimTable> table = read_claim_table(ctx.fs, locate_claim_store(ctx.fs, ctx.ws), &left_out);
    if (!table || !left_out.empty()) return std::nullopt;
    return claims_steady_until(*table, ctx.asked_at, this_host_name());
}

// A verdict reads the clock only for INV-R8 (an entry too far ahead of it),
// which a later clock can only clear: without that finding it holds.
std::optional<Instant> verdict_horizon(const Verdict& verdict) {
    for (const Finding& f : verdict.all_findings()) {
        if (f.rule == "INV-R8") return std::nullopt;
    }
    return kSteadyForever;
}

// --- the tools ---

// "Plan: 5 tasks (2 completed, 1 in_progress, 2 pending); next: task-3; run
// 1a2b3c4d5e6f7a8b...; 5 recent entries."
std::string status_sentence(const StatusReport& r) {
    if (!r.small_dir_exists) return "No .small/ here: call init to create the workspace.";
    std::string line;
    if (r.plan) {
        std::string counts;
        for (const auto& [status, n] : r.plan->tasks_by_status) {
            if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + status;
        }
        line = "Plan: " + plural(r.plan->total_tasks, "task", "tasks") + (counts.empty() ? "" : " (" + counts + ")");
    } else {
        line = "No readable plan";
    }
    if (!r.next_task.empty()) line += "; next: " + r.next_task;
    if (!r.stop.empty()) {  // "stop: task-3 waits on a human (…)", without the ending
        std::string_view stop = r.stop;
        for (const std::string_view ending : {kStopWriteHandoff, kStopHandoffWritten}) {
            if (stop.ends_with(ending)) stop.remove_suffix(ending.size());
        }
        line += "; " + std::string(stop);
    }
    if (!r.blocked.empty()) line += "; " + plural(r.blocked.size(), "task", "tasks") + " blocked";
    if (!r.replay_id.empty()) line += "; run " + r.replay_id.substr(0, 16) + "...";
    line += "; " + plural(r.recent.size(), "recent entry", "recent entries") + (r.more_progress ? " (more in the log)" : "");
    if (!r.problems.empty()) line += "; " + plural(r.problems.size(), "problem", "problems") + ", first: " + r.problems.front().message;
    return line;
}

ToolResult status_tool(const json& args, const ToolContext& ctx) {
    StatusOptions options;
    if (const auto it = args.find("recent"); it != args.end()) options.recent = it->get<std::size_t>();  // 1..50
    Result<StatusReport> r = status_command(ctx.fs, ctx.ws, options);
    if (r) return success("status", status_json(&*r, "v" + ctx.version, false), status_sentence(*r));
    // As `status --json` answers: the report's keys (nothing found) plus the error.
    ToolResult failed = failure("status", r.error());
    json body = status_json(nullptr, "v" + ctx.version, false);
    body.update(failed.structured);
    failed.structured = std::move(body);
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
        // The CLI's TASK:DEP form is the tool's task and a list (one form for ids: arrays).
        if (action.tool == "plan" && arg.name == "undepend" && arg.value.find(':') != std::string::npos) {
            const std::string task = arg.value.substr(0, arg.value.find(':'));
            const json deps = json::array({arg.value.substr(task.size() + 1)});
            arguments["task"] = in_order["task"] = task;
            arguments["undepend"] = in_order["undepend"] = deps;
            continue;
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
    r.steady_until = claims_horizon(ctx);  // the primer's claim lines and the resume point
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

std::string joined_ids(const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
    return out;
}

// The items of a list argument: none blank (the schema cannot say so).
std::optional<std::string> blank_item(const json& args) {
    for (const char* key : {"depends_on", "undepend", "steps", "acceptance"}) {
        for (const std::string& item : texts(args, key)) {
            if (trim(item).empty()) return std::string("plan: argument '") + key + "' has a blank item; give text in each";
        }
    }
    return std::nullopt;
}

ToolResult plan_tool(const json& args, const ToolContext& ctx) {
    const auto refuse = [](const std::string& why) { return failure("plan", Error::usage(why)); };
    if (const auto blank = blank_item(args)) return refuse(*blank);
    for (const char* key : {"status", "title", "undepend"}) {
        if (args.contains(key) && !args.contains("task")) {
            return refuse(std::string("plan: argument '") + key + "' needs 'task': name the task to change");
        }
    }
    PlanRequest req;
    req.origin = PlanOrigin::McpPlanTool;
    const std::optional<std::string> add = opt(args, "add");
    if (add) req.add.push_back(*add);
    const std::string task = small::mcp::req(args, "task");
    if (const auto status = opt(args, "status")) {
        for (const PlanStatusFlag& f : kPlanStatusFlags) {
            if (status_name(f.status) == *status) (req.*f.ids).push_back(task);
        }
    }
    if (const auto title = opt(args, "title")) req.retitle.emplace_back(task, *title);
    // steps, acceptance and depends_on go to task, else to the task add adds.
    const std::vector<std::string> steps = texts(args, "steps"), acceptance = texts(args, "acceptance"),
                                   depends = texts(args, "depends_on");
    const bool items = !steps.empty() || !acceptance.empty() || !depends.empty();
    if (items && args.contains("task") && add) {
        return refuse("plan: steps, acceptance and depends_on go to one task: give task (an existing one) or add (a new one), "
                      "not both");
    }
    if (items && !args.contains("task") && !add) {
        return refuse("plan: steps, acceptance and depends_on need the task they go to: give task, or add for a new one");
    }
    if (add) {
        req.added_steps = steps;
        req.added_acceptance = acceptance;
        req.added_depends = depends;
    } else {
        for (const std::string& s : steps) req.steps.push_back(task + ":" + s);
        for (const std::string& a : acceptance) req.acceptance.push_back(task + ":" + a);
        if (!depends.empty()) req.depends.push_back(task + ":" + joined_ids(depends));
    }
    if (const std::vector<std::string> undepend = texts(args, "undepend"); !undepend.empty()) {
        req.undepend.push_back(task + ":" + joined_ids(undepend));
    }
    // The list as indented JSON, so that an error's line and column point into it.
    if (const auto it = args.find("tasks"); it != args.end()) req.from = PlanInput{it->dump(2), "tasks"};
    req.force = args.value("force", false);
    if (!add && !args.contains("status") && req.retitle.empty() && !items && !req.from && req.undepend.empty()) {
        return refuse("nothing to do: give add, tasks, or task with status, title, depends_on, undepend, steps or "
                      "acceptance");
    }
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    Result<PlanResult> r = plan_command(ctx.fs, ctx.ws, req);
    if (!r) return failure("plan", r.error());
    return written("plan", "plan", plan_json(*r, ctx.ws), plan_line(*r));
}

// `plan show TASK`: the task with every field, its dependencies, the tasks
// that wait on it and its entries of the current run.
ToolResult show_tool(const json& args, const ToolContext& ctx) {
    Result<TaskDetail> d = plan_show_task_command(ctx.fs, ctx.ws, small::mcp::req(args, "task"), kShowEntries);
    if (!d) return failure("show", "plan show", d.error());
    const TaskSummary& t = d->summary;
    std::string line = t.id + " " + t.title + ": " + t.status.word();
    std::vector<std::string> deps;
    for (const TaskDependency& dep : d->dependencies) {
        line += (deps.empty() ? "; waits on " : ", ") + dep.id + " (" + (dep.status.empty() ? "not in the plan" : dep.status.word()) + ")";
        deps.push_back(dep.id);
    }
    const auto count = [&](const char* key) { return d->task.contains(key) && d->task[key].is_array() ? d->task[key].size() : 0; };
    line += "; " + plural(count("steps"), "step", "steps") + ", " +
            plural(count("acceptance"), "acceptance criterion", "acceptance criteria") + "; " +
            plural(d->entries.entries.size(), "entry", "entries") + (d->entries.more ? " (newest shown)" : "") +
            " this run";
    return success("plan show", task_detail_json(*d), line);
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
    if (!req) return failure("progress_add", "progress add", req.error());
    Result<ProgressAddResult> r = progress_add_command(ctx.fs, ctx.ws, *req);
    if (!r) return failure("progress_add", "progress add", r.error());
    const std::string line = "progress added: " + r->entry["task_id"].get<std::string>() + " " +
                             r->entry["status"].get<std::string>() + " " + r->timestamp;
    return written("progress_add", "progress add", progress_add_json(*r, ctx.ws), line);
}

ToolResult checkpoint_tool(const json& args, const ToolContext& ctx) {
    Result<CheckpointRequest> req = entry_request<CheckpointRequest>(args, ctx, parse_checkpoint_status);
    if (!req) return failure("checkpoint", req.error());
    Result<CheckpointResult> r = checkpoint_command(ctx.fs, ctx.ws, *req);
    if (!r) return failure("checkpoint", r.error());
    json body = checkpoint_json(*r, ctx.ws);
    const std::string line = body["checkpoint"];  // "checkpoint: task-1 -> completed at ..."
    return written("checkpoint", "checkpoint", std::move(body), line);
}

// The server acts for one agent: $SMALL_AGENT (else user@host), as the CLI.
ClaimOptions claim_options(const ToolContext& ctx) {
    ClaimOptions o;
    o.scope = ctx.scope;
    o.lock_wait = default_lock_wait();
    return o;
}

// "2 tasks ready: task-2 Design API; task-4 Write docs (yours)."
ToolResult ready_tool(const json&, const ToolContext& ctx) {
    Result<ReadyResult> r = ready_command(ctx.fs, ctx.ws, claim_options(ctx));
    if (!r) return failure("ready", r.error());
    json body = ready_json(*r, current_instant());
    list_in_mcp_words(body["notes"], "ready");
    std::vector<std::string> items;
    for (const ReadyTask& t : r->tasks) items.push_back(t.id + (t.title.empty() ? "" : " " + t.title) + (t.mine ? " (yours)" : ""));
    const std::string text = items.empty()
                                 ? "No task is ready for " + r->agent + " (claims: the claims tool; waits: the status tool)"
                                 : listing(plural(items.size(), "task", "tasks") + " ready", items);
    ToolResult out = success("ready", std::move(body), text);
    out.steady_until = claims_horizon(ctx);
    // A held claim's seconds_left counts down: the answer holds for this second only.
    if (out.steady_until && !r->held.empty()) out.steady_until = std::min(*out.steady_until, Instant{ctx.asked_at.seconds + 1, 0});
    return out;
}

// "2 claims: task-2 by sdk-agent (you) until 14:05; task-4 by other until 15:00."
ToolResult claims_tool(const json&, const ToolContext& ctx) {
    Result<ClaimsResult> r = claims_command(ctx.fs, ctx.ws, claim_options(ctx));
    if (!r) return failure("claims", r.error());
    const Instant now = current_instant();
    json body = claims_json(*r, now);
    list_in_mcp_words(body["notes"], "claims");
    std::vector<std::string> items;
    for (const ClaimView& v : r->claims) {
        const char* state = v.state == LeaseState::Expired ? " [expired]" : v.state == LeaseState::FromFuture ? " [from the future]" : "";
        items.push_back(v.claim.task + " by " + v.claim.agent + (v.mine ? " (you)" : "") +
                        (v.settled ? " settled; lease ends " : " until ") +
                        lease_until_text(v.claim, now) + state);
    }
    std::string text = items.empty() ? "No claims" : listing(plural(items.size(), "claim", "claims"), items);
    if (items.empty() && !r->settled.empty()) text += "; " + plural(r->settled.size(), "task", "tasks") + " settled on some side";
    return success("claims", std::move(body), text);
}

ToolResult claim_tool(const json& args, const ToolContext& ctx) {
    std::int64_t ttl = kDefaultLeaseSeconds;
    if (const auto text = opt(args, "ttl")) {
        Result<std::int64_t> parsed = parse_lease_duration(*text);
        if (!parsed) return failure("claim", parsed.error());
        ttl = *parsed;
    }
    ClaimOptions options = claim_options(ctx);
    options.force = flag(args, "force");
    Result<ClaimResult> r = claim_command(ctx.fs, ctx.ws, small::mcp::req(args, "task"), ttl, options);
    if (!r) return failure("claim", r.error());
    const Instant now = current_instant();
    return written("claim", "claim", claim_json(*r, now), claim_line(*r, now));
}

ToolResult release_tool(const json& args, const ToolContext& ctx) {
    Result<ReleaseResult> r = release_command(ctx.fs, ctx.ws, small::mcp::req(args, "task"), claim_options(ctx));
    if (!r) return failure("release", r.error());
    return written("release", "release", release_json(*r),
                   "Released " + r->released.task + " (was held by " + r->released.agent + ")");
}

ToolResult handoff_tool(const json& args, const ToolContext& ctx) {
    HandoffRequest req;
    req.summary = opt(args, "summary");
    req.scope = ctx.scope;
    req.lock_wait = default_lock_wait();
    Result<HandoffResult> r = handoff_command(ctx.fs, ctx.ws, req);
    if (!r) return failure("handoff", r.error());
    const std::size_t steps = r->handoff["resume"]["next_steps"].size();
    const std::string line = "Generated handoff.small.yml with " + plural(steps, "next step", "next steps");
    return written("handoff", "handoff", handoff_json(*r, ctx.ws), line);
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
    return written("init", "init", init_json(*r), line);
}

// `check --strict`: a pass is one sentence; a failed verdict is a tool error
// whose text lists the findings as the CLI prints them (file:line:column:
// error: message [RULE]), their hints in MCP's words.
ToolResult check_tool(const json&, const ToolContext& ctx) {
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
    r.steady_until = verdict_horizon(verdict);
    std::size_t errors = 0, warnings = 0;
    std::string listed;
    for (const Finding& f : verdict.all_findings()) {
        const bool error = f.severity == Severity::Error;
        (error ? errors : warnings) += 1;
        const std::string where = f.location_text();
        listed += where.substr(0, where.size() - f.message.size()) + (error ? "error: " : "warning: ") +
                  in_mcp_words(f.message, "check") + " [" + f.rule + "]\n";
        if (!f.hint.empty()) listed += "    Fix: " + in_mcp_words(f.hint, "check") + "\n";
    }
    if (!r.is_error) {
        r.text = sentence(warnings ? "Check passed (" + plural(warnings, "warning", "warnings") + ": " + listed + ")"
                                   : std::string("Check passed"));
        return r;
    }
    r.text = listed + "Check failed (" + plural(errors, "error", "errors") + ")";
    return r;
}

// Each tool: the command whose --json its structuredContent is, and its call.
struct ToolRun {
    std::string_view tool;
    std::string_view command;
    ToolResult (*run)(const json& args, const ToolContext& ctx);
};
constexpr ToolRun kToolRuns[] = {
    {"resume", "status", resume_tool},
    {"status", "status", status_tool},
    {"plan", "plan", plan_tool},
    {"show", "plan show", show_tool},
    {"progress_add", "progress add", progress_add_tool},
    {"checkpoint", "checkpoint", checkpoint_tool},
    {"ready", "ready", ready_tool},
    {"claim", "claim", claim_tool},
    {"claims", "claims", claims_tool},
    {"release", "release", release_tool},
    {"handoff", "handoff", handoff_tool},
    {"init", "init", init_tool},
    {"check", "check", check_tool},
};

const ToolRun* find_run(std::string_view tool) {
    for (const ToolRun& t : kToolRuns) {
        if (t.tool == tool) return &t;
    }
    return nullptr;
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

// "a string", "an array of strings", as a sentence names a schema's type.
std::string type_text(const json& property) {
    const std::string type = property.value("type", "");
    if (type == "array") {
        const std::string items = property.contains("items") ? property["items"].value("type", "") : "";
        return items.empty() ? "an array" : "an array of " + items + "s";
    }
    return (type == "integer" || type == "array" || type == "object" ? "an " : "a ") + type;
}

std::string json_type_text(const json& value) {
    if (value.is_string()) return "a string";
    if (value.is_number_integer()) return "an integer";
    if (value.is_number()) return "a number";
    if (value.is_boolean()) return "a boolean";
    if (value.is_array()) return "an array";
    if (value.is_object()) return "an object";
    return "null";
}

std::string names_of(const json& properties) {
    std::string out;
    for (const auto& [key, _] : properties.items()) out += (out.empty() ? "" : ", ") + key;
    return out;
}

// Why `value` is not what `property` says argument `key` takes, or nothing.
std::optional<std::string> value_problem(const std::string& key, const json& property, const json& value) {
    const std::string type = property.value("type", "");
    if (!has_type(value, type)) {
        std::string why = "argument '" + key + "' must be " + type_text(property) + ", not " + json_type_text(value);
        if (type == "array" && value.is_string()) why += ": write [" + dump(value) + "]";
        if (type == "boolean" && value.is_string()) why += ": write true or false";
        if (type == "integer" && value.is_string()) why += ": write it without quotes";
        return why;
    }
    if (const auto e = property.find("enum"); e != property.end() && std::find(e->begin(), e->end(), value) == e->end()) {
        std::string values;
        for (const json& v : *e) values += (values.empty() ? "" : ", ") + v.get<std::string>();
        return "argument '" + key + "' must be one of " + values + ", not " + dump(value);
    }
    if (const auto m = property.find("minimum"); m != property.end() && integer_below(value, m->get<long long>())) {
        return "argument '" + key + "' must be at least " + m->dump() + ", not " + value.dump();
    }
    if (const auto m = property.find("maximum"); m != property.end() && integer_above(value, m->get<long long>())) {
        return "argument '" + key + "' must be at most " + m->dump() + ", not " + value.dump();
    }
    if (const auto items = property.find("items"); type == "array" && items != property.end()) {
        const std::string item_type = items->value("type", "");
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (!has_type(value[i], item_type)) {
                return "argument '" + key + "' must be " + type_text(property) + ": item " + std::to_string(i) + " is " +
                       json_type_text(value[i]);
            }
        }
    }
    return std::nullopt;
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
    if (!arguments.is_object()) return "arguments must be an object of named arguments, not " + json_type_text(arguments);
    const json& properties = schema["properties"];
    for (const auto& [key, value] : arguments.items()) {
        const auto p = properties.find(key);
        if (p == properties.end()) {
            std::vector<std::string> names;
            for (const auto& [name, _] : properties.items()) names.push_back(name);
            if (names.empty()) return "unknown argument '" + key + "': this tool takes none";
            const std::vector<std::string> close = closest_matches(key, names, 1);
            return "unknown argument '" + key + "'" + (close.empty() ? "" : " (did you mean '" + close.front() + "'?)") +
                   "; it takes " + names_of(properties);
        }
        if (auto problem = value_problem(key, *p, value)) return problem;
    }
    for (const json& key : schema.value("required", json::array())) {
        if (!arguments.contains(key.get<std::string>())) {
            std::string required;
            for (const json& r : schema["required"]) required += (required.empty() ? "" : " and ") + r.get<std::string>();
            return "missing argument '" + key.get<std::string>() + "': give " + required;
        }
    }
    const json dependent = schema.value("dependentRequired", json::object());  // kept alive for items()
    for (const auto& [key, needs] : dependent.items()) {
        if (!arguments.contains(key)) continue;
        for (const json& need : needs) {
            if (!arguments.contains(need.get<std::string>())) {
                return "argument '" + key + "' needs '" + need.get<std::string>() + "': name the " +
                       need.get<std::string>() + " it is for";
            }
        }
    }
    return std::nullopt;
}

ToolResult argument_failure(const std::string& name, const std::string& problem) {
    const ToolRun* run = find_run(name);
    return failure(name, run ? std::string(run->command) : name, Error::usage(name + ": " + problem));
}

ToolResult run_tool(const std::string& name, const json& arguments, const ToolContext& ctx) {
    const ToolRun* run = find_run(name);
    if (!run) throw std::logic_error("MCP tool " + name + " has no call");
    return run->run(arguments, ctx);
}

}  // namespace small::mcp
