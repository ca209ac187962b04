// Independent jobs shared out over the cores, for the few places where one
// large input dominates (a long progress log: parse, schema check, JSON out).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace small {

// The cores to share work over, counted once (glibc reads a /sys file for each count).
inline unsigned core_count() {
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return cores;
}

// Calls fn(j) once for each j in [0, jobs), on up to four threads including
// the calling one. When no thread can be started, the threads already
// running (and the calling thread) share out the rest: nothing throws.
template <typename Fn>
void run_parallel(std::size_t jobs, Fn&& fn) {
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t j = next++; j < jobs; j = next++) fn(j);
    };
    const unsigned workers = std::min(4u, core_count());
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < workers && i < jobs; ++i) {
        try {
            threads.emplace_back(work);
        } catch (const std::system_error&) {
            break;
        }
    }
    work();
    for (auto& t : threads) t.join();
}

}  // namespace small
