// Running as another user. Root may write any file and any folder, so a test
// of what a read-only file or folder refuses would prove nothing as root (CI
// runs as root). As root, such a test gives its temporary folder to user
// `nobody` and runs the check as nobody: the built binary with
// RunOptions::uid/gid (run_binary.hpp), or a part of a unit test in a forked
// child (as_unprivileged). As any other user, it runs as is.
#pragma once

#include <grp.h>
#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "support/child.hpp"

namespace small::test_support {

struct OtherUser {
    uid_t uid;
    gid_t gid;
};

// Gives `dir` and everything in it to `user` (links themselves, not their
// targets). Only below a TempDir (a "small-test-" folder): a slip can never
// give a system folder away.
inline bool give_to(const std::filesystem::path& dir, const OtherUser& user) {
    if (dir.string().find("/small-test-") == std::string::npos) {
        ADD_FAILURE() << dir << " is not a test's temporary folder: it stays with its owner";
        return false;
    }
    if (::chown(dir.c_str(), user.uid, user.gid) != 0) return false;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (::lchown(e.path().c_str(), user.uid, user.gid) != 0) return false;
    }
    return true;
}

// Gives `dir` and everything in it to user nobody; nullopt when there is no
// such user or a chown fails.
inline std::optional<OtherUser> give_to_nobody(const std::filesystem::path& dir) {
    const passwd* nobody = ::getpwnam("nobody");
    if (nobody == nullptr) return std::nullopt;
    const OtherUser u{nobody->pw_uid, nobody->pw_gid};
    if (!give_to(dir, u)) return std::nullopt;
    return u;
}

// Gives `dir` back to this process's user (after a run as nobody, so that
// git, run as root, trusts the repository again).
inline bool give_back(const std::filesystem::path& dir) { return give_to(dir, OtherUser{::geteuid(), ::getegid()}); }

// Runs `body` as a user the permission bits apply to. Not root: here, as is.
// Root: `dir` (the test's temporary folder) is given to nobody and `body` runs
// in a forked child that has dropped to nobody; what it reports (failures,
// with their file and line) is reported here. The child never returns into
// the test: the parent's destructors remove the folder, as root.
inline void as_unprivileged(const std::filesystem::path& dir, const std::function<void()>& body,
                            std::chrono::seconds limit = std::chrono::seconds(60)) {
    if (::geteuid() != 0) {
        body();
        return;
    }
    const std::optional<OtherUser> user = give_to_nobody(dir);
    ASSERT_TRUE(user) << "running as root, the check runs as user nobody: there is no such user, or "
                      << dir << " cannot be given to it";
    const ChildOutcome child = run_in_child(
        [&](std::string& report) {
            if (::setgroups(0, nullptr) != 0 || ::setgid(user->gid) != 0 || ::setuid(user->uid) != 0) return 125;
            ::testing::TestPartResultArray results;
            {
                ::testing::ScopedFakeTestPartResultReporter reporter(
                    ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS, &results);
                body();
            }
            // One record per result: type, file, line, message, each ended by a NUL.
            for (int i = 0; i < results.size(); ++i) {
                const ::testing::TestPartResult& r = results.GetTestPartResult(i);
                report += std::to_string(static_cast<int>(r.type())) + '\0' + (r.file_name() ? r.file_name() : "") +
                          '\0' + std::to_string(r.line_number()) + '\0' + r.message() + '\0';
            }
            return 0;
        },
        limit);
    ASSERT_EQ(child.code, 0) << "the check run as nobody did not end well (125: it could not drop to nobody; "
                                "-1: it outlived "
                             << limit.count() << " s)";
    const std::string& report = child.message;
    std::size_t pos = 0;
    const auto field = [&] {
        const std::size_t end = report.find('\0', pos);
        std::string f = report.substr(pos, end - pos);
        pos = end + 1;
        return f;
    };
    while (pos < report.size()) {
        const auto type = static_cast<::testing::TestPartResult::Type>(std::stoi(field()));
        const std::string file = field();
        const int line = std::stoi(field());
        const std::string message = field();
        if (type == ::testing::TestPartResult::kSuccess) continue;
        GTEST_MESSAGE_AT_(file.empty() ? nullptr : file.c_str(), line, ("(as nobody) " + message).c_str(), type);
    }
}

}  // namespace small::test_support
