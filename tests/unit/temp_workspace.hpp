// A real workspace (root + .small/) in a fresh temporary directory, for the
// tests that need the real disk (atomic writes, locks, progress appends).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "small/model/workspace.hpp"

namespace small::testing {

class TempWorkspace {
public:
    // `fast`: under /dev/shm when there is one (crash and stress loops).
    explicit TempWorkspace(bool fast = false) {
        namespace fs = std::filesystem;
        std::string pattern = fast && fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
        pattern += "/small-test-XXXXXX";
        const char* made = ::mkdtemp(pattern.data());
        if (made == nullptr) throw std::runtime_error("mkdtemp failed");
        root_ = made;
        fs::create_directory(root_ + "/.small");
        ws_.root = root_;
        ws_.small_dir = root_ + "/.small";
        ws_.display_prefix = root_ + "/";
    }
    ~TempWorkspace() {
        namespace fs = std::filesystem;
        std::error_code ec;
        // Tests may leave read-only folders behind; make them removable.
        for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) {
                fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
            }
        }
        fs::remove_all(root_, ec);
    }
    TempWorkspace(const TempWorkspace&) = delete;
    TempWorkspace& operator=(const TempWorkspace&) = delete;

    const WorkspacePaths& ws() const { return ws_; }
    std::string path(const std::string& rel) const { return root_ + "/" + rel; }
    std::string log() const { return ws_.small_dir + "/progress.small.yml"; }

private:
    std::string root_;
    WorkspacePaths ws_;
};

inline std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_plain(const std::string& path, const std::string& contents) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
}

}  // namespace small::testing
