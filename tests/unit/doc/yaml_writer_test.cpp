// The YAML writer: scalars that re-read as exactly the string written, the
// house block style, and appending progress entries without touching the
// bytes already in the file (DECISIONS D2, D7, D8).
#include "small/doc/yaml_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "small/doc/yaml.hpp"
#include "yaml_internal.hpp"

namespace small {
namespace {

std::string printable(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if (c == '\n') out += "\\n";
        else if (c < 0x20 || c == 0x7F) out += "\\x" + std::to_string(c);
        else out += static_cast<char>(c);
    }
    return out;
}

Document parse_ok(const std::string& text) {
    auto result = parse_yaml(text, "test.yml");
    EXPECT_TRUE(result.ok()) << "input:\n" << text << "\nerror: " << (result.ok() ? "" : result.error().describe());
    if (!result.ok()) return Document();
    return std::move(result).value();
}

// A file of ../shared (the conformance corpus), or nullopt when the corpus is absent.
std::optional<std::string> read_shared(const std::string& relative) {
    std::ifstream in(std::string(SMALL_SHARED_DIR) + "/" + relative, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

constexpr const char* kHouseStyleWorkspace = "conformance/cases/verdict/016-intent-owner-agent/ws/.small/";

const std::vector<std::string>& tricky_strings() {
    static const std::vector<std::string> strings = {
        "", " ", "  ", "a", "plain words", "yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "True",
        "TRUE", "false", "False", "null", "Null", "NULL", "~", "1", "-1", "+1", "1.0", "1.0.0", "0x1F", "0o17",
        "007", "0777", "1_000", "1e3", "1E-3", ".5", "5.", ".inf", "-.inf", ".Inf", ".nan", ".NaN", "1:20",
        "-", "- a", "-a", "--", "---", "...", "?", "? a", ":", ":a", "a: b", "a:b", "a #b", "a#b", "#x", "key:",
        "http://x", "https://example.com/a?b=c#frag", "[a]", "{a: 1}", "a, b", "&anchor", "*alias", "!tag",
        "!!str", "|", "|+", ">", ">-", "'single'", "\"double\"", "%YAML", "@at", "`tick`", "<<", "=",
        "multi\nline", "trailing newline\n", "\n", "\n\n", "tab\tsep", "\t", "cr\rlf", "crlf\r\n",
        "quote\"s", "back\\slash", "\\n literal", "é😀", "日本語", "\x01", "a\x1f", "\x7f", std::string("nul\0byte", 8),
        " leading", "trailing ", " both ", "2025-01-01", "2025-01-01T00:00:00.000000000Z",
        "2025-06-01T10:00:00.100000000Z", "2025-01-01 10:00:00", "12:30:00", "meta/init", "task-1",
        "Initialized .small workspace and seeded canonical artifacts",
        "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941", "1234567", "abc1234",
        "\xC2\x85nel", "line\xE2\x80\xA8sep", "\xEF\xBB\xBF" "bom", "\xEF\xBF\xBE", "a ' b", "it's",
        "a \" b", "x # y: z", "%", "a\\", "\"", "'", "\\",
    };
    return strings;
}

// Reads `text` and returns the string at `v`, or a marker when it is not one.
std::string read_value(const std::string& text, const char* key = "v") {
    const Document doc = parse_ok(text);
    const NodeRef v = doc.root().find(key);
    if (!v.is_string()) return std::string("<not a string: ") + kind_name(v.kind()) + ">";
    return std::string(v.as_string());
}

void expect_round_trip(const std::string& s) {
    SCOPED_TRACE("string: \"" + printable(s) + "\"");
    const YamlValue value = {{"v", s}};
    // As a document value, a sequence-item value and a plain-when-safe scalar.
    EXPECT_EQ(read_value(emit_document(value)), s);
    const Document doc = parse_ok("entries:\n" + emit_sequence_item(value, 2));
    EXPECT_EQ(doc.root().find("entries").item(0).find("v").as_string(), s);
    EXPECT_EQ(read_value("v: " + yaml_scalar(s)), s);
    // As a key (keys are plain when safe).
    const Document keyed = parse_ok(emit_document(YamlValue{{s, "x"}}));
    ASSERT_TRUE(keyed.root().is_mapping());
    ASSERT_EQ(keyed.root().size(), 1u);
    EXPECT_EQ(keyed.root().key(0), s);
    EXPECT_EQ(keyed.root().value(0).as_string(), "x");
}

// ------------------------------------------------------------------ scalars

TEST(YamlWriter, TrickyStringsRoundTrip) {
    for (const std::string& s : tricky_strings()) expect_round_trip(s);
}

TEST(YamlWriter, PlainOnlyWhenUnambiguous) {
    for (const char* s : {"hello", "task-1", "meta/init", "http://x", "a:b", "a#b", "é😀", "plain words", "abc1234"}) {
        EXPECT_EQ(yaml_scalar(s), s) << s;
    }
    for (const char* s : {"", " a", "a ", "yes", "No", "ON", "true", "null", "~", "1.0.0", "1234567", "007", "0x1F",
                          ".inf", "2025-01-01T00:00:00.000000000Z", "12:30:00", "- a", "-", "a: b", "a #b", "key:",
                          "#x", "<<", "=", "&a", "*a", "!a", "|", ">", "'", "\"", "%", "@", "`", "[", "]", "{",
                          "}", ",", "?", ":", "+1", ".5"}) {
        const std::string out = yaml_scalar(s);
        EXPECT_TRUE(out.size() >= 2 && out.front() == '"' && out.back() == '"') << s << " -> " << out;
    }
}

TEST(YamlWriter, DoubleQuotedEscapes) {
    EXPECT_EQ(yaml_quoted("a\"b\\c"), R"("a\"b\\c")");
    EXPECT_EQ(yaml_quoted("x\ny\tz\r"), R"("x\ny\tz\r")");
    EXPECT_EQ(yaml_quoted(std::string("\x01\x1f\x7f\0", 4)), R"("\u0001\u001F\u007F\u0000")");
    EXPECT_EQ(yaml_quoted("\xC2\x85\xE2\x80\xA8\xE2\x80\xA9\xEF\xBB\xBF"), R"("\u0085\u2028\u2029\uFEFF")");
    EXPECT_EQ(yaml_quoted("é😀日"), "\"é😀日\"");  // other UTF-8 stays as is
    EXPECT_EQ(yaml_quoted(""), "\"\"");
}

TEST(YamlWriter, InvalidUtf8BecomesReplacementCharacter) {
    EXPECT_FALSE(is_valid_utf8("a\xff"));
    EXPECT_FALSE(is_valid_utf8("\xC0\x80"));        // overlong
    EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));    // surrogate
    EXPECT_TRUE(is_valid_utf8("é😀"));
    EXPECT_EQ(yaml_quoted("a\xff" "b"), "\"a\xEF\xBF\xBD" "b\"");
    // The file stays readable.
    EXPECT_EQ(read_value(emit_document(YamlValue{{"v", std::string("a\xff")}})), "a\xEF\xBF\xBD");
}

TEST(YamlWriter, NumbersBoolsAndNullKeepTheirKind) {
    const std::vector<double> doubles = {0.0, 1.0, -1.5, 0.1, 1e300, -1e-300, 5e-324, 123456789.0, 1e21};
    for (double d : doubles) {
        const Document doc = parse_ok(emit_document(YamlValue{{"v", d}}));
        const NodeRef v = doc.root().find("v");
        ASSERT_TRUE(v.is_float()) << d;
        EXPECT_EQ(v.as_double(), d);
    }
    for (std::int64_t i : {std::int64_t{0}, std::int64_t{-1}, std::numeric_limits<std::int64_t>::max(),
                           std::numeric_limits<std::int64_t>::min()}) {
        const Document doc = parse_ok(emit_document(YamlValue{{"v", i}}));
        ASSERT_TRUE(doc.root().find("v").is_int()) << i;
        EXPECT_EQ(doc.root().find("v").as_int(), i);
    }
    const Document special = parse_ok(emit_document(YamlValue{{"inf", std::numeric_limits<double>::infinity()},
                                                               {"ninf", -std::numeric_limits<double>::infinity()},
                                                               {"nan", std::numeric_limits<double>::quiet_NaN()},
                                                               {"t", true}, {"f", false}, {"z", nullptr}}));
    EXPECT_TRUE(std::isinf(special.root().find("inf").as_double()));
    EXPECT_LT(special.root().find("ninf").as_double(), 0);
    EXPECT_TRUE(std::isnan(special.root().find("nan").as_double()));
    EXPECT_TRUE(special.root().find("t").as_bool());
    EXPECT_TRUE(special.root().find("f").is_bool());
    EXPECT_TRUE(special.root().find("z").is_null());
}

// ------------------------------------------------------------------ block style

TEST(YamlWriter, SequenceItemHouseStyle) {
    const YamlValue entry = {{"timestamp", "2025-06-01T10:00:00.100000000Z"},
                             {"task_id", "meta/init"},
                             {"status", "completed"},
                             {"evidence", {{"ran", "make test"}, {"passed", true}, {"count", 3}}},
                             {"steps", {"one", "two"}},
                             {"items", {{{"a", 1}, {"b", "x"}}, YamlValue::array({"p", "q"})}},
                             {"empty_list", YamlValue::array()},
                             {"empty_map", YamlValue::object()},
                             {"nothing", nullptr},
                             {"notes", "line one\nline two"}};
    const std::string expected =
        "  - timestamp: \"2025-06-01T10:00:00.100000000Z\"\n"
        "    task_id: \"meta/init\"\n"
        "    status: \"completed\"\n"
        "    evidence:\n"
        "      ran: \"make test\"\n"
        "      passed: true\n"
        "      count: 3\n"
        "    steps:\n"
        "      - \"one\"\n"
        "      - \"two\"\n"
        "    items:\n"
        "      - a: 1\n"
        "        b: \"x\"\n"
        "      - - \"p\"\n"
        "        - \"q\"\n"
        "    empty_list: []\n"
        "    empty_map: {}\n"
        "    nothing: null\n"
        "    notes: \"line one\\nline two\"\n";
    EXPECT_EQ(emit_sequence_item(entry, 2), expected);
    const Document doc = parse_ok("entries:\n" + expected);
    EXPECT_EQ(to_yaml_value(doc.root().find("entries").item(0)), entry);
    // Indentless and deeper placements give the same value.
    for (int indent : {0, 4, 7}) {
        const Document other = parse_ok("entries:\n" + emit_sequence_item(entry, indent));
        EXPECT_EQ(to_yaml_value(other.root().find("entries").item(0)), entry) << indent;
    }
}

TEST(YamlWriter, ScalarAndEmptyItems) {
    EXPECT_EQ(emit_sequence_item("x", 2), "  - \"x\"\n");
    EXPECT_EQ(emit_sequence_item(YamlValue::object(), 0), "- {}\n");
    EXPECT_EQ(emit_sequence_item(YamlValue::array(), 0), "- []\n");
    EXPECT_EQ(emit_document(YamlValue::object()), "{}\n");
}

TEST(YamlWriter, DocumentPutsSmallVersionFirst) {
    const YamlValue doc = {{"owner", "agent"}, {"entries", YamlValue::array()}, {"small_version", "1.0.0"}};
    EXPECT_EQ(emit_document(doc), "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n");
}

// The reference's own files, re-emitted from their parse, come out byte for byte.
TEST(YamlWriter, ReproducesHouseStyleFiles) {
    for (const char* name : {"progress", "plan", "handoff"}) {
        const std::optional<std::string> read = read_shared(std::string(kHouseStyleWorkspace) + name + ".small.yml");
        if (!read) GTEST_SKIP() << "no conformance corpus at " << SMALL_SHARED_DIR;
        const std::string& text = *read;
        ASSERT_FALSE(text.empty()) << name;
        const Document doc = parse_ok(text);
        EXPECT_EQ(emit_document(to_yaml_value(doc.root())), text) << name;
    }
}

// A deterministic generator (mt19937's output is fixed by the standard; the
// distributions are not, so indices come from the raw numbers).
std::vector<std::string> random_strings(std::size_t count) {
    static const std::vector<std::string> alphabet = {
        " ", " ", "a", "b", "1", "0", ".", "-", ":", "#", "?", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">",
        "'", "\"", "%", "@", "`", "~", "\\", "\n", "\t", "\r", "\x01", "\x7f", "e", "x", "T", "Z", "y", "n", "é",
        "😀", "\xC2\x85", "\xE2\x80\xA8", "\xEF\xBB\xBF", "true", "null", "<<", "=", "+", "_", "/", "0x", ".inf",
    };
    std::mt19937 rng(20250601u);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t len = rng() % 9;
        std::string s;
        for (std::size_t k = 0; k < len; ++k) s += alphabet[rng() % alphabet.size()];
        out.push_back(std::move(s));
    }
    return out;
}

