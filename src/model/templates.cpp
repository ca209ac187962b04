// Templates (see the header).
#include "small/model/templates.hpp"

#include "small/base/text.hpp"
#include "small/model/replay_id.hpp"

namespace small {

// Every canonical artifact starts with small_version and owner, in that order.
YamlValue artifact_head(const char* owner) {
    YamlValue v = YamlValue::object();
    v["small_version"] = std::string(kProtocolVersion);
    v["owner"] = owner;
    return v;
}

YamlValue intent_template(const std::optional<std::string>& intent) {
    YamlValue v = artifact_head("human");
    v["intent"] = intent && !trim(*intent).empty() ? *intent : std::string("Define project intent");
    v["scope"] = YamlValue::object();
    v["scope"]["include"] = YamlValue::array();
    v["scope"]["exclude"] = YamlValue::array();
    v["success_criteria"] = YamlValue::array();
    return v;
}

YamlValue constraints_template() {
    YamlValue v = artifact_head("human");
    v["constraints"] = YamlValue::array();
    const auto add = [&](const char* id, const char* rule) {
        YamlValue c = YamlValue::object();
        c["id"] = id;
        c["rule"] = rule;
        c["severity"] = "error";
        v["constraints"].push_back(std::move(c));
    };
    add("no-secrets", "No secrets in .small artifacts");
    add("no-prod-writes", "No writes to production by default");
    return v;
}

YamlValue plan_template() {
    YamlValue v = artifact_head("agent");
    YamlValue task = YamlValue::object();
    task["id"] = "task-1";
    task["title"] = "Initial task";
    task["steps"] = YamlValue::array();
    task["acceptance"] = YamlValue::array();
    v["tasks"] = YamlValue::array();
    v["tasks"].push_back(std::move(task));
    return v;
}

YamlValue progress_template() {
    YamlValue v = artifact_head("agent");
    v["entries"] = YamlValue::array();
    return v;
}

}  // namespace small
