#include "small/model/agent_hooks.hpp"

#include <nlohmann/json.hpp>

#include "small/doc/jsonc_edit.hpp"
#include "small/model/layout.hpp"

#include <algorithm>
#include <exception>
#include <optional>

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

namespace {

// The hook's fixed parts. The chained hook runs first; a shell hook runs
// under this hook's "$0", because hook managers (husky, for one) choose
// what to run by the name they were started as.
constexpr std::string_view kHookHead =
    "# Installed by `small hooks install git`; `small hooks uninstall git` removes it\n"
    "# and puts back the hook it chained (kept as pre-commit.small-chained).\n"
    "\n"
    "# The shell (and its flags) the chained hook's \"#!\" line names, when it is\n"
    "# sh, dash or bash; empty otherwise.\n"
    "small_shell_of() {\n"
    "    IFS= read -r first < \"$1\" || [ -n \"$first\" ] || return 0\n"
    "    case \"$first\" in '#!'*) ;; *) return 0 ;; esac\n"
    "    set -f\n"
    "    set -- ${first#??}\n"
    "    set +f\n"
    "    [ \"$1\" = /usr/bin/env ] && shift\n"
    "    case \"${1##*/}\" in sh|dash|bash) echo \"$*\" ;; esac\n"
    "}\n"
    "\n"
    "chained=\"$(dirname \"$0\")/pre-commit.small-chained\"\n"
    "if [ -f \"$chained\" ] && [ -x \"$chained\" ]; then\n"
    "    shell=$(small_shell_of \"$chained\")\n"
    "    if [ -n \"$shell\" ]; then\n"
    "        SMALL_CHAINED_HOOK=\"$chained\" $shell -c '. \"$SMALL_CHAINED_HOOK\"' \"$0\" \"$@\" || exit $?\n"
    "    else\n"
    "        \"$chained\" \"$@\" || exit $?\n"
    "    fi\n"
    "fi\n"
    "\n"
    "# small check --strict on a workspace ($1: its folder below the top level,\n"
    "# \"\" or \"sub/\") when the staged changes touch its .small/.\n"
    "small_check() {\n"
    "    [ -n \"$(git diff --cached --name-only -- \":(literal)$1.small\")\" ] || return 0\n"
    "    if ! command -v small >/dev/null 2>&1; then\n"
    "        echo \"small pre-commit: this commit changes .small/ but 'small' is not on PATH\" >&2\n"
    "        echo \"  install small, or commit with --no-verify to skip the check\" >&2\n"
    "        exit 1\n"
    "    fi\n"
    "    dir=${1%/}\n"
    "    small check --strict --quiet --dir=\"${dir:-.}\" || {\n"
    "        status=$?\n"
    "        echo \"small pre-commit: ${dir:-.}/.small fails 'small check --strict'; fix it or commit with --no-verify\" >&2\n"
    "        exit $status\n"
    "    }\n"
    "}\n"
    "\n";

constexpr std::string_view kCheckCall = "small_check ";
// The one line per workspace of the hook small wrote before it checked
// several workspaces: `    small check --strict --dir 'DIR' || {`.
constexpr std::string_view kOldCheckLine = "    small check --strict --dir ";

// The text of the word sh_quote wrote at text[pos] (quoted parts may span
// lines: a folder name may hold a line break), and where it ends; nullopt
// when the text there is not such a word.
std::optional<std::pair<std::string, std::size_t>> sh_unquote_at(std::string_view text, std::size_t pos) {
    std::string out;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != '\n') {
        if (text[pos] != '\'') {
            if (text.substr(pos, 2) != "\\'") return std::nullopt;
            out += '\'';
            pos += 2;
            continue;
        }
        const std::size_t close = text.find('\'', pos + 1);
        if (close == std::string_view::npos) return std::nullopt;
        out.append(text.substr(pos + 1, close - pos - 1));
        pos = close + 1;
    }
    if (pos == start) return std::nullopt;
    return std::make_pair(std::move(out), pos);
}

// One whole word quoted by sh_quote, or nullopt.
std::optional<std::string> sh_unquote(std::string_view word) {
    auto parsed = sh_unquote_at(word, 0);
    if (!parsed || parsed->second != word.size()) return std::nullopt;
    return std::move(parsed->first);
}

}  // namespace

std::string pre_commit_hook_text(const std::vector<std::string>& prefixes) {
    std::vector<std::string> sorted = prefixes;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::string text = "#!/bin/sh\n";
    text += std::string(kPreCommitMarker) + "\n";
    text += kHookHead;
    text += "# The workspaces this hook checks (`small hooks install git` in each adds one).\n";
    for (const std::string& prefix : sorted) text += std::string(kCheckCall) + sh_quote(prefix) + "\n";
    text += "exit 0\n";
    return text;
}

