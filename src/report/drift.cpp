#include "small/report/drift.hpp"

namespace small {

const char* drift_kind_name(DriftKind kind) {
    switch (kind) {
        case DriftKind::OutsideScope: return "outside_scope";
        case DriftKind::Excluded: return "excluded";
        case DriftKind::None: break;
    }
    return "none";
}

nlohmann::json drift_json(const DriftReport& r) {
    nlohmann::json files = nlohmann::json::array();
    for (const DriftFile& f : r.files) {
        nlohmann::json j = {{"path", f.path}, {"kind", drift_kind_name(f.kind)}};
        if (!f.glob.empty()) j["glob"] = f.glob;
        files.push_back(std::move(j));
    }
    return {{"drift", !r.files.empty()},
            {"has_scope", r.has_scope},
            {"base", {{"source", r.base_source}, {"commit", r.base.empty() ? nlohmann::json() : nlohmann::json(r.base)}}},
            {"run_start", r.run_start.empty() ? nlohmann::json() : nlohmann::json(r.run_start)},
            {"changed", r.changed},
            {"files", std::move(files)}};
}

std::string drift_file_line(const DriftFile& f) {
    if (f.kind == DriftKind::Excluded) return f.path + ": excluded by '" + f.glob + "'";
    return f.path + ": outside the scope";
}

}  // namespace small
