// libgit2 behind Result values. Every libgit2 object lives in a unique_ptr
// with its free function, so no early return leaks one.
#include "small/base/git.hpp"

#include <dlfcn.h>
#include <git2.h>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>

#include "small/base/path.hpp"

namespace small {

namespace {

// libgit2 is loaded by the first command that needs git (dlopen), not at
// start-up: linked, it and the libraries it pulls in (krb5, ssh2, mbedtls,
// ...) cost every command, git or not, most of its start-up (issue 19).
#define SMALL_GIT2_FUNCTIONS(X) \
    X(git_libgit2_init) X(git_error_last) X(git_oid_tostr) X(git_oid_fromstr) \
    X(git_oid_fromstrn) X(git_blob_lookup) X(git_blob_rawcontent) X(git_blob_rawsize) \
    X(git_blob_free) X(git_buf_dispose) X(git_commit_lookup) X(git_commit_parent_id) \
    X(git_commit_parentcount) X(git_commit_time) X(git_commit_tree) X(git_commit_free) \
    X(git_config_add_file_ondisk) X(git_config_delete_entry) X(git_config_find_system) X(git_config_get_bool) \
    X(git_config_get_string_buf) X(git_config_new) X(git_config_open_level) X(git_config_set_string) \
    X(git_config_free) X(git_diff_get_delta) X(git_diff_num_deltas) X(git_diff_tree_to_workdir_with_index) \
    X(git_diff_free) X(git_index_conflict_iterator_new) X(git_index_conflict_next) X(git_index_conflict_iterator_free) \
    X(git_index_has_conflicts) X(git_index_free) X(git_object_id) X(git_object_lookup_prefix) \
    X(git_object_peel) X(git_object_free) X(git_reference_name_to_id) X(git_repository_commondir) \
    X(git_repository_config) X(git_repository_free) X(git_repository_head_detached) X(git_repository_head_unborn) X(git_repository_index) \
    X(git_repository_is_shallow) X(git_repository_mergehead_foreach) X(git_repository_message) X(git_repository_open_ext) X(git_repository_path) X(git_repository_workdir) X(git_revparse_single) \
    X(git_status_list_entrycount) X(git_status_list_new) X(git_status_list_free) X(git_tree_free) \
    X(git_branch_iterator_new) X(git_branch_next) X(git_branch_iterator_free) X(git_reference_name) \
    X(git_reference_target) X(git_reference_free) X(git_merge_base) X(git_worktree_list) X(git_worktree_lookup) \
    X(git_worktree_path) X(git_worktree_validate) X(git_worktree_free) X(git_strarray_dispose) \
    X(git_repository_head_for_worktree) X(git_repository_head) X(git_repository_is_bare) X(git_reference_lookup) \
    X(git_reference_symbolic_target) X(git_repository_odb) X(git_odb_free) X(git_odb_open_rstream) \
    X(git_odb_stream_read) X(git_odb_stream_free) X(git_tree_entry_bypath) X(git_tree_entry_id) \
    X(git_tree_entry_type) X(git_tree_entry_free)

struct Git2 {
#define SMALL_GIT2_POINTER(name) decltype(&::name) name = nullptr;
    SMALL_GIT2_FUNCTIONS(SMALL_GIT2_POINTER)
#undef SMALL_GIT2_POINTER
};

// The library's functions, loaded and initialised once per process (libgit2
// keeps a count; never shutting down is what its documentation allows), or
// why they could not be.
const Result<Git2>& load_git2() {
    static const Result<Git2> loaded = []() -> Result<Git2> {
        constexpr const char* kName = "libgit2.so." LIBGIT2_SOVERSION;
        void* handle = ::dlopen(kName, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            return Error::system(std::string("cannot load ") + kName + " (" + ::dlerror() +
                                 "): git features need it; install Debian's libgit2-" LIBGIT2_SOVERSION " package");
        }
        Git2 g;
        const char* missing = nullptr;
#define SMALL_GIT2_RESOLVE(name) \
    if (!missing && !(g.name = reinterpret_cast<decltype(g.name)>(::dlsym(handle, #name)))) missing = #name;
        SMALL_GIT2_FUNCTIONS(SMALL_GIT2_RESOLVE)
#undef SMALL_GIT2_RESOLVE
        if (missing) return Error::system(std::string(kName) + " has no " + missing + "; install libgit2 " LIBGIT2_SOVERSION);
        if (g.git_libgit2_init() < 0) return Error::system(std::string(kName) + " failed to initialise");
        return g;
    }();
    return loaded;
}

// Only reached through a GitRepo, which discover() made after a successful load.
const Git2& git2() { return *load_git2(); }

template <typename T, auto Free>
struct Freer {
    void operator()(T* p) const { (git2().*Free)(p); }
};
template <typename T, auto Free>
using Owned = std::unique_ptr<T, Freer<T, Free>>;
using ObjectPtr = Owned<git_object, &Git2::git_object_free>;
using CommitPtr = Owned<git_commit, &Git2::git_commit_free>;
using TreePtr = Owned<git_tree, &Git2::git_tree_free>;
using DiffPtr = Owned<git_diff, &Git2::git_diff_free>;
using StatusPtr = Owned<git_status_list, &Git2::git_status_list_free>;
using IndexPtr = Owned<git_index, &Git2::git_index_free>;
using ConflictIterPtr = Owned<git_index_conflict_iterator, &Git2::git_index_conflict_iterator_free>;
using BlobPtr = Owned<git_blob, &Git2::git_blob_free>;
using ConfigPtr = Owned<git_config, &Git2::git_config_free>;
using ReferencePtr = Owned<git_reference, &Git2::git_reference_free>;
using BranchIterPtr = Owned<git_branch_iterator, &Git2::git_branch_iterator_free>;
using WorktreePtr = Owned<git_worktree, &Git2::git_worktree_free>;
using RepositoryPtr = Owned<git_repository, &Git2::git_repository_free>;
using TreeEntryPtr = Owned<git_tree_entry, &Git2::git_tree_entry_free>;

Error libgit2_error(const std::string& what) {
    const ::git_error* e = git2().git_error_last();
    return Error::system(what + ": " + (e && e->message ? e->message : "libgit2 error"));
}

std::string hex(const git_oid& oid) {
    char buf[GIT_OID_HEXSZ + 1];
    git2().git_oid_tostr(buf, sizeof buf, &oid);
    return buf;
}

bool is_hex(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    });
}

Result<git_oid> parse_oid(const std::string& full) {
    git_oid oid;
    if (full.size() != GIT_OID_HEXSZ || git2().git_oid_fromstr(&oid, full.c_str()) != 0) {
        return Error::invalid("not a full commit id: " + full);
    }
    return oid;
}

// The contents of one conflict stage's blob; nullopt for an absent stage.
Result<std::optional<std::string>> stage_text(git_repository* repo, const git_index_entry* entry) {
    if (!entry) return std::optional<std::string>();
    git_blob* raw = nullptr;
    if (git2().git_blob_lookup(&raw, repo, &entry->id) != 0) {
        return libgit2_error(std::string("cannot read the staged version of ") + entry->path);
    }
    BlobPtr blob(raw);
    const char* data = static_cast<const char*>(git2().git_blob_rawcontent(blob.get()));
    return std::optional<std::string>(std::string(data, static_cast<std::size_t>(git2().git_blob_rawsize(blob.get()))));
}

// The string value of `key` in `cfg`, nullopt when it is not set there.
Result<std::optional<std::string>> config_string(git_config* cfg, const std::string& key, const std::string& where) {
    git_buf buf = GIT_BUF_INIT;
    const int rc = git2().git_config_get_string_buf(&buf, cfg, key.c_str());
    if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
    if (rc != 0) return libgit2_error("cannot read " + key + " from " + where);
    std::string value(buf.ptr, buf.size);
    git2().git_buf_dispose(&buf);
    return std::optional<std::string>(std::move(value));
}

std::optional<std::string> env_value(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
}

// A boolean environment variable as git reads it (git_env_bool): on when
// set to anything but a false value.
bool env_flag(const char* name) {
    std::optional<std::string> value = env_value(name);
    if (!value) return false;
    std::transform(value->begin(), value->end(), value->begin(), [](unsigned char c) { return std::tolower(c); });
    return !(value->empty() || *value == "0" || *value == "false" || *value == "no" || *value == "off");
}

struct ConfigFile {
    std::string path;
    git_config_level_t level;
};

// The system and global files `git config --get` reads, lowest priority
// first. libgit2 1.5 ignores GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM and
// GIT_CONFIG_GLOBAL, so the list is git's own (config.c), from the same
// variables; the global files follow HOME and XDG_CONFIG_HOME as git does.
std::vector<ConfigFile> user_config_files() {
    std::vector<ConfigFile> out;
    if (!env_flag("GIT_CONFIG_NOSYSTEM")) {
        if (std::optional<std::string> system = env_value("GIT_CONFIG_SYSTEM")) {
            out.push_back({*system, GIT_CONFIG_LEVEL_SYSTEM});
        } else {
            git_buf found = GIT_BUF_INIT;
            if (git2().git_config_find_system(&found) == 0) out.push_back({found.ptr, GIT_CONFIG_LEVEL_SYSTEM});
            git2().git_buf_dispose(&found);
        }
    }
    if (std::optional<std::string> global = env_value("GIT_CONFIG_GLOBAL")) {
        out.push_back({*global, GIT_CONFIG_LEVEL_GLOBAL});
        return out;
    }
    const std::optional<std::string> home = env_value("HOME");
    const std::optional<std::string> xdg = env_value("XDG_CONFIG_HOME");
    if (xdg && !xdg->empty()) out.push_back({join_path(*xdg, "git/config"), GIT_CONFIG_LEVEL_XDG});
    else if (home) out.push_back({join_path(*home, ".config/git/config"), GIT_CONFIG_LEVEL_XDG});
    if (home) out.push_back({join_path(*home, ".gitconfig"), GIT_CONFIG_LEVEL_GLOBAL});
    return out;
}

Status add_config_file(git_config* cfg, const ConfigFile& file, git_repository* repo) {
    if (file.path.empty()) return ok_status();  // GIT_CONFIG_GLOBAL= : no global file
    // As git: a system, XDG or global file this user may not read is skipped
    // (HOME=/root for a non-root user in a container), not an error.
    if (file.level != GIT_CONFIG_LEVEL_LOCAL && ::access(file.path.c_str(), R_OK) != 0 && errno == EACCES) {
        return ok_status();
    }
    if (git2().git_config_add_file_ondisk(cfg, file.path.c_str(), file.level, repo, 0) != 0) {
        return libgit2_error("cannot read the git config file " + file.path);
    }
    return ok_status();
}

// Whether the repository's own config turns on per-worktree config files
// (extensions.worktreeConfig), which git then reads after it.
Result<bool> worktree_config_on(git_config* cfg) {
    git_config* raw = nullptr;
    if (git2().git_config_open_level(&raw, cfg, GIT_CONFIG_LEVEL_LOCAL) != 0) return false;
    ConfigPtr local(raw);
    int on = 0;
    const int rc = git2().git_config_get_bool(&on, local.get(), "extensions.worktreeConfig");
    if (rc == GIT_ENOTFOUND) return false;
    if (rc != 0) return libgit2_error("cannot read extensions.worktreeConfig");
    return on != 0;
}

// Every level of the configuration, as git assembles it for this
// repository: system, XDG, global, the repository's own file and, when
// enabled, the worktree's (libgit2 1.5 has no level for it: APP, above local).
Result<ConfigPtr> effective_config_files(git_repository* repo) {
    git_config* raw = nullptr;
    if (git2().git_config_new(&raw) != 0) return libgit2_error("cannot make a git config");
    ConfigPtr cfg(raw);
    std::vector<ConfigFile> files = user_config_files();
    const std::string commondir = git2().git_repository_commondir(repo);
    files.push_back({join_path(commondir, "config"), GIT_CONFIG_LEVEL_LOCAL});
    for (const ConfigFile& file : files) {
        if (Status added = add_config_file(cfg.get(), file, repo); !added) return added.error();
    }
    Result<bool> per_worktree = worktree_config_on(cfg.get());
    if (!per_worktree) return per_worktree.error();
    if (*per_worktree) {
        const ConfigFile worktree{join_path(git2().git_repository_path(repo), "config.worktree"), GIT_CONFIG_LEVEL_APP};
        if (Status added = add_config_file(cfg.get(), worktree, repo); !added) return added.error();
    }
    return cfg;
}

// The home folder of `user` ("" for this process's: $HOME), as git finds it.
std::optional<std::string> home_of(const std::string& user) {
    if (user.empty()) return env_value("HOME");
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found) return std::nullopt;
    return std::string(found->pw_dir);
}

// `~`, `~/...` and `~user/...` as git expands them in a path value
// (interpolate_path); like git, an expansion that cannot be made is an error,
// never a folder literally named `~` below the work tree.
Result<std::string> expand_home(const std::string& path) {
    if (!path.starts_with("~")) return path;
    const std::size_t slash = path.find('/');
    const std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    const std::optional<std::string> home = home_of(user);
    if (!home) {
        return Error::invalid("cannot expand " + path + " in core.hooksPath: " +
                              (user.empty() ? std::string("HOME is not set") : "there is no user " + user) +
                              "; set it, or give core.hooksPath as a full path");
    }
    return *home + (slash == std::string::npos ? std::string() : path.substr(slash));
}

// The local level of the repository's configuration (.git/config).
Result<ConfigPtr> local_config_file(git_repository* repo) {
    git_config* all = nullptr;
    if (git2().git_repository_config(&all, repo) != 0) return libgit2_error("cannot read the repository's git config");
    ConfigPtr owner(all);
    git_config* local = nullptr;
    if (git2().git_config_open_level(&local, owner.get(), GIT_CONFIG_LEVEL_LOCAL) != 0) {
        return libgit2_error("cannot open the repository's own git config file");
    }
    return ConfigPtr(local);
}

}  // namespace

void GitRepo::Deleter::operator()(git_repository* r) const { git2().git_repository_free(r); }

GitRepo::GitRepo(git_repository* repo) : repo_(repo) {}
GitRepo::GitRepo(GitRepo&&) noexcept = default;
GitRepo& GitRepo::operator=(GitRepo&&) noexcept = default;
GitRepo::~GitRepo() = default;

Result<std::optional<GitRepo>> GitRepo::discover(const std::string& path) {
    if (const Result<Git2>& loaded = load_git2(); !loaded) return loaded.error();
    git_repository* repo = nullptr;
    const int rc = git2().git_repository_open_ext(&repo, path.c_str(), 0, nullptr);
    if (rc == GIT_ENOTFOUND) return std::optional<GitRepo>();
    if (rc != 0) return libgit2_error("cannot open the git repository containing " + path);
    return std::optional<GitRepo>(GitRepo(repo));
}

std::string GitRepo::workdir() const {
    const char* w = git2().git_repository_workdir(repo_.get());
    return w ? w : "";
}

bool GitRepo::head_unborn() const { return git2().git_repository_head_unborn(repo_.get()) == 1; }
bool GitRepo::head_detached() const { return git2().git_repository_head_detached(repo_.get()) == 1; }
bool GitRepo::shallow() const { return git2().git_repository_is_shallow(repo_.get()) == 1; }

Result<std::optional<std::string>> GitRepo::head() const {
    git_oid oid;
    const int rc = git2().git_reference_name_to_id(&oid, repo_.get(), "HEAD");
    if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) return std::optional<std::string>();
    if (rc != 0) return libgit2_error("cannot read HEAD");
    return std::optional<std::string>(hex(oid));
}

Result<std::string> GitRepo::resolve_commit(const std::string& rev) const {
    git_object* raw = nullptr;
    int rc = GIT_ENOTFOUND;
    // An id (full or abbreviated) is looked up as an object id first, so a
    // branch named like hex never shadows the commit the evidence names.
    if (rev.size() >= GIT_OID_MINPREFIXLEN && rev.size() <= GIT_OID_HEXSZ && is_hex(rev)) {
        git_oid prefix;
        if (git2().git_oid_fromstrn(&prefix, rev.c_str(), rev.size()) == 0) {
            rc = git2().git_object_lookup_prefix(&raw, repo_.get(), &prefix, rev.size(), GIT_OBJECT_ANY);
        }
    }
    if (rc == GIT_ENOTFOUND) rc = git2().git_revparse_single(&raw, repo_.get(), rev.c_str());
    ObjectPtr obj(raw);
    if (rc == GIT_EAMBIGUOUS) return Error::invalid("ambiguous revision '" + rev + "': give more hex digits");
    if (rc != 0) return Error::invalid("unknown revision '" + rev + "'");
    git_object* peeled_raw = nullptr;
    if (git2().git_object_peel(&peeled_raw, obj.get(), GIT_OBJECT_COMMIT) != 0) {
        return Error::invalid("revision '" + rev + "' does not name a commit");
    }
    ObjectPtr peeled(peeled_raw);
    return hex(*git2().git_object_id(peeled.get()));
}

Result<bool> GitRepo::is_ancestor_of_head(const std::string& oid) const {
    Result<std::unordered_set<std::string>> all = head_ancestors();
    if (!all) return all.error();
    return all->count(oid) > 0;
}

// A walk of our own rather than git_revwalk: libgit2 1.5 does not read a
// shallow clone's grafts, so its walk fails at the first missing parent.
// Here a parent the object store lacks ends that line (what git does).
Result<std::unordered_set<std::string>> GitRepo::head_ancestors() const {
    std::unordered_set<std::string> out;
    Result<std::optional<std::string>> h = head();
    if (!h) return h.error();
    if (!*h) return out;
    std::vector<git_oid> todo{*parse_oid(**h)};
    out.insert(**h);
    while (!todo.empty()) {
        const git_oid id = todo.back();
        todo.pop_back();
        git_commit* raw = nullptr;
        const int rc = git2().git_commit_lookup(&raw, repo_.get(), &id);
        if (rc == GIT_ENOTFOUND && shallow()) {
            out.erase(hex(id));  // beyond the shallow boundary: not in this clone
            continue;
        }
        if (rc != 0) return libgit2_error("cannot read commit " + hex(id));
        CommitPtr commit(raw);
        for (unsigned i = 0, n = git2().git_commit_parentcount(commit.get()); i < n; ++i) {
            const git_oid* parent = git2().git_commit_parent_id(commit.get(), i);
            if (out.insert(hex(*parent)).second) todo.push_back(*parent);
        }
    }
    return out;
}

Result<std::int64_t> GitRepo::commit_time(const std::string& oid) const {
    Result<git_oid> id = parse_oid(oid);
    if (!id) return id.error();
    git_commit* raw = nullptr;
    if (git2().git_commit_lookup(&raw, repo_.get(), &*id) != 0) return libgit2_error("unknown commit " + oid);
    CommitPtr commit(raw);
    return static_cast<std::int64_t>(git2().git_commit_time(commit.get()));
}

Result<std::optional<std::string>> GitRepo::first_parent_at_or_before(std::int64_t seconds) const {
    Result<std::optional<std::string>> h = head();
    if (!h) return h.error();
    if (!*h) return std::optional<std::string>();
    git_oid id = *parse_oid(**h);
    for (;;) {  // first parents only; a shallow clone's boundary ends the line
        git_commit* raw = nullptr;
        const int rc = git2().git_commit_lookup(&raw, repo_.get(), &id);
        if (rc == GIT_ENOTFOUND && shallow()) return std::optional<std::string>();
        if (rc != 0) return libgit2_error("cannot read commit " + hex(id));
        CommitPtr commit(raw);
        if (git2().git_commit_time(commit.get()) <= seconds) return std::optional<std::string>(hex(id));
        if (git2().git_commit_parentcount(commit.get()) == 0) return std::optional<std::string>();
        id = *git2().git_commit_parent_id(commit.get(), 0);
    }
}

namespace {

// The tree of commit `id` (`name` as the caller wrote it, for the messages).
Result<TreePtr> tree_of_commit(git_repository* repo, const git_oid& id, const std::string& name) {
    git_commit* c = nullptr;
    if (git2().git_commit_lookup(&c, repo, &id) != 0) return libgit2_error("unknown commit " + name);
    CommitPtr commit(c);
    git_tree* t = nullptr;
    if (git2().git_commit_tree(&t, commit.get()) != 0) return libgit2_error("cannot read the tree of " + name);
    return TreePtr(t);
}

}  // namespace

Result<std::vector<std::string>> GitRepo::changed_files(const std::string& since) const {
    TreePtr tree;
    if (!since.empty()) {
        Result<git_oid> id = parse_oid(since);
        if (!id) return id.error();
        Result<TreePtr> t = tree_of_commit(repo_.get(), *id, since);
        if (!t) return t.error();
        tree = std::move(*t);
    }
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    // Names only: no binary sniffing, no content reads beyond what stat
    // cannot settle.
    opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_SKIP_BINARY_CHECK |
                 GIT_DIFF_IGNORE_SUBMODULES;
    git_diff* raw = nullptr;
    if (git2().git_diff_tree_to_workdir_with_index(&raw, repo_.get(), tree.get(), &opts) != 0) {
        return libgit2_error("cannot compare with the working tree");
    }
    DiffPtr diff(raw);
    std::vector<std::string> out;
    const size_t n = git2().git_diff_num_deltas(diff.get());
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const git_diff_delta* d = git2().git_diff_get_delta(diff.get(), i);
        if (d->old_file.path) out.emplace_back(d->old_file.path);
        if (d->new_file.path && (!d->old_file.path || std::string_view(d->new_file.path) != d->old_file.path)) {
            out.emplace_back(d->new_file.path);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Result<GitRepo> open_workspace_repo(const std::string& root, const std::string& what) {
    Result<std::optional<GitRepo>> found = GitRepo::discover(root);
    if (!found) return found.error();
    if (!*found) {
        Error e = Error::usage(root + " is not in a git repository: " + what + " reads the git history");
        e.hint = "run it in a git work tree (git init, or a clone)";
        return e;
    }
    if (found->value().workdir().empty()) return Error::usage(root + " is in a bare git repository: " + what + " needs a work tree");
    return std::move(found->value());
}

std::optional<bool> work_tree_dirty(const std::string& root) {
    Result<std::optional<GitRepo>> repo = GitRepo::discover(root);
    if (!repo || !*repo || repo->value().workdir().empty()) return std::nullopt;
    Result<bool> dirty = repo->value().dirty();
    return dirty ? std::optional<bool>(*dirty) : std::nullopt;
}

std::optional<std::string> path_in_workdir(const std::string& workdir, const std::string& path) {
    std::error_code ec;
    const std::filesystem::path w = std::filesystem::weakly_canonical(workdir, ec);
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    const std::filesystem::path rel = p.lexically_relative(w);
    const std::string r = rel.generic_string();
    if (rel.empty() || r == "..") return std::nullopt;
    if (r.rfind("../", 0) == 0) return std::nullopt;
    if (r == ".") return std::string();
    return r.back() == '/' ? r.substr(0, r.size() - 1) : r;
}

Result<bool> GitRepo::dirty() const {
    git_status_options opts = GIT_STATUS_OPTIONS_INIT;
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list* raw = nullptr;
    if (git2().git_status_list_new(&raw, repo_.get(), &opts) != 0) return libgit2_error("cannot read the git status");
    StatusPtr list(raw);
    return git2().git_status_list_entrycount(list.get()) > 0;
}

Result<std::vector<GitIndexConflict>> GitRepo::index_conflicts(const std::string& prefix) const {
    std::vector<GitIndexConflict> out;
    git_index* raw_index = nullptr;
    if (git2().git_repository_index(&raw_index, repo_.get()) != 0) return libgit2_error("cannot read the git index");
    IndexPtr index(raw_index);
    if (!git2().git_index_has_conflicts(index.get())) return out;
    git_index_conflict_iterator* raw_iter = nullptr;
    if (git2().git_index_conflict_iterator_new(&raw_iter, index.get()) != 0) {
        return libgit2_error("cannot read the git index's conflicts");
    }
    ConflictIterPtr iter(raw_iter);
    const git_index_entry* stages[3] = {};
    int rc = 0;
    while ((rc = git2().git_index_conflict_next(&stages[0], &stages[1], &stages[2], iter.get())) == 0) {
        const git_index_entry* any = stages[0] ? stages[0] : stages[1] ? stages[1] : stages[2];
        if (!any || !std::string_view(any->path).starts_with(prefix)) continue;
        GitIndexConflict c;
        c.path = any->path;
        std::optional<std::string>* texts[3] = {&c.ancestor, &c.ours, &c.theirs};
        for (int i = 0; i < 3; ++i) {
            Result<std::optional<std::string>> text = stage_text(repo_.get(), stages[i]);
            if (!text) return text.error();
            *texts[i] = std::move(*text);
        }
        out.push_back(std::move(c));
    }
    if (rc != GIT_ITEROVER) return libgit2_error("cannot read the git index's conflicts");
    return out;
}

Result<std::optional<std::string>> GitRepo::file_at(const std::string& commit, const std::string& path) const {
    if (commit.empty()) return std::optional<std::string>();
    git_object* raw = nullptr;
    const std::string spec = commit + ":" + path;
    const int rc = git2().git_revparse_single(&raw, repo_.get(), spec.c_str());
    ObjectPtr obj(raw);
    if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
    if (rc != 0) return libgit2_error("cannot read " + path + " in commit " + commit);
    git_object* peeled_raw = nullptr;
    if (git2().git_object_peel(&peeled_raw, obj.get(), GIT_OBJECT_BLOB) != 0) return std::optional<std::string>();
    ObjectPtr peeled(peeled_raw);
    const auto* blob = reinterpret_cast<const git_blob*>(peeled.get());
    const char* data = static_cast<const char*>(git2().git_blob_rawcontent(blob));
    return std::optional<std::string>(std::string(data, static_cast<std::size_t>(git2().git_blob_rawsize(blob))));
}

// The stream's state: the bytes it inflated last (from `held_start`), so
// that a read a little before where it stands needs no new start.
struct GitBlobStream::Impl {
    // Owned (freed below): plain pointers, as this type is not in the anonymous namespace.
    git_odb* odb = nullptr;
    git_oid id{};
    std::uint64_t size = 0;
    git_odb_stream* stream = nullptr;
    git_blob* whole = nullptr;  // a packed object, inflated whole by libgit2 (no stream)
    std::uint64_t pos = 0;  // bytes inflated from the current start
    std::string held;       // the blob's bytes [held_start, pos)
    std::uint64_t held_start = 0;
    static constexpr std::size_t kKeep = std::size_t{1} << 20;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (stream) git2().git_odb_stream_free(stream);
        if (whole) git2().git_blob_free(whole);
        if (odb) git2().git_odb_free(odb);
    }
    bool restart() {
        if (stream) git2().git_odb_stream_free(stream);
        stream = nullptr;
        std::size_t len = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        const int rc = git2().git_odb_open_rstream(&stream, &len, &type, odb, &id);
        const bool opened = rc == 0 && stream;
        if (!opened) stream = nullptr;
        pos = held_start = 0;
        held.clear();
        return opened && type == GIT_OBJECT_BLOB && len == size;
    }
};

GitBlobStream::GitBlobStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GitBlobStream::~GitBlobStream() = default;
std::uint64_t GitBlobStream::size() const { return impl_->size; }

Result<std::string> GitBlobStream::read(std::uint64_t offset, std::size_t length) {
    Impl& s = *impl_;
    const std::uint64_t end = std::min<std::uint64_t>(s.size, offset + std::min<std::uint64_t>(length, s.size));
    if (offset >= end) return std::string();
    if (s.whole) {
        const char* data = static_cast<const char*>(git2().git_blob_rawcontent(s.whole));
        return std::string(data + offset, static_cast<std::size_t>(end - offset));
    }
    if (offset < s.held_start && !s.restart()) return Error::system("cannot stream a blob again");
    char buf[64 * 1024];
    while (s.pos < end) {
        if (!s.stream) return Error::system("cannot stream a blob again");
        const int n = git2().git_odb_stream_read(s.stream, buf, sizeof buf);
        if (n <= 0) return n < 0 ? libgit2_error("cannot read a blob") : Error::system("a blob ended early");
        s.held.append(buf, static_cast<std::size_t>(n));
        s.pos += static_cast<std::uint64_t>(n);
        // Keep what this read needs and the last kKeep bytes before it.
        const std::uint64_t keep_from = std::min(offset, s.pos > Impl::kKeep ? s.pos - Impl::kKeep : 0);
        if (keep_from > s.held_start && s.held.size() > 2 * Impl::kKeep) {
            s.held.erase(0, static_cast<std::size_t>(keep_from - s.held_start));
            s.held_start = keep_from;
        }
    }
    return s.held.substr(static_cast<std::size_t>(offset - s.held_start), static_cast<std::size_t>(end - offset));
}

Result<std::unique_ptr<GitBlobStream>> GitRepo::stream_file_at(const std::string& commit, const std::string& path) const {
    if (commit.empty()) return std::unique_ptr<GitBlobStream>();
    Result<git_oid> cid = parse_oid(commit);
    if (!cid) return cid.error();
    Result<TreePtr> tree = tree_of_commit(repo_.get(), *cid, commit);
    if (!tree) return tree.error();
    git_tree_entry* raw_entry = nullptr;
    if (git2().git_tree_entry_bypath(&raw_entry, tree->get(), path.c_str()) != 0) return std::unique_ptr<GitBlobStream>();
    TreeEntryPtr entry(raw_entry);
    if (git2().git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::unique_ptr<GitBlobStream>();
    auto impl = std::make_unique<GitBlobStream::Impl>();
    impl->id = *git2().git_tree_entry_id(entry.get());
    if (git2().git_repository_odb(&impl->odb, repo_.get()) != 0) {
        impl->odb = nullptr;
        return libgit2_error("cannot open the object database");
    }
    std::size_t len = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    // Packed objects do not stream: libgit2 inflates them whole, and the
    // blob is read from its buffer (not copied).
    if (git2().git_odb_open_rstream(&impl->stream, &len, &type, impl->odb, &impl->id) != 0 || !impl->stream) {
        impl->stream = nullptr;
        if (git2().git_blob_lookup(&impl->whole, repo_.get(), &impl->id) != 0) {
            impl->whole = nullptr;
            return libgit2_error("cannot read " + path + " in commit " + commit);
        }
        impl->size = static_cast<std::uint64_t>(git2().git_blob_rawsize(impl->whole));
        return std::unique_ptr<GitBlobStream>(new GitBlobStream(std::move(impl)));
    }
    if (type != GIT_OBJECT_BLOB) return std::unique_ptr<GitBlobStream>();
    impl->size = len;
    return std::unique_ptr<GitBlobStream>(new GitBlobStream(std::move(impl)));
}

Result<std::vector<std::string>> GitRepo::merge_heads() const {
    std::vector<std::string> heads;
    const auto collect = [](const git_oid* oid, void* payload) -> int {
        static_cast<std::vector<std::string>*>(payload)->push_back(hex(*oid));
        return 0;
    };
    const int rc = git2().git_repository_mergehead_foreach(repo_.get(), collect, &heads);
    if (rc == GIT_ENOTFOUND) return std::vector<std::string>();
    if (rc != 0) return libgit2_error("cannot read git's MERGE_HEAD");
    return heads;
}

namespace {

// A branch's log as a one-file, read-only file system over the blob's
// stream (GitBlobStream), so that it is read in windows as a work tree's log
// is: forward, a range at a time; a read behind starts the blob again.
class BlobFileSystem final : public FileSystem {
public:
    BlobFileSystem(std::string path, std::unique_ptr<GitBlobStream> blob)
        : path_(std::move(path)), size_(blob->size()), blob_(std::move(blob)) {}
    Result<std::string> read_file(const std::string& path) const override {
        Result<FileRange> r = read_range(path, 0, static_cast<std::size_t>(size_));
        if (!r) return r.error();
        return std::move(r->bytes);
    }
    bool file_exists(const std::string& path) const override { return path == path_; }
    bool directory_exists(const std::string&) const override { return false; }
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override {
        return Error::system("cannot list " + path + ": not a folder");
    }
    std::optional<FileInfo> stat(const std::string& path) const override {
        if (path != path_) return std::nullopt;
        FileInfo info;
        info.kind = FileKind::Regular;
        info.size = size_;
        info.mode = 0444;
        return info;
    }
    Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const override {
        if (path != path_) return Error::system("cannot read " + path + ": no such file");
        const std::lock_guard<std::mutex> hold(mutex_);
        Result<std::string> bytes = blob_->read(offset, length);
        if (!bytes) return bytes.error();
        return FileRange{std::move(*bytes), size_};
    }
    Result<std::uint64_t> stream_prefix(const std::string& path, std::uint64_t length,
                                        const std::function<void(std::string_view)>& take) const override {
        constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
        const std::uint64_t end = std::min(length, size_);
        for (std::uint64_t at = 0; at < end; at += kPiece) {
            Result<FileRange> r = read_range(path, at, static_cast<std::size_t>(std::min(kPiece, end - at)));
            if (!r) return r.error();
            take(r->bytes);
        }
        return size_;
    }

private:
    std::string path_;
    std::uint64_t size_;
    std::unique_ptr<GitBlobStream> blob_;
    mutable std::mutex mutex_;
};

}  // namespace

std::shared_ptr<const FileSystem> blob_file_system(std::string path, std::unique_ptr<GitBlobStream> blob) {
    return std::make_shared<BlobFileSystem>(std::move(path), std::move(blob));
}

Result<std::optional<std::string>> GitRepo::prepared_message() const {
    git_buf buf = GIT_BUF_INIT;
    const int rc = git2().git_repository_message(&buf, repo_.get());
    if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
    if (rc < 0) return libgit2_error("cannot read git's MERGE_MSG");
    std::string text(buf.ptr ? buf.ptr : "", buf.size);
    git2().git_buf_dispose(&buf);
    return std::optional<std::string>(std::move(text));
}

Result<std::optional<std::string>> GitRepo::local_config(const std::string& key) const {
    Result<ConfigPtr> cfg = local_config_file(repo_.get());
    if (!cfg) return cfg.error();
    return config_string(cfg->get(), key, "the repository's git config");
}

Result<std::optional<std::string>> GitRepo::effective_config(const std::string& key) const {
    Result<ConfigPtr> cfg = effective_config_files(repo_.get());
    if (!cfg) return cfg.error();
    return config_string(cfg->get(), key, "the git config");
}

namespace {

// "refs/heads/topic" as "topic"; any other name as it is.
std::string short_branch(const char* ref_name) {
    const std::string_view name(ref_name ? ref_name : "");
    constexpr std::string_view kHeads = "refs/heads/";
    return std::string(name.substr(0, kHeads.size()) == kHeads ? name.substr(kHeads.size()) : name);
}

// The branch (empty when detached) and commit of a resolved HEAD reference.
void take_head(const git_reference* head, GitCheckout& c) {
    const std::string ref = git2().git_reference_name(head);
    if (ref != "HEAD") c.branch = short_branch(ref.c_str());
    if (const git_oid* id = git2().git_reference_target(head)) c.head = hex(*id);
}

// The main work tree of `main` (the common folder's repository): nullopt
// when it is bare. A branch with no commit yet leaves the head empty.
std::optional<GitCheckout> main_checkout(git_repository* main) {
    if (git2().git_repository_is_bare(main)) return std::nullopt;
    GitCheckout c{normal_dir_path(git2().git_repository_workdir(main)), "", ""};
    git_reference* raw = nullptr;
    if (git2().git_repository_head(&raw, main) == 0) {
        take_head(ReferencePtr(raw).get(), c);
    } else if (git2().git_reference_lookup(&raw, main, "HEAD") == 0) {  // a branch with no commit yet
        const ReferencePtr head(raw);
        if (const char* target = git2().git_reference_symbolic_target(head.get())) c.branch = short_branch(target);
    }
    return c;
}

// A linked worktree's checkout (head_for_worktree resolves its HEAD).
GitCheckout linked_checkout(git_repository* main, const char* name, const char* path) {
    GitCheckout c{normal_dir_path(path), "", ""};
    git_reference* raw = nullptr;
    if (git2().git_repository_head_for_worktree(&raw, main, name) == 0) take_head(ReferencePtr(raw).get(), c);
    return c;
}

}  // namespace

Result<std::vector<GitCheckout>> GitRepo::checkouts() const {
    // Linked worktrees are listed by the main repository (the common folder).
    git_repository* raw = nullptr;
    const std::string common = commondir();
    if (git2().git_repository_open_ext(&raw, common.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
        return libgit2_error("cannot open the git repository at " + common);
    }
    const RepositoryPtr main(raw);
    std::vector<GitCheckout> out;
    if (std::optional<GitCheckout> top = main_checkout(main.get())) out.push_back(std::move(*top));
    git_strarray names{};
    if (git2().git_worktree_list(&names, main.get()) != 0) return libgit2_error("cannot list git's worktrees");
    std::vector<GitCheckout> linked;
    for (std::size_t i = 0; i < names.count; ++i) {
        git_worktree* wt_raw = nullptr;
        if (git2().git_worktree_lookup(&wt_raw, main.get(), names.strings[i]) != 0) continue;
        const WorktreePtr wt(wt_raw);
        if (git2().git_worktree_validate(wt.get()) != 0) continue;  // pruned: its folder is gone
        linked.push_back(linked_checkout(main.get(), names.strings[i], git2().git_worktree_path(wt.get())));
    }
    git2().git_strarray_dispose(&names);
    std::sort(linked.begin(), linked.end(), [](const GitCheckout& a, const GitCheckout& b) { return a.path < b.path; });
    out.insert(out.end(), linked.begin(), linked.end());
    return out;
}

Result<std::vector<GitBranch>> GitRepo::local_branches() const {
    git_branch_iterator* raw = nullptr;
    if (git2().git_branch_iterator_new(&raw, repo_.get(), GIT_BRANCH_LOCAL) != 0) {
        return libgit2_error("cannot list the local branches");
    }
    const BranchIterPtr it(raw);
    std::vector<GitBranch> out;
    git_reference* ref_raw = nullptr;
    git_branch_t type{};
    int rc = 0;
    while ((rc = git2().git_branch_next(&ref_raw, &type, it.get())) == 0) {
        const ReferencePtr ref(ref_raw);
        const git_oid* id = git2().git_reference_target(ref.get());
        if (id) out.push_back({short_branch(git2().git_reference_name(ref.get())), hex(*id)});
    }
    if (rc != GIT_ITEROVER) return libgit2_error("cannot list the local branches");
    std::sort(out.begin(), out.end(), [](const GitBranch& a, const GitBranch& b) { return a.name < b.name; });
    return out;
}

Result<std::optional<std::string>> GitRepo::merge_base(const std::string& a, const std::string& b) const {
    Result<git_oid> x = parse_oid(a), y = parse_oid(b);
    if (!x) return x.error();
    if (!y) return y.error();
    git_oid base;
    const int rc = git2().git_merge_base(&base, repo_.get(), &*x, &*y);
    if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
    if (rc != 0) return libgit2_error("cannot find the merge base of " + a + " and " + b);
    return std::optional<std::string>(hex(base));
}

std::string GitRepo::commondir() const { return normal_dir_path(git2().git_repository_commondir(repo_.get())); }

std::string GitRepo::config_path() const { return join_path(commondir(), "config"); }

// A relative core.hooksPath is relative to where git runs hooks: the work
// tree's top level, or the git folder of a bare repository.
Result<std::string> GitRepo::hooks_dir() const {
    Result<std::optional<std::string>> set = effective_config("core.hooksPath");
    if (!set) return set.error();
    if (!*set) return join_path(commondir(), "hooks");
    const std::string top = workdir().empty() ? git2().git_repository_path(repo_.get()) : workdir();
    Result<std::string> expanded = expand_home(**set);
    if (!expanded) return expanded.error();
    return normal_dir_path(absolute_path(top, *expanded));
}

Status GitRepo::set_local_config(const std::string& key, const std::string& value) const {
    Result<ConfigPtr> cfg = local_config_file(repo_.get());
    if (!cfg) return cfg.error();
    if (git2().git_config_set_string(cfg->get(), key.c_str(), value.c_str()) != 0) {
        return libgit2_error("cannot set " + key + " in the repository's git config");
    }
    return ok_status();
}

Result<bool> GitRepo::unset_local_config(const std::string& key) const {
    Result<ConfigPtr> cfg = local_config_file(repo_.get());
    if (!cfg) return cfg.error();
    const int rc = git2().git_config_delete_entry(cfg->get(), key.c_str());
    if (rc == GIT_ENOTFOUND) return false;
    if (rc != 0) return libgit2_error("cannot remove " + key + " from the repository's git config");
    return true;
}

}  // namespace small
