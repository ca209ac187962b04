// yaml_cost_fuzz: looks for YAML text whose reading cost grows faster than
// its size. Each case draws a shape — a context (where in a document), a
// construct unit, a character that breaks it, and an ending — and builds it
// at a small and a 4x larger size, either as one long construct (the unit
// repeated) or as many short ones (an item repeated). It times parse_yaml
// (CPU time, best of three) at both sizes; a case whose time grows more than
// --max-ratio times is measured again, more often, and reported with a file
// to reproduce it; a case that has no result within 60 s (each runs in a
// child process) is reported too. See docs/yaml.md ("Checking that reading stays linear").
//
//   yaml_cost_fuzz [--seconds N] [--size BYTES] [--seed N] [--max-ratio R] [--out DIR]
//
// Exit code 1 when a super-linear case was confirmed, else 0.
#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "small/doc/yaml.hpp"

namespace {

// Where the construct stands: block and flow collections, after anchors,
// tags and quoted scalars, inside scalars, in directives and comments.
const std::vector<std::string> kContexts = {
    "", "x: ", "x:\n  ", "x:\n  - ", "- ", "-", "? ", "x: [", "x: {", "x: {a:", "x: [a, ", "x: [a:", "[", "{",
    "x: &a", "x: &a ", "x: *", "x: &", "x: !t", "x: !t ", "x: !<", "x: !!str ", "x: !e!", "x: \"", "x: '",
    "x: \"a\"", "x: 'a'", "x: [1]", "x: {a: 1}", "x: |\n  ", "x: >-\n  ", "x: |2\n", "x: a\n  b", "# ",
    "x: 1 #", "%YAML 1.2", "%TAG !e! tag:", "%FOO ", "---", "--- ", "--- |\n", "...\n", "\"k\"", "'k'",
    "k", "&a k", "!t k", "x: {? ", "x: [? ", "a: &a 1\nb: *a", "x: \"a\\\n", "x:\n", "  ", "\t",
};

// What is repeated: characters and tokens that the scanner treats specially.
const std::vector<std::string> kUnits = {
    "A", "\u00e9", " ", "\t", "\n", " \n", "\n ", "\r\n", "  \n  ", "\\x41", "\\u0041", "\\\n", "''", "\\\"",
    "[", "{", "]", "}", ",", ", ", "- ", "? ", ": ", ":", "::", "#", "# c\n", " #", "&a ", "*a ", "&a", "*a",
    "!t ", "!", "!!", "%", "%41", "---\n", "...\n", "--- ", "\u00a0", "\u2028", "\u3000", "\\", "\"", "'",
    "|", ">", "a: 1\n", "- a\n", "a:\n  ", "[a, ", "{a: ", "&", "*", "AAAAAAAAAA", "a b ", "\"a\" ", "'a' ",
    "\t \t", ": \n", "-\n", "?\n", "!<a>", "\xef\xbb\xbf",
};

// What may break a construct in the middle ("" for nothing).
const std::vector<std::string> kBreakers = {
    "", "", "", "\x0e", "\x01", "\x7f", "\u0085", "\u00a0", "\u2003", "\u2028", ":", "#", " ", "\n", "\t", "]",
    "}", "'", "\"", "\\", "%", "!", "&", "*", ">", "|", "- ", ": ",
};

// How the text ends.
const std::vector<std::string> kEndings = {
    "", "\n", "]", "}", " 1", " 1\n", "]\n", "}\n", "\"\n", "'\n", ": 1\n", "\ny: 2\n", "]}\n", " ]\n", "'\"]}\n",
};

struct Shape {
    std::size_t context, unit, breaker, ending;
    bool many;  // many short constructs instead of one long one
    std::size_t item_units = 1;  // units per item when `many`

    std::string describe() const {
        auto quote = [](std::string_view s) {
            std::string out = "\"";
            for (unsigned char c : s) {
                if (c == '\n') out += "\\n";
                else if (c == '\t') out += "\\t";
                else if (c == '\r') out += "\\r";
                else if (c == '"' || c == '\\') out += std::string("\\") + static_cast<char>(c);
                else if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\x%02x", c);
                    out += buf;
                } else out += static_cast<char>(c);
            }
            return out + "\"";
        };
        return std::string(many ? "many" : "long") + " context=" + quote(kContexts[context]) + " unit=" +
               quote(kUnits[unit]) + (many ? "x" + std::to_string(item_units) : "") + " breaker=" +
               quote(kBreakers[breaker]) + " ending=" + quote(kEndings[ending]);
    }

