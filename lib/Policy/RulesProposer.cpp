//===-- RulesProposer.cpp - The built-in policy ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesProposer.h"
#include "Rules.h"
#include "maxcode/Rewrite/Scope.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/xxhash.h"

using namespace maxcode;

namespace {
/// A tag and the rules whose score it multiplies.
struct Promotion {
  CritiqueTag Tag;
  double Factor;
  const char *Rules[4];
};

const Promotion Promotions[] = {
    {CritiqueTag::IOBound, 2.0, {"fast-io", "endl-to-newline", nullptr}},
    {CritiqueTag::StartupBound,
     2.0,
     {"fast-io", "prune-includes", "remove-unused-globals", nullptr}},
    {CritiqueTag::HotLoop,
     1.5,
     {"hoist-loop-invariant", "loop-unroll-pragma", "gcc-pragmas",
      "memoize-recursion"}},
    {CritiqueTag::MemoryBound,
     2.0,
     {"cuda-vectorize-float4", "cuda-restrict-ldg", "cuda-smem-tiling",
      nullptr}},
    {CritiqueTag::ComputeBound,
     1.5,
     {"cuda-fast-math", "cuda-unroll", "loop-unroll-pragma", "gcc-pragmas"}},
    {CritiqueTag::LatencyBound,
     1.5,
     {"cuda-launch-config", "cuda-grid-stride", "cuda-unroll", nullptr}},
    {CritiqueTag::RegisterLimited, 2.0, {"cuda-launch-bounds", nullptr}},
    {CritiqueTag::BlockSizeLimited, 2.0, {"cuda-launch-config", nullptr}},
    {CritiqueTag::SharedMemoryLimited, 1.5, {"tune-constants", nullptr}},
    {CritiqueTag::LowOccupancy,
     1.5,
     {"cuda-launch-config", "cuda-launch-bounds", nullptr}},
    {CritiqueTag::PoorL1HitRate,
     1.5,
     {"cuda-smem-tiling", "cuda-restrict-ldg", nullptr}},
    {CritiqueTag::PoorL2HitRate, 1.5, {"cuda-smem-tiling", nullptr}},
};

bool isFailure(const Critique &C) {
  return C.has(CritiqueTag::BuildError) || C.has(CritiqueTag::Crash) ||
         C.has(CritiqueTag::Timeout) || C.has(CritiqueTag::WrongOutput) ||
         C.has(CritiqueTag::Rejected);
}
} // namespace

double maxcode::critiqueFactor(llvm::StringRef RuleId,
                               llvm::ArrayRef<Critique> Critiques) {
  double Factor = 1;
  for (const Critique &C : Critiques) {
    if (llvm::is_contained(C.BlamedRules, RuleId)) {
      // A rule that broke a build or the output once is tried last (not
      // dropped: a later incumbent may suit it); one that made code slower
      // comes after the untried ones.
      if (isFailure(C))
        Factor *= 0.1;
      else if (C.has(CritiqueTag::Slower) || C.has(CritiqueTag::WithinNoise))
        Factor *= 0.5;
    }
  }
  // Tags speak about the current code: only the latest critique counts.
  if (!Critiques.empty()) {
    const Critique &Last = Critiques.back();
    for (const Promotion &P : Promotions) {
      if (!Last.has(P.Tag))
        continue;
      for (const char *Id : P.Rules)
        if (Id && RuleId == Id)
          Factor *= P.Factor;
    }
  }
  return Factor;
}

std::vector<RuleEdit> maxcode::collectRuleEdits(const RuleRequest &R) {
  std::vector<RuleEdit> Edits;
  if (!R.Parsed || !R.Parsed->AST || !R.T)
    return Edits;
  RuleContext Ctx(*R.Parsed, *R.T, R.Options);
  for (const Rule *Rl : R.Selection.getEnabledRules()) {
    if (Rl->isCudaOnly() && !Ctx.isCuda())
      continue;
    std::vector<RuleEdit> Out;
    Rl->propose(Ctx, Out);
    double Factor = critiqueFactor(Rl->getId(), R.Critiques);
    for (RuleEdit &E : Out) {
      if (E.Replaces.empty())
        continue;
      E.Score *= Factor;
      // Edits inside the target come before edits elsewhere.
      bool Inside = llvm::all_of(E.Replaces, [&](const auto &Rep) {
        return Rep.getOffset() >= R.T->BeginOffset &&
               Rep.getOffset() + Rep.getLength() <= R.T->EndOffset;
      });
      if (Inside)
        E.Score += 1;
      Edits.push_back(std::move(E));
    }
  }
  auto TieBreak = [&](const RuleEdit &E) {
    return llvm::xxh3_64bits(E.RuleId + "\n" + E.Description) ^ R.Seed;
  };
  std::stable_sort(Edits.begin(), Edits.end(),
                   [&](const RuleEdit &A, const RuleEdit &B) {
                     if (A.Score != B.Score)
                       return A.Score > B.Score;
                     return TieBreak(A) < TieBreak(B);
                   });
  return Edits;
}

