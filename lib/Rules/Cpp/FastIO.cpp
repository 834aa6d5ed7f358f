//===-- FastIO.cpp - Stream statements as scanf and printf ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A program that includes <iostream> pays for the stream library's start-up
// on every run, and for synchronised streams on every operation; for a
// program that reads a few numbers, that is most of its cost. People fix it
// by hand the same way each time, and so does this rule:
//
// - every stream statement whose operands' types are known becomes its
//   stdio equivalent: `cin >> n >> k;` -> `scanf("%d%d", &n, &k);`,
//   `cout << x << ' ' << y << endl;` -> `printf("%lld %lld\n", x, y);`,
//   `while (cin >> a)` -> `while (scanf("%d", &a) == 1)`; the statements that
//   set the streams up (sync_with_stdio, tie) go, and so do <iostream> and
//   <bits/stdc++.h>, replaced by the headers the file still needs. Only the
//   stream syntax between the operands is rewritten; the operands keep
//   their text (and any other rule's edits inside them).
// - otherwise (a stream passed to a function, a type printf does not know,
//   a format state it cannot follow), `std::ios::sync_with_stdio(false);
//   std::cin.tie(nullptr);` at the start of main, unless the program mixes
//   streams with C stdio.
//
// Floating-point output follows the stream's definition in terms of printf:
// `%g` with precision 6 by default, `%.Nf` after `fixed << setprecision(N)`;
// a format set by one statement and used by another is followed only from a
// statement of main's top level to the statements after it in main.
//
//===----------------------------------------------------------------------===//
#include "FastIO.h"

using namespace maxcode;
using namespace maxcode::fastio;
using namespace clang;

namespace {

class FastIORule : public Rule {
public:
  FastIORule()
      : Rule("fast-io",
             "stream statements to scanf/printf where the types are known, "
             "without <iostream>; else sync_with_stdio(false) and an untied "
             "cin",
             "stdio", RuleLanguages::CPlusPlus) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    Analysis A(Ctx);
    A.run();
    if (A.StreamUses == 0)
      return;
    if (!A.Failed) {
      if (std::optional<RuleEdit> E = makeStdio(Ctx, A))
        Out.push_back(std::move(*E));
    }
    proposeUnsync(Ctx, A, Out);
  }

private:
  /// The stdio edit, or none when a statement cannot be rewritten.
  std::optional<RuleEdit> makeStdio(const RuleContext &Ctx, Analysis &A) const {
    RuleEdit E = makeEdit("", 90);
    E.Group = "fast-io";
    std::vector<unsigned> Lines;
    if (!formats(Ctx, A))
      return std::nullopt;
    for (const Chain &C : A.Chains) {
      Lines.push_back(Ctx.getUserLine(C.Top->getBeginLoc()));
      bool PrintsNothing =
          C.Kind != StreamKind::In &&
          llvm::all_of(C.Operands, [](const Operand &O) {
            return O.IsManipulator || (O.IsFolded && O.Folded.empty());
          });
      if (PrintsNothing) {
        // `cout << fixed << setprecision(9);`: its format is in the
        // statements that print.
        if (!C.Statement)
          return std::nullopt;
        A.SetUp.push_back(C.Statement);
        continue;
      }
      if (!rewriteChain(Ctx, C, E))
        return std::nullopt;
    }
    // Set-up statements, by runs of neighbours in one block.
    if (!removeSetUp(Ctx, A, E))
      return std::nullopt;
    if (!coversPatterns(Ctx, A, E))
      return std::nullopt;
    // The char buffers the statements now read and write (before the
    // headers: the std::string they were needs none).
    bool CString = false;
    for (const CharBuffer &B : A.Buffers) {
      if (!mergeReplacements(E.Replaces, B.Replaces))
        return std::nullopt;
      CString |= B.NeedsCString;
    }
    std::vector<std::string> Spellings, Headers;
    if (!replaceStreamHeaders(Ctx, A, CString, E, Spellings, Headers))
      return std::nullopt;
    E.Description = describeStdio(A, Lines, Spellings, Headers.size());
    return E;
  }

  /// True when every stream named in a template is inside what \p E
  /// rewrites.
  static bool coversPatterns(const RuleContext &Ctx, const Analysis &A,
                             const RuleEdit &E) {
    const SourceManager &SM = Ctx.getSourceManager();
    // Every stream named in a template must be inside what was rewritten.
    for (const DeclRefExpr *D : A.InPatterns) {
      auto R = Ctx.getSpelledRange(D->getSourceRange());
      if (!R)
        return false;
      if (!isReplaced(E, SM.getFileOffset(R->getBegin())))
        return false;
    }
    return true;
  }

