// Links small::small from a parent project (configured only by the test).
#include <iostream>

#include "small/base/version.hpp"

int main() { std::cout << small::tool_version() << '\n'; }
