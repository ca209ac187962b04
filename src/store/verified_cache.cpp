// The verified prefix's cache file (see the header).
#include "small/store/verified_cache.hpp"

#include <algorithm>

#include "small/base/fast_hash.hpp"
#include "small/base/version.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

// The binary's version is part of the key: a newer small may check more.
const std::string& stamp() {
    static const std::string s = "small verified-prefix 1 " + std::string(tool_version());
    return s;
}

bool is_count(const std::string& s) {
    return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void append_line(std::string& out, std::initializer_list<std::string_view> fields) {
    bool first = true;
    for (std::string_view f : fields) {
        if (!first) out += ' ';
        append_cache_field(out, f);
        first = false;
    }
    out += '\n';
}

}  // namespace

std::string encode_verified_prefix(const VerifiedPrefix& p) {
    std::string out;
    append_line(out, {"P", std::to_string(p.length), std::to_string(p.header_length), std::to_string(p.item_indent),
                      std::to_string(p.entries), std::to_string(p.checks), std::to_string(p.work_entries), p.hash,
                      p.last_timestamp, p.newest_work});
    for (const auto& [id, has] : p.evidence) append_line(out, {"E", id, has ? "1" : "0"});
    for (const auto& [run, ids] : p.task_ids) {
        for (const std::string& id : ids) append_line(out, {"T", run, id});
    }
    // A cache cut at a line end would still decode: the last line vouches for all.
    append_line(out, {"Z", fast_hash_hex(out)});
    return out;
}

std::optional<VerifiedPrefix> decode_verified_prefix(std::string_view body) {
    const std::size_t last = body.size() < 2 ? std::string_view::npos : body.rfind('\n', body.size() - 2);
    const std::size_t check_at = last == std::string_view::npos ? 0 : last + 1;
    if (body.empty() || body.back() != '\n' || body.substr(check_at) != "Z " + fast_hash_hex(body.substr(0, check_at)) + "\n") {
        return std::nullopt;
    }
    body = body.substr(0, check_at);
    VerifiedPrefix p;
    bool head = false;
    const bool ok = decode_cache_lines(body, [&](std::vector<std::string>& f) {
        if (!head) {
            if (f.size() != 10 || f[0] != "P") return false;
            for (std::size_t i = 1; i <= 6; ++i) {
                if (!is_count(f[i])) return false;
            }
            p.length = std::stoull(f[1]);
            p.header_length = std::stoull(f[2]);
            p.item_indent = static_cast<std::uint32_t>(std::min<unsigned long long>(std::stoull(f[3]), 1u << 20));
            p.entries = std::stoull(f[4]);
            p.checks = static_cast<unsigned>(std::stoull(f[5]) & 7u);
            p.work_entries = std::stoull(f[6]);
            p.hash = f[7];
            p.last_timestamp = f[8];
            p.newest_work = f[9];
            head = true;
            return p.hash.size() == 32 && p.header_length <= p.length;
        }
        if (f.size() == 3 && f[0] == "E" && (f[2] == "0" || f[2] == "1")) {
            p.evidence[f[1]] = f[2] == "1";
            return true;
        }
        if (f.size() == 3 && f[0] == "T") {
            p.task_ids[f[1]].insert(f[2]);
            return true;
        }
        return false;
    });
    if (!ok || !head) return std::nullopt;
    return p;
}

std::optional<VerifiedPrefix> load_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::optional<std::string> body = read_stamped_cache(fs, ws, kVerifiedPrefixName, stamp());
    if (!body) return std::nullopt;
    return decode_verified_prefix(*body);
}

void save_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws, const VerifiedPrefix& prefix) {
    if (!fs.directory_exists(runtime_path(ws.root, kCacheDirName))) return;
    write_stamped_cache(fs, ws, kVerifiedPrefixName, stamp(), encode_verified_prefix(prefix));
}

}  // namespace small
