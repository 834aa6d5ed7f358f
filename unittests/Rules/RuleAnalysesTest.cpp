//===-- RuleAnalysesTest.cpp - The analyses the rules decide with ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// isPureFunction, callWritesNothing and hasAliases on small programs parsed
// by Clang: each case that must hold, and each that must not.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Rules/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

constexpr const char *Program = R"cpp(
#include <cmath>
#include <vector>
int g;
const int Limit = 3;
struct Mat {
  double m[2][2];
  double det() const { return m[0][0] * m[1][1] - m[0][1] * m[1][0]; }
  Mat inverse() const {
    Mat r;
    double d = det();
    r.m[0][0] = m[1][1] / d;
    r.m[0][1] = -m[0][1] / d;
    r.m[1][0] = -m[1][0] / d;
    r.m[1][1] = m[0][0] / d;
    return r;
  }
  double counted() const { ++g; return m[0][0]; }
  double readsGlobal() const { return m[0][0] * g; }
  double readsConstant() const { return m[0][0] * Limit; }
  int divides(int d) const { return int(m[0][0]) / d; }
  int dividesByConstant() const { return int(m[0][0]) / 4; }
  double throws() const { if (m[0][0] == 0) throw 1; return m[0][0]; }
  virtual double trace() const { return m[0][0] + m[1][1]; }
  double declared() const;
  int recursive(int n) const { return n ? recursive(n - 1) : 0; }
  double writesThrough(double *p) const { *p = 1; return 0; }
};
void fill(int n, double *out) { for (int i = 0; i < n; ++i) out[i] = std::exp(i * 0.5); }
void fillFirst(double *out, int) { *out = 1; }
void advances(int n, double *out) { for (int i = 0; i < n; ++i) *out++ = i; }
void handsOn(int n, double *out) { fill(n, out); }
void fillsTwo(double *out, double *other) { out[0] = other[0] = 1; }
void fillsAndCounts(int n, double *out) { ++g; out[0] = n; }
void uses(std::vector<int> &v, double x) {
  double a = std::sqrt(x);
  int n = v.size();
  v.push_back(n);
  int k = 0;
  int *p = &k;
  int j = 0;
  (void)a; (void)p; (void)j;
}
void lambdas() {
  int c = 0, d = 0;
  auto reads = [&] { return c + 1; };
  (void)reads; (void)d;
}
void generic() {
  int e = 0;
  auto any = [&](auto x) { return x; };
  (void)any; (void)e;
}
)cpp";

class RuleAnalysesTest : public ::testing::Test {
protected:
  void SetUp() override {
    AST = tooling::buildASTFromCodeWithArgs(
        Program, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR});
    ASSERT_TRUE(AST);
  }
  const FunctionDecl *method(llvm::StringRef Name) {
    auto M = match(cxxMethodDecl(hasName(Name), isDefinition()).bind("f"),
                   AST->getASTContext());
    return M.empty() ? nullptr : M[0].getNodeAs<FunctionDecl>("f");
  }
  const CallExpr *callOf(llvm::StringRef Name) {
    auto M = match(findAll(callExpr(callee(functionDecl(hasName(Name))),
                                    hasAncestor(functionDecl(hasName("uses"))))
                               .bind("c")),
                   AST->getASTContext());
    return M.empty() ? nullptr : M[0].getNodeAs<CallExpr>("c");
  }
  bool pure(llvm::StringRef Name) {
    const FunctionDecl *FD = method(Name);
    return FD && isPureFunction(FD, AST->getASTContext());
  }
  std::unique_ptr<ASTUnit> AST;
};

TEST_F(RuleAnalysesTest, PureFunctions) {
  EXPECT_TRUE(pure("det"));
  // Stores to its own local and calls a pure member.
  EXPECT_TRUE(pure("inverse"));
  EXPECT_TRUE(pure("readsConstant"));
  EXPECT_TRUE(pure("dividesByConstant"));
}

