// Artifact names (see the header).
#include "small/model/layout.hpp"

namespace small {

std::string_view artifact_name(ArtifactType type) {
    switch (type) {
        case ArtifactType::Intent: return "intent";
        case ArtifactType::Constraints: return "constraints";
        case ArtifactType::Plan: return "plan";
        case ArtifactType::Progress: return "progress";
        case ArtifactType::Handoff: return "handoff";
    }
    return "unknown";
}

std::string artifact_file_name(ArtifactType type) { return std::string(artifact_name(type)) + ".small.yml"; }

}  // namespace small
