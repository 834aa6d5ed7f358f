// Reads how many values to make; prints how many windows of 8 have a mean
// above 0.5.
#include "stats.h"
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char **argv) {
  long long N = argc > 1 ? std::atoll(argv[1]) : 1000;
  std::string Text;
  unsigned long long X = 12345;
  for (long long I = 0; I < N; ++I) {
    X = X * 6364136223846793005ull + 1442695040888963407ull;
    Text += std::to_string(double(X >> 11) / double(1ull << 53)) + " ";
  }
  std::printf("%lld\n", windowsAbove(parseNumbers(Text), 8, 0.5));
  return 0;
}
