#include "small/ops/authoring/agents.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/store/atomic_file.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

namespace {

constexpr std::string_view kCurrentVersion = "1.0.0";

// ------------------------------------------------------------- apply steps

struct Existing {
    bool exists = false;
    std::string content;
};

// Refusals that do not depend on the content: a symbolic link (never
// followed for the write, D7) or a missing directory (never created).
Status check_target_location(const FileSystem& fs, const AgentsTarget& target) {
    if (fs.is_symlink(target.path)) {
        return Error::invalid("refusing to write " + target.display + ": " + target.path +
                              " is a symbolic link (agents apply never follows symbolic links; "
                              "run it on the link's target instead)");
    }
    // The lexical check of resolve_agents_target cannot see a link on the way
    // (or a --dir that is one) leading into .small/.
    if (Status s = refuse_target_inside_small_dir(fs, target.path, "--file"); !s) return s;
    const std::string dir = parent_path(target.path);
    if (fs.file_exists(dir)) {
        return Error::system("failed to write " + target.display + ": " + dir + " is not a directory");
    }
    if (!fs.directory_exists(dir)) {
        return Error::system("failed to write " + target.display + ": directory " + dir +
                             " does not exist (agents apply does not create directories)");
    }
    return ok_status();
}

Result<Existing> read_existing(const FileSystem& fs, const AgentsTarget& target) {
    if (!fs.file_exists(target.path) && !fs.directory_exists(target.path)) return Existing{};
    Result<std::string> text = fs.read_file(target.path);
    if (!text) return Error::system("failed to read " + target.display + ": " + text.error().message);
    return Existing{true, std::move(*text)};
}

std::string already_exists_message(const std::string& display) {
    return display + " already exists without SMALL harness block.\n" + agents_apply_options_text();
}

Result<AgentsApplyResult> decide_content(const Existing& existing, AgentsMode mode, bool overwrite,
                                         const std::string& display) {
    AgentsApplyResult r;
    r.existed = existing.exists;
    r.old_content = existing.content;
    r.new_content = harness_block();
    if (!existing.exists) {
        r.action = AgentsAction::Created;
        return r;
    }
    if (overwrite) {  // the whole file is replaced, so even malformed markers do not matter
        r.action = AgentsAction::Overwrote;
        return r;
    }
    Result<HarnessSpan> span = find_harness_block(existing.content);
    if (!span) return Error::invalid("malformed " + display + ": " + span.error().message);
    if (!span->found && mode == AgentsMode::None) return Error::invalid(already_exists_message(display));
    Result<std::string> composed = compose_agents_file(existing.content, mode);
    if (!composed) return Error::invalid("failed to compose " + display + ": " + composed.error().message);
    r.new_content = std::move(*composed);
    r.previous_version = span->found ? span->version : "";
    r.action = span->found ? AgentsAction::Updated
               : mode == AgentsMode::Append ? AgentsAction::Appended
                                            : AgentsAction::Prepended;
    return r;
}

// The target's directory seen as a workspace root (for the staging folder
// and the lock).
WorkspacePaths paths_around(const AgentsTarget& target) {
    WorkspacePaths ws;
    ws.root = parent_path(target.path);
    ws.small_dir = small_dir_path(ws.root);
    return ws;
}

// Next to a `.small/`, AGENTS.md is a workspace file that init writes too:
// serialise with the workspace's other writers (D7). Elsewhere no lock.
Result<std::optional<WorkspaceLock>> lock_if_workspace(const FileSystem& fs, const AgentsTarget& target,
                                                       std::chrono::milliseconds wait) {
    const WorkspacePaths ws = paths_around(target);
    if (!fs.directory_exists(ws.small_dir)) return std::optional<WorkspaceLock>();
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(fs, ws, wait);
    if (!lock) return lock.error();
    return std::optional<WorkspaceLock>(std::move(*lock));
}

Status write_target(const FileSystem& fs, const AgentsTarget& target, std::string_view content) {
    if (Status writable = check_writable_file(fs, target.path); !writable) return writable;  // before staging
    const WorkspacePaths ws = paths_around(target);
    return write_leaving_no_staging(fs, 
        ws, [&] { return write_file_atomic(fs, ws, target.path, content, {.scope = WriteScope::UserNamed}); });
}

// The block inside `text` ("" when there is none or the markers are malformed).
std::string_view block_text(std::string_view text) {
    const Result<HarnessSpan> span = find_harness_block(text);
    if (!span || !span->found) return {};
    return text.substr(span->begin, span->end - span->begin);
}

void append_plus_lines(std::string& out, std::string_view text) {
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    for (std::string_view line : split_lines(text)) out.append("+ ").append(line).append("\n");
}

// ------------------------------------------------------------- check steps

std::vector<std::string> missing_block_parts(std::string_view block) {
    std::vector<std::string> missing;
    for (std::string_view section : {"Ownership Rules", "Artifact Rules", "Strict Mode Rules"}) {
        if (block.find(section) == std::string_view::npos) missing.push_back("missing section: " + std::string(section));
    }
    if (block.find("<!-- BEGIN SMALL HARNESS") == std::string_view::npos) missing.emplace_back("missing BEGIN marker");
    if (block.find("<!-- END SMALL HARNESS") == std::string_view::npos) missing.emplace_back("missing END marker");
    return missing;
}

std::string join_parts(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
    return out;
}

AgentsCheckReport fail(AgentsCheckReport report, std::string error, std::string recommendation) {
    report.passed = false;
    report.error = std::move(error);
    report.recommendation = std::move(recommendation);
    return report;
}

// Drift: the block differs from the canonical one. A different marker
// version is named as such (the reference reports it only as drift).
AgentsCheckReport judge_drift(AgentsCheckReport report, std::string_view block, bool strict) {
    report.has_drift = trim(block) != trim(harness_block());
    if (!report.has_drift) return report;
    const bool outdated = report.block_version != kCurrentVersion;
    const std::string what = outdated ? "block is v" + report.block_version + ", the current harness is v" +
                                            std::string(kCurrentVersion)
                                      : "block content differs from canonical template";
    report.recommendation = outdated ? "Block is v" + report.block_version + " (current: v" +
                                           std::string(kCurrentVersion) + "). Run: small agents apply"
                                     : "Block differs from canonical template. Run: small agents apply";
    if (!strict) return report;
    std::string recommendation = report.recommendation;
    return fail(std::move(report), what, std::move(recommendation));
}

AgentsCheckReport judge_content(AgentsCheckReport report, std::string_view content, const AgentsCheckRequest& req) {
    const std::string& name = req.target.display;
    Result<HarnessSpan> span = find_harness_block(content);
    if (!span) return fail(std::move(report), span.error().message, "Fix malformed markers in " + name);
    if (!span->found) {
        if (req.strict) {
            return fail(std::move(report), name + " exists but has no SMALL harness block",
                        "Run: small agents apply --agents-mode=append");
        }
        report.recommendation = "No SMALL harness block found (use --strict to enforce)";
        return report;
    }
    report.has_block = true;
    report.block_version = span->version;
    report.span_begin = span->begin;
    report.span_end = span->end;
    const std::string_view block = content.substr(span->begin, span->end - span->begin);
    const std::vector<std::string> missing = missing_block_parts(block);
    report.block_valid = missing.empty();
    if (!report.block_valid) {
        return fail(std::move(report), "block structure invalid: " + join_parts(missing, "; "),
                    "Run: small agents apply to regenerate block");
    }
    return judge_drift(std::move(report), block, req.strict);
}

// "# Heading" → "Heading"; indentation is kept (the reference strips it).
std::string_view strip_heading_marks(std::string_view line) {
    std::size_t hashes = 0;
    while (hashes < line.size() && line[hashes] == '#') ++hashes;
    if (hashes == 0 || hashes == line.size() || line[hashes] != ' ') return line;
    line.remove_prefix(hashes);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    return line;
}

std::string remove_all(std::string text, std::string_view what) {
    for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos)) {
        text.erase(pos, what.size());
    }
    return text;
}

}  // namespace

