// Test helper: a valid SMALL workspace held as text, mutated one file at a
// time, materialised in a MemoryFileSystem under /ws/.small/.
//
// The baseline is the conformance case verdict/016-intent-owner-agent with
// its one deliberate error (intent owner "agent") corrected to "human".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/minimal_workspace.hpp"
#include "small/base/filesystem.hpp"
#include "small/check/finding.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml.hpp"

namespace small::testing {

using small::test_fixtures::kIntent;
using small::test_fixtures::kRunId;
inline constexpr const char* kOtherRunId = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

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

// The built-in schemas, compiled once per test binary.
inline const SchemaSet& builtin_schemas() {
    static const SchemaSet set = [] {
        Result<SchemaSet> r = SchemaSet::embedded();
        if (!r.ok()) {
            ADD_FAILURE() << r.error().describe();
            std::abort();
        }
        return std::move(r).value();
    }();
    return set;
}

// Display names as seen from the workspace root (cwd = /ws).
inline std::string shown(std::string_view name) { return ".small/" + std::string(name) + ".small.yml"; }

// 1-based number of the line holding the `nth` (0-based) occurrence of
// `needle` in `text`; 0 when absent.
inline unsigned line_of(std::string_view text, std::string_view needle, int nth = 0) {
    std::size_t pos = std::string_view::npos;
    std::size_t from = 0;
    for (int i = 0; i <= nth; ++i) {
        pos = text.find(needle, from);
        if (pos == std::string_view::npos) return 0;
        from = pos + 1;
    }
    return static_cast<unsigned>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n')) + 1;
}

inline bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

inline std::string describe(const std::vector<Finding>& findings) {
    std::string out;
    for (const Finding& f : findings) {
        out += "  [" + f.rule + "] " + f.file + ":" + std::to_string(f.mark.line) + ":" +
               std::to_string(f.mark.column) + ": " + f.message + "\n";
    }
    return out.empty() ? "  (no findings)\n" : out;
}

inline std::vector<std::string> rules_of(const std::vector<Finding>& findings) {
    std::vector<std::string> out;
    for (const Finding& f : findings) out.push_back(f.rule);
    return out;
}

inline std::vector<Finding> with_rule(const std::vector<Finding>& findings, std::string_view rule) {
    std::vector<Finding> out;
    for (const Finding& f : findings) {
        if (f.rule == rule) out.push_back(f);
    }
    return out;
}

// A workspace as six texts, keyed by short name ("intent", ..., "workspace").
class TestWorkspace {
public:
    TestWorkspace() {
        files_["intent"] = kIntent;
        files_["constraints"] = kConstraints;
        files_["plan"] = kPlan;
        files_["progress"] = kProgress;
        files_["handoff"] = kHandoff;
        files_["workspace"] = kWorkspace;
    }

    std::string& text(const std::string& name) { return files_.at(name); }
    void set(const std::string& name, std::string contents) { files_[name] = std::move(contents); }
    void remove(const std::string& name) { files_.erase(name); }

    // Replaces the first occurrence of `from`; the test fails if there is none.
    void replace(const std::string& name, std::string_view from, std::string_view to) {
        std::string& t = files_.at(name);
        const auto pos = t.find(from);
        ASSERT_NE(pos, std::string::npos) << "mutation target not found in " << name << ": " << from;
        t.replace(pos, from.size(), to);
    }
    void append(const std::string& name, std::string_view more) { files_.at(name) += more; }

    // Extra paths under /ws/.small/ (relative names), e.g. "notes.txt".
    void add_extra_file(const std::string& rel, std::string contents = "x\n") { extra_files_[rel] = std::move(contents); }
    void add_extra_dir(const std::string& rel) { extra_dirs_.push_back(rel); }

    // Writes everything into a fresh MemoryFileSystem under /ws/.small/.
    MemoryFileSystem fs() const {
        MemoryFileSystem out;
        out.add_directory("/ws");
        out.add_directory("/ws/.small");
        for (const auto& [name, contents] : files_) out.add_file("/ws/.small/" + name + ".small.yml", contents);
        for (const auto& [rel, contents] : extra_files_) out.add_file("/ws/.small/" + rel, contents);
        for (const auto& rel : extra_dirs_) out.add_directory("/ws/.small/" + rel);
        return out;
    }

    static WorkspacePaths paths(const FileSystem& fs) { return locate_workspace(fs, std::string("/ws"), "/ws"); }

    // Loads the artifacts; the test fails on any load error.
    ArtifactSet load() const {
        const MemoryFileSystem mem = fs();
        ArtifactSet set = load_artifacts(mem, paths(mem));
        for (const Error& e : set.errors) ADD_FAILURE() << "load error: " << e.describe();
        return set;
    }

    std::vector<Finding> invariants(bool strict, std::string run_replay_id = kRunId) const {
        InvariantOptions options;
        options.strict = strict;
        options.run_replay_id = std::move(run_replay_id);
        return check_invariants(load(), options);
    }

private:
    std::map<std::string, std::string> files_;
    std::map<std::string, std::string> extra_files_;
    std::vector<std::string> extra_dirs_;
};

}  // namespace small::testing
