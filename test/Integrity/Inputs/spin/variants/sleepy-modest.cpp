// Suspect below 10x: a third of the instructions (the pairs counted with a
// step of 7 past the first), but it sleeps: a speedup that instructions see
// and wall time does not, at a ratio the old rule never cross-checked.
#include <cstdio>
#include <unistd.h>

long long countPairs(long long N) {
  usleep(300000);
  long long C = 0;
  for (long long I = 1; I <= N; ++I) {
    long long J = I + 1;
    while (J <= N && (I + J) % 7 != 0)
      ++J;
    for (; J <= N; J += 7)
      if ((I + J) % 7 == 0)
        ++C;
  }
  return C;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%lld\n", countPairs(N));
  return 0;
}
