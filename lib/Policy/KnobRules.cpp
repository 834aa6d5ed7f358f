//===-- KnobRules.cpp - Integer constants to tune -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/Knobs.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace maxcode;
using namespace clang;

llvm::StringRef maxcode::knobKindName(KnobKind K) {
  switch (K) {
  case KnobKind::Marked:
    return "marked";
  case KnobKind::Constant:
    return "constant";
  case KnobKind::Unroll:
    return "unroll";
  }
  llvm_unreachable("unknown knob kind");
}

static double distance(int64_t A, int64_t B) {
  return std::abs(std::log2((double)A / (double)B));
}

std::vector<int64_t> maxcode::powerOfTwoNeighbours(int64_t Current,
                                                   int64_t Min, int64_t Max) {
  std::vector<int64_t> Out;
  if (Current <= 0)
    return Out;
  for (int64_t V : {Current / 4, Current / 2, Current * 2, Current * 4}) {
    bool Exact = V * 4 == Current || V * 2 == Current || V == Current * 2 ||
                 V == Current * 4;
    if (Exact && V >= Min && V <= Max && V != Current &&
        !llvm::is_contained(Out, V))
      Out.push_back(V);
  }
  llvm::stable_sort(Out, [&](int64_t A, int64_t B) {
    if (distance(A, Current) != distance(B, Current))
      return distance(A, Current) < distance(B, Current);
    return A < B;
  });
  return Out;
}

std::optional<std::vector<int64_t>>
maxcode::parseTuneList(llvm::StringRef Text) {
  std::vector<int64_t> Out;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    int64_t V;
    if (P.trim().getAsInteger(10, V))
      return std::nullopt;
    if (!llvm::is_contained(Out, V))
      Out.push_back(V);
  }
  if (Out.empty())
    return std::nullopt;
  return Out;
}

/// Names that say "a size of the work decomposition", not "a size of the
/// problem": changing them keeps the meaning when the code is written
/// generically in them.
static bool isTunableName(llvm::StringRef Name) {
  std::string U = Name.upper();
  llvm::StringRef N(U);
  if (N.contains("WARP"))
    return false;
  return N.contains("TILE") || N.contains("BLOCK") || N.contains("THREAD") ||
         N.contains("UNROLL") || N.contains("CHUNK") || N.contains("BATCH") ||
         N == "BS" || N == "TB" || N == "TPB" || N.starts_with("BLK") ||
         N.ends_with("_BS");
}

static bool isPowerOfTwo(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

namespace {
/// The lines of the main file with their offsets.
struct Line {
  unsigned Offset;
  unsigned Number;
  llvm::StringRef Text;
};

std::vector<Line> linesOf(llvm::StringRef Code) {
  std::vector<Line> Out;
  unsigned Offset = 0, Number = 1;
  while (Offset <= Code.size()) {
    size_t NL = Code.find('\n', Offset);
    size_t End = NL == llvm::StringRef::npos ? Code.size() : NL;
    Out.push_back({Offset, Number, Code.slice(Offset, End)});
    if (NL == llvm::StringRef::npos)
      break;
    Offset = NL + 1;
    ++Number;
  }
  return Out;
}

/// The last decimal integer literal of \p Text: its offset and value.
std::optional<std::pair<unsigned, int64_t>> lastInteger(llvm::StringRef Text) {
  std::optional<std::pair<unsigned, int64_t>> Found;
  for (size_t I = 0; I < Text.size();) {
    if (!llvm::isDigit(Text[I]) ||
        (I > 0 && (llvm::isAlnum(Text[I - 1]) || Text[I - 1] == '_' ||
                   Text[I - 1] == '.'))) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Text.size() && llvm::isDigit(Text[J]))
      ++J;
    int64_t V;
    bool Float = J < Text.size() && (Text[J] == '.' || Text[J] == 'e' ||
                                     Text[J] == 'x' || Text[J] == 'f');
    if (!Float && !Text.slice(I, J).getAsInteger(10, V))
      Found = std::make_pair(unsigned(I), V);
    I = J;
  }
  return Found;
}
} // namespace

