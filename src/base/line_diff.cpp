// Myers' diff and unified diff text (see line_diff.hpp).
#include "small/base/line_diff.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>

namespace small {

namespace {

// Beyond this many edits in one region the search stops and the region is
// reported as replaced as a whole: still a correct diff, no longer a
// minimal one, and the cost stays bounded (~kMaxCost^2 steps) on two
// unrelated huge files.
constexpr std::ptrdiff_t kMaxCost = 4096;

struct Split {
    std::size_t x, y;
};

// Marks the lines of `a` to delete and of `b` to insert.
class Differ {
public:
    Differ(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b)
        : a_(a), b_(b), deleted_(a.size(), 0), inserted_(b.size(), 0) {}

    void compare(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
        while (a0 < a1 && b0 < b1 && a_[a0] == b_[b0]) ++a0, ++b0;
        while (a0 < a1 && b0 < b1 && a_[a1 - 1] == b_[b1 - 1]) --a1, --b1;
        if (a0 == a1 || b0 == b1) return replace(a0, a1, b0, b1);
        const std::optional<Split> s = bisect(a0, a1, b0, b1);
        if (!s) return replace(a0, a1, b0, b1);
        compare(a0, a0 + s->x, b0, b0 + s->y);
        compare(a0 + s->x, a1, b0 + s->y, b1);
    }

    std::vector<DiffEdit> edits() const {
        std::vector<DiffEdit> out;
        auto push = [&out](DiffEdit::Kind k) {
            if (!out.empty() && out.back().kind == k) ++out.back().count;
            else out.push_back({k, 1});
        };
        std::size_t i = 0, j = 0;
        while (i < a_.size() || j < b_.size()) {
            if (i < a_.size() && deleted_[i]) push(DiffEdit::Kind::Delete), ++i;
            else if (j < b_.size() && inserted_[j]) push(DiffEdit::Kind::Insert), ++j;
            else push(DiffEdit::Kind::Keep), ++i, ++j;
        }
        return out;
    }

private:
    void replace(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
        std::fill(deleted_.begin() + static_cast<std::ptrdiff_t>(a0), deleted_.begin() + static_cast<std::ptrdiff_t>(a1), 1);
        std::fill(inserted_.begin() + static_cast<std::ptrdiff_t>(b0), inserted_.begin() + static_cast<std::ptrdiff_t>(b1), 1);
    }