Result<AgentsTarget> resolve_agents_target(const FileSystem& fs, const std::optional<std::string>& dir,
                                           std::string_view file, const std::string& cwd) {
    const std::string name = file.empty() ? std::string(kDefaultAgentsFile) : std::string(file);
    // D5, as every command: --dir, else the nearest workspace upwards, else cwd
    // (AGENTS.md may be written before init).
    const WorkspacePaths ws = locate_workspace(fs, dir, cwd);
    const std::string full = absolute_path(ws.root, name);
    const std::string leaf = file_name(full);
    if (leaf.empty() || leaf == "." || leaf == "..") {
        return Error::usage("--file \"" + name + "\" does not name a file");
    }
    if (has_path_component(full, kSmallDirName)) {
        return Error::usage("--file \"" + name + "\" names " + full +
                            ", inside .small/; the agents commands never touch .small/ (AGENTS.md belongs at the "
                            "workspace root, next to .small/)");
    }
    // A workspace found above the current directory is named in full.
    const std::string shown = is_absolute_path(name) || ws.from_dir_flag ? name : ws.display_prefix + name;
    return AgentsTarget{full, shown};
}

Result<AgentsApplyResult> agents_apply_command(const FileSystem& fs, const AgentsApplyRequest& req) {
    Result<AgentsMode> mode = parse_agents_mode(req.agents_mode);
    if (!mode) return mode.error();
    if (*mode != AgentsMode::None && req.overwrite) {
        return Error::usage("--agents-mode and --force/--overwrite-agents are mutually exclusive");
    }
    if (Status where = check_target_location(fs, req.target); !where) return where.error();
    Result<std::optional<WorkspaceLock>> lock =
        req.dry_run ? std::optional<WorkspaceLock>() : lock_if_workspace(fs, req.target, req.lock_wait);
    if (!lock) return lock.error();
    Result<Existing> existing = read_existing(fs, req.target);
    if (!existing) return existing.error();
    Result<AgentsApplyResult> result = decide_content(*existing, *mode, req.overwrite, req.target.display);
    if (!result || req.dry_run || !result->changed()) return result;
    if (Status written = write_target(fs, req.target, result->new_content); !written) return written.error();
    result->written = true;
    return result;
}

