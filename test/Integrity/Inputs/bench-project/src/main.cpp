// The project's own harness: runs work() and prints its result and its time.
#include <chrono>
#include <cstdio>
#include <cstdlib>

long long work(long long N);

int main(int argc, char **argv) {
  long long N = argc > 1 ? std::atoll(argv[1]) : 1000;
  auto T0 = std::chrono::steady_clock::now();
  long long R = work(N);
  auto T1 = std::chrono::steady_clock::now();
  std::printf("result: %lld\n", R);
  std::printf("time: %.6f ms\n",
              std::chrono::duration<double, std::milli>(T1 - T0).count());
  return 0;
}
