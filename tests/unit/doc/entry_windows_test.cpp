// doc/entry_windows: where a long block list may be cut, and the reader
// that cuts it (the readers built on it are tested in model/workspace_test
// and check/verified_prefix_test against whole reads).
#include "small/doc/entry_windows.hpp"
#include "small/base/filesystem.hpp"
#include "small/doc/document.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace small {
namespace {

TEST(WholeEntries, AcceptsEntriesAtTheIndentationEndingWithALineBreak) {
    EXPECT_TRUE(whole_entries("  - a: \"1\"\n    b: \"2\"\n  - a: \"3\"\n", 2));
    EXPECT_TRUE(whole_entries("- a: 1\n  b: |\n    text\n", 0));
    // Comment lines at or left of the entries' indentation, after the first entry.
    EXPECT_TRUE(whole_entries("  - a: 1\n  # why\n# aside\n  - a: 2\n", 2));
    EXPECT_TRUE(whole_entries("- a: 1\n# why\n", 0));
}

TEST(WholeEntries, RefusesWhatAWholeReadCouldReadDifferently) {
    for (const std::string& text : {
             std::string("  - a: 1"),                       // no final line break
             std::string("    b: 2\n  - a: 1\n"),           // continues an entry
             std::string("  - a: 1\nkey: 2\n"),             // a top-level key
             std::string("  - a: *anchor\n"),               // an alias
             std::string("  - a: 1\n---\n"),                // a document marker
             std::string("  - a: 1\r  - b: 2\n"),           // a lone CR
             std::string("  - a: 1\n  small_version: 1\n"),  // a second version line
             std::string("  - a: 1\n") + std::string(20, '\n') + "  - b: 2\n",  // a long blank run
             std::string("  # note\n  - a: 1\n"),           // not an entry first
         }) {
        EXPECT_FALSE(whole_entries(text, 2)) << text;
    }
}

// The blank-run check looks at every kMaxBlankRun-th byte only: a run one
// short of the limit passes and a run at the limit is refused, wherever it starts.
TEST(WholeEntries, FindsABlankRunAtTheLimitAtEveryOffset) {
    for (std::size_t lead = 0; lead < 2 * kMaxBlankRun + 3; ++lead) {
        for (const char blank : {' ', '\t', '\n'}) {
            const std::string head = "  - a: \"" + std::string(lead, 'x') + "\"";
            const std::string shorter = head + std::string(kMaxBlankRun - 2, blank) + "\n";
            const std::string limit = head + std::string(kMaxBlankRun - 1, blank) + "\n";
            EXPECT_TRUE(whole_entries(shorter, 2)) << lead << " " << int(blank);
            EXPECT_FALSE(whole_entries(limit, 2)) << lead << " " << int(blank);
        }
    }
}

TEST(HasMarkerOrVersion, FindsDocumentMarkersAfterALineBreakAndTheVersionKeyAnywhere) {
    EXPECT_TRUE(has_marker_or_version("  - a: 1\n---\n"));
    EXPECT_TRUE(has_marker_or_version("  - a: 1\n..."));
    EXPECT_TRUE(has_marker_or_version("  - a: 1\n    small_version: \"1\"\n"));
    EXPECT_TRUE(has_marker_or_version("xsmall_version:"));
    EXPECT_FALSE(has_marker_or_version("---\n  - a: 1\n"));  // only after a line break
    EXPECT_FALSE(has_marker_or_version("  - a: 1\n--"));
    EXPECT_FALSE(has_marker_or_version("  - a: 1\n  ---\n  - b: small_version\n"));
    EXPECT_FALSE(has_marker_or_version(""));
}

TEST(EntryWindowReader, CutsOnlyBeforeEntriesAndCoversEveryByte) {
    std::string log = "small_version: \"1.0.0\"\nentries:\n";
    for (int i = 0; i < 50; ++i) log += "  - n: \"" + std::to_string(i) + "\"\n    text: |\n      - not an entry\n";
    MemoryFileSystem fs;
    fs.add_file("/log.yml", log);
    for (std::size_t window : {1u, 30u, 200u, 100000u}) {
        EntryWindowReader reader(fs, "/log.yml", log.size(), window);
        std::optional<std::string> first = reader.first();
        ASSERT_TRUE(first);
        EXPECT_EQ(reader.header(), log.find("  - n:"));
        EXPECT_EQ(reader.indent(), 2u);
        std::string all = *first;
        while (std::optional<std::string> w = reader.next()) {
            EXPECT_TRUE(w->rfind("  - n: ", 0) == 0) << "window " << window << ": " << *w;
            all += *w;
        }
        EXPECT_FALSE(reader.failed());
        EXPECT_EQ(all, log) << "window " << window;
    }
}

// The one driver: the fresh bytes of its windows are the file, in order;
// every later window repeats the header; a `take` that says no stops it.
TEST(ForEachWindowText, HandsOverTheFileInOrderAndStopsWhenTakeSaysNo) {
    std::string log = "small_version: \"1.0.0\"\nentries:\n";
    const std::size_t header = log.size();
    for (int i = 0; i < 40; ++i) log += "  - n: \"" + std::to_string(i) + "\"\n    # note\n";
    MemoryFileSystem fs;
    fs.add_file("/log.yml", log);
    for (std::size_t window : {1u, 50u, 300u}) {
        std::string all;
        int count = 0;
        const std::optional<WindowedLog> read =
            for_each_window_text(fs, "/log.yml", LogWindows{0, window}, [&](EntryWindowText w) {
                EXPECT_EQ(w.first, count == 0);
                EXPECT_EQ(w.place.header_bytes, header);
                EXPECT_EQ(w.place.file_start, all.size());
                EXPECT_EQ(w.indent, 2u);
                EXPECT_EQ(w.text.substr(0, header), log.substr(0, header));
                all += w.text.substr(w.place.doc_start);
                ++count;
                return true;
            });
        ASSERT_TRUE(read) << window;
        EXPECT_EQ(all, log) << window;
        EXPECT_EQ(read->last_entry, "  - n: \"39\"\n    # note\n");
        int calls = 0;
        EXPECT_FALSE(for_each_window_text(fs, "/log.yml", LogWindows{0, window}, [&](EntryWindowText) {
            return ++calls < 2;
        }));
        EXPECT_EQ(calls, std::min(count, 2)) << window;
    }
}

// libfyaml reads `b:` then `c:"x"` at the key's indentation at the end of
// its input, and refuses it before another entry: no window may end there.
TEST(ForEachEntryWindow, AnEntryThatReadsOtherwiseBeforeTheNextWindowStopsTheWindows) {
    const std::string odd = "  - a: \"1\"\n    b:\n    c:\"x\"\n";
    EXPECT_FALSE(last_entry_reads_the_same_before(odd, 2));
    EXPECT_FALSE(last_entry_reads_the_same_before("  - a: \"0\"\n" + odd, 2, "  - a: \"2\"\n"));
    EXPECT_TRUE(last_entry_reads_the_same_before(odd + "  - a: \"2\"\n", 2));
    EXPECT_EQ(last_entry_of("  - a: 1\n  # c\n  - b: 2\n    c: 3\n", 2), "  - b: 2\n    c: 3\n");
    const std::string head = "small_version: \"1.0.0\"\nentries:\n";
    for (const bool with_odd : {false, true}) {
        std::string log = head;
        for (int i = 0; i < 20; ++i) log += i == 7 && with_odd ? odd : "  - a: \"" + std::to_string(i) + "\"\n";
        MemoryFileSystem fs;
        fs.add_file("/log.yml", log);
        for (std::size_t window = 1; window < 120; window += 5) {
            int windows = 0;
            const bool read = for_each_entry_window(fs, "/log.yml", "log", LogWindows{0, window},
                                                    [&](const Document&) { ++windows; });
            // Without the odd entry every cut reads as the file; with it, a cut right after it must fail.
            EXPECT_EQ(read, !with_odd) << window;
        }
    }
}

// Memory stays bounded: an entry, or a header, longer than max_window_bytes
// stops the windows (the whole read, itself bounded, decides).
TEST(EntryWindowReader, AnEntryOrAHeaderLongerThanTheLimitStopsTheWindows) {
    const std::string head = "small_version: \"1.0.0\"\nentries:\n";
    const std::string entry = "  - a: \"1\"\n";
    const std::string huge = "  - a: |\n      " + std::string(5000, 'x') + "\n";
    for (const bool long_header : {false, true}) {
        const std::string log = long_header ? "# " + std::string(6000, 'h') + "\n" + head + entry + entry
                                            : head + entry + huge + entry;
        MemoryFileSystem fs;
        fs.add_file("/log.yml", log);
        int windows = 0;
        EXPECT_FALSE(for_each_entry_window(fs, "/log.yml", "log", LogWindows{0, 64, 1024},
                                           [&](const Document&) { ++windows; }))
            << long_header;
        // Without the limit the same log is read in windows.
        EXPECT_TRUE(for_each_entry_window(fs, "/log.yml", "log", LogWindows{0, 64, 1u << 20},
                                          [&](const Document&) { ++windows; }))
            << long_header;
    }
}

TEST(EntryWindowReader, ALayoutWithoutAnEntryAfterTheKeyIsNotCut) {
    MemoryFileSystem fs;
    const std::string log = "small_version: \"1.0.0\"\nentries: []\n";
    fs.add_file("/log.yml", log);
    EntryWindowReader reader(fs, "/log.yml", log.size(), 16);
    EXPECT_FALSE(reader.first());
}

}  // namespace
}  // namespace small
