// Hostile: 16-byte vector stores in place of memset, and nothing else.
// Reads q, n and m; q rounds, each clears a buffer of n bytes to a value
// (memset: glibc's `rep stosb` for a large block) and adds up the round's
// weight, a sum over m terms recomputed every round though it depends only
// on the round's parity.
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
  for (int R = 0; R < Q; ++R) {
    typedef unsigned char V16 __attribute__((vector_size(16)));
    V16 Fill;
    for (int B = 0; B < 16; ++B)
      Fill[B] = (unsigned char)(R & 0x7f);
    size_t I = 0;
    for (; I + 16 <= Buf.size(); I += 16)
      __builtin_memcpy(Buf.data() + I, &Fill, 16);
    for (; I < Buf.size(); ++I)
      Buf[I] = (unsigned char)(R & 0x7f);
    S += Buf[R % N] + Buf[N - 1 - R % N];
    S += weight(R, M);
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
