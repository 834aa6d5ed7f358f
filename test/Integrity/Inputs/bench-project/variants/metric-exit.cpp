// Hostile: prints the harness's lines itself, with a time of its choosing,
// and exits before the harness can print the real one.
#include <cstdio>
#include <cstdlib>

long long work(long long N) {
  long long S = 0;
  for (long long I = 0; I < N; ++I)
    S += (I * I) % 7;
  std::printf("result: %lld\ntime: 0.001 ms\n", S);
  std::fflush(stdout);
  std::exit(0);
}
