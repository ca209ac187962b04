// The artifacts a new workspace or a new run starts from (init, reset,
// start, plan --reset), in house style: every string double-quoted,
// small_version "1.0.0".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "small/doc/yaml_writer.hpp"

namespace small {

inline constexpr std::string_view kInitEvidence = "Initialized .small workspace and seeded canonical artifacts";
inline constexpr std::string_view kInitSummary = "Project initialized.";

// small_version and owner, the keys every canonical artifact starts with.
YamlValue artifact_head(const char* owner);

// Templates (house style, parse back to exactly these values).
YamlValue intent_template(const std::optional<std::string>& intent);
YamlValue constraints_template();
YamlValue plan_template();
YamlValue progress_template();  // entries: []

}  // namespace small
