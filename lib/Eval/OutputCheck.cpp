//===-- OutputCheck.cpp - Tests and output comparison ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/OutputCheck.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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
  std::sort(Tests.begin(), Tests.end(),
            [](const TestCase &A, const TestCase &B) {
              return naturalLess(A.Name, B.Name);
            });
  return Tests;
}

namespace {
enum class TokenKind { Integer, Decimal, Other };

/// PIE's rule, made exact where exact (DESIGN section 4, rule 6): integers
/// are words, compared as such; only a token written with a decimal point
/// or an exponent is a number within a tolerance. Hex, inf and nan are
/// words too.
TokenKind classify(llvm::StringRef T) {
  llvm::StringRef Body = T;
  Body.consume_front("-") || Body.consume_front("+");
  if (Body.empty())
    return TokenKind::Other;
  size_t Digits = 0, Point = 0, I = 0;
  for (; I < Body.size(); ++I) {
    char C = Body[I];
    if (llvm::isDigit(C))
      ++Digits;
    else if (C == '.' && !Point)
      ++Point;
    else
      break;
  }
  if (!Digits)
    return TokenKind::Other;
  bool Exponent = false;
  if (I < Body.size() && (Body[I] == 'e' || Body[I] == 'E')) {
    llvm::StringRef E = Body.drop_front(I + 1);
    E.consume_front("-") || E.consume_front("+");
    if (E.empty() || !llvm::all_of(E, llvm::isDigit))
      return TokenKind::Other;
    Exponent = true;
    I = Body.size();
  }
  if (I != Body.size())
    return TokenKind::Other;
  return Point || Exponent ? TokenKind::Decimal : TokenKind::Integer;
}

bool tokensMatch(llvm::StringRef E, llvm::StringRef A, double Tol) {
  if (E == A)
    return true;
  if (classify(E) != TokenKind::Decimal || classify(A) == TokenKind::Other)
    return false;
  double X, Y;
  if (!llvm::to_float(E, X) || !llvm::to_float(A, Y) || !std::isfinite(X) ||
      !std::isfinite(Y))
    return false;
  // The bound gets a billionth of itself for the rounding of the
  // subtraction: "0.123457" against "0.123456" differs by one millionth
  // printed, a hair more in doubles.
  double Diff = std::fabs(X - Y);
  return Diff <= Tol * std::max(1.0, std::fabs(X)) * (1 + 1e-9);
}

/// Lines one at a time, trailing white space dropped; the trailing empty
/// lines of a text count as its end.
class LineReader {
public:
  explicit LineReader(llvm::StringRef S) : Rest(S) {}
  /// The next line, or nothing at the end (only empty lines left).
  std::optional<llvm::StringRef> next() {
    if (Rest.find_first_not_of(" \t\r\f\v\n") == llvm::StringRef::npos)
      return std::nullopt;
    auto [Line, After] = Rest.split('\n');
    Rest = After;
    return Line.rtrim(" \t\r\f\v");
  }

private:
  llvm::StringRef Rest;
};
} // namespace

std::optional<TestFailure> maxcode::compareOutputs(llvm::StringRef Expected,
                                                   llvm::StringRef Actual,
                                                   double Tolerance) {
  // Far more output than expected is wrong whatever it holds: no need to
  // read all of it.
  if (Actual.size() > 4 * Expected.size() + (1u << 20)) {
    TestFailure F;
    F.Detail = "printed " + std::to_string(Actual.size()) + " bytes where " +
               std::to_string(Expected.size()) + " were expected";
    return F;
  }
  LineReader E(Expected), A(Actual);
  for (unsigned Line = 1;; ++Line) {
    std::optional<llvm::StringRef> EL = E.next(), AL = A.next();
    if (!EL && !AL)
      return std::nullopt;
    bool Same = EL && AL;
    if (Same) {
      llvm::SmallVector<llvm::StringRef, 8> ET, AT;
      llvm::SplitString(*EL, ET);
      llvm::SplitString(*AL, AT);
      Same = ET.size() == AT.size();
      for (size_t K = 0; Same && K < ET.size(); ++K)
        Same = tokensMatch(ET[K], AT[K], Tolerance);
    }
    if (!Same) {
      TestFailure F;
      F.Line = Line;
      F.Expected = EL ? EL->str() : "<end of output>";
      F.Actual = AL ? AL->str() : "<end of output>";
      return F;
    }
  }
}

