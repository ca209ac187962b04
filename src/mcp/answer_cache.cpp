// Answers kept while their inputs are provably unchanged (see the header).
#include "small/mcp/answer_cache.hpp"

#include <unistd.h>

#include <string_view>
#include <utility>

#include "small/base/fast_hash.hpp"
#include "small/model/claims.hpp"

namespace small::mcp {

namespace {

// More distinct calls than this (resume's max_bytes is free) and all are
// forgotten: memory stays bounded, and the common calls come back at once.
constexpr std::size_t kMaxKept = 32;

// What the process gives every computation besides the disk: its
// environment ($SMALL_AGENT, $CI, $SMALL_VERIFIED_CACHE, ...) and this
// machine's name (claims tell this host's leases from others').
std::string process_key() {
    FastHasher env;
    for (char** var = environ; var && *var; ++var) env.update(std::string_view(*var, std::char_traits<char>::length(*var) + 1));
    return env.digest() + " " + this_host_name();
}

AnswerClocks with_defaults(AnswerClocks clocks) {
    if (!clocks.change_ns) clocks.change_ns = [](const FileSystem& fs) { return fs.change_clock_ns(); };
    if (!clocks.wall) clocks.wall = current_instant;
    return clocks;
}

}  // namespace

AnswerCache::AnswerCache(AnswerClocks clocks) : clocks_(with_defaults(std::move(clocks))) {}

nlohmann::json AnswerCache::answer(const std::string& key, const FileSystem& fs, const Compute& compute) {
    const std::string full_key = key + "\n" + process_key();
    if (const nlohmann::json* kept = valid(full_key, fs)) {
        ++counts_.served;
        return *kept;
    }
    ++counts_.computed;
    // The change clock is read before the first look at any input (racy-clean rule).
    RecordingFileSystem recording(fs, clocks_.change_ns(fs));
    const Instant asked_at = clocks_.wall();
    TimedAnswer computed = compute(recording, asked_at);
    keep(full_key, computed, recording.take(), asked_at, clocks_.wall());
    return std::move(computed.result);
}

void AnswerCache::clear() { kept_.clear(); }

const nlohmann::json* AnswerCache::valid(const std::string& key, const FileSystem& fs) const {
    const auto it = kept_.find(key);
    if (it == kept_.end()) return nullptr;
    const Kept& k = it->second;
    const Instant now = clocks_.wall();
    if (now < k.from || !(now < k.until)) return nullptr;
    return still_the_same(fs, k.inputs, clocks_.change_ns(fs)) ? &k.result : nullptr;
}

// Kept only when the inputs may be proved unchanged later and the clock
// did not cross the answer's limit (or go back) while it was computed:
// served from `done_at` on, every clock reading of the computation lies
// in one steady stretch with the serving one.
void AnswerCache::keep(const std::string& key, TimedAnswer& answer, RecordedInputs inputs, Instant asked_at,
                       Instant done_at) {
    kept_.erase(key);
    const bool steady = answer.steady_until && asked_at <= done_at && done_at < *answer.steady_until;
    if (!steady || !inputs.provable || !inputs.clock_ns) return;
    if (kept_.size() >= kMaxKept) kept_.clear();
    kept_.emplace(key, Kept{answer.result, std::move(inputs), done_at, *answer.steady_until});
}

}  // namespace small::mcp
