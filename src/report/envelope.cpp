// The JSON envelope (see the header).
#include "small/report/envelope.hpp"

#include "small/base/version.hpp"
#include "small/model/replay_id.hpp"

namespace small {

nlohmann::json version_json() {
    return {{"version", "v" + std::string(tool_version())}, {"supported_spec_versions", {std::string(kProtocolVersion)}}};
}

nlohmann::json with_envelope(nlohmann::json doc, const std::string& command, int exit_code) {
    doc["schema_version"] = kJsonSchemaVersion;
    doc["command"] = command;
    doc["ok"] = exit_code == kExitOk;
    doc["exit_code"] = exit_code;
    if (exit_code != kExitOk && !doc.contains("error")) {
        doc["error"] = {{"kind", exit_code == kExitInvalid ? "invalid" : exit_code == kExitBusy ? "busy" : "system"},
                        {"message", command + " failed"}};
    }
    return doc;
}

nlohmann::json error_json(const std::string& kind, const std::string& message) {
    return {{"error", {{"kind", kind}, {"message", message}}}};
}

const char* error_kind_name(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::Invalid: return "invalid";
        case Error::Kind::System: return "system";
        case Error::Kind::Usage: return "usage";
        case Error::Kind::Busy: return "busy";
        case Error::Kind::Internal: return "internal";
    }
    return "invalid";
}

int exit_code_for(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::Invalid: return kExitInvalid;
        case Error::Kind::System: return kExitSystem;
        case Error::Kind::Usage: return kExitUsage;
        case Error::Kind::Busy: return kExitBusy;
        case Error::Kind::Internal: return kExitInternal;
    }
    return kExitSystem;
}

int exit_code_for(VerdictOutcome outcome) {
    switch (outcome) {
        case VerdictOutcome::Ok: return kExitOk;
        case VerdictOutcome::Invalid: return kExitInvalid;
        case VerdictOutcome::SystemError: return kExitSystem;
    }
    return kExitSystem;
}

}  // namespace small
