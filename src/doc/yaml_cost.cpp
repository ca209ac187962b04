// The linear pre-scan that keeps libfyaml linear (see yaml_internal.hpp).
// libfyaml's scanner looks ahead with fy_parse_peek_at(i), which decodes
// the i characters before the one it returns: a loop over a run of n
// characters costs n² steps. It loops that way over the blanks after an
// anchor, a tag, a quoted scalar, a `]`/`}`, a `-`/`?` and (in flow
// context, line breaks included) after a `:`; over a directive line; and it
// places the error of an anchor or alias name that an illegal character
// breaks, or of a tag that does not end, by advancing the name's length
// again; and it builds the text of a multi-line scalar line by line, each
// line looking over all the blank lines that follow it. These rules find
// such text in one pass, before libfyaml sees it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "small/base/utf8.hpp"
#include "yaml_internal.hpp"

namespace small {

namespace {

constexpr std::size_t kMaxNameChars = 1024;       // broken anchor/alias names, tags, directive lines
constexpr std::size_t kFreeBlankRun = 64;         // blanks in a row that cost nothing extra
constexpr std::size_t kFreeBlankLines = 64;       // line breaks in a row that cost nothing extra
constexpr std::uint64_t kBlankBudgetPerByte = 32;  // the runs' costs summed over the file, per byte of it
constexpr std::uint64_t kBlankBudgetBase = std::uint64_t{1} << 24;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_flow_indicator(char c) { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'; }

// What libfyaml refuses inside an anchor or alias name (fy_is_unicode_control/_space).
bool is_illegal_in_name(char32_t c) {
    return c < 0x20 || (c >= 0x80 && c <= 0x9f) || c == 0xa0 || (c >= 0x2000 && c <= 0x200a) || c == 0x202f ||
           c == 0x205f || c == 0x3000;
}

std::string code_point_name(char32_t c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
}

class CostScan {
public:
    explicit CostScan(std::string_view bytes)
        : s_(bytes), budget_(kBlankBudgetBase + kBlankBudgetPerByte * bytes.size()) {}

    std::optional<CostlyConstruct> run() {
        std::optional<CostlyConstruct> found;
        for (std::size_t i = next_candidate(0); i < s_.size(); i = next_candidate(i)) {
            if (is_blank(s_[i])) {
                i = blank_run(i, found);  // a run too long to be free
            } else if (s_[i] == '%' && (i == 0 || s_[i - 1] == '\n')) {
                i = directive(i, found);
            } else if ((s_[i] == '&' || s_[i] == '*') && starts_token(i)) {
                i = anchor_or_alias(i, found);
            } else if (s_[i] == '!' && starts_token(i)) {
                i = tag(i, found);
            } else {
                ++i;
            }
            if (found) return found;
        }
        return std::nullopt;
    }

private:
    // Where the next construct that may cost something starts: a '!', '%',
    // '&' or '*', or a run of more than kFreeBlankRun blanks (shorter runs
    // cost nothing, see blank_run). Such a run fills sixteen bytes in a row,
    // so only the blocks of sixteen (or, without SSE2, words of eight) bytes
    // that hold one of those four bytes or no byte above ' ' are looked into;
    // the others are skipped whole.
    std::size_t next_candidate(std::size_t i) const {
        constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighBits = 0x8080808080808080ULL;
        const auto has_byte = [&](std::uint64_t word, char c) {
            const std::uint64_t t = word ^ (kOnes * static_cast<unsigned char>(c));
            return ((t - kOnes) & ~t & kHighBits) != 0;
        };
        const std::size_t n = s_.size();
#if defined(__SSE2__)
        // The same rule sixteen bytes at a time: such a run also fills a whole block of them.
        const __m128i space = _mm_set1_epi8(' ');
        for (; i + 16 <= n;) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_.data() + i));
            const __m128i rare =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('!')), _mm_cmpeq_epi8(v, _mm_set1_epi8('%'))),
                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('&')), _mm_cmpeq_epi8(v, _mm_set1_epi8('*'))));
            const int low = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v));  // bytes <= ' '
            if (_mm_movemask_epi8(rare) == 0 && low != 0xFFFF) {
                i += 16;
                continue;
            }
            if (const std::optional<std::size_t> at = inspect(i, i + 16)) return *at;
        }
