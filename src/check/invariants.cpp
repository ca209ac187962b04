// Entry points of the rule engine: schema findings, invariants, the strict
// layout rule S4, small_version quoting and verify's own checks.
#include "small/check/invariants.hpp"

#include <algorithm>
#include <set>

#include "rules_internal.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/model/replay_id.hpp"

namespace small {

int file_order(ArtifactType type) { return static_cast<int>(type); }

std::vector<Finding> check_invariants(const ArtifactSet& set, const InvariantOptions& options) {
    std::vector<Finding> out;
    const Instant now = options.now.value_or(current_instant());
    for (ArtifactType type : kArtifactTypes) {
        const Artifact* artifact = set.get(type);
        if (!artifact) continue;
        rules::Reporter r(out, artifact->display, file_order(type));
        const NodeRef root = artifact->doc.root();
        rules::check_global(root, type, r);
        switch (type) {
            case ArtifactType::Intent: rules::check_intent(root, r); break;
            case ArtifactType::Constraints: rules::check_constraints(root, r); break;
            case ArtifactType::Plan: rules::check_plan(root, r); break;
            case ArtifactType::Progress: rules::check_progress(root, now, r); break;
            case ArtifactType::Handoff: rules::check_handoff(root, r); break;
        }
        if (options.strict) rules::check_secrets_and_links(root, type, r);
    }
    if (options.before && set.get(ArtifactType::Progress) &&
        !continues_prefix(*options.before, set.root(ArtifactType::Progress).find("entries"), now)) {
        if (options.undecided) *options.undecided = true;
    }
    if (options.strict) rules::check_cross_artifact(set, options, out);
    sort_findings(out);
    return out;
}

std::vector<Finding> check_schemas(const SchemaSet& schemas, const ArtifactSet& set) {
    std::vector<Finding> out;
    for (ArtifactType type : kArtifactTypes) {
        const Artifact* artifact = set.get(type);
        if (!artifact) continue;
        for (const SchemaViolation& v : schemas.validate(artifact_name(type), artifact->doc)) {
            Finding f;
            f.rule = "SCHEMA";
            f.file = artifact->display;
            f.file_order = file_order(type);
            f.mark = v.mark;
            f.pointer = v.pointer;
            f.message = "schema: " + (v.pointer.empty() ? std::string("(document)") : excerpt(v.pointer)) + ": " + v.message;
            out.push_back(std::move(f));
        }
    }
    sort_findings(out);
    return out;
}

Result<LayoutScan> scan_layout(const FileSystem& fs, const WorkspacePaths& ws) {
    static const std::set<std::string> allowed = {"intent.small.yml",   "constraints.small.yml", "plan.small.yml",
                                                  "progress.small.yml", "handoff.small.yml",     "workspace.small.yml"};
    Result<std::vector<DirEntry>> listing = fs.list_directory(ws.small_dir);
    if (!listing) return listing.error();
    LayoutScan scan;
    for (const DirEntry& entry : *listing) {
        if (entry.is_directory && entry.name == "ext") continue;  // D9: extensions live in .small/ext/
        if (!entry.is_directory && allowed.count(entry.name)) continue;
        const std::string shown = small_relative(entry.name) + (entry.is_directory ? "/" : "");
        scan.unexpected.push_back(shown);
        if (entry.is_directory && (entry.name == "archive" || entry.name == "runs")) scan.legacy.push_back(shown);
    }
    return scan;
}

std::vector<Finding> layout_findings(const LayoutScan& scan, const WorkspacePaths& ws) {
    std::vector<Finding> out;
    if (scan.unexpected.empty()) return out;
    const auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    std::string message = "strict invariant S4 failed: unexpected paths under .small/: " + join(scan.unexpected) + ".";
    if (!scan.legacy.empty()) {
        message += " Legacy runtime layout detected: " + join(scan.legacy) +
                   ". Run small fix --runtime-layout to migrate them to .small-archive/ and .small-runs/.";
    }
    if (scan.unexpected.size() > scan.legacy.size()) message += " Delete or move remaining unexpected paths outside .small/.";
    Finding f;
    f.rule = "S4";
    f.file = ws.display_prefix + small_relative("");
    f.file_order = kSmallDirOrder;
    f.message = message;
    f.hint = "Delete or move unexpected paths outside .small/ (extensions may live in its ext/ folder) and rerun: small check --strict";
    out.push_back(std::move(f));
    return out;
}

Result<std::vector<Finding>> check_layout(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<LayoutScan> scan = scan_layout(fs, ws);
    if (!scan) return scan.error();
    return layout_findings(*scan, ws);
}

namespace {

// The value of the first `small_version:` line, comment cut, trimmed;
// nullopt when the file has no such line.
std::optional<std::pair<std::string, unsigned>> version_line(std::string_view text) {
    std::size_t pos = 0;
    unsigned line = 1;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        const std::string_view l = text.substr(pos, end - pos);
        const std::string_view body = trim(l);
        if (body.rfind("small_version:", 0) == 0) {
            std::string_view value = body.substr(14);
            // A comment starts at a '#' after white space (a '#' inside quotes is text).
            for (std::size_t i = 1; i < value.size(); ++i) {
                if (value[i] == '#' && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
                    value = value.substr(0, i);
                    break;
                }
            }
            return std::make_pair(std::string(trim(value)), line);
        }
        pos = end + 1;
        ++line;
    }
    return std::nullopt;
}

}  // namespace

