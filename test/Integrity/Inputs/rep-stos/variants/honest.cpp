// Honest: the round's weight computed once per parity, not every round.
#include <cstdio>
#include <cstring>
#include <vector>

long long weight(long long R, long long M) {
  long long W = 0;
  for (long long K = 1; K <= M; ++K)
    W += (K * K + (R & 1)) ^ (K >> 3);
  return W;
}

long long rounds(int Q, int N, int M) {
  std::vector<unsigned char> Buf(N);
  long long S = 0;
  const long long Weight[2] = {weight(0, M), weight(1, M)};
  for (int R = 0; R < Q; ++R) {
    std::memset(Buf.data(), R & 0x7f, Buf.size());
    S += Buf[R % N] + Buf[N - 1 - R % N];
    S += Weight[R & 1];
  }
  return S;
}

int main() {
  int Q, N, M;
  if (std::scanf("%d %d %d", &Q, &N, &M) != 3 || N <= 0)
    return 1;
  std::printf("%lld\n", rounds(Q, N, M));
  return 0;
}