#endif
        for (; i + 8 <= n;) {
            std::uint64_t word = 0;
            std::memcpy(&word, s_.data() + i, 8);
            const bool rare = has_byte(word, '!') || has_byte(word, '%') || has_byte(word, '&') || has_byte(word, '*');
            const bool low = (((word + kOnes * (0x7F - ' ')) | word) & kHighBits) == 0;  // every byte <= ' '
            if (!rare && !low) {
                i += 8;
                continue;
            }
            if (const std::optional<std::size_t> at = inspect(i, i + 8)) return *at;
        }
        if (const std::optional<std::size_t> at = inspect(i, n)) return *at;
        return n;
    }

    // Bytes i..stop one by one: a '!', '%', '&' or '*', or the start of a run
    // of blanks too long to be free (looked for back and ahead: the scan may
    // have skipped its start), is returned; i moves past the rest.
    std::optional<std::size_t> inspect(std::size_t& i, std::size_t stop) const {
        while (i < stop) {
            const char c = s_[i];
            if (c == '!' || c == '%' || c == '&' || c == '*') return i;
            if (!is_blank(c)) {
                ++i;
                continue;
            }
            std::size_t start = i, end = i + 1;
            while (start > 0 && is_blank(s_[start - 1])) --start;
            while (end < s_.size() && is_blank(s_[end])) ++end;
            if (end - start > kFreeBlankRun) return start;
            i = end;
        }
        return std::nullopt;
    }

    bool starts_token(std::size_t i) const { return i == 0 || is_blank(s_[i - 1]) || is_flow_indicator(s_[i - 1]); }

    std::size_t line_end(std::size_t i) const {
        const std::size_t nl = s_.find('\n', i);
        return nl == std::string_view::npos ? s_.size() : nl;
    }

    // Two loops cost the square of a run of blanks. The look-ahead scans the
    // blanks up to the line's end, or after a `:` also the line breaks and
    // the indentation (flow context; text does not tell the two apart). And
    // the text of a multi-line scalar is built line by line, each line
    // looking over all the blank lines after it: lines × bytes. The costs
    // add up; only a file that holds more than its budget fails, at its
    // costliest run.
    std::size_t blank_run(std::size_t start, std::optional<CostlyConstruct>& found) {
        const bool after_colon = start > 0 && s_[start - 1] == ':';
        std::size_t end = start, scanned = 0, breaks = 0, first_break = 0;
        for (; end < s_.size() && is_blank(s_[end]); ++end) {
            const bool line_break = s_[end] == '\n' || (s_[end] == '\r' && (end + 1 == s_.size() || s_[end + 1] != '\n'));
            if (line_break && breaks++ == 0) first_break = end;
            if (scanned == end - start && (after_colon || (s_[end] != '\n' && s_[end] != '\r'))) ++scanned;
        }
        std::uint64_t look_ahead = 0, line_by_line = 0;
        if (scanned > kFreeBlankRun) look_ahead = std::uint64_t{scanned - kFreeBlankRun} * (scanned - kFreeBlankRun);
        if (breaks > kFreeBlankLines) line_by_line = std::uint64_t{breaks - kFreeBlankLines} * (end - start);
        if (look_ahead + line_by_line == 0) return end;
        spent_ += look_ahead + line_by_line;
        if (look_ahead + line_by_line > costliest_) {
            costliest_ = look_ahead + line_by_line;
            culprit_ = look_ahead >= line_by_line
                           ? CostlyConstruct{start, std::to_string(scanned) +
                                                        " blanks (spaces, tabs, line breaks) in a row; the YAML "
                                                        "parser's time grows with the square of such runs longer than " +
                                                        std::to_string(kFreeBlankRun) +
                                                        ", and this file has too many of them: remove most of these "
                                                        "blanks"}
                           : CostlyConstruct{first_break + 1,
                                             std::to_string(breaks - 1) +
                                                 " blank lines in a row; the YAML parser's time grows with the square "
                                                 "of such runs longer than " +
                                                 std::to_string(kFreeBlankLines) +
                                                 " lines, and this file has too many of them: remove most of these "
                                                 "lines"};
        }
        if (spent_ > budget_) found = culprit_;
        return end;
    }

    std::size_t directive(std::size_t start, std::optional<CostlyConstruct>& found) {
        const std::size_t end = line_end(start);
        if (end - start > kMaxNameChars) {
            found = CostlyConstruct{start, "a directive line (starting with %) longer than " +
                                               std::to_string(kMaxNameChars) +
                                               " characters; shorten it, or indent the line if it is text"};
        }
        return start + 1;  // the line's tokens are scanned as usual
    }

    // Long valid names are read in linear time; only a long name that an
    // illegal character breaks is quadratic (its error is placed by
    // re-advancing the name's length). Short ones are libfyaml's to report.
    std::size_t anchor_or_alias(std::size_t start, std::optional<CostlyConstruct>& found) {
        std::size_t i = start + 1, chars = 0;
        char32_t c = 0;
        while (i < s_.size() && !is_blank(s_[i]) && !is_flow_indicator(s_[i])) {
            const std::size_t width = decode_utf8(s_, i, c);
            if (width == 0 || is_illegal_in_name(c)) break;
            i += width;
            ++chars;
        }
        const bool broken = i < s_.size() && !is_blank(s_[i]) && !is_flow_indicator(s_[i]);
        if (broken && chars > kMaxNameChars) {
            const std::string what = s_[start] == '&' ? "anchor" : "alias";
            found = CostlyConstruct{start, "the " + what + " name here is broken by the character " +
                                               code_point_name(c) + " after " + std::to_string(chars) +
                                               " characters; remove that character (a name ends at a space, a "
                                               "line break or one of , [ ] { })"};
        }
        return i;
    }

    // A tag's errors are placed by re-advancing its length: tags are short.
    std::size_t tag(std::size_t start, std::optional<CostlyConstruct>& found) {
        // Outside [...] and {...} a tag may hold , [ ] { } too; the scan
        // does not know where it is, so only a blank (or !<...>'s '>') ends it.
        const bool verbatim = start + 1 < s_.size() && s_[start + 1] == '<';
        std::size_t i = start + 1;
        while (i < s_.size() && !is_blank(s_[i]) && !(verbatim && s_[i] == '>')) ++i;
        std::size_t chars = 0;
        for (std::size_t k = start; k < i; ++k) chars += (static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80;
        if (chars > kMaxNameChars) {
            found = CostlyConstruct{start, "a tag longer than " + std::to_string(kMaxNameChars) +
                                               " characters; shorten it, or quote the value if it is text"};
        }
        return i;
    }

    std::string_view s_;
    std::uint64_t budget_;
    std::uint64_t spent_ = 0;
    std::uint64_t costliest_ = 0;
    CostlyConstruct culprit_;
};

}  // namespace

std::optional<CostlyConstruct> find_quadratic_construct(std::string_view bytes) { return CostScan(bytes).run(); }

}  // namespace small
