//===-- OutputCheck.cpp - Tests and output comparison ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/OutputCheck.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>

using namespace maxcode;

/// Natural order: digit runs compare as numbers.
static bool naturalLess(llvm::StringRef A, llvm::StringRef B) {
  size_t I = 0, J = 0;
  while (I < A.size() && J < B.size()) {
    if (llvm::isDigit(A[I]) && llvm::isDigit(B[J])) {
      size_t I2 = I, J2 = J;
      while (I2 < A.size() && llvm::isDigit(A[I2]))
        ++I2;
      while (J2 < B.size() && llvm::isDigit(B[J2]))
        ++J2;
      llvm::StringRef NA = A.slice(I, I2).ltrim('0'),
                      NB = B.slice(J, J2).ltrim('0');
      if (NA.size() != NB.size())
        return NA.size() < NB.size();
      if (NA != NB)
        return NA < NB;
      I = I2;
      J = J2;
      continue;
    }
    if (A[I] != B[J])
      return A[I] < B[J];
    ++I;
    ++J;
  }
  return A.size() - I < B.size() - J;
}

llvm::Expected<std::vector<TestCase>> maxcode::loadTests(llvm::StringRef Dir) {
  if (!llvm::sys::fs::is_directory(Dir))
    return llvm::createStringError("tests folder '" + Dir.str() +
                                   "' does not exist");
  std::vector<TestCase> Tests;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    std::string Expected;
    if (Name.starts_with("input.") && Name.ends_with(".txt"))
      Expected = ("output." + Name.drop_front(6)).str();
    else if (Name.ends_with(".in"))
      Expected = (Name.drop_back(3) + ".out").str();
    else
      continue;
    llvm::SmallString<256> ExpectedPath(Dir);
    llvm::sys::path::append(ExpectedPath, Expected);
    if (!llvm::sys::fs::exists(ExpectedPath))
      return llvm::createStringError("test input '" + It->path() +
                                     "' has no expected output '" + Expected +
                                     "'");
    TestCase T;
    T.Name = Name.str();
    T.InputPath = makeAbsolutePath(It->path());
    T.ExpectedPath = makeAbsolutePath(ExpectedPath);
    uint64_t Size = 0;
    (void)llvm::sys::fs::file_size(T.InputPath, Size);
    T.InputBytes = Size;
    Tests.push_back(std::move(T));
  }
  if (EC)
    return llvm::createStringError("cannot read tests folder '" + Dir.str() +
                                   "': " + EC.message());
  if (Tests.empty())
    return llvm::createStringError(
        "tests folder '" + Dir.str() +
        "' holds no input.N.txt/output.N.txt or NAME.in/NAME.out pairs");
  std::sort(Tests.begin(), Tests.end(), [](const TestCase &A, const TestCase &B) {
    return naturalLess(A.Name, B.Name);
  });
  return Tests;
}

static bool parseNumber(llvm::StringRef Token, double &Value) {
  if (Token.empty())
    return false;
  std::string S = Token.str();
  char *End = nullptr;
  Value = std::strtod(S.c_str(), &End);
  return End == S.c_str() + S.size() && std::isfinite(Value);
}

static bool tokensMatch(llvm::StringRef E, llvm::StringRef A, double Tol) {
  if (E == A)
    return true;
  double X, Y;
  if (!parseNumber(E, X) || !parseNumber(A, Y))
    return false;
  double Diff = std::fabs(X - Y);
  return Diff <= Tol || Diff <= Tol * std::fabs(X);
}

static llvm::SmallVector<llvm::StringRef, 0> significantLines(llvm::StringRef S) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  S.split(Lines, '\n');
  for (llvm::StringRef &L : Lines)
    L = L.rtrim(" \t\r\f\v");
  while (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  return Lines;
}

std::optional<TestFailure> maxcode::compareOutputs(llvm::StringRef Expected,
                                                   llvm::StringRef Actual,
                                                   double Tolerance) {
  auto E = significantLines(Expected), A = significantLines(Actual);
  for (size_t I = 0; I < std::max(E.size(), A.size()); ++I) {
    llvm::StringRef EL = I < E.size() ? E[I] : "", AL = I < A.size() ? A[I] : "";
    bool Same = I < E.size() && I < A.size();
    if (Same) {
      llvm::SmallVector<llvm::StringRef, 8> ET, AT;
      llvm::SplitString(EL, ET);
      llvm::SplitString(AL, AT);
      Same = ET.size() == AT.size();
      for (size_t K = 0; Same && K < ET.size(); ++K)
        Same = tokensMatch(ET[K], AT[K], Tolerance);
    }
    if (!Same) {
      TestFailure F;
      F.Line = I + 1;
      F.Expected = I < E.size() ? EL.str() : "<end of output>";
      F.Actual = I < A.size() ? AL.str() : "<end of output>";
      return F;
    }
  }
  return std::nullopt;
}
