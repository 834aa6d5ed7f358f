//===-- RulesProposer.cpp - The built-in policy ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesProposer.h"
#include "maxcode/Frontend/PreprocessorBranches.h"
#include "maxcode/Rewrite/FormatStyle.h"
#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Options.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Frontend/ASTUnit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#define DEBUG_TYPE "maxcode-rules"

using namespace maxcode;
using namespace clang;

namespace {
/// A tag and the rules whose score it multiplies.
struct Promotion {
  CritiqueTag Tag;
  double Factor;
  const char *Rules[8];
};

const Promotion Promotions[] = {
    {CritiqueTag::IOBound, 2.0, {"fast-io", "endl-to-newline", nullptr}},
    {CritiqueTag::StartupBound,
     2.0,
     {"fast-io", "prune-includes", "remove-unused-globals",
      "string-to-char-buffer"}},
    // Pragmas come after the rewrites: they are credited only where wall
    // time confirms them (docs/Evaluation.md, "Compiler hints").
    {CritiqueTag::HotLoop,
     1.5,
     {"hoist-loop-invariant", "accumulate-in-local", "monotone-loop-exit",
      "loop-unroll-pragma"}},
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
    // The CPU evidence (CpuEvidence.h).
    {CritiqueTag::NotVectorised,
     1.5,
     {"accumulate-in-local", "restrict-pointer-params", "hoist-loop-invariant",
      "implicit-conversion-in-loop"}},
    {CritiqueTag::CacheMissBound,
     1.5,
     {"loop-interchange", "map-to-unordered-map", "byte-key-table",
      "set-to-sorted-vector", "reserve-before-push-back"}},
    {CritiqueTag::MispredictBound, 2.0, {"branch-to-select", nullptr}},
    // Calls the optimiser cannot remove: a copy, an allocation per
    // comparison or concatenation, a linear search of a set.
    {CritiqueTag::CallBound,
     1.5,
     {"hoist-loop-invariant", "byte-key-table", "const-ref-param",
      "unnecessary-copy-init", "memoize-recursion", "inefficient-algorithm",
      "substr-compare", "string-append"}},
    {CritiqueTag::PerElementIO,
     2.0,
     {"block-io", "fast-io", "endl-to-newline", nullptr}},
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

//===----------------------------------------------------------------------===//
// Formatting what the rules wrote.
//===----------------------------------------------------------------------===//

/// \p Replaces with their line breaks written as \p Code's: the rules
/// write '\n'; in a file whose lines end with CRLF, theirs do too
/// (clang-format derives the same for the whitespace it lays out), so that
/// the variant's diff is the lines changed, not mixed line endings. Empty
/// where \p Code's lines end with '\n'.
static llvm::Expected<tooling::Replacements>
inFileLineEndings(llvm::StringRef Code, const tooling::Replacements &Replaces) {
  tooling::Replacements InFileEndings;
  if (Code.count("\r\n") * 2 <= Code.count('\n'))
    return InFileEndings;
  for (const tooling::Replacement &Rep : Replaces) {
    std::string Text;
    llvm::StringRef New = Rep.getReplacementText();
    for (size_t I = 0; I < New.size(); ++I) {
      if (New[I] == '\n' && (I == 0 || New[I - 1] != '\r'))
        Text += '\r';
      Text += New[I];
    }
    if (llvm::Error E = InFileEndings.add(tooling::Replacement(
            Rep.getFilePath(), Rep.getOffset(), Rep.getLength(), Text)))
      return E;
  }
  return InFileEndings;
}

/// Of clang-format's cleanup \p Merged of \p Edits in \p Code, what the
/// rules own. The cleanup also runs on the lines next to an edit: it would
/// drop the empty argument of a macro invocation there (`CHECK(, debug)`
/// becomes `CHECK(debug)`, which the macro rejects). Of its deletions, only
/// those at what the rule wrote, and those of the #include lines the rule
/// removes, are kept.
static llvm::Expected<tooling::Replacements>
ownCleanup(llvm::StringRef Code, const tooling::Replacements &Edits,
           const tooling::Replacements &Merged) {
  tooling::Replacements Cleaned;
  for (const tooling::Replacement &Rep : Merged) {
    unsigned B = Rep.getOffset(), E = B + Rep.getLength();
    bool AtAnEdit = llvm::any_of(Edits, [&](const tooling::Replacement &W) {
      return W.getOffset() != UINT_MAX && B <= W.getOffset() + W.getLength() &&
             E >= W.getOffset();
    });
    bool OwnDeletion = !Rep.getReplacementText().empty() || AtAnEdit ||
                       Code.substr(B, Rep.getLength()).contains("#include");
    if (OwnDeletion)
      if (llvm::Error Err = Cleaned.add(Rep))
        return Err;
  }
  return Cleaned;
}

/// The layout of what \p Cleaned, applied to \p Code, wrote into \p Text.
static tooling::Replacements
layoutOfWritten(const format::FormatStyle &Style, llvm::StringRef Code,
                llvm::StringRef Text, const tooling::Replacements &Cleaned,
                llvm::StringRef File) {
  // Format the text the rules wrote, not the lines they only deleted from,
  // nor the line break that ends what they wrote: the next line stays as
  // the user wrote it. Whole lines a rule inserts (a pragma, a declaration
  // before a statement) are laid out on their own, and only they are
  // changed: clang-format counts the line after a range as touched (and with
  // it the block that line opens), so the user's next line, the whole
  // function after a pushed pragma, or the blank lines at the end of the
  // file would be laid out anew.
  std::vector<tooling::Range> Ranges, Lines;
  // Ranges[I] with the line break that ends it, if it had one.
  std::vector<tooling::Range> Spans;
  int Shift = 0;
  for (const tooling::Replacement &Rep : Cleaned) {
    llvm::StringRef Written = Rep.getReplacementText();
    unsigned Offset = Rep.getOffset() + Shift;
    Shift += int(Written.size()) - int(Rep.getLength());
    // Lines inserted at a line start, or after a token as lines of their
    // own (a pop after the target's closing brace).
    bool AfterBreak = Written.starts_with("\n") || Written.starts_with("\r\n");
    bool WholeLines =
        Rep.getLength() == 0 &&
        (AfterBreak ||
         (Written.ends_with("\n") &&
          (Rep.getOffset() == 0 || Code[Rep.getOffset() - 1] == '\n')));
    if (WholeLines && AfterBreak) {
      unsigned Break = Written.starts_with("\r\n") ? 2 : 1;
      Offset += Break;
      Written = Written.drop_front(Break);
    }
    unsigned WithBreak = Written.size();
    if (Written.ends_with("\n"))
      Written = Written.drop_back(Written.ends_with("\r\n") ? 2 : 1);
    if (Written.empty())
      continue;
    (WholeLines ? Lines : Ranges)
        .push_back(tooling::Range(Offset, Written.size()));
    if (!WholeLines)
      Spans.push_back(tooling::Range(Offset, WithBreak));
  }
  // clang-format lays out the whole unwrapped line a range touches (a
  // signature re-wrapped, tabs turned to spaces, a comment's trailing
  // blanks stripped, `256 >> >` closed up); of its answer, only the
  // whitespace runs that hold something the rule wrote are taken (or are
  // all the rule's: the indentation after a line break it wrote before a
  // statement), so that every byte the user wrote stays as it was.
  tooling::Replacements Layout;
  if (!Ranges.empty())
    for (const tooling::Replacement &Rep :
         format::reformat(Style, Text, Ranges, File)) {
      unsigned B = Rep.getOffset(), E = B + Rep.getLength();
      bool Touches = false;
      for (size_t I = 0; I < Ranges.size(); ++I) {
        const tooling::Range &R = Ranges[I], &S = Spans[I];
        Touches |= (B < R.getOffset() + R.getLength() && E > R.getOffset()) ||
                   (B >= S.getOffset() && E <= S.getOffset() + S.getLength());
      }
      if (Touches)
        llvm::consumeError(Layout.add(Rep));
    }
  if (!Lines.empty()) {
    for (const tooling::Replacement &Rep :
         format::reformat(Style, Text, Lines, File)) {
      // On an inserted line, its indentation included; not the whitespace
      // after it.
      bool OnALine = llvm::any_of(Lines, [&](const tooling::Range &L) {
        return Rep.getOffset() < L.getOffset() + L.getLength() &&
               Rep.getOffset() + Rep.getLength() >= L.getOffset();
      });
      // Where both lay out the same whitespace, the first answer stands.
      if (OnALine)
        llvm::consumeError(Layout.add(Rep));
    }
  }
  return Layout;
}

llvm::Expected<std::string>
maxcode::applyRuleReplacements(llvm::StringRef Code, llvm::StringRef File,
                               const tooling::Replacements &Replaces) {
  format::FormatStyle Style = styleForEdits(File, Code);
  llvm::Expected<tooling::Replacements> InFileEndings =
      inFileLineEndings(Code, Replaces);
  if (!InFileEndings)
    return InFileEndings.takeError();
  const tooling::Replacements &Edits =
      InFileEndings->empty() ? Replaces : *InFileEndings;
  llvm::Expected<tooling::Replacements> Merged =
      format::cleanupAroundReplacements(Code, Edits, Style);
  if (!Merged)
    return Merged.takeError();
  llvm::Expected<tooling::Replacements> Cleaned =
      ownCleanup(Code, Edits, *Merged);
  if (!Cleaned)
    return Cleaned.takeError();
  llvm::Expected<std::string> Text =
      tooling::applyAllReplacements(Code, *Cleaned);
  if (!Text)
    return Text.takeError();
  return tooling::applyAllReplacements(
      *Text, layoutOfWritten(Style, Code, *Text, *Cleaned, File));
}

//===----------------------------------------------------------------------===//
// Edits and variants.
//===----------------------------------------------------------------------===//

namespace {
/// The function definitions of the main file with their byte ranges: where
/// an edit is.
struct FunctionSpan {
  unsigned Begin, End;
  std::string Name;
};

std::vector<FunctionSpan> functionSpans(ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const SourceManager &SM;
    std::vector<FunctionSpan> Spans;
    explicit Finder(const SourceManager &SM) : SM(SM) {}
    bool VisitFunctionDecl(FunctionDecl *FD) {
      if (!FD->doesThisDeclarationHaveABody() || FD->isImplicit() ||
          FD->isTemplateInstantiation())
        return true;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
          MD && MD->getParent()->isLambda())
        return true;
      SourceLocation B = SM.getExpansionLoc(FD->getBeginLoc());
      SourceLocation E = SM.getExpansionLoc(FD->getEndLoc());
      if (!SM.isWrittenInMainFile(B) || !SM.isWrittenInMainFile(E))
        return true;
      Spans.push_back({SM.getFileOffset(B), SM.getFileOffset(E) + 1,
                       FD->getQualifiedNameAsString()});
      return true;
    }
  } F(AST.getSourceManager());
  F.TraverseDecl(AST.getTranslationUnitDecl());
  return F.Spans;
}

/// Whether a rule's edit stays in what the pass it read compiles.
class BranchCheck {
public:
  BranchCheck(const RuleRequest &R, llvm::StringRef Code)
      : R(R), Code(Code), Directives(conditionalDirectiveOffsets(Code)) {}

