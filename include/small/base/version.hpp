// The version of this build of small ("0.1.0"), from project() in CMakeLists.txt.
// Not the protocol version that artifacts carry as small_version (model/layout).
#pragma once

#include <string_view>

namespace small {

std::string_view tool_version();

}  // namespace small
