// The LSP engine: framing, the lifecycle (initialize first, shutdown, exit),
// the document sync that lays buffers over the disk, and the features. Every
// request gets one answer and nothing ends the server but exit or the end of
// its input.
#include "small/lsp/server.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <utility>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/model/claims.hpp"
#include "small/model/layout.hpp"
#include "small/model/task_status.hpp"
#include "small/store/claim_store.hpp"

namespace small::lsp {

namespace {

using nlohmann::json;

// JSON values are copied and destroyed recursively: a message nested deeper
// than any LSP message needs is refused before it is parsed.
constexpr std::size_t kMaxDepth = 64;

bool too_deep(std::string_view text) { return json_nesting_deeper_than(text, kMaxDepth); }

std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string error_with_id(const json& id, int code, const std::string& message) {
    return dump_json({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

// A request's failure inside a handler.
struct RpcError {
    int code;
    std::string message;
};

[[noreturn]] void invalid_params(const std::string& what) { throw RpcError{kInvalidParams, "Invalid params: " + what}; }

std::string uri_param(const json& params) {
    const json& doc = params.contains("textDocument") ? params["textDocument"] : json();
    if (!doc.is_object() || !doc.contains("uri") || !doc["uri"].is_string()) invalid_params("textDocument.uri needed");
    return doc["uri"].get<std::string>();
}

Position position_param(const json& params) {
    const std::optional<Position> p = params.contains("position") ? position_from_json(params["position"]) : std::nullopt;
    if (!p) invalid_params("position needed ({line, character}, unsigned integers)");
    return *p;
}

json notification(const std::string& method, json params) {
    return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

bool ieq_prefix(std::string_view text, std::string_view prefix) {
    if (text.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
    }
    return true;
}

bool header_line(std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return false;
    return std::all_of(line.begin(), line.begin() + static_cast<long>(colon),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
}

}  // namespace

// ---- framing ----

std::string frame(std::string_view body) {
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

// The header block at the buffer's start, up to its blank line: its
// Content-Length sets the body to read. Junk before the header lines (the
// rest of a message whose length was wrong) is reported and skipped.
bool FrameReader::take_header(const std::function<bool(const std::string&)>& error) {
    std::size_t end = buffer_.find("\r\n\r\n"), skip = 4;
    if (const std::size_t lf = buffer_.find("\n\n"); lf != std::string::npos && (end == std::string::npos || lf < end)) {
        end = lf;
        skip = 2;
    }
    if (end == std::string::npos) {
        if (buffer_.size() <= kMaxHeaderBytes) return true;
        buffer_.clear();
        return error("Parse error: a header block longer than " + std::to_string(kMaxHeaderBytes) +
                     " bytes without a blank line; skipped");
    }
    const std::string block = buffer_.substr(0, end);
    buffer_.erase(0, end + skip);
    std::optional<std::size_t> length;
    bool junk = false, bad_length = false;
    std::size_t start = 0;
    while (start <= block.size()) {
        std::size_t nl = block.find('\n', start);
        if (nl == std::string::npos) nl = block.size();
        std::string_view line(block.data() + start, nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        start = nl + 1;
        // A header may follow junk on its line: the rest of a body cut short.
        const std::size_t at = [&] {
            for (std::size_t i = 0; i + 15 <= line.size(); ++i) {
                if (ieq_prefix(line.substr(i), "content-length:")) return i;
            }
            return std::string_view::npos;
        }();
        if (at != std::string_view::npos) {
            if (at > 0) junk = true;
            const std::string_view value = trim(line.substr(at + 15));
            const bool digits = !value.empty() && value.size() <= 18 &&
                                std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
            bad_length = !digits;
            length = digits ? std::optional<std::size_t>(std::stoull(std::string(value))) : std::nullopt;
        } else if (!line.empty() && !header_line(line)) {
            junk = true;
        }
    }
    if (junk && !error("Parse error: bytes that are no header were skipped before a message")) return false;
    if (!length) {
        return error(bad_length ? "Parse error: Content-Length is not a number of bytes; message skipped"
                                : "Parse error: a header block without Content-Length; skipped");
    }
    remaining_ = *length;
    if (*length > max_body_) {
        state_ = State::Skip;
        return error("Parse error: a message of " + std::to_string(*length) + " bytes is longer than " +
                     std::to_string(max_body_) + "; skipped");
    }
    state_ = State::Body;
    return true;
}

bool FrameReader::feed(std::string_view bytes, const std::function<bool(std::string_view)>& message,
                       const std::function<bool(const std::string&)>& error) {
    buffer_.append(bytes);
    for (;;) {
        if (state_ == State::Skip) {
            const std::size_t n = std::min(remaining_, buffer_.size());
            buffer_.erase(0, n);
            remaining_ -= n;
            if (remaining_ > 0) return true;
            state_ = State::Header;
            continue;
        }
        if (state_ == State::Body) {
            if (buffer_.size() < remaining_) return true;
            std::string body = buffer_.substr(0, remaining_);
            buffer_.erase(0, remaining_);
            state_ = State::Header;
            if (!message(body)) return false;
            continue;
        }
        if (buffer_.empty()) return true;
        const std::size_t before = buffer_.size();
        if (!take_header(error)) return false;
        if (state_ == State::Header && buffer_.size() == before) return true;  // the header is still coming
    }
}

// ---- messages ----

Server::Server(const FileSystem& disk, ServerOptions options) : fs_(disk), options_(std::move(options)) {}

std::string Server::error_body(int code, const std::string& message) { return error_with_id(nullptr, code, message); }

std::vector<std::string> Server::handle(std::string_view body) {
    std::vector<std::string> out;
    if (too_deep(body)) return {error_body(kParseError, "Parse error: nested deeper than " + std::to_string(kMaxDepth) + " levels")};
    const json msg = json::parse(body, nullptr, false);
    if (msg.is_discarded()) return {error_body(kParseError, "Parse error: the message is not valid JSON")};
    if (!msg.is_object()) return {error_body(kInvalidRequest, "Invalid Request: not a JSON-RPC object (batches are not used by LSP)")};
    const auto id_it = msg.find("id");
    const bool has_id = id_it != msg.end();
    if (has_id && !id_it->is_string() && !id_it->is_number_integer()) {
        return {error_body(kInvalidRequest, "Invalid Request: id must be a string or an integer")};
    }
    const json id = has_id ? *id_it : json(nullptr);
    if (msg.value("jsonrpc", json()) != "2.0") return {error_with_id(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"")};
    const auto method_it = msg.find("method");
    if (method_it == msg.end()) {
        if (has_id && (msg.contains("result") || msg.contains("error"))) return {};  // a response: we ask nothing
        return {error_with_id(id, kInvalidRequest, "Invalid Request: no method")};
    }
    if (!method_it->is_string()) return {error_with_id(id, kInvalidRequest, "Invalid Request: method must be a string")};
    const std::string method = method_it->get<std::string>();
    json params = msg.value("params", json::object());
    if (params.is_null()) params = json::object();  // shutdown and exit may send null
    if (!params.is_object() && !params.is_array()) {
        return has_id ? std::vector<std::string>{error_with_id(id, kInvalidParams, "Invalid params: params must be an object")}
                      : std::vector<std::string>{};
    }
    if (!has_id) {
        // A notification is never answered; a broken one is dropped.
        try {
            notify(method, params, out);
        } catch (...) {
        }
        return out;
    }
    try {
        json result = dispatch(method, params);
        out.insert(out.begin(), dump_json({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}));
    } catch (const RpcError& e) {
        out.insert(out.begin(), error_with_id(id, e.code, e.message));
    } catch (const std::exception& e) {
        out.insert(out.begin(), error_with_id(id, kInternalError, std::string("Internal error: ") + e.what()));
    }
    return out;
}

json Server::dispatch(const std::string& method, const json& params) {
    if (method == "initialize") {
        if (initialized_) throw RpcError{kInvalidRequest, "Invalid Request: already initialized"};
        initialized_ = true;
        const json watched = params.value("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration"_json_pointer, json());
        watch_files_ = watched.is_boolean() && watched.get<bool>();
        return {{"capabilities",
                 {{"positionEncoding", "utf-16"},
                  {"textDocumentSync", {{"openClose", true}, {"change", 1}, {"save", {{"includeText", false}}}}},
                  {"hoverProvider", true},
                  {"definitionProvider", true},
                  {"completionProvider", {{"triggerCharacters", json::array({"\"", " ", "-"})}}},
                  {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}}}},
                {"serverInfo", {{"name", "small"}, {"version", options_.version}}}};
    }
    if (!initialized_) throw RpcError{kServerNotInitialized, "Server not initialized: send initialize first"};
    if (shut_down_) throw RpcError{kInvalidRequest, "Invalid Request: the server is shut down; send exit"};
    if (method == "shutdown") {
        shut_down_ = true;
        return nullptr;
    }
    if (!params.is_object()) invalid_params("params must be an object");
    if (method == "textDocument/hover") return hover(params);
    if (method == "textDocument/definition") return definition(params);
    if (method == "textDocument/completion") return completion(params);
    if (method == "textDocument/codeAction") return code_actions(params);
    throw RpcError{kMethodNotFound, "Method not found: " + method};
}

void Server::notify(const std::string& method, const json& params, std::vector<std::string>& out) {
    if (method == "exit") {
        exited_ = true;
        return;
    }
    if (!initialized_ || shut_down_ || !params.is_object()) return;
    if (method == "initialized" && watch_files_) {
        // A client that watches files tells of a change made beside the editor
        // (a `small` command, git), so the diagnostics follow the disk too.
        json watcher = {{"globPattern", "**/.small/*.yml"}};
        json registration = {{"id", "small-watched-files"},
                             {"method", "workspace/didChangeWatchedFiles"},
                             {"registerOptions", {{"watchers", json::array({watcher})}}}};
        out.push_back(dump_json({{"jsonrpc", "2.0"},
                                 {"id", "small-register-1"},
                                 {"method", "client/registerCapability"},
                                 {"params", {{"registrations", json::array({registration})}}}}));
        return;
    }
    if (method == "textDocument/didOpen" || method == "textDocument/didChange") return open_or_change(method, params, out);
    if (method == "textDocument/didClose") {
        const std::optional<std::string> path = path_of_uri(uri_param(params));
        if (!path) return;
        fs_.forget(normal_path(*path));
        return publish_diagnostics(normal_path(*path), out);
    }
    if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles") publish_diagnostics("", out);
}

// didOpen carries the text; didChange the whole new text (full sync), or
// ranges to replace when a client sends them anyway.
void Server::open_or_change(const std::string& method, const json& params, std::vector<std::string>& out) {
    const std::optional<std::string> uri_path = path_of_uri(uri_param(params));
    if (!uri_path) return;
    const std::string path = normal_path(*uri_path);
    if (parent_path(path) != options_.ws.small_dir) return;  // not a file of this workspace
    if (method == "textDocument/didOpen") {
        const json& doc = params["textDocument"];
        if (!doc.contains("text") || !doc["text"].is_string()) return;
        fs_.put(path, doc["text"].get<std::string>());
        return publish_diagnostics(path, out);
    }
    const json changes = params.value("contentChanges", json::array());
    if (!changes.is_array()) return;
    std::string text = text_of(path).value_or("");
    for (const json& change : changes) {
        if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) return;
        const std::string piece = change["text"].get<std::string>();
        const std::optional<Range> range = change.contains("range") ? range_from_json(change["range"]) : std::nullopt;
        if (!range) {
            text = piece;
            continue;
        }
        const LineIndex lines(text);
        const std::size_t begin = lines.offset_of(range->start), end = std::max(begin, lines.offset_of(range->end));
        text = text.substr(0, begin) + piece + text.substr(end);
    }
    fs_.put(path, std::move(text));
    publish_diagnostics(path, out);
}

// A document of the workspace's .small/ (the buffer or the disk); nothing for
// any other file a client names: the server reads no file outside it.
std::optional<std::string> Server::document_text(const std::string& uri) const {
    const std::optional<std::string> path = path_of_uri(uri);
    if (!path || parent_path(normal_path(*path)) != options_.ws.small_dir) return std::nullopt;
    return text_of(normal_path(*path));
}

std::optional<std::string> Server::text_of(const std::string& path) const {
    if (const std::string* text = fs_.text_of(path)) return *text;
    Result<std::string> bytes = fs_.disk().read_file(path);
    return bytes ? std::optional<std::string>(std::move(*bytes)) : std::nullopt;
}

// The plan's index, read again only when the plan's version moved; a plan
// that does not parse keeps the last index that did.
const TaskIndex& Server::tasks() {
    const std::string plan = options_.ws.artifact_path(ArtifactType::Plan);
    const std::string version = fs_.version_stamp(plan).value_or("");
    if (!version.empty() && version == tasks_version_) return tasks_;
    if (const std::optional<std::string> text = text_of(plan)) {
        if (Result<TaskIndex> index = index_plan(*text)) tasks_ = std::move(*index);
    }
    tasks_version_ = version;
    return tasks_;
}

// The check --strict verdict over the buffers and the disk, published for
// every file that has findings and every file whose findings went away.
void Server::publish_diagnostics(const std::string& changed_path, std::vector<std::string>& out) {
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return;
    VerdictOptions options;
    options.strict = true;
    options.scope = options_.scope;
    VerdictInput input{fs_, options_.ws, **schemas, prefix_ ? &*prefix_ : nullptr, true};
    Verdict verdict = run_check(input, options);
    if (verdict.next_prefix) prefix_ = std::move(verdict.next_prefix);
    const std::vector<Finding> findings = verdict.all_findings();
    // The plan is parsed a second time only when a quick fix needs its ids.
    const bool needs_ids = std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "INV-P6"; });
    std::map<std::string, std::vector<Diagnostic>> now = diagnostics_of(
        findings, options_.ws.root, [this](const std::string& p) { return text_of(p); }, needs_ids ? tasks() : TaskIndex{});
    std::vector<std::string> paths;
    for (const auto& [path, list] : now) paths.push_back(path);
    for (const auto& [path, list] : published_) {
        if (!now.count(path)) paths.push_back(path);
    }
    if (!changed_path.empty() && !now.count(changed_path) && !published_.count(changed_path)) paths.push_back(changed_path);
    for (const std::string& path : paths) {
        const std::vector<Diagnostic>& list = now[path];
        json items = json::array();
        for (const Diagnostic& d : list) items.push_back(diagnostic_json(d));
        const auto before = published_.find(path);
        const bool same = before != published_.end() && before->second.size() == list.size() &&
                          std::equal(list.begin(), list.end(), before->second.begin(), [](const Diagnostic& a, const Diagnostic& b) {
                              return a.range == b.range && a.message == b.message && a.rule == b.rule;
                          });
        if (same && path != changed_path) continue;
        out.push_back(dump_json(notification("textDocument/publishDiagnostics",
                                             {{"uri", uri_of_path(path)}, {"diagnostics", std::move(items)}})));
    }
    for (auto it = now.begin(); it != now.end();) it = it->second.empty() ? now.erase(it) : std::next(it);
    published_ = std::move(now);
}

// Who holds a task: the agent of its live claim, "" when none (or the
// claims table cannot be read: hover says what it knows).
std::string Server::holder_of(const std::string& task) const {
    const ClaimStore store = locate_claim_store(fs_.disk(), options_.ws);
    Result<ClaimTable> table = read_claim_table(fs_.disk(), store);
    if (!table) return {};
    const Claim* claim = table->find(task);
    const Instant now = current_instant();
    if (!claim || lease_state(*claim, now, this_host_name()) != LeaseState::Live) return {};
    return claim->agent + " (until " + lease_until_text(*claim, now) + ")";
}

// The log is read again only when its version moved (a long log is not
// parsed on every hover).
const NewestEntry* Server::newest_entry(const std::string& task) {
    const std::string log = options_.ws.artifact_path(ArtifactType::Progress);
    const std::optional<std::string> version = fs_.version_stamp(log);
    if (!version || version != newest_version_) {
        Result<std::map<std::string, NewestEntry>> read = newest_entries(fs_, log);
        newest_ = read ? std::move(*read) : std::map<std::string, NewestEntry>{};
        newest_version_ = version;
    }
    const auto it = newest_.find(task);
    return it == newest_.end() ? nullptr : &it->second;
}

namespace {

// The task id under the cursor and its range, from the document's text.
struct WordAt {
    std::string word;
    Range range;
};

std::optional<WordAt> word_under(const std::string& text, Position p) {
    const LineIndex lines(text);
    if (p.line >= lines.line_count()) return std::nullopt;
    const std::size_t line_start = lines.offset_of({p.line, 0});
    const std::string_view line = lines.line(p.line);
    const auto [begin, end] = word_at(line, lines.offset_of(p) - line_start);
    if (begin == end) return std::nullopt;
    return WordAt{std::string(line.substr(begin, end - begin)),
                  {lines.position_of(line_start + begin), lines.position_of(line_start + end)}};
}

}  // namespace

json Server::hover(const json& params) {
    const Position p = position_param(params);
    const std::optional<std::string> text = document_text(uri_param(params));
    const std::optional<WordAt> word = text ? word_under(*text, p) : std::nullopt;
    const TaskFacts* task = word ? tasks().find(word->word) : nullptr;
    if (!task) return nullptr;
    return {{"contents", {{"kind", "plaintext"}, {"value", hover_text(*task, holder_of(task->id), newest_entry(task->id))}}},
            {"range", range_json(word->range)}};
}

json Server::definition(const json& params) {
    const Position p = position_param(params);
    const std::optional<std::string> text = document_text(uri_param(params));
    const std::optional<WordAt> word = text ? word_under(*text, p) : std::nullopt;
    const TaskFacts* task = word ? tasks().find(word->word) : nullptr;
    const std::string plan = options_.ws.artifact_path(ArtifactType::Plan);
    const std::optional<std::string> plan_text = task ? text_of(plan) : std::nullopt;
    if (!plan_text) return nullptr;
    const LineIndex lines(*plan_text);
    const Position mark = lines.from_mark(task->id_line, task->id_column);
    const std::size_t line_start = lines.offset_of({mark.line, 0});
    const std::string_view line = lines.line(mark.line);
    const std::size_t begin = token_start(line, lines.offset_of(mark) - line_start);
    const Range range{lines.position_of(line_start + begin), lines.position_of(line_start + token_end(line, begin))};
    return {{"uri", uri_of_path(plan)}, {"range", range_json(range)}};
}

json Server::completion(const json& params) {
    const Position p = position_param(params);
    const std::optional<std::string> text = document_text(uri_param(params));
    json items = json::array();
    if (!text) return items;
    const LineIndex lines(*text);
    const CompletionPlace place = completion_place(lines, p);
    const std::size_t line_start = lines.offset_of({p.line, 0});
    const json range = range_json({lines.position_of(line_start + place.begin), p});
    const auto item = [&](const std::string& label, int kind, const std::string& detail) {
        items.push_back({{"label", label}, {"kind", kind}, {"detail", visible(detail)},
                         {"textEdit", {{"range", range}, {"newText", label}}}});
    };
    if (place.kind == CompletionKind::Status) {
        for (const std::string& s : status_names(kTaskStatuses)) item(s, 12, "task status");
    } else if (place.kind == CompletionKind::TaskId) {
        for (const TaskFacts& t : tasks().tasks) item(t.id, 18, t.status + ": " + t.title);
    }
    return items;
}

json Server::code_actions(const json& params) {
    const std::string uri = uri_param(params);
    const std::optional<std::string> path = path_of_uri(uri);
    const std::optional<Range> asked = params.contains("range") ? range_from_json(params["range"]) : std::nullopt;
    if (!asked) invalid_params("range needed");
    json actions = json::array();
    const auto it = path ? published_.find(normal_path(*path)) : published_.end();
    if (it == published_.end()) return actions;
    for (const Diagnostic& d : it->second) {
        if (!d.fix || d.range.end.line < asked->start.line || d.range.start.line > asked->end.line) continue;
        json edit = {{"range", range_json(d.fix->range)}, {"newText", d.fix->new_text}};
        actions.push_back({{"title", visible(d.fix->title)},
                           {"kind", "quickfix"},
                           {"isPreferred", true},
                           {"diagnostics", json::array({diagnostic_json(d)})},
                           {"edit", {{"changes", {{uri, json::array({edit})}}}}}});
    }
    return actions;
}

// ---- the loop ----

int serve(Server& server, const Transport& io, std::size_t max_body) {
    FrameReader reader(max_body);
    std::vector<char> chunk(64 * 1024);
    bool peer_gone = false;
    const auto send = [&](const std::string& body) {
        if (!io.write(frame(body))) peer_gone = true;
        return !peer_gone;
    };
    const auto on_message = [&](std::string_view body) {
        for (const std::string& reply : server.handle(body)) {
            if (!send(reply)) return false;
        }
        return !server.exited();
    };
    const auto on_error = [&](const std::string& problem) {
        io.log("small lsp: " + problem);
        return send(Server::error_body(kParseError, problem));
    };
    for (;;) {
        const long n = io.read(chunk.data(), chunk.size());
        if (n <= 0) break;
        if (!reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)), on_message, on_error)) break;
    }
    if (!server.exited() && !peer_gone && reader.pending() > 0) {
        io.log("small lsp: input ended inside a message (" + std::to_string(reader.pending()) + " bytes); ignored");
    }
    return server.exit_code();
}

}  // namespace small::lsp
