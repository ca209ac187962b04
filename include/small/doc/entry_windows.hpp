// Reading a long block list (the progress log's `entries:`) in windows of
// whole entries, so that memory stays flat in its length (issue 39). A
// window is parsed behind the lines up to `entries:`; that reads its entries
// exactly as the whole file would only when they are whole entries at the
// list's indentation (whole_entries), and anything else is left to a read of
// the whole file: the checks below say when.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "small/doc/document.hpp"

namespace small {

// Runs of blanks in a window stay far below the 64 the YAML reader's cost
// budget lets pass free (a run across windows would be counted once).
inline constexpr std::size_t kMaxBlankRun = 16;

// A line break other than LF or CRLF (YAML also breaks lines at a lone CR).
bool has_lone_cr(std::string_view text);
// A `*` where an alias may start: a window without one cannot reach an
// anchor of another window, and spends none of the alias budget.
bool has_alias(std::string_view text);
// What could end the document early (`---`/`...`), or put the first
// `small_version:` line FMT-1 reads outside the header.
bool has_marker_or_version(std::string_view text);
// Blank bytes at the end of `text`.
std::size_t trailing_blanks(std::string_view text);
// Spaces before the first non-space byte of the line at `at`.
std::size_t indent_at(std::string_view text, std::size_t at);
// Whether an entry's `-` is at `at`.
bool item_start(std::string_view text, std::size_t at);
// Whole entries at `indent`, ending with a line break: the first line starts
// one, no line is less indented (blank and comment lines aside), every other
// line at `indent` starts one; no alias, document marker, `small_version:`, lone CR or long
// run of blanks.
bool whole_entries(std::string_view text, std::size_t indent);
// Whether the last entry of `entries` (whole entries at `indent`) reads the
// same before another entry as at the end of the input: libfyaml accepts some
// text at the end of its input that it refuses before another line. The other
// entry starts with `next_line`; without one, with the ways an entry starts.
bool last_entry_reads_the_same_before(std::string_view entries, std::size_t indent,
                                      std::string_view next_line = {});
// The last entry of `entries` (from its `-` line on), or "" when none starts at `indent`.
std::string last_entry_of(std::string_view entries, std::size_t indent);

// How a long log is read: in windows of about `window_bytes` once it has
// `stream_from_bytes` (shorter ones are read whole: fast and small enough).
struct LogWindows {
    std::uint64_t stream_from_bytes = std::uint64_t{8} << 20;
    std::size_t window_bytes = std::size_t{4} << 20;  // a window's document takes about ten times as much
    // A window (one long entry) or a header longer than this is not read in
    // windows: memory stays bounded, and the whole read (itself bounded) decides.
    std::size_t max_window_bytes = std::size_t{16} << 20;
};

// Reads a file of `size` bytes front to back in windows: the first one
// holds the lines up to `entries:` and the first entries, each next one
// ends just before a line that starts an entry at the list's indentation
// (or at the file's end). Checks nothing of what it cuts (whole_entries does).
class EntryWindowReader {
public:
    EntryWindowReader(const FileSystem& fs, std::string path, std::uint64_t size, std::size_t window_bytes,
                      std::size_t max_window_bytes = LogWindows{}.max_window_bytes);
    // The same over any reader of ranges (FileSystem::read_range_no_follow, ...).
    using RangeReader = std::function<Result<FileRange>(std::uint64_t offset, std::size_t length)>;
    EntryWindowReader(RangeReader read, std::uint64_t size, std::size_t window_bytes,
                      std::size_t max_window_bytes = LogWindows{}.max_window_bytes);
    ~EntryWindowReader();
    // The header and the first window; nullopt: not a layout to read in windows.
    std::optional<std::string> first();
    // The next window; nullopt at the end, or when it cannot be cut or would
    // be longer than max_window_bytes (failed()).
    std::optional<std::string> next();
    bool failed() const;
    std::size_t header() const;  // bytes up to and including the `entries:` line
    std::size_t indent() const;  // the entries' indentation

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

// Where a window's document lies in the file: its source starts with the
// header (`header_bytes`: the lines up to `entries:`); from its offset
// `doc_start` on (0 for the first window, which is the file's first bytes;
// `header_bytes` for the others) it holds the file's bytes from
// `file_start` on, and its line `doc_line` is the file's line `file_line`.
// Lines are counted at '\n' (a window holds no lone CR).
struct WindowPlace {
    std::size_t header_bytes = 0;
    std::size_t doc_start = 0;
    std::uint64_t file_start = 0;
    std::size_t doc_line = 1;
    std::uint64_t file_line = 1;
    // The file's offset, or line, of one in the window's document (at or after doc_start).
    std::uint64_t offset_in_file(std::size_t doc_offset) const { return file_start + (doc_offset - doc_start); }
    std::uint64_t line_in_file(std::size_t line) const { return file_line + (line - doc_line); }
};

// One window as for_each_window_text hands it over: the text to parse (the
// header and the window's entries), and which of its bytes are the file's
// next ones (the first window holds the header as read; the others repeat it).
struct EntryWindowText {
    std::string text;
    WindowPlace place;       // text.substr(place.doc_start) are the file's next bytes
    std::size_t indent = 0;  // the entries' indentation
    bool first = false;
};

// What a windowed read leaves for a caller that checks more at its end.
struct WindowedLog {
    std::string last_entry;  // the last window's last entry, read at the end of its input
};

// The one driver of windowed reads: cuts the log at `path` into windows,
// checks that each reads as the whole file would (whole_entries, a plain
// header, every seam), and calls `take` with each in order. nullopt when the
// log cannot be read so (too short, a layout windows cannot follow, a change
// while it was read) or `take` returned false: `take` may have been called,
// and the caller reads the whole file.
std::optional<WindowedLog> for_each_window_text(const FileSystem& fs, const std::string& path,
                                                const LogWindows& windows,
                                                const std::function<bool(EntryWindowText window)>& take);

// Calls `take` with each window of the log at `path` in order: a document
// of the header and that window, its root a mapping whose last key is the
// `entries` list, listing them as a whole read would. false when the log cannot be read so (too short, a layout
// windows cannot follow, a window that does not parse, a change while it was
// read): `take` may have been called, and the caller reads the whole file.
bool for_each_entry_window(const FileSystem& fs, const std::string& path, const std::string& display,
                           const LogWindows& windows, const std::function<void(const Document& window)>& take);
// The same, with where each window lies in the file.
bool for_each_entry_window(const FileSystem& fs, const std::string& path, const std::string& display,
                           const LogWindows& windows,
                           const std::function<void(const Document& window, const WindowPlace& place)>& take);

}  // namespace small
