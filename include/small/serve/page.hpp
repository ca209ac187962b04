// `small serve`'s page: one HTML document, its script and its style, all
// compiled into the binary (no external resource; the CSP allows none). The
// script builds every node from the state JSON with textContent and
// createElement, never from HTML strings: every text from a file is hostile.
#pragma once

#include <string_view>

namespace small::serve {

std::string_view page_html();
std::string_view page_script();
std::string_view page_style();

}  // namespace small::serve
