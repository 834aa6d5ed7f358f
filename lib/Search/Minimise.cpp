//===-- Minimise.cpp - The smallest winning diff --------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A winner is whatever node the search reached first, with every step on its
// path: a block that changed nothing (pow -> multiplication, which GCC does
// at -O2 already) rides along with the one that mattered. The minimiser is
// the last stage of ddmin ("Simplifying and Isolating Failure-Inducing
// Input", Zeller and Hildebrandt, 2002) over the hunks of the winner's
// diff: each hunk in turn is left out, and stays out when the rest keeps
// the speedup. Winners have a handful of hunks, most of them needed: one
// evaluation each is fewer than ddmin's halving, which spends its first
// tests on halves that lose the speedup (13 evaluations for the quick
// start's five hunks against 5).
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Minimise.h"
#include "maxcode/Search/Engine.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <map>

#define DEBUG_TYPE "maxcode-search"

using namespace maxcode;

namespace {

/// The relative margin within which \p A and \p B measure the same speedup:
/// their runs' noise or their ratios' spread, and at least 1%.
double sameWithin(const EvalResult &A, const EvalResult &B) {
  return std::max({0.01, A.relativeMargin(), B.relativeMargin()});
}

/// "1, 3 and 4".
std::string listEdits(llvm::ArrayRef<unsigned> Kept) {
  std::string Out;
  for (size_t I = 0; I < Kept.size(); ++I) {
    if (I)
      Out += I + 1 == Kept.size() ? " and " : ", ";
    Out += std::to_string(Kept[I] + 1);
  }
  return Out.empty() ? "none" : Out;
}

/// The identifiers \p Text spells: Clang's raw lexer, so that words in
/// comments and literals are not names.
llvm::StringSet<> namesIn(llvm::StringRef Text) {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  std::string Copy = Text.str();
  clang::Lexer L(clang::SourceLocation(), LO, Copy.data(), Copy.data(),
                 Copy.data() + Copy.size());
  llvm::StringSet<> Names;
  clang::Token Tok;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = L.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::raw_identifier))
      Names.insert(Tok.getRawIdentifier());
  }
  return Names;
}

/// Lines [First, First + Count) of \p Text, 1-based.
std::string linesOf(llvm::StringRef Text, unsigned First, unsigned Count) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  std::string Out;
  for (unsigned I = First; I < First + Count && I <= Lines.size(); ++I)
    Out += Lines[I - 1].str() + "\n";
  return Out;
}

class Minimiser {
public:
  Minimiser(EvaluationBackend &Backend, const Target &T,
            const MinimiseInput &In, Minimisation &M)
      : Backend(Backend), T(T), In(In), M(M),
        Hunks(diffLines(In.Original, In.WinnerText)) {
    bindByNames();
  }

  const std::vector<DiffHunk> &hunks() const { return Hunks; }

  /// The winner with only the hunks \p Kept (indices, ascending).
  Variant variantOf(llvm::ArrayRef<unsigned> Kept) const {
    std::vector<bool> Mask(Hunks.size(), false);
    for (unsigned K : Kept)
      Mask[K] = true;
    Variant V = *In.Winner;
    V.Text = applyHunks(In.Original, In.WinnerText, Hunks, Mask);
    V.Description = llvm::formatv("the winner with edit{0} {1} of {2}",
                                  Kept.size() == 1 ? "" : "s", listEdits(Kept),
                                  Hunks.size());
    return Backend.finalForm(V, T);
  }

  /// The hunks that go with hunk \p I, itself included (bindByNames).
  std::vector<unsigned> boundTo(unsigned I) const {
    std::vector<unsigned> Out;
    for (unsigned J = 0; J < Hunks.size(); ++J)
      if (Bound.isEquivalent(I, J))
        Out.push_back(J);
    return Out;
  }

