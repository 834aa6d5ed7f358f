//===-- RunOutput.cpp - What a finished search writes ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/RunOutput.h"
#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Support/Diff.h"
#include "maxcode/Support/Error.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace maxcode;

std::string maxcode::winnerDescription(const SearchResult &R) {
  std::vector<llvm::StringRef> Steps;
  for (int I = R.Winner; I >= 0 && R.Nodes[I].Parent >= 0;
       I = R.Nodes[I].Parent)
    if (!R.Nodes[I].V.Description.empty())
      Steps.push_back(R.Nodes[I].V.Description);
  std::reverse(Steps.begin(), Steps.end());
  return llvm::join(Steps, "; then ");
}

/// \p S without white space: where a line's code is found however the
/// formatter broke or indented it.
static std::string compact(llvm::StringRef S) {
  std::string Out;
  for (char C : S)
    if (!llvm::isSpace(C))
      Out += C;
  return Out;
}

/// Whether some of \p Texts, compacted, is in \p Final; none when no text
/// says enough (a brace, a blank line, an `&`) to tell.
static std::optional<bool> anyIn(llvm::ArrayRef<std::string> Texts,
                                 llvm::StringRef Final) {
  std::optional<bool> Found;
  for (const std::string &T : Texts)
    for (llvm::StringRef Line : llvm::split(T, '\n')) {
      std::string C = compact(Line);
      if (C.size() < 4 ||
          llvm::none_of(C, [](char X) { return llvm::isAlnum(X); }))
        continue;
      if (Final.contains(C))
        return true;
      Found = false;
    }
  return Found;
}

/// Whether the step from \p Parent to \p Step is still in \p Final (the
/// reported winner, compacted): some line it added is, or it only removed.
static bool stepKept(const Node &Parent, const Node &Step,
                     llvm::StringRef Final) {
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Step.V.Text).split(Lines, '\n');
  std::vector<std::string> Added;
  for (const DiffHunk &H : diffLines(Parent.V.Text, Step.V.Text))
    for (unsigned L = H.AfterStart; L < H.AfterStart + H.AfterCount; ++L)
      if (L >= 1 && L <= Lines.size())
        Added.push_back(Lines[L - 1].str());
  return anyIn(Added, Final).value_or(true);
}

/// Whether change \p C of the step from \p Parent to \p Step is still in
/// \p Final: by the text its edits wrote where that says enough, else by
/// the step's lines. The minimiser and the tidying drop changes; the
/// summary names only those that stay.
static bool changeKept(const VariantChange &C, const Node &Parent,
                       const Node &Step, llvm::StringRef Final) {
  if (std::optional<bool> In = anyIn(C.Inserted, Final))
    return *In;
  return stepKept(Parent, Step, Final);
}

std::string maxcode::winnerSummary(const SearchResult &R,
                                   llvm::StringRef TargetName) {
  // Every step's places, first seen first, each with what changed there.
  std::vector<std::pair<std::string, std::vector<std::string>>> Places;
  std::vector<int> Path;
  for (int I = R.Winner; I >= 0 && R.Nodes[I].Parent >= 0;
       I = R.Nodes[I].Parent)
    Path.push_back(I);
  if (Path.empty())
    return "";
  std::string Final = compact(R.WinnerText);
  for (auto It = Path.rbegin(); It != Path.rend(); ++It) {
    const Variant &V = R.Nodes[*It].V;
    if (V.Changes.empty())
      return ""; // A step that does not say (an LLM's, a user's file).
    for (const VariantChange &C : V.Changes) {
      if (!R.WinnerText.empty() &&
          !changeKept(C, R.Nodes[R.Nodes[*It].Parent], R.Nodes[*It], Final))
        continue;
      auto P = llvm::find_if(Places,
                             [&](const auto &X) { return X.first == C.Where; });
      if (P == Places.end()) {
        Places.push_back({C.Where, {}});
        P = std::prev(Places.end());
      }
      if (!llvm::is_contained(P->second, C.What))
        P->second.push_back(C.What);
    }
  }
  if (Places.empty())
    return "";
  std::stable_partition(Places.begin(), Places.end(),
                        [&](const auto &X) { return X.first == TargetName; });
  std::vector<std::string> Parts;
  for (const auto &[Where, What] : Places)
    Parts.push_back((Where.empty() ? std::string("the file") : Where) + " (" +
                    llvm::join(What, ", ") + ")");
  std::string List = Parts.back();
  if (Parts.size() > 1)
    List = llvm::join(llvm::ArrayRef(Parts).drop_back(), ", ") + " and " +
           Parts.back();
  if (Places.front().first == TargetName)
    return "changed " + List;
  return TargetName.str() + " unchanged; the speedup came from " + List;
}

