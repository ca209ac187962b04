// Drafts of the human-owned artifacts (intent, constraints): their names,
// and why accept would refuse one. Shared by draft and accept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"
#include "small/check/finding.hpp"
#include "small/model/workspace.hpp"

namespace small {

// The artifacts a draft may replace (the human-owned ones).
enum class DraftKind { Intent, Constraints };
inline constexpr DraftKind kDraftKinds[] = {DraftKind::Intent, DraftKind::Constraints};

std::string_view draft_kind_name(DraftKind kind);  // "intent"
ArtifactType draft_artifact(DraftKind kind);
// Usage error for anything but "intent" / "constraints".
Result<DraftKind> parse_draft_kind(std::string_view text);
// ".small-cache/drafts/intent.small.yml"
std::string draft_relative_path(DraftKind kind);

// Whether --from names standard input: "-" or "stdin" (any case).
bool is_stdin_source(std::string_view from);

// Why accept would refuse `bytes` as the `kind` artifact: YAML errors
// (rule LOAD), schema violations (SCHEMA) and invariants, strict hygiene
// included (INV-*, SEC, LINK). Located in `display` (the draft's name);
// sorted by line. Empty: the draft can be accepted.
std::vector<Finding> check_draft(DraftKind kind, const std::string& bytes, const std::string& display);

}  // namespace small
