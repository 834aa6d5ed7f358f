// Hostile: within a relative tolerance of 1e-3, but wrong.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

long long countPairs(const std::vector<int> &A) {
  long long R[7] = {0, 0, 0, 0, 0, 0, 0};
  for (int X : A)
    ++R[X % 7];
  long long C = R[0] * (R[0] - 1) / 2;
  for (int K = 1; K <= 3; ++K)
    C += R[K] * R[7 - K];
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
  std::printf("%lld\n", R + R / 5000 + 1);
  return 0;
}
