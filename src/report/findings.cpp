// Findings and verdicts as JSON (see the header).
#include "small/report/findings.hpp"

#include "small/report/envelope.hpp"

namespace small {

namespace {

std::vector<Finding> split(const std::vector<Finding>& all, Severity severity) {
    std::vector<Finding> out;
    for (const Finding& f : all) {
        if (f.severity == severity) out.push_back(f);
    }
    return out;
}

nlohmann::json verdict_error(const Verdict& v, const Finding& first) {
    return {{"kind", v.outcome == VerdictOutcome::SystemError ? "system" : "invalid"},
            {"message", first.location_text()}};
}

}  // namespace

nlohmann::json finding_json(const Finding& f) {
    nlohmann::json j = {{"rule", f.rule},
                        {"severity", f.severity == Severity::Error ? "error" : "warning"},
                        {"file", f.file},
                        {"line", f.mark.line},
                        {"column", f.mark.column},
                        {"message", f.message}};
    if (!f.pointer.empty()) j["pointer"] = f.pointer;
    if (!f.hint.empty()) j["hint"] = f.hint;
    return j;
}

nlohmann::json findings_json(const std::vector<Finding>& findings) {
    nlohmann::json out = nlohmann::json::array();
    for (const Finding& f : findings) out.push_back(finding_json(f));
    return out;
}

nlohmann::json check_json(const Verdict& v, int exit_code) {
    nlohmann::json doc = nlohmann::json::object();
    for (const StageResult& stage : v.stages) {
        nlohmann::json s = {{"status", stage_status_name(stage.status)}};
        nlohmann::json errors = nlohmann::json::array();
        for (const Finding& f : stage.findings) {
            if (f.severity == Severity::Error) errors.push_back(f.location_text());
        }
        if (!errors.empty()) s["errors"] = errors;
        s["findings"] = findings_json(stage.findings);
        doc[stage.name] = s;
    }
    for (const char* name : {"validate", "lint", "verify"}) {
        if (!doc.contains(name)) doc[name] = {{"status", v.blocking.empty() ? "skipped" : "error"}};
    }
    if (!v.blocking.empty()) doc["findings"] = findings_json(v.blocking);
    // D16: every error, as objects (all_findings already holds the blocking ones).
    const std::vector<Finding> errors = split(v.all_findings(), Severity::Error);
    doc["errors"] = findings_json(errors);
    if (exit_code != kExitOk && !errors.empty()) doc["error"] = verdict_error(v, errors.front());
    return doc;
}

nlohmann::json verdict_json(const Verdict& v, int exit_code, const WorkspacePaths& ws,
                            const std::string* schema_source) {
    const std::vector<Finding> all = v.all_findings();
    const std::vector<Finding> errors = split(all, Severity::Error);
    nlohmann::json doc = {{"workspace", ws.root},
                          {"errors", findings_json(errors)},
                          {"warnings", findings_json(split(all, Severity::Warning))}};
    if (schema_source) doc["schemas"] = *schema_source;
    if (exit_code != kExitOk && !all.empty()) doc["error"] = verdict_error(v, errors.empty() ? all.front() : errors.front());
    return doc;
}

}  // namespace small