TEST(YamlWriter, RandomStringsRoundTrip) {
    const std::vector<std::string> strings = random_strings(3000);
    for (const std::string& s : strings) expect_round_trip(s);
    // All of them in one file too, as successive items.
    std::string file = "entries:\n";
    for (const std::string& s : strings) file += emit_sequence_item(YamlValue{{"v", s}, {s, s}}, 2);
    const Document doc = parse_ok(file);
    const NodeRef entries = doc.root().find("entries");
    ASSERT_EQ(entries.size(), strings.size());
    for (std::size_t i = 0; i < strings.size(); ++i) {
        EXPECT_EQ(entries.item(i).find("v").as_string(), strings[i]) << i;
    }
}

// ------------------------------------------------------------------ append point

const char* kHeader = "small_version: \"1.0.0\"\nowner: \"agent\"\n";

YamlValue sample_entry(const std::string& task = "task-9") {
    return {{"timestamp", "2025-06-01T10:00:06.100000006Z"},
            {"task_id", task},
            {"status", "completed"},
            {"evidence", "tricky: \"quoted\" # not a comment\nsecond line"},
            {"notes", "- looks like an item"},
            {"replayId", "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941"}};
}

AppendPoint point_ok(const std::string& file) {
    const Document doc = parse_ok(file);
    auto point = progress_append_point(file, doc);
    EXPECT_TRUE(point.ok()) << file << "\n" << (point.ok() ? "" : point.error().describe());
    return point.ok() ? *point : AppendPoint{};
}

