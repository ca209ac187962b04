// `small fix` as JSON (see the header).
#include "small/report/fix.hpp"

namespace small {

namespace {

std::string in_small(const std::string& name) { return small_relative(name); }

nlohmann::json versions_json(const std::vector<VersionFix>& fixes) {
    nlohmann::json changed = nlohmann::json::array(), canonical = nlohmann::json::array(),
                   unfixable = nlohmann::json::array(), changes = nlohmann::json::array();
    for (const VersionFix& f : fixes) {
        switch (f.state) {
            case VersionFix::State::Changed:
                changed.push_back(in_small(f.file));
                changes.push_back({{"file", in_small(f.file)}, {"before", f.before}, {"after", f.after}});
                break;
            case VersionFix::State::Canonical: canonical.push_back(in_small(f.file)); break;
            case VersionFix::State::Unfixable:
                unfixable.push_back({{"file", in_small(f.file)}, {"reason", f.reason}});
                break;
        }
    }
    return {{"changed", changed}, {"canonical", canonical}, {"unfixable", unfixable}, {"changes", changes}};
}

nlohmann::json orphans_json(const OrphanFixPlan& p) {
    nlohmann::json entries = nlohmann::json::array();
    nlohmann::json counts = {{"operational", 0}, {"historical", 0}, {"unknown", 0}};
    for (const OrphanRewrite& rw : p.rewrites) {
        counts[rw.category] = counts[rw.category].get<int>() + 1;
        entries.push_back({{"index", rw.index},
                           {"task_id", rw.task_id},
                           {"new_task_id", rw.new_task_id},
                           {"category", rw.category},
                           {"timestamp", rw.timestamp},
                           {"entry_sha256", rw.entry_sha256}});
    }
    return {{"replay_id_scope", p.scope.empty() ? nlohmann::json() : nlohmann::json(p.scope)},
            {"superseded", p.rewrites.size()},
            {"counts", counts},
            {"entries", entries}};
}

nlohmann::json layout_json(const LayoutPlan& p) {
    nlohmann::json migrations = nlohmann::json::array();
    for (const LayoutMigration& m : p.migrations) migrations.push_back({{"from", m.from}, {"to", m.to}, {"moved", m.moved}});
    return {{"migrations", migrations}, {"deduped", p.deduped}, {"removed_dirs", p.removed_dirs}};
}

nlohmann::json workspace_json(const WorkspaceRepair& w) {
    nlohmann::json changes = nlohmann::json::array();
    for (const MemberChange& c : w.changes) {
        changes.push_back({{"key", c.key}, {"before", nlohmann::json::parse(c.before.dump())},
                           {"after", nlohmann::json::parse(c.after.dump())}});
    }
    nlohmann::json out = {{"file", in_small(std::string(kWorkspaceFileName))},
                          {"created", w.created},
                          {"replaced_unreadable", w.replaced_unreadable},
                          {"changed", !w.changes.empty()},
                          {"changes", changes},
                          {"comments_kept", w.comments_kept}};
    if (w.replaced_unreadable) out["unreadable_reason"] = w.unreadable_reason;
    if (!w.comments_kept && !w.rewrite_reason.empty()) out["rewrite_reason"] = w.rewrite_reason;
    return out;
}

}  // namespace

nlohmann::json fix_json(const FixResult& r) {
    nlohmann::json rewritten = nlohmann::json::array();
    for (const std::string& name : r.rewritten) rewritten.push_back(in_small(name));
    nlohmann::json out = {{"dry_run", r.dry_run},
                          {"changed", r.changed()},
                          {"rewritten", rewritten},
                          {"appended", r.appended},
                          {"backup_dir", r.backup_dir.empty() ? nlohmann::json() : nlohmann::json(r.backup_dir)},
                          {"warnings", r.warnings}};
    if (r.versions) out["versions"] = versions_json(*r.versions);
    if (r.orphans) out["orphan_progress"] = orphans_json(*r.orphans);
    if (r.layout) out["runtime_layout"] = layout_json(*r.layout);
    if (r.workspace) out["workspace"] = workspace_json(*r.workspace);
    out["next"] = "small check --strict";
    return out;
}

}  // namespace small
