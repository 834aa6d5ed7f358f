// --profile-cmd runs the program under callgrind and ranks the function that
// does the work first, with its measured share.
// REQUIRES: valgrind
// RUN: rm -rf %t && mkdir -p %t
// RUN: g++ -O1 -g -std=c++17 %s -o %t/prog
// RUN: %clang-maxcode --list-targets %s --profile-cmd="%t/prog 3000" -- -std=c++17 | FileCheck %s
// RUN: %clang-maxcode --list-targets --format=json %s --profile-cmd="%t/prog 3000" -- -std=c++17 | FileCheck %s --check-prefix=JSON
// A failing profile command is an error naming it.
// RUN: (%clang-maxcode --list-targets %s --profile-cmd="%t/prog 3000; exit 3" -- -std=c++17; echo "exit=$?") 2>&1 | FileCheck %s --check-prefix=FAIL
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) static void greet() { std::puts("counting"); }

__attribute__((noinline)) static long countPrimes(long N) {
  long Count = 0;
  for (long I = 2; I < N; ++I) {
    bool Prime = true;
    for (long D = 2; D * D <= I; ++D)
      if (I % D == 0) {
        Prime = false;
        break;
      }
    Count += Prime;
  }
  return Count;
}

int main(int argc, char **argv) {
  greet();
  long N = argc > 1 ? std::atol(argv[1]) : 1000;
  std::printf("%ld\n", countPrimes(N));
  return 0;
}

// CHECK:      NAME        KIND                 LOCATION                LOOPS LAUNCHES  SHARE
// CHECK-NEXT: countPrimes cpu-function         profile-cmd.cpp:15-27       2        0 {{[1-9][0-9]\.[0-9]%}}
// CHECK-DAG:  main        cpu-function         profile-cmd.cpp:29-34       0        0 {{[0-9]\.[0-9]%}}
// CHECK-DAG:  greet       cpu-function         profile-cmd.cpp:13-13       0        0 {{[0-9]\.[0-9]%}}
// JSON:      "name": "countPrimes",
// JSON:      "share": 0.{{[1-9]}}
// FAIL: error: profile command '{{.*}}prog 3000; exit 3' exited with code 3
// FAIL: exit=1
