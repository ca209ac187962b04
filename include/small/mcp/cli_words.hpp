// The library words its messages for the CLI: "`small ready` lists the tasks
// to take", "or --force". An MCP tool's answer names tools and arguments
// instead, and this is the one place that rewrites one into the other, by one
// table of what each CLI command and flag is in MCP:
//
//   `small checkpoint --task X --status completed`  ->  `checkpoint {"task":"X","status":"completed"}`
//   `small ready` (nothing to pass)                 ->  the ready tool
//   --force (alone, in the claim tool's message)    ->  `force: true`;  --ttl  ->  `ttl`
//   a command or flag no tool offers                ->  the clause (or parenthesis) naming it is dropped
//
// git's own flags ("git fetch --unshallow") and prose that happens to say
// "small" ("small never writes through a link") are left as they are.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace small::mcp {

// How a CLI flag becomes a tool argument.
enum class ArgForm {
    Value,      // --task X            -> "task":"X"
    True,       // --force             -> "force":true
    Implied,    // --strict            -> nothing: the tool always does it
    Status,     // --done X            -> "task":"X","status":"completed" (`status` below)
    TaskItems,  // --step X:T, --depends X:D[,D] -> "task":"X","steps":["T"] / "depends_on":["D"]
};

struct FlagWord {
    std::string_view flag;      // "--task"
    std::string_view argument;  // "task"
    ArgForm form = ArgForm::Value;
    std::string_view status = {};  // ArgForm::Status: the status it sets
};

// A CLI command (the words after `small`) that a tool does: the tool, the
// argument its positional value is ("" none) and its flags that have one.
struct CommandWord {
    std::string_view command;  // "progress add", "status --brief"
    std::string_view tool;
    std::string_view positional;
    std::span<const FlagWord> flags;
};

// The table, longest commands first.
std::span<const CommandWord> command_words();

// `text` (a message of the library, for tool `tool`) in MCP's words.
std::string in_mcp_words(std::string_view text, std::string_view tool);

}  // namespace small::mcp
