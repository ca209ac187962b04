#include "small/ops/merge.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>

#include "small/store/atomic_file.hpp"
#include "small/store/git_repo.hpp"

namespace small {

namespace {

// The driver's inputs are temporary files git made; none may be a link.
Result<std::string> read_input(const FileSystem& fs, const std::string& path, const char* what) {
    if (path.empty()) return Error::usage(std::string("the ") + what + " file is required");
    if (fs.is_symlink(path)) return Error::invalid("refusing to merge " + path + ": it is a symbolic link");
    return fs.read_file(path);
}

const char* rule_name(MergeKind kind) {
    switch (kind) {
        case MergeKind::Progress: return "progress";
        case MergeKind::Plan: return "plan";
        case MergeKind::Handoff: return "handoff";
        case MergeKind::Whole: return "whole";
    }
    return "whole";
}

Result<MergeOutcome> merge_texts(MergeKind kind, const std::string& o, const std::string& a, const std::string& b,
                                 const std::string& display) {
    switch (kind) {
        case MergeKind::Progress:
            if (a == b) return MergeOutcome{a, {}, {}, 0, 0, 0, 0};  // nothing to union (also a == o == b)
            return merge_progress_texts(o, a, b, display);
        case MergeKind::Plan: return merge_plan_texts(o, a, b, display);
        case MergeKind::Handoff: return merge_whole_texts(o, a, b, true, display);
        case MergeKind::Whole: break;
    }
    return merge_whole_texts(o, a, b, false, display);
}

MergeConflict whole_file_conflict(std::string message, std::string hint) {
    return MergeConflict{"", "", std::move(message), std::move(hint)};
}

// The driver's rule over one conflicted path's stages, as a report that
// never errs: what stops the merge becomes its conflict.
MergeReport merge_stages(const GitIndexConflict& c) {
    MergeReport report;
    report.pathname = c.path;
    const MergeKind kind = merge_kind_for(c.path);
    report.rule = rule_name(kind);
    if (!c.ours || !c.theirs) {
        const bool kept_here = c.ours.has_value();
        report.outcome.conflicts.push_back(whole_file_conflict(
            c.path + (kept_here ? " was deleted on the other side and changed on this side"
                                : " was deleted on this side and changed on the other side"),
            "keep it (git checkout --" + std::string(kept_here ? "ours" : "theirs") + " -- " + c.path +
                " && git add " + c.path + ") or remove it (git rm " + c.path + ")"));
        return report;
    }
    // Added on both sides (no ancestor): every entry or task is new on both.
    Result<MergeOutcome> outcome = merge_texts(kind, c.ancestor.value_or(""), *c.ours, *c.theirs, c.path);
    if (!outcome) {
        report.outcome.conflicts.push_back(whole_file_conflict(
            "a side cannot be merged: " + outcome.error().message,
            "repair that side (restore the entries it rewrote or removed, or fix the YAML), then merge again"));
        return report;
    }
    report.outcome = std::move(*outcome);
    return report;
}

}  // namespace

Result<std::vector<MergeReport>> explain_workspace_conflicts(const WorkspacePaths& ws) {
    std::vector<MergeReport> reports;
    Result<std::optional<GitRepo>> repo = GitRepo::discover(ws.root);
    if (!repo) return repo.error();
    if (!*repo) return reports;
    const std::optional<std::string> dir = path_in_workdir((*repo)->workdir(), ws.small_dir);
    if (!dir) return reports;
    const std::string prefix = dir->empty() ? "" : *dir + "/";
    Result<std::vector<GitIndexConflict>> conflicts = (*repo)->index_conflicts(prefix);
    if (!conflicts) return conflicts.error();
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path.find('/', prefix.size()) != std::string::npos) continue;  // a file below .small/, not an artifact
        reports.push_back(merge_stages(c));
    }
    return reports;
}

Result<MergeReport> explain_index_conflict(const std::string& path) {
    const std::filesystem::path abs(path);
    Result<GitRepo> repo = open_workspace_repo(abs.parent_path().string(), "small merge --explain FILE");
    if (!repo) return repo.error();
    // The file itself may be gone (deleted on this side): resolve its folder.
    const std::optional<std::string> dir = path_in_workdir(repo->workdir(), abs.parent_path().string());
    if (!dir) return Error::invalid(path + " is not in the work tree of " + repo->workdir());
    const std::string rel = (dir->empty() ? "" : *dir + "/") + abs.filename().string();
    Result<std::vector<GitIndexConflict>> conflicts = repo->index_conflicts(rel);
    if (!conflicts) return conflicts.error();
    for (const GitIndexConflict& c : *conflicts) {
        if (c.path == rel) return merge_stages(c);
    }
    return Error::invalid("git's index holds no unresolved conflict for " + rel +
                          ": give the three files instead (small merge --explain BASE OURS THEIRS PATH)");
}

Result<MergeReport> merge_files(const FileSystem& fs, const MergeRequest& request) {
    Result<std::string> o = read_input(fs, request.ancestor, "ANCESTOR");
    if (!o) return o.error();
    Result<std::string> a = read_input(fs, request.current, "CURRENT");
    if (!a) return a.error();
    Result<std::string> b = read_input(fs, request.other, "OTHER");
    if (!b) return b.error();

    MergeReport report;
    report.pathname = request.pathname.empty() ? request.current : request.pathname;
    const MergeKind kind = merge_kind_for(report.pathname);
    report.rule = rule_name(kind);
    Result<MergeOutcome> outcome = merge_texts(kind, *o, *a, *b, report.pathname);
    if (!outcome) return outcome.error();
    report.outcome = std::move(*outcome);
    if (!report.clean() || report.outcome.text == *a) return report;

    struct stat st {};
    if (::lstat(request.current.c_str(), &st) != 0) return Error::from_errno("cannot stat", request.current, errno);
    const std::filesystem::path target(request.current);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    if (Status s =
            write_file_in_folder_atomic(dir, target.filename().string(), report.outcome.text, st.st_mode & 07777);
        !s) {
        return s.error();
    }
    report.written = true;
    return report;
}

}  // namespace small
