#include "small/ops/inspect/board.hpp"

#include "small/domain/progress_query.hpp"
#include "small/domain/resume_state.hpp"
#include "small/model/plan_model.hpp"

namespace small {

namespace {

CardEvidence evidence_of(const ProgressItem& item) {
    const std::string& text = !item.evidence.empty() ? item.evidence : !item.command_summary.empty() ? item.command_summary : item.notes;
    return {item.timestamp, item.status, text};
}

}  // namespace

Result<BoardReport> board_command(const FileSystem& fs, const WorkspacePaths& ws, const BoardOptions& options) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    BoardReport board;
    board.run_id = pinned_run_of(fs, ws);
    Result<PlanGraph> graph = load_plan_graph(fs, ws, board.run_id);
    if (!graph) return graph.error();
    board.graph = std::move(*graph);
    board.columns = board_columns(board.graph);
    if (!fs.file_exists(ws.path_of(kProgressFileName)) || options.evidence_window == 0) return board;
    EntryQuery query;
    query.run_id = board.run_id;
    query.signal_only = true;
    query.limit = options.evidence_window;
    Result<EntryList> newest = query_entries(fs, ws, query);
    if (!newest) return newest.error();
    board.window_full = newest->more;
    for (const YamlValue& entry : newest->entries) {  // newest first: the first seen is a task's newest
        const ProgressItem item = progress_item_of(entry);
        if (is_bookkeeping_entry(item.task_id, item.evidence, item.notes)) continue;  // plan edits, claims: not work
        if (!board.evidence.count(item.task_id)) board.evidence.emplace(item.task_id, evidence_of(item));
    }
    board.newest = std::move(newest->entries);
    return board;
}

}  // namespace small
