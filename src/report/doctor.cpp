// doctor's JSON body (see the header).
#include "small/report/doctor.hpp"

#include "small/report/findings.hpp"

namespace small {

nlohmann::json doctor_json(const DoctorReport& r, const WorkspacePaths& ws) {
    nlohmann::json checks = nlohmann::json::array();
    for (const DoctorCheck& c : r.checks) {
        nlohmann::json j = {{"category", c.category},
                            {"status", doctor_status_name(c.status)},
                            {"message", c.message},
                            {"findings", findings_json(c.findings)}};
        if (!c.suggestion.empty()) j["suggestion"] = c.suggestion;
        checks.push_back(std::move(j));
    }
    return {{"workspace", ws.root}, {"checks", checks}, {"summary", {{"errors", r.errors}, {"warnings", r.warnings}}}};
}

}  // namespace small
