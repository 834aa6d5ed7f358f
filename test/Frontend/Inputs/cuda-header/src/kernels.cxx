#include "host.hxx"
int main() { return twice(0); }
