// The tests' artifact texts, one place for the unit and the end-to-end tests:
//   - a minimal valid SMALL workspace (run id pinned when the metadata says so);
//   - `complete`: a finished run, three tasks done (the conformance case
//     verdict/016-intent-owner-agent with its one error, intent owner "agent",
//     corrected to "human"), with the minimal workspace's intent.
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

// workspace.small.yml of the minimal workspace, its run pinned or not.
inline std::string minimal_workspace_meta(bool with_run) {
    std::string meta = "small_version: \"1.0.0\"\nowner: \"agent\"\nkind: \"repo-root\"\n"
                       "created_at: \"2025-06-01T10:00:00.05Z\"\nupdated_at: \"2025-06-01T10:00:30.5Z\"\n";
    if (with_run) meta += std::string("run:\n  replay_id: \"") + kRunId + "\"\n";
    return meta;
}

namespace complete {

inline constexpr const char* kConstraints = R"(small_version: "1.0.0"
owner: "human"
constraints:
  - id: "no-secrets"
    rule: "No secrets in .small artifacts"
    severity: "error"
  - id: "no-prod-writes"
    rule: "No writes to production by default"
    severity: "error"
)";

inline constexpr const char* kPlan = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "Initial task"
    status: "completed"
  - id: "task-2"
    title: "Design widget"
    status: "completed"
  - id: "task-3"
    title: "Build widget"
    status: "completed"
)";

inline constexpr const char* kProgress = R"(small_version: "1.0.0"
owner: "agent"
entries:
  - timestamp: "2025-06-01T10:00:00.100000000Z"
    task_id: "meta/init"
    status: "completed"
    evidence: "Initialized .small workspace and seeded canonical artifacts"
    command: "small init"
    notes: "small init"
  - timestamp: "2025-06-01T10:00:01.100000001Z"
    task_id: "task-2"
    status: "pending"
    evidence: "Added task task-2 via small plan --add"
    notes: "Design widget"
    replayId: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
  - timestamp: "2025-06-01T10:00:02.100000002Z"
    task_id: "task-3"
    status: "pending"
    evidence: "Added task task-3 via small plan --add"
    notes: "Build widget"
    replayId: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
  - timestamp: "2025-06-01T10:00:03.100000003Z"
    task_id: "task-1"
    status: "completed"
    evidence: "Initial task done; tests pass"
    replayId: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
  - timestamp: "2025-06-01T10:00:04.100000004Z"
    task_id: "task-2"
    status: "completed"
    evidence: "Design reviewed and approved"
    replayId: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
  - timestamp: "2025-06-01T10:00:05.100000005Z"
    task_id: "task-3"
    status: "completed"
    evidence: "Widget built; make test passes"
    replayId: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
)";

inline constexpr const char* kHandoff = R"(small_version: "1.0.0"
owner: "agent"
summary: "Run complete. strict check passed. All plan tasks completed."
resume:
  next_steps: []
links: []
replayId:
  value: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
  source: "auto"
)";

inline constexpr const char* kWorkspace = R"(small_version: "1.0.0"
owner: "agent"
kind: "repo-root"
created_at: "2025-06-01T10:00:00.05Z"
updated_at: "2025-06-01T10:00:30.5Z"
run:
  replay_id: "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"
)";

}  // namespace complete

}  // namespace small::test_fixtures
