//===-- SearchSummary.cpp - The end of a search ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/SearchSummary.h"
#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Report/WinnerReview.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

/// What the summary knows of the winner for a reviewer.
static WinnerReview reviewOf(const SearchSummary &S) {
  return {S.Size, S.Tidied, S.Sanitizer, S.Review};
}

/// How the reported figure was had (DESIGN section 4, rules 9 and 10):
/// which inputs timed it, and what the other measure said.
static llvm::json::Object verificationJSON(const SearchSummary &S) {
  const std::optional<EvalResult> &V = S.Verification;
  llvm::json::Object Ver{{"status", evalStatusName(V->Status)},
                         {"reason", V->Reason},
                         {"ratio", V->Ratio},
                         {"raw_ratio", V->RawRatio},
                         {"shown_inputs_only", V->ShownInputsOnly},
                         {"hints_only", V->HintsOnly},
                         {"suspect", V->Suspect},
                         {"unconfirmed", V->Unconfirmed},
                         {"unverified", V->Unverified}};
  if (!V->verdict().empty())
    Ver["verdict"] = V->verdict();
  if (V->CodeRatio)
    Ver["code_ratio"] = V->CodeRatio;
  if (V->DerivedTotal) {
    Ver["derived_passed"] = V->DerivedPassed;
    Ver["derived_total"] = V->DerivedTotal;
  }
  // Only what applies: a ratio on the feedback inputs beside the one
  // reported is there only when the reported one is the held-out one.
  if (V->TimedOn)
    Ver["timed_on"] = timingSetName(*V->TimedOn);
  if (V->TimedOn == TimingSet::HeldOut)
    Ver["feedback_ratio"] = V->FeedbackRatio;
  if (!V->CrossMeasure.empty()) {
    Ver["cross_measure"] = V->CrossMeasure;
    Ver["cross_ratio"] = V->CrossRatio;
  }
  llvm::json::Array Notes;
  for (const std::string &N : V->Notes)
    Notes.push_back(N);
  Ver["notes"] = std::move(Notes);
  Ver["suspect_candidates"] = S.SuspectCandidates;
  return Ver;
}

void maxcode::printSearchSummaryJSON(const SearchSummary &S,
                                     llvm::raw_ostream &OS) {
  llvm::json::Object O{{"version", 1},
                       {"status", S.Improved ? "improved" : "no-improvement"},
                       {"target", S.Target},
                       {"file", S.File},
                       {"speedup", S.Speedup},
                       {"min_speedup", S.MinSpeedup},
                       {"below_min_speedup", S.BelowMinSpeedup},
                       {"noise", S.Noise},
                       {"measure", S.Measure},
                       {"evaluations", S.Evaluations},
                       {"from_store", S.FromStore},
                       {"stop_reason", S.StopReason},
                       {"sandbox", S.Sandbox},
                       {"integrity", S.Integrity},
                       {"run", S.Run}};
  if (S.Verification && S.Verification->Suspect)
    O["suspect"] =
        llvm::json::Object{{"speedup", S.Verification->RawRatio},
                           {"cross_measure", S.Verification->CrossMeasure},
                           {"cross_speedup", S.Verification->CrossRatio}};
  if (S.Verification)
    O["verification"] = verificationJSON(S);
  if (S.Evidence)
    O["cpu_evidence"] = toJSON(*S.Evidence);
  if (!S.TargetsTried.empty()) {
    llvm::json::Array Tried;
    for (const TriedTarget &T : S.TargetsTried)
      Tried.push_back(llvm::json::Object{{"target", T.Name},
                                         {"evaluations", T.Evaluations},
                                         {"speedup", T.Speedup},
                                         {"kept", T.Kept}});
    O["targets_tried"] = std::move(Tried);
  }
  if (S.Improved && S.Winner) {
    llvm::json::Object W{
        {"text", S.Winner->Text},     {"diff", S.Diff},
        {"rules", S.Winner->Rules},   {"description", S.Winner->Description},
        {"summary", S.WinnerSummary}, {"node", S.WinnerNode}};
    addWinnerReviewJSON(reviewOf(S), W);
    if (S.StaticStateRefused)
      W["refused"] = "mutable static state";
    O["winner"] = std::move(W);
  }
  if (S.Improved && S.Minimised) {
    const Minimisation &M = *S.Minimised;
    llvm::json::Array Edits, Log;
    for (const WinnerEdit &E : M.Edits)
      Edits.push_back(llvm::json::Object{{"line", E.Line},
                                         {"lines", E.Lines},
                                         {"text", E.Text},
                                         {"warning", E.Warning},
                                         {"dropped", E.Dropped},
                                         {"why", E.Why}});
    for (const std::string &L : M.Log)
      Log.push_back(L);
    llvm::json::Object MO{{"outcome", M.Outcome},
                          {"evaluations", M.Evaluations},
                          {"edits", std::move(Edits)},
                          {"log", std::move(Log)}};
    if (!M.UnminimisedText.empty()) {
      MO["unminimised_text"] = M.UnminimisedText;
      MO["unminimised_diff"] = S.UnminimisedDiff;
      MO["unminimised_speedup"] = M.UnminimisedRatio;
    }
    O["minimisation"] = std::move(MO);
  }
  if (S.LLM)
    O["llm"] = llvm::json::Object(*S.LLM);
  llvm::json::Array Added;
  for (const ApiUse &U : S.AddedCalls)
    Added.push_back(
        llvm::json::Object{{"name", U.Name},
                           {"category", apiCategoryName(U.Category)},
                           {"line", U.Line}});
  O["added_calls"] = std::move(Added);
  O["applied"] = S.Applied;
  if (!S.FixesPath.empty())
    O["fixes"] = S.FixesPath;
  if (!S.ReportPath.empty())
    O["report"] = S.ReportPath;
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(O))) << "\n";
}

