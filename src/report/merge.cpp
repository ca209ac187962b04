#include "small/report/merge.hpp"

namespace small {

nlohmann::json merge_json(const MergeReport& r) {
    nlohmann::json conflicts = nlohmann::json::array();
    for (const MergeConflict& c : r.outcome.conflicts) {
        conflicts.push_back({{"id", c.id}, {"field", c.field}, {"message", c.message}, {"hint", c.hint}});
    }
    nlohmann::json doc = {{"pathname", r.pathname}, {"rule", r.rule},         {"clean", r.clean()},
                          {"written", r.written},   {"conflicts", conflicts}, {"notes", r.outcome.notes},
                          {"renamed", r.outcome.renamed}};
    if (r.rule == "progress") {
        doc["entries"] = {{"ancestor", r.outcome.ancestor_entries},
                          {"added", r.outcome.added_entries},
                          {"duplicates", r.outcome.duplicate_entries},
                          {"bumped", r.outcome.bumped_timestamps}};
    }
    return doc;
}

}  // namespace small
