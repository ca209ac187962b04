// The MCP protocol engine: JSON-RPC 2.0 framing and validation, the
// lifecycle (initialize first), tools and resources. Every message gets at
// most one answer and nothing ends the server but the end of its input.
#include "small/mcp/server.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "small/base/text.hpp"
#include "small/model/layout.hpp"
#include "tools.hpp"

namespace small::mcp {

namespace {

using nlohmann::json;

std::string error_line(const json& id, int code, const std::string& message) {
    return dump({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

// A protocol-level failure inside a handler: its code and message.
struct RpcError {
    int code;
    std::string message;
};

// JSON values are copied and destroyed recursively: a message nested deeper
// than any MCP message needs is refused before it is parsed.
constexpr std::size_t kMaxDepth = 64;

bool too_deep(std::string_view text) { return json_nesting_deeper_than(text, kMaxDepth); }

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

const std::string kUriPrefix = "small://";

json resource_entries() {
    json list = json::array();
    for (const ArtifactType type : kArtifactTypes) {
        const std::string file = artifact_file_name(type);
        const std::string name = file.substr(0, file.find('.'));
        list.push_back({{"uri", kUriPrefix + name},
                        {"name", name},
                        {"description", small_relative(file)},
                        {"mimeType", "application/yaml"}});
    }
    return list;
}

// Issue 41: the text a client may show passes the one output sanitizer.
json result_json(const ToolResult& r) {
    return {{"content", json::array({{{"type", "text"}, {"text", visible_lines(r.text)}}})},
            {"structuredContent", r.structured},
            {"isError", r.is_error}};
}

// The tools whose answers are kept while their inputs are unchanged: the
// ones an agent calls again and again, whose dependence on the clock
// tools.cpp works out (steady_until).
bool answered_from_memory(const std::string& tool) { return tool == "resume" || tool == "ready" || tool == "check"; }

}  // namespace

const json& tools_list() {
    static const json result = {{"tools", tool_entries()}};
    return result;
}

Server::Server(const FileSystem& fs, ServerOptions options)
    : fs_(fs), options_(std::move(options)), answers_(options_.clocks) {}

std::string Server::oversized_line_error(std::size_t cap) {
    return error_line(nullptr, kParseError,
                      "Parse error: message longer than " + std::to_string(cap) + " bytes; skipped");
}

std::optional<std::string> Server::handle(std::string_view line) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
    if (too_deep(line)) {
        return error_line(nullptr, kParseError,
                          "Parse error: nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    const json msg = json::parse(line, nullptr, false);
    if (msg.is_discarded()) return error_line(nullptr, kParseError, "Parse error: not valid JSON");
    if (msg.is_array()) {
        return error_line(nullptr, kInvalidRequest, "Invalid Request: batches are not supported; send one message");
    }
    if (!msg.is_object()) return error_line(nullptr, kInvalidRequest, "Invalid Request: not a JSON-RPC object");
    const auto id_it = msg.find("id");
    const bool has_id = id_it != msg.end();
    if (has_id && !valid_id(*id_it)) {
        return error_line(nullptr, kInvalidRequest, "Invalid Request: id must be a string or an integer");
    }
    const json id = has_id ? *id_it : json(nullptr);
    if (msg.value("jsonrpc", json()) != "2.0") {
        return error_line(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    }
    const auto method_it = msg.find("method");
    if (method_it == msg.end()) {
        // A response to a request we never sent: nothing to answer.
        if (has_id && (msg.contains("result") || msg.contains("error"))) return std::nullopt;
        return error_line(id, kInvalidRequest, "Invalid Request: no method");
    }
    if (!method_it->is_string()) return error_line(id, kInvalidRequest, "Invalid Request: method must be a string");
    const std::string method = method_it->get<std::string>();
    if (!has_id) return std::nullopt;  // a notification (initialized, cancelled, ...): never answered
    const json params = msg.value("params", json::object());
    if (!params.is_object()) return error_line(id, kInvalidParams, "Invalid params: params must be an object");
    bool ok = true;
    json result;
    try {
        result = dispatch(method, params, ok);
    } catch (const std::exception& e) {
        return error_line(id, kInternalError, std::string("Internal error: ") + e.what());
    }
    if (!ok) return error_line(id, result["code"].get<int>(), result["message"].get<std::string>());
    return dump({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

// The result of `method`, or with ok = false {code, message} of its error.
json Server::dispatch(const std::string& method, const json& params, bool& ok) {
    const auto fail = [&ok](int code, std::string message) {
        ok = false;
        return json{{"code", code}, {"message", std::move(message)}};
    };
    if (method == "ping") return json::object();
    if (method == "initialize") {
        if (initialized_) return fail(kInvalidRequest, "Invalid Request: already initialized");
        return initialize(params);
    }
    static const char* const kMethods[] = {"tools/list", "tools/call", "resources/list", "resources/read"};
    if (std::find(std::begin(kMethods), std::end(kMethods), method) == std::end(kMethods)) {
        return fail(kMethodNotFound, "Method not found: " + method);
    }
    if (!initialized_) return fail(kInvalidRequest, "Invalid Request: send initialize first");
    if (method == "tools/list") return tools_list();
    if (method == "tools/call") return call_tool(params, ok);
    if (method == "resources/list") return {{"resources", resource_entries()}};
    return read_resource(params, ok);
}

json Server::initialize(const json& params) {
    std::string version(kProtocolVersions[0]);
    if (const auto it = params.find("protocolVersion"); it != params.end() && it->is_string()) {
        const auto known = std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), it->get<std::string>());
        if (known != std::end(kProtocolVersions)) version = std::string(*known);
    }
    initialized_ = true;
    return {{"protocolVersion", version},
            {"capabilities", {{"tools", json::object()}, {"resources", json::object()}}},
            {"serverInfo", {{"name", "small"}, {"version", options_.version}}},
            {"instructions", "SMALL project state in .small/. Call resume first; record work with checkpoint or "
                             "progress_add; end with handoff and check."}};
}

json Server::call_tool(const json& params, bool& ok) {
    const auto fail = [&ok](std::string message) {
        ok = false;
        return json{{"code", kInvalidParams}, {"message", "Invalid params: " + std::move(message)}};
    };
    const auto name_it = params.find("name");
    if (name_it == params.end() || !name_it->is_string()) return fail("tools/call needs a tool name");
    const std::string name = name_it->get<std::string>();
    const json* tool = find_tool(name);
    if (!tool) return fail("unknown tool '" + name + "'");
    // Unknown tools are a protocol error (MCP says so); wrong arguments for a
    // known one are the tool's error, which the agent reads and corrects.
    const json arguments = params.value("arguments", json::object());
    if (const std::optional<std::string> problem = argument_problem((*tool)["inputSchema"], arguments)) {
        return result_json(argument_failure(name, *problem));
    }
    const auto run = [&](const FileSystem& fs, Instant asked_at) {
        return run_tool(name, arguments, ToolContext{fs, options_.ws, options_.scope, options_.version, asked_at});
    };
    if (answered_from_memory(name)) {
        return answers_.answer(name + "\n" + dump(arguments), fs_, [&](const FileSystem& fs, Instant asked_at) {
            const ToolResult r = run(fs, asked_at);
            return TimedAnswer{result_json(r), r.steady_until};
        });
    }
    const json result = result_json(run(fs_, current_instant()));
    // A tool that may write (and claims, which exchanges with the remote):
    // nothing kept is trusted after it, whatever its stamps say.
    if (!(*tool)["annotations"].value("readOnlyHint", false)) answers_.clear();
    return result;
}

json Server::read_resource(const json& params, bool& ok) {
    const auto fail = [&ok](int code, std::string message) {
        ok = false;
        return json{{"code", code}, {"message", std::move(message)}};
    };
    const auto uri_it = params.find("uri");
    if (uri_it == params.end() || !uri_it->is_string()) return fail(kInvalidParams, "Invalid params: uri needed");
    const std::string uri = uri_it->get<std::string>();
    for (const ArtifactType type : kArtifactTypes) {
        const std::string file = artifact_file_name(type);
        if (uri != kUriPrefix + file.substr(0, file.find('.'))) continue;
        const std::string path = options_.ws.path_of(file);
        if (fs_.is_symlink(options_.ws.small_dir) || !fs_.file_exists(path)) {
            return fail(kResourceNotFound, "Resource not found: " + options_.ws.display_of(file) + " does not exist");
        }
        // A link could hand any file the server can read to the client.
        if (fs_.is_symlink(path)) {
            return fail(kResourceNotFound, "Resource not readable: " + options_.ws.display_of(file) +
                                               " is a symbolic link; an artifact must be a regular file");
        }
        // The checks above only word the usual refusals: a link swapped in
        // since then is refused by the read itself (O_NOFOLLOW).
        Result<FileRange> bytes = fs_.read_range_no_follow(options_.ws.small_dir, file, 0, kMaxResourceBytes + 1);
        if (!bytes) return fail(kResourceNotFound, "Resource not readable: " + bytes.error().describe());
        if (bytes->file_size > kMaxResourceBytes) {
            return fail(kInvalidParams, "Invalid params: " + options_.ws.display_of(file) + " is larger than " +
                                            std::to_string(kMaxResourceBytes) + " bytes; read it with small emit");
        }
        return {{"contents", json::array({{{"uri", uri}, {"mimeType", "application/yaml"}, {"text", bytes->bytes}}})}};
    }
    return fail(kResourceNotFound, "Resource not found: " + uri + " (small://intent, constraints, plan, progress, "
                                   "handoff)");
}

void serve(Server& server, const Transport& io, std::size_t max_line) {
    std::string pending;      // the start of the current line
    bool skipping = false;    // inside a line that went over the cap
    std::vector<char> chunk(64 * 1024);
    const auto answer = [&](std::string_view line) {
        std::optional<std::string> reply = server.handle(line);
        return !reply || io.write(*reply + "\n");
    };
    for (;;) {
        const long n = io.read(chunk.data(), chunk.size());
        if (n <= 0) break;
        std::string_view data(chunk.data(), static_cast<std::size_t>(n));
        while (!data.empty()) {
            const std::size_t nl = data.find('\n');
            const std::string_view part = data.substr(0, nl);
            if (!skipping && pending.size() + part.size() > max_line) {
                skipping = true;
                pending.clear();
                pending.shrink_to_fit();
                if (!io.write(Server::oversized_line_error(max_line) + "\n")) return;
            }
            if (!skipping) pending.append(part);
            if (nl == std::string_view::npos) break;
            data.remove_prefix(nl + 1);
            if (!skipping && !answer(pending)) return;
            skipping = false;
            pending.clear();
        }
    }
    if (!pending.empty() && pending.find_first_not_of(" \t\r") != std::string::npos) {
        io.log("small mcp: input ended inside a message (" + std::to_string(pending.size()) + " bytes); ignored");
    }
}

}  // namespace small::mcp