std::vector<std::string> pre_commit_hook_prefixes(std::string_view text) {
    std::vector<std::string> prefixes;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        if (line.substr(0, kCheckCall.size()) == kCheckCall) {
            // The quoted prefix may run over several lines.
            if (auto word = sh_unquote_at(text, pos + kCheckCall.size())) {
                prefixes.push_back(std::move(word->first));
                end = word->second;
            }
        } else if (line.substr(0, kOldCheckLine.size()) == kOldCheckLine && line.size() > kOldCheckLine.size() + 5 &&
                   line.substr(line.size() - 5) == " || {") {
            const std::string_view word = line.substr(kOldCheckLine.size(), line.size() - kOldCheckLine.size() - 5);
            if (auto dir = sh_unquote(word)) prefixes.push_back(*dir == "." ? "" : *dir + "/");
        }
        pos = end + 1;
    }
    std::sort(prefixes.begin(), prefixes.end());
    prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
    return prefixes;
}

bool is_small_pre_commit_hook(std::string_view text) {
    const std::string line = "\n" + std::string(kPreCommitMarker) + "\n";
    return text.find(line) != std::string_view::npos;
}

namespace {

AgentHookEvent session_start(bool claim) {
    return {"SessionStart", "startup|resume|clear|compact",
            std::string(claim ? kAgentClaimHookCommand : kAgentHookCommand)};
}

}  // namespace

std::vector<AgentHookEvent> claude_hook_events(bool claim) { return {session_start(claim), {"PreCompact", ""}}; }

std::vector<AgentHookEvent> codex_hook_events(bool claim) { return {session_start(claim)}; }