  /// Whether the winner with only the hunks \p Kept keeps the speedup.
  bool keeps(const std::vector<unsigned> &Kept) {
    if (Kept.empty())
      return false; // The original.
    if (auto It = Seen.find(Kept); It != Seen.end())
      return It->second;
    // Hunks bound by a name go together or not at all: not tried.
    for (unsigned K : Kept)
      for (unsigned J : boundTo(K))
        if (!llvm::is_contained(Kept, J))
          return Seen[Kept] = false;
    if (M.Evaluations >= In.Budget)
      return false; // Unknown: kept, as if needed.
    ++M.Evaluations;
    Variant V = variantOf(Kept);
    EvalResult R = Backend.evaluate({V}, T).front();
    bool Keeps = keepsSpeedup(R, *In.Searched);
    std::string Figure = R.ok() ? llvm::formatv("{0:f3}x", R.RawRatio).str()
                                : evalStatusName(R.Status).str();
    M.Log.push_back(llvm::formatv("edit{0} {1} of {2}: {3}{4} (all {2}: "
                                  "{5:f3}x): {6}",
                                  Kept.size() == 1 ? "" : "s", listEdits(Kept),
                                  Hunks.size(), Figure,
                                  R.Suspect ? ", suspect" : "",
                                  In.Searched->RawRatio,
                                  Keeps ? "keeps the speedup" : "loses it")
                        .str());
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": minimise: " << M.Log.back() << "\n");
    Seen[Kept] = Keeps;
    if (Keeps)
      Best = R;
    return Keeps;
  }

  /// ddmin at its finest granularity: each edit of \p C in turn is left
  /// out, and stays out when the rest keeps the speedup. One evaluation per
  /// edit; what is left is 1-minimal (no single edit of it can go) but for
  /// edits that only matter together.
  std::vector<unsigned> withoutUnneeded(std::vector<unsigned> C) {
    for (size_t I = 0; I < C.size() && C.size() > 1;) {
      // An edit leaves with those a name binds it to (bindByNames).
      std::vector<unsigned> Rest;
      std::vector<unsigned> Leaving = boundTo(C[I]);
      for (unsigned K : C)
        if (!llvm::is_contained(Leaving, K))
          Rest.push_back(K);
      if (keeps(Rest))
        C = std::move(Rest);
      else
        ++I;
    }
    return C;
  }

  /// The best evaluation of a subset that kept the speedup.
  std::optional<EvalResult> Best;

private:
  EvaluationBackend &Backend;
  const Target &T;
  const MinimiseInput &In;
  Minimisation &M;
  std::vector<DiffHunk> Hunks;
  std::map<std::vector<unsigned>, bool> Seen;
  /// Hunks that spell a name the winner adds (one the original spells
  /// nowhere) go together: a declaration the winner adds is never left
  /// without the uses it gave it (an array hoisted under a new name, read
  /// by the original's old name; a helper nothing calls), nor a use
  /// without its declaration.
  llvm::EquivalenceClasses<unsigned> Bound;

  void bindByNames() {
    llvm::StringSet<> Before = namesIn(In.Original);
    llvm::StringMap<unsigned> First;
    for (unsigned I = 0; I < Hunks.size(); ++I) {
      Bound.insert(I);
      const DiffHunk &H = Hunks[I];
      for (const auto &N :
           namesIn(linesOf(In.WinnerText, H.AfterStart, H.AfterCount)))
        if (!Before.contains(N.getKey())) {
          auto [It, New] = First.try_emplace(N.getKey(), I);
          if (!New)
            Bound.unionSets(It->second, I);
        }
    }
  }
};

/// The first line a hunk adds (or, deleting only, removes), trimmed.
std::string firstLineOf(const DiffHunk &H, llvm::StringRef Original,
                        llvm::StringRef Winner) {
  llvm::SmallVector<llvm::StringRef> Lines;
  unsigned From = H.AfterCount ? H.AfterStart : H.BeforeStart;
  unsigned Count = H.AfterCount ? H.AfterCount : H.BeforeCount;
  (H.AfterCount ? Winner : Original).split(Lines, '\n');
  std::string First;
  for (unsigned L = From; L < From + Count && L <= Lines.size(); ++L)
    if (!Lines[L - 1].trim().empty()) {
      First = Lines[L - 1].trim().str();
      break;
    }
  if (First.size() > 72)
    First = First.substr(0, 69) + "...";
  return H.AfterCount ? First : "deleted: " + First;
}

/// Says in \p M's outcome which edits kept carry a compiler warning: the
/// speedup needs them, and a reviewer should know.
void noteKeptWarnings(Minimisation &M) {
  for (size_t I = 0; I < M.Edits.size(); ++I)
    if (!M.Edits[I].Dropped && !M.Edits[I].Warning.empty())
      M.Outcome += llvm::formatv("; edit {0} is needed and adds a compiler "
                                 "warning: {1}",
                                 I + 1, M.Edits[I].Warning)
                       .str();
}

} // namespace

bool maxcode::keepsSpeedup(const EvalResult &Candidate,
                           const EvalResult &Reference) {
  return Candidate.ok() && !Candidate.Suspect && Candidate.Ratio > 1.0 &&
         Candidate.RawRatio * (1 + sameWithin(Candidate, Reference)) >=
             Reference.RawRatio;
}

