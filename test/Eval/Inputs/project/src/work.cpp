#include "work.h"

long long triangle(long long N) {
  long long S = 0;
  for (long long I = 0; I < N; ++I)
    for (long long J = 0; J < 1; ++J)
      S += I;
  return S;
}
