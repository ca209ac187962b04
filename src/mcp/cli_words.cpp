// A library message in MCP's words (see the header): one pass finds the
// `small <command> ...` phrases and the lone flags, the edits are applied
// from the end, a phrase or flag no tool offers taking its clause with it.
#include "small/mcp/cli_words.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/base/command_table.hpp"

namespace small::mcp {

namespace {

using ordered = nlohmann::ordered_json;

constexpr FlagWord kEntryFlags[] = {
    {"--task", "task"},       {"--status", "status"},   {"--evidence", "evidence"}, {"--verification", "verification"},
    {"--command", "command"}, {"--test", "test"},       {"--link", "link"},         {"--commit", "commit"},
    {"--notes", "notes"}};
constexpr FlagWord kPlanFlags[] = {{"--add", "add"},
                                   {"--step", "steps", ArgForm::TaskItems},
                                   {"--steps", "steps", ArgForm::TaskItems},
                                   {"--acceptance", "acceptance", ArgForm::TaskItems},
                                   {"--depends", "depends_on", ArgForm::TaskItems},
                                   {"--undepend", "undepend", ArgForm::TaskItems},
                                   {"--done", "status", ArgForm::Status, "completed"},
                                   {"--pending", "status", ArgForm::Status, "pending"},
                                   {"--blocked", "status", ArgForm::Status, "blocked"},
                                   {"--in-progress", "status", ArgForm::Status, "in_progress"},
                                   {"--cancel", "status", ArgForm::Status, "cancelled"},
                                   {"--force", "force", ArgForm::True}};
constexpr FlagWord kClaimFlags[] = {{"--ttl", "ttl"}, {"--force", "force", ArgForm::True}, {"--next", "", ArgForm::Implied}};
constexpr FlagWord kHandoffFlags[] = {{"--summary", "summary"}};
constexpr FlagWord kCheckFlags[] = {{"--strict", "", ArgForm::Implied}};
constexpr FlagWord kInitFlags[] = {
    {"--intent", "intent"}, {"--agents-mode", "agents_mode"}, {"--no-agents", "no_agents", ArgForm::True}};
constexpr FlagWord kStatusFlags[] = {{"--recent", "recent"}};

// Only the flags whose tool has the argument (checkpoint's --force has none:
// a hint naming it is dropped). Longest first: "plan show" is found before
// "plan", "claims" is not "claim".
constexpr CommandWord kCommandWords[] = {
    {"progress add", "progress_add", "", kEntryFlags},
    {"status --brief", "resume", "", {}},
    {"plan show", "show", "task", {}},
    {"checkpoint", "checkpoint", "", kEntryFlags},
    {"validate", "check", "", kCheckFlags},
    {"release", "release", "task", {}},
    {"handoff", "handoff", "", kHandoffFlags},
    {"claims", "claims", "", {}},
    {"status", "status", "", kStatusFlags},
    {"verify", "check", "", kCheckFlags},
    {"claim", "claim", "task", kClaimFlags},
    {"check", "check", "", kCheckFlags},
    {"ready", "ready", "", {}},
    {"init", "init", "", kInitFlags},
    {"lint", "check", "", kCheckFlags},
    {"plan", "plan", "", kPlanFlags},
};

bool word_char(char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'; }

bool flag_at(std::string_view text, std::size_t i) {
    return i + 2 < text.size() && text[i] == '-' && text[i + 1] == '-' && std::islower(static_cast<unsigned char>(text[i + 2]));
}

// What may stand before a CLI word: the start, a space, an opening bracket or quote.
bool opens_word(std::string_view text, std::size_t i) {
    return i == 0 || std::string_view(" \n(`'\"").find(text[i - 1]) != std::string_view::npos;
}

const FlagWord* find_flag(const CommandWord* command, std::string_view flag) {
    if (!command) return nullptr;
    for (const FlagWord& f : command->flags) {
        if (f.flag == flag) return &f;
    }
    return nullptr;
}

const CommandWord* command_of_tool(std::string_view tool) {
    for (const CommandWord& c : kCommandWords) {
        if (c.tool == tool) return &c;
    }
    return nullptr;
}

struct Edit {
    std::size_t begin, end;
    std::string replacement;
    bool drop = false;  // the clause around [begin, end) goes
};

// A value after a flag or as a positional: "quoted text", or a word up to a
// space or the closing quote; outside quotes a word's trailing ),;. end the phrase.
struct Value {
    std::string text;
    std::size_t end;
    bool ends_phrase = false;
};

Value read_value(std::string_view text, std::size_t p, char close) {
    if (p < text.size() && text[p] == '"') {
        const std::size_t q = text.find('"', p + 1);
        if (q != std::string_view::npos) return {std::string(text.substr(p + 1, q - p - 1)), q + 1};
    }
    std::size_t e = p;
    while (e < text.size() && text[e] != ' ' && text[e] != '\n' && (!close || text[e] != close)) ++e;
    Value v{std::string(text.substr(p, e - p)), e};
    if (!close) {
        while (!v.text.empty() && std::string_view("),;.").find(v.text.back()) != std::string_view::npos) {
            v.text.pop_back();
            --v.end;
            v.ends_phrase = true;
        }
    }
    return v;
}

// A word that can be a task id outside quotes: task-3, meta/x, T1, ID, <task>.
bool id_like(std::string_view word) {
    if (word.starts_with('<')) return true;
    if (std::all_of(word.begin(), word.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) return true;
    return word.find_first_of("0123456789-/_") != std::string_view::npos;
}

bool takes_value(const FlagWord& f) { return f.form == ArgForm::Value || f.form == ArgForm::Status || f.form == ArgForm::TaskItems; }

// One argument of a phrase: false when the flag needs a value it lacks.
bool add_argument(ordered& args, const FlagWord& f, const std::optional<std::string>& value) {
    if (takes_value(f) && !value) return false;
    switch (f.form) {
        case ArgForm::Value:
            if (!value->empty() && std::all_of(value->begin(), value->end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
                value->size() < 10) {
                args[std::string(f.argument)] = std::stol(*value);
            } else {
                args[std::string(f.argument)] = *value;
            }
            return true;
        case ArgForm::True: args[std::string(f.argument)] = true; return true;
        case ArgForm::Implied: return true;
        case ArgForm::Status:
            args["task"] = *value;
            args["status"] = std::string(f.status);
            return true;
        case ArgForm::TaskItems: {
            const std::size_t colon = value->find(':');
            if (colon == std::string::npos) return false;
            args["task"] = value->substr(0, colon);
            ordered items = ordered::array();
            const std::string rest = value->substr(colon + 1);
            if (f.argument == "depends_on" || f.argument == "undepend") {
                for (std::size_t from = 0; from <= rest.size();) {
                    const std::size_t comma = std::min(rest.find(',', from), rest.size());
                    items.push_back(rest.substr(from, comma - from));
                    from = comma + 1;
                }
            } else {
                items.push_back(rest);
            }
            args[std::string(f.argument)] = std::move(items);
            return true;
        }
    }
    return false;
}

// A `small <command> ...` phrase at `at` (the "s"), or nothing when the word
// after "small" is no command of the CLI (prose).
struct Phrase {
    std::size_t begin = 0, end = 0;  // quotes included
    const CommandWord* word = nullptr;
    ordered args = ordered::object();
    bool mapped = true;
    bool quoted = false;
};

std::optional<Phrase> phrase_at(std::string_view text, std::size_t at) {
    const char open = at > 0 ? text[at - 1] : '\0';
    const char close = open == '`' || open == '\'' ? open : '\0';
    std::size_t p = at + 6;  // "small "
    std::size_t name_end = p;
    while (name_end < text.size() && word_char(text[name_end])) ++name_end;
    if (name_end == p || !find_command(text.substr(p, name_end - p))) return std::nullopt;
    Phrase ph;
    ph.begin = close ? at - 1 : at;
    ph.quoted = close != '\0';
    for (const CommandWord& c : kCommandWords) {
        const std::size_t after = p + c.command.size();
        if (text.substr(p).starts_with(c.command) && (after == text.size() || !word_char(text[after]))) {
            ph.word = &c;
            p = after;
            break;
        }
    }
    if (!ph.word) {
        ph.mapped = false;
        p = name_end;
    }
    while (p < text.size()) {
        if (close && text[p] == close) {
            ++p;
            break;
        }
        const bool spaced = text[p] == ' ' && p + 1 < text.size() && text[p + 1] != ' ';
        if (!spaced) {
            if (close) {  // something inside the quotes the table cannot read
                ph.mapped = false;
                const std::size_t q = text.find(close, p);
                p = q == std::string_view::npos ? text.size() : q + 1;
            }
            break;
        }
        const std::size_t t = p + 1;
        if (flag_at(text, t)) {
            std::size_t f_end = t;
            while (f_end < text.size() && (word_char(text[f_end]) || text[f_end] == '/' || text[f_end] == '|')) ++f_end;
            const FlagWord* f = find_flag(ph.word, text.substr(t, f_end - t));
            std::optional<std::string> value;
            p = f_end;
            bool ended = false;
            if (p < text.size() && text[p] == '=') {
                Value v = read_value(text, p + 1, close);
                value = std::move(v.text);
                p = v.end;
                ended = v.ends_phrase;
            } else if ((f ? takes_value(*f) : close != '\0') && p + 1 < text.size() && text[p] == ' ' &&
                       !flag_at(text, p + 1)) {
                Value v = read_value(text, p + 1, close);
                value = std::move(v.text);
                p = v.end;
                ended = v.ends_phrase;
            }
            if (!f || !add_argument(ph.args, *f, value)) ph.mapped = false;
            if (ended) break;
            continue;
        }
        const bool positional = ph.word && !ph.word->positional.empty() && !ph.args.contains(ph.word->positional) &&
                                text[t] != '"' && text[t] != '(';
        if (positional) {
            Value v = read_value(text, t, close);
            if (v.text.empty() || (!close && !id_like(v.text))) break;  // prose: "small claim refuses it"
            ph.args[std::string(ph.word->positional)] = std::move(v.text);
            p = v.end;
            if (v.ends_phrase) break;
            continue;
        }
        if (close) {
            ph.mapped = false;
            const std::size_t q = text.find(close, p);
            p = q == std::string_view::npos ? text.size() : q + 1;
        }
        break;
    }
    ph.end = p;
    return ph;
}

std::string rendered(const Phrase& ph) {
    const std::string tool(ph.word->tool);
    if (ph.args.empty()) return "the " + tool + " tool";
    const std::string call = tool + " " + ph.args.dump(-1, ' ', false, ordered::error_handler_t::replace);
    return ph.quoted ? "`" + call + "`" : call;
}

// A flag of git's ("git fetch --unshallow"): the clause it is in names git.
bool in_git_phrase(std::string_view text, std::size_t i) {
    std::size_t from = 0;
    for (const std::string_view stop : {"(", "`", ";", "\n", ". "}) {
        const std::size_t s = text.rfind(stop, i);
        if (s != std::string_view::npos) from = std::max(from, s + stop.size());
    }
    const std::string_view clause = text.substr(from, i - from);
    return clause.starts_with("git ") || clause.find(" git ") != std::string_view::npos;
}

constexpr std::string_view kBoundaries[] = {"; ", ". ", ", or ", "\n"};

bool same_clause(std::string_view text, std::size_t from, std::size_t to) {
    const std::string_view between = text.substr(from, to - from);
    return std::none_of(std::begin(kBoundaries), std::end(kBoundaries),
                        [&](std::string_view b) { return between.find(b) != std::string_view::npos; });
}

// The part of `text` that goes with what [begin, end) names: its
// parenthesis, else its clause up to the next boundary.
std::pair<std::size_t, std::size_t> clause_around(std::string_view text, std::size_t begin, std::size_t end) {
    const std::size_t open = text.rfind('(', begin);
    if (open != std::string_view::npos && text.find(')', open) >= begin) {
        const std::size_t shut = text.find(')', end);
        if (shut != std::string_view::npos && text.find('(', end) > shut) {
            return {open > 0 && text[open - 1] == ' ' ? open - 1 : open, shut + 1};
        }
    }
    std::size_t left = std::string_view::npos, right = text.size(), right_len = 0;
    for (const std::string_view b : kBoundaries) {
        const std::size_t l = begin >= b.size() ? text.rfind(b, begin - b.size()) : std::string_view::npos;
        if (l != std::string_view::npos && (left == std::string_view::npos || l > left)) left = l;
        const std::size_t r = text.find(b, end);
        if (r != std::string_view::npos && r < right) {
            right = r;
            right_len = b.size();
        }
    }
    if (left != std::string_view::npos) return {left, right};
    return {0, right + right_len};  // the first clause: the next one's boundary goes too
}

}  // namespace

std::span<const CommandWord> command_words() { return kCommandWords; }

std::string in_mcp_words(std::string_view text, std::string_view tool) {
    std::vector<Edit> edits;
    // A lone flag is the tool's own argument, else one of the command last named ("small checkpoint refuses
    // this unless --force" in the check tool's message).
    const CommandWord* own = command_of_tool(tool);
    const CommandWord* last = nullptr;
    std::size_t last_end = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (text.substr(i).starts_with("small ") && opens_word(text, i)) {
            if (std::optional<Phrase> ph = phrase_at(text, i)) {
                if (ph->mapped) {
                    edits.push_back({ph->begin, ph->end, rendered(*ph)});
                    last = ph->word;
                    last_end = ph->end;
                } else {
                    edits.push_back({ph->begin, ph->end, "", true});
                }
                i = std::max(ph->end, i + 1);
                continue;
            }
        }
        if (flag_at(text, i) && opens_word(text, i) && !in_git_phrase(text, i)) {
            std::size_t end = i;
            while (end < text.size() && (word_char(text[end]) || text[end] == '/' || text[end] == '|')) ++end;
            const FlagWord* f = find_flag(own, text.substr(i, end - i));
            if (!f && last && same_clause(text, last_end, i)) f = find_flag(last, text.substr(i, end - i));
            std::size_t begin = i;
            if (end < text.size() && text[end] == '=') {
                while (end < text.size() && text[end] != ' ' && text[end] != '`' && text[end] != ')') ++end;
            }
            if (begin > 0 && text[begin - 1] == '`' && end < text.size() && text[end] == '`') {
                --begin;
                ++end;
            }
            if (!f || f->form == ArgForm::Implied) {
                edits.push_back({begin, end, "", true});
            } else {
                edits.push_back({begin, end,
                                 "`" + std::string(f->argument) + (f->form == ArgForm::True ? ": true" : "") + "`"});
            }
            i = end;
            continue;
        }
        ++i;
    }
    // Each dropped phrase takes its clause; a replacement inside a dropped clause goes with it.
    std::vector<std::pair<std::size_t, std::size_t>> dropped;
    for (const Edit& e : edits) {
        if (e.drop) dropped.push_back(clause_around(text, e.begin, e.end));
    }
    std::sort(dropped.begin(), dropped.end());
    std::vector<std::pair<std::size_t, std::size_t>> merged;
    for (const auto& d : dropped) {
        if (!merged.empty() && d.first <= merged.back().second) {
            merged.back().second = std::max(merged.back().second, d.second);
        } else {
            merged.push_back(d);
        }
    }
    if (merged.size() == 1 && merged.front().first == 0 && merged.front().second >= text.size()) {
        merged.clear();  // the whole message: better kept in the CLI's words than lost
        std::erase_if(edits, [](const Edit& e) { return e.drop; });
    }
    std::vector<Edit> applied;
    for (const auto& [begin, end] : merged) applied.push_back({begin, end, ""});
    for (const Edit& e : edits) {
        if (e.drop) continue;
        const bool inside = std::any_of(merged.begin(), merged.end(), [&](const auto& d) {
            return e.begin < d.second && e.end > d.first;
        });
        if (!inside) applied.push_back(e);
    }
    std::sort(applied.begin(), applied.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
    std::string out(text);
    for (const Edit& e : applied) out.replace(e.begin, e.end - e.begin, e.replacement);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (!merged.empty() && text.ends_with('.') && !out.ends_with('.')) out += '.';
    return out;
}

}  // namespace small::mcp