std::vector<Knob> maxcode::findKnobs(const RuleContext &Ctx) {
  std::vector<Knob> Out;
  llvm::StringRef Code = Ctx.getCode();
  auto Editable = [&](unsigned Off) {
    return Off >= Ctx.getEditBegin() && Off < Ctx.getEditEnd();
  };
  auto Add = [&](Knob K) {
    if (K.Values.empty() || !Editable(K.Offset))
      return;
    for (const Knob &Old : Out)
      if (Old.Offset == K.Offset)
        return;
    Out.push_back(std::move(K));
  };

  for (const Line &L : linesOf(Code)) {
    llvm::StringRef T = L.Text;
    // `// maxcode: tune(a,b,c)` after a literal.
    size_t Mark = T.find("maxcode: tune(");
    size_t Comment = T.find("//");
    if (Mark != llvm::StringRef::npos && Comment != llvm::StringRef::npos &&
        Comment < Mark) {
      llvm::StringRef List = T.substr(Mark + 14);
      size_t Close = List.find(')');
      auto Values = Close == llvm::StringRef::npos
                        ? std::nullopt
                        : parseTuneList(List.take_front(Close));
      auto Lit = lastInteger(T.take_front(Comment));
      if (Values && Lit) {
        Knob K;
        K.Kind = KnobKind::Marked;
        K.Line = L.Number;
        K.Offset = L.Offset + Lit->first;
        K.Length = std::to_string(Lit->second).size();
        K.Current = Lit->second;
        K.Name = llvm::formatv("marked constant at line {0}", L.Number).str();
        for (int64_t V : *Values)
          if (V != K.Current)
            K.Values.push_back(V);
        Add(std::move(K));
      }
      continue;
    }
    llvm::StringRef Trim = T.ltrim();
    // `#pragma unroll N`, `#pragma GCC unroll N`.
    if (Trim.consume_front("#")) {
      Trim = Trim.ltrim();
      if (Trim.consume_front("pragma")) {
        llvm::StringRef Rest = Trim.ltrim();
        Rest.consume_front("GCC");
        Rest = Rest.ltrim();
        if (Rest.consume_front("unroll")) {
          auto Lit = lastInteger(T);
          if (Lit && Rest.trim() == std::to_string(Lit->second)) {
            Knob K;
            K.Kind = KnobKind::Unroll;
            K.Line = L.Number;
            K.Offset = L.Offset + Lit->first;
            K.Length = std::to_string(Lit->second).size();
            K.Current = Lit->second;
            K.Name = llvm::formatv("unroll at line {0}", L.Number).str();
            for (int64_t V : {2, 4, 8, 16})
              if (V != K.Current)
                K.Values.push_back(V);
            llvm::stable_sort(K.Values, [&](int64_t A, int64_t B) {
              return distance(A, K.Current) < distance(B, K.Current);
            });
            Add(std::move(K));
          }
        }
        continue;
      }
      // `#define TILE 16`.
      if (Trim.consume_front("define")) {
        llvm::StringRef Rest = Trim.ltrim();
        llvm::StringRef Name = Rest.take_while(
            [](char C) { return llvm::isAlnum(C) || C == '_'; });
        llvm::StringRef Body = Rest.drop_front(Name.size());
        if (Body.empty() || Body.front() == '(' || !isTunableName(Name))
          continue;
        size_t C = Body.find("//");
        llvm::StringRef Value = Body.take_front(C).trim();
        int64_t V;
        if (Value.getAsInteger(10, V) || !isPowerOfTwo(V))
          continue;
        Knob K;
        K.Kind = KnobKind::Constant;
        K.Name = Name.str();
        K.Line = L.Number;
        K.Offset = L.Offset + (Value.data() - T.data());
        K.Length = Value.size();
        K.Current = V;
        K.Values = powerOfTwoNeighbours(V, 1, 1024);
        Add(std::move(K));
      }
    }
  }

  // const / constexpr integer variables initialised with a literal.
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const VarDecl *> Vars;
    bool VisitVarDecl(VarDecl *V) {
      if (!isa<ParmVarDecl>(V) && V->getType()->isIntegerType() &&
          (V->getType().isConstQualified() || V->isConstexpr()) &&
          V->getInit() && V->getIdentifier() &&
          isa<IntegerLiteral>(V->getInit()->IgnoreImplicit()))
        Vars.push_back(V);
      return true;
    }
  } F;
  F.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  const SourceManager &SM = Ctx.getSourceManager();
  for (const VarDecl *V : F.Vars) {
    const auto *Lit = cast<IntegerLiteral>(V->getInit()->IgnoreImplicit());
    int64_t Value = Lit->getValue().getSExtValue();
    if (!isTunableName(V->getName()) || !isPowerOfTwo(Value))
      continue;
    auto R = Ctx.getFileRange(Lit->getSourceRange());
    if (!R)
      continue;
    Knob K;
    K.Kind = KnobKind::Constant;
    K.Name = V->getNameAsString();
    K.Line = SM.getExpansionLineNumber(Lit->getBeginLoc());
    K.Offset = R->first;
    K.Length = R->second - R->first;
    K.Current = Value;
    K.Values = powerOfTwoNeighbours(Value, 1, 1024);
    Add(std::move(K));
  }
  llvm::sort(Out, [](const Knob &A, const Knob &B) {
    return A.Offset < B.Offset;
  });
  return Out;
}

namespace {
class TuneConstantsRule : public Rule {
public:
  TuneConstantsRule()
      : Rule("tune-constants",
             "one variant per value of each knob: tile and block sizes, "
             "unroll factors, literals marked `// maxcode: tune(...)`") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    for (const Knob &K : findKnobs(Ctx)) {
      for (int64_t V : K.Values) {
        double Score = 20 - (K.Current > 0 && V > 0 ? distance(V, K.Current)
                                                    : 1.0);
        if (K.Kind == KnobKind::Marked)
          Score += 2; // The user asked for this one.
        RuleEdit E = makeEdit(llvm::formatv("{0} = {1} (was {2})", K.Name, V,
                                            K.Current)
                                  .str(),
                              Score);
        E.Group = llvm::formatv("knob:{0}@{1}", K.Name, K.Line).str();
        E.Combinable = false;
        if (addReplacement(E, Ctx, K.Offset, K.Length, std::to_string(V)))
          Out.push_back(std::move(E));
      }
    }
  }
};
} // namespace

std::unique_ptr<Rule> maxcode::createTuneConstantsRule() {
  return std::make_unique<TuneConstantsRule>();
}