Error point_err(const std::string& file) {
    auto parsed = parse_yaml(file, "progress.small.yml");
    if (!parsed) return parsed.error();
    auto point = progress_append_point(file, *parsed);
    EXPECT_FALSE(point.ok()) << "appendable:\n" << file;
    return point.ok() ? Error::invalid("<appendable>") : point.error();
}

// Appends `entry`; checks untouched bytes, the old entries and the new one.
std::string append_checked(const std::string& file, const YamlValue& entry, int expected_indent) {
    const Document before = parse_ok(file);
    const AppendPoint at = point_ok(file);
    EXPECT_EQ(at.indent, expected_indent) << file;
    const AppendEdit edit = append_edit(at, emit_sequence_item(entry, at.indent), file);
    std::string after = file;
    after.replace(edit.offset, edit.erase, edit.text);
    if (!at.inline_empty_list) {
        EXPECT_EQ(edit.offset, file.size());
        EXPECT_EQ(after.compare(0, file.size(), file), 0) << "existing bytes changed";
    } else {
        EXPECT_EQ(after.compare(0, edit.offset, file, 0, edit.offset), 0);
        const std::string tail = file.substr(edit.offset + edit.erase);
        EXPECT_EQ(after.compare(after.size() - tail.size(), tail.size(), tail), 0);
    }
    const Document doc = parse_ok(after);
    const NodeRef old_entries = before.root().find("entries"), entries = doc.root().find("entries");
    EXPECT_EQ(entries.size(), old_entries.size() + 1) << after;
    if (entries.size() != old_entries.size() + 1) return after;
    for (std::size_t i = 0; i < old_entries.size(); ++i) {
        EXPECT_EQ(to_yaml_value(entries.item(i)), to_yaml_value(old_entries.item(i))) << i;
    }
    EXPECT_EQ(to_yaml_value(entries.item(old_entries.size())), entry) << after;
    for (std::size_t i = 0; i + 1 < doc.root().size(); ++i) {
        EXPECT_EQ(to_yaml_value(doc.root().value(i)), to_yaml_value(before.root().value(i)));
    }
    return after;
}

