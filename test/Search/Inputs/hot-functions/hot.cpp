// Hot functions: main, the hottest by self cost, which the test's rule
// (const-ref-param) cannot change, then total, whose vector is copied for
// every call, then spin.
#include <cstdio>
#include <vector>

unsigned long long spin(unsigned N) {
  unsigned long long H = 1469598103934665603ull;
  for (unsigned I = 0; I < N; ++I)
    H = (H ^ I) * 1099511628211ull;
  return H;
}

long long total(std::vector<long long> Values, int Count) {
  long long Sum = 0;
  for (int I = 0; I < Count; ++I)
    Sum += Values[I];
  return Sum;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<long long> A(N);
  for (int I = 0; I < N; ++I)
    A[I] = I % 7;
  long long Out = 0;
  for (int P = 1; P <= 100; ++P)
    Out += total(A, N - P);
  std::printf("%llu %lld\n", spin(40 * N), Out);
  return 0;
}
