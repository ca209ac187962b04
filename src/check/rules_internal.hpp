// Shared plumbing for the rule files (not part of the public API).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/check/finding.hpp"
#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/model/workspace.hpp"

namespace small::rules {

// Collects findings about one file.
class Reporter {
public:
    Reporter(std::vector<Finding>& out, std::string file, int order) : out_(out), file_(std::move(file)), order_(order) {}

    // `at` locates the finding; when it is invalid, `fallback` is used.
    void error(std::string_view rule, NodeRef at, std::string message, std::string hint = {}, NodeRef fallback = {});
    // A finding that does not fail the verdict (exit codes stay the reference's).
    void warning(std::string_view rule, NodeRef at, std::string message, std::string hint = {});
    const std::string& file() const { return file_; }

private:
    std::vector<Finding>& out_;
    std::string file_;
    int order_;
};

bool is_blank(NodeRef node);  // absent, null, or a blank string
// A value as shown in messages: strings quoted, others as written.
std::string show(NodeRef node);
// Mark of a mapping member's key (better than its value for "this field").
Mark key_mark(NodeRef mapping, std::string_view key);

void check_global(NodeRef root, ArtifactType type, Reporter& r);
void check_intent(NodeRef root, Reporter& r);
void check_constraints(NodeRef root, Reporter& r);
void check_plan(NodeRef root, Reporter& r);
// `now`: the clock an entry dated in the future is compared with (INV-R8).
void check_progress(NodeRef root, Instant now, Reporter& r);
void check_handoff(NodeRef root, Reporter& r);

void check_secrets_and_links(NodeRef root, ArtifactType type, Reporter& r);
void check_cross_artifact(const ArtifactSet& set, const InvariantOptions& options, std::vector<Finding>& out);

}  // namespace small::rules
