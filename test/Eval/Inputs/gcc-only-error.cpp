// Parses with Clang (discovery) but does not build with g++.
#if !defined(__clang__)
#error "this baseline does not build with the project's compiler"
#endif
int main() { return 0; }
