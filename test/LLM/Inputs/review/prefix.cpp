// For each prefix of the numbers, its sum modulo 1000003, summed: written
// the quadratic way, which a model rewrites as a running sum.
#include <cstdio>
#include <vector>

long long prefixSums(const std::vector<int> &V) {
  long long Total = 0;
  for (size_t I = 0; I < V.size(); ++I) {
    long long S = 0;
    for (size_t J = 0; J <= I; ++J)
      S += V[J];
    Total += S % 1000003;
  }
  return Total;
}

int main() {
  int N;
  if (scanf("%d", &N) != 1)
    return 1;
  std::vector<int> V(N);
  for (int I = 0; I < N; ++I)
    if (scanf("%d", &V[I]) != 1)
      return 1;
  printf("%lld\n", prefixSums(V));
  return 0;
}