namespace {
/// A decimal token's mantissa and exponent: "1.50e-4" is "1.50" and -4.
std::pair<llvm::StringRef, int> splitExponent(llvm::StringRef T) {
  size_t E = T.find_first_of("eE");
  if (E == llvm::StringRef::npos)
    return {T, 0};
  int Scale = 0;
  (void)llvm::to_integer(T.drop_front(E + 1), Scale);
  return {T.take_front(E), Scale};
}

/// One unit in the last place \p T (a decimal token) prints: 0.001 for
/// "3.142", 1e-5 for "1.5e-4".
double lastPlace(llvm::StringRef T) {
  auto [Mantissa, Scale] = splitExponent(T);
  size_t Point = Mantissa.find('.');
  int Decimals =
      Point == llvm::StringRef::npos ? 0 : int(Mantissa.size() - Point - 1);
  return std::pow(10.0, double(Scale - Decimals));
}

/// The significant digits \p T prints: 4 for "0.002500", 3 for "1.50e-4",
/// 0 for a zero ("0.000").
unsigned significantDigits(llvm::StringRef T) {
  llvm::StringRef Digits = splitExponent(T).first;
  Digits.consume_front("-") || Digits.consume_front("+");
  unsigned N = 0;
  bool Leading = true;
  for (char C : Digits) {
    if (!llvm::isDigit(C) || (Leading && C == '0'))
      continue;
    Leading = false;
    ++N;
  }
  return N;
}

/// Whether \p Mine prints the value at least as precisely as \p Base: as
/// many significant digits, or, for a zero, as fine a last place.
bool asPrecise(llvm::StringRef Mine, llvm::StringRef Base) {
  unsigned B = significantDigits(Base);
  if (B == 0)
    return lastPlace(Mine) <= lastPlace(Base) * (1 + 1e-9);
  return significantDigits(Mine) >= B;
}

/// The tokens of \p Output's lines, line by line.
std::vector<llvm::SmallVector<llvm::StringRef, 8>>
tokenLines(llvm::StringRef Output) {
  std::vector<llvm::SmallVector<llvm::StringRef, 8>> Out;
  LineReader R(Output);
  while (std::optional<llvm::StringRef> L = R.next()) {
    Out.emplace_back();
    llvm::SplitString(*L, Out.back());
  }
  return Out;
}
} // namespace

bool maxcode::hasDecimalTokens(llvm::StringRef Output) {
  llvm::SmallVector<llvm::StringRef, 64> Tokens;
  llvm::SplitString(Output, Tokens);
  return llvm::any_of(Tokens, [](llvm::StringRef T) {
    return classify(T) == TokenKind::Decimal;
  });
}

std::optional<TestFailure>
maxcode::compareWithBaseline(llvm::ArrayRef<std::string> BaselineRuns,
                             llvm::StringRef Actual, double Tolerance) {
  if (BaselineRuns.empty())
    return std::nullopt;
  std::vector<std::vector<llvm::SmallVector<llvm::StringRef, 8>>> Runs;
  for (const std::string &B : BaselineRuns)
    Runs.push_back(tokenLines(B));
  auto Mine = tokenLines(Actual);
  const auto &First = Runs.front();
  // Shapes that differ were judged by the expected output alone.
  if (Mine.size() != First.size())
    return std::nullopt;
  for (size_t L = 0; L < Mine.size(); ++L) {
    if (Mine[L].size() != First[L].size())
      return std::nullopt;
    for (size_t K = 0; K < Mine[L].size(); ++K) {
      llvm::StringRef A = Mine[L][K], B = First[L][K];
      if (A == B || classify(B) != TokenKind::Decimal ||
          classify(A) == TokenKind::Other)
        continue;
      double X, Y;
      if (!llvm::to_float(B, X) || !llvm::to_float(A, Y) || !std::isfinite(X) ||
          !std::isfinite(Y))
        continue;
      // What the baseline's own runs allow: their spread here.
      double Spread = 0;
      for (const auto &R : Runs) {
        double Z;
        if (L < R.size() && K < R[L].size() && llvm::to_float(R[L][K], Z))
          Spread = std::max(Spread, std::fabs(Z - X));
      }
      TestFailure F;
      F.Line = unsigned(L + 1);
      F.Expected = B.str();
      F.Actual = A.str();
      // Fewer digits would widen what is accepted by the variant's own
      // choice: pi to 7 digits where the program prints 13 passes any
      // bound written in the variant's last place.
      if (!asPrecise(A, B)) {
        F.Detail = llvm::formatv("printed to {0} significant digits where the "
                                 "unmodified program prints {1} ({2})",
                                 significantDigits(A), significantDigits(B), B)
                       .str();
        return F;
      }
      double Allowed = std::max(
          {2 * Spread,
           std::min(lastPlace(B), Tolerance * std::max(1.0, std::fabs(X))),
           1e-12 * std::fabs(X)});
      double Diff = std::fabs(X - Y);
      if (Diff <= Allowed * (1 + 1e-9))
        continue;
      F.Detail = llvm::formatv("{0:e1} from the unmodified program's {1}, "
                               "whose own runs differ by {2:e1}",
                               Diff, B, Spread)
                     .str();
      return F;
    }
  }
  return std::nullopt;
}