  /// Why \p E, an edit of \p Rl, is no edit to make; nothing when it is
  /// one.
  std::optional<std::string> whyDropped(const RuleEdit &E, const Rule &Rl) {
    // The rule read one branch of each `#if` (the AST of one pass): text it
    // rewrites across a directive drops or duplicates the branches it did
    // not read (a body turned into a float4 loop, copying the
    // `#if __CUDA_ARCH__` branch that names a variable it removed).
    for (const tooling::Replacement &Rep : E.Replaces) {
      unsigned Off = Rep.getOffset();
      if (Off == UINT_MAX || Rep.getLength() == 0)
        continue;
      for (unsigned D : Directives)
        if (D >= Off && D < Off + Rep.getLength())
          return "it rewrites across the preprocessor conditional on line " +
                 std::to_string(Code.take_front(D).count('\n') + 1) +
                 ", whose other branches the rule did not read";
    }
    // Device code the device pass skips (the `#else` of
    // `#if __CUDA_ARCH__ >= 530` for sm_90) is read by the host pass, which
    // never compiles a kernel's body: an edit there changes nothing. In a
    // `__host__ __device__` function it is the host's own branch, where a
    // rule for GPU code (`__expf`) has nothing to do.
    bool DeviceRule = Rl.getLanguages() == RuleLanguages::Cuda;
    if (R.T->HostCode &&
        !(DeviceRule && R.T->Kind == TargetKind::CudaDeviceFunction))
      return std::nullopt;
    bool InSkipped = llvm::all_of(E.Replaces, [&](const auto &Rep) {
      unsigned Off = Rep.getOffset();
      return Off != UINT_MAX && Off >= R.T->BeginOffset &&
             Off < R.T->EndOffset && isDeviceSkipped(Off);
    });
    if (!InSkipped)
      return std::nullopt;
    if (R.T->HostCode)
      return std::string("it edits the host's branch of a preprocessor "
                         "conditional that the device pass skips, and " +
                         Rl.getId().str() + " is a rule for GPU code");
    return std::string("it edits a branch of the kernel's preprocessor "
                       "conditionals that the device pass skips (the "
                       "command's __CUDA_ARCH__): it changes nothing the GPU "
                       "runs");
  }

private:
  bool isDeviceSkipped(unsigned Offset) {
    if (!Skipped) {
      auto S = deviceSkippedRanges(*R.Parsed);
      if (!S) {
        // Unknown: the edit is kept, and the variant's compile check and
        // screen judge it.
        std::string Why = llvm::toString(S.takeError());
        MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << Why << "\n");
        Skipped.emplace();
      } else {
        Skipped = std::move(*S);
      }
    }
    return llvm::any_of(*Skipped,
                        [&](const ByteRange &B) { return B.contains(Offset); });
  }