SearchReport maxcode::makeSearchReport(const FinishedSearch &S,
                                       llvm::StringRef Diff) {
  const RunOptions &Opts = S.Opts;
  const SearchResult &R = S.Result;
  SearchReport Rep;
  Rep.File = S.File;
  Rep.Measure = optionValueName(Opts.Settings.Measure).str();
  Rep.Sandbox = S.Sandbox;
  Rep.Integrity = S.Integrity;
  Rep.Policy = optionValueName(Opts.Settings.Policy).str();
  Rep.Critic = optionValueName(Opts.Settings.Critic).str();
  Rep.RTG = optionValueName(Opts.Settings.RTG).str();
  Rep.Strategy = optionValueName(Opts.Settings.Strategy).str();
  Rep.Budget = Opts.Settings.Budget;
  Rep.Run = S.Run;
  Rep.StorePath = S.StorePath;
  for (const Target &T : S.Targets) {
    ReportTarget RT;
    RT.Name = T.Name;
    RT.Kind = targetKindName(T.Kind).str();
    RT.Line = T.Line;
    RT.EndLine = T.EndLine;
    RT.Share = T.Share;
    RT.Searched = T.USR == S.T.USR && T.Name == S.T.Name;
    Rep.Targets.push_back(std::move(RT));
  }
  for (const Node &N : R.Nodes) {
    ReportNode RN;
    RN.Id = N.Id;
    RN.Parent = N.Parent;
    RN.Depth = N.Depth;
    RN.Status = evalStatusName(N.Result.Status).str();
    RN.Reason = N.Result.Reason;
    RN.Reward = N.Reward;
    if (N.Result.ok()) {
      RN.Ratio = N.Result.Ratio;
      RN.RawRatio = N.Parent < 0 ? 1.0 : N.Result.RawRatio;
      RN.Noise = N.Result.Noise;
    }
    RN.Description = N.V.Description;
    RN.Rules = N.V.Rules;
    for (CritiqueTag Tag : N.Crit.Tags)
      RN.CritiqueTags.push_back(critiqueTagName(Tag).str());
    RN.FromStore = N.Result.FromCache;
    // The baseline's cost and test count, as every comparison measured it.
    if (N.Parent >= 0 && N.Result.ok() && Rep.CostUnit.empty()) {
      Rep.BaselineCost = N.Result.BaselineCost;
      Rep.CostUnit = N.Result.CostUnit;
    }
    if (N.Parent >= 0 && N.Result.TestsTotal > Rep.Tests)
      Rep.Tests = N.Result.TestsTotal;
    Rep.Nodes.push_back(std::move(RN));
  }
  Rep.Evaluations = R.Evaluations;
  Rep.FromStore = R.FromCache;
  Rep.StopReason = R.StopReason;
  Rep.Evidence = R.Evidence;
  Rep.Seconds = R.Seconds;
  Rep.Winner = R.Winner;
  if (R.Verification) {
    const EvalResult &V = *R.Verification;
    ReportVerification RV;
    RV.Status = evalStatusName(V.Status).str();
    RV.Verdict = V.verdict().str();
    RV.Reason = V.Reason;
    RV.Ratio = V.Ratio;
    RV.RawRatio = V.RawRatio;
    RV.Spread = V.RatioSpread;
    RV.Noise = V.Noise;
    RV.Repetitions = V.Repetitions;
    RV.BaselineCost = V.BaselineCost;
    RV.VariantCost = V.VariantCost;
    RV.CostUnit = V.CostUnit;
    if (V.ok()) {
      Rep.BaselineCost = V.BaselineCost;
      Rep.CostUnit = V.CostUnit;
    }
    Rep.Verification = std::move(RV);
  }
  Rep.Improved = S.Improved;
  Rep.Diff = Diff.str();
  if (S.Improved) {
    Rep.Size = S.Size;
    Rep.Review = S.Review;
    Rep.Sanitizer = R.Sanitizer;
    Rep.Tidied = R.Tidied;
  }
  Rep.Output = Opts.Apply                  ? "apply"
               : !Opts.ExportFixes.empty() ? "export-fixes"
                                           : "diff";
  Rep.LLMCalls = S.LLMCalls;
  Rep.PromptTokens = S.LLMTokens.PromptTokens;
  Rep.CompletionTokens = S.LLMTokens.CompletionTokens;
  return Rep;
}

