//===-- Tidy.cpp - A winner a reviewer merges -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A model under search pressure writes long winners: helpers from earlier
// samples that nothing calls any more, two copies of one byte-copy helper,
// includes for code it then dropped. The minimiser works on hunks, and a
// dead helper shares its hunk with the live code beside it. So after the
// winner is verified its declarations are simplified as Clang sees them
// (simplifyDeclarations), the model is asked once for the plainest form of
// the same idea, and the sanitizers see whatever text is finally reported.
// Each smaller text is kept only when it verifies at the winner's speedup
// within the noise.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Hints.h"
#include "maxcode/Search/Engine.h"
#include "maxcode/Search/Minimise.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "maxcode-search"

using namespace maxcode;

/// "1.802x", or the status when \p R is not ok.
static std::string figureOf(const EvalResult &R) {
  if (!R.ok())
    return evalStatusName(R.Status).str() +
           (R.Reason.empty() ? "" : ": " + R.Reason);
  return llvm::formatv("{0:f3}x{1}", R.RawRatio, R.Suspect ? ", suspect" : "")
      .str();
}

void SearchEngine::dropUncreditedHints(const Target &T,
                                       SearchResult &Out) const {
  // The verification credited the code alone and not the hints beside it
  // (docs/Evaluation.md, "Compiler hints"): wall time did not confirm what
  // they add. Left in, they would reach the user's diff for nothing
  // measured: a GCC-only pragma a reviewer would not merge.
  const EvalResult &V = *Out.Verification;
  if (!V.ok() || V.CodeRatio <= 1.0 || V.Ratio > V.CodeRatio)
    return;
  std::optional<std::string> Code = withoutAddedHints(Original, Out.WinnerText);
  if (!Code || *Code == Out.WinnerText)
    return;
  Variant W = Out.Nodes[Out.Winner].V;
  W.Text = std::move(*Code);
  W = Backend.finalForm(W, T);
  EvalResult C = Backend.verify(W, T, Config.VerifyRepetitions);
  WinnerTidying &Td = Out.Tidied ? *Out.Tidied : Out.Tidied.emplace();
  // The credit was the code's already, so the code alone need only hold up
  // as a win of its own: comparing its credit with the winner's would
  // weigh two wall-time readings of a saving time cannot judge, and the
  // text applied would change from run to run.
  if (!C.ok() || C.Suspect || C.Ratio <= 1.0) {
    Td.HintsOutcome =
        llvm::formatv("the compiler hints beside the code stay, though wall "
                      "time did not confirm their share: without them "
                      "{0} (credited {1:f3}x with them)",
                      figureOf(C), V.Ratio)
            .str();
    return;
  }
  Td.HintsOutcome =
      llvm::formatv("the compiler hints beside the code taken out: wall time "
                    "did not confirm their share ({0:f3}x by {1} with them); "
                    "the code alone verified at {2:f3}x",
                    V.RawRatio, optionValueName(Config.Settings.Measure),
                    C.Ratio)
          .str();
  Td.HintsDropped = true;
  Out.WinnerText = std::move(W.Text);
  Out.Verification = std::move(C);
}

void SearchEngine::tidyDeclarations(const Target &T, SearchResult &Out) const {
  // Called before the minimiser and, when it dropped edits, after it: what
  // the second call finds adds to the first's.
  WinnerTidying &Td = Out.Tidied ? *Out.Tidied : Out.Tidied.emplace();
  Variant W = Out.Nodes[Out.Winner].V;
  W.Text = Out.WinnerText;
  std::optional<DeclSimplification> S = Backend.simplifyDeclarations(W);
  if (!S || S->Text == W.Text) {
    if (Td.DeclOutcome.empty())
      Td.DeclOutcome = "no declaration or include to remove";
    return;
  }
  Variant Smaller = W;
  Smaller.Text = S->Text;
  Smaller = Backend.finalForm(Smaller, T);
  EvalResult V = Backend.verify(Smaller, T, Config.VerifyRepetitions);
  if (!keepsSpeedup(V, *Out.Verification)) {
    std::string Failed =
        llvm::formatv("without {0} it did not hold up ({1}; {2:f3}x with "
                      "them)",
                      S->Changes.size() == 1 ? "the declaration nothing uses"
                                             : "the declarations nothing uses",
                      figureOf(V), Out.Verification->RawRatio)
            .str();
    Td.DeclOutcome = Td.Removed.empty() ? Failed + "; the winner stands"
                                        : Td.DeclOutcome + "; then " + Failed;
    return;
  }
  llvm::append_range(Td.Removed, S->Changes);
  size_t N = Td.Removed.size();
  Td.DeclOutcome =
      llvm::formatv("{0} removed, verified at {1:f3}x ({2:f3}x with them)",
                    N == 1 ? std::string("1 declaration or include")
                           : std::to_string(N) + " declarations and includes",
                    V.RawRatio, Out.Verification->RawRatio)
          .str();
  Out.WinnerText = std::move(Smaller.Text);
  Out.Verification = std::move(V);
}

