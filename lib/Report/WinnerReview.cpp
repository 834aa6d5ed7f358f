//===-- WinnerReview.cpp - What to know of a winner -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/WinnerReview.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

std::string maxcode::describeSize(const DiffSize &S) {
  std::string Out = llvm::formatv("+{0} -{1} lines", S.Added, S.Removed).str();
  if (S.Helpers)
    Out += llvm::formatv(", {0} new declaration{1}", S.Helpers,
                         S.Helpers == 1 ? "" : "s")
               .str();
  if (S.Includes)
    Out += llvm::formatv(", {0} new #include{1}", S.Includes,
                         S.Includes == 1 ? "" : "s")
               .str();
  return Out;
}

llvm::StringRef maxcode::sanitizerStatusName(const SanitizerVerdict &V) {
  switch (V.Kind) {
  case SanitizerVerdict::Clean:
    return "clean";
  case SanitizerVerdict::Finding:
    return "finding";
  case SanitizerVerdict::NotChecked:
    return "not-checked";
  }
  llvm_unreachable("unknown verdict");
}

void maxcode::printWinnerReview(const WinnerReview &R, llvm::raw_ostream &OS) {
  if (R.Size)
    OS << "size: " << describeSize(*R.Size) << "\n";
  if (const std::optional<WinnerTidying> &T = R.Tidied) {
    if (!T->HintsOutcome.empty())
      OS << "hints: " << T->HintsOutcome << "\n";
    if (!T->Removed.empty()) {
      OS << "tidied: " << T->DeclOutcome << "\n";
      for (const std::string &Why : T->Removed)
        OS << "  removed " << Why << "\n";
    }
    if (!T->ModelOutcome.empty())
      OS << "plainer: " << T->ModelOutcome << "\n";
  }
  if (const std::optional<SanitizerVerdict> &S = R.Sanitizer) {
    unsigned Own = S->Tests - S->DerivedInputs;
    if (S->Kind == SanitizerVerdict::Clean)
      OS << llvm::formatv(
          "sanitizers: no finding on {0} test{1}{3} "
          "(AddressSanitizer, UndefinedBehaviorSanitizer){2}\n",
          Own, Own == 1 ? "" : "s",
          S->SkippedTests ? llvm::formatv("; {0} left out, where the "
                                          "original has a finding",
                                          S->SkippedTests)
                                .str()
                          : std::string(),
          S->DerivedInputs
              ? llvm::formatv(" and {0} derived input{1}", S->DerivedInputs,
                              S->DerivedInputs == 1 ? "" : "s")
                    .str()
              : std::string());
    else
      OS << "sanitizers: not checked: " << S->Detail << "\n";
  }
  for (const ReviewNote &N : R.Notes)
    OS << "review: " << N.Text << "\n";
}

void maxcode::addWinnerReviewJSON(const WinnerReview &R,
                                  llvm::json::Object &O) {
  if (R.Size)
    O["size"] = llvm::json::Object{{"added", R.Size->Added},
                                   {"removed", R.Size->Removed},
                                   {"new_declarations", R.Size->Helpers},
                                   {"new_includes", R.Size->Includes}};
  if (const std::optional<WinnerTidying> &T = R.Tidied) {
    llvm::json::Object TO{{"removed", T->Removed}, {"outcome", T->DeclOutcome}};
    if (!T->HintsOutcome.empty())
      TO["hints_outcome"] = T->HintsOutcome;
    if (!T->ModelOutcome.empty()) {
      TO["model_outcome"] = T->ModelOutcome;
      TO["model_kept"] = T->ModelKept;
    }
    O["tidying"] = std::move(TO);
  }
  if (const std::optional<SanitizerVerdict> &S = R.Sanitizer) {
    llvm::json::Object SO{{"status", sanitizerStatusName(*S)},
                          {"tests", S->Tests - S->DerivedInputs},
                          {"skipped_tests", S->SkippedTests},
                          {"derived_inputs", S->DerivedInputs}};
    if (!S->Detail.empty())
      SO["detail"] = S->Detail;
    O["sanitizers"] = std::move(SO);
  }
  llvm::json::Array Notes;
  for (const ReviewNote &N : R.Notes)
    Notes.push_back(llvm::json::Object{
        {"kind", reviewKindName(N.Kind)}, {"line", N.Line}, {"text", N.Text}});
  O["review"] = std::move(Notes);
}