TEST(AppendPoint, HouseStyleIndentTwo) {
    const std::optional<std::string> read = read_shared(std::string(kHouseStyleWorkspace) + "progress.small.yml");
    if (!read) GTEST_SKIP() << "no conformance corpus at " << SMALL_SHARED_DIR;
    const std::string& file = *read;
    ASSERT_FALSE(file.empty());
    const AppendPoint at = point_ok(file);
    EXPECT_EQ(at.offset, file.size());
    EXPECT_FALSE(at.needs_newline);
    EXPECT_FALSE(at.inline_empty_list);
    EXPECT_FALSE(at.crlf);
    const std::string once = append_checked(file, sample_entry(), 2);
    append_checked(once, sample_entry("task-10"), 2);
}

TEST(AppendPoint, IndentlessSequence) {
    const std::string file = std::string(kHeader) + "entries:\n- task_id: \"a\"\n  status: \"pending\"\n- task_id: \"b\"\n";
    append_checked(file, sample_entry(), 0);
}

TEST(AppendPoint, IndentFourAsTheReferenceWrites) {
    const std::string file = std::string(kHeader) +
                             "entries:\n    - evidence: done\n      task_id: a\n      timestamp: \"2025-01-01T00:00:00.1Z\"\n";
    append_checked(file, sample_entry(), 4);
}

