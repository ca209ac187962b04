// The command logs of `small apply` (see the header).
#include "small/store/command_log.hpp"


#include <cctype>
#include <cstdio>

#include "small/base/text.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

std::string folder_of(const std::string& replay_id) {
    return std::string(kCommandLogsDirName) + "/" + replay_id + "/commands";
}

}  // namespace

std::string command_summary(std::string_view command) {
    std::string out;
    bool space = false;
    for (const char c : command) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    if (out.size() <= kCommandSummaryBytes) return out;
    std::size_t cut = kCommandSummaryBytes - 3;
    while (cut > 0 && is_continuation(static_cast<unsigned char>(out[cut]))) --cut;
    return out.substr(0, cut) + "...";
}

std::string command_log_stamp(Instant at) {
    // format_timestamp_utc9: 2025-06-01T10:00:00.100000000Z
    const std::string t = format_timestamp_utc9(at);
    std::string out;
    for (const char c : t) {
        if (c != '-' && c != ':') out += c;
    }
    return out;
}

Result<CommandLog> create_command_log(const FileSystem& fs, const WorkspacePaths& ws, const std::string& replay_id,
                                      std::string_view command, Instant earliest) {
    const bool lower = is_lower_hex(replay_id);
    if (!lower || !is_valid_replay_id(replay_id)) {
        return Error::invalid("refusing to name a command log folder after \"" + replay_id +
                              "\": a replay id is 64 lower-case hex digits");
    }
    const std::string folder = folder_of(replay_id);
    if (Status s = ensure_directory(fs, ws, runtime_path(ws.root, folder)); !s) return s.error();
    CommandLog log;
    log.replay_id = replay_id;
    log.at = earliest;
    for (;;) {
        const std::string stamp = command_log_stamp(log.at);
        log.command_ref = folder + "/" + stamp + ".txt";
        log.output_ref = folder + "/" + stamp + ".output.txt";
        if (!fs.stat(runtime_path(ws.root, log.command_ref)) && !fs.stat(runtime_path(ws.root, log.output_ref))) {
            break;
        }
        log.at = plus_one_ns(log.at);
    }
    log.sha256 = sha256_hex(command);
    log.summary = command_summary(command);
    if (Status s = write_file_atomic(fs, ws, runtime_path(ws.root, log.command_ref), command); !s) return s.error();
    return log;
}

Status write_command_output(const FileSystem& fs, const WorkspacePaths& ws, const CommandLog& log, std::string_view output) {
    return write_file_atomic(fs, ws, runtime_path(ws.root, log.output_ref), output);
}

void add_command_fields(YamlValue& entry, const CommandLog& log) {
    YamlValue out = YamlValue::object();
    const auto put_command = [&] {
        if (!log.summary.empty()) {
            out["command"] = log.summary;
            out["command_summary"] = log.summary;
        }
        out["command_sha256"] = log.sha256;
        out["command_ref"] = log.command_ref;
    };
    bool done = false;
    for (const auto& [key, value] : entry.items()) {
        const bool later = key == "test" || key == "link" || key == "commit" || key == "notes" || key == "replayId";
        if (!done && later) {
            put_command();
            done = true;
        }
        if (key.rfind("command", 0) != 0) out[key] = value;
    }
    if (!done) put_command();
    entry = std::move(out);
}

}  // namespace small
