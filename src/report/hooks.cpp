#include "small/report/hooks.hpp"

namespace small {

nlohmann::json hooks_json(const HooksResult& r) {
    nlohmann::json files = nlohmann::json::array();
    for (const HookFileChange& f : r.files) {
        nlohmann::json file = {{"path", f.path}, {"change", f.change}};
        if (r.dry_run) file["diff"] = hook_change_diff(f);
        files.push_back(std::move(file));
    }
    nlohmann::json doc = {{"target", std::string(hook_target_name(r.target))},
                          {"dry_run", r.dry_run},
                          {"changed", r.changed()},
                          {"written", r.written},
                          {"files", std::move(files)},
                          {"notes", r.notes},
                          {"warnings", r.warnings}};
    if (r.action == HooksAction::Print) doc["content"] = r.content;
    return doc;
}

}  // namespace small
