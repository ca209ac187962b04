// MCP answers from memory (issue 39): the long-lived server keeps the answer
// of a read-only tool and gives it again while everything it was computed
// from is provably unchanged (base/recording_filesystem: every file read,
// folder listed and path looked at, by git's racy-clean rule) and the clock still
// leaves it as it was (the answer's steady_until). Anything else computes
// it again, so a kept answer is byte for byte what a fresh one would be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "small/base/filesystem.hpp"
#include "small/base/timestamp.hpp"
#include "small/base/recording_filesystem.hpp"

namespace small::mcp {

// The clocks the cache reads: the filesystem's change clock (the racy-clean
// rule's reference; default FileSystem::change_clock_ns) and the wall clock
// an answer's validity is measured on (default current_instant). Tests shift them.
struct AnswerClocks {
    std::function<std::optional<std::int64_t>(const FileSystem&)> change_ns;
    std::function<Instant()> wall;
};

// A computed answer and until when the clock leaves it as it is: nullopt
// when it cannot be told (then it is never kept).
struct TimedAnswer {
    nlohmann::json result;
    std::optional<Instant> steady_until;
};

// Never later than this: an answer the clock does not change.
inline constexpr Instant kSteadyForever{std::numeric_limits<std::int64_t>::max(), 0};

class AnswerCache {
public:
    explicit AnswerCache(AnswerClocks clocks = {});

    // The answer to the call `key` (the tool and its arguments): the one
    // kept, when still valid, else `compute` on a view of `fs` that records
    // what it reads (`asked_at`: the wall clock before it started), kept
    // when its inputs can be proved unchanged later. The key is completed
    // with the process's environment and host name, which the tools read too.
    using Compute = std::function<TimedAnswer(const FileSystem& fs, Instant asked_at)>;
    nlohmann::json answer(const std::string& key, const FileSystem& fs, const Compute& compute);

    // Forgets every answer (a write tool ran).
    void clear();

    // How many calls were served from memory and how many computed (tests).
    struct Counts {
        std::size_t served = 0, computed = 0;
    };
    const Counts& counts() const { return counts_; }

private:
    struct Kept {
        nlohmann::json result;
        RecordedInputs inputs;
        Instant from, until;  // the wall clock window it is valid in
    };
    const nlohmann::json* valid(const std::string& key, const FileSystem& fs) const;
    void keep(const std::string& key, TimedAnswer& answer, RecordedInputs inputs, Instant asked_at, Instant done_at);

    AnswerClocks clocks_;
    std::map<std::string, Kept> kept_;
    Counts counts_;
};

}  // namespace small::mcp
