//===-- EvalOutput.cpp - Printing an evaluation ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Report/TargetList.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

void maxcode::printIntegrityLine(llvm::StringRef Integrity,
                                 llvm::raw_ostream &OS) {
  if (Integrity != "full")
    OS << "integrity: " << Integrity
       << ": runs shared the machine, its files and its kernel state with "
          "you and with each other (docs/Security.md)\n";
}

void maxcode::printEvaluationText(const EvalResult &R, const Target &T,
                                  llvm::StringRef VariantName,
                                  llvm::StringRef Integrity,
                                  llvm::raw_ostream &OS) {
  OS << "target: " << T.Name << "\n";
  OS << "status: " << evalStatusName(R.Status) << "\n";
  if (!R.Reason.empty())
    OS << "reason: " << R.Reason << "\n";
  if (R.Status == EvalStatus::Ok) {
    OS << llvm::formatv("ratio: {0:f3}x", R.Ratio);
    // What the credit is short of, in the words of the rule that cut it.
    if (R.Suspect)
      OS << llvm::formatv(" (suspect: measured {0:f3}x, which {1} "
                          "contradicts; not credited)",
                          R.RawRatio, R.CrossMeasure);
    else if (R.Unverified)
      OS << llvm::formatv(" (unverified: measured {0:f3}x on the inputs the "
                          "search saw; not credited)",
                          R.RawRatio);
    else if (R.HintsOnly && R.Ratio < R.RawRatio)
      OS << llvm::formatv(" (compiler hints only: measured {0:f3}x, credited "
                          "what wall time confirms)",
                          R.RawRatio);
    else if (R.CodeRatio && R.Ratio < R.RawRatio)
      OS << llvm::formatv(" (compiler hints beside code: measured {0:f3}x, "
                          "the code alone {1:f3}x; the hints credited what "
                          "wall time confirms)",
                          R.RawRatio, R.CodeRatio);
    else if (R.Unconfirmed && R.Ratio >= R.RawRatio)
      OS << llvm::formatv(" (unconfirmed: {0} cannot judge it; credited its "
                          "own figure)",
                          R.CrossMeasure);
    else if (R.Unconfirmed)
      OS << llvm::formatv(" (unconfirmed: measured {0:f3}x, which {1} cannot "
                          "judge; credited what {1} saw)",
                          R.RawRatio, R.CrossMeasure);
    else if (R.Ratio == 1.0 && R.RawRatio != 1.0)
      OS << llvm::formatv(" (measured {0:f3}x, inside the noise)", R.RawRatio);
    OS << llvm::formatv(" (spread +/-{0:f3}, noise {1:f1}%, {2} {3})\n",
                        R.RatioSpread, R.Noise * 100, R.Repetitions,
                        R.Repetitions == 1 ? "run" : "pairs");
    OS << "cost: " << formatCost(R.BaselineCost, R.CostUnit) << " -> "
       << formatCost(R.VariantCost, R.CostUnit) << "\n";
    if (R.PeakMemoryBytes)
      OS << llvm::formatv("resources: user {0:f3} s, system {1:f3} s, peak "
                          "memory {2} KiB\n",
                          R.UserSeconds, R.SystemSeconds,
                          R.PeakMemoryBytes / 1024);
  }
  if (R.TestsTotal) {
    OS << "tests: " << R.TestsPassed << "/" << R.TestsTotal << " passed";
    if (R.HeldOutTotal)
      OS << ", held-out " << R.HeldOutPassed << "/" << R.HeldOutTotal
         << " passed";
    if (R.DerivedTotal)
      OS << ", derived " << R.DerivedPassed << "/" << R.DerivedTotal
         << " answered as the unmodified program does";
    OS << "\n";
  }
  if (R.CrossRatio)
    OS << llvm::formatv(
        "cross-check: {0:f3}x by {1}{2}\n", R.CrossRatio, R.CrossMeasure,
        R.verdict().empty() || R.Unverified ? std::string()
                                            : " (" + R.verdict().str() + ")");
  if (R.FirstFailure) {
    const TestFailure &F = *R.FirstFailure;
    OS << "failed test: " << F.Test;
    if (F.Line && (!F.Expected.empty() || !F.Actual.empty()))
      OS << ", line " << F.Line << ": expected '" << F.Expected << "', got '"
         << F.Actual << "'";
    else if (F.Line)
      OS << ", line " << F.Line;
    if (!F.Detail.empty())
      OS << " (" << F.Detail << ")";
    OS << "\n";
  }
  if (!R.Diagnostics.empty()) {
    OS << "diagnostics:\n";
    for (const BuildDiagnostic &D : R.Diagnostics)
      OS << "  " << VariantName << ":" << D.Line << ":" << D.Column << ": "
         << D.Severity << ": " << D.Message << "\n";
  } else if (R.Status == EvalStatus::BuildError && !R.BuildLog.empty()) {
    OS << "build log:\n" << R.BuildLog;
  }
  if (!R.HotLines.empty()) {
    OS << "hot lines:";
    for (size_t I = 0; I < std::min<size_t>(R.HotLines.size(), 5); ++I)
      OS << llvm::formatv(" {0} ({1:f1}%)", R.HotLines[I].Line,
                          R.HotLines[I].Share * 100);
    OS << "\n";
  }
  if (R.TimedOn == TimingSet::HeldOut)
    OS << llvm::formatv(
        "timed on: held-out inputs (on the feedback "
        "inputs: {0:f3}x){1}\n",
        R.FeedbackRatio,
        R.ShownInputsOnly ? "; fast only on the inputs it was shown" : "");
  else if (R.TimedOn == TimingSet::Feedback)
    OS << "timed on: the inputs the search saw (a note says why)\n";
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";
  printIntegrityLine(Integrity, OS);
}

void maxcode::printEvaluationJSON(const EvalResult &R, const Target &T,
                                  llvm::StringRef VariantName,
                                  llvm::StringRef Integrity,
                                  llvm::raw_ostream &OS) {
  llvm::json::Object O = std::move(*toJSON(R).getAsObject());
  O["version"] = JSONOutputVersion;
  O["target"] = T.Name;
  O["variant"] = VariantName;
  O["integrity"] = Integrity;
  // What the build said (warnings, and what it recompiled), capped.
  O["build_log"] = R.BuildLog;
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(O))) << "\n";
}

void maxcode::printPromptText(llvm::ArrayRef<PromptMessage> Messages,
                              llvm::raw_ostream &OS) {
  for (size_t I = 0; I < Messages.size(); ++I)
    OS << (I ? "\n" : "") << "<!-- role: " << Messages[I].Role << " -->\n"
       << llvm::StringRef(Messages[I].Content).rtrim() << "\n";
}

void maxcode::printPromptJSON(llvm::ArrayRef<PromptMessage> Messages,
                              llvm::raw_ostream &OS) {
  llvm::json::Array A;
  for (const PromptMessage &M : Messages)
    A.push_back(llvm::json::Object{{"role", M.Role}, {"content", M.Content}});
  OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"version", 1}, {"messages", std::move(A)}}))
     << "\n";
}
