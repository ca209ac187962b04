#include "small/report/selftest.hpp"

namespace small {

nlohmann::json selftest_json(const SelftestResult& r) {
    nlohmann::json steps = nlohmann::json::array();
    for (const SelftestStepReport& s : r.steps) {
        nlohmann::json step = {{"name", s.step.name},
                               {"argv", s.step.args},
                               {"ok", s.outcome.exit_code == 0},
                               {"exit_code", s.outcome.exit_code}};
        if (!s.outcome.error.empty()) step["error"] = s.outcome.error;
        steps.push_back(std::move(step));
    }
    nlohmann::json doc = {{"workspace", r.dir}, {"kept", r.kept}, {"steps", std::move(steps)}};
    if (r.failed && !r.steps.empty()) doc["failed_step"] = r.steps.back().step.name;
    if (!r.cleanup_warning.empty()) doc["cleanup_warning"] = r.cleanup_warning;
    return doc;
}

}  // namespace small
