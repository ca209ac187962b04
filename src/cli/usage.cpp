// Usage errors found by walking argv over the command tree before CLI11
// parses it: CLI11 2.1 reports an unknown flag late and in the wrong words
// (`--tsk` comes out as "--task is required") and never suggests a name.
#include <map>

#include "cli.hpp"
#include "small/base/text.hpp"

namespace small::cli {

namespace {

std::vector<const CLI::App*> children(const CLI::App& level) {
    return level.get_subcommands([](const CLI::App*) { return true; });
}

bool takes_positionals(const CLI::App& level) {
    return !level.get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
}

std::vector<std::string> long_flag_names(const CLI::App& level) {
    std::vector<std::string> names;
    for (const CLI::Option* o : usable_options(level)) {
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    }
    return names;
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_max() > 0; }

bool asks_for_help_or_version(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
        if (a == "--") return false;
        if (a == "-h" || a == "--help" || a == "-v" || a == "--version") return true;
    }
    return false;
}

// "Did you mean this?" as the reference (cobra) words it for commands.
std::string unknown_command_message(const CLI::App& level, const std::string& word, const std::string& path) {
    std::vector<std::string> names;
    for (const CLI::App* sub : children(level)) names.push_back(sub->get_name());
    std::string message = "unknown command \"" + word + "\" for \"" + path + "\"";
    const std::vector<std::string> near = closest_matches(word, names);
    if (!near.empty()) message += "\n\nDid you mean this?";
    for (const std::string& n : near) message += "\n\t" + n;
    return message;
}

std::string unknown_flag_message(const CLI::App& level, const std::string& flag, const std::string& path) {
    std::string message = "unknown flag " + flag + " for \"" + path + "\"";
    const std::vector<std::string> near = closest_matches(flag, long_flag_names(level), 1);
    if (!near.empty()) message += "; did you mean " + near.front() + "?";
    return message;
}

// Walks argv one level of the command tree at a time.
class ArgvWalk {
public:
    ArgvWalk(const CLI::App& app, std::vector<std::string> args) : level_(&app), args_(std::move(args)) {}

    std::optional<UsageProblem> run() {
        for (i_ = 0; i_ < args_.size(); ++i_) {
            const std::string& a = args_[i_];
            if (a == "--") break;
            std::optional<std::string> problem;
            if (a.size() > 2 && a.starts_with("--")) problem = long_flag(a);
            else if (a.size() > 1 && a[0] == '-') problem = short_flags(a);
            else problem = word(a);
            if (problem) return UsageProblem{*problem, help_command()};
            if (stopped_) break;
        }
        return std::nullopt;
    }

private:
    std::string path() const { return "small" + path_; }
    std::string help_command() const { return path() + " --help"; }

    // A sub-command where the level has them; else an argument of the command.
    std::optional<std::string> word(const std::string& a) {
        if (!children(*level_).empty()) return descend(a) ? std::nullopt : not_a_command(a);
        if (!takes_positionals(*level_)) return stray_argument(a);
        return std::nullopt;
    }

    bool descend(const std::string& word) {
        const CLI::App* sub = find_subcommand(*level_, word);
        if (!sub) return false;
        level_ = sub;
        path_ += " " + word;
        seen_.clear();
        return true;
    }

    std::optional<std::string> not_a_command(const std::string& word) {
        // draft/accept take the word as an argument and explain it themselves.
        if (takes_positionals(*level_)) {
            stopped_ = true;
            return std::nullopt;
        }
        return unknown_command_message(*level_, word, path());
    }

    std::optional<std::string> stray_argument(const std::string& word) const {
        return "unexpected argument \"" + word + "\" for \"" + path() + "\" (it takes no arguments)";
    }

    std::optional<std::string> long_flag(const std::string& token) {
        const std::size_t eq = token.find('=');
        const std::string name = token.substr(0, eq);
        const CLI::Option* o = find_flag(*level_, name);
        if (!o) return unknown_flag_message(*level_, name, path());
        return use(*o, name, eq != std::string::npos);
    }

    // `-y`, or several one-letter flags together (`-yf`); a letter that
    // takes a value takes the rest of the token (or the next argument).
    std::optional<std::string> short_flags(const std::string& token) {
        for (std::size_t k = 1; k < token.size(); ++k) {
            const std::string name = std::string("-") + token[k];
            const CLI::Option* o = find_flag(*level_, name);
            if (!o) return unknown_flag_message(*level_, name, path());
            if (takes_value(*o)) return use(*o, name, k + 1 < token.size());
        }
        return std::nullopt;
    }

    // Counts the use and skips the values the option takes from argv.
    std::optional<std::string> use(const CLI::Option& o, const std::string& name, bool value_attached) {
        if (!takes_value(o)) return std::nullopt;
        if (++seen_[&o] == 2 && o.get_expected_max() == 1 &&
            o.get_multi_option_policy() == CLI::MultiOptionPolicy::Throw) {
            return name + " was given twice; it takes one value";
        }
        // `--title=ID TEXT`: the attached value is the first of those it takes.
        const std::size_t needed = static_cast<std::size_t>(o.get_items_expected_min()) - (value_attached ? 1 : 0);
        if (needed == 0) return std::nullopt;
        if (i_ + needed >= args_.size()) {
            return name + " needs a value (" + name + " " + o.get_type_name() + ")";
        }
        i_ += needed;
        return std::nullopt;
    }

    const CLI::App* level_;
    std::vector<std::string> args_;
    std::size_t i_ = 0;
    std::string path_;  // " progress add"
    std::map<const CLI::Option*, int> seen_;
    bool stopped_ = false;
};

}  // namespace

std::vector<const CLI::Option*> usable_options(const CLI::App& level) {
    std::vector<const CLI::Option*> out;
    for (const CLI::App* at = &level; at; at = at->get_parent()) {
        for (const CLI::Option* o : at->get_options()) {
            if (o->nonpositional()) out.push_back(o);
        }
    }
    return out;
}

const CLI::Option* find_flag(const CLI::App& level, const std::string& name) {
    for (const CLI::Option* o : usable_options(level)) {
        if (name.size() > 2 && o->check_lname(name.substr(2))) return o;
        if (name.size() == 2 && o->check_sname(name.substr(1))) return o;
    }
    return nullptr;
}

std::optional<UsageProblem> find_usage_problem(const CLI::App& app, int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (asks_for_help_or_version(args)) return std::nullopt;
    return ArgvWalk(app, std::move(args)).run();
}

CLI::Validator one_of(std::vector<std::string> values) {
    std::string names;
    for (const std::string& v : values) names += (names.empty() ? "" : ", ") + v;
    return CLI::Validator(
        [values, names](std::string& value) {
            for (const std::string& v : values) {
                if (value == v) return std::string();
            }
            return "invalid value \"" + value + "\" (valid: " + names + ")";
        },
        names);
}

}  // namespace small::cli
