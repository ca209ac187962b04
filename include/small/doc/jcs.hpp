// RFC 8785 JSON Canonicalization Scheme (JCS) over the document model.
// No packaged C++ library implements it, so it lives here.
#pragma once

#include <string>
#include <string_view>

#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

// Serializes `node` canonically: object members sorted by the UTF-16 code
// units of their names, no insignificant whitespace, strings with minimal
// escaping, numbers in ECMAScript Number.prototype.toString form (integers
// are converted to IEEE doubles first). Fails on non-finite numbers and on
// strings that are not valid UTF-8.
Result<std::string> canonical_json(NodeRef node);

// ECMAScript shortest round-trip rendering of a finite double
// (1 -> "1", 1e21 -> "1e+21", 1e-7 -> "1e-7", -0 -> "0").
std::string format_ecmascript_number(double value);

}  // namespace small
