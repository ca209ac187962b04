// A minimal valid SMALL workspace as file texts, shared by the draft/accept
// unit and end-to-end tests (run id pinned when the metadata says so).
#pragma once

#include <string>

namespace small::test_fixtures {

inline constexpr const char* kRunId = "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941";

inline const std::string kIntent = R"(small_version: "1.0.0"
owner: "human"
intent: "Build a widget"
scope:
  include: []
  exclude: []
success_criteria: []
)";

inline const std::string kConstraints = R"(small_version: "1.0.0"
owner: "human"
constraints:
  - id: "no-secrets"
    rule: "No secrets in .small artifacts"
    severity: "error"
)";

inline const std::string kPlan = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "Initial task"
)";

inline const std::string kProgress = R"(small_version: "1.0.0"
owner: "agent"
entries:
  - timestamp: "2025-06-01T10:00:00.100000000Z"
    task_id: "meta/init"
    status: "completed"
    evidence: "Initialized"
)";

inline const std::string kHandoff = std::string(R"(small_version: "1.0.0"
owner: "agent"
summary: "Started."
resume:
  next_steps: []
links: []
replayId:
  value: ")") + kRunId + R"("
  source: "auto"
)";

}  // namespace small::test_fixtures
