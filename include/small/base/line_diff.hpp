// Line diffs: Myers' O((N+M)D) algorithm in linear space (the "middle
// snake" bisection) and unified diff text that `patch` applies.
//
// No packaged C++ library does this, so it lives here, knowing nothing of
// SMALL. The unified text first strips the common prefix and suffix of the
// two texts at the byte level (a grown append-only log then costs one
// memcmp plus the appended lines), keeps 3 lines of context, and follows
// GNU diff's conventions: `@@ -l,s +l,s @@` with `,1` omitted and an empty
// side numbered by the line before it, deletions before insertions within
// a change, and `\ No newline at end of file` after a last line that lacks
// its newline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace small {

// One edit of a line diff: `Keep` advances both sides, `Delete` the old
// side, `Insert` the new one. Consecutive edits of one kind are merged.
struct DiffEdit {
    enum class Kind { Keep, Delete, Insert };
    Kind kind;
    std::size_t count;
};

// A shortest edit script from `a` to `b` (sequences of line ids: equal ids
// mean equal lines). Within a change, deletions come before insertions.
std::vector<DiffEdit> diff_sequences(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b);

struct UnifiedDiff {
    std::string text;          // "" when the texts are equal
    std::size_t added = 0;     // '+' lines
    std::size_t removed = 0;   // '-' lines
    bool changed() const { return added != 0 || removed != 0; }
};

// The unified diff from `old_text` to `new_text` with `context` lines of
// context. The header is `--- <old_label>` / `+++ <new_label>` (pass
// "/dev/null" for a side that does not exist, as `patch` expects).
UnifiedDiff unified_diff(std::string_view old_text, std::string_view new_text, const std::string& old_label,
                         const std::string& new_label, std::size_t context = 3);

}  // namespace small
