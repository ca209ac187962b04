// Findings and verdicts as JSON (see the header).
#include "small/report/findings.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "small/base/path.hpp"
#include "small/base/version.hpp"
#include "small/model/replay_id.hpp"
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

// ---------------------------------------------------------------- SARIF

namespace {

// The schema OASIS publishes for SARIF 2.1.0 (errata 01), as code scanning and viewers expect.
constexpr std::string_view kSarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

// RFC 3986: a path's bytes outside the unreserved set and '/' percent-encoded.
std::string uri_path(std::string_view path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out += c;
        } else {
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
    return out;
}

nlohmann::json artifact_location(const std::string& file) {
    if (is_absolute_path(file)) return {{"uri", "file://" + uri_path(file)}};
    return {{"uri", uri_path(file)}, {"uriBaseId", "%SRCROOT%"}};
}

nlohmann::json sarif_result(const Finding& f, std::size_t rule_index) {
    std::string text = f.message;
    if (!f.hint.empty()) text += "\nFix: " + f.hint;
    nlohmann::json physical = {{"artifactLocation", artifact_location(f.file)}};
    if (f.mark.line > 0) {
        physical["region"] = {{"startLine", f.mark.line}};
        if (f.mark.column > 0) physical["region"]["startColumn"] = f.mark.column;
    }
    nlohmann::json result = {{"ruleId", f.rule},
                             {"ruleIndex", rule_index},
                             {"level", f.severity == Severity::Error ? "error" : "warning"},
                             {"message", {{"text", text}}}};
    if (!f.file.empty()) result["locations"] = nlohmann::json::array({{{"physicalLocation", physical}}});
    if (!f.pointer.empty()) result["properties"] = {{"pointer", f.pointer}};
    return result;
}

nlohmann::json sarif_rule(const std::string& id) {
    nlohmann::json rule = {{"id", id}};
    const std::string_view summary = rule_summary(id);
    if (!summary.empty()) rule["shortDescription"] = {{"text", std::string(summary)}};
    rule["help"] = {{"text", "See docs/rules.md (" + id + ") in small's documentation."}};
    return rule;
}

// Workflow command escaping: the message part, and a property's value.
std::string escape_data(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '%') out += "%25";
        else if (c == '\r') out += "%0D";
        else if (c == '\n') out += "%0A";
        else out += c;
    }
    return out;
}

std::string escape_property(std::string_view text) {
    std::string out;
    for (const char c : escape_data(text)) {
        if (c == ':') out += "%3A";
        else if (c == ',') out += "%2C";
        else out += c;
    }
    return out;
}

}  // namespace

nlohmann::json findings_sarif(const std::vector<Finding>& findings, const SarifRun& run) {
    std::map<std::string, std::size_t> rule_index;
    nlohmann::json rules = nlohmann::json::array();
    nlohmann::json results = nlohmann::json::array();
    for (const Finding& f : findings) {
        const auto [it, added] = rule_index.emplace(f.rule, rules.size());
        if (added) rules.push_back(sarif_rule(f.rule));
        results.push_back(sarif_result(f, it->second));
    }
    // Exit 2 is a workspace that could not be judged (WS-1, IO): not a successful run.
    nlohmann::json invocation = {{"executionSuccessful", run.failure.empty() && run.exit_code != 2},
                                 {"exitCode", run.exit_code}};
    if (!run.failure.empty()) {
        invocation["toolExecutionNotifications"] =
            nlohmann::json::array({{{"level", "error"}, {"message", {{"text", run.failure}}}}});
    }
    nlohmann::json driver = {{"name", "small"},
                             {"semanticVersion", std::string(tool_version())},
                             {"rules", rules}};
    nlohmann::json out = {
        {"$schema", std::string(kSarifSchema)},
        {"version", "2.1.0"},
        {"runs", nlohmann::json::array({{{"tool", {{"driver", driver}}},
                                         {"originalUriBaseIds",
                                          {{"%SRCROOT%", {{"uri", "file://" + uri_path(normal_dir_path(run.base_dir)) + "/"}}}}},
                                         {"invocations", nlohmann::json::array({invocation})},
                                         // Columns count characters (code points), not SARIF's default UTF-16 units.
                                         {"columnKind", "unicodeCodePoints"},
                                         {"results", results}}})}};
    return out;
}

nlohmann::json findings_code_quality(const std::vector<Finding>& findings) {
    nlohmann::json out = nlohmann::json::array();
    for (const Finding& f : findings) {
        std::string description = f.rule + ": " + f.message;
        if (!f.hint.empty()) description += " (fix: " + f.hint + ")";
        const std::string identity = f.rule + "\n" + f.file + "\n" + std::to_string(f.mark.line) + "\n" +
                                     std::to_string(f.mark.column) + "\n" + f.message;
        out.push_back({{"description", description},
                       {"check_name", f.rule},
                       {"fingerprint", sha256_hex(identity)},
                       {"severity", f.severity == Severity::Error ? "major" : "minor"},
                       {"location", {{"path", f.file}, {"lines", {{"begin", std::max<unsigned>(f.mark.line, 1)}}}}}});
    }
    return out;
}

std::string github_annotations(const std::vector<Finding>& findings) {
    std::string out;
    for (const Finding& f : findings) {
        out += f.severity == Severity::Error ? "::error " : "::warning ";
        std::string props;
        if (!f.file.empty()) {  // a line without a file means nothing to the runner
            props += "file=" + escape_property(f.file);
            if (f.mark.line > 0) props += ",line=" + std::to_string(f.mark.line);
            if (f.mark.line > 0 && f.mark.column > 0) props += ",col=" + std::to_string(f.mark.column);
        }
        props += std::string(props.empty() ? "" : ",") + "title=" + escape_property(f.rule);
        std::string message = f.message;
        if (!f.hint.empty()) message += "\nFix: " + f.hint;
        out += props + "::" + escape_data(message) + "\n";
    }
    return out;
}

nlohmann::json error_document(const Error& error) {
    nlohmann::json doc = error_json(error_kind_name(error.kind), error.describe());
    if (!error.file.empty()) {
        // The same finding object as the gates print: a rule id (LOAD/IO
        // when the error has none), a severity, no empty hint.
        Finding f = finding_from_error(error, 0);
        if (!error.rule.empty()) f.rule = error.rule;
        f.hint = error.hint;
        doc["errors"] = nlohmann::json::array({finding_json(f)});
    }
    return doc;
}

}  // namespace small
