// The page, its script and its style, embedded by CMake from page.html,
// page.js and page.css (cmake/embed_text.cmake): see page.hpp.
#include "small/serve/page.hpp"

namespace small::serve {

const char* embedded_page_html();
const char* embedded_page_script();
const char* embedded_page_style();

std::string_view page_html() { return embedded_page_html(); }
std::string_view page_script() { return embedded_page_script(); }
std::string_view page_style() { return embedded_page_style(); }

}  // namespace small::serve
