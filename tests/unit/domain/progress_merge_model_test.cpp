// A model-based fuzz of the progress-log merge: thousands of random
// histories whose meaning the generator knows (which entries exist, which
// side only lacks some, which side moved or changed an ancestor entry, which
// copy an earlier merge's bump made), merged in both directions and checked
// against that meaning. Entries are often less than 1 µs apart and often
// equal but for their timestamps (D8's bump), so identity by content and by
// instant is what is under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "small/domain/artifact_merge.hpp"

namespace small {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

struct Entry {
    std::int64_t at = 0;  // ns after 2025-01-01T00:00:00Z
    std::string content;  // the evidence; every other field is the same
    bool operator<(const Entry& o) const { return std::pair(at, content) < std::pair(o.at, o.content); }
    bool operator==(const Entry& o) const = default;
};
using Log = std::vector<Entry>;

std::string timestamp(std::int64_t at) {
    const std::int64_t s = at / kSecond, ns = at % kSecond;
    char buf[64];
    std::snprintf(buf, sizeof buf, "2025-01-01T%02lld:%02lld:%02lld.%09lldZ", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60), static_cast<long long>(ns));
    return buf;
}

std::string text(const Log& log, bool crlf) {
    std::string out = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (const Entry& e : log) {
        out += "  - timestamp: \"" + timestamp(e.at) +
               "\"\n    task_id: \"task-1\"\n    status: \"in_progress\"\n    evidence: \"" + e.content + "\"\n";
    }
    if (!crlf) return out;
    std::string with_cr;
    for (char c : out) with_cr += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return with_cr;
}

// What a side did, as the generator made it.
enum class Shape { Plain, Lack, MergeCopy, MovedByHand, Changed };

struct Case {
    Log ancestor, current, other;
    bool refused = false;                      // a side moved or changed an ancestor entry
    std::map<std::string, int> contents;       // how many entries of each content the result holds
    std::set<std::string> fixed_timestamps;    // ancestor entries that keep their timestamp text
    std::string describe() const {
        std::string out;
        for (const auto& [name, log] : {std::pair{"ancestor", &ancestor}, {"current", &current}, {"other", &other}}) {
            out += std::string(name) + ":";
            for (const Entry& e : *log) out += " " + e.content + "@" + std::to_string(e.at);
            out += "\n";
        }
        return out;
    }
};

class Generator {
public:
    explicit Generator(std::uint32_t seed) : rng_(seed) {}

    Case next() {
        Case c;
        std::int64_t at = kSecond;
        for (int i = 0, n = pick(1, 4); i < n; ++i) {
            at += pick_of<std::int64_t>({1, 2, 3, 999, 1000, 1001, kSecond});
            c.ancestor.push_back({at, pooled()});
        }
        const Shape shapes[2] = {shape(), shape()};
        const bool refusing = is_refusal(shapes[0]) || is_refusal(shapes[1]);
        Log* sides[2] = {&c.current, &c.other};
        std::set<std::string> avoid[2];  // contents a side's appended entries must not have
        for (int s = 0; s < 2; ++s) {
            if (refusing || shapes[1 - s] == Shape::MergeCopy) avoid[s].insert("*");  // unique contents only
        }
        new_entries_.clear();
        copies_.clear();
        for (int s = 0; s < 2; ++s) *sides[s] = build(c.ancestor, shapes[s], avoid[s]);
        // Now and then the same entry appended on both sides (a cherry-pick).
        if (chance(4)) {
            const std::int64_t later = std::max(c.current.back().at, c.other.back().at) + pick(1, 3);
            const Entry both{later, "both" + std::to_string(unique_++)};
            c.current.push_back(both);
            c.other.push_back(both);
            new_entries_.insert(both);
        }
        c.refused = refusing;
        for (const Entry& e : c.ancestor) {
            ++c.contents[e.content];
            if (!copies_.count(e.at)) c.fixed_timestamps.insert(timestamp(e.at));
        }
        for (const Entry& e : new_entries_) ++c.contents[e.content];
        return c;
    }

private:
    static bool is_refusal(Shape s) { return s == Shape::MovedByHand || s == Shape::Changed; }

    Shape shape() {
        const int r = pick(0, 9);
        return r < 3 ? Shape::Plain : r < 5 ? Shape::Lack : r < 7 ? Shape::MergeCopy : r < 9 ? Shape::MovedByHand : Shape::Changed;
    }