std::string agents_apply_diff(const AgentsApplyResult& result, const std::string& path) {
    if (!result.changed()) return "";
    std::string out = "--- " + path + " (current)\n+++ " + path + " (proposed)\n";
    if (result.old_content.empty()) {
        out += "@@ -0,0 +1 @@\n";
        append_plus_lines(out, result.new_content);
    } else if (result.action == AgentsAction::Updated) {
        out += "@@ SMALL harness block updated @@\n";
        if (block_text(result.old_content) != block_text(result.new_content)) {
            out += "- [old block content]\n+ [new block content]\n";
        }
    } else if (result.action == AgentsAction::Appended || result.action == AgentsAction::Prepended) {
        out += "@@ SMALL harness block added @@\n";
        append_plus_lines(out, block_text(result.new_content));
    } else {
        out += "@@ file contents changed @@\n";
        append_plus_lines(out, result.new_content);
    }
    return out;
}

std::string agents_apply_options_text() {
    return "Use one of:\n"
           "  --force (-f)             replace the whole file with the SMALL harness block\n"
           "  --overwrite-agents       the same as --force\n"
           "  --agents-mode=append     add the block after the existing text\n"
           "  --agents-mode=prepend    add the block before the existing text";
}

Result<AgentsCheckReport> agents_check_command(const FileSystem& fs, const AgentsCheckRequest& req) {
    AgentsCheckReport report;
    report.file_path = req.target.path;
    if (!fs.file_exists(req.target.path) && !fs.directory_exists(req.target.path)) {
        if (req.allow_missing) {
            report.recommendation = "File missing (allowed by --allow-missing)";
            return report;
        }
        return fail(std::move(report), req.target.display + " not found", "Run: small agents apply");
    }
    Result<std::string> content = fs.read_file(req.target.path);
    if (!content) return Error::system("failed to read " + req.target.display + ": " + content.error().message);
    report.has_file = true;
    return judge_content(std::move(report), *content, req);
}

Result<HarnessFormat> parse_harness_format(std::string_view text) {
    if (text == "md") return HarnessFormat::Markdown;
    if (text == "plain") return HarnessFormat::Plain;
    return Error::usage("invalid --format \"" + std::string(text) + "\" (valid: md, plain)");
}

std::string strip_markdown(std::string_view markdown) {
    std::string out;
    const std::vector<std::string_view> lines = split_lines(markdown);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) out += '\n';
        out += remove_all(remove_all(std::string(strip_heading_marks(lines[i])), "**"), "`");
    }
    return out;
}

std::string harness_print_text(bool with_markers, HarnessFormat format) {
    if (format == HarnessFormat::Plain) return strip_markdown(harness_block_body());
    return with_markers ? harness_block() : harness_block_body();
}

}  // namespace small