    std::string build(std::size_t target) const {
        const std::string& unit = kUnits[this->unit];
        std::string text;
        text.reserve(target + 256);
        if (!many) {
            text = kContexts[context];
            const std::size_t half = target / 2 / unit.size() + 1;
            for (std::size_t i = 0; i < half; ++i) text += unit;
            text += kBreakers[breaker];
            for (std::size_t i = 0; i < half; ++i) text += unit;
            return text + kEndings[ending];
        }
        std::string item = "- " + kContexts[context];
        for (std::size_t i = 0; i < item_units; ++i) item += unit;
        item += kBreakers[breaker] + kEndings[ending] + "\n";
        while (text.size() < target) text += item;
        return text;
    }
};

double cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double best_time(const std::string& text, int runs) {
    double best = 1e9;
    for (int r = 0; r < runs; ++r) {
        const double start = cpu_seconds();
        small::Result<small::Document> doc = small::parse_yaml(text, "fuzz.yml");
        best = std::min(best, cpu_seconds() - start);
    }
    return best;
}

struct Options {
    double seconds = 60;
    std::size_t size = 32 * 1024;
    unsigned seed = 0;
    double max_ratio = 6.0;
    double floor_seconds = 0.0005;  // times below this are noise, not growth
    std::string out = ".";
};

Options parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        const char* value = argv[i + 1];
        if (flag == "--seconds") o.seconds = std::atof(value);
        else if (flag == "--size") o.size = static_cast<std::size_t>(std::atoll(value));
        else if (flag == "--seed") o.seed = static_cast<unsigned>(std::atoll(value));
        else if (flag == "--max-ratio") o.max_ratio = std::atof(value);
        else if (flag == "--out") o.out = value;
        else {
            std::fprintf(stderr, "yaml_cost_fuzz: unknown option %s\n", argv[i]);
            std::exit(2);
        }
    }
    if (o.seed == 0) o.seed = static_cast<unsigned>(std::time(nullptr));
    return o;
}

Shape draw(std::mt19937& rng) {
    auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    Shape s{pick(kContexts.size()), pick(kUnits.size()), pick(kBreakers.size()), pick(kEndings.size()),
            pick(2) == 0};
    s.item_units = std::array<std::size_t, 5>{1, 8, 70, 300, 1500}[pick(5)];
    return s;
}

struct Finding {
    std::string shape;
    std::vector<double> times;  // at 1x, 4x and (when cheap enough) 16x the size

    std::string describe() const {
        std::string out = shape + ", best times";
        for (double t : times) out += " " + std::to_string(t) + " s";
        return out;
    }
};

// The smallest growth of the confirming measurement (for the summary).
double last_confirm_ratio = 0;

// A flagged case again, best of seven at each size, and at 16x too when the
// 4x text still reads fast: one jump in time (a buffer that no longer fits a
// cache, a first large allocation) is not growth; super-linear means every
// step of 4x in size costs more than --max-ratio times as much.
std::optional<Finding> confirm(const Shape& shape, const Options& o) {
    Finding f{shape.describe(), {}};
    for (std::size_t size = o.size; size <= 16 * o.size; size *= 4) {
        const double t = best_time(shape.build(size), 7);
        f.times.push_back(t);
        if (t > 0.25) break;  // already slow: no need for a larger size
    }
    double growth = 1e9;
    for (std::size_t k = 1; k < f.times.size(); ++k) {
        growth = std::min(growth, f.times[k] / std::max(f.times[k - 1], o.floor_seconds / 4));
    }
    last_confirm_ratio = growth;
    if (growth > o.max_ratio) return f;
    return std::nullopt;
}

}  // namespace

// One case, measured in a child process: a parse that does not end within
// the alarm kills only the child, and the run goes on.
struct Measured {
    double t1 = 0, t4 = 0, ratio = 0;
    bool flagged = false, confirmed = false;
    double growth = 0;  // of the confirming measurement
    double times[3] = {0, 0, 0};
    int sizes = 0;
};

