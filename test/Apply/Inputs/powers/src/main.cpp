// The program of run-clang-maxcode.test: sums of cubes and fourth powers,
// each in a translation unit of its own.
#include <cstdio>
#include <vector>

double sumOfCubes(const double *V, int N);
double sumOfFourthPowers(const double *V, int N);

int main() {
  int N = 0;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<double> V;
  for (int I = 0; I < N; ++I)
    V.push_back(I % 50);
  double Cubes = 0, Fourth = 0;
  for (int R = 0; R < 10; ++R) {
    Cubes += sumOfCubes(V.data(), N);
    Fourth += sumOfFourthPowers(V.data(), N);
  }
  std::printf("%.0f %.0f\n", Cubes, Fourth);
  return 0;
}
