// The engine behind the shell completion scripts: `small __complete WORD...`
// walks the half-typed command line over the CLI11 command tree (the same
// tree that parses it) and prints the candidates for the last word. The
// scripts hold no names at all, so they cannot drift from the binary.
#include <iostream>
#include <map>
#include <set>

#include "cli.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/ops/inspect/plan_show.hpp"

namespace small::cli {

namespace {

// What each annotated option completes to. Keyed by the option itself: the
// one command tree of this process owns them all.
std::map<const CLI::Option*, ValueCompletion>& registry() {
    static std::map<const CLI::Option*, ValueCompletion> values;
    return values;
}

struct Candidate {
    std::string value;
    std::string description;
};

// The value source of an option: its annotation, else its conventional name.
ValueCompletion values_of(const CLI::Option& o) {
    if (const auto it = registry().find(&o); it != registry().end()) return it->second;
    const std::string name = o.get_lnames().empty() ? o.get_name() : o.get_lnames().front();
    if (name == "task") return {ValueKind::TaskId, {}};
    if (name == "status") return {ValueKind::Words, status_names(kTaskStatuses)};
    if (name == "workspace")
        return {ValueKind::Words, {std::begin(kWorkspaceScopeNames), std::end(kWorkspaceScopeNames)}};
    if (name == "dir" || name == "out" || name == "store" || name == "spec-dir") return {ValueKind::Directory, {}};
    return {ValueKind::File, {}};
}

// One line, at most one sentence-ish: zsh and fish show it beside the name.
std::string short_description(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    for (char& c : line) {
        if (c == '\t') c = ' ';
    }
    constexpr std::size_t kMax = 72;
    if (line.size() > kMax) line = line.substr(0, kMax - 3) + "...";
    return line;
}

const CLI::Option* positional_at(const CLI::App& level, std::size_t index) {
    std::size_t i = 0;
    for (const CLI::Option* o : level.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
        // A list argument (help's COMMAND...) takes every later word too.
        if (i == index || o->get_items_expected_max() > 1) return o;
        ++i;
    }
    return nullptr;
}

// The command line before the current word, walked one token at a time.
struct Walk {
    const CLI::App* level = nullptr;
    const CLI::Option* open_option = nullptr;  // waits for a value
    std::size_t open_value_index = 0;          // which of its values comes next
    std::set<const CLI::Option*> seen;
    std::vector<std::string> positionals;  // arguments of `level`
    std::optional<std::string> dir;        // --dir, for the plan's task ids
    bool after_dashes = false;

    void token(const std::string& t) {
        if (open_option) return value(t);
        if (after_dashes) return positionals.push_back(t);
        if (t == "--") {
            after_dashes = true;
        } else if (t.size() > 2 && t.starts_with("--")) {
            flag(t.substr(0, t.find('=')), t.find('=') != std::string::npos, t.substr(t.find('=') + 1));
        } else if (t.size() == 2 && t[0] == '-') {
            flag(t, false, "");
        } else if (const CLI::App* sub = find_subcommand(*level, t); sub && positionals.empty()) {
            level = sub;
        } else {
            positionals.push_back(t);
        }
    }

    void flag(const std::string& name, bool attached, const std::string& attached_value) {
        const CLI::Option* o = find_flag(*level, name);
        if (!o) return;
        seen.insert(o);
        if (o->get_items_expected_max() <= 0) return;
        if (attached) {
            note_dir(*o, attached_value);
            if (o->get_items_expected_min() <= 1) return;
        }
        open_option = o;
        open_value_index = attached ? 1 : 0;
    }

    void value(const std::string& v) {
        if (open_value_index == 0) note_dir(*open_option, v);
        if (++open_value_index >= static_cast<std::size_t>(std::max(1, open_option->get_items_expected_min()))) {
            open_option = nullptr;
        }
    }

    void note_dir(const CLI::Option& o, const std::string& v) {
        if (o.check_lname("dir")) dir = v;
    }
};

class Completer {
public:
    Completer(const CLI::App& app, const Context& ctx) : app_(app), ctx_(ctx) {}

    // Prints the directive and the candidates for `current`.
    void complete(const Walk& w, const std::string& current) {
        if (w.open_option) {
            if (w.open_value_index == 0) return values(values_of(*w.open_option), w, "", current);
            return done(ValueKind::Nothing);
        }
        if (w.after_dashes) return done(ValueKind::File);
        if (current.starts_with("--") && current.find('=') != std::string::npos) {
            const std::string name = current.substr(0, current.find('='));
            const CLI::Option* o = find_flag(*w.level, name);
            if (!o || o->get_items_expected_max() <= 0) return done(ValueKind::Nothing);
            return values(values_of(*o), w, name + "=", current.substr(name.size() + 1));
        }
        if (current.starts_with("-")) return flags(w, current);
        words(w, current);
    }

private:
    void done(ValueKind kind) {
        std::cout << (kind == ValueKind::File ? "files" : kind == ValueKind::Directory ? "dirs" : "words") << '\n';
        for (const Candidate& c : out_)
            std::cout << c.value << (c.description.empty() ? "" : "\t" + c.description) << '\n';
    }

