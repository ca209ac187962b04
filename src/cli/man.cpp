// The manual pages: `small __man [COMMAND]` prints small(1) or small-COMMAND(1)
// in roff, walking the same CLI11 command tree that parses the command line
// and prints --help, so a page cannot drift from the binary. The build runs
// it for every command (cmake/generate_docs.cmake); `--list` names them.
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "small/base/utf8.hpp"
#include "small/base/version.hpp"

namespace small::cli {

namespace {

// One line of text made safe for roff: backslashes, hyphens, quotes and
// non-ASCII characters as escapes, and a leading control character defused.
std::string roff(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        char32_t cp = 0;
        if (c >= 0x80) {
            const std::size_t n = decode_utf8(text, i, cp);
            std::ostringstream hex;
            hex << std::uppercase << std::hex << static_cast<unsigned long>(n ? cp : 0xFFFD);
            std::string digits = hex.str();
            if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
            out += "\\[u" + digits + "]";
            i += n ? n : 1;
            continue;
        }
        switch (c) {
            case '\\': out += "\\e"; break;
            case '-': out += "\\-"; break;
            case '\'': out += "\\(aq"; break;
            case '`': out += "\\(ga"; break;
            case '\t': out += ' '; break;
            default: out += static_cast<char>(c);
        }
        ++i;
    }
    if (!out.empty() && out[0] == '.') out.insert(0, "\\&");
    return out;
}

std::string bold(std::string_view text) { return "\\fB" + roff(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + roff(text) + "\\fR"; }

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Help text as roff: blank lines start paragraphs, indented lines (commands
// to type) stay as they are, other lines are filled. The footer line every
// command gets about the global flags is left out: GLOBAL OPTIONS has them.
void prose(std::ostream& out, const std::string& text) {
    bool literal = false;
    for (const std::string& line : lines_of(text)) {
        if (line == kGlobalFlagsFooter) continue;
        const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
        if (indented != literal) {
            out << (indented ? ".RS 2\n.nf\n" : ".fi\n.RE\n");
            literal = indented;
        }
        if (line.empty()) out << ".PP\n";
        else out << roff(indented ? line.substr(line.find_first_not_of(" \t")) : line) << '\n';
    }
    if (literal) out << ".fi\n.RE\n";
}

bool hidden(const CLI::Option& o) { return o.get_group().empty(); }

std::string option_label(const CLI::Option& o) {
    std::string label;
    for (const std::string& s : o.get_snames()) label += (label.empty() ? "" : ", ") + bold("-" + s);
    for (const std::string& l : o.get_lnames()) label += (label.empty() ? "" : ", ") + bold("--" + l);
    if (o.get_items_expected_max() > 0 && !o.get_type_name().empty()) label += " " + italic(o.get_type_name());
    return label;
}

std::string option_notes(const CLI::Option& o) {
    std::string notes;
    if (o.get_required()) notes += " (required)";
    if (!o.get_default_str().empty()) notes += " (default: " + o.get_default_str() + ")";
    if (!o.get_envname().empty()) notes += " (environment: " + o.get_envname() + ")";
    return notes;
}

void option_items(std::ostream& out, const std::vector<const CLI::Option*>& options) {
    for (const CLI::Option* o : options) {
        out << ".TP\n" << option_label(*o) << '\n';
        prose(out, o->get_description() + option_notes(*o));
    }
}

std::vector<const CLI::Option*> flags_of(const CLI::App& level) {
    return level.get_options([](const CLI::Option* o) { return o->nonpositional() && !hidden(*o); });
}

std::vector<const CLI::Option*> arguments_of(const CLI::App& level) {
    return level.get_options([](const CLI::Option* o) { return o->get_positional() && !hidden(*o); });
}

std::string command_path(const CLI::App& level) {
    std::string path = level.get_name();
    for (const CLI::App* up = level.get_parent(); up; up = up->get_parent()) path = up->get_name() + " " + path;
    return path;
}

// `small plan show [OPTIONS] [ARG...]`, for `level` and every level under it.
void synopsis_lines(std::ostream& out, const CLI::App& level, bool& first) {
    const std::vector<const CLI::App*> children = visible_subcommands(level);
    const bool group_only = !children.empty() && flags_of(level).size() <= 1 && arguments_of(level).empty();
    if (!group_only) {
        out << (first ? "" : ".br\n") << bold(command_path(level)) << " [\\fIOPTIONS\\fR]";
        for (const CLI::Option* a : arguments_of(level)) {
            const std::string name = italic(a->get_name()) + (a->get_items_expected_max() > 1 ? " ..." : "");
            out << ' ' << (a->get_required() ? name : "[" + name + "]");
        }
        out << '\n';
        first = false;
    }
    for (const CLI::App* sub : children) synopsis_lines(out, *sub, first);
}

// A footer as its own paragraph, if there is one.
void paragraph(std::ostream& out, const std::string& text) {
    std::ostringstream body;
    prose(body, text);
    if (!body.str().empty()) out << ".PP\n" << body.str();
}

// The footer, arguments and options of one level: as sections of the page
// (`top`) or as paragraphs under a sub-command's heading.
void level_body(std::ostream& out, const CLI::App& level, bool top) {
    // A sub-command inherits its parent's footer; the page has it once.
    const CLI::App* parent = level.get_parent();
    if (!parent || level.get_footer() != parent->get_footer()) paragraph(out, level.get_footer());
    if (const auto args = arguments_of(level); !args.empty()) {
        out << (top ? ".SH ARGUMENTS\n" : ".PP\nArguments:\n");
        for (const CLI::Option* a : args) {
            out << ".TP\n" << italic(a->get_name()) << (a->get_items_expected_max() > 1 ? " ..." : "") << '\n';
            prose(out, a->get_description() + option_notes(*a));
        }
    }
    if (const auto flags = flags_of(level); !flags.empty()) {
        out << (top ? ".SH OPTIONS\n" : ".PP\nOptions:\n");
        option_items(out, flags);
    }
}

// Every level under `level`, depth first, as a .SS section each.
void subcommand_sections(std::ostream& out, const CLI::App& level) {
    for (const CLI::App* sub : visible_subcommands(level)) {
        out << ".SS\n" << roff(command_path(*sub)) << '\n';
        prose(out, sub->get_description());
        level_body(out, *sub, false);
        subcommand_sections(out, *sub);
    }
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

void header(std::ostream& out, const std::string& page, const std::string& summary) {
    out << ".\\\" Generated by `small __man` from the command definitions; do not edit.\n"
        << ".TH " << roff(upper(page)) << " 1 \"\" \"small " << tool_version() << "\" \"small manual\"\n"
        << ".nh\n"     // no hyphenation: flags and paths stay whole
        << ".ad l\n"   // ragged right: no stretched spaces
        << ".SH NAME\n"
        << roff(page) << " \\- " << roff(summary) << '\n';
}

void exit_status(std::ostream& out) {
    const std::pair<int, const char*> codes[] = {
        {kExitOk, "Success: the workspace is valid, the command did what was asked."},
        {kExitInvalid,
         "The workspace is invalid or the operation was refused (validation, lint, verify or check "
         "failures; a refused handoff; a confirmation left unanswered)."},
        {kExitUsage, "Usage error (unknown command or flag, bad value) or system error (no .small/, an "
                     "unreadable file, an I/O failure)."},
        {kExitBusy, "The workspace lock is held by another process (after a bounded wait)."},
    };
    out << ".SH EXIT STATUS\n";
    for (const auto& [code, meaning] : codes) out << ".TP\n" << bold(std::to_string(code)) << '\n' << roff(meaning) << '\n';
    out << ".PP\n" << roff("small apply exits with the code of the command it ran (128+signal when it was killed).")
        << '\n';
}

void global_options(std::ostream& out, const CLI::App& root) {
    std::vector<const CLI::Option*> globals;
    for (const CLI::Option* o : flags_of(root)) {
        if (!o->check_lname("version") && !o->check_lname("help")) globals.push_back(o);
    }
    out << ".SH GLOBAL OPTIONS\n";
    option_items(out, globals);
}

void command_page(std::ostream& out, const CLI::App& root, const CLI::App& cmd) {
    const std::string page = "small-" + cmd.get_name();
    header(out, page, cmd.get_description());
    out << ".SH SYNOPSIS\n";
    bool first = true;
    synopsis_lines(out, cmd, first);
    out << ".SH DESCRIPTION\n";
    prose(out, cmd.get_description());
    level_body(out, cmd, true);
    if (!visible_subcommands(cmd).empty()) {
        out << ".SH SUBCOMMANDS\n";
        subcommand_sections(out, cmd);
    }
    global_options(out, root);
    exit_status(out);
    out << ".SH SEE ALSO\n" << bold("small") << "(1)\n";
}

void main_page(std::ostream& out, const CLI::App& root) {
    header(out, "small", "durable, agent-legible project state (the SMALL protocol)");
    out << ".SH SYNOPSIS\n"
        << bold("small") << " [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
        << ".SH DESCRIPTION\n";
    prose(out, root.get_description());
    paragraph(out, root.get_footer());
    out << ".SH OPTIONS\n";
    option_items(out, flags_of(root));
    out << ".SH COMMANDS\n";
    for (const CLI::App* cmd : visible_subcommands(root)) {
        out << ".TP\n" << bold("small-" + cmd->get_name()) << "(1)\n";
        prose(out, cmd->get_description());
    }
    exit_status(out);
    out << ".SH SEE ALSO\n";
    const std::vector<const CLI::App*> commands = visible_subcommands(root);
    for (std::size_t i = 0; i < commands.size(); ++i)
        out << bold("small-" + commands[i]->get_name()) << "(1)" << (i + 1 < commands.size() ? ",\n" : "\n");
}

}  // namespace

int run_man_request(const CLI::App& app, const std::vector<std::string>& words) {
    if (words.empty()) {
        main_page(std::cout, app);
        return kExitOk;
    }
    if (words.size() == 1 && words[0] == "--list") {
        for (const CLI::App* cmd : visible_subcommands(app)) std::cout << cmd->get_name() << '\n';
        return kExitOk;
    }
    const CLI::App* cmd = words.size() == 1 ? find_subcommand(app, words[0]) : nullptr;
    if (!cmd || cmd->get_group().empty()) {
        std::cerr << "Error: usage: small __man [--list | COMMAND]\n";
        return kExitUsage;
    }
    command_page(std::cout, app, *cmd);
    return kExitOk;
}

}  // namespace small::cli
