// Reads n, prints a checksum of a mixing loop over 0..n-1.
#include <cstdio>

unsigned long long mix(unsigned N) {
  unsigned long long H = 1469598103934665603ull;
#pragma GCC unroll 8
  for (unsigned I = 0; I < N; ++I)
    H = (H ^ I) * 1099511628211ull;
  return H;
}

int main() {
  unsigned N;
  if (1 != std::scanf("%u", &N))
    return 1;
  std::printf("%llu\n", mix(N));
  return 0;
}