  const RuleRequest &R;
  llvm::StringRef Code;
  std::vector<unsigned> Directives;
  std::optional<std::vector<ByteRange>> Skipped;
};

/// The innermost function holding \p Offset, or "".
std::string placeOf(llvm::ArrayRef<FunctionSpan> Spans, unsigned Offset) {
  const FunctionSpan *Best = nullptr;
  for (const FunctionSpan &S : Spans)
    if (Offset >= S.Begin && Offset < S.End &&
        (!Best || S.End - S.Begin < Best->End - Best->Begin))
      Best = &S;
  return Best ? Best->Name : "";
}
} // namespace

std::vector<PlacedEdit> maxcode::collectRuleEdits(const RuleRequest &R) {
  std::vector<PlacedEdit> Edits;
  if (!R.Parsed || !R.Parsed->AST || !R.T)
    return Edits;
  RuleContext Ctx(*R.Parsed, *R.T, R.Options, R.OriginalText);
  std::vector<FunctionSpan> Spans = functionSpans(Ctx.getASTContext());
  llvm::StringRef Before = Ctx.getCode().take_front(R.T->BeginOffset);
  unsigned TargetLineStart = Before.rfind('\n') + 1; // 0 on the first line
  if (!Before.drop_front(TargetLineStart).ltrim(" \t").empty())
    TargetLineStart = R.T->BeginOffset;
  BranchCheck Branches(R, Ctx.getCode());
  for (const Rule *Rl : R.Selection.getEnabledRules()) {
    if ((Rl->getLanguages() & Ctx.getLanguage()) == RuleLanguages(0)) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": " << Rl->getId()
                    << ": skipped, a rule for "
                    << describeLanguages(Rl->getLanguages()) << " files, not "
                    << describeLanguages(Ctx.getLanguage()) << "\n");
      continue;
    }
    std::vector<RuleEdit> Out;
    Rl->propose(Ctx, Out);
    // A rule that proposes nothing has found nothing it can prove safe in
    // what the scope lets it edit.
    MAXCODE_DEBUG({
      llvm::dbgs() << DEBUG_TYPE << ": " << Rl->getId() << ": "
                   << (Out.empty() ? "no edit"
                                   : std::to_string(Out.size()) + " edit(s)")
                   // Debug output is asked for on the command line only
                   // (-debug-only), so it names the setting as a flag.
                   << (R.Options.Scope == EditScope::Target
                           ? " in the target (" +
                                 OptionNames(OptionNames::Flags)("Scope") +
                                 "=target)"
                           : std::string())
                   << "\n";
      for (const RuleEdit &E : Out)
        llvm::dbgs() << DEBUG_TYPE << ":   " << E.Description << "\n";
    });
    double Factor = critiqueFactor(Rl->getId(), R.Critiques);
    for (RuleEdit &E : Out) {
      if (E.Replaces.empty())
        continue;
      if (std::optional<std::string> Why = Branches.whyDropped(E, *Rl)) {
        MAXCODE_DEBUG(llvm::dbgs()
                      << DEBUG_TYPE << ": " << Rl->getId() << ": dropped '"
                      << E.Description << "': " << *Why << "\n");
        continue;
      }
      PlacedEdit P;
      for (const tooling::Replacement &Rep : E.Replaces) {
        // Lines put in at the start of an indented target's first line
        // (before its indentation) are the target's.
        unsigned Offset = Rep.getOffset();
        if (Offset != UINT_MAX && Offset >= TargetLineStart &&
            Offset < R.T->BeginOffset)
          Offset = R.T->BeginOffset;
        // Header insertions and removals are outside every function.
        std::string Place =
            Offset == UINT_MAX ? std::string() : placeOf(Spans, Offset);
        if (!llvm::is_contained(P.Places, Place))
          P.Places.push_back(Place);
        if (Offset != UINT_MAX && Offset >= R.T->BeginOffset &&
            Offset + Rep.getLength() <= R.T->EndOffset)
          P.InTarget = true;
      }
      E.Score *= Factor;
      // The target's edits come first among equals.
      if (P.InTarget)
        E.Score += 1;
      P.Edit = std::move(E);
      Edits.push_back(std::move(P));
    }
  }
  auto TieBreak = [&](const PlacedEdit &E) {
    return llvm::xxh3_64bits(E.Edit.RuleId + "\n" + E.Edit.Description) ^
           R.Seed;
  };
  std::stable_sort(Edits.begin(), Edits.end(),
                   [&](const PlacedEdit &A, const PlacedEdit &B) {
                     if (A.Edit.Score != B.Edit.Score)
                       return A.Edit.Score > B.Edit.Score;
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
  bool add(llvm::ArrayRef<const PlacedEdit *> Edits) {
    if (Out.size() >= R.MaxCount || Edits.empty())
      return false;
    tooling::Replacements All;
    for (const PlacedEdit *E : Edits)
      if (!mergeReplacements(All, E->Edit.Replaces)) {
        MAXCODE_DEBUG(llvm::dbgs()
                      << DEBUG_TYPE << ": dropped " << describe(Edits) << ": "
                      << E->Edit.RuleId << "'s edits overlap the others'\n");
        return false;
      }
    llvm::Expected<std::string> Text =
        applyRuleReplacements(Code, R.T->File, All);
    if (!Text)
      return drop(Edits, "they do not apply", Text.takeError());
    if (!Seen.insert(*Text).second) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": dropped " << describe(Edits)
                    << ": the same text as a variant before\n");
      return false;
    }
    if (llvm::Error Err = checkScope(Code, *Text, *R.T, R.Options.Scope))
      return drop(Edits, "it breaks the scope", std::move(Err));
    Variant V;
    V.Text = std::move(*Text);
    for (const PlacedEdit *E : Edits) {
      if (!llvm::is_contained(V.Rules, E->Edit.RuleId))
        V.Rules.push_back(E->Edit.RuleId);
      V.Description +=
          (V.Description.empty() ? "" : "; ") + E->Edit.Description;
      // The file around the functions is named only when the edit changes
      // nothing else (a pragma, an include).
      bool OnlyFile = llvm::all_of(
          E->Places, [](const std::string &P) { return P.empty(); });
      for (const std::string &Place : E->Places) {
        if (Place.empty() && !OnlyFile)
          continue;
        bool Known = llvm::any_of(V.Changes, [&](const VariantChange &C) {
          return C.Where == Place && C.What == E->Edit.Label;
        });
        if (Known)
          continue;
        VariantChange C{Place, E->Edit.Label, {}};
        for (const tooling::Replacement &Rep : E->Edit.Replaces)
          if (!Rep.getReplacementText().empty())
            C.Inserted.push_back(Rep.getReplacementText().str());
        V.Changes.push_back(std::move(C));
      }
    }
    Out.push_back(std::move(V));
    return true;
  }

  bool full() const { return Out.size() >= R.MaxCount; }
  std::vector<Variant> take() { return std::move(Out); }

