// The intent's scope.include / scope.exclude globs (docs/git.md "Scope
// drift"), matched against work-tree paths relative to the workspace root.
//
// Semantics: '/' separates segments; `*` matches any run of characters
// within one segment, `?` one character, `[...]` a class (fnmatch(3));
// a segment that is exactly `**` matches zero or more whole segments. A
// pattern also covers everything below what it matches (`src` and `src/`
// cover `src/a/b.c`, like a gitignore directory). Leading `./` or `/` is
// dropped; a pattern is always anchored at the workspace root (write
// `**/*.md` for "anywhere"). `*` matches dot files too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"

namespace small {

class ScopeGlob {
public:
    // Invalid for an empty pattern or one with a `..` segment (it could
    // never match a path inside the workspace).
    static Result<ScopeGlob> compile(std::string_view pattern);
    bool matches(std::string_view path) const;
    const std::string& pattern() const { return pattern_; }

private:
    std::string pattern_;
    std::vector<std::string> segments_;
};

enum class DriftKind { None, OutsideScope, Excluded };

struct Scope {
    std::vector<ScopeGlob> include, exclude;
};

// Excluded when an exclude glob matches; else OutsideScope when there are
// include globs and none matches; else None (an empty include list limits
// nothing).
DriftKind classify_path(const Scope& scope, std::string_view path);

// SMALL's own files are never drift: anything under a top-level folder
// whose name starts with `.small`, the top-level AGENTS.md and .gitignore
// (small writes lines into both), and the agent settings files `small hooks
// install claude|codex` manages (model/agent_hooks' kAgentSettingsFiles).
// The .gitattributes that `small hooks install git` adds its line to is
// small's only when that line is all that changed: domain/scope_drift
// compares the texts (is_only_merge_attributes_change).
bool is_small_own_file(std::string_view path);

// Whether two .gitattributes texts differ only by small's merge line
// (kMergeAttributesLine, on as many lines as it likes, and the line break
// install adds before it to a last line without one); nullopt stands for
// no file.
bool is_only_merge_attributes_change(const std::optional<std::string>& before, const std::optional<std::string>& after);

}  // namespace small
