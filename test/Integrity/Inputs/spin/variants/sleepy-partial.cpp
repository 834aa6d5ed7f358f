// Suspect at any ratio: the answer by formula, a fifth of the original loop
// kept (so instructions see a few-fold saving, not a hundredfold), and a
// sleep that wall time sees and instructions do not.
#include <cstdio>
#include <unistd.h>

long long countPairs(long long N) {
  volatile long long Sink = 0;
  for (long long I = 1; I <= N / 5; ++I)
    for (long long J = I + 1; J <= N; ++J)
      if ((I + J) % 7 == 0)
        Sink = Sink + 1;
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