llvm::Error maxcode::writeRunOutputs(const FinishedSearch &S,
                                     WrittenOutput &W) {
  const RunOptions &Opts = S.Opts;
  if (S.Improved) {
    // The winner's bytes as they were verified: formatted before, never
    // after (EvaluationBackend::finalForm).
    const Node &Winner = S.Result.Nodes[S.Result.Winner];
    llvm::StringRef Text = S.Result.WinnerText.empty()
                               ? llvm::StringRef(Winner.V.Text)
                               : llvm::StringRef(S.Result.WinnerText);
    auto F = computeFixes(S.File, S.Original, Text, S.T, S.Scope,
                          /*Reformat=*/S.Result.WinnerText.empty());
    if (!F)
      return makeInternal(F.takeError());
    W.Fixes = std::move(*F);
  } else if (!Opts.ExportFixes.empty()) {
    // No verified improvement: an empty set of fixes, so that scripts
    // merging many runs' files find one for every run.
    FixSet Empty;
    Empty.File = S.File;
    Empty.Original = S.Original;
    Empty.Result = S.Original;
    W.Fixes = std::move(Empty);
  }

  bool Withheld = S.BelowMinSpeedup || S.StaticStateRefused;
  if (!Opts.ExportFixes.empty() && Withheld) {
    // Shown, never exported: an empty set, as for no improvement (the
    // summary says why).
    FixSet Empty;
    Empty.File = S.File;
    Empty.Original = S.Original;
    Empty.Result = S.Original;
    if (llvm::Error E =
            exportFixes(Empty, Opts.ExportFixes,
                        S.BelowMinSpeedup
                            ? "below " + Opts.Names("MinSpeedup")
                            : "adds mutable static state; " +
                                  Opts.Names("AllowStaticState") + " takes it"))
      return makeInternal(std::move(E));
    W.Exported = true;
  } else if (!Opts.ExportFixes.empty()) {
    std::string Message = "no verified improvement";
    if (S.Improved) {
      std::string Summary = winnerSummary(S.Result, S.T.Name);
      Message =
          llvm::formatv("{0}: verified speedup {1:f3}x ({2}){3}", S.T.Name,
                        S.Result.Verification->Ratio,
                        optionValueName(Opts.Settings.Measure),
                        Summary.empty() ? " by " + winnerDescription(S.Result)
                                        : ": " + Summary)
              .str();
    }
    if (llvm::Error E = exportFixes(*W.Fixes, Opts.ExportFixes, Message))
      return makeInternal(std::move(E));
    W.Exported = true;
  }

  if (!Opts.ReportPath.empty()) {
    std::string Diff;
    if (W.Fixes) {
      std::string Rel = llvm::sys::path::filename(S.File).str();
      Diff = unifiedDiff(S.Original, W.Fixes->Result, "a/" + Rel, "b/" + Rel);
    }
    if (llvm::Error E =
            writeSearchReport(makeSearchReport(S, Diff), Opts.ReportPath))
      return makeInternal(std::move(E));
  }

  // "No verified improvement" is a normal outcome: nothing to write.
  if (Opts.Apply && S.Improved && !Withheld) {
    // A file that changed during the run is the user's to sort out (exit
    // 1); any other failure to write it is the tool's.
    bool Changed = false;
    llvm::Error E = llvm::handleErrors(
        applyFixes(*W.Fixes), [&](const llvm::StringError &SE) -> llvm::Error {
          Changed = SE.convertToErrorCode() == std::errc::operation_canceled;
          return llvm::make_error<llvm::StringError>(SE.getMessage(),
                                                     SE.convertToErrorCode());
        });
    if (E)
      return Changed ? std::move(E) : makeInternal(std::move(E));
    W.Applied = true;
  }
  return llvm::Error::success();
}
