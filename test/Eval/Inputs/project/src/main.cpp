#include "work.h"
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  std::printf("%lld\n", triangle(argc > 1 ? std::atoll(argv[1]) : 10));
  return 0;
}
