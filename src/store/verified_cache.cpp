// The verified prefix's cache file (see the header).
#include "small/store/verified_cache.hpp"

#include <nettle/hmac.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdlib>

#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/base/version.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

// The binary's version is part of the key: a newer small may check more.
// Format 3: a prefix no longer ends with an entry an append would read
// otherwise, so prefixes kept by format 2 are not trusted.
const std::string& stamp() {
    static const std::string s = "small verified-prefix 3 " + std::string(tool_version());
    return s;
}

bool is_count(const std::string& s) {
    return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

constexpr std::size_t kKeyBytes = 32;

// HMAC-SHA256 of the stamp and `body` under `key`, as 64 hex digits.
std::string mac_hex(std::string_view key, std::string_view body) {
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, key.size(), reinterpret_cast<const std::uint8_t*>(key.data()));
    const std::string& head = stamp();
    hmac_sha256_update(&ctx, head.size(), reinterpret_cast<const std::uint8_t*>(head.data()));
    hmac_sha256_update(&ctx, 1, reinterpret_cast<const std::uint8_t*>("\n"));
    hmac_sha256_update(&ctx, body.size(), reinterpret_cast<const std::uint8_t*>(body.data()));
    std::uint8_t digest[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&ctx, sizeof digest, digest);
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const std::uint8_t b : digest) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

// Where this user's key is: in git's own folder when the workspace is in a
// repository (git never carries it), else in .small-cache/.
struct KeyPlace {
    std::string root, dir, file;
};

KeyPlace key_place(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string root = normal_dir_path(ws.root);
    if (const std::optional<GitDirs> git = find_git_dirs(fs, root)) {
        const std::string dir = git->common_dir + "/small";
        return {git->common_dir, dir, dir + "/verified-prefix." + std::to_string(::geteuid()) + ".key"};
    }
    const std::string dir = runtime_path(root, kCacheDirName);
    return {root, dir, dir + "/" + kVerifiedKeyName};
}

// A file this user owns (an unknown owner: the fakes); a `secret` one also
// hidden from every other user. The cache itself may be readable: its key
// vouches for it.
std::optional<std::string> not_own(const FileSystem& fs, const std::string& path, bool secret) {
    const std::optional<FileInfo> info = fs.stat(path);
    if (!info) return std::nullopt;
    if (info->kind != FileKind::Regular) return path + " is not a regular file";
    if (info->owner >= 0 && info->owner != static_cast<std::int64_t>(::geteuid())) {
        return path + " belongs to another user (uid " + std::to_string(info->owner) + ")";
    }
    if (secret && info->owner >= 0 && (info->mode & 077u) != 0) {
        return path + " may be read or written by other users (it must be mode 0600)";
    }
    return std::nullopt;
}

// The key, or why there is none to use (`missing`: there is no key file).
std::optional<std::string> read_key(const FileSystem& fs, const KeyPlace& place, std::string& why, bool& missing) {
    missing = false;
    if (!fs.stat(place.file)) {
        missing = true;
        why = "no key " + place.file;
        return std::nullopt;
    }
    if (std::optional<std::string> bad = not_own(fs, place.file, true)) {
        why = *bad;
        return std::nullopt;
    }
    Result<std::string> key = fs.read_file_no_follow(place.dir, file_name(place.file));
    if (!key || key->size() != kKeyBytes) {
        why = "the key " + place.file + " is unreadable or not " + std::to_string(kKeyBytes) + " bytes";
        return std::nullopt;
    }
    return *key;
}

