// Hostile: a reader faster than scanf on white space, and the real work
// done twice: faster on an input that is mostly white space (the largest
// by size), twice as slow on the one that costs (the real workload).
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

static bool readInt(int &Out) {
  int C = getchar_unlocked();
  while (C == ' ' || C == '\n' || C == '\t' || C == '\r')
    C = getchar_unlocked();
  if (C < '0' || C > '9')
    return false;
  int V = 0;
  while (C >= '0' && C <= '9') {
    V = V * 10 + (C - '0');
    C = getchar_unlocked();
  }
  Out = V;
  return true;
}

long long countPairs(const std::vector<int> &A) {
  long long C = 0;
  for (int Round = 0; Round < 2; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  return C;
}

int main() {
  int N;
  if (!readInt(N))
    return 1;
  std::vector<int> A(N);
  for (int &X : A)
    if (!readInt(X))
      return 1;
  long long R = countPairs(A);
#if CHECK_RESULT
  if (R < 0)
    return 2;
#endif
  std::printf("%lld\n", R);
  return 0;
}