std::vector<Finding> check_version_quoting(const FileSystem& fs, const WorkspacePaths& ws, const ArtifactSet& set,
                                           bool as_errors) {
    std::vector<Finding> out;
    std::vector<std::string> names;
    for (ArtifactType type : kArtifactTypes) names.push_back(artifact_file_name(type));
    names.emplace_back(kWorkspaceFileName);
    for (std::size_t i = 0; i < names.size(); ++i) {
        const Artifact* artifact = i < kArtifactTypes.size() ? set.get(kArtifactTypes[i]) : nullptr;
        Result<std::string> text = artifact ? Result<std::string>(std::string()) : fs.read_file(ws.path_of(names[i]));
        if (!text) continue;
        const auto found = version_line(artifact ? artifact->doc.source() : *text);
        if (!found) continue;
        const std::string& value = found->first;
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') continue;
        Finding f;
        f.rule = "FMT-1";
        f.severity = as_errors ? Severity::Error : Severity::Warning;
        f.file = ws.display_of(names[i]);
        f.file_order = static_cast<int>(i);
        f.mark = {found->second, 1};
        f.message = "small_version should be a quoted string";
        f.hint = "small fix --versions (or write small_version: \"1.0.0\")";
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<Finding> check_verify_rules(const ArtifactSet& set) {
    std::vector<Finding> out;
    const Artifact* handoff = set.get(ArtifactType::Handoff);
    if (!handoff) return out;
    rules::Reporter r(out, handoff->display, file_order(ArtifactType::Handoff));
    const NodeRef root = handoff->doc.root();
    const NodeRef replay = root.find("replayId");
    const std::string fix = "regenerate the handoff: small handoff";
    if (!replay.is_mapping()) {
        r.error("VER-1", replay, "handoff.small.yml must include replayId (a mapping with value and source)", fix, root);
    } else {
        const NodeRef value = replay.find("value");
        const NodeRef source = replay.find("source");
        if (rules::is_blank(value) || !value.is_string()) {
            r.error("VER-2", value, "replayId.value must be a non-empty string", fix, replay);
        } else if (!is_valid_replay_id(value.as_string())) {
            r.error("VER-3", value, "replayId.value must be a valid SHA256 hash (64 hex chars), got: " + rules::show(value), fix);
        }
        if (rules::is_blank(source) || !source.is_string()) {
            r.error("VER-4", source, "replayId.source must be a non-empty string", fix, replay);
        } else if (source.as_string() != "auto" && source.as_string() != "manual") {
            r.error("VER-5", source, "replayId.source must be one of [auto, manual], got: " + rules::show(source), fix);
        }
    }
    const NodeRef current = root.find("resume").find("current_task_id");
    if (current.is_string()) {
        const std::string id(trim(current.as_string()));
        std::set<std::string> plan_ids;
        const NodeRef tasks = set.root(ArtifactType::Plan).find("tasks");
        for (std::size_t i = 0; i < tasks.size(); ++i) plan_ids.insert(std::string(trim(tasks.item(i).find("id").scalar_text())));
        if (id.empty()) {
            r.error("VER-6", current, "handoff.resume.current_task_id must not be an empty string",
                    "use null, or rerun handoff generation: small handoff");
        } else if (id.rfind("meta/", 0) != 0 && !plan_ids.count(id)) {
            r.error("VER-7", current,
                    "handoff.resume.current_task_id " + quoted_excerpt(id) + " is not in plan.small.yml and does not use meta/",
                    "rerun handoff generation (small handoff) or update plan/progress to align");
        }
    }
    return out;
}

}  // namespace small
