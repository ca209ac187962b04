// `small report --html`: the workspace as one self-contained HTML page (no
// script, no network, no external file: it opens from file://): the board
// (each settled column folded to its newest few cards and a count), the
// dependency graph as inline SVG (the open work first, the whole plan
// folded below when it fits), the verdict with its findings, a
// timeline of each task's work entries with their evidence, commits and
// links, the runs and the diff between the newest two, and with `all` every
// branch and work tree. Bounded whatever the log's length: the newest
// `entries` work entries of the run are read, from the end of the log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct HtmlReportOptions {
    bool all = false;              // every branch and work tree (status --all)
    std::size_t entries = 2000;    // the run's newest signal entries read (timeline, evidence)
    std::size_t per_task = 12;     // timeline entries shown per task; older ones counted
    std::size_t runs = 20;         // run snapshots listed
    std::size_t graph_tasks = 400; // tasks a drawing shows at most: the open work's, and the whole plan's when it fits
    std::size_t settled_cards = 5; // the board's completed and cancelled columns show their newest N and a count
};

struct HtmlReport {
    std::string html;
    std::vector<std::string> notes;  // parts left out and why (no Graphviz, no git, no runs), one line each
    std::size_t tasks = 0, findings = 0, entries = 0;
};

// Errors: no .small/ or no plan (System), a plan that does not parse
// (Invalid, file:line:column). Everything else that cannot be read becomes
// a note in the page and in `notes`.
Result<HtmlReport> html_report(const FileSystem& fs, const WorkspacePaths& ws, const HtmlReportOptions& options);

// Writes a view (the page, `graph -o`) to `path` (absolute) atomically; its
// folder must exist, and a place inside a `.small/` folder is refused (the
// message names `command`).
Status write_view_file(const FileSystem& fs, const std::string& path, std::string_view text, const std::string& command);
Status write_html_report(const FileSystem& fs, const std::string& path, std::string_view html);

// `text` safe in HTML text and in a double-quoted attribute.
std::string html_escape(std::string_view text);

}  // namespace small
