// The runtime lines of .gitignore (see the header).
#include "small/domain/gitignore.hpp"

#include "small/store/atomic_file.hpp"
#include "small/base/text.hpp"

namespace small {

std::string gitignore_with_runtime_lines(std::string_view existing, std::vector<std::string>& added) {
    added.clear();
    std::vector<std::string_view> present;
    for (std::size_t pos = 0; pos < existing.size();) {
        std::size_t end = existing.find('\n', pos);
        if (end == std::string_view::npos) end = existing.size();
        present.push_back(trim(existing.substr(pos, end - pos)));
        pos = end + 1;
    }
    for (std::string_view line : kRuntimeIgnoreLines) {
        bool found = false;
        for (std::string_view p : present) found = found || p == line;
        if (!found) added.emplace_back(line);
    }
    std::string out(existing);
    if (added.empty()) return out;
    const bool crlf = existing.find("\r\n") != std::string_view::npos;
    const char* eol = crlf ? "\r\n" : "\n";
    if (!out.empty() && out.back() != '\n') out += eol;
    for (const std::string& line : added) out.append(line).append(eol);
    return out;
}

Result<GitignoreUpdate> plan_gitignore_update(const FileSystem& fs, const WorkspacePaths& ws) {
    GitignoreUpdate update;
    update.path = (ws.root == "/" ? std::string() : ws.root) + "/.gitignore";
    update.existed = fs.stat(update.path).has_value();
    std::string old;
    if (update.existed) {
        Result<std::string> bytes = fs.read_file(update.path);
        if (!bytes) return Error::system("failed to read .gitignore: " + bytes.error().message);
        old = std::move(*bytes);
    }
    update.content = gitignore_with_runtime_lines(old, update.added);
    return update;
}

Status write_gitignore_update(const FileSystem& fs, const WorkspacePaths& ws, const GitignoreUpdate& update) {
    if (update.added.empty()) return ok_status();
    return write_file_atomic(fs, ws, update.path, update.content);
}

}  // namespace small
