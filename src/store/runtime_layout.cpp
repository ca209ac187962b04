// Planning the legacy runtime-layout migration (see the header).
#include "small/store/runtime_layout.hpp"

#include <algorithm>

#include "small/base/filesystem.hpp"
#include "small/base/path.hpp"

namespace small {

namespace {

enum class Kind { Missing, Directory, File, Link, Other };

Result<Kind> kind_of(const FileSystem& fs, const std::string& path) {
    Result<std::optional<FileInfo>> inspected = fs.inspect(path);
    if (!inspected) return inspected.error();
    const std::optional<FileInfo>& info = *inspected;
    if (!info) return Kind::Missing;
    switch (info->kind) {
        case FileKind::Symlink: return Kind::Link;
        case FileKind::Directory: return Kind::Directory;
        case FileKind::Regular: return Kind::File;
        case FileKind::Other: break;
    }
    return Kind::Other;
}

struct Planner {
    const FileSystem& fs;
    const WorkspacePaths& ws;
    LayoutPlan plan;
    std::vector<PathMove> removals;  // duplicates and emptied folders, after every rename

    std::string abs(const std::string& rel) const { return runtime_path(ws.root, rel); }

    Error conflict(const std::string& src, const std::string& dst, const std::string& why) const {
        Error e = Error::invalid("cannot migrate " + src + " to " + dst + ": " + why + "; nothing was moved");
        e.hint = "compare the two by hand, keep one, then run small fix --runtime-layout again";
        return e;
    }

    // A link inside a legacy store is not moved: its target could be anything
    // (issue 24: it was moved as it was into .small-runs/).
    Error linked_entry(const std::string& src) const {
        Error e = Error::invalid("refusing to migrate " + src +
                                 ": it is a symbolic link (D7: links in the workspace are not followed); nothing was moved");
        e.hint = "replace the link with the file or folder it points to, or remove it, then run small fix "
                 "--runtime-layout again";
        return e;
    }

    // Both were files when looked at; a link swapped in since is refused.
    Result<std::string> read_unfollowed(const std::string& path) const {
        return fs.read_file_no_follow(parent_path(path), file_name(path));
    }

    Result<bool> same_bytes(const std::string& a, const std::string& b) const {
        Result<std::string> x = read_unfollowed(abs(a));
        if (!x) return x.error();
        Result<std::string> y = read_unfollowed(abs(b));
        if (!y) return y.error();
        return *x == *y;
    }

    // Moves the contents of folder `src` into folder `dst` (both root-relative).
    Status merge(const std::string& src, const std::string& dst, LayoutMigration& m) {
        Result<std::vector<DirEntry>> entries = fs.list_directory(abs(src));
        if (!entries) return entries.error();
        std::sort(entries->begin(), entries->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
        for (const DirEntry& e : *entries) {
            if (Status s = merge_entry(src + "/" + e.name, dst + "/" + e.name, m); !s) return s;
        }
        return ok_status();
    }

    Status merge_entry(const std::string& src, const std::string& dst, LayoutMigration& m) {
        Result<Kind> from = kind_of(fs, abs(src));
        if (!from) return from.error();
        if (*from == Kind::Link) return linked_entry(src);
        Result<Kind> to = kind_of(fs, abs(dst));
        if (!to) return to.error();
        if (*to == Kind::Missing) {
            plan.moves.push_back({PathMove::Kind::Rename, abs(src), abs(dst)});
            m.moved.push_back(src + " -> " + dst);
            return ok_status();
        }
        if (*from == Kind::Directory && *to == Kind::Directory) {
            if (Status s = merge(src, dst, m); !s) return s;
            removals.push_back({PathMove::Kind::RemoveEmptyDir, abs(src), ""});
            return ok_status();
        }
        if (*from == Kind::File && *to == Kind::File) {
            Result<bool> same = same_bytes(src, dst);
            if (!same) return same.error();
            if (!*same) return conflict(src, dst, "the destination already exists with different content");
            removals.push_back({PathMove::Kind::RemoveDuplicate, abs(src), abs(dst)});
            plan.deduped.push_back(src);
            return ok_status();
        }
        return conflict(src, dst, *to == Kind::Link ? "the destination is a symbolic link"
                                                    : "the destination exists and is not the same kind of entry");
    }

    Status migrate(std::string_view legacy, std::string_view canonical) {
        const std::string src(legacy), dst(canonical);
        Result<Kind> from = kind_of(fs, abs(src));
        if (!from) return from.error();
        if (*from == Kind::Missing) return ok_status();
        if (*from == Kind::Link) {
            return Error::invalid("refusing to migrate " + src + ": it is a symbolic link (D7: links in the workspace are not followed)");
        }
        if (*from != Kind::Directory) return Error::invalid("legacy runtime path is not a directory: " + abs(src));
        Result<Kind> to = kind_of(fs, abs(dst));
        if (!to) return to.error();
        if (*to == Kind::Link) return Error::invalid("refusing to migrate into " + dst + ": it is a symbolic link");
        if (*to != Kind::Missing && *to != Kind::Directory) {
            return conflict(src, dst, "the destination exists and is not a directory");
        }
        LayoutMigration m{src, dst, {}};
        if (Status s = merge(src, dst, m); !s) return s;
        removals.push_back({PathMove::Kind::RemoveEmptyDir, abs(src), ""});
        plan.removed_dirs.push_back(src);
        if (!m.moved.empty()) plan.migrations.push_back(std::move(m));
        return ok_status();
    }
};

}  // namespace

Result<LayoutPlan> plan_runtime_layout(const FileSystem& fs, const WorkspacePaths& ws) {
    Planner p{fs, ws, {}, {}};
    if (Status s = p.migrate(kLegacyArchiveDirName, kArchiveDirName); !s) return s.error();
    if (Status s = p.migrate(kLegacyRunsDirName, kRunsDirName); !s) return s.error();
    for (PathMove& m : p.removals) p.plan.moves.push_back(std::move(m));
    return std::move(p.plan);
}

}  // namespace small
