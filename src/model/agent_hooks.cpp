#include "small/model/agent_hooks.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>

namespace small {

namespace {

using Json = nlohmann::ordered_json;

// 'text' for sh: single quotes, each ' written as '\''.
std::string sh_quote(std::string_view text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::string pre_commit_hook_text(std::string_view prefix) {
    const std::string dir = prefix.empty() ? "." : std::string(prefix.substr(0, prefix.size() - 1));
    const std::string pathspec = ":(literal)" + std::string(prefix) + ".small";
    std::string text = "#!/bin/sh\n";
    text += std::string(kPreCommitMarker) + "\n";
    text += "# Installed by `small hooks install git`; `small hooks uninstall git` removes it\n"
            "# and puts back the hook it chained (kept as pre-commit.small-chained).\n"
            "chained=\"$(dirname \"$0\")/pre-commit.small-chained\"\n"
            "if [ -f \"$chained\" ] && [ -x \"$chained\" ]; then\n"
            "    \"$chained\" \"$@\" || exit $?\n"
            "fi\n";
    text += "if [ -n \"$(git diff --cached --name-only -- " + sh_quote(pathspec) + ")\" ]; then\n";
    text += "    if ! command -v small >/dev/null 2>&1; then\n"
            "        echo \"small pre-commit: this commit changes .small/ but 'small' is not on PATH\" >&2\n"
            "        echo \"  install small, or commit with --no-verify to skip the check\" >&2\n"
            "        exit 1\n"
            "    fi\n";
    text += "    small check --strict --dir " + sh_quote(dir) + " || {\n";
    text += "        status=$?\n"
            "        echo \"small pre-commit: .small/ fails 'small check --strict'; fix it or commit with --no-verify\" >&2\n"
            "        exit $status\n"
            "    }\n"
            "fi\n"
            "exit 0\n";
    return text;
}

bool is_small_pre_commit_hook(std::string_view text) {
    const std::string line = "\n" + std::string(kPreCommitMarker) + "\n";
    return text.find(line) != std::string_view::npos;
}

std::vector<AgentHookEvent> claude_hook_events() {
    return {{"SessionStart", "startup|resume|clear|compact"}, {"PreCompact", ""}};
}

std::vector<AgentHookEvent> codex_hook_events() { return {{"SessionStart", "startup|resume|clear|compact"}}; }

namespace {

bool is_our_hook(const Json& hook) {
    return hook.is_object() && hook.contains("command") && hook["command"] == std::string(kAgentHookCommand);
}

bool group_runs_ours(const Json& group) {
    if (!group.is_object() || !group.contains("hooks") || !group["hooks"].is_array()) return false;
    return std::any_of(group["hooks"].begin(), group["hooks"].end(), is_our_hook);
}

Json our_group(const AgentHookEvent& event) {
    Json group = Json::object();
    if (!event.matcher.empty()) group["matcher"] = event.matcher;
    Json hook = Json::object();
    hook["type"] = "command";
    hook["command"] = std::string(kAgentHookCommand);
    group["hooks"] = Json::array({hook});
    return group;
}

// 1-based line and column of byte offset `byte` (nlohmann counts the byte
// it stopped at, so the column is that of the offending character).
void locate(std::string_view text, std::size_t byte, Error& e) {
    byte = std::min(byte == 0 ? 0 : byte - 1, text.size());
    unsigned line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    e.line = line;
    e.column = static_cast<unsigned>(byte - line_start + 1);
}

Result<Json> parse_settings(std::string_view text, const std::string& display) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return Json::object();
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const nlohmann::json::parse_error& pe) {
        std::string what = pe.what();
        if (const std::size_t at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
        Error e = Error::invalid("invalid JSON in " + display + ": " + what + "; nothing was written");
        e.file = display;
        locate(text, pe.byte, e);
        e.hint = "fix the file (or move it away) and run the command again";
        return e;
    } catch (const std::exception& ex) {
        return Error::invalid("invalid JSON in " + display + ": " + ex.what() + "; nothing was written");
    }
    if (!doc.is_object()) return Error::invalid(display + ": the top level is not a JSON object; nothing was written");
    if (doc.contains("hooks") && !doc["hooks"].is_object()) {
        return Error::invalid(display + ": \"hooks\" is not a JSON object; nothing was written");
    }
    return doc;
}

// Adds what is missing; `added` tells whether anything was.
Status add_events(Json& hooks, const std::vector<AgentHookEvent>& events, const std::string& display, bool& added) {
    for (const AgentHookEvent& event : events) {
        Json& list = hooks[event.name];
        if (list.is_null()) list = Json::array();
        if (!list.is_array()) {
            return Error::invalid(display + ": \"hooks." + event.name + "\" is not a JSON array; nothing was written");
        }
        if (std::none_of(list.begin(), list.end(), group_runs_ours)) {
            list.push_back(our_group(event));
            added = true;
        }
    }
    return ok_status();
}

// Drops our hooks from every event (not only `events`: an entry of an
// older release goes too), then the containers left empty by that.
// Whether anything was removed.
bool remove_ours(Json& hooks) {
    std::vector<std::string> emptied;
    bool removed = false;
    for (auto& [name, list] : hooks.items()) {
        if (!list.is_array() || !std::any_of(list.begin(), list.end(), group_runs_ours)) continue;
        removed = true;
        Json kept = Json::array();
        for (Json& group : list) {
            if (!group_runs_ours(group)) {
                kept.push_back(std::move(group));
                continue;
            }
            Json rest = Json::array();
            for (Json& hook : group["hooks"]) {
                if (!is_our_hook(hook)) rest.push_back(std::move(hook));
            }
            if (rest.empty()) continue;
            group["hooks"] = std::move(rest);
            kept.push_back(std::move(group));
        }
        if (kept.empty()) emptied.push_back(name);
        list = std::move(kept);
    }
    for (const std::string& name : emptied) hooks.erase(name);
    return removed;
}

}  // namespace

Result<std::string> merge_agent_hooks(std::string_view existing, const std::vector<AgentHookEvent>& events,
                                      bool install, const std::string& display) {
    Result<Json> parsed = parse_settings(existing, display);
    if (!parsed) return parsed.error();
    Json& doc = *parsed;
    bool changed = false;
    if (install) {
        if (!doc.contains("hooks")) doc["hooks"] = Json::object();
        if (Status added = add_events(doc["hooks"], events, display, changed); !added) return added.error();
    } else if (doc.contains("hooks") && remove_ours(doc["hooks"])) {
        changed = true;
        if (doc["hooks"].empty()) doc.erase("hooks");
    }
    if (!changed) return std::string(existing);  // byte for byte: nothing to do
    if (doc.empty()) return std::string();
    const bool final_break = existing.empty() || existing.back() == '\n';
    try {
        return doc.dump(2) + (final_break ? "\n" : "");
    } catch (const std::exception& ex) {
        return Error::invalid(display + ": cannot write the settings back: " + ex.what());
    }
}

}  // namespace small
