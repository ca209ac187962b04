// The claims table on this machine (see the header).
#include "small/store/claim_store.hpp"

#include <cstdlib>

#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

namespace {

// "claims.json" at the work tree's top; "claims@docs%2Fsite.json" below it.
std::string table_name(const std::string& workspace) {
    if (workspace.empty()) return "claims.json";
    std::string name = "claims@";
    for (const char c : workspace) {
        if (c == '/') {
            name += "%2F";
        } else if (c == '%') {
            name += "%25";
        } else {
            name += c;
        }
    }
    return name + ".json";
}

std::string below(const std::string& top, const std::string& path) {
    const std::string t = normal_dir_path(top), p = normal_dir_path(path);
    if (p == t) return "";
    return p.rfind(t + "/", 0) == 0 ? p.substr(t.size() + 1) : p;
}

}  // namespace

ClaimStore locate_claim_store(const FileSystem& fs, const WorkspacePaths& ws) {
    ClaimStore s;
    const std::string root = normal_dir_path(ws.root);
    if (const std::optional<GitDirs> git = find_git_dirs(fs, root)) {
        s.in_git = true;
        s.root = git->common_dir;
        s.dir = git->common_dir + "/small";
        s.work_tree = normal_dir_path(git->work_tree);
        s.workspace = below(s.work_tree, root);
        s.file = s.dir + "/" + table_name(s.workspace);
    } else {
        s.root = root;
        s.dir = runtime_path(root, kCacheDirName);
        s.file = s.dir + "/claims.json";
    }
    s.lock_file = s.file.substr(0, s.file.size() - 5) + ".lock";
    return s;
}

Result<ClaimTable> read_claim_table(const FileSystem& fs, const ClaimStore& store, std::vector<std::string>* problems) {
    Result<std::optional<std::string>> text = fs.read_file_if_present(store.file);
    if (!text) return text.error();
    if (!*text) return ClaimTable{};
    Result<ClaimTable> table = parse_claims_json(**text, store.file, current_instant(), problems);
    if (!table) {
        Error e = table.error();
        e.message += " (repair or remove it: it holds the agents' leases; `small claims` lists them)";
        return e;
    }
    return table;
}

Status write_claim_table(const FileSystem& fs, const ClaimStore& store, const ClaimTable& table) {
    if (Status made = fs.make_directories(store.root, store.dir); !made) return made;
    (void)remove_stale_temp_files_in(fs, store.root, store.dir);
    return fs.replace_file(FileWrite{store.root, store.file, store.dir}, claims_json(table, true));
}

Result<std::optional<RemoteRef>> claims_remote(const FileSystem& fs, const ClaimStore& store) {
    if (!store.in_git) return std::optional<RemoteRef>();
    const char* env = std::getenv("SMALL_CLAIMS_REMOTE");
    if (env == nullptr || *env == '\0') {
        Result<std::optional<std::string>> config = fs.read_file_if_present(store.root + "/config");
        // git section and key names ignore case; an include may define a remote elsewhere.
        const std::string text = config && *config ? lower_ascii(**config) : std::string();
        const bool maybe = text.find("remote") != std::string::npos || text.find("[include") != std::string::npos;
        if (config && !maybe) return std::optional<RemoteRef>();
    }
    Result<std::optional<std::string>> name = configured_remote(store.work_tree, "SMALL_CLAIMS_REMOTE", "small.claimsRemote");
    if (!name) return name.error();
    if (!*name) return std::optional<RemoteRef>();
    const std::string table = store.file.substr(store.file.rfind('/') + 1);  // claims.json, claims@x.json
    const std::string suffix = table.substr(6, table.size() - 6 - 5);          // "", "@x"
    return std::optional(RemoteRef{**name, "refs/small/claims" + suffix,
                                   "refs/small-remotes/" + **name + "/claims" + suffix, store.work_tree});
}

bool claims_remote_likely(const FileSystem& fs, const ClaimStore& store) {
    if (!store.in_git) return false;
    if (const char* env = std::getenv("SMALL_CLAIMS_REMOTE"); env != nullptr && *env != '\0') {
        return lower_ascii(trim(env)) != "none";
    }
    Result<std::optional<std::string>> config = fs.read_file_if_present(store.root + "/config");
    if (!config || !*config) return false;
    const std::string text = lower_ascii(**config);
    if (text.find("[remote") == std::string::npos && text.find("[include") == std::string::npos) return false;
    for (std::size_t at = text.find("claimsremote"); at != std::string::npos; at = text.find("claimsremote", at + 1)) {
        const std::size_t eq = text.find('=', at), eol = text.find('\n', at);
        if (eq == std::string::npos || (eol != std::string::npos && eq > eol)) continue;
        std::string value(trim(std::string_view(text).substr(eq + 1, eol == std::string::npos ? std::string::npos : eol - eq - 1)));
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
        if (value == "none") return false;
    }
    return true;
}

std::string claims_message(const ClaimTable& table, const std::string& summary) {
    return summary + "\n\n" + claims_json(table, false);
}

Result<ClaimTable> table_of_message(const std::string& message, const std::string& name, Instant now,
                                    std::vector<std::string>* problems) {
    const std::size_t body = message.find("\n\n");  // after the summary line, which may hold any text
    const std::size_t json = body == std::string::npos ? body : message.find('{', body);
    const std::string repair = " (a table small did not write; `git push <remote> :" + name.substr(name.find(':') + 1) +
                               "` removes it, and with it every claim)";
    if (json == std::string::npos) return Error::invalid(name + " holds no claims table" + repair);
    Result<ClaimTable> table = parse_claims_json(std::string_view(message).substr(json), name, now, problems);
    if (!table) return Error::invalid(table.error().message + repair);
    return table;
}

Result<std::unique_ptr<HeldLock>> lock_claim_store(const FileSystem& fs, const ClaimStore& store,
                                                   std::chrono::milliseconds wait) {
    if (Status made = fs.make_directories(store.root, store.dir); !made) return made.error();
    return acquire_lock_file(fs, store.lock_file, wait, "the claims table");
}

}  // namespace small