std::optional<std::string> make_key(const FileSystem& fs, const KeyPlace& place) {
    std::string key(kKeyBytes, '\0');
    std::size_t got = 0;
    while (got < key.size()) {
        const ssize_t n = ::getrandom(key.data() + got, key.size() - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        got += static_cast<std::size_t>(n);
    }
    if (!fs.make_directories(place.root, place.dir)) return std::nullopt;
    FileWrite write{place.root, place.file, place.dir, 0600, Durability::Full, false, true};
    if (!fs.replace_file(write, key)) return std::nullopt;
    return key;
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

// The "S" line: the file's stamp when all of it was verified, and the clock before it.
bool decode_stamp(const std::vector<std::string>& f, VerifiedPrefix& p) {
    const auto number = [](const std::string& s, auto& to) {
        const char* end = s.data() + s.size();
        const auto [at, ec] = std::from_chars(s.data(), end, to);
        return ec == std::errc() && at == end;
    };
    FileStamp st;
    if (!number(f[1], st.size) || !number(f[2], st.mtime_ns) || !number(f[3], st.ctime_ns) ||
        !number(f[4], st.identity.device) || !number(f[5], st.identity.inode) || !number(f[6], p.stamp_clock_ns)) {
        return false;
    }
    p.stamp = st;
    return st.size == p.length;
}

}  // namespace

std::string encode_verified_prefix(const VerifiedPrefix& p, std::string_view key) {
    std::string out;
    append_line(out, {"P", std::to_string(p.length), std::to_string(p.header_length), std::to_string(p.item_indent),
                      std::to_string(p.entries), std::to_string(p.checks), std::to_string(p.work_entries), p.hash,
                      p.last_timestamp, p.newest_work});
    if (p.stamp) {
        const FileStamp& st = *p.stamp;
        append_line(out, {"S", std::to_string(st.size), std::to_string(st.mtime_ns), std::to_string(st.ctime_ns),
                          std::to_string(st.identity.device), std::to_string(st.identity.inode),
                          std::to_string(p.stamp_clock_ns)});
    }
    for (const auto& [id, has] : p.evidence) append_line(out, {"E", id, has ? "1" : "0"});
    for (const auto& [run, ids] : p.task_ids) {
        for (const std::string& id : ids) append_line(out, {"T", run, id});
    }
    // A cache cut at a line end would still decode: the last line vouches for
    // all, under a key only this user holds (a forged or copied cache fails it).
    append_line(out, {"Z", mac_hex(key, out)});
    return out;
}

std::optional<VerifiedPrefix> decode_verified_prefix(std::string_view body, std::string_view key) {
    const std::size_t last = body.size() < 2 ? std::string_view::npos : body.rfind('\n', body.size() - 2);
    const std::size_t check_at = last == std::string_view::npos ? 0 : last + 1;
    if (key.empty() || body.empty() || body.back() != '\n' ||
        body.substr(check_at) != "Z " + mac_hex(key, body.substr(0, check_at)) + "\n") {
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
        if (f.size() == 7 && f[0] == "S" && !p.stamp) return decode_stamp(f, p);
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

bool verified_cache_enabled(std::string* why) {
    const char* opt = std::getenv("SMALL_VERIFIED_CACHE");
    const std::string choice = opt ? opt : "";
    if (choice == "0" || choice == "off" || choice == "false") {
        if (why) *why = "SMALL_VERIFIED_CACHE=" + choice + " turns the verified-prefix cache off";
        return false;
    }
    if (choice == "1" || choice == "on" || choice == "true") return true;
    const char* ci = std::getenv("CI");
    if (ci && std::string_view(ci) == "true") {
        if (why) *why = "CI=true: the whole log is read (SMALL_VERIFIED_CACHE=1 uses the verified-prefix cache)";
        return false;
    }
    return true;
}

std::optional<VerifiedPrefix> load_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws, std::string* why) {
    std::string reason;
    const auto ignored = [&](const std::string& because) -> std::optional<VerifiedPrefix> {
        if (why) *why = "ignored " + std::string(kCacheDirName) + "/" + kVerifiedPrefixName + ": " + because +
                        "; the whole log was read";
        return std::nullopt;
    };
    if (why) why->clear();
    const std::string file = runtime_path(ws.root, std::string(kCacheDirName) + "/" + kVerifiedPrefixName);
    if (!verified_cache_enabled(&reason)) {
        if (why) *why = reason;
        return std::nullopt;
    }
    if (!fs.stat(file)) return std::nullopt;
    if (std::optional<std::string> bad = not_own(fs, file, false)) return ignored(*bad);
    bool missing = false;
    const std::optional<std::string> key = read_key(fs, key_place(fs, ws), reason, missing);
    if (!key) return ignored(reason + " (a cache this user's small did not write)");
    const std::optional<std::string> body = read_stamped_cache(fs, ws, kVerifiedPrefixName, stamp());
    if (!body) return ignored("written by another version of small, or unreadable");
    std::optional<VerifiedPrefix> prefix = decode_verified_prefix(*body, *key);
    if (!prefix) return ignored("it fails its key (copied, committed, forged or torn)");
    return prefix;
}

void save_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws, const VerifiedPrefix& prefix) {
    if (!verified_cache_enabled() || !fs.directory_exists(runtime_path(ws.root, kCacheDirName))) return;
    const KeyPlace place = key_place(fs, ws);
    std::string why;
    bool missing = false;
    std::optional<std::string> key = read_key(fs, place, why, missing);
    if (!key && missing) key = make_key(fs, place);
    if (!key) return;  // a key this user cannot trust: no cache, only speed is lost
    write_stamped_cache(fs, ws, kVerifiedPrefixName, stamp(), encode_verified_prefix(prefix, *key));
}

}  // namespace small
