// Drafts (see the header).
#include "small/check/draft_check.hpp"

#include <iterator>
#include <utility>

#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/doc/yaml.hpp"

namespace small {

std::string_view draft_kind_name(DraftKind kind) { return artifact_name(draft_artifact(kind)); }

ArtifactType draft_artifact(DraftKind kind) {
    return kind == DraftKind::Intent ? ArtifactType::Intent : ArtifactType::Constraints;
}

Result<DraftKind> parse_draft_kind(std::string_view text) {
    for (DraftKind kind : kDraftKinds) {
        if (text == draft_kind_name(kind)) return kind;
    }
    return Error::usage("unknown draft kind \"" + std::string(text) +
                        "\" (use intent or constraints; the agent-owned artifacts have their own commands)");
}

std::string draft_relative_path(DraftKind kind) {
    return std::string(kDraftsDirName) + "/" + artifact_file_name(draft_artifact(kind));
}

bool is_stdin_source(std::string_view from) {
    const std::string word = lower_ascii(trim(from));
    return word == "-" || word == "stdin";
}

namespace {

Finding load_finding(ArtifactType type, const std::string& display, std::string message, Mark mark = {}) {
    Finding f;
    f.rule = "LOAD";
    f.file = display;
    f.file_order = file_order(type);
    f.mark = mark;
    f.message = std::move(message);
    return f;
}

void append_draft_findings(std::vector<Finding>& to, std::vector<Finding> from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Schema and invariants (strict: a secret should not enter .small/ at all).
std::vector<Finding> artifact_findings(Artifact artifact) {
    const ArtifactType type = artifact.type;
    ArtifactSet set;
    set.artifacts[static_cast<std::size_t>(type)] = std::move(artifact);
    std::vector<Finding> out;
    Result<SchemaSet> schemas = SchemaSet::embedded();
    if (schemas) append_draft_findings(out, check_schemas(*schemas, set));
    else out.push_back(finding_from_error(schemas.error(), file_order(type)));
    InvariantOptions strict;
    strict.strict = true;
    append_draft_findings(out, check_invariants(set, strict));
    sort_findings(out);
    return out;
}

}  // namespace

std::vector<Finding> check_draft(DraftKind kind, const std::string& bytes, const std::string& display) {
    const ArtifactType type = draft_artifact(kind);
    Result<Document> doc = parse_yaml(bytes, display);
    if (!doc) return {finding_from_error(doc.error(), file_order(type))};
    const NodeRef root = doc->root();
    if (!root.valid()) return {load_finding(type, display, "the draft has no content", {1, 1})};
    if (!root.is_mapping()) {
        return {load_finding(type, display,
                             std::string("the draft must be a YAML mapping (object) at top level, got a ") +
                                 kind_name(root.kind()),
                             root.mark())};
    }
    return artifact_findings(Artifact{type, display, display, std::move(*doc)});
}

}  // namespace small
