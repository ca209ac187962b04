#include "small/view/html_report.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/base/version.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/domain/progress_query.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/inspect/board.hpp"
#include "small/ops/inspect/status_all.hpp"
#include "small/ops/maintenance/run.hpp"
#include "small/store/atomic_file.hpp"
#include "small/ops/inspect/verdict.hpp"
#include "small/view/board_text.hpp"
#include "small/view/graph_focus.hpp"
#include "small/view/graph_render.hpp"

namespace small {

namespace {

using std::string;

constexpr const char* kStyle = R"CSS(
:root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f9fafb;--blue:#2563eb;--red:#dc2626;--purple:#a21caf}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#111827;color:#f9fafb;padding:18px 28px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#d1d5db;font-size:13px}
main{padding:18px 28px;max-width:1600px}section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:16px 18px;margin:0 0 18px}
h2{font-size:16px;margin:0 0 12px}h3{font-size:14px;margin:14px 0 6px}code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.tiles{display:flex;gap:12px;flex-wrap:wrap}.tile{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}.tile b{display:block;font-size:20px}
.verdict{display:inline-block;padding:2px 10px;border-radius:999px;font-weight:600}.pass{background:#dcfce7;color:#166534}.fail{background:#fee2e2;color:#991b1b}
.board{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(220px,1fr);gap:12px;overflow-x:auto}.column{background:var(--bg);border-radius:8px;padding:8px}
.column h3{margin:2px 4px 8px;text-transform:uppercase;letter-spacing:.04em;font-size:12px;color:var(--muted)}
.card{background:#fff;border:1px solid var(--line);border-left:4px solid var(--border);border-radius:6px;padding:8px 10px;margin:0 0 8px}
.card .id{font-weight:600}.card .blocked{color:#991b1b}.card .title{margin:2px 0}.card .meta{color:var(--muted);font-size:12px}.mark{display:inline-block;font-size:11px;border-radius:4px;padding:0 5px;margin-left:4px}
.mark.ready{background:#dbeafe;color:var(--blue)}.mark.critical{background:#fee2e2;color:var(--red)}.mark.cycle{background:#fae8ff;color:var(--purple)}
.graph{overflow:auto;max-height:760px;border:1px solid var(--line);border-radius:8px;background:#fff}.graph svg{max-width:none}
table{border-collapse:collapse;width:100%}th,td{text-align:left;border-bottom:1px solid var(--line);padding:5px 8px;vertical-align:top}th{font-size:12px;color:var(--muted);font-weight:600}
.sev-error{color:var(--red);font-weight:600}.sev-warning{color:#b45309;font-weight:600}.muted{color:var(--muted)}details{margin:4px 0}summary{cursor:pointer}
.status{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;border:1px solid var(--border);background:var(--fill)}
pre.diff{background:#0b1020;color:#e5e7eb;padding:10px;border-radius:6px;overflow:auto;max-height:480px}.note{color:var(--muted);font-style:italic}
)CSS";

string esc(std::string_view text) { return html_escape(visible(text)); }  // issue 41: no raw control characters

string status_badge(const string& word) {
    const StatusColors c = status_colors(WrittenStatus(word));
    return "<span class=\"status\" style=\"--fill:" + string(c.fill) + ";--border:" + c.border + "\">" + esc(word) + "</span>";
}

// An http(s) link as an anchor; anything else as text (no javascript: or file: targets).
string link_html(const string& link) {
    const bool web = link.rfind("https://", 0) == 0 || link.rfind("http://", 0) == 0;
    return web ? "<a href=\"" + esc(link) + "\" rel=\"noreferrer\">" + esc(link) + "</a>" : "<span class=\"mono\">" + esc(link) + "</span>";
}

string field(const YamlValue& entry, const char* key) {
    if (!entry.is_object() || !entry.contains(key)) return {};
    const YamlValue& v = entry[key];
    if (v.is_string()) return v.get<string>();
    if (v.is_number() || v.is_boolean()) return v.dump();
    return {};
}

// ---------------------------------------------------------------- sections

string summary_section(const BoardReport& board, const Verdict& verdict, std::size_t errors) {
    std::map<string, std::size_t> counts;
    std::size_t ready = 0;
    for (const GraphTask& t : board.graph.tasks) {
        ++counts[t.status.word()];
        ready += t.ready;
    }
    string out = "<section id=\"summary\"><h2>Summary</h2><div class=\"tiles\">";
    out += "<div class=\"tile\"><b>" + std::to_string(board.graph.tasks.size()) + "</b>tasks</div>";
    for (const string& column : board.columns) {
        if (counts.count(column)) out += "<div class=\"tile\"><b>" + std::to_string(counts[column]) + "</b>" + esc(column) + "</div>";
    }
    out += "<div class=\"tile\"><b>" + std::to_string(ready) + "</b>ready</div>";
    const bool passed = verdict.outcome == VerdictOutcome::Ok;
    out += "<div class=\"tile\"><b><span class=\"verdict " + string(passed ? "pass\">passed" : "fail\">failed") +
           "</span></b>check --strict" + (passed ? "" : ", " + std::to_string(errors) + " error" + (errors == 1 ? "" : "s")) + "</div>";
    out += "</div>";
    if (!board.graph.critical_path.empty()) {
        out += "<p>Critical path: ";
        for (std::size_t i = 0; i < board.graph.critical_path.size(); ++i) {
            out += (i ? " &rarr; " : "") + string("<code>") + esc(board.graph.critical_path[i]) + "</code>";
        }
        out += "</p>";
    }
    for (const std::vector<string>& cycle : board.graph.cycles) {
        out += "<p class=\"sev-error\">Dependency cycle:";
        for (const string& id : cycle) out += " <code>" + esc(id) + "</code>";
        out += "</p>";
    }
    return out + "</section>";
}

string card_html(const BoardCard& card, const string& column, const char* border) {
    string out = "<article class=\"card\" data-task=\"" + esc(card.id) + "\" data-status=\"" + esc(column) +
                 "\" style=\"--border:" + border + "\"><div><span class=\"id\">" + esc(card.id) + "</span>";
    for (const string& mark : card.marks) {
        const string cls = mark == "critical path" ? "critical" : mark;
        out += "<span class=\"mark " + cls + "\">" + esc(mark) + "</span>";
    }
    out += "</div>";
    if (!card.title.empty()) out += "<div class=\"title\">" + esc(card.title) + "</div>";
    if (!card.claim.empty()) out += "<div class=\"meta\">claimed by " + esc(card.claim) + "</div>";
    if (!card.blocked_reason.empty()) out += "<div class=\"meta blocked\">blocked: " + esc(card.blocked_reason) + "</div>";
    if (!card.waits_on.empty()) {
        string waits;
        for (const string& id : card.waits_on) waits += (waits.empty() ? "" : ", ") + esc(id);
        out += "<div class=\"meta\">waits on " + waits + "</div>";
    }
    if (!card.evidence.text.empty() && card.evidence.text != card.blocked_reason) {
        out += "<div class=\"meta\">" + esc(card.evidence.timestamp.substr(0, 19)) + " &mdash; " + esc(card.evidence.text) + "</div>";
    }
    return out + "</article>";
}

// The board with each settled column folded to its newest few cards and a count.
string board_section(const BoardReport& board, std::size_t settled_cards) {
    GraphFocus fold;
    fold.settled_newest = settled_cards;
    Result<FocusedGraph> shown = focus_graph(board.graph, fold, recent_tasks(board));
    if (!shown) return "<section id=\"board\"><h2>Board</h2><p class=\"note\">" + esc(shown.error().message) + "</p></section>";
    string out = "<section id=\"board\"><h2>Board</h2><div class=\"board\">";
    for (const string& column : board.columns) {
        const std::vector<BoardCard> cards = board_cards(board, *shown, column);
        const auto folded = shown->left_out.find(column);
        const std::size_t more = folded == shown->left_out.end() ? 0 : folded->second;
        if (cards.empty() && more == 0 && !WrittenStatus(column).known()) continue;
        const StatusColors c = status_colors(WrittenStatus(column));
        out += "<div class=\"column\" data-status=\"" + esc(column) + "\"><h3>" + esc(column) + " (" +
               std::to_string(cards.size() + more) + ")</h3>";
        for (const BoardCard& card : cards) out += card_html(card, column, c.border);
        if (more) {
            out += "<p class=\"more muted\" data-more=\"" + std::to_string(more) + "\">&hellip; and " + std::to_string(more) +
                   " more " + esc(column) + ", older (<code>small board --limit 0</code> lists them all)</p>";
        }
        out += "</div>";
    }
    return out + "</div></section>";
}

// `graph` as inline SVG, or as DOT text when Graphviz cannot draw it.
string drawing_html(const PlanGraph& graph, const string& caption, std::vector<string>& notes) {
    Result<string> svg = graph_svg(graph, caption);
    if (svg) {
        const std::size_t start = svg->find("<svg");
        return "<div class=\"graph\">" + (start == string::npos ? *svg : svg->substr(start)) + "</div>";
    }
    notes.push_back("no drawing of the graph: " + svg.error().message);
    return "<p class=\"note\">" + esc(svg.error().message) + " (" + esc(svg.error().hint) +
           "). The graph in Graphviz DOT:</p><pre>" + esc(graph_dot(graph, GraphDrawing{caption})) + "</pre>";
}

// The open work first (what a reader comes for), at most `limit` tasks;
// the whole plan below, folded, when it has other tasks and at most `limit`.
string graph_section(const BoardReport& board, std::size_t limit, std::vector<string>& notes) {
    const PlanGraph& graph = board.graph;
    GraphFocus open;
    open.open = true;
    open.limit = limit;
    Result<FocusedGraph> work = focus_graph(graph, open, recent_tasks(board));
    string out = "<section id=\"graph\"><h2>Dependency graph</h2>";
    const bool all_open = work && work->chosen == graph.tasks.size() && work->left_out.empty();
    if (!work || all_open) return out + drawing_html(graph, "", notes) + "</section>";
    const string note = focus_note(*work, open);
    if (work->graph.tasks.empty()) out += "<p class=\"note\">Nothing open: every task is completed or cancelled.</p>";
    else out += "<h3>Open work</h3><p class=\"muted\">" + esc(note) + ".</p>" + drawing_html(work->graph, "", notes);
    if (!work->left_out.empty()) notes.push_back("the open-work graph: " + note + " (`small graph --open` draws them all)");
    if (graph.tasks.size() <= limit) {
        out += string("<details class=\"whole-plan\"") + (work->graph.tasks.empty() ? " open" : "") +
               "><summary>The whole plan: " + std::to_string(graph.tasks.size()) + " tasks</summary>" +
               drawing_html(graph, "", notes) + "</details>";
    } else {
        out += "<p class=\"note\">The whole plan (" + std::to_string(graph.tasks.size()) +
               " tasks) is not drawn here: <code>small graph --format svg -o plan.svg</code> draws it.</p>";
    }
    return out + "</section>";
}

string findings_section(const std::vector<Finding>& findings) {
    string out = "<section id=\"findings\"><h2>Findings (check --strict)</h2>";
    if (findings.empty()) return out + "<p class=\"verdict pass\">No findings: the workspace passes.</p></section>";
    out += "<table><tr><th>Severity</th><th>Rule</th><th>Where</th><th>Message</th><th>Fix</th></tr>";
    for (const Finding& f : findings) {
        const string sev = f.severity == Severity::Error ? "error" : "warning";
        string where = f.file;
        if (f.mark.line) where += ":" + std::to_string(f.mark.line) + (f.mark.column ? ":" + std::to_string(f.mark.column) : "");
        out += "<tr class=\"finding\" data-rule=\"" + esc(f.rule) + "\"><td class=\"sev-" + sev + "\">" + sev + "</td><td><code>" +
               esc(f.rule) + "</code></td><td class=\"mono\">" + esc(where) + "</td><td>" + esc(f.message) + "</td><td>" +
               esc(f.hint) + "</td></tr>";
    }
    return out + "</table></section>";
}

string entry_row(const YamlValue& entry) {
    string evidence = field(entry, "evidence");
    for (const char* key : {"verification", "test", "command"}) {
        const string v = field(entry, key);
        if (!v.empty()) evidence += string(evidence.empty() ? "" : " · ") + key + ": " + v;
    }
    string extra;
    if (const string commit = field(entry, "commit"); !commit.empty()) {
        extra += "<code title=\"" + esc(commit) + "\">" + esc(commit.substr(0, 12)) + "</code> ";
    }
    if (const string link = field(entry, "link"); !link.empty()) extra += link_html(link);
    const string notes = field(entry, "notes");
    return "<tr><td class=\"mono\">" + esc(field(entry, "timestamp").substr(0, 19)) + "</td><td>" +
           status_badge(field(entry, "status")) + "</td><td>" + esc(evidence) +
           (notes.empty() ? "" : "<div class=\"muted\">" + esc(notes) + "</div>") + "</td><td>" + extra + "</td></tr>";
}

string timeline_section(const BoardReport& board, std::size_t per_task) {
    const PlanGraph& graph = board.graph;
    std::unordered_map<string, std::vector<const YamlValue*>> by_task;
    for (const YamlValue& e : board.newest) by_task[field(e, "task_id")].push_back(&e);
    string out = "<section id=\"timeline\"><h2>Timeline by task</h2><p class=\"muted\">The run's newest " +
                 std::to_string(board.newest.size()) + " entries" +
                 (board.window_full ? " (of more: older ones are summarised by `small progress list --task ID`)" : "") +
                 ", newest first.</p>";
    for (const GraphTask& t : graph.tasks) {
        const auto it = by_task.find(t.id);
        if (it == by_task.end()) continue;
        const std::vector<const YamlValue*>& list = it->second;
        out += "<details class=\"task-timeline\" data-task=\"" + esc(t.id) + "\"" + (is_done(t.status) ? "" : " open") +
               "><summary><code>" + esc(t.id) + "</code> " + esc(t.title) + " " + status_badge(t.status.word()) +
               " <span class=\"muted\">" + std::to_string(list.size()) + " entr" + (list.size() == 1 ? "y" : "ies") +
               "</span></summary><table><tr><th>When (UTC)</th><th>Status</th><th>Evidence</th><th>Commit, link</th></tr>";
        for (std::size_t i = 0; i < list.size() && i < per_task; ++i) out += entry_row(*list[i]);
        out += "</table>";
        if (list.size() > per_task) out += "<p class=\"muted\">" + std::to_string(list.size() - per_task) + " older entries not shown.</p>";
        out += "</details>";
    }
    return out + "</section>";
}

string runs_section(const FileSystem& fs, const WorkspacePaths& ws, std::size_t limit, std::vector<string>& notes) {
    string out = "<section id=\"runs\"><h2>Runs</h2>";
    Result<RunListResult> runs = run_list_command(fs, ws, RunOptions{}, limit);
    if (!runs || runs->runs.empty()) {
        if (!runs) notes.push_back("runs: " + runs.error().message);
        return out + "<p class=\"note\">No run snapshots yet (<code>small run snapshot</code> keeps one).</p></section>";
    }
    out += "<table><tr><th>Run</th><th>Created</th><th>Summary</th></tr>";
    for (const SnapshotInfo& r : runs->runs) {
        out += "<tr><td class=\"mono\">" + esc(r.name.substr(0, 16)) + "</td><td class=\"mono\">" +
               esc(format_timestamp_short(r.created)) + "</td><td>" + esc(r.summary) + "</td></tr>";
    }
    out += "</table>";
    if (runs->runs.size() >= 2) {
        Result<RunDiffResult> diff = run_diff_command(fs, ws, RunOptions{}, runs->runs[1].name, runs->runs[0].name, false);
        if (diff) {
            out += "<h3>From " + esc(diff->from.substr(0, 16)) + " to " + esc(diff->to.substr(0, 16)) + "</h3>";
            for (const RunFileDiff& f : diff->files) {
                if (!f.changed) continue;
                out += "<details><summary><code>" + esc(f.name) + "</code> +" + std::to_string(f.added) + " −" +
                       std::to_string(f.removed) + "</summary><pre class=\"diff\">" + esc(f.diff) + "</pre></details>";
            }
            out += "<p>Progress: " + std::to_string(diff->progress.entries_before) + " → " +
                   std::to_string(diff->progress.entries_after) + " entries";
            if (!diff->progress.completed_delta.empty()) {
                out += "; completed since:";
                for (const string& id : diff->progress.completed_delta) out += " <code>" + esc(id) + "</code>";
            }
            out += "</p>";
        } else {
            notes.push_back("run diff: " + diff.error().message);
        }
    }
    return out + "</section>";
}

string sides_section(const FileSystem& fs, const WorkspacePaths& ws, std::vector<string>& notes) {
    string out = "<section id=\"sides\"><h2>Branches and work trees</h2>";
    Result<StatusAllReport> all = status_all_command(fs, ws);
    if (!all) {
        notes.push_back("branches: " + all.error().message);
        return out + "<p class=\"note\">" + esc(all.error().message) + "</p></section>";
    }
    out += "<table><tr><th>Side</th><th>Head</th><th>Tasks</th><th>Newest entry</th><th>Not merged here</th></tr>";
    for (const WorkSide& side : all->sides) {
        std::map<string, std::size_t> counts;
        for (const SideTask& t : side.tasks) ++counts[t.status];
        string tasks;
        for (const auto& [status, n] : counts) tasks += (tasks.empty() ? "" : ", ") + std::to_string(n) + " " + esc(status);
        out += "<tr class=\"side\" data-side=\"" + esc(side.name) + "\"><td>" + esc(side.name) + (side.current ? " <b>(here)</b>" : "") +
               (side.worktree.empty() ? "" : "<div class=\"muted mono\">" + esc(side.worktree) + "</div>") + "</td><td class=\"mono\">" +
               esc(side.head.substr(0, 12)) + "</td><td>" + (side.problem.empty() ? tasks : esc(side.problem)) + "</td><td>" +
               (side.newest ? esc(side.newest->task_id + " " + side.newest->status + " " + side.newest->timestamp.substr(0, 19)) : "") +
               "</td><td>" + std::to_string(side.unmerged) + "</td></tr>";
    }
    return out + "</table></section>";
}

}  // namespace

string html_escape(std::string_view text) {
    string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

Result<HtmlReport> html_report(const FileSystem& fs, const WorkspacePaths& ws, const HtmlReportOptions& options) {
    Result<BoardReport> board = board_command(fs, ws, BoardOptions{options.entries});
    if (!board) return board.error();
    HtmlReport report;
    report.tasks = board->graph.tasks.size();
    report.entries = board->newest.size();
    // check --strict as `small check` runs it, verified prefix included.
    VerdictRequest check;
    check.options.strict = true;
    Result<VerdictRun> run = verdict_command(fs, ws, check);
    if (!run) return run.error();
    const Verdict& verdict = run->verdict;
    const std::vector<Finding> findings = verdict.all_findings();
    report.findings = findings.size();
    string body = summary_section(*board, verdict, count_errors(findings)) + board_section(*board, options.settled_cards) +
                  graph_section(*board, options.graph_tasks, report.notes) + findings_section(findings) +
                  timeline_section(*board, options.per_task) +
                  runs_section(fs, ws, options.runs, report.notes);
    if (options.all) body += sides_section(fs, ws, report.notes);
    const string title = "small report: " + ws.root;
    report.html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
                  "<title>" + esc(title) + "</title><style>" + kStyle + "</style></head><body><header><h1>" + esc(title) +
                  "</h1><p>Run <code>" + esc(board->run_id.empty() ? "(none pinned)" : board->run_id.substr(0, 16)) +
                  "</code> · generated " + esc(format_timestamp_short(current_instant()).substr(0, 19)) + "Z by small " +
                  esc(tool_version()) + "</p></header><main>" + body;
    if (!report.notes.empty()) {
        report.html += "<section id=\"notes\"><h2>Left out</h2><ul>";
        for (const string& n : report.notes) report.html += "<li>" + esc(n) + "</li>";
        report.html += "</ul></section>";
    }
    report.html += "</main></body></html>\n";
    return report;
}

Status write_view_file(const FileSystem& fs, const std::string& path, std::string_view text, const std::string& command) {
    if (Status inside = refuse_target_inside_small_dir(fs, path, command); !inside) return inside;
    const std::string dir = parent_path(path);
    if (!fs.directory_exists(dir)) return Error::system("cannot write " + path + ": its folder does not exist");
    return write_file_in_folder_atomic(fs, dir, path.substr(dir.size() + (dir == "/" ? 0 : 1)), text, 0644);
}

Status write_html_report(const FileSystem& fs, const std::string& path, std::string_view html) {
    return write_view_file(fs, path, html, "report");
}

}  // namespace small
