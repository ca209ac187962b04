#include "small/model/scope_glob.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "small/model/agent_hooks.hpp"
#include "small/model/layout.hpp"

namespace small {

namespace {

std::vector<std::string_view> split_segments(std::string_view path) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t slash = path.find('/', start);
        const size_t end = slash == std::string_view::npos ? path.size() : slash;
        if (end > start) out.push_back(path.substr(start, end - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

bool segment_matches(const std::string& glob, std::string_view name) {
    if (glob.find_first_of("*?[\\") == std::string::npos) return name == glob;
    const std::string n(name);
    return fnmatch(glob.c_str(), n.c_str(), 0) == 0;
}

// Pattern segments from `p` against path segments from `s`. Running out of
// pattern with path left over is a match (the pattern named a folder).
bool match_from(const std::vector<std::string>& pat, size_t p, const std::vector<std::string_view>& path,
                size_t s) {
    for (; p < pat.size(); ++p, ++s) {
        if (pat[p] == "**") {
            while (p + 1 < pat.size() && pat[p + 1] == "**") ++p;  // `**/**` is `**`
            if (p + 1 == pat.size()) return true;
            for (size_t k = s; k < path.size(); ++k) {
                if (match_from(pat, p + 1, path, k)) return true;
            }
            return false;
        }
        if (s >= path.size() || !segment_matches(pat[p], path[s])) return false;
    }
    return true;
}

}  // namespace

Result<ScopeGlob> ScopeGlob::compile(std::string_view pattern) {
    ScopeGlob g;
    g.pattern_ = std::string(pattern);
    std::string_view p = pattern;
    while (p.substr(0, 2) == "./") p.remove_prefix(2);
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
    for (std::string_view seg : split_segments(p)) {
        if (seg == ".") continue;
        if (seg == "..") return Error::invalid("scope glob '" + g.pattern_ + "' has a '..' segment: globs are relative to the workspace root and cannot leave it");
        g.segments_.emplace_back(seg);
    }
    if (g.segments_.empty()) return Error::invalid("scope glob '" + g.pattern_ + "' is empty: remove it or name files, e.g. 'src/**'");
    return g;
}

bool ScopeGlob::matches(std::string_view path) const { return match_from(segments_, 0, split_segments(path), 0); }

DriftKind classify_path(const Scope& scope, std::string_view path) {
    for (const ScopeGlob& g : scope.exclude) {
        if (g.matches(path)) return DriftKind::Excluded;
    }
    if (scope.include.empty()) return DriftKind::None;
    for (const ScopeGlob& g : scope.include) {
        if (g.matches(path)) return DriftKind::None;
    }
    return DriftKind::OutsideScope;
}

bool is_small_own_file(std::string_view path) {
    if (path == "AGENTS.md" || path == ".gitignore") return true;
    for (const std::string_view settings : kAgentSettingsFiles) {
        if (path == settings) return true;
    }
    if (path == kEditorSettingsFile) return true;
    if (path.starts_with(kEditorSchemaFolder) && path.substr(kEditorSchemaFolder.size()).starts_with("/")) return true;
    const size_t slash = path.find('/');
    return slash != std::string_view::npos && path.substr(0, kSmallDirName.size()) == kSmallDirName;
}

namespace {

// The lines of a .gitattributes text other than small's merge line, without
// their line ends (a missing final line break, which install adds before
// its line, is no difference).
std::vector<std::string_view> lines_but_merge_line(std::string_view text) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, nl - at);
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line != kMergeAttributesLine) out.push_back(line);
        at = nl + 1;
    }
    return out;
}

}  // namespace

bool is_only_merge_attributes_change(const std::optional<std::string>& before, const std::optional<std::string>& after) {
    return lines_but_merge_line(before.value_or("")) == lines_but_merge_line(after.value_or(""));
}

}  // namespace small
