// This checkout's own work (see the header).
#include "small/store/local_work.hpp"

#include <algorithm>
#include <span>

#include "small/base/text.hpp"
#include "small/model/layout.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/log_facts_cache.hpp"

namespace small {

namespace {

constexpr const char* kLocalWorkName = "local.work";

using Pair = std::pair<std::string, std::string>;

Result<std::string> read_body(const FileSystem& fs, const WorkspacePaths& ws) {
    return fs.read_file_no_follow(runtime_path(ws.root, kCacheDirName), kLocalWorkName);
}

// Every (run, task) pair recorded, one "<run> <task>" line each.
std::set<Pair> pairs_of(const Result<std::string>& body) {
    std::set<Pair> pairs;
    if (!body) return pairs;
    const bool ok = decode_cache_lines(*body, [&](std::vector<std::string>& fields) {
        if (fields.size() != 2) return false;
        pairs.emplace(std::move(fields[0]), std::move(fields[1]));
        return true;
    });
    if (!ok) pairs.clear();  // a torn file reads as nothing recorded
    return pairs;
}

// The (run, task) pairs of the work entries among `entries`, read as
// log_facts reads an entry (trimmed; the run id case-insensitive).
std::vector<Pair> work_pairs(const std::vector<YamlValue>& entries) {
    std::vector<Pair> out;
    for (const YamlValue& e : entries) {
        const EntryText text = entry_text(e);
        std::string task(trim(text.task_id)), run = lower_ascii(trim(text.replay_id));
        if (task.empty() || run.empty() || is_bookkeeping_entry(task, trim(text.evidence), trim(text.notes))) continue;
        out.emplace_back(std::move(run), std::move(task));
    }
    return out;
}

// True when the whole, untorn file already records every pair of `wanted`
// (one run): then recording them changes nothing. Scans without copying;
// a task's first work entry is the only one that writes.
bool all_recorded(const Result<std::string>& body, const std::vector<Pair>& wanted) {
    if (!body) return false;
    const auto escaped = [](const std::string& field) {
        std::string out;
        append_cache_field(out, field);
        return out;
    };
    const std::string run = escaped(wanted.front().first);
    std::vector<std::pair<std::string, bool>> tasks;
    for (const Pair& p : wanted) {
        if (p.first != wanted.front().first) return false;
        tasks.emplace_back(escaped(p.second), false);
    }
    const bool whole = scan_cache_lines(*body, [&](std::span<const std::string_view> fields) {
        if (fields.size() != 2) return false;
        if (fields[0] != run) return true;
        for (auto& [task, seen] : tasks) seen |= fields[1] == task;
        return true;
    });
    return whole && std::all_of(tasks.begin(), tasks.end(), [](const auto& t) { return t.second; });
}

}  // namespace

void record_local_work(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<YamlValue>& entries) {
    const std::vector<Pair> wanted = work_pairs(entries);
    if (wanted.empty()) return;
    const Result<std::string> body = read_body(fs, ws);
    if (all_recorded(body, wanted)) return;
    // Only the current run (the first entry's) is kept: other runs' pairs are dropped.
    const std::string& run = wanted.front().first;
    std::set<Pair> pairs;
    for (auto& pair : pairs_of(body)) {
        if (pair.first == run) pairs.insert(std::move(pair));
    }
    // The first record of a run in this checkout: the tasks the run's log
    // already shows work for count as this checkout's too (they may predate
    // the record: an upgrade, a cleared cache), so they are never taken for
    // another branch's.
    if (pairs.empty()) {
        if (Result<LogFacts> facts = cached_log_facts(fs, ws, run)) {
            for (const auto& [id, w] : facts->tasks) {
                if (!w.last_status.empty()) pairs.emplace(run, id);
            }
        }
    }
    for (const Pair& p : wanted) pairs.insert(p);
    std::string out;
    for (const auto& [r, task] : pairs) {
        append_cache_field(out, r);
        out += ' ';
        append_cache_field(out, task);
        out += '\n';
    }
    // Best effort: losing it only makes the resume point read the log alone.
    (void)write_file_atomic(fs, ws, runtime_path(ws.root, kCacheDirName) + "/" + kLocalWorkName, out, kCacheWrite);
}

std::set<std::string, std::less<>> local_work(const FileSystem& fs, const WorkspacePaths& ws,
                                              const std::string& run_id) {
    std::set<std::string, std::less<>> tasks;
    for (const auto& [run, task] : pairs_of(read_body(fs, ws))) {
        if (run == run_id) tasks.insert(task);
    }
    return tasks;
}

WorkFacts with_local_work(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id, WorkFacts facts) {
    for (const std::string& id : local_work(fs, ws, run_id)) facts[id].here = true;
    return facts;
}

}  // namespace small
