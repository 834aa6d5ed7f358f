// The original does not build: the check skips it.
int main() { return notDeclaredAnywhere; }
