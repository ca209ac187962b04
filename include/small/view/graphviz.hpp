// Graph layout by Graphviz (libgvc, Debian's libgvc6), loaded with dlopen by
// the first call: only `graph --format svg` and the report pay for it, and a
// machine without it still runs every other command.
#pragma once

#include <string>
#include <string_view>

#include "small/base/result.hpp"

namespace small {

// `dot` laid out by Graphviz's dot engine and rendered as SVG. Errors:
// System when libgvc cannot be loaded (the message names the package) or
// Graphviz refuses the text.
Result<std::string> graphviz_svg(std::string_view dot);

}  // namespace small
