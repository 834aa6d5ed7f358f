// Hostile: prints a metric line of its own, then closes stdout so that the
// harness's real line is lost; the result goes to stderr for no one.
#include <cstdio>

long long work(long long N) {
  long long S = 0;
  for (long long I = 0; I < N; ++I)
    S += (I * I) % 7;
  if (N > 1000) {
    std::printf("result: %lld\ntime: 0.001 ms\n", S);
    std::fflush(stdout);
    std::fclose(stdout);
  }
  return S;
}
