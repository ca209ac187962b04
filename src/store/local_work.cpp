// This checkout's own work (see the header).
#include "small/store/local_work.hpp"

#include "small/base/text.hpp"
#include "small/model/layout.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/resume_state.hpp"

namespace small {

namespace {

constexpr const char* kLocalWorkName = "local.work";

// Every (run, task) pair recorded, one "<run> <task>" line each.
std::set<std::pair<std::string, std::string>> read_pairs(const FileSystem& fs, const WorkspacePaths& ws) {
    std::set<std::pair<std::string, std::string>> pairs;
    Result<std::string> body = fs.read_file_no_follow(runtime_path(ws.root, kCacheDirName), kLocalWorkName);
    if (!body) return pairs;
    const bool ok = decode_cache_lines(*body, [&](std::vector<std::string>& fields) {
        if (fields.size() != 2) return false;
        pairs.emplace(std::move(fields[0]), std::move(fields[1]));
        return true;
    });
    if (!ok) pairs.clear();  // a torn file reads as nothing recorded
    return pairs;
}

}  // namespace

void record_local_work(const WorkspacePaths& ws, const std::vector<YamlValue>& entries) {
    const RealFileSystem disk;
    std::set<std::pair<std::string, std::string>> pairs;
    bool loaded = false, added = false;
    for (const YamlValue& e : entries) {
        // Read as log_facts reads an entry (trimmed; the run id case-insensitive).
        const EntryText text = entry_text(e);
        const std::string task(trim(text.task_id)), run = lower_ascii(trim(text.replay_id));
        if (task.empty() || run.empty() || is_bookkeeping_entry(task, trim(text.evidence), trim(text.notes))) continue;
        if (!loaded) {
            // Only the current run is ever read: other runs' pairs are dropped.
            for (auto& pair : read_pairs(disk, ws)) {
                if (pair.first == run) pairs.insert(std::move(pair));
            }
            // The first record of a run in this checkout: the tasks the run's
            // log already shows work for count as this checkout's too (they
            // may predate the record: an upgrade, a cleared cache), so they
            // are never taken for another branch's.
            if (pairs.empty()) {
                if (Result<LogFacts> facts = cached_log_facts(disk, ws, run)) {
                    for (const auto& [id, w] : facts->tasks) {
                        if (!w.last_status.empty()) pairs.emplace(run, id);
                    }
                }
                added = true;
            }
            loaded = true;
        }
        added |= pairs.emplace(run, task).second;
    }
    if (!added) return;
    std::string body;
    for (const auto& [run, task] : pairs) {
        append_cache_field(body, run);
        body += ' ';
        append_cache_field(body, task);
        body += '\n';
    }
    // Best effort: losing it only makes the resume point read the log alone.
    (void)write_cache_file(ws, runtime_path(ws.root, kCacheDirName) + "/" + kLocalWorkName, body);
}

std::set<std::string, std::less<>> local_work(const FileSystem& fs, const WorkspacePaths& ws,
                                              const std::string& run_id) {
    std::set<std::string, std::less<>> tasks;
    for (const auto& [run, task] : read_pairs(fs, ws)) {
        if (run == run_id) tasks.insert(task);
    }
    return tasks;
}

WorkFacts with_local_work(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id, WorkFacts facts) {
    for (const std::string& id : local_work(fs, ws, run_id)) facts[id].here = true;
    return facts;
}

}  // namespace small