void SearchEngine::askForPlainer(const std::vector<Node> &Nodes,
                                 const Target &T, SearchResult &Out) const {
  Observation Obs = observe(Nodes, unsigned(Out.Winner));
  Obs.CurrentText = Out.WinnerText;
  Obs.Feedback = *Out.Verification;
  auto Asked = Prop.simplify(Obs);
  WinnerTidying &Td = Out.Tidied ? *Out.Tidied : Out.Tidied.emplace();
  if (!Asked) {
    Td.ModelOutcome = "the model was asked for a plainer winner and gave "
                      "nothing usable (" +
                      llvm::toString(Asked.takeError()) + ")";
    return;
  }
  if (!*Asked)
    return; // A proposer that cannot simplify (the rules).
  Variant P = std::move(**Asked);
  if (std::optional<DeclSimplification> S = Backend.simplifyDeclarations(P))
    P.Text = S->Text;
  P = Backend.finalForm(P, T);
  unsigned Now = changedLines(Original, Out.WinnerText);
  unsigned Then = changedLines(Original, P.Text);
  if (P.Text == Out.WinnerText || Then >= Now) {
    Td.ModelOutcome = llvm::formatv("the model's plainer version changes {0} "
                                    "lines, the winner {1}: the winner stands",
                                    Then, Now)
                          .str();
    return;
  }
  EvalResult V = Backend.verify(P, T, Config.VerifyRepetitions);
  if (!keepsSpeedup(V, *Out.Verification)) {
    Td.ModelOutcome =
        llvm::formatv("the model's plainer version ({0} changed "
                      "lines instead of {1}) did not keep the "
                      "speedup ({2}; {3:f3}x): the winner stands",
                      Then, Now, figureOf(V), Out.Verification->RawRatio)
            .str();
    return;
  }
  Td.ModelOutcome =
      llvm::formatv("kept the model's plainer version: {0} "
                    "changed lines instead of {1}, verified at "
                    "{2:f3}x ({3:f3}x before)",
                    Then, Now, V.RawRatio, Out.Verification->RawRatio)
          .str();
  Td.ModelKept = true;
  MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << Td.ModelOutcome << "\n");
  Out.WinnerText = std::move(P.Text);
  Out.Verification = std::move(V);
}

void SearchEngine::reviewFinalText(const Target &T, SearchResult &Out) const {
  if (!Config.Settings.SanitizeWinner || Out.WinnerText == Out.CheckedText)
    return;
  Variant V = Out.Nodes[Out.Winner].V;
  V.Text = Out.WinnerText;
  SanitizerVerdict S = Backend.sanitize(V);
  if (S.Kind != SanitizerVerdict::Finding) {
    Out.Sanitizer = std::move(S);
    return;
  }
  // A smaller form that is unsafe where the checked one is not (an edit
  // the minimiser dropped was a bounds check): the checked one is reported.
  std::string Why = "its smaller form is unsafe (" + S.Detail +
                    "): the winner is reported as verified before";
  WinnerTidying &Td = Out.Tidied ? *Out.Tidied : Out.Tidied.emplace();
  Td.Removed.clear();
  Td.DeclOutcome = Why;
  Td.ModelKept = false;
  if (Out.Minimised) {
    Out.Minimised->Outcome = Why;
    Out.Minimised->UnminimisedText.clear();
    for (WinnerEdit &E : Out.Minimised->Edits) {
      E.Dropped = false;
      E.Why.clear();
    }
  }
  Out.WinnerText = Out.CheckedText;
  Out.Verification = Out.CheckedVerification;
}
