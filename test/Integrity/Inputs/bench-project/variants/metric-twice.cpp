// Hostile: prints a metric line of its own before the harness prints the
// real one.
#include <cstdio>

long long work(long long N) {
  std::printf("time: 0.001 ms\n");
  long long S = 0;
  for (long long I = 0; I < N; ++I)
    S += (I * I) % 7;
  return S;
}