  /// Removes the stream headers (their spellings go to \p Spellings) and
  /// adds those the file still needs (\p Headers), with <cstdio> and, for
  /// \p CString, <cstring>.
  static bool replaceStreamHeaders(const RuleContext &Ctx, const Analysis &A,
                                   bool CString, RuleEdit &E,
                                   std::vector<std::string> &Spellings,
                                   std::vector<std::string> &Headers) {
    const SourceManager &SM = Ctx.getSourceManager();
    // <iostream> and <bits/stdc++.h> go; what the file still uses of them
    // comes back by name.
    std::vector<FileID> Removed;
    findStreamIncludes(Ctx, Removed, Spellings);
    Headers = findHeadersNeededWithout(
        Ctx, Removed, [&](const Decl *D, SourceLocation Use) {
          if (streamKindOf(D) != StreamKind::None)
            return true;
          for (const CharBuffer &B : A.Buffers)
            if (llvm::is_contained(B.StringMemberUses, Use))
              return true;
          // Names inside the rewritten stream syntax, or in a removed
          // statement (`IOS;` expanding to `ios::sync_with_stdio(0)`), are
          // gone.
          auto Removed = [&](SourceLocation L) {
            if (L.isInvalid() || !SM.isWrittenInMainFile(L))
              return false;
            return isReplaced(E, SM.getFileOffset(L));
          };
          auto R = Ctx.getSpelledRange(SourceRange(Use, Use));
          return (R && Removed(R->getBegin())) ||
                 Removed(SM.getExpansionLoc(Use));
        });
    for (const std::string &S : Spellings)
      if (!removeHeader(E, Ctx, S))
        return false;
    Headers.push_back("<cstdio>");
    if (CString)
      Headers.push_back("<cstring>");
    for (const std::string &H : Headers)
      if (!addHeader(E, Ctx, H))
        return false;
    return true;
  }

  /// The description of the stdio edit of \p A's chains, on \p Lines, with
  /// the headers removed (\p Spellings) and the number added.
  static std::string describeStdio(const Analysis &A,
                                   const std::vector<unsigned> &Lines,
                                   llvm::ArrayRef<std::string> Spellings,
                                   size_t HeadersAdded) {
    // Which functions changed, for the description.
    std::vector<std::string> Where;
    for (const Chain &C : A.Chains)
      if (C.Function) {
        std::string N = describeFunction(C.Function);
        if (!llvm::is_contained(Where, N))
          Where.push_back(N);
      }
    std::string Places;
    for (size_t I = 0; I < Where.size(); ++I)
      Places += (I == 0                  ? ""
                 : I + 1 == Where.size() ? " and "
                                         : ", ") +
                Where[I];
    std::string Description = llvm::formatv(
        "stream statements as scanf/printf in {0} ({1}){2}", Places,
        describeLines(Lines),
        Spellings.empty()
            ? std::string()
            : ", " + Spellings.front() + " removed" +
                  (HeadersAdded > 1
                       ? llvm::formatv(" ({0} headers added)", HeadersAdded)
                             .str()
                       : std::string()));
    if (!A.Buffers.empty())
      Description +=
          llvm::formatv(", {0} string{1} as char buffer{1}", A.Buffers.size(),
                        A.Buffers.size() == 1 ? "" : "s");
    return Description;
  }

