// The unit tests' fixtures, one header (issue 20, point 5):
//   - files and folders: TempDir, read_text / write_text, snapshot, contains;
//   - TempWorkspace: a real workspace (root + .small/) in a temporary folder;
//   - InitWorkspace: a workspace made by `small init --no-agents`, with the
//     request helpers the session commands' tests share;
//   - TestWorkspace: a valid workspace held as text, mutated one file at a
//     time, materialised in a MemoryFileSystem under /ws/.small/ (the
//     conformance case verdict/016-intent-owner-agent with its one error,
//     intent owner "agent", corrected to "human");
//   - Tree: a terse builder of document trees.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/artifact_texts.hpp"
#include "support/other_user.hpp"
#include "support/temp_dir.hpp"
#include "small/base/filesystem.hpp"
#include "small/check/finding.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/doc/document.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/workspace.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"
#include "small/ops/session/reset.hpp"

namespace small::testing {

// ------------------------------------------------------------------ files and folders

inline const RealFileSystem real_fs;

using test_support::as_unprivileged;
using test_support::read_text;
using test_support::TempDir;

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

// How often `needle` occurs in `text`, overlaps included.
inline std::size_t count_of(std::string_view text, std::string_view needle) {
    std::size_t n = 0;
    for (std::size_t pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos + 1)) ++n;
    return n;
}

inline std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Every file of a folder (not its subfolders) as bytes, by name.
inline std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) out[e.path().filename()] = read_text(e.path());
    return out;
}

// ------------------------------------------------------------------ TempWorkspace

// A real workspace (root + .small/) in a fresh temporary folder, for the
// tests that need the real disk (atomic writes, locks, progress appends).
class TempWorkspace {
public:
    explicit TempWorkspace(bool fast = false) : dir_(fast) {
        std::filesystem::create_directory(dir_.path(".small"));
        ws_.root = dir_.root();
        ws_.small_dir = dir_.path(".small");
        ws_.display_prefix = dir_.root() + "/";
    }

    const WorkspacePaths& ws() const { return ws_; }
    std::string path(const std::string& rel) const { return dir_.path(rel); }
    std::string log() const { return ws_.small_dir + "/progress.small.yml"; }

private:
    TempDir dir_;
    WorkspacePaths ws_;
};

using test_fixtures::minimal_workspace_meta;

// Writes the minimal valid workspace (support/artifact_texts.hpp) into `ws`.
inline void write_minimal_workspace(const WorkspacePaths& ws, bool with_run = true) {
    write_text(ws.artifact_path(ArtifactType::Intent), test_fixtures::kIntent);
    write_text(ws.artifact_path(ArtifactType::Constraints), test_fixtures::kConstraints);
    write_text(ws.artifact_path(ArtifactType::Plan), test_fixtures::kPlan);
    write_text(ws.artifact_path(ArtifactType::Progress), test_fixtures::kProgress);
    write_text(ws.artifact_path(ArtifactType::Handoff), test_fixtures::kHandoff);
    write_text(ws.path_of("workspace.small.yml"), minimal_workspace_meta(with_run));
}

// ------------------------------------------------------------------ InitWorkspace

inline constexpr const char* kOtherRun = "abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcd";

// A workspace made by `small init --no-agents` in a fresh temporary directory.
// Where a fixture's workspace lives: a temporary folder, or a MemoryFileSystem
// (for tests of what commands write, which need no folder).
enum class Disk { Real, Memory };

class InitWorkspace {
public:
    explicit InitWorkspace(std::optional<std::string> intent = std::nullopt, Disk disk = Disk::Real) {
        const std::string root = disk == Disk::Real ? dir_.root() : "/memory/ws";
        if (disk == Disk::Memory) {
            memory_ = std::make_unique<MemoryFileSystem>();
            memory_->add_directory(root);
        }
        InitRequest req;
        req.dir = root;
        req.cwd = root;
        req.no_agents = true;
        req.intent = std::move(intent);
        Result<InitResult> r = init_command(fs(), req);
        if (!r) throw std::runtime_error("init failed: " + r.error().describe());
        init_ = std::move(*r);
        ws_.root = init_.root;
        ws_.small_dir = init_.small_dir;
        ws_.display_prefix = init_.root + "/";
        ws_.from_dir_flag = true;
    }

    const FileSystem& fs() const { return memory_ ? static_cast<const FileSystem&>(*memory_) : real_fs; }
    const WorkspacePaths& ws() const { return ws_; }
    const std::string& run_id() const { return init_.replay_id; }
    std::string file(const std::string& name) const { return ws_.path_of(name); }
    std::string read(const std::string& name) const {
        Result<std::string> r = fs().read_file(file(name));
        if (!r) throw std::runtime_error(r.error().describe());
        return *r;
    }
    // A hand edit of an artifact (a whole-file replace, as an editor saves).
    void write(const std::string& name, const std::string& text) const {
        if (memory_) memory_->add_file(file(name), text);
        else write_text(file(name), text);
    }
    YamlValue value(const std::string& name) const {
        Result<Document> doc = load_yaml_file(fs(), file(name), name);
        if (!doc) throw std::runtime_error(doc.error().describe());
        return to_yaml_value(doc->root());
    }
    std::string plan_bytes() const { return read("plan.small.yml"); }
    std::string log_bytes() const { return read("progress.small.yml"); }
    std::string root_path(const std::string& rel) const { return ws_.root + "/" + rel; }

private:
    TempDir dir_;  // unused by Disk::Memory (an empty folder)
    std::unique_ptr<MemoryFileSystem> memory_;
    InitResult init_;
    WorkspacePaths ws_;
};

