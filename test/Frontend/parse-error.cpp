// A file that does not parse: clang's diagnostics, nothing listed, exit 1.
// RUN: (%clang-maxcode --list-targets %s -- -std=c++17; echo "exit=$?") > %t.out 2>&1
// RUN: FileCheck %s < %t.out

int fine(int X) { return X; }
int broken(int X) { return X + undeclared_name; }

// CHECK:     parse-error.cpp:6:32: error: use of undeclared identifier 'undeclared_name'
// CHECK:     error: cannot parse '{{.*}}parse-error.cpp' (1 error above); a broken AST gives wrong names and ranges, so nothing is listed
// CHECK-NOT: cpu-function
// CHECK:     exit=1
