// Terse fluent wrapper over DocumentBuilder for building test trees.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "small/doc/document.hpp"

namespace small::testing {

class Tree {
public:
    Tree& map() { builder_.begin_mapping({}); return *this; }
    Tree& seq() { builder_.begin_sequence({}); return *this; }
    Tree& end() { builder_.end(); return *this; }
    Tree& key(std::string_view k) { builder_.add_string(k, {}); return *this; }
    Tree& str(std::string_view v) { builder_.add_string(v, {}); return *this; }
    // `text` is how the scalar was written (kept for messages).
    Tree& integer(std::int64_t v, std::string_view text) { builder_.add_int(v, {}, text); return *this; }
    Tree& integer(std::int64_t v) { return integer(v, std::to_string(v)); }
    Tree& real(double v, std::string_view text = "<float>") { builder_.add_float(v, {}, text); return *this; }
    Tree& null() { builder_.add_null({}, "null"); return *this; }
    Tree& boolean(bool v) { builder_.add_bool(v, {}, v ? "true" : "false"); return *this; }
    Document done() { return builder_.finish(); }

private:
    DocumentBuilder builder_;
};

}  // namespace small::testing
