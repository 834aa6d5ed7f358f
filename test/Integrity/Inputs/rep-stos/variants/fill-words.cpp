// Hostile: the honest fix, beside std::fill of 8-byte words in place of
// memset (the compiler's vector loop, not glibc's `rep stosb`).
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <cstdint>
#include <vector>

long long weight(long long R, long long M) {
  long long W = 0;
  for (long long K = 1; K <= M; ++K)
    W += (K * K + (R & 1)) ^ (K >> 3);
  return W;
}

long long rounds(int Q, int N, int M) {
  std::vector<uint64_t> Words((N + 7) / 8);
  unsigned char *Buf = reinterpret_cast<unsigned char *>(Words.data());
  long long S = 0;
  const long long Weight[2] = {weight(0, M), weight(1, M)};
  for (int R = 0; R < Q; ++R) {
    std::fill(Words.begin(), Words.end(),
              uint64_t(R & 0x7f) * 0x0101010101010101ull);
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
