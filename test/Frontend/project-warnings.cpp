// The project's own warnings are its build's business: reading a file
// prints none of them (a real project's brace-style warning was printed by
// every run). An error, which blocks what it touches, is shown with its
// note.
// RUN: %clang-maxcode --list-targets %s -- -std=c++17 -Wall -Wextra -Wmissing-braces 2> %t.err | FileCheck %s
// RUN: count 0 < %t.err
// RUN: %clang-maxcode --list-targets %s -- -std=c++17 -Wall -DBROKEN 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %clang-maxcode --list-targets %s -- -std=c++17 -Wall -DBROKEN 2>&1 | not grep -e 'warning:'
struct Pair {
  int A[2];
  int B;
};

int unusedAndBraces(int X) {
  int Unused = 3;
  Pair P = {1, 2, 3};
  return P.B + X;
}

#ifdef BROKEN
int broken(int X) { return undeclared(X); }
#endif

// CHECK: unusedAndBraces
// ERR: project-warnings.cpp:[[@LINE-4]]:28: error: use of undeclared identifier 'undeclared'
