//===-- maxcode/Eval/OutputCheck.h - Tests and output comparison -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Program mode's tests: a folder of input.N.txt/output.N.txt pairs (PIE's
/// layout) or NAME.in/NAME.out pairs, and PIE's comparison rule: line by
/// line, tokens equal, numbers within a tolerance.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_OUTPUTCHECK_H
#define MAXCODE_EVAL_OUTPUTCHECK_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Support/Options.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

struct TestCase {
  std::string Name;         ///< The input's file name.
  std::string InputPath;    ///< Fed on stdin.
  std::string ExpectedPath; ///< Never visible to the program.
  uint64_t InputBytes = 0;
};

/// Lists the test pairs in \p Dir, in natural order (input.2 before
/// input.10). A folder with no pairs, or an input without its output, is an
/// error naming it.
llvm::Expected<std::vector<TestCase>> loadTests(llvm::StringRef Dir);

/// The default tolerance of decimal tokens (`--tolerance`, its row): one
/// part in a million. 1e-3 let an approximation pass for the answer (22/7
/// for pi, a series cut a thousandfold); six printed decimals still pass a
/// change in the last one, as a reordered floating-point sum gives.
inline const double DefaultTolerance = optdefault::Tolerance;

/// Compares \p Actual with \p Expected: lines compared in order, trailing
/// white space and trailing empty lines ignored, tokens equal; a token of the
/// expected output written with a decimal point or an exponent also matches
/// a number within \p Tolerance relative to the expected value X, or within
/// \p Tolerance itself where |X| < 1 (near 0 a relative bound would admit
/// nothing but the exact digits). Integers, hex and words compare exactly.
/// Returns the first difference, or nothing when they match.
std::optional<TestFailure> compareOutputs(llvm::StringRef Expected,
                                          llvm::StringRef Actual,
                                          double Tolerance = DefaultTolerance);

/// Whether \p Output holds a token written with a decimal point or an
/// exponent (one compared within a tolerance).
bool hasDecimalTokens(llvm::StringRef Output);

/// Compares \p Actual, an output that matched the expected one, with what
/// the unmodified program printed for the same input (\p BaselineRuns, one
/// output per run; DESIGN section 4, rule 6). Each decimal token is held to
/// the baseline's precision, never the variant's: it prints at least the
/// baseline's significant digits, and differs from the baseline's value by
/// no more than one unit in the baseline's last place or \p Tolerance
/// (relative, absolute below 1), whichever is tighter; twice what the
/// baseline's own runs differ by, and 1e-12 of the value (a reordered
/// floating-point sum), are always allowed. An approximation inside the
/// tolerance (a series cut short, a coarser constant, fewer digits printed)
/// fails. Returns the first such difference (Detail says why), or nothing.
std::optional<TestFailure>
compareWithBaseline(llvm::ArrayRef<std::string> BaselineRuns,
                    llvm::StringRef Actual,
                    double Tolerance = DefaultTolerance);

} // namespace maxcode

#endif // MAXCODE_EVAL_OUTPUTCHECK_H
