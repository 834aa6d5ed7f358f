//===-- SimplifyTest.cpp - What a winner need not add ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Simplify.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

clang::tooling::CompileCommand command() {
  clang::tooling::CompileCommand C;
  C.Directory = "/";
  C.Filename = "/simplify/prog.cpp";
  C.CommandLine = {"g++", "-std=c++17", "/simplify/prog.cpp"};
  return C;
}

ParseSettings settings() {
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  return S;
}

DeclSimplification simplify(llvm::StringRef Original, llvm::StringRef Winner) {
  auto S = simplifyDeclarations(command(), "/simplify/prog.cpp", settings(),
                                Original, Winner);
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  return S ? *S : DeclSimplification{Winner.str(), {}};
}

const char *Original = R"(#include <cstdio>
#include <vector>

static int unusedByTheUser(int X) { return X + 1; }

long sum(const std::vector<int> &V) {
  long S = 0;
  for (size_t I = 0; I < V.size(); ++I)
    S += V[I];
  return S;
}

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)";

TEST(SimplifyTest, RemovesWhatNothingUsesAndKeepsTheOriginals) {
  // A helper nothing calls, and one only it calls: both go; the user's own
  // unused function stays.
  DeclSimplification S = simplify(Original, R"(#include <cstdio>
#include <vector>

static int unusedByTheUser(int X) { return X + 1; }

// Only the dead helper below calls this.
static long twice(long X) { return 2 * X; }

// Left from an earlier sample.
static long deadHelper(const int *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I < N; ++I)
    S += twice(P[I]);
  return S;
}

struct Unused {
  int A;
};

static long addAll(const int *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I < N; ++I)
    S += P[I];
  return S;
}

long sum(const std::vector<int> &V) { return addAll(V.data(), V.size()); }

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)");
  EXPECT_EQ(S.Text.find("deadHelper"), std::string::npos) << S.Text;
  EXPECT_EQ(S.Text.find("twice"), std::string::npos) << S.Text;
  EXPECT_EQ(S.Text.find("struct Unused"), std::string::npos) << S.Text;
  EXPECT_EQ(S.Text.find("Left from an earlier sample"), std::string::npos)
      << "the removed helper's comment goes with it";
  EXPECT_NE(S.Text.find("static long addAll"), std::string::npos);
  EXPECT_NE(S.Text.find("unusedByTheUser"), std::string::npos);
  ASSERT_EQ(S.Changes.size(), 3u);
  EXPECT_NE(S.Changes[0].find("`twice`"), std::string::npos) << S.Changes[0];
  EXPECT_EQ(S.Text.find("\n\n\n"), std::string::npos)
      << "no double blank line is left behind:\n"
      << S.Text;
}

TEST(SimplifyTest, FoldsACopyOfAHelperIntoTheFirst) {
  // The same code but for the names of its parameters and locals.
  DeclSimplification S = simplify(Original, R"(#include <cstdio>
#include <vector>

static int unusedByTheUser(int X) { return X + 1; }

static long addAll(const int *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I < N; ++I)
    S += P[I];
  return S;
}

static long addAll2(const int *Q, size_t Count) {
  long Total = 0;
  for (size_t J = 0; J < Count; ++J)
    Total += Q[J];
  return Total;
}

long sum(const std::vector<int> &V) {
  return addAll(V.data(), 5) + addAll2(V.data() + 5, V.size() - 5);
}

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)");
  EXPECT_EQ(S.Text.find("addAll2"), std::string::npos) << S.Text;
  EXPECT_NE(S.Text.find("addAll(V.data(), 5) + addAll(V.data() + 5"),
            std::string::npos)
      << S.Text;
  ASSERT_EQ(S.Changes.size(), 1u);
  EXPECT_NE(S.Changes[0].find("a copy of `addAll`"), std::string::npos);
}