    void add(const std::string& prefix, const std::string& value, const std::string& description,
             const std::string& current) {
        const std::string full = prefix + value;
        if (full.starts_with(prefix + current)) out_.push_back({full, short_description(description)});
    }

    void values(const ValueCompletion& v, const Walk& w, const std::string& prefix, const std::string& current) {
        switch (v.kind) {
            case ValueKind::Words:
                for (const std::string& word : v.words) add(prefix, word, "", current);
                return done(ValueKind::Words);
            case ValueKind::TaskId: task_ids(w, prefix, current); return done(ValueKind::Words);
            case ValueKind::Command: commands(w, prefix, current); return done(ValueKind::Words);
            case ValueKind::Directory:
            case ValueKind::File:
                // `--out=<TAB>`: the shells cannot complete a path behind a prefix.
                return done(prefix.empty() ? v.kind : ValueKind::Nothing);
            case ValueKind::Nothing: return done(ValueKind::Nothing);
        }
    }

    void task_ids(const Walk& w, const std::string& prefix, const std::string& current) {
        const WorkspacePaths ws = locate_workspace(ctx_.fs, w.dir, current_directory());
        Result<PlanView> plan = plan_show_command(ctx_.fs, ws);
        if (!plan) return;
        for (const TaskSummary& t : plan->tasks) add(prefix, t.id, t.title + " (" + t.status.word() + ")", current);
    }

    // help's topic: the sub-commands under the words given so far.
    void commands(const Walk& w, const std::string& prefix, const std::string& current) {
        const CLI::App* level = &app_;
        for (const std::string& word : w.positionals) {
            level = find_subcommand(*level, word);
            if (!level) return;
        }
        for (const CLI::App* sub : visible_subcommands(*level))
            add(prefix, sub->get_name(), sub->get_description(), current);
    }

    void flags(const Walk& w, const std::string& current) {
        std::set<std::string> listed;
        for (const CLI::Option* o : usable_options(*w.level)) {
            if (w.seen.count(o) && o->get_items_expected_max() <= 1 && !o->get_lnames().empty() &&
                o->get_lnames().front() != "help") {
                continue;  // given already, and it is not a list
            }
            for (const std::string& l : o->get_lnames()) {
                if (listed.insert(l).second) add("", "--" + l, o->get_description(), current);
            }
            if (current.size() <= 2) {
                for (const std::string& s : o->get_snames()) add("", "-" + s, o->get_description(), current);
            }
        }
        done(ValueKind::Words);
    }

    // A word that is not a flag: a sub-command, or the command's argument.
    void words(const Walk& w, const std::string& current) {
        const std::vector<const CLI::App*> children = visible_subcommands(*w.level);
        const CLI::Option* arg = positional_at(*w.level, w.positionals.size());
        if (w.positionals.empty()) {
            for (const CLI::App* sub : children) add("", sub->get_name(), sub->get_description(), current);
        }
        if (arg && (children.empty() || !w.positionals.empty())) {
            const ValueCompletion v = values_of(*arg);
            if (v.kind == ValueKind::File || v.kind == ValueKind::Directory) return done(v.kind);
            return values(v, w, "", current);
        }
        // A command without arguments: its flags are all there is to type.
        if (children.empty() && !arg && current.empty()) return flags(w, "--");
        done(ValueKind::Words);
    }

    const CLI::App& app_;
    const Context& ctx_;
    std::vector<Candidate> out_;
};

}  // namespace

std::vector<const CLI::App*> visible_subcommands(const CLI::App& level) {
    return level.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

CLI::Option* complete_as(CLI::Option* option, ValueKind kind) {
    registry()[option] = ValueCompletion{kind, {}};
    return option;
}

CLI::Option* complete_as(CLI::Option* option, std::vector<std::string> words) {
    registry()[option] = ValueCompletion{ValueKind::Words, std::move(words)};
    return option;
}

int run_complete_request(const CLI::App& app, const Context& ctx, const std::vector<std::string>& words) {
    try {
        Walk w;
        w.level = &app;
        const std::string current = words.empty() ? std::string() : words.back();
        for (std::size_t i = 0; i + 1 < words.size(); ++i) w.token(words[i]);
        Completer(app, ctx).complete(w, current);
    } catch (const std::exception&) {
        // A completion must never print an error into the user's prompt.
    }
    return kExitOk;
}

}  // namespace small::cli