    Log build(const Log& ancestor, Shape shape, std::set<std::string> avoid) {
        Log side = ancestor;
        const std::int64_t ancestor_last = ancestor.back().at;
        switch (shape) {
            case Shape::Plain: break;
            case Shape::Lack: {
                if (side.size() < 2) break;
                const int dropped = pick(1, static_cast<int>(side.size()) - 1);
                for (int i = 0; i < dropped; ++i) {
                    avoid.insert(side.back().content);
                    side.pop_back();
                }
                break;
            }
            case Shape::MergeCopy: {
                // An earlier merge met f at or after e's instant and moved e
                // to 1 ns after f.
                const Entry e = side.back();
                side.pop_back();
                // A second MergeCopy side has the same merge's result (both
                // sides merged main): two different copies of one entry
                // would be two entries.
                if (!copy_) {
                    Entry f{e.at + pick(0, 2), chance(3) ? e.content : pooled()};
                    if (f == e) ++f.at;  // else f would be e itself
                    copy_ = std::pair(f, Entry{f.at + 1, e.content});
                }
                new_entries_.insert(copy_->first);
                side.push_back(copy_->first);
                side.push_back(copy_->second);
                copies_.insert(e.at);
                avoid.insert(e.content);
                break;
            }
            case Shape::MovedByHand: {
                const std::size_t i = static_cast<std::size_t>(pick(0, static_cast<int>(side.size()) - 1));
                const std::int64_t by = pick_of<std::int64_t>({1, -1, 2, -2, 999, 1000, -1000});
                const std::int64_t to = side[i].at + by;
                const bool fits = (i == 0 ? to > 0 : to > side[i - 1].at) && (i + 1 == side.size() || to < side[i + 1].at);
                if (fits) side[i].at = to;
                else side[i].content = "changed" + std::to_string(unique_++);  // then it is a change
                break;
            }
            case Shape::Changed: {
                const std::size_t i = static_cast<std::size_t>(pick(0, static_cast<int>(side.size()) - 1));
                side[i].content = "changed" + std::to_string(unique_++);
                break;
            }
        }
        // New entries: close to the ancestor's last one and to the other
        // side's (ties, 1 ns apart, D8 bumps), often of a shared content.
        for (int i = 0, n = pick(0, 3); i < n; ++i) {
            const std::int64_t at =
                std::max(side.back().at + 1, ancestor_last + pick_of<std::int64_t>({1, 1, 2, 3, 999, 1000, 1001, kSecond}));
            std::string content = pooled();
            if (avoid.count("*") || avoid.count(content)) content = "u" + std::to_string(unique_++);
            side.push_back({at, content});
            new_entries_.insert(side.back());
        }
        return side;
    }

    std::string pooled() { return chance(2) ? "c" + std::to_string(pick(0, 2)) : "u" + std::to_string(unique_++); }
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(int one_in) { return pick(1, one_in) == 1; }
    template <typename T>
    T pick_of(std::initializer_list<T> values) {
        return *(values.begin() + pick(0, static_cast<int>(values.size()) - 1));
    }

    std::mt19937 rng_;
    int unique_ = 0;
    std::optional<std::pair<Entry, Entry>> copy_;  // f and e's copy, shared by both MergeCopy sides
    std::set<Entry> new_entries_;                  // every entry no ancestor has, once
    std::set<std::int64_t> copies_;                // ancestor instants an earlier merge moved
};

std::map<std::string, int> contents_of(const std::string& log) {
    std::map<std::string, int> out;
    for (std::size_t at = 0; (at = log.find("evidence: \"", at)) != std::string::npos;) {
        const std::size_t end = log.find('"', at + 11);
        ++out[log.substr(at + 11, end - at - 11)];
        at = end;
    }
    return out;
}

TEST(ProgressMergeModel, ThousandsOfHistoriesKeepEveryEntryOnceAndRefuseEveryRewrite) {
    constexpr int kCases = 4000;
    int merged = 0, refused = 0;
    for (int i = 0; i < kCases; ++i) {
        Generator g(static_cast<std::uint32_t>(i));
        const Case c = g.next();
        const bool crlf = i % 5 == 0;  // the slow path too
        const std::string o = text(c.ancestor, crlf), a = text(c.current, crlf), b = text(c.other, crlf);
        Result<MergeOutcome> ab = merge_progress_texts(o, a, b, "p");
        Result<MergeOutcome> ba = merge_progress_texts(o, b, a, "p");
        if (c.refused) {
            ASSERT_FALSE(ab) << "case " << i << " merged although a side rewrote the ancestor\n" << c.describe() << ab->text;
            ASSERT_FALSE(ba) << "case " << i << " (swapped) merged\n" << c.describe() << ba->text;
            for (const std::string& m : {ab.error().message, ba.error().message}) {
                EXPECT_NE(m.find("p (ancestor):"), std::string::npos) << "case " << i << ": " << m;
                EXPECT_TRUE(m.find(" moved this entry") != std::string::npos ||
                            m.find(" changed this entry") != std::string::npos)
                    << "case " << i << ": " << m;
            }
            ++refused;
            continue;
        }
        ASSERT_TRUE(ab) << "case " << i << ": " << ab.error().describe() << "\n" << c.describe();
        ASSERT_TRUE(ba) << "case " << i << " (swapped): " << ba.error().describe() << "\n" << c.describe();
        ASSERT_EQ(ab->text, ba->text) << "case " << i << ": not the same whichever side merges\n" << c.describe();
        ASSERT_EQ(contents_of(ab->text), c.contents) << "case " << i << ": an entry lost or doubled\n"
                                                     << c.describe() << ab->text;
        for (const std::string& ts : c.fixed_timestamps) {
            ASSERT_NE(ab->text.find("timestamp: \"" + ts + "\""), std::string::npos)
                << "case " << i << ": the ancestor's entry at " << ts << " moved\n" << c.describe() << ab->text;
        }
        ++merged;
    }
    // Both kinds are well represented.
    EXPECT_GT(merged, kCases / 3);
    EXPECT_GT(refused, kCases / 5);
}

}  // namespace
}  // namespace small