TEST(AppendPoint, IndentedRootMapping) {
    const std::string file = "  small_version: \"1.0.0\"\n  entries:\n    - task_id: a\n";
    append_checked(file, sample_entry(), 4);
}

TEST(AppendPoint, IndentedRootMappingWithEmptyList) {
    append_checked("  small_version: \"1.0.0\"\n  entries: []\n", sample_entry(), 4);
    append_checked("  small_version: \"1.0.0\"\n  \"entries\":\n", sample_entry(), 4);
}

TEST(AppendPoint, FileWithoutFinalNewline) {
    const std::string file = std::string(kHeader) + "entries:\n  - task_id: \"a\"\n    notes: |\n      text";
    const AppendPoint at = point_ok(file);
    EXPECT_TRUE(at.needs_newline);
    append_checked(file, sample_entry(), 2);
    append_checked(std::string(kHeader) + "entries:\n  - task_id: a\n# last words", sample_entry(), 2);
}

TEST(AppendPoint, CrlfFile) {
    const std::string file = "small_version: \"1.0.0\"\r\nowner: \"agent\"\r\nentries:\r\n  - task_id: \"a\"\r\n";
    const AppendPoint at = point_ok(file);
    EXPECT_TRUE(at.crlf);
    const std::string after = append_checked(file, sample_entry(), 2);
    const std::string added = after.substr(file.size());
    for (std::size_t i = 0; i < added.size(); ++i) {
        if (added[i] == '\n') {
            EXPECT_TRUE(i > 0 && added[i - 1] == '\r') << "bare LF at " << i;
        }
    }
    append_checked(file.substr(0, file.size() - 2), sample_entry(), 2);  // CRLF file without final break
}

TEST(AppendPoint, TrailingCommentsAndBlankLines) {
    const std::string file = std::string(kHeader) + "entries:\n  - task_id: a\n\n# the end\n    # indented comment\n\n";
    append_checked(file, sample_entry(), 2);
}

TEST(AppendPoint, BlockScalarsInTheLastEntryKeepTheirValue) {
    for (const char* header : {"|", "|+", "|-", ">", ">+", "|2"}) {
        const std::string file = std::string(kHeader) + "entries:\n  - task_id: a\n    notes: " + header + "\n      x\n\n\n";
        append_checked(file, sample_entry(), 2);
        const std::string no_break = std::string(kHeader) + "entries:\n  - task_id: a\n    notes: " + header + "\n      x";
        if (std::string(header).find('+') == std::string::npos) append_checked(no_break, sample_entry(), 2);
    }
}

TEST(AppendPoint, KeepBlockScalarAtEndWithoutNewlineIsRefused) {
    const Error e = point_err(std::string(kHeader) + "entries:\n  - task_id: a\n    notes: |+\n      x");
    EXPECT_NE(e.message.find("final line break"), std::string::npos) << e.message;
}

TEST(AppendPoint, EmptyFlowListIsReportedInline) {
    const std::string file = std::string(kHeader) + "entries: []\n";
    const AppendPoint at = point_ok(file);
    EXPECT_TRUE(at.inline_empty_list);
    EXPECT_EQ(at.offset, file.size() - 3);
    EXPECT_EQ(at.inline_size, 2u);
    EXPECT_EQ(at.indent, 2);
    const std::string after = append_checked(file, sample_entry(), 2);
    // Only " []" changes: the blank before `[` goes too, so no trailing space is left.
    EXPECT_EQ(after.substr(0, file.size() - 4), file.substr(0, file.size() - 4));
    EXPECT_EQ(after.substr(file.size() - 12, 9), "entries:\n");
    EXPECT_EQ(after.back(), '\n');
    // The block list it became is appendable in place from then on.
    EXPECT_FALSE(point_ok(after).inline_empty_list);
    append_checked(after, sample_entry("task-10"), 2);
}

