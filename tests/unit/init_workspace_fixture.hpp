// Operation tests on a real workspace made by `small init --no-agents` in a
// fresh temporary folder (InitWorkspace), with the helpers the session
// commands' tests share (plan, checkpoint, handoff/start/reset, run store,
// the plan and log caches).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"
#include "small/ops/session/reset.hpp"

namespace small::testing {

inline const RealFileSystem real_fs;

inline constexpr const char* kOtherRun = "abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcd";

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// A workspace made by `small init --no-agents` in a fresh temporary directory.
class InitWorkspace {
public:
    explicit InitWorkspace(std::optional<std::string> intent = std::nullopt) {
        std::string pattern = "/tmp/small-plancmd-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir_ = std::filesystem::canonical(pattern).string();
        InitRequest req;
        req.dir = dir_;
        req.cwd = dir_;
        req.no_agents = true;
        req.intent = std::move(intent);
        Result<InitResult> r = init_command(real_fs, req);
        if (!r) throw std::runtime_error("init failed: " + r.error().describe());
        init_ = std::move(*r);
        ws_.root = init_.root;
        ws_.small_dir = init_.small_dir;
        ws_.display_prefix = init_.root + "/";
        ws_.from_dir_flag = true;
    }
    ~InitWorkspace() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    InitWorkspace(const InitWorkspace&) = delete;
    InitWorkspace& operator=(const InitWorkspace&) = delete;

    const WorkspacePaths& ws() const { return ws_; }
    const std::string& run_id() const { return init_.replay_id; }
    std::string file(const std::string& name) const { return ws_.path_of(name); }
    std::string read(const std::string& name) const { return read_text(file(name)); }
    std::string plan_bytes() const { return read("plan.small.yml"); }
    std::string log_bytes() const { return read("progress.small.yml"); }
    std::string root_path(const std::string& rel) const { return ws_.root + "/" + rel; }

private:
    std::string dir_;
    InitResult init_;
    WorkspacePaths ws_;
};

inline YamlValue load_value(const std::string& path) {
    Result<Document> doc = load_yaml_file(real_fs, path, path);
    if (!doc) throw std::runtime_error(doc.error().describe());
    return to_yaml_value(doc->root());
}

inline YamlValue plan_of(const InitWorkspace& w) { return load_value(w.file("plan.small.yml")); }
inline YamlValue log_entries(const InitWorkspace& w) { return load_value(w.file("progress.small.yml"))["entries"]; }
inline std::string pinned_run(const InitWorkspace& w) {
    return load_value(w.file("workspace.small.yml"))["run"]["replay_id"].get<std::string>();
}

// `small check --strict` passes.
inline void expect_strict_ok(const InitWorkspace& w) {
    Result<SchemaSet> schemas = SchemaSet::embedded();
    ASSERT_TRUE(schemas.ok());
    VerdictOptions options;
    options.strict = true;
    const Verdict v = run_check(VerdictInput{real_fs, w.ws(), *schemas}, options);
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

inline CheckpointRequest checkpoint_req(const std::string& task, const std::string& status) {
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
inline std::map<std::string, std::string> snapshot(const InitWorkspace& w) {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(w.ws().small_dir)) out[e.path().filename()] = read_text(e.path());
    return out;
}

inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace small::testing
