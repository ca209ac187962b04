// The command logs of `small apply` (authoring.md §8): for each run of a
// command, `.small-cache/logs/<replayId>/commands/<stamp>.txt` holds the
// command text exactly, and `<stamp>.output.txt` its captured output
// (stdout and stderr interleaved; head and tail kept when it is long).
// Progress entries point at the first with `command_ref`.
//
// The replay id is validated (64 lower-case hex) before it names a folder,
// and no folder on the way may be a symbolic link (atomic_file.hpp rules),
// so a log is never written outside the workspace's `.small-cache/`.
#pragma once

#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/layout.hpp"

namespace small {

// At most this many bytes of summary (UTF-8 kept whole): longer commands
// are cut and end in "...".
inline constexpr std::size_t kCommandSummaryBytes = 200;

// The command with every whitespace run collapsed to one space, trimmed,
// and cut to kCommandSummaryBytes.
std::string command_summary(std::string_view command);

// "20250601T100000.100000000Z": an instant as a file name.
std::string command_log_stamp(Instant at);

struct CommandLog {
    std::string replay_id;
    std::string command_ref;  // relative to the root, forward slashes
    std::string output_ref;   // where write_command_output puts the output
    std::string sha256;       // of the command text
    std::string summary;      // command_summary()
    Instant at;               // the instant in the file names
};

// The log of one run of `command`, named after the first instant at or
// after `earliest` whose files do not exist yet (two runs never share a
// log). Writes the command file. Under the workspace lock. Errors:
// Invalid (an id that is not 64 lower-case hex, a symbolic link on the
// way), System (I/O).
Result<CommandLog> create_command_log(const FileSystem& fs, const WorkspacePaths& ws, const std::string& replay_id,
                                      std::string_view command, Instant earliest);

// Writes the captured output next to the command file.
Status write_command_output(const FileSystem& fs, const WorkspacePaths& ws, const CommandLog& log, std::string_view output);

// Adds command, command_summary, command_sha256 and command_ref to an
// entry, in the schema's key order (after evidence/verification, before
// test/link/commit/notes). A blank summary leaves out command and
// command_summary (the text is withheld; the hash and the log remain).
void add_command_fields(YamlValue& entry, const CommandLog& log);

}  // namespace small