TEST(AppendPoint, EmptyFlowListVariants) {
    for (const char* tail : {"entries: []", "entries: [ ]\n", "entries: [] # none yet\n", "entries: []\n# comment\n\n",
                             "entries: &log []\n", "entries: []\r\n", "\"entries\": []\n"}) {
        const std::string file = std::string(kHeader) + tail;
        SCOPED_TRACE(tail);
        EXPECT_TRUE(point_ok(file).inline_empty_list);
        append_checked(append_checked(file, sample_entry(), 2), sample_entry("task-10"), 2);
    }
}

TEST(AppendPoint, EmptyValueBecomesAList) {
    for (const char* tail : {"entries:\n", "entries:", "entries: # none\n", "\"entries\":\n", "'entries' :\n", "entries:\n\n# c\n"}) {
        const std::string file = std::string(kHeader) + tail;
        SCOPED_TRACE(tail);
        append_checked(append_checked(file, sample_entry(), 2), sample_entry("task-10"), 2);
    }
}

TEST(AppendPoint, ManyAppendsInARow) {
    std::string file = std::string(kHeader) + "entries: []\n";
    const std::vector<std::string> strings = random_strings(150);
    for (std::size_t i = 0; i < strings.size(); ++i) {
        YamlValue entry = sample_entry("task-" + std::to_string(i));
        entry["notes"] = strings[i];
        file = append_checked(file, entry, 2);
    }
    EXPECT_EQ(parse_ok(file).root().find("entries").size(), strings.size());
}

// A log big enough for the parallel parse: the spliced marks must agree.
TEST(AppendPoint, LargeLogThroughTheParallelParser) {
    std::string file = std::string(kHeader) + "entries:\n";
    for (int i = 0; file.size() < (3u << 20); ++i) {
        file += emit_sequence_item(YamlValue{{"task_id", "task-" + std::to_string(i)}, {"evidence", "done é"}}, 2);
    }
    std::string bytes = file;
    YamlLimits limits;
    const std::optional<Document> spliced = parse_yaml_split(bytes, "progress.small.yml", limits);
    ASSERT_TRUE(spliced.has_value()) << "the parallel path did not run";
    auto at = progress_append_point(file, *spliced);
    ASSERT_TRUE(at.ok()) << at.error().describe();
    EXPECT_EQ(at->indent, 2);
    EXPECT_EQ(at->offset, file.size());
    append_checked(file, sample_entry(), 2);
}

TEST(AppendPoint, RefusesShapesThatCannotBeAppendedInPlace) {
    struct Case {
        std::string text;
        std::string fragment;
    };
    const std::vector<Case> cases = {
        {std::string(kHeader) + "entries:\n  - task_id: a\nnotes: later\n", "not the last top-level key"},
        {std::string(kHeader) + "entries: [{task_id: a}]\n", "flow list"},
        {std::string(kHeader) + "entries: [\n  ]\n", "spans several lines"},
        {"{small_version: \"1.0.0\", entries: []}\n", "followed by other content"},
        {std::string(kHeader) + "entries:\n  - task_id: a\n---\nother: doc\n", "document marker"},
        {std::string(kHeader) + "entries:\n  - task_id: a\n...\n", "document marker"},
        {std::string(kHeader) + "entries: []\n...\n", "followed by other content"},
        {std::string(kHeader) + "entries:\n# c\n---\n", "followed by other content"},
        {std::string(kHeader), "no `entries` key"},
        {std::string(kHeader) + "entries:\n  task_id: a\n", "is a mapping"},
        {std::string(kHeader) + "entries: none\n", "is a string"},
        {std::string(kHeader) + "entries: ~\n", "is a null"},
        {"base: &log\n  - task_id: a\nentries: *log\n", "alias"},
        {"- task_id: a\n", "no top-level mapping"},
        {"# only a comment\n", "no top-level mapping"},
    };
    for (const Case& c : cases) {
        const Error e = point_err(c.text);
        EXPECT_EQ(e.kind, Error::Kind::Invalid) << c.text;
        EXPECT_NE(e.message.find(c.fragment), std::string::npos) << c.text << "\n-> " << e.message;
        EXPECT_NE(e.message.find("confirmed repair"), std::string::npos) << e.message;
    }
    const Error e = point_err(std::string(kHeader) + "entries:\n  - task_id: a\nnotes: later\n");
    EXPECT_EQ(e.line, 5u);
}

TEST(AppendPoint, RefusesADocumentFromOtherBytes) {
    const Document doc = parse_ok(std::string(kHeader) + "entries: []\n");
    EXPECT_FALSE(progress_append_point("entries: []\n", doc).ok());
}

}  // namespace
}  // namespace small
