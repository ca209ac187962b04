// The one temporary folder of the tests, unit and end to end: a fresh folder
// from mkdtemp (its canonical path), removed with everything in it, read-only
// folders and files included, when the TempDir goes.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace small::test_support {

// Gives the owner every right on `root` and all below it (links untouched), so
// a folder a test left read-only can be removed.
inline void make_writable(const std::filesystem::path& root) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ec);
    if (!fs::is_directory(fs::symlink_status(root, ec))) return;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
}

class TempDir {
public:
    // `fast`: under /dev/shm when there is one (crash and stress loops).
    explicit TempDir(bool fast = false) {
        namespace fs = std::filesystem;
        std::string pattern = fast && fs::is_directory("/dev/shm") ? std::string("/dev/shm")
                                                                    : fs::temp_directory_path().string();
        pattern += "/small-test-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
        path_ = fs::canonical(pattern);
        root_ = path_.string();
    }
    ~TempDir() {
        make_writable(path_);
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    const std::string& root() const { return root_; }
    std::string str() const { return root_; }
    // `rel` below the folder, as a string.
    std::string path(const std::string& rel) const { return root_ + "/" + rel; }

private:
    std::filesystem::path path_;
    std::string root_;
};

// A file's bytes ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace small::test_support
