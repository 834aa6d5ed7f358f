// Compiles only with the -DHAVE_HELPER=1 inferred from a.cpp's entry.
#if !HAVE_HELPER
#error "built without the database's flags"
#endif
static int helper(int X) { return X + 1; }
int main() { return helper(-1); }