Measured measure(const Shape& shape, const Options& o) {
    Measured m;
    m.t1 = best_time(shape.build(o.size), 3);
    m.t4 = best_time(shape.build(4 * o.size), 3);
    m.ratio = m.t4 / std::max(m.t1, o.floor_seconds / 4);
    if (m.ratio > o.max_ratio && m.t4 >= o.floor_seconds) {
        m.flagged = true;
        const std::optional<Finding> f = confirm(shape, o);
        m.confirmed = f.has_value();
        m.growth = last_confirm_ratio;
        if (f) {
            m.sizes = static_cast<int>(std::min<std::size_t>(3, f->times.size()));
            for (int k = 0; k < m.sizes; ++k) m.times[k] = f->times[static_cast<std::size_t>(k)];
        }
    }
    return m;
}

// nullopt when the child did not finish within `alarm_seconds`.
std::optional<Measured> measure_in_child(const Shape& shape, const Options& o, unsigned alarm_seconds) {
    int fds[2];
    if (::pipe(fds) != 0) std::exit(2);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        ::alarm(alarm_seconds);
        const Measured m = measure(shape, o);
        (void)!::write(fds[1], &m, sizeof m);
        std::_Exit(0);
    }
    ::close(fds[1]);
    Measured m;
    const bool got = ::read(fds[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!got) return std::nullopt;
    return m;
}

int main(int argc, char** argv) {
    const Options o = parse_options(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // nothing buffered is copied into a child
    std::mt19937 rng(o.seed);
    std::printf("yaml_cost_fuzz: seed %u, sizes %zu and %zu bytes, %g s, flag above %gx\n", o.seed, o.size,
                4 * o.size, o.seconds, o.max_ratio);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
    std::size_t cases = 0, measurable = 0, flagged = 0;
    double worst_ratio = 0, worst_confirm = 0;
    std::string worst_shape;
    std::vector<Finding> findings;
    while (std::chrono::steady_clock::now() < deadline) {
        const Shape shape = draw(rng);
        const std::optional<Measured> m = measure_in_child(shape, o, 60);
        ++cases;
        if (!m) {
            findings.push_back({shape.describe(), {}});
            const std::string file = o.out + "/yaml_cost_case_" + std::to_string(findings.size()) + ".yml";
            std::ofstream(file, std::ios::binary) << shape.build(o.size);
            std::printf("SUPER-LINEAR (no result within 60 s): %s (saved %s)\n", shape.describe().c_str(),
                        file.c_str());
            continue;
        }
        const double t1 = m->t1, t4 = m->t4, ratio = m->ratio;
        if (t4 >= o.floor_seconds) ++measurable;
        if (t4 > 0.05) std::printf("slow (%.4f s -> %.4f s): %s\n", t1, t4, shape.describe().c_str());
        if (m->flagged) {
            ++flagged;
            worst_confirm = std::max(worst_confirm, m->growth);
        }
        if (m->confirmed) {
            Finding f{shape.describe(), std::vector<double>(m->times, m->times + m->sizes)};
            findings.push_back(f);
            const std::string file = o.out + "/yaml_cost_case_" + std::to_string(findings.size()) + ".yml";
            std::ofstream(file, std::ios::binary) << shape.build(o.size);
            std::printf("SUPER-LINEAR %s (saved %s)\n", f.describe().c_str(), file.c_str());
        }
        if (t4 >= o.floor_seconds && ratio > worst_ratio) {
            worst_ratio = ratio;
            worst_shape = shape.describe() + " (" + std::to_string(t1) + " s -> " + std::to_string(t4) + " s)";
        }
        if (cases % 2000 == 0) {
            std::printf("%zu cases, %zu above the noise floor, largest ratio %.2f: %s\n", cases, measurable,
                        worst_ratio, worst_shape.c_str());
            std::fflush(stdout);
        }
    }
    std::printf("done: %zu cases (%zu above the %.1f ms noise floor), %zu flagged, %zu super-linear; largest "
                "ratio at 4x %.2f: %s; largest confirmed growth per 4x %.2f\n",
                cases, measurable, o.floor_seconds * 1000, flagged, findings.size(), worst_ratio, worst_shape.c_str(),
                worst_confirm);
    return findings.empty() ? 0 : 1;
}