private:
  /// "rule-id (description) + ...", for the debug output.
  static std::string describe(llvm::ArrayRef<const PlacedEdit *> Edits) {
    std::string Out;
    for (const PlacedEdit *E : Edits)
      Out += (Out.empty() ? "" : " + ") + E->Edit.RuleId + " (" +
             E->Edit.Description + ")";
    return Out;
  }
  /// Says why a combination gave no variant (-debug-only=maxcode-rules).
  static bool drop(llvm::ArrayRef<const PlacedEdit *> Edits,
                   llvm::StringRef Why, llvm::Error E) {
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": dropped " << describe(Edits) << ": "
                  << Why << ": " << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
    return false;
  }

  const RuleRequest &R;
  llvm::StringRef Code;
  llvm::StringSet<> Seen;
  std::vector<Variant> Out;
};

/// The most promising compatible edits of those \p Keep accepts, at most
/// one per group, in order.
std::vector<const PlacedEdit *>
compatibleEdits(llvm::ArrayRef<PlacedEdit> Edits,
                llvm::function_ref<bool(const PlacedEdit &)> Keep) {
  std::vector<const PlacedEdit *> Chosen;
  tooling::Replacements All;
  llvm::StringSet<> Groups;
  for (const PlacedEdit &E : Edits) {
    if (!E.Edit.Combinable || !Keep(E) ||
        (!E.Edit.Group.empty() && Groups.contains(E.Edit.Group)))
      continue;
    tooling::Replacements Trial = All;
    if (!mergeReplacements(Trial, E.Edit.Replaces))
      continue;
    All = std::move(Trial);
    Chosen.push_back(&E);
    if (!E.Edit.Group.empty())
      Groups.insert(E.Edit.Group);
  }
  return Chosen;
}
} // namespace