  /// Decides each double's format; false when one depends on a state the
  /// rule cannot follow. The state is followed through the statements of
  /// main's top level, which run once, in order; anywhere else a double
  /// must be printed with the default format (no statement changes it) or
  /// with one its own statement sets in full.
  bool formats(const RuleContext &Ctx, Analysis &A) const {
    ASTContext &AST = Ctx.getASTContext();
    const auto *MainBody =
        A.Main ? dyn_cast_or_null<CompoundStmt>(A.Main->getBody()) : nullptr;
    for (StreamKind K : {StreamKind::Out, StreamKind::Err}) {
      auto Sets = [](const Chain &C) {
        return llvm::any_of(C.Operands,
                            [](const Operand &O) { return O.IsManipulator; });
      };
      bool AnySetter = llvm::any_of(
          A.Chains, [&](const Chain &C) { return C.Kind == K && Sets(C); });
      // The incoming state of the chains that are statements of main's top
      // level, in order.
      llvm::DenseMap<const Chain *, std::optional<FloatFormat>> Incoming;
      if (MainBody) {
        std::optional<FloatFormat> State = FloatFormat();
        for (const Stmt *Top : MainBody->body()) {
          const Chain *Own = nullptr;
          for (const Chain &C : A.Chains)
            if (C.Kind == K && C.Statement == Top)
              Own = &C;
          if (Own) {
            Incoming[Own] = State;
            if (State)
              for (const Operand &O : Own->Operands) {
                if (O.SetField)
                  State->Field = *O.SetField;
                if (O.SetPrecision)
                  State->Precision = *O.SetPrecision;
              }
            continue;
          }
          // A statement that sets the format somewhere inside it.
          bool Inside = llvm::any_of(A.Chains, [&](const Chain &C) {
            if (C.Kind != K || !Sets(C))
              return false;
            for (const Stmt *P = C.Top; P; P = parentStmt(AST, P))
              if (P == Top)
                return true;
            return false;
          });
          if (Inside)
            State.reset();
        }
      }
      for (Chain &C : A.Chains) {
        if (C.Kind != K)
          continue;
        std::optional<FloatFormat> State;
        if (auto It = Incoming.find(&C); It != Incoming.end())
          State = It->second;
        else if (!AnySetter)
          State = FloatFormat();
        bool FieldSet = false, PrecisionSet = false;
        FloatFormat Own;
        for (Operand &O : C.Operands) {
          if (O.SetField) {
            Own.Field = *O.SetField;
            FieldSet = true;
          }
          if (O.SetPrecision) {
            Own.Precision = *O.SetPrecision;
            PrecisionSet = true;
          }
          if (!O.IsDouble)
            continue;
          FloatFormat F;
          if (FieldSet && PrecisionSet) {
            F = Own;
          } else if (State) {
            F = *State;
            if (FieldSet)
              F.Field = Own.Field;
            if (PrecisionSet)
              F.Precision = Own.Precision;
          } else {
            return A.fail("a double printed with a format set elsewhere");
          }
          std::string Length = O.Spec; // "" or "L".
          O.Spec = F.Precision == 6
                       ? "%" + Length + F.Field
                       : "%." + std::to_string(F.Precision) + Length + F.Field;
        }
      }
    }
    return !A.Failed;
  }

  /// Rewrites the stream syntax of \p C around its operands.
  bool rewriteChain(const RuleContext &Ctx, const Chain &C, RuleEdit &E) const {
    const SourceManager &SM = Ctx.getSourceManager();
    const LangOptions &LO = Ctx.getASTContext().getLangOpts();
    // Operand and statement boundaries where they are spelled: the main
    // file, or a macro's body for a statement written in one.
    bool InBody = SM.isMacroBodyExpansion(C.Stream->getLocation());
    auto Spelled = [&](SourceLocation L) -> SourceLocation {
      if (!InBody)
        return L;
      // A macro argument's tokens are where its parameter is in the body.
      while (L.isMacroID() && SM.isMacroArgExpansion(L))
        L = SM.getImmediateExpansionRange(L).getBegin();
      return SM.getSpellingLoc(L);
    };
    auto RangeOf = [&](const Expr *X) -> std::optional<CharSourceRange> {
      if (!InBody)
        return Ctx.getEditRange(X->getSourceRange());
      SourceLocation B = Spelled(X->getBeginLoc());
      SourceLocation En = Spelled(X->getEndLoc());
      // The #define must be where the scope lets rules edit (under
      // --scope=target a macro defined before the target is not).
      if (B.isInvalid() || En.isInvalid() ||
          !Ctx.isEditable(SourceRange(B, En)))
        return std::nullopt;
      return CharSourceRange::getCharRange(
          B, Lexer::getLocForEndOfToken(En, 0, SM, LO));
    };
    std::optional<CharSourceRange> Whole = RangeOf(C.Replaced);
    if (!Whole)
      return false;
    // The format and the arguments.
    // Format: literal text escaped for a C string (and `%` for printf),
    // then the conversions; Raw: the literal text alone.
    std::string Format, Raw;
    std::vector<const Operand *> Args;
    bool Input = C.Kind == StreamKind::In;
    for (const Operand &O : C.Operands) {
      if (O.IsFolded) {
        Format += cLiteral(O.Folded, !Input);
        Raw += O.Folded;
      } else if (!O.IsManipulator) {
        Format += O.Spec;
        Args.push_back(&O);
      }
    }
    if (C.Kind == StreamKind::In && Args.empty())
      return false;
    bool Err = C.Kind == StreamKind::Err;
    std::string Head, Tail = ")";
    if (Input) {
      Head = "scanf(\"" + Format + "\"";
      if (C.Context != Chain::Discarded)
        Tail =
            llvm::formatv(") {0} {1}",
                          C.Context == Chain::AsNot ? "!=" : "==", Args.size())
                .str();
    } else if (Args.empty() && !Err && llvm::StringRef(Raw).ends_with("\n")) {
      Head =
          "puts(\"" + cLiteral(llvm::StringRef(Raw).drop_back(), false) + "\"";
    } else if (Args.size() == 1 && !Err && Format == "%s\\n" &&
               Args.front()->Suffix.empty()) {
      Head = "puts(";
    } else {
      Head = (Err ? "fprintf(stderr, \"" : "printf(\"") + Format + "\"";
    }
    bool PutsArg = Head == "puts(";
    if (C.NeedsParens) {
      Head = "(" + Head;
      Tail += ")";
    }
    // Replace the syntax between the operands that stay.
    SourceLocation At = Whole->getBegin();
    std::string Pending = Head;
    for (const Operand *O : Args) {
      std::optional<CharSourceRange> R = RangeOf(O->E);
      if (!R || SM.isBeforeInTranslationUnit(R->getBegin(), At))
        return false;
      Pending += (PutsArg ? "" : ", ") + O->Prefix;
      if (!addReplacement(E, Ctx,
                          CharSourceRange::getCharRange(At, R->getBegin()),
                          Pending))
        return false;
      Pending = O->Suffix;
      At = R->getEnd();
    }
    Pending += Tail;
    if (SM.isBeforeInTranslationUnit(Whole->getEnd(), At))
      return false;
    return addReplacement(
        E, Ctx, CharSourceRange::getCharRange(At, Whole->getEnd()), Pending);
  }

