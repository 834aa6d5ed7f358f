//===-- EvalResult.cpp - What one evaluation found ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/EvalResult.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace maxcode;

llvm::StringRef maxcode::evalStatusName(EvalStatus S) {
  switch (S) {
  case EvalStatus::Ok:
    return "ok";
  case EvalStatus::Unsafe:
    return "unsafe";
  case EvalStatus::WrongOutput:
    return "wrong-output";
  case EvalStatus::Timeout:
    return "timeout";
  case EvalStatus::Crash:
    return "crash";
  case EvalStatus::BuildError:
    return "build-error";
  case EvalStatus::Rejected:
    return "rejected";
  }
  llvm_unreachable("unknown status");
}

std::optional<EvalStatus> maxcode::parseEvalStatus(llvm::StringRef Name) {
  for (EvalStatus S :
       {EvalStatus::Ok, EvalStatus::Unsafe, EvalStatus::WrongOutput,
        EvalStatus::Timeout, EvalStatus::Crash, EvalStatus::BuildError,
        EvalStatus::Rejected})
    if (evalStatusName(S) == Name)
      return S;
  return std::nullopt;
}

llvm::StringRef maxcode::timingSetName(TimingSet S) {
  switch (S) {
  case TimingSet::Feedback:
    return "feedback";
  case TimingSet::HeldOut:
    return "held-out";
  }
  llvm_unreachable("unknown timing set");
}

std::optional<TimingSet> maxcode::parseTimingSet(llvm::StringRef Name) {
  for (TimingSet S : {TimingSet::Feedback, TimingSet::HeldOut})
    if (timingSetName(S) == Name)
      return S;
  return std::nullopt;
}

llvm::StringRef EvalResult::verdict() const {
  if (Suspect)
    return "suspect";
  if (Unverified)
    return "unverified";
  if (Unconfirmed)
    return "unconfirmed";
  return "";
}

double EvalResult::relativeMargin() const {
  return std::max(Noise, RawRatio > 0 ? RatioSpread / RawRatio : 0);
}

bool maxcode::fastOnlyOnShownInputs(const EvalResult &Feedback,
                                    const EvalResult &HeldOut,
                                    double FeedbackInputs,
                                    double HeldOutInputs) {
  // Faster, resolvably, on what the search saw, and not on what it did not
  // (answers remembered, or a fast path keyed on those inputs): nothing
  // resolvable held out, or less than half the feedback speedup in log terms
  // (a 150x remembered answer beside the 1.1x a loaded machine gives an
  // unchanged program). An honest speedup varies with the input far less
  // (1.8x shown, 1.6x held out). The two must also be far apart beyond the
  // noise, and by a quarter at least: one run of a program of milliseconds
  // reads 1.04x on some inputs and 0.85x on others from noise alone.
  double Shown = Feedback.RawRatio, Held = HeldOut.RawRatio;
  double Margin = std::max(Feedback.relativeMargin(), HeldOut.relativeMargin());
  bool FarLess = Feedback.Ratio > 1 && Shown >= 1.1 && Held > 0 &&
                 Shown / Held > 1 + std::max(2 * Margin, 0.25) &&
                 (HeldOut.Ratio <= 1 || std::log(Held) < 0.5 * std::log(Shown));
  if (!FarLess || Feedback.BaselineCost <= 0 || HeldOut.BaselineCost <= 0)
    return FarLess;
  double SavedShown =
      (Feedback.BaselineCost - Feedback.VariantCost) / FeedbackInputs;
  double SavedHeld =
      (HeldOut.BaselineCost - HeldOut.VariantCost) / HeldOutInputs;
  return SavedHeld < 0.5 * SavedShown;
}

std::string maxcode::formatCost(double Cost, llvm::StringRef Unit) {
  if (Unit == "seconds")
    return llvm::formatv("{0:f4} s", Cost).str();
  if (Unit == "gpu-ns")
    return llvm::formatv("{0:f0} ns of GPU time", Cost).str();
  return llvm::formatv("{0:f0} {1}", Cost, Unit.empty() ? "units" : Unit).str();
}
