// Suspect: few instructions, but it sleeps: a speedup that instructions
// see and wall time does not.
#include <cstdio>
#include <unistd.h>

long long countPairs(long long N) {
  usleep(300000);
  long long R[7];
  for (int K = 0; K < 7; ++K)
    R[K] = N / 7 + (K >= 1 && K <= N % 7 ? 1 : 0);
  long long C = R[0] * (R[0] - 1) / 2;
  for (int K = 1; K <= 3; ++K)
    C += R[K] * R[7 - K];
  return C;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%lld\n", countPairs(N));
  return 0;
}