    // The middle snake of a[a0,a1) x b[b0,b1): forward and backward searches
    // meet on an optimal path (after diff-match-patch's bisect).
    std::optional<Split> bisect(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a1 - a0), m = static_cast<std::ptrdiff_t>(b1 - b0);
        const std::uint32_t* a = a_.data() + a0;
        const std::uint32_t* b = b_.data() + b0;
        // Diagonals -max_d-1 .. max_d+1 are read (k +- 1 around every k the
        // search visits), so the arrays hold two more than 2 * max_d.
        const std::ptrdiff_t max_d = (n + m + 1) / 2, offset = max_d + 1, length = 2 * max_d + 3;
        v1_.assign(static_cast<std::size_t>(length), -1);
        v2_.assign(static_cast<std::size_t>(length), -1);
        v1_[static_cast<std::size_t>(offset + 1)] = 0;
        v2_[static_cast<std::size_t>(offset + 1)] = 0;
        const std::ptrdiff_t delta = n - m;
        const bool front = (delta % 2) != 0;
        std::ptrdiff_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
        auto v1 = [this](std::ptrdiff_t i) -> std::ptrdiff_t& { return v1_[static_cast<std::size_t>(i)]; };
        auto v2 = [this](std::ptrdiff_t i) -> std::ptrdiff_t& { return v2_[static_cast<std::size_t>(i)]; };
        for (std::ptrdiff_t d = 0; d < max_d && d <= kMaxCost; ++d) {
            for (std::ptrdiff_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
                const std::ptrdiff_t k1o = offset + k1;
                std::ptrdiff_t x1 = (k1 == -d || (k1 != d && v1(k1o - 1) < v1(k1o + 1))) ? v1(k1o + 1) : v1(k1o - 1) + 1;
                std::ptrdiff_t y1 = x1 - k1;
                while (x1 < n && y1 < m && a[x1] == b[y1]) ++x1, ++y1;
                v1(k1o) = x1;
                if (x1 > n) {
                    k1end += 2;
                } else if (y1 > m) {
                    k1start += 2;
                } else if (front) {
                    const std::ptrdiff_t k2o = offset + delta - k1;
                    if (k2o >= 0 && k2o < length && v2(k2o) != -1 && x1 >= n - v2(k2o)) {
                        return Split{static_cast<std::size_t>(x1), static_cast<std::size_t>(y1)};
                    }
                }
            }
            for (std::ptrdiff_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
                const std::ptrdiff_t k2o = offset + k2;
                std::ptrdiff_t x2 = (k2 == -d || (k2 != d && v2(k2o - 1) < v2(k2o + 1))) ? v2(k2o + 1) : v2(k2o - 1) + 1;
                std::ptrdiff_t y2 = x2 - k2;
                while (x2 < n && y2 < m && a[n - x2 - 1] == b[m - y2 - 1]) ++x2, ++y2;
                v2(k2o) = x2;
                if (x2 > n) {
                    k2end += 2;
                } else if (y2 > m) {
                    k2start += 2;
                } else if (!front) {
                    const std::ptrdiff_t k1o = offset + delta - k2;
                    if (k1o >= 0 && k1o < length && v1(k1o) != -1) {
                        const std::ptrdiff_t x1 = v1(k1o), y1 = offset + x1 - k1o;
                        if (x1 >= n - x2) return Split{static_cast<std::size_t>(x1), static_cast<std::size_t>(y1)};
                    }
                }
            }
        }
        return std::nullopt;
    }

    const std::vector<std::uint32_t>& a_;
    const std::vector<std::uint32_t>& b_;
    std::vector<char> deleted_, inserted_;
    std::vector<std::ptrdiff_t> v1_, v2_;
};

bool line_start(std::string_view t, std::size_t i) { return i == 0 || t[i - 1] == '\n'; }

std::vector<std::string_view> lines_with_endings(std::string_view t) {
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos < t.size();) {
        const std::size_t eol = t.find('\n', pos);
        const std::size_t end = eol == std::string_view::npos ? t.size() : eol + 1;
        lines.push_back(t.substr(pos, end - pos));
        pos = end;
    }
    return lines;
}

// The region the edit search must see: the texts minus their common byte
// prefix and suffix (cut at line starts), widened by `context` lines.
struct Window {
    std::size_t begin = 0;   // same in both texts (inside the common prefix)
    std::size_t old_end = 0, new_end = 0;
    std::size_t first_line = 0;  // lines before `begin`
};

Window find_window(std::string_view o, std::string_view n, std::size_t context) {
    const std::size_t shorter = std::min(o.size(), n.size());
    std::size_t p = 0;
    while (p < shorter && o[p] == n[p]) ++p;
    while (p > 0 && o[p - 1] != '\n') --p;
    std::size_t s = 0;
    while (s < shorter - p && o[o.size() - 1 - s] == n[n.size() - 1 - s]) ++s;
    while (s > 0 && !(line_start(o, o.size() - s) && line_start(n, n.size() - s))) --s;
    Window w;
    w.begin = p;
    for (std::size_t k = 0; k < context && w.begin > 0; ++k) {  // back one line: o[begin-1] is its '\n'
        const std::size_t nl = w.begin < 2 ? std::string_view::npos : o.rfind('\n', w.begin - 2);
        w.begin = nl == std::string_view::npos ? 0 : nl + 1;
    }
    std::size_t end = o.size() - s;
    for (std::size_t k = 0; k < context && end < o.size(); ++k) {
        const std::size_t nl = o.find('\n', end);
        end = nl == std::string_view::npos ? o.size() : nl + 1;
    }
    w.old_end = end;
    w.new_end = n.size() - s + (end - (o.size() - s));
    w.first_line = static_cast<std::size_t>(std::count(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(w.begin), '\n'));
    return w;
}

