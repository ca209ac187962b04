// `small mcp`: a Model Context Protocol server (JSON-RPC 2.0, one message per
// line) that calls the ops/ operations in-process and answers with the
// report/ JSON bodies inside the D16 envelope, so an agent sees exactly what
// `small <command> --json` prints. No terminal I/O here: the CLI wires stdin
// and stdout to serve(); tests drive Server::handle() line by line.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/base/filesystem.hpp"
#include "small/mcp/answer_cache.hpp"
#include "small/model/workspace.hpp"

namespace small::mcp {

// Protocol revisions we speak, newest first: an initialize naming one of them
// gets it back, anything else gets the newest.
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

// The longest message accepted; a longer line is answered with an error and
// skipped up to its newline without being kept in memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{4} << 20;  // 4 MiB

// The largest artifact resources/read returns (a longer progress log is
// refused: progress list or emit page through it).
inline constexpr std::size_t kMaxResourceBytes = std::size_t{8} << 20;

// JSON-RPC error codes, plus MCP's "resource not found".
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;

struct ServerOptions {
    WorkspacePaths ws;                           // the workspace every tool works on
    WorkspaceScope scope = WorkspaceScope::Root;  // --workspace
    std::string version;                          // serverInfo.version
    AnswerClocks clocks{};                        // what the answer cache reads (tests shift them)
};

class Server {
public:
    Server(const FileSystem& fs, ServerOptions options);

    // One message (a line without its newline): the response line (no
    // newline), or nothing for a notification, a client's response or a
    // blank line.
    std::optional<std::string> handle(std::string_view line);
    // The answer to a line longer than the cap.
    static std::string oversized_line_error(std::size_t cap);

    bool initialized() const { return initialized_; }
    // How many resume, ready and check calls were answered from memory (tests).
    const AnswerCache::Counts& answer_counts() const { return answers_.counts(); }

private:
    nlohmann::json dispatch(const std::string& method, const nlohmann::json& params, bool& ok);
    nlohmann::json initialize(const nlohmann::json& params);
    nlohmann::json call_tool(const nlohmann::json& params, bool& ok);
    nlohmann::json read_resource(const nlohmann::json& params, bool& ok);

    const FileSystem& fs_;
    ServerOptions options_;
    bool initialized_ = false;
    AnswerCache answers_;  // issue 39: resume, ready and check while nothing changed
};

// The tools/list result (the exact bytes an agent pays for in its context).
const nlohmann::json& tools_list();

// Byte I/O for serve(): read returns the bytes read, 0 at end of input and
// < 0 on an error; write returns false once the peer is gone; log takes one
// diagnostic line (stderr in the CLI).
struct Transport {
    std::function<long(char* buffer, std::size_t size)> read;
    std::function<bool(std::string_view bytes)> write;
    std::function<void(std::string_view line)> log;
};

// Reads newline-delimited messages until end of input or until the peer is
// gone, answering each through `server`. A line longer than `max_line` is
// answered with an error and skipped; an unterminated message at end of
// input is dropped (and logged).
void serve(Server& server, const Transport& io, std::size_t max_line = kMaxLineBytes);

}  // namespace small::mcp
