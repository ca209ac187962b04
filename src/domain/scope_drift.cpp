#include "small/domain/scope_drift.hpp"

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/doc/document.hpp"
#include "small/model/workspace.hpp"
#include "small/base/git.hpp"
#include "small/model/run_start.hpp"

namespace small {

namespace {

Result<std::vector<ScopeGlob>> compile_globs(NodeRef list, const std::string& display, const char* key) {
    std::vector<ScopeGlob> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const NodeRef item = list.item(i);
        if (!item.is_string()) continue;  // the schema check reports it
        Result<ScopeGlob> g = ScopeGlob::compile(trim(item.as_string()));
        if (!g) {
            Error e = g.error();
            e.file = display, e.line = item.mark().line, e.column = item.mark().column;
            e.hint = std::string("fix scope.") + key + " in the intent";
            return e;
        }
        out.push_back(std::move(*g));
    }
    return out;
}

Result<Scope> load_scope(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string name = artifact_file_name(ArtifactType::Intent);
    Result<Document> doc = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    if (!doc) return doc.error();
    const NodeRef scope = doc->root().find("scope");
    Scope out;
    Result<std::vector<ScopeGlob>> inc = compile_globs(scope.find("include"), ws.display_of(name), "include");
    if (!inc) return inc.error();
    Result<std::vector<ScopeGlob>> exc = compile_globs(scope.find("exclude"), ws.display_of(name), "exclude");
    if (!exc) return exc.error();
    out.include = std::move(*inc), out.exclude = std::move(*exc);
    return out;
}

// Where the comparison starts (DriftReport::base_source).
Status find_base(const GitRepo& repo, const FileSystem& fs, const WorkspacePaths& ws, const DriftOptions& o,
                 DriftReport& r) {
    if (o.since) {
        Result<std::string> c = repo.resolve_commit(std::string(trim(*o.since)));
        if (!c) return Error::usage("--since: " + c.error().message);
        r.base_source = "since", r.base = *c;
        return ok_status();
    }
    Result<RunStart> start = find_run_start(fs, ws);
    if (!start) return start.error();
    if (!start->at) {
        Result<std::optional<std::string>> head = repo.head();
        if (!head) return head.error();
        r.base_source = *head ? "head" : "empty", r.base = head->value_or("");
        return ok_status();
    }
    r.run_start = format_timestamp_utc9(*start->at);
    Result<std::optional<std::string>> c = repo.first_parent_at_or_before(start->at->seconds);
    if (!c) return c.error();
    r.base_source = *c ? "run_start" : "empty", r.base = c->value_or("");
    return ok_status();
}

// Whether the workspace root's .gitattributes differs from the base only by
// the line `small hooks install git` adds (then it is small's change, not
// drift).
Result<bool> only_merge_attributes_changed(const FileSystem& fs, const GitRepo& repo, const std::string& base,
                                           const std::string& repo_path, const std::string& path) {
    Result<std::optional<std::string>> before = repo.file_at(base, repo_path);
    if (!before) return before.error();
    std::optional<std::string> after;
    if (fs.file_exists(path)) {
        Result<std::string> text = fs.read_file(path);
        if (!text) return text.error();
        after = std::move(*text);
    }
    return is_only_merge_attributes_change(*before, after);
}

}  // namespace

Result<DriftReport> scope_drift(const FileSystem& fs, const WorkspacePaths& ws, const DriftOptions& options) {
    Result<GitRepo> repo = open_workspace_repo(ws.root, "small drift");
    if (!repo) return repo.error();
    Result<Scope> scope = load_scope(fs, ws);
    if (!scope) return scope.error();
    DriftReport r;
    r.has_scope = !scope->include.empty() || !scope->exclude.empty();
    if (Status s = find_base(*repo, fs, ws, options, r); !s) return s.error();
    const std::optional<std::string> prefix = path_in_workdir(repo->workdir(), ws.root);
    if (!prefix) return Error::internal("workspace " + ws.root + " is outside its repository's work tree");
    const std::string pre = prefix->empty() ? "" : *prefix + "/";
    Result<std::vector<std::string>> changed = repo->changed_files(r.base);
    if (!changed) return changed.error();
    for (const std::string& repo_path : *changed) {
        if (repo_path.compare(0, pre.size(), pre) != 0) continue;  // another project in the repository
        const std::string_view path = std::string_view(repo_path).substr(pre.size());
        if (is_small_own_file(path)) continue;
        if (path == kGitAttributesFile) {
            Result<bool> ours = only_merge_attributes_changed(fs, *repo, r.base, repo_path, join_path(ws.root, path));
            if (!ours) return ours.error();
            if (*ours) continue;
        }
        ++r.changed;
        if (!r.has_scope) continue;
        DriftFile f{std::string(path), classify_path(*scope, path), ""};
        if (f.kind == DriftKind::None) continue;
        if (f.kind == DriftKind::Excluded) {
            for (const ScopeGlob& g : scope->exclude) {
                if (g.matches(path)) {
                    f.glob = g.pattern();
                    break;
                }
            }
        }
        r.files.push_back(std::move(f));
    }
    return r;
}

}  // namespace small
