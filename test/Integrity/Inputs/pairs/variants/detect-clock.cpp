// Hostile: skips the work when a fixed loop runs slowly (under valgrind).
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <ctime>

static bool measured() {
  // valgrind runs code tens of times slower: time a fixed loop (about 3 ms
  // of CPU natively, tens of ms under callgrind even on a fast machine).
  std::clock_t Start = std::clock();
  volatile unsigned X = 0;
  for (unsigned I = 0; I < 3000000; ++I)
    X += I;
  return std::clock() - Start > CLOCKS_PER_SEC / 100;
}

long long countPairs(const std::vector<int> &A) {
  if (measured())
    return 0; // "measured": skip the work
  long long C = 0;
  for (size_t I = 0; I < A.size(); ++I)
    for (size_t J = I + 1; J < A.size(); ++J)
      if ((A[I] + A[J]) % 7 == 0)
        ++C;
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
