#include "work.h"

long long triangle(long long N) { return N * (N + 1) / 2; }
