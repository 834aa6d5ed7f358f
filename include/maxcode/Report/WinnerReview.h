//===-- maxcode/Report/WinnerReview.h - What to know of a winner -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a reviewer should know of a verified winner before merging it, as
/// the text summary, the JSON output and the report each show it
/// (docs/Output.md): the size of its diff, what tidying took out, the
/// sanitizers' verdict and the review notes.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_WINNERREVIEW_H
#define MAXCODE_REPORT_WINNERREVIEW_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "maxcode/Rewrite/Review.h"
#include "llvm/Support/JSON.h"
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

struct WinnerReview {
  std::optional<DiffSize> Size;
  std::optional<WinnerTidying> Tidied;
  std::optional<SanitizerVerdict> Sanitizer;
  std::vector<ReviewNote> Notes;
};

/// "+12 -3 lines, 2 new helpers, 1 new #include".
std::string describeSize(const DiffSize &S);

/// "clean", "finding", "not-checked".
llvm::StringRef sanitizerStatusName(const SanitizerVerdict &V);

/// The lines the text summary prints under the diff.
void printWinnerReview(const WinnerReview &R, llvm::raw_ostream &OS);

/// {"size": {...}, "tidying": {...}, "sanitizers": {...}, "review": [...]}
/// fields, each only when known, added to \p O.
void addWinnerReviewJSON(const WinnerReview &R, llvm::json::Object &O);

} // namespace maxcode

#endif // MAXCODE_REPORT_WINNERREVIEW_H