/// Why nothing changed, when nothing did.
static void printNoImprovement(const SearchSummary &S, llvm::raw_ostream &OS) {
  const std::optional<EvalResult> &V = S.Verification;
  if (V && V->Suspect) {
    OS << llvm::formatv("no verified improvement: the best candidate's "
                        "{0:f3}x by {1} is suspect ({2:f3}x by {3}), so it "
                        "is not applied; nothing changed\n",
                        V->RawRatio, S.Measure, V->CrossRatio, V->CrossMeasure);
    return;
  }
  if (V && S.Candidate && V->ok() && (V->Unverified || V->Unconfirmed)) {
    OS << "no verified improvement: the best candidate is " << V->verdict()
       << " (" << V->Reason << "), so it is not applied; nothing changed\n";
    return;
  }
  OS << "no verified improvement found";
  if (S.Candidate && V && V->ok())
    OS << llvm::formatv(" (the best candidate re-measured at {0:f3}x, "
                        "inside the noise)",
                        V->RawRatio);
  else if (S.Candidate && V)
    OS << " (the best candidate failed its verification, "
       << evalStatusName(V->Status) << ": " << V->Reason << ")";
  OS << "; nothing changed\n";
}

void maxcode::printSearchSummaryText(const SearchSummary &S, OptionNames Names,
                                     llvm::raw_ostream &OS) {
  OS << llvm::formatv("searched {0} with the {1} policy ({2}): {3} "
                      "evaluations ({4} from the store), {5:f1} s\n",
                      S.Target, S.Policy, S.Strategy, S.Evaluations,
                      S.FromStore, S.Seconds);
  if (S.LLM) {
    const llvm::json::Object &U = *S.LLM;
    OS << llvm::formatv("LLM: {0} calls ({1} failed), {2} tokens ({3} prompt "
                        "+ {4} completion); stopped on {5}\n",
                        U.getInteger("calls").value_or(0),
                        U.getInteger("failed_calls").value_or(0),
                        U.getInteger("total_tokens").value_or(0),
                        U.getInteger("prompt_tokens").value_or(0),
                        U.getInteger("completion_tokens").value_or(0),
                        S.StopReason);
  }
  if (!S.TargetsTried.empty()) {
    OS << "targets tried, by self cost: ";
    llvm::ListSeparator Sep;
    for (const TriedTarget &T : S.TargetsTried)
      OS << Sep
         << llvm::formatv("{0} ({1} evaluation{2}, {3})", T.Name, T.Evaluations,
                          T.Evaluations == 1 ? "" : "s",
                          T.Speedup > 1
                              ? llvm::formatv("{0:f3}x", T.Speedup).str()
                              : std::string("nothing verified"));
    OS << "\n";
  }
  if (!S.Improved)
    return printNoImprovement(S, OS);
  // The summary names what the reported winner keeps; the minimiser's
  // lines below say which edits of the winner as found are gone.
  std::string Dropped;
  if (S.Minimised && S.Minimised->dropped())
    Dropped = llvm::formatv(" ({0} of {1} edits of the winner as found "
                            "dropped, below)",
                            S.Minimised->dropped(), S.Minimised->Edits.size())
                  .str();
  // A credit cut to what the other measure saw says so on the same line
  // (rule 9).
  std::string Verdict;
  if (S.Verification && S.Verification->Unconfirmed)
    Verdict = "; " + S.Verification->Reason;
  OS << llvm::formatv(
      "verified speedup: {0:f3}x (noise {1:f1}%, {2}){3}{4}{5}\n", S.Speedup,
      S.Noise * 100, S.Measure,
      S.WinnerSummary.empty() ? " by " + S.WinnerDescription
                              : ": " + S.WinnerSummary,
      Dropped, Verdict);
  // What a reviewer should look at before applying: calls the original does
  // not make that reach outside the program.
  for (const ApiUse &U : S.AddedCalls)
    OS << "warning: the winner adds " << U.Name << " ("
       << apiCategoryName(U.Category) << ") at line " << U.Line
       << "; review it before applying\n";
  OS << S.Diff;
  if (const std::optional<Minimisation> &M = S.Minimised;
      M && M->Edits.size() > 1) {
    OS << llvm::formatv("minimised: {0} ({1} evaluation{2})\n", M->Outcome,
                        M->Evaluations, M->Evaluations == 1 ? "" : "s");
    for (size_t I = 0; I < M->Edits.size(); ++I)
      if (M->Edits[I].Dropped)
        OS << llvm::formatv("  dropped edit {0}, line {1} `{2}`: {3}\n", I + 1,
                            M->Edits[I].Line, M->Edits[I].Text,
                            M->Edits[I].Why);
  } else if (M && !M->Outcome.empty() &&
             M->Outcome.find("warning") != std::string::npos) {
    OS << "minimised: " << M->Outcome << "\n";
  }
  printWinnerReview(reviewOf(S), OS);
  if (S.Verification && S.Verification->TimedOn == TimingSet::HeldOut) {
    OS << llvm::formatv("timed on held-out inputs the search never saw (on "
                        "the feedback inputs: {0:f3}x)\n",
                        S.Verification->FeedbackRatio);
  } else if (S.Verification && S.Verification->TimedOn == TimingSet::Feedback) {
    // Why, in the words the verification gave; a report, when written,
    // keeps every note.
    OS << "timed on the inputs the search saw: no held-out input could "
          "judge it";
    if (!S.ReportPath.empty())
      OS << " (" << S.ReportPath << " has the notes)";
    OS << "\n";
    for (const std::string &N : S.Verification->Notes)
      OS << "  note: " << N << "\n";
  }
  printIntegrityLine(S.Integrity, OS);
  if (S.BelowMinSpeedup)
    OS << llvm::formatv("not applied or exported: {0:f3}x is below "
                        "{2}={1:f3}, too small a change to be worth a review "
                        "({2}=1 takes any verified win)\n",
                        S.Speedup, S.MinSpeedup, Names("MinSpeedup"));
  if (S.StaticStateRefused)
    OS << "not applied or exported: the winner adds mutable static state "
          "(the review lines above say where); "
       << Names("AllowStaticState") << " takes it\n";
  if (S.Applied)
    OS << "applied to " << S.File << "\n";
  if (!S.FixesPath.empty())
    OS << "fixes written to " << S.FixesPath << "\n";
}

void maxcode::printRTGTraining(const RTGTraining &T, llvm::raw_ostream &OS) {
  OS << llvm::formatv("trained the reward-to-go model on {0} nodes; rank "
                      "correlation on {1} held-out nodes: {2:f3}\n",
                      T.TrainCount, T.HeldOutCount, T.HeldOutSpearman);
}