  /// Removes the statements that set the streams up, each run of them in
  /// one block at once (whole lines where they are alone on them).
  bool removeSetUp(const RuleContext &Ctx, Analysis &A, RuleEdit &E) const {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    llvm::SmallPtrSet<const Stmt *, 8> Remove(A.SetUp.begin(), A.SetUp.end());
    llvm::SmallPtrSet<const Stmt *, 8> Done;
    for (const Stmt *S : A.SetUp) {
      if (Done.count(S))
        continue;
      const CompoundStmt *Block = compoundParent(AST, S);
      if (!Block)
        return false;
      // A statement from a macro expansion goes with the whole expansion:
      // every statement of it must be set-up (or empty).
      std::vector<const Stmt *> Kids(Block->body_begin(), Block->body_end());
      auto Removable = [&](const Stmt *K) {
        return Remove.count(K) || isa<NullStmt>(K);
      };
      for (size_t I = 0; I < Kids.size(); ++I) {
        if (Kids[I] != S)
          continue;
        size_t First = I, Last = I;
        while (First > 0 && Remove.count(Kids[First - 1]))
          --First;
        while (Last + 1 < Kids.size() && Removable(Kids[Last + 1]) &&
               (Remove.count(Kids[Last + 1]) ||
                SM.getExpansionLoc(Kids[Last + 1]->getBeginLoc()) ==
                    SM.getExpansionLoc(Kids[Last]->getBeginLoc())))
          ++Last;
        for (size_t K = 0; K < Kids.size(); ++K) {
          bool SameExpansion =
              Kids[K]->getBeginLoc().isMacroID() &&
              (SM.getExpansionLoc(Kids[K]->getBeginLoc()) ==
                   SM.getExpansionLoc(Kids[First]->getBeginLoc()) ||
               SM.getExpansionLoc(Kids[K]->getBeginLoc()) ==
                   SM.getExpansionLoc(Kids[Last]->getBeginLoc()));
          if (SameExpansion && !Removable(Kids[K]))
            return false;
        }
        std::optional<CharSourceRange> R =
            statementsRange(Ctx, Kids[First], Kids[Last]);
        if (!R || !addReplacement(E, Ctx, wholeLines(Ctx, *R), ""))
          return false;
        for (size_t K = First; K <= Last; ++K)
          Done.insert(Kids[K]);
      }
    }
    return true;
  }

  void proposeUnsync(const RuleContext &Ctx, const Analysis &A,
                     std::vector<RuleEdit> &Out) const {
    if (!A.Main || A.UsesCStdio || A.AlreadyUnsynced)
      return;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(A.Main->getBody());
    if (!Body)
      return;
    auto LBrace = Ctx.getEditRange(SourceRange(Body->getLBracLoc()));
    if (!LBrace)
      return;
    RuleEdit E =
        makeEdit("std::ios::sync_with_stdio(false) and an untied "
                 "std::cin at the start of main (line " +
                     std::to_string(Ctx.getUserLine(Body->getLBracLoc())) + ")",
                 45);
    E.Group = "fast-io";
    E.Label = "unsynced streams";
    if (!insertText(E, Ctx, LBrace->getEnd(),
                    "\nstd::ios::sync_with_stdio(false);\n"
                    "std::cin.tie(nullptr);"))
      return;
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createFastIORule() {
  return std::make_unique<FastIORule>();
}