namespace {
/// Builds variants from edits, skipping texts seen already.
class VariantBuilder {
public:
  VariantBuilder(const RuleRequest &R, llvm::StringRef Code)
      : R(R), Code(Code) {
    Seen.insert(Code);
  }

  /// Adds the variant applying \p Edits together; false when they conflict,
  /// do not apply, break the scope, or give a text seen before.
  bool add(llvm::ArrayRef<const RuleEdit *> Edits) {
    if (Out.size() >= R.MaxCount || Edits.empty())
      return false;
    clang::tooling::Replacements All;
    for (const RuleEdit *E : Edits)
      if (!mergeReplacements(All, E->Replaces))
        return false;
    llvm::Expected<std::string> Text =
        clang::tooling::applyAllReplacements(Code, All);
    if (!Text) {
      llvm::consumeError(Text.takeError());
      return false;
    }
    if (!Seen.insert(*Text).second)
      return false;
    if (llvm::Error Err = checkScope(Code, *Text, *R.T, R.Options.Scope)) {
      llvm::consumeError(std::move(Err));
      return false;
    }
    Variant V;
    V.Text = std::move(*Text);
    for (const RuleEdit *E : Edits) {
      if (!llvm::is_contained(V.Rules, E->RuleId))
        V.Rules.push_back(E->RuleId);
      V.Description += (V.Description.empty() ? "" : "; ") + E->Description;
    }
    Out.push_back(std::move(V));
    return true;
  }

  bool full() const { return Out.size() >= R.MaxCount; }
  std::vector<Variant> take() { return std::move(Out); }

private:
  const RuleRequest &R;
  llvm::StringRef Code;
  llvm::StringSet<> Seen;
  std::vector<Variant> Out;
};

/// The most promising compatible edits, at most one per group, in order;
/// at most \p Limit of them.
std::vector<const RuleEdit *> compatiblePrefix(llvm::ArrayRef<RuleEdit> Edits,
                                               size_t Limit) {
  std::vector<const RuleEdit *> Chosen;
  clang::tooling::Replacements All;
  llvm::StringSet<> Groups;
  for (const RuleEdit &E : Edits) {
    if (Chosen.size() >= Limit)
      break;
    if (!E.Combinable || (!E.Group.empty() && Groups.contains(E.Group)))
      continue;
    clang::tooling::Replacements Trial = All;
    if (!mergeReplacements(Trial, E.Replaces))
      continue;
    All = std::move(Trial);
    Chosen.push_back(&E);
    if (!E.Group.empty())
      Groups.insert(E.Group);
  }
  return Chosen;
}
} // namespace

std::vector<Variant> maxcode::proposeWithRules(const RuleRequest &R) {
  std::vector<RuleEdit> Edits = collectRuleEdits(R);
  if (Edits.empty())
    return {};
  const clang::SourceManager &SM = R.Parsed->AST->getSourceManager();
  llvm::StringRef Code = SM.getBufferData(SM.getMainFileID());
  VariantBuilder B(R, Code);

  // Everything that goes together first: with a small budget the one
  // variant that applies every safe rule is the best single bet.
  std::vector<const RuleEdit *> All = compatiblePrefix(Edits, Edits.size());
  if (All.size() > 1)
    B.add(All);
  // Then each edit alone, so that a failing combination is taken apart.
  for (const RuleEdit &E : Edits) {
    if (B.full())
      break;
    B.add({&E});
  }
  // Then the best few together.
  for (size_t K = 2; K + 1 < All.size() && !B.full(); ++K)
    B.add(llvm::ArrayRef(All).take_front(K));
  return B.take();
}
