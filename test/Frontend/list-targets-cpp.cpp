// RUN: %clang-maxcode --list-targets %s -- -std=c++17 | FileCheck %s
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 | FileCheck %s --check-prefix=JSON
#include <vector>

static long square(long X) { return X * X; }

template <typename T> T total(const std::vector<T> &V) {
  T S{};
  for (const T &X : V)
    S += X;
  return S;
}

struct Grid {
  long sum() const;
  std::vector<long> Cells;
};

long Grid::sum() const {
  long S = 0;
  for (unsigned long I = 0; I < Cells.size(); ++I)
    for (unsigned long J = 0; J < I; ++J)
      S += square(Cells[J]);
  return S;
}

int main() {
  auto Twice = [](int X) { return 2 * X; };
  Grid G{{1, 2, 3}};
  return int(G.sum() + total(G.Cells) + Twice(1));
}

// Ranked by the static estimate: deepest loops first, then source order.
// CHECK:      NAME      KIND                 LOCATION                  LOOPS LAUNCHES  SHARE
// CHECK-NEXT: Grid::sum cpu-function         list-targets-cpp.cpp:19-25      2        0      -
// CHECK-NEXT: total     cpu-function         list-targets-cpp.cpp:7-12       1        0      -
// CHECK-NEXT: square    cpu-function         list-targets-cpp.cpp:5-5        0        0      -
// CHECK-NEXT: main      cpu-function         list-targets-cpp.cpp:27-31      0        0      -
// CHECK-NOT:  {{.}}

// JSON:      "name": "Grid::sum",
// JSON-NEXT: "kind": "cpu-function",
// JSON-NEXT: "file": "{{.*}}list-targets-cpp.cpp",
// JSON-NEXT: "line": 19,
// JSON-NEXT: "end_line": 25,
// JSON-NEXT: "usr": "c:@S@Grid@F@sum#1",
// JSON-NEXT: "signature": "long Grid::sum() const",
// JSON:      "loop_depth": 2,
// JSON:      "name": "total",
// JSON:      "signature": "template <typename T> T total(const std::vector<T> &V)",
