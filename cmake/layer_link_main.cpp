// The program each layer's link check builds (CMakeLists.txt, SMALL_LAYER_LINK_CHECK):
// it does nothing; linking it is the check.
int main() { return 0; }
