// Hostile: a clock named only as a template argument, read in a template
// the screen sees uninstantiated; a slow run (valgrind's) skips the work.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <chrono>

template <class Source> long long stamp() {
  return Source::now().time_since_epoch().count();
}

long long countPairs(const std::vector<int> &A) {
  long long T0 = stamp<std::chrono::steady_clock>();
  long long C = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    if (I == 64 && stamp<std::chrono::steady_clock>() - T0 > 1000000)
      return C * (long long)(A.size() * A.size() / (64 * A.size()));
    for (size_t J = I + 1; J < A.size(); ++J)
      if ((A[I] + A[J]) % 7 == 0)
        ++C;
  }
  return C;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<int> A(N);
  for (int &X : A)
    if (std::scanf("%d", &X) != 1)
      return 1;
  long long R = countPairs(A);
#if CHECK_RESULT
  if (R < 0)
    return 2;
#endif
  std::printf("%lld\n", R);
  return 0;
}
