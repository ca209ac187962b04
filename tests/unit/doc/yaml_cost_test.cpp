// The cost pre-scan skips most of a file eight bytes at a time; it must
// find exactly what the plain byte-by-byte scan it replaced finds (kept
// below as the reference) on texts made of the constructs it looks for:
// runs of blanks of every length, anchors, aliases, tags, directives, names
// broken by illegal characters, blank lines.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "small/base/utf8.hpp"
#include "yaml_internal.hpp"

namespace small {
namespace reference {

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

// The bytes a costly construct can start with.
constexpr std::array<bool, 256> kMayStart = [] {
    std::array<bool, 256> table{};
    for (const unsigned char c : {' ', '\t', '\r', '\n', '%', '&', '*', '!'}) table[c] = true;
    return table;
}();

class CostScan {
public:
    explicit CostScan(std::string_view bytes)
        : s_(bytes), budget_(kBlankBudgetBase + kBlankBudgetPerByte * bytes.size()) {}

    std::optional<CostlyConstruct> run() {
        std::size_t i = 0;
        while (i < s_.size()) {
            if (!kMayStart[static_cast<unsigned char>(s_[i])]) {  // most bytes: one look-up
                ++i;
                continue;
            }
            std::optional<CostlyConstruct> found;
            if (is_blank(s_[i])) {
                i = blank_run(i, found);
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


}  // namespace reference

namespace {

std::string random_text(std::mt19937& rng) {
    const std::vector<std::string> words = {"key:", "value", "- ", "\"q\"", "'s'", "#", ",", "[", "]", "{", "}", ":",
                                            "x", "\xC3\xA9", "\xC2\x85", "\x01", "!", "%", "&", "*"};
    const std::string blanks = " \t\r\n";
    std::string s;
    const int parts = 1 + static_cast<int>(rng() % 40);
    for (int p = 0; p < parts; ++p) {
        switch (rng() % 6) {
            case 0: {  // a run of blanks, mostly short, sometimes costly
                const std::size_t n = std::vector<std::size_t>{1, 2, 5, 7, 8, 9, 15, 16, 63, 64, 65, 66, 200, 3000, 6000}[rng() % 15];
                const bool lines = rng() % 3 == 0;
                for (std::size_t k = 0; k < n; ++k) s += lines ? blanks[rng() % 4] : ' ';
                break;
            }
            case 1: {  // an anchor, alias or tag, its name sometimes long and broken
                s += std::string(1, "&*!"[rng() % 3]);
                const std::size_t n = std::vector<std::size_t>{1, 10, 1023, 1024, 1025, 1100}[rng() % 6];
                s += std::string(n, 'a');
                if (rng() % 2) s += std::vector<std::string>{"\x01", "\xC2\x85", "\xC2\xA0", "\xE3\x80\x80", "x"}[rng() % 5];
                break;
            }
            case 2: s += "\n%" + std::string(rng() % 2 ? 10 : 1100, 'd'); break;
            case 3: s += "\n" + std::string(rng() % 70 + 60, '\n'); break;
            default: s += words[rng() % words.size()]; break;
        }
    }
    return s;
}

TEST(YamlCost, FindsWhatTheByteByByteScanFinds) {
    std::mt19937 rng(39);
    std::size_t found = 0;
    for (int round = 0; round < 4000; ++round) {
        const std::string text = random_text(rng);
        const std::optional<CostlyConstruct> expected = reference::CostScan(text).run();
        const std::optional<CostlyConstruct> got = find_quadratic_construct(text);
        ASSERT_EQ(expected.has_value(), got.has_value()) << round;
        if (!expected) continue;
        ++found;
        EXPECT_EQ(expected->offset, got->offset) << round;
        EXPECT_EQ(expected->message, got->message) << round;
    }
    // Both answers occurred.
    EXPECT_GT(found, 400u);
    EXPECT_LT(found, 3600u);
}

}  // namespace
}  // namespace small