struct Change {
    std::size_t a, del, b, ins;  // line positions in the window
};

std::vector<Change> changes_of(const std::vector<DiffEdit>& edits) {
    std::vector<Change> out;
    std::size_t a = 0, b = 0;
    for (const DiffEdit& e : edits) {
        if (e.kind == DiffEdit::Kind::Keep) {
            a += e.count, b += e.count;
            continue;
        }
        if (out.empty() || out.back().a + out.back().del != a || out.back().b + out.back().ins != b) {
            out.push_back({a, 0, b, 0});
        }
        if (e.kind == DiffEdit::Kind::Delete) out.back().del += e.count, a += e.count;
        else out.back().ins += e.count, b += e.count;
    }
    return out;
}

void append_line(std::string& out, char mark, std::string_view line) {
    out += mark;
    out.append(line);
    if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

std::string range_text(std::size_t start, std::size_t count) {
    // GNU: an empty range is numbered by the line before it; ",1" is implied.
    if (count == 0) return std::to_string(start) + ",0";
    if (count == 1) return std::to_string(start + 1);
    return std::to_string(start + 1) + "," + std::to_string(count);
}

}  // namespace

std::vector<DiffEdit> diff_sequences(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    Differ d(a, b);
    d.compare(0, a.size(), 0, b.size());
    return d.edits();
}

UnifiedDiff unified_diff(std::string_view old_text, std::string_view new_text, const std::string& old_label,
                         const std::string& new_label, std::size_t context) {
    UnifiedDiff out;
    if (old_text == new_text) return out;
    const Window w = find_window(old_text, new_text, context);
    const std::vector<std::string_view> ol = lines_with_endings(old_text.substr(w.begin, w.old_end - w.begin));
    const std::vector<std::string_view> nl = lines_with_endings(new_text.substr(w.begin, w.new_end - w.begin));
    std::unordered_map<std::string_view, std::uint32_t> ids;
    auto intern = [&ids](const std::vector<std::string_view>& lines) {
        std::vector<std::uint32_t> v;
        v.reserve(lines.size());
        for (std::string_view l : lines) v.push_back(ids.emplace(l, static_cast<std::uint32_t>(ids.size())).first->second);
        return v;
    };
    const std::vector<std::uint32_t> a = intern(ol), b = intern(nl);
    const std::vector<Change> changes = changes_of(diff_sequences(a, b));

    out.text = "--- " + old_label + "\n+++ " + new_label + "\n";
    for (std::size_t h = 0; h < changes.size();) {
        std::size_t last = h;  // changes closer than 2*context share a hunk
        while (last + 1 < changes.size() &&
               changes[last + 1].a - (changes[last].a + changes[last].del) <= 2 * context) {
            ++last;
        }
        const std::size_t lead = std::min(context, changes[h].a);
        const std::size_t a0 = changes[h].a - lead, b0 = changes[h].b - lead;
        const std::size_t trail = std::min(context, ol.size() - (changes[last].a + changes[last].del));
        const std::size_t a1 = changes[last].a + changes[last].del + trail;
        const std::size_t b1 = changes[last].b + changes[last].ins + trail;
        out.text += "@@ -" + range_text(w.first_line + a0, a1 - a0) + " +" + range_text(w.first_line + b0, b1 - b0) +
                    " @@\n";
        std::size_t a = a0;
        for (std::size_t c = h; c <= last; ++c) {
            for (; a < changes[c].a; ++a) append_line(out.text, ' ', ol[a]);
            for (std::size_t i = 0; i < changes[c].del; ++i) append_line(out.text, '-', ol[changes[c].a + i]);
            for (std::size_t i = 0; i < changes[c].ins; ++i) append_line(out.text, '+', nl[changes[c].b + i]);
            a = changes[c].a + changes[c].del;
            out.removed += changes[c].del;
            out.added += changes[c].ins;
        }
        for (; a < a1; ++a) append_line(out.text, ' ', ol[a]);
        h = last + 1;
    }
    return out;
}

}  // namespace small
