// A base-layer object that calls into view/: linked with only the base layer
// (the `layers.link_probe` test), it must fail with an undefined reference,
// as any upward call in the library would fail its layer's link check.
#include "small/view/board_text.hpp"

std::string probe_upward_call(const small::BoardReport& board) { return small::board_text(board, {}); }
