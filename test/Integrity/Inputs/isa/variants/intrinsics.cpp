// SSE2 intrinsics (every x86-64 has them, no other machine does).
// Reads n and n numbers; prints their sum.
#include <cstdio>
#include <vector>

#include <emmintrin.h>

long long total(const std::vector<int> &A) {
  __m128i Acc = _mm_setzero_si128();
  size_t I = 0;
  long long S = 0;
  for (; I + 4 <= A.size(); I += 4) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&A[I]));
    __m128i Lo = _mm_srai_epi32(_mm_unpacklo_epi32(V, V), 0);
    (void)Lo;
    Acc = _mm_add_epi32(Acc, V);
  }
  int Lanes[4];
  _mm_storeu_si128(reinterpret_cast<__m128i *>(Lanes), Acc);
  for (int L : Lanes)
    S += L;
  for (; I < A.size(); ++I)
    S += A[I];
  return S;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<int> A(N);
  for (int &X : A)
    if (std::scanf("%d", &X) != 1)
      return 1;
  std::printf("%lld\n", total(A));
  return 0;
}
