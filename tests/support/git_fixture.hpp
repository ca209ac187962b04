// An isolated git repository for end-to-end tests: `git` and `small` run in
// repo() with an environment that ignores the user's and the system's git
// configuration (HOME is the test's folder) and names a fixed author; the
// built `small` comes first on PATH (git runs it as the merge driver and
// from hooks). Tests skip when git is not installed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace small_e2e {

// The environment of an isolated git: the built small first on PATH, HOME at
// `home`, neither the user's nor the system's git configuration, a fixed author.
inline std::vector<std::pair<std::string, std::optional<std::string>>> isolated_git_env(const std::filesystem::path& home) {
    const std::string bin_dir = std::filesystem::path(SMALL_BINARY).parent_path().string();
    const char* path = std::getenv("PATH");
    return {{"PATH", bin_dir + ":" + (path ? path : "/usr/bin:/bin")},
            {"HOME", home.string()},
            {"GIT_CONFIG_NOSYSTEM", "1"},
            {"GIT_CONFIG_GLOBAL", "/dev/null"},
            {"GIT_AUTHOR_NAME", "t"},
            {"GIT_AUTHOR_EMAIL", "t@example.com"},
            {"GIT_COMMITTER_NAME", "t"},
            {"GIT_COMMITTER_EMAIL", "t@example.com"}};
}

class GitRepoE2E : public ::testing::Test {
protected:
    using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;
    static constexpr const char* kGit = "/usr/bin/git";

    void SetUp() override {
        if (!std::filesystem::exists(kGit)) GTEST_SKIP() << "git is not installed at " << kGit;
        env_ = isolated_git_env(tmp_.path());
        std::filesystem::create_directory(repo());
    }

    std::filesystem::path repo() const { return tmp_.path() / "repo"; }

    // `small ARGS` in `cwd` (default: the repository).
    RunResult small(const std::vector<std::string>& args, const std::filesystem::path& cwd = {}) {
        return run_in(cwd.empty() ? repo() : cwd, args, env_);
    }
    // `git ARGS` in `cwd` (default: the repository).
    RunResult git(const std::vector<std::string>& args, const std::filesystem::path& cwd = {}) {
        RunOptions o;
        o.cwd = cwd.empty() ? repo() : cwd;
        o.env = env_;
        o.program = kGit;
        return run_small(args, o);
    }
    // The same; the test fails when git does.
    void git_ok(const std::vector<std::string>& args, const std::filesystem::path& cwd = {}) {
        const RunResult r = git(args, cwd);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    // git's standard output without its trailing newlines; the test fails when git does.
    std::string git_out(const std::vector<std::string>& args, const std::filesystem::path& cwd = {}) {
        const RunResult r = git(args, cwd);
        EXPECT_EQ(r.exit_code, 0) << r;
        std::string out = r.out;
        while (!out.empty() && out.back() == '\n') out.pop_back();
        return out;
    }

    TempDir tmp_;
    Env env_;
};

}  // namespace small_e2e
