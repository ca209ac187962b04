// The run index (see run_index.hpp).
#include "small/store/run_index.hpp"

#include "small/doc/yaml_writer.hpp"
#include "small/model/replay_id.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

Status append_run_index(const FileSystem& fs, const WorkspacePaths& ws, const std::string& store,
                        const RunIndexEntry& entry) {
    if (entry.replay_id.empty() || entry.timestamp.empty() || entry.reason.empty()) {
        return Error::internal("run index entry requires replayId, timestamp and reason");
    }
    const std::string path = store + "/" + std::string(kRunIndexFileName);
    YamlValue index = YamlValue::object();
    if (fs.file_exists(path)) {
        Result<Document> doc = load_yaml_file(fs, path, path);
        if (!doc) {
            Error e = doc.error();
            e.hint = "move " + path + " aside (it is a ledger of snapshots and archives; nothing else reads it)";
            return e;
        }
        index = to_yaml_value(doc->root());
    }
    if (!index.is_object()) return Error::invalid(path + ": the run index must be a mapping; move it aside");
    if (!index.contains("small_version")) index["small_version"] = std::string(kProtocolVersion);
    if (!index.contains("entries") || index["entries"].is_null()) index["entries"] = YamlValue::array();
    YamlValue& entries = index["entries"];
    if (!entries.is_array()) return Error::invalid(path + ": `entries` must be a list; move the file aside");
    YamlValue e = YamlValue::object();
    e["replayId"] = entry.replay_id;
    e["timestamp"] = entry.timestamp;
    if (!entry.git_sha.empty()) e["git_sha"] = entry.git_sha;
    if (!entry.summary.empty()) e["summary"] = entry.summary;
    if (!entries.empty() && entries.back().is_object() && entries.back().contains("replayId") &&
        entries.back()["replayId"].is_string()) {
        e["previous_replay_id"] = entries.back()["replayId"];
    }
    e["reason"] = entry.reason;
    entries.push_back(std::move(e));
    if (Status s = ensure_directory(fs, ws, store); !s) return s;
    return write_file_atomic(fs, ws, path, emit_document(index));
}

}  // namespace small