MinimiseOutcome maxcode::minimiseWinner(EvaluationBackend &Backend,
                                        const Target &T,
                                        const MinimiseInput &In) {
  MinimiseOutcome Out;
  Minimisation &M = Out.M;
  Minimiser Min(Backend, T, In, M);
  const std::vector<DiffHunk> &Hunks = Min.hunks();
  for (const DiffHunk &H : Hunks) {
    WinnerEdit E;
    E.Line = H.AfterCount ? H.AfterStart : H.AfterStart + 1;
    E.Lines = H.AfterCount;
    E.Text = firstLineOf(H, In.Original, In.WinnerText);
    // Warning-free (docs/Search.md): a warning on the lines an edit wrote
    // (an unroll pragma GCC ignores, an unused variable) is the edit's.
    for (const BuildDiagnostic &D : In.Verified->Diagnostics)
      if (D.Severity == "warning" && D.Line >= H.AfterStart &&
          D.Line < H.AfterStart + H.AfterCount) {
        E.Warning = D.Message;
        break;
      }
    M.Edits.push_back(std::move(E));
  }
  if (Hunks.size() < 2 && llvm::none_of(M.Edits, [](const WinnerEdit &E) {
        return !E.Warning.empty();
      })) {
    M.Outcome = Hunks.empty() ? "no edits" : "one edit: nothing to drop";
    return Out;
  }

  std::vector<unsigned> All, Clean;
  for (unsigned I = 0; I < Hunks.size(); ++I) {
    All.push_back(I);
    if (M.Edits[I].Warning.empty())
      Clean.push_back(I);
  }
  // Edits that add a warning go first, when the speedup holds without them.
  std::vector<unsigned> Start = All;
  bool WarnedDropped = Clean.size() < All.size() && Min.keeps(Clean);
  if (WarnedDropped)
    Start = Clean;
  std::vector<unsigned> Kept = Min.withoutUnneeded(Start);
  if (Kept.size() == All.size()) {
    M.Outcome = M.Evaluations >= In.Budget
                    ? "no edit dropped within the budget of evaluations"
                    : "every edit is needed";
    noteKeptWarnings(M);
    return Out;
  }

  // The smaller winner is verified as the winner was: held-out inputs, more
  // timed pairs, the cross-check.
  Variant Smaller = Min.variantOf(Kept);
  EvalResult V = Backend.verify(Smaller, T, In.VerifyRepetitions);
  if (!keepsSpeedup(V, *In.Verified)) {
    std::string Figure = V.ok() ? llvm::formatv("{0:f3}x", V.RawRatio).str()
                                : evalStatusName(V.Status).str();
    M.Outcome = llvm::formatv(
                    "the winner with edit{0} {1} of {2} did not "
                    "hold up on verification ({3}{4}; {5:f3}x with "
                    "all); the winner stands as found",
                    Kept.size() == 1 ? "" : "s", listEdits(Kept), Hunks.size(),
                    Figure, V.Suspect ? ", suspect" : "", In.Verified->RawRatio)
                    .str();
    M.Log.push_back("verification: " + M.Outcome);
    noteKeptWarnings(M);
    return Out;
  }
  double With = In.Searched->RawRatio;
  double Without = Min.Best ? Min.Best->RawRatio : V.RawRatio;
  for (unsigned I = 0; I < Hunks.size(); ++I) {
    if (llvm::is_contained(Kept, I))
      continue;
    WinnerEdit &E = M.Edits[I];
    E.Dropped = true;
    E.Why = llvm::formatv("the speedup holds without it ({0:f3}x without, "
                          "{1:f3}x with)",
                          Without, With)
                .str();
    if (!E.Warning.empty() && WarnedDropped)
      E.Why = "adds a compiler warning (" + E.Warning + "); " + E.Why;
  }
  M.Log.push_back(llvm::formatv("verification: edit{0} {1} of {2}: {3:f3}x "
                                "({4:f3}x with all)",
                                Kept.size() == 1 ? "" : "s", listEdits(Kept),
                                Hunks.size(), V.RawRatio, In.Verified->RawRatio)
                      .str());
  M.Outcome =
      llvm::formatv("{0} of {1} edits dropped", M.dropped(), Hunks.size())
          .str();
  noteKeptWarnings(M);
  M.UnminimisedText = In.WinnerText.str();
  M.UnminimisedRatio = In.Verified->Ratio;
  Out.Text = std::move(Smaller.Text);
  Out.Verification = std::move(V);
  return Out;
}
