#include "small/ops/maintenance/merge.hpp"

#include <cerrno>

#include "small/base/path.hpp"
#include "small/store/atomic_file.hpp"
#include "small/domain/unmerged_files.hpp"

namespace small {

namespace {

// The driver's inputs are temporary files git made; none may be a link.
Result<std::string> read_input(const FileSystem& fs, const std::string& path, const char* what) {
    if (path.empty()) return Error::usage(std::string("the ") + what + " file is required");
    if (fs.is_symlink(path)) return Error::invalid("refusing to merge " + path + ": it is a symbolic link");
    return fs.read_file(path);
}

MergeReport report_of(UnmergedFile file) {
    MergeReport report;
    if (file.outcome.conflicts.empty()) report.index_advice = clean_merge_advice(file);
    report.pathname = std::move(file.path);
    report.rule = std::move(file.rule);
    report.outcome = std::move(file.outcome);
    return report;
}

}  // namespace

Result<MergeReport> merge_explain_command(const FileSystem& fs, const std::string& path, const std::string& cwd) {
    Result<UnmergedFile> file = unmerged_file(fs, path, cwd);
    if (!file) return file.error();
    return report_of(std::move(*file));
}

Result<MergeReport> merge_command(const FileSystem& fs, const MergeRequest& request) {
    Result<std::string> o = read_input(fs, request.ancestor, "ANCESTOR");
    if (!o) return o.error();
    Result<std::string> a = read_input(fs, request.current, "CURRENT");
    if (!a) return a.error();
    Result<std::string> b = read_input(fs, request.other, "OTHER");
    if (!b) return b.error();

    MergeReport report;
    report.pathname = request.pathname.empty() ? request.current : request.pathname;
    const MergeKind kind = merge_kind_for(report.pathname);
    report.rule = merge_rule_name(kind);
    std::optional<WorkspaceMergeSides> sides;
    if (!request.top.empty()) {
        const std::string_view texts[3] = {*o, *a, *b};
        sides = merge_sides_from_git(request.top, report.pathname, texts, request.sides_hint, request.other_commits);
    }
    if (sides) report.advises_handoff = sides->advises == file_name(report.pathname);
    Result<MergeOutcome> outcome = merge_with_renames(kind, *o, *a, *b, report.pathname, sides);
    if (!outcome) return outcome.error();
    report.outcome = std::move(*outcome);
    if (!report.clean() || report.outcome.text == *a) return report;

    Result<std::optional<FileInfo>> current = fs.inspect(request.current);
    if (!current) return current.error();
    if (!*current) return Error::from_errno("cannot stat", request.current, ENOENT);
    const std::string parent = parent_path(request.current);
    const std::string dir = parent.empty() ? "." : parent;
    if (Status s = write_file_in_folder_atomic(fs, dir, file_name(request.current), report.outcome.text, (*current)->mode);
        !s) {
        return s.error();
    }
    report.written = true;
    return report;
}

}  // namespace small