TEST_F(RuleAnalysesTest, ImpureFunctions) {
  EXPECT_FALSE(pure("counted"));       // Writes a global.
  EXPECT_FALSE(pure("readsGlobal"));   // Reads a mutable global.
  EXPECT_FALSE(pure("divides"));       // May trap where it did not run.
  EXPECT_FALSE(pure("throws"));        // May throw.
  EXPECT_FALSE(pure("trace"));         // Virtual: an override may not be.
  EXPECT_FALSE(pure("recursive"));     // Recursion is not followed.
  EXPECT_FALSE(pure("writesThrough")); // Stores through a pointer.
  auto M =
      match(cxxMethodDecl(hasName("declared")).bind("f"), AST->getASTContext());
  ASSERT_FALSE(M.empty());
  // No body in this file.
  EXPECT_FALSE(
      isPureFunction(M[0].getNodeAs<FunctionDecl>("f"), AST->getASTContext()));
}

TEST_F(RuleAnalysesTest, FunctionsThatFillAnArray) {
  // Pure but for the elements of the one pointer parameter named.
  auto Fills = [&](llvm::StringRef Name, unsigned Param) {
    auto M = match(
        functionDecl(hasName(("::" + Name).str()), isDefinition()).bind("f"),
        AST->getASTContext());
    const auto *FD = M.empty() ? nullptr : M[0].getNodeAs<FunctionDecl>("f");
    return FD &&
           isPureFunction(FD, AST->getASTContext(), FD->getParamDecl(Param));
  };
  EXPECT_TRUE(Fills("fill", 1));
  EXPECT_TRUE(Fills("fillFirst", 0));
  EXPECT_FALSE(pure("fill")) << "without the parameter, a store is a store";
  EXPECT_FALSE(Fills("fill", 0));           // Not a pointer.
  EXPECT_FALSE(Fills("advances", 1));       // The pointer itself changes.
  EXPECT_FALSE(Fills("handsOn", 1));        // Handed to another function.
  EXPECT_FALSE(Fills("fillsTwo", 0));       // Stores through another one.
  EXPECT_FALSE(Fills("fillsAndCounts", 1)); // Writes a global as well.
}

TEST_F(RuleAnalysesTest, CallsThatWriteNothing) {
  ASTContext &Ctx = AST->getASTContext();
  const CallExpr *Sqrt = callOf("sqrt");
  const CallExpr *Size = callOf("size");
  const CallExpr *Push = callOf("push_back");
  ASSERT_TRUE(Sqrt && Size && Push);
  EXPECT_TRUE(callWritesNothing(Sqrt, Ctx));
  EXPECT_TRUE(callWritesNothing(Size, Ctx));
  EXPECT_FALSE(callWritesNothing(Push, Ctx));
}

TEST_F(RuleAnalysesTest, Aliases) {
  ASTContext &Ctx = AST->getASTContext();
  auto Var = [&](llvm::StringRef Name) {
    auto M = match(varDecl(hasName(Name)).bind("v"), Ctx);
    return M.empty() ? nullptr : M[0].getNodeAs<VarDecl>("v");
  };
  const FunctionDecl *Uses =
      match(functionDecl(hasName("uses")).bind("f"), Ctx)[0]
          .getNodeAs<FunctionDecl>("f");
  EXPECT_TRUE(hasAliases(Var("k"), Uses->getBody()));
  EXPECT_FALSE(hasAliases(Var("j"), Uses->getBody()));
  // A lambda's default capture by reference aliases what it captures, not
  // every local; a generic one may capture more when instantiated.
  auto Body = [&](llvm::StringRef Name) {
    return match(functionDecl(hasName(Name)).bind("f"), Ctx)[0]
        .getNodeAs<FunctionDecl>("f")
        ->getBody();
  };
  EXPECT_TRUE(hasAliases(Var("c"), Body("lambdas")));
  EXPECT_FALSE(hasAliases(Var("d"), Body("lambdas")));
  EXPECT_TRUE(hasAliases(Var("e"), Body("generic")));
}

} // namespace
