#include "small/base/path.hpp"

#include <filesystem>

namespace small {

namespace {

std::string trimmed_trailing_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

std::string parent_path(std::string_view path) { return std::filesystem::path(path).parent_path().string(); }

std::string file_name(std::string_view path) { return std::filesystem::path(path).filename().string(); }

std::string join_path(std::string_view dir, std::string_view name) {
    std::string out(dir);
    if (out.empty()) return std::string(name);
    if (out.back() != '/') out += '/';
    out += name;
    return out;
}

bool is_absolute_path(std::string_view path) { return !path.empty() && path.front() == '/'; }

std::string normal_path(std::string_view path) {
    if (path.empty()) return {};
    return std::filesystem::path(path).lexically_normal().generic_string();
}

std::string normal_dir_path(std::string_view path) { return trimmed_trailing_slash(normal_path(path)); }

std::string absolute_path(std::string_view cwd, std::string_view path) {
    return normal_path(is_absolute_path(path) ? std::string(path) : join_path(cwd, path));
}

bool has_path_component(std::string_view path, std::string_view name) {
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        if (path.substr(0, slash) == name) return true;
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return false;
}

}  // namespace small