namespace {

bool is_our_hook(const Json& hook) {
    return hook.is_object() && hook.contains("command") &&
           (hook["command"] == std::string(kAgentHookCommand) || hook["command"] == std::string(kAgentClaimHookCommand));
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
    hook["command"] = event.command;
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

// Our hooks in `list` made to run `command` (installed without --claim,
// asked for with it, or the reverse); whether one changed.
bool set_our_command(Json& list, const std::string& command) {
    bool changed = false;
    for (Json& group : list) {
        if (!group_runs_ours(group)) continue;
        for (Json& hook : group["hooks"]) {
            if (is_our_hook(hook) && hook["command"] != command) {
                hook["command"] = command;
                changed = true;
            }
        }
    }
    return changed;
}

// Adds what is missing and updates our entries that run another of our
// commands; the events that changed go to `added`.
Status add_events(Json& hooks, const std::vector<AgentHookEvent>& events, const std::string& display,
                  std::vector<std::string>& added) {
    for (const AgentHookEvent& event : events) {
        Json& list = hooks[event.name];
        if (list.is_null()) list = Json::array();
        if (!list.is_array()) {
            return Error::invalid(display + ": \"hooks." + event.name + "\" is not a JSON array; nothing was written");
        }
        if (std::none_of(list.begin(), list.end(), group_runs_ours)) {
            list.push_back(our_group(event));
            added.push_back(event.name);
        } else if (set_our_command(list, event.command)) {
            added.push_back(event.name);
        }
    }
    return ok_status();
}

// Drops our hooks from the events named in `events`, then the containers
// left empty by that; the events it changed go to `removed`.
void remove_ours(Json& hooks, const std::vector<std::string>& events, std::vector<std::string>& removed) {
    std::vector<std::string> emptied;
    for (auto& [name, list] : hooks.items()) {
        if (std::find(events.begin(), events.end(), name) == events.end()) continue;
        if (!list.is_array() || !std::any_of(list.begin(), list.end(), group_runs_ours)) continue;
        removed.push_back(name);
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
}

// The settings text of `doc`, keeping whether `existing` ended with a line
// break (a new file gets one).
Result<std::string> settings_text(const Json& doc, std::string_view existing, const std::string& display) {
    const bool final_break = existing.empty() || existing.back() == '\n';
    try {
        return doc.dump(2) + (final_break ? "\n" : "");
    } catch (const std::exception& ex) {
        return Error::invalid(display + ": cannot write the settings back: " + ex.what());
    }
}

}  // namespace

Result<AgentHooksEdit> add_agent_hooks(std::string_view existing, const std::vector<AgentHookEvent>& events,
                                       const std::string& display) {
    Result<Json> parsed = parse_settings(existing, display);
    if (!parsed) return parsed.error();
    Json& doc = *parsed;
    AgentHooksEdit edit;
    if (!doc.contains("hooks")) doc["hooks"] = Json::object();
    if (Status added = add_events(doc["hooks"], events, display, edit.events); !added) return added.error();
    if (edit.events.empty()) {
        edit.text = std::string(existing);  // byte for byte: nothing to do
        return edit;
    }
    Result<std::string> text = settings_text(doc, existing, display);
    if (!text) return text.error();
    edit.text = std::move(*text);
    return edit;
}

Result<AgentHooksEdit> remove_agent_hooks(std::string_view existing, const std::vector<std::string>& events,
                                          const std::string& display) {
    Result<Json> parsed = parse_settings(existing, display);
    if (!parsed) return parsed.error();
    Json& doc = *parsed;
    AgentHooksEdit edit;
    if (doc.contains("hooks")) remove_ours(doc["hooks"], events, edit.events);
    if (edit.events.empty()) {
        edit.text = std::string(existing);
        return edit;
    }
    if (doc["hooks"].empty()) doc.erase("hooks");
    edit.empty = doc.empty();
    Result<std::string> text = settings_text(doc, existing, display);
    if (!text) return text.error();
    edit.text = std::move(*text);
    return edit;
}

// ---------------------------------------------------------------- editors

namespace {

constexpr std::string_view kYamlSchemasKey = "yaml.schemas";

// Whether the schemas map already sends `key` somewhere (the user's own entry or ours).
bool maps_key(const nlohmann::json& doc, const std::string& key) {
    const auto map = doc.find(std::string(kYamlSchemasKey));
    return map != doc.end() && map->is_object() && map->contains(key);
}

}  // namespace

std::vector<EditorSchemaEntry> editor_schema_entries() {
    std::vector<EditorSchemaEntry> entries;
    for (const ArtifactType type : kArtifactTypes) {
        const std::string name(artifact_name(type));
        const std::string file = std::string(kEditorSchemaFolder) + "/" + name + ".schema.json";
        entries.push_back({name, file, "./" + file, "**/.small/" + artifact_file_name(type)});
    }
    // Issue 41: workspace.small.yml has an editor schema too (check/schema editor_schema).
    const std::string file = std::string(kEditorSchemaFolder) + "/workspace.schema.json";
    entries.push_back({"workspace", file, "./" + file, "**/.small/" + std::string(kWorkspaceFileName)});
    return entries;
}

Result<AgentHooksEdit> add_editor_schemas(std::string_view existing, const std::vector<EditorSchemaEntry>& entries,
                                          const std::string& display) {
    Result<nlohmann::json> doc = jsonc_parse(existing, display);
    if (!doc) return doc.error();
    if (doc->contains(kYamlSchemasKey) && !(*doc)[std::string(kYamlSchemasKey)].is_object()) {
        return Error::invalid(display + ": \"" + std::string(kYamlSchemasKey) + "\" is not a JSON object; nothing was written");
    }
    AgentHooksEdit edit;
    edit.text = std::string(existing);
    // When the map is new, that is recorded too: uninstall removes it only then.
    if (!doc->contains(kYamlSchemasKey)) edit.events.emplace_back(kYamlSchemasKey);
    for (const EditorSchemaEntry& e : entries) {
        if (maps_key(*doc, e.key)) continue;
        Result<std::string> next =
            jsonc_set_member(edit.text, {std::string(kYamlSchemasKey)}, e.key, nlohmann::json::array({e.glob}), display);
        if (!next) return next.error();
        edit.text = std::move(*next);
        edit.events.push_back(e.key);
    }
    return edit;
}

Result<AgentHooksEdit> remove_editor_schemas(std::string_view existing, const std::vector<std::string>& keys,
                                             const std::string& display) {
    Result<nlohmann::json> doc = jsonc_parse(existing, display);
    if (!doc) return doc.error();
    AgentHooksEdit edit;
    edit.text = std::string(existing);
    const std::vector<std::string> path{std::string(kYamlSchemasKey)};
    const bool created_map = std::find(keys.begin(), keys.end(), kYamlSchemasKey) != keys.end();
    for (const std::string& key : keys) {
        if (key == kYamlSchemasKey || !maps_key(*doc, key)) continue;
        Result<std::string> next = jsonc_remove_member(edit.text, path, key, display);
        if (!next) return next.error();
        edit.text = std::move(*next);
        edit.events.push_back(key);
        (*doc)[std::string(kYamlSchemasKey)].erase(key);
    }
    if (created_map && doc->contains(kYamlSchemasKey) && (*doc)[std::string(kYamlSchemasKey)].is_object() &&
        (*doc)[std::string(kYamlSchemasKey)].empty()) {
        Result<std::string> next = jsonc_remove_member(edit.text, {}, std::string(kYamlSchemasKey), display);
        if (!next) return next.error();
        edit.text = std::move(*next);
        doc->erase(std::string(kYamlSchemasKey));
    }
    edit.empty = doc->empty();
    return edit;
}

}  // namespace small
