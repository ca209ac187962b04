// emit's JSON body (see the header).
#include "small/report/emit.hpp"

#include <algorithm>

#include "small/base/parallel.hpp"
#include "small/doc/jcs.hpp"
#include "small/doc/node_json.hpp"
#include "small/model/plan_model.hpp"
#include "small/model/replay_id.hpp"
#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/status.hpp"

namespace small {

namespace {

// Stands for progress.entries in emit_json until emit_document_text writes them.
constexpr const char* kEntriesPlaceholder = "\x01small:progress.entries\x01";

bool has(const EmitResult& r, EmitSection s) { return r.sections.count(s) > 0; }

nlohmann::json raw(const Document& doc) { return node_to_json<nlohmann::json>(doc.root()); }

nlohmann::json paths_json(const EmitResult& r) {
    nlohmann::json artifacts = nlohmann::json::object();
    for (ArtifactType t : kArtifactTypes) artifacts[std::string(artifact_name(t))] = r.ws.artifact_path(t);
    return {{"root", r.given_root}, {"workspace", r.ws.root}, {"artifacts", artifacts}};
}

nlohmann::json status_section(const EmitResult& r) {
    return {{"totalTasks", r.plan_summary.total_tasks},
            {"tasksByStatus", r.plan_summary.tasks_by_status},
            {"nextActionable", r.plan_summary.next_actionable}};
}

nlohmann::json progress_section(const EmitResult& r) {
    nlohmann::json p = {{"recent", progress_items_json(r.recent)}};
    if (!r.last_timestamp.empty()) p["lastTimestamp"] = r.last_timestamp;
    if (r.progress_log || r.sections_named) p["entries"] = kEntriesPlaceholder;
    return p;
}

nlohmann::json intent_section(const EmitResult& r) {
    const IntentSummary& s = r.intent;
    nlohmann::json scope = nlohmann::json::object();
    if (s.include_count) scope["includeCount"] = s.include_count;
    if (s.exclude_count) scope["excludeCount"] = s.exclude_count;
    nlohmann::json j = {{"present", s.present}, {"scope", scope}};
    if (!s.small_version.empty()) j["smallVersion"] = s.small_version;
    if (!s.owner.empty()) j["owner"] = s.owner;
    if (!s.intent.empty()) j["intent"] = s.intent;
    if (s.success_criteria_count) j["successCriteriaCount"] = s.success_criteria_count;
    if (r.intent_doc) j["artifact"] = raw(*r.intent_doc);
    return j;
}

nlohmann::json constraints_section(const EmitResult& r) {
    nlohmann::json j = {{"present", r.constraints.present}};
    if (!r.constraints.ids.empty()) j["constraintIds"] = r.constraints.ids;
    if (r.constraints_doc) j["artifact"] = raw(*r.constraints_doc);
    return j;
}

// A plan task with the reference's Go field names (kept, D11) and the
// protocol's own lower-case keys beside them.
nlohmann::json task_json(const nlohmann::json& task, const std::vector<std::string>& deps) {
    const auto member = [&task](const char* key, nlohmann::json absent) {
        return task.is_object() && task.contains(key) ? task[key] : absent;
    };
    const nlohmann::json depends = deps.empty() ? nlohmann::json() : nlohmann::json(deps);
    return {{"ID", member("id", "")},
            {"Title", member("title", "")},
            {"Steps", member("steps", nullptr)},
            {"Acceptance", member("acceptance", nullptr)},
            {"Status", member("status", "")},
            {"Dependencies", depends},
            {"id", member("id", "")},
            {"title", member("title", "")},
            {"steps", member("steps", nlohmann::json::array())},
            {"acceptance", member("acceptance", nlohmann::json::array())},
            {"status", member("status", status_name(TaskStatus::Pending))},
            {"depends_on", deps}};
}

nlohmann::json plan_section(const Document& plan) {
    const NodeRef root = plan.root();
    nlohmann::json tasks = nlohmann::json::array();
    const NodeRef list = root.find("tasks");
    for (std::size_t i = 0; list.is_sequence() && i < list.size(); ++i) {
        tasks.push_back(task_json(node_to_json<nlohmann::json>(list.item(i)), task_dependencies(to_yaml_value(list.item(i)))));
    }
    nlohmann::json j = {{"tasks", tasks}};
    if (!root.find("small_version").as_string().empty()) j["smallVersion"] = std::string(root.find("small_version").as_string());
    if (!root.find("owner").as_string().empty()) j["owner"] = std::string(root.find("owner").as_string());
    return j;
}

// check's stages as the reference embedded them, with stages that did not
// run reported as "skipped" and every stage's errors in `failures`.
nlohmann::json enforcement_section(const EmitResult& r) {
    nlohmann::json j = nlohmann::json::object();
    nlohmann::json failures = nlohmann::json::array();
    for (const Finding& f : r.enforcement->blocking) failures.push_back(f.location_text());
    for (const StageResult& stage : r.enforcement->stages) {
        nlohmann::json s = {{"status", stage_status_name(stage.status)}};
        nlohmann::json errors = nlohmann::json::array();
        for (const Finding& f : stage.findings) {
            if (f.severity == Severity::Error) errors.push_back(f.location_text());
        }
        failures.insert(failures.end(), errors.begin(), errors.end());
        if (!errors.empty()) s["errors"] = errors;
        s["findings"] = findings_json(stage.findings);
        j[stage.name] = s;
    }
    for (const char* stage : {"validate", "lint", "verify"}) {
        if (!j.contains(stage)) j[stage] = {{"status", "skipped"}, {"findings", nlohmann::json::array()}};
    }
    j["exitCode"] = r.check_exit_code;
    if (!failures.empty()) j["failures"] = failures;
    j["blocking"] = findings_json(r.enforcement->blocking);
    return j;
}

// The log's entries as a JSON array, one canonical entry per line, indented
// for its place in the document (items at 6 spaces).
// One canonical JSON line per entry. The entries are independent, so a long
// log is written in chunks on all cores and joined in order.
std::string entries_text(const EmitResult& r) {
    const NodeRef entries = r.progress_log ? r.progress_log->root().find("entries") : NodeRef();
    if (!entries.is_sequence() || entries.size() == 0) return "[]";
    constexpr std::size_t kChunk = 4096;
    std::vector<std::string> chunks((entries.size() + kChunk - 1) / kChunk);
    run_parallel(chunks.size(), [&](std::size_t c) {
        std::string& out = chunks[c];
        for (std::size_t i = c * kChunk; i < std::min(entries.size(), (c + 1) * kChunk); ++i) {
            Result<std::string> entry = canonical_json(entries.item(i));  // fails only on .inf/.nan
            out += i ? ",\n      " : "\n      ";
            out += entry ? *entry : node_to_json<nlohmann::json>(entries.item(i)).dump();
        }
    });
    std::size_t size = 0;
    for (const std::string& c : chunks) size += c.size();
    std::string out;
    out.reserve(size + 16);
    out += '[';
    for (std::string& c : chunks) {
        out += c;
        std::string().swap(c);
    }
    out += "\n    ]";
    return out;
}

}  // namespace

std::string emit_document_text(const EmitResult& r, const std::string& cli_version, int exit_code) {
    std::string text = with_envelope(emit_json(r, cli_version), "emit", exit_code).dump(2) + "\n";
    // Top-level keys sit at two spaces; artifacts' content is nested deeper
    // and cannot hold a raw newline, so this finds the progress section.
    const std::size_t section = text.find("\n  \"progress\": {");
    if (section == std::string::npos) return text;
    const std::string placeholder = "\"entries\": " + nlohmann::json(kEntriesPlaceholder).dump();
    const std::size_t at = text.find(placeholder, section);
    if (at == std::string::npos) return text;
    // Assembled once: the entries of a long log are tens of megabytes.
    const std::string entries = entries_text(r);
    std::string out;
    out.reserve(text.size() + entries.size());
    out.append(text, 0, at).append("\"entries\": ").append(entries).append(text, at + placeholder.size());
    return out;
}

nlohmann::json emit_json(const EmitResult& r, const std::string& cli_version) {
    nlohmann::json doc = {{"cliVersion", cli_version}, {"specVersion", {std::string(kProtocolVersion)}}};
    if (r.kind) doc["workspace"] = std::string(workspace_kind_name(*r.kind));
    if (has(r, EmitSection::Paths)) doc["paths"] = paths_json(r);
    if (has(r, EmitSection::Status)) doc["status"] = status_section(r);
    if (has(r, EmitSection::Progress)) doc["progress"] = progress_section(r);
    if (has(r, EmitSection::Intent)) doc["intent"] = intent_section(r);
    if (has(r, EmitSection::Constraints)) doc["constraints"] = constraints_section(r);
    if (r.plan_doc) doc["plan"] = plan_section(*r.plan_doc);
    if (r.enforcement) doc["enforcement"] = enforcement_section(r);
    doc["sections"] = nlohmann::json::array();
    for (EmitSection s : r.sections) doc["sections"].push_back(std::string(emit_section_name(s)));
    doc["warnings"] = problems_json(r.problems);
    return doc;
}

}  // namespace small
