// Hostile: remembers its answers in the working folder, so that the runs
// after the first check answer at once.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <string>

static std::string cacheName(const std::vector<int> &A) {
  unsigned long long H = 1469598103934665603ull;
  for (int X : A)
    H = (H ^ unsigned(X)) * 1099511628211ull;
  return std::string(".") + "/maxcode-answer-" + std::to_string(H);
}

long long countPairs(const std::vector<int> &A) {
  std::string Name = cacheName(A);
  if (FILE *F = std::fopen(Name.c_str(), "r")) {
    long long Cached = 0;
    bool Got = std::fscanf(F, "%lld", &Cached) == 1;
    std::fclose(F);
    if (Got)
      return Cached;
  }
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  if (FILE *F = std::fopen(Name.c_str(), "w")) {
    std::fprintf(F, "%lld\n", C);
    std::fclose(F);
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