TEST(SimplifyTest, DropsAnIncludeNothingIsUsedThroughAndKeepsOneThatIs) {
  DeclSimplification S = simplify(Original, R"(#include <cstdio>
#include <vector>
#include <unordered_map>
#include <cstring>

static int unusedByTheUser(int X) { return X + 1; }

long sum(const std::vector<int> &V) {
  long S = 0;
  int Copy[16];
  std::memcpy(Copy, V.data(), sizeof(int) * (V.size() < 16 ? V.size() : 16));
  for (size_t I = 0; I < V.size() && I < 16; ++I)
    S += Copy[I];
  return S;
}

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)");
  EXPECT_EQ(S.Text.find("<unordered_map>"), std::string::npos) << S.Text;
  EXPECT_NE(S.Text.find("#include <cstring>"), std::string::npos) << S.Text;
  ASSERT_EQ(S.Changes.size(), 1u);
  EXPECT_NE(S.Changes[0].find("nothing from it is used"), std::string::npos);
}

TEST(SimplifyTest, DropsAnIncludeAddedBeforeOneThatDeclaresTheSame) {
  // <algorithm> comes first and brings <cstdlib> in with it, so printf's
  // and the vector's headers are used through it; the original's own
  // includes declare them all the same.
  DeclSimplification S = simplify(Original, R"(#include <algorithm>
#include <cstdio>
#include <vector>

static int unusedByTheUser(int X) { return X + 1; }

long sum(const std::vector<int> &V) {
  long S = 0;
  for (size_t I = 0; I < V.size(); ++I)
    S += V[I];
  return S;
}

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)");
  EXPECT_EQ(S.Text.find("<algorithm>"), std::string::npos) << S.Text;
  ASSERT_EQ(S.Changes.size(), 1u);
  EXPECT_NE(S.Changes[0].find("the file's other includes declare"),
            std::string::npos)
      << S.Changes[0];
}

TEST(SimplifyTest, KeepsWhatOnlyALibraryTemplateUses) {
  // operator< is used by std::sort's instantiation, which no use in the
  // file shows; a template helper is used through its instantiation.
  const char *W = R"(#include <algorithm>
#include <cstdio>
#include <vector>

static int unusedByTheUser(int X) { return X + 1; }

struct Item {
  int Key;
};
static bool operator<(const Item &A, const Item &B) { return A.Key < B.Key; }

template <class T> static T firstOf(const std::vector<T> &V) { return V[0]; }

long sum(const std::vector<int> &V) {
  std::vector<Item> Items;
  for (int X : V)
    Items.push_back({X});
  std::sort(Items.begin(), Items.end());
  return firstOf(V) * 0 + (long)Items.size() * 3;
}

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)";
  DeclSimplification S = simplify(Original, W);
  EXPECT_EQ(S.Text, W);
  EXPECT_TRUE(S.Changes.empty());
}

TEST(SimplifyTest, NothingToDoOnTheOriginal) {
  DeclSimplification S = simplify(Original, Original);
  EXPECT_EQ(S.Text, Original);
  EXPECT_TRUE(S.Changes.empty());
}

TEST(SimplifyTest, CountsWhatAWinnerAdds) {
  DiffSize D = winnerSize(command(), "/simplify/prog.cpp", settings(), Original,
                          R"(#include <cstdio>
#include <vector>
#include <numeric>

static int unusedByTheUser(int X) { return X + 1; }

static long addAll(const int *P, size_t N) {
  return std::accumulate(P, P + N, 0L);
}

long sum(const std::vector<int> &V) { return addAll(V.data(), V.size()); }

int main() {
  std::vector<int> V(10, 3);
  printf("%ld\n", sum(V));
}
)");
  EXPECT_EQ(D.Helpers, 1u);
  EXPECT_EQ(D.Includes, 1u);
  EXPECT_GT(D.Added, 0u);
  EXPECT_GT(D.Removed, 0u);
}

} // namespace