std::vector<Variant> maxcode::proposeWithRules(const RuleRequest &R) {
  std::vector<PlacedEdit> Edits = collectRuleEdits(R);
  if (Edits.empty())
    return {};
  const SourceManager &SM = R.Parsed->AST->getSourceManager();
  llvm::StringRef Code = SM.getBufferData(SM.getMainFileID());
  VariantBuilder B(R, Code);

  // Everything that goes together first: with a small budget the one
  // variant that applies every safe rule is the best single bet.
  std::vector<const PlacedEdit *> All =
      compatibleEdits(Edits, [](const PlacedEdit &) { return true; });
  if (All.size() > 1)
    B.add(All);
  // Then the target's own edits together, without what they would change
  // elsewhere: the fix of the target alone, for the search to measure.
  std::vector<const PlacedEdit *> Target =
      compatibleEdits(Edits, [](const PlacedEdit &E) { return E.InTarget; });
  if (Target.size() > 1 && Target.size() < All.size())
    B.add(Target);
  // Then each edit alone, so that a failing combination is taken apart.
  for (const PlacedEdit &E : Edits) {
    if (B.full())
      break;
    B.add({&E});
  }
  // Then the best few together.
  for (size_t K = 2; K + 1 < All.size() && !B.full(); ++K)
    B.add(llvm::ArrayRef(All).take_front(K));
  return B.take();
}
