// Honest: residues counted with a std::map and the answer printed through
// std::cout; its program imports more of the C++ library than the
// original's, none of it a clock or a view of the run.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <iostream>
#include <map>

long long countPairs(const std::vector<int> &A) {
  std::map<int, long long> R;
  for (int X : A)
    ++R[X % 7];
  long long C = R[0] * (R[0] - 1) / 2;
  for (int K = 1; K <= 3; ++K)
    C += R[K] * R[7 - K];
  std::cout << std::flush;
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
