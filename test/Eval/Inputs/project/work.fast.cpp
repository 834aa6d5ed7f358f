#include "work.h"

long long triangle(long long N) { return N > 0 ? N * (N - 1) / 2 : 0; }