// The same workspace, in memory.
inline std::unique_ptr<InitWorkspace> memory_workspace(std::optional<std::string> intent = std::nullopt) {
    return std::make_unique<InitWorkspace>(std::move(intent), Disk::Memory);
}

inline YamlValue load_value(const std::string& path) {
    Result<Document> doc = load_yaml_file(real_fs, path, path);
    if (!doc) throw std::runtime_error(doc.error().describe());
    return to_yaml_value(doc->root());
}

inline YamlValue plan_of(const InitWorkspace& w) { return w.value("plan.small.yml"); }
inline YamlValue log_entries(const InitWorkspace& w) { return w.value("progress.small.yml")["entries"]; }
inline std::string pinned_run(const InitWorkspace& w) {
    return w.value("workspace.small.yml")["run"]["replay_id"].get<std::string>();
}

// `small check --strict` passes.
inline void expect_strict_ok(const InitWorkspace& w) {
    Result<SchemaSet> schemas = SchemaSet::embedded();
    ASSERT_TRUE(schemas.ok());
    VerdictOptions options;
    options.strict = true;
    const Verdict v = run_check(VerdictInput{w.fs(), w.ws(), *schemas}, options);
    std::string why;
    for (const Finding& f : v.blocking) why += f.location_text() + " [" + f.rule + "]\n";
    for (const Finding& f : v.all_findings()) why += f.location_text() + " [" + f.rule + "]\n";
    EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << why;
}

inline PlanRequest plan_req() {
    PlanRequest r;
    r.lock_wait = std::chrono::milliseconds(2000);
    return r;
}

inline CheckpointRequest checkpoint_req(const std::string& task, TaskStatus status) {
    CheckpointRequest r;
    r.task = task;
    r.status = status;
    r.evidence = "unit tests pass";
    r.lock_wait = std::chrono::milliseconds(2000);
    return r;
}

inline HandoffRequest handoff_req() {
    HandoffRequest r;
    r.lock_wait = std::chrono::milliseconds(2000);
    return r;
}

inline ResetRequest reset_req() {
    ResetRequest r;
    r.lock_wait = std::chrono::milliseconds(2000);
    return r;
}

// Every file of .small/ as bytes.
// The files of .small/, read through the workspace's own FileSystem.
inline std::map<std::string, std::string> snapshot(const InitWorkspace& w) {
    std::map<std::string, std::string> out;
    Result<std::vector<DirEntry>> entries = w.fs().list_directory(w.ws().small_dir);
    if (!entries) throw std::runtime_error(entries.error().describe());
    for (const DirEntry& e : *entries) {
        if (!e.is_directory) out[e.name] = w.read(e.name);
    }
    return out;
}

// ------------------------------------------------------------------ TestWorkspace

using small::test_fixtures::kIntent;
using small::test_fixtures::kRunId;
inline constexpr const char* kOtherRunId = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

using test_fixtures::complete::kConstraints;
using test_fixtures::complete::kHandoff;
using test_fixtures::complete::kPlan;
using test_fixtures::complete::kProgress;
using test_fixtures::complete::kWorkspace;

// `text` with its first `from` replaced by `to` (the test fails when it has none).
inline std::string mutate(std::string text, std::string_view from, std::string_view to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

// The five artifacts' fixtures above, by artifact name.
inline const std::vector<std::pair<std::string, std::string>>& baseline() {
    static const std::vector<std::pair<std::string, std::string>> docs = {
        {"intent", kIntent}, {"constraints", kConstraints}, {"plan", kPlan}, {"progress", kProgress}, {"handoff", kHandoff}};
    return docs;
}

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

// ------------------------------------------------------------------ Tree

// Terse fluent wrapper over DocumentBuilder for building test trees.
class Tree {
public:
    Tree& map() { builder_.begin_mapping({}); return *this; }
    Tree& seq() { builder_.begin_sequence({}); return *this; }
    Tree& end() { builder_.end(); return *this; }
    Tree& key(std::string_view k) { builder_.add_string(k, {}); return *this; }
    Tree& str(std::string_view v) { builder_.add_string(v, {}); return *this; }
    // `text` is how the scalar was written (kept for messages).
    Tree& integer(std::int64_t v, std::string_view text) { builder_.add_int(v, {}, text); return *this; }
    Tree& integer(std::int64_t v) { return integer(v, std::to_string(v)); }
    Tree& real(double v, std::string_view text = "<float>") { builder_.add_float(v, {}, text); return *this; }
    Tree& null() { builder_.add_null({}, "null"); return *this; }
    Tree& boolean(bool v) { builder_.add_bool(v, {}, v ? "true" : "false"); return *this; }
    Document done() { return builder_.finish(); }

private:
    DocumentBuilder builder_;
};

}  // namespace small::testing
