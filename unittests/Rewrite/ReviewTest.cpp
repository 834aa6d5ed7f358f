//===-- ReviewTest.cpp - What a reviewer asks about -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Review.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

clang::tooling::CompileCommand command() {
  clang::tooling::CompileCommand C;
  C.Directory = "/";
  C.Filename = "/review/prog.cpp";
  C.CommandLine = {"g++", "-std=c++17", "/review/prog.cpp"};
  return C;
}

ParseSettings settings() {
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  return S;
}

std::vector<ReviewNote> review(llvm::StringRef Original,
                               llvm::StringRef Winner) {
  auto N =
      reviewWinner(command(), "/review/prog.cpp", settings(), Original, Winner);
  EXPECT_TRUE(bool(N)) << llvm::toString(N.takeError());
  return N ? *N : std::vector<ReviewNote>();
}

const char *Original = R"(#include <cstdio>
#include <cstdlib>
static int Calls = 0;
const int Limit = 10;
double score(const double *X, int N) {
  double *Tmp = (double *)malloc(sizeof(double) * N);
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += Tmp[I] = X[I] * 2;
  free(Tmp);
  ++Calls;
  return S;
}
int main() { double X[3] = {1, 2, 3}; printf("%f\n", score(X, 3)); }
)";

bool has(const std::vector<ReviewNote> &Notes, ReviewKind K,
         llvm::StringRef Text) {
  for (const ReviewNote &N : Notes)
    if (N.Kind == K && llvm::StringRef(N.Text).contains(Text))
      return true;
  return false;
}

TEST(ReviewTest, NewStaticStateAndALeakIntoIt) {
  auto Notes = review(Original, R"(#include <cstdio>
#include <cstdlib>
static int Calls = 0;
const int Limit = 10;
double score(const double *X, int N) {
  static double *Scratch = nullptr;
  static int Capacity = 0;
  static const int Unit = 8;
  if (N > Capacity) {
    Scratch = new double[N];
    Capacity = N;
  }
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += Scratch[I] = X[I] * 2;
  ++Calls;
  return S + Unit * 0;
}
int main() { double X[3] = {1, 2, 3}; printf("%f\n", score(X, 3)); }
)");
  EXPECT_TRUE(has(Notes, ReviewKind::MutableState, "`Scratch`"));
  EXPECT_TRUE(has(Notes, ReviewKind::MutableState, "`Capacity`"));
  EXPECT_FALSE(has(Notes, ReviewKind::MutableState, "`Unit`"))
      << "a const static is not state";
  EXPECT_FALSE(has(Notes, ReviewKind::MutableState, "`Calls`"))
      << "the original's global is not the winner's to answer for";
  EXPECT_TRUE(has(Notes, ReviewKind::Leak, "stored in static `Scratch`"));
}

TEST(ReviewTest, FreedAndOwnedAllocationsAreNoLeak) {
  auto Notes = review(Original, R"(#include <cstdio>
#include <cstdlib>
#include <memory>
static int Calls = 0;
const int Limit = 10;
double score(const double *X, int N) {
  double *Tmp = new double[N];
  std::unique_ptr<double[]> Owned(new double[N]);
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += Tmp[I] = Owned[I] = X[I] * 2;
  delete[] Tmp;
  ++Calls;
  return S;
}
int main() { double X[3] = {1, 2, 3}; printf("%f\n", score(X, 3)); }
)");
  EXPECT_FALSE(has(Notes, ReviewKind::Leak, ""))
      << (Notes.empty() ? std::string() : Notes[0].Text);
}

TEST(ReviewTest, CompilerExtensions) {
  auto Notes = review(Original, R"(#include <cstdio>
#include <cstdlib>
static int Calls = 0;
const int Limit = 10;
__attribute__((noinline)) static int bits(unsigned X) {
  return __builtin_popcount(X);
}
double score(const double *X, int N) {
  double Tmp[N];
  double S = 0;
#pragma GCC unroll 4
  for (int I = 0; I < N; ++I)
    S += Tmp[I] = X[I] * 2;
  ++Calls;
  return S + bits(3) * 0;
}
int main() { double X[3] = {1, 2, 3}; printf("%f\n", score(X, 3)); }
)");
  EXPECT_TRUE(has(Notes, ReviewKind::Extension, "`__attribute__`"));
  EXPECT_TRUE(has(Notes, ReviewKind::Extension, "`__builtin_popcount`"));
  EXPECT_TRUE(has(Notes, ReviewKind::Extension, "variable-length array"));
  EXPECT_TRUE(has(Notes, ReviewKind::Extension, "`#pragma GCC unroll`"));
}

TEST(ReviewTest, TheOriginalHasNoNotes) {
  EXPECT_TRUE(review(Original, Original).empty());
}

} // namespace
