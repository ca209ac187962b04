// `small lsp`: a Language Server (LSP 3.17, JSON-RPC 2.0 framed by
// Content-Length headers) for the `.small/*.yml` files. On every open and
// change it runs the real verdict (`check --strict`: the check/ pipeline,
// as ops/inspect/verdict runs it) over the disk with the client's unsaved
// buffers laid on it (lsp/overlay_filesystem) and publishes the findings of
// every file as diagnostics, with quick fixes where the fix is mechanical;
// it answers hover, definition and completion from the plan. No terminal
// I/O: the CLI wires stdin and stdout to serve(); tests drive
// Server::handle() one message at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/base/filesystem.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/lsp/diagnostics.hpp"
#include "small/base/filesystem.hpp"
#include "small/lsp/task_facts.hpp"
#include "small/model/workspace.hpp"

namespace small::lsp {

// The largest message body accepted (a progress log opened whole fits); a
// longer one is answered with an error and skipped without being kept.
inline constexpr std::size_t kMaxFrameBytes = std::size_t{64} << 20;
// The longest header block; past it the bytes are dropped with an error.
inline constexpr std::size_t kMaxHeaderBytes = 8 * 1024;

// JSON-RPC's error codes and LSP's own.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;

struct ServerOptions {
    WorkspacePaths ws;                            // the workspace served
    WorkspaceScope scope = WorkspaceScope::Root;  // --workspace, as check takes it
    std::string version;                          // serverInfo.version
};

class Server {
public:
    Server(const FileSystem& disk, ServerOptions options);

    // One message body: the bodies to send back, in order (the response,
    // notifications such as publishDiagnostics, or nothing).
    std::vector<std::string> handle(std::string_view body);
    // A JSON-RPC error without an id (a frame that could not be read).
    static std::string error_body(int code, const std::string& message);

    bool exited() const { return exited_; }
    // LSP: exit after shutdown is 0, an exit without it 1.
    int exit_code() const { return shut_down_ ? 0 : 1; }
    // What was last published, by absolute path (tests).
    const std::map<std::string, std::vector<Diagnostic>>& published() const { return published_; }

private:
    nlohmann::json dispatch(const std::string& method, const nlohmann::json& params);
    void notify(const std::string& method, const nlohmann::json& params, std::vector<std::string>& out);
    void open_or_change(const std::string& method, const nlohmann::json& params, std::vector<std::string>& out);
    void publish_diagnostics(const std::string& changed_path, std::vector<std::string>& out);
    std::optional<std::string> text_of(const std::string& path) const;
    std::optional<std::string> document_text(const std::string& uri) const;
    const TaskIndex& tasks();
    std::string holder_of(const std::string& task) const;
    const NewestEntry* newest_entry(const std::string& task);
    nlohmann::json hover(const nlohmann::json& params);
    nlohmann::json definition(const nlohmann::json& params);
    nlohmann::json completion(const nlohmann::json& params);
    nlohmann::json code_actions(const nlohmann::json& params);

    OverlayFileSystem fs_;
    ServerOptions options_;
    bool initialized_ = false, shut_down_ = false, exited_ = false;
    bool watch_files_ = false;  // the client registers file watchers when asked (didChangeWatchedFiles)
    std::optional<VerifiedPrefix> prefix_;  // the log's verified prefix, kept between verdicts
    TaskIndex tasks_;                       // the plan's last index that parsed
    std::string tasks_version_;
    std::map<std::string, NewestEntry> newest_;
    std::optional<std::string> newest_version_;  // the log's version newest_ was read from
    std::map<std::string, std::vector<Diagnostic>> published_;
};

// "Content-Length: N\r\n\r\n" and the body.
std::string frame(std::string_view body);

// Cuts a byte stream into message bodies. A header block without a usable
// Content-Length, a header block too long, junk before a header or a body
// over the cap is reported through `error` (and skipped); reading goes on
// at the next header.
class FrameReader {
public:
    explicit FrameReader(std::size_t max_body = kMaxFrameBytes) : max_body_(max_body) {}
    // False from a callback stops the feeding (the peer is gone, or exit).
    bool feed(std::string_view bytes, const std::function<bool(std::string_view body)>& message,
              const std::function<bool(const std::string& problem)>& error);
    // Bytes of a message begun and not finished (at the end of input).
    std::size_t pending() const { return buffer_.size() + (state_ == State::Header ? 0 : remaining_); }

private:
    enum class State { Header, Body, Skip };
    bool take_header(const std::function<bool(const std::string&)>& error);
    std::size_t max_body_;
    State state_ = State::Header;
    std::string buffer_;
    std::size_t remaining_ = 0;  // body bytes still to come (Body, Skip)
};

// Byte I/O for serve(), as the MCP server's: read returns the bytes read,
// 0 at end of input, < 0 on an error; write returns false once the peer is gone.
struct Transport {
    std::function<long(char* buffer, std::size_t size)> read;
    std::function<bool(std::string_view bytes)> write;
    std::function<void(std::string_view line)> log;
};

// Serves until `exit`, the end of input or the peer's going; the exit code
// LSP gives (0 after shutdown, else 1).
int serve(Server& server, const Transport& io, std::size_t max_body = kMaxFrameBytes);

}  // namespace small::lsp
