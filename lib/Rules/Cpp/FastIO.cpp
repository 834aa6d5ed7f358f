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

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

enum class StreamKind { None, In, Out, Err };

/// Which standard stream a declaration is, if any.
StreamKind streamKindOf(const Decl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  if (!VD || !VD->getDeclContext()->isStdNamespace() || !VD->getIdentifier())
    return StreamKind::None;
  return llvm::StringSwitch<StreamKind>(VD->getName())
      .Case("cin", StreamKind::In)
      .Case("cout", StreamKind::Out)
      .Cases({"cerr", "clog"}, StreamKind::Err)
      .Default(StreamKind::None);
}

const Expr *ignoreWrappers(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
}

/// The parent of \p S above implicit nodes and parentheses, and the child of
/// it on the way.
std::pair<const Stmt *, const Stmt *> realParent(ASTContext &AST,
                                                 const Stmt *S) {
  const Stmt *Child = S;
  const Stmt *P = parentStmt(AST, S);
  while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
               isa<MaterializeTemporaryExpr>(P) || isa<ExprWithCleanups>(P) ||
               isa<CXXBindTemporaryExpr>(P))) {
    Child = P;
    P = parentStmt(AST, P);
  }
  return {P, Child};
}

/// The function a manipulator argument names (std::endl, std::fixed, ...).
const FunctionDecl *namedFunction(const Expr *E) {
  E = ignoreWrappers(E);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      E = ignoreWrappers(U->getSubExpr());
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  return DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
}

/// \p Bytes as the inside of a C string literal, with printf's `%`
/// doubled when \p Format.
std::string cLiteral(llvm::StringRef Bytes, bool Format) {
  std::string Out;
  for (unsigned char C : Bytes) {
    switch (C) {
    case '\n':
      Out += "\\n";
      break;
    case '\t':
      Out += "\\t";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '"':
      Out += "\\\"";
      break;
    case '%':
      Out += Format ? "%%" : "%";
      break;
    default:
      if (C < 0x20 || C == 0x7f)
        Out += llvm::formatv("\\{0:o3}", unsigned(C)).str();
      else
        Out += char(C);
    }
  }
  return Out;
}

/// The floating-point format of a stream: the float field and precision.
struct FloatFormat {
  char Field = 'g'; ///< 'g' (default), 'f' (fixed), 'e' (scientific).
  int Precision = 6;
  bool operator==(const FloatFormat &O) const {
    return Field == O.Field && Precision == O.Precision;
  }
};

/// One operand of a stream chain.
struct Operand {
  const Expr *E = nullptr;
  /// Text folded into the format (a literal, endl); empty for an argument.
  std::string Folded;
  bool IsFolded = false;
  /// A manipulator that only changes the format (fixed, setprecision).
  bool IsManipulator = false;
  std::optional<char> SetField;
  std::optional<int> SetPrecision;
  /// For arguments: the conversion, and what the argument needs around it.
  std::string Spec;
  std::string Prefix, Suffix;
  bool IsDouble = false;
};

/// A `cin >> a >> b` or `cout << x << y` expression.
struct Chain {
  StreamKind Kind = StreamKind::None;
  const Expr *Top = nullptr;           ///< The outermost `<<`/`>>`.
  const DeclRefExpr *Stream = nullptr; ///< `cin`.
  std::vector<Operand> Operands;       ///< In source order.
  const FunctionDecl *Function = nullptr;
  /// What replaces the whole expression's value: the expression itself when
  /// its value is discarded; `!(cin >> x)` or the bool conversion of a
  /// condition otherwise.
  const Expr *Replaced = nullptr;
  enum { Discarded, AsBool, AsNot } Context = Discarded;
  bool NeedsParens = false;
  /// The statement of a block the chain is, when it is one.
  const Stmt *Statement = nullptr;
};

/// True when a replacement of \p E covers the file offset \p Off.
bool isReplaced(const RuleEdit &E, unsigned Off) {
  return llvm::any_of(E.Replaces, [&](const auto &Rep) {
    return Rep.getOffset() != UINT_MAX && Off >= Rep.getOffset() &&
           Off < Rep.getOffset() + Rep.getLength();
  });
}

class FastIORule : public Rule {
public:
  FastIORule()
      : Rule("fast-io",
             "stream statements to scanf/printf where the types are known, "
             "without <iostream>; else sync_with_stdio(false) and an untied "
             "cin",
             "stdio") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus() || Ctx.isCuda())
      return;
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
  /// Everything the stdio rewrite needs, or why it cannot be done.
  struct Analysis : RecursiveASTVisitor<Analysis> {
    const RuleContext &Ctx;
    ASTContext &AST;
    const SourceManager &SM;
    bool Failed = false;
    std::string Reason;
    unsigned StreamUses = 0;
    bool AlreadyUnsynced = false;
    bool UsesCStdio = false;
    std::vector<Chain> Chains;
    /// Statements that only set the streams up (sync_with_stdio, tie).
    std::vector<const Stmt *> SetUp;
    /// Stream names in templates, which instantiations must have rewritten.
    std::vector<const DeclRefExpr *> InPatterns;
    llvm::SmallPtrSet<const Expr *, 16> SeenTops;
    std::vector<CharBuffer> Buffers;
    const FunctionDecl *Main = nullptr;

    explicit Analysis(const RuleContext &Ctx)
        : Ctx(Ctx), AST(Ctx.getASTContext()), SM(Ctx.getSourceManager()) {}

    bool shouldVisitTemplateInstantiations() const { return true; }

    void run() {
      for (const FunctionDecl *FD : Ctx.getFileFunctions())
        if (FD->isMain())
          Main = FD;
      Buffers = findCharBuffers(Ctx);
      TraverseDecl(AST.getTranslationUnitDecl());
    }

    bool TraverseDecl(Decl *D) {
      if (!D)
        return true;
      if (!isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
          !isa<LinkageSpecDecl>(D) && !D->isImplicit()) {
        SourceLocation L = SM.getExpansionLoc(D->getLocation());
        if (L.isInvalid() || !SM.isWrittenInMainFile(L))
          return true;
      }
      return RecursiveASTVisitor::TraverseDecl(D);
    }

    bool fail(llvm::StringRef Why) {
      if (!Failed) {
        Failed = true;
        Reason = Why.str();
      }
      return true;
    }

    const FunctionDecl *enclosingFunction(const Stmt *S) {
      DynTypedNodeList Ps = AST.getParents(*S);
      while (!Ps.empty()) {
        if (const auto *FD = Ps[0].get<FunctionDecl>())
          return FD;
        Ps = AST.getParents(Ps[0]);
      }
      return nullptr;
    }

    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !FD->getIdentifier())
        return true;
      // C stdio beside the streams: they must stay synchronised.
      if (!isa<CXXMethodDecl>(FD) &&
          llvm::is_contained({"printf", "scanf", "puts", "putchar", "getchar",
                              "fprintf", "fscanf", "fputs", "fgets", "gets",
                              "putc", "getc", "fwrite", "fread", "fflush"},
                             FD->getName()) &&
          SM.isWrittenInMainFile(SM.getExpansionLoc(C->getBeginLoc())))
        UsesCStdio = true;
      if (FD->getName() == "sync_with_stdio" && isInStd(FD)) {
        AlreadyUnsynced = true;
        ++StreamUses;
        setUp(C);
      }
      return true;
    }

    bool VisitDeclRefExpr(DeclRefExpr *E) {
      StreamKind K = streamKindOf(E->getDecl());
      if (K == StreamKind::None)
        return true;
      ++StreamUses;
      // A name that does not depend on a template's parameters is shared by
      // the template and its instantiations: one parent each.
      DynTypedNodeList Parents = AST.getParents(*E);
      for (const DynTypedNode &P : Parents)
        classify(E, K, P.get<Stmt>());
      if (Parents.empty())
        fail("a stream outside any expression");
      return true;
    }

    /// A call that sets the streams up: its statement goes.
    void setUp(const Expr *Call) {
      const Stmt *Cur = Call;
      while (true) {
        auto [P, Child] = realParent(AST, Cur);
        if (const auto *B = dyn_cast_or_null<BinaryOperator>(P);
            B && B->isCommaOp()) {
          Cur = P;
          continue;
        }
        if (P && isa<CompoundStmt>(P)) {
          // Every part of a comma expression must be set-up too.
          if (!isSetUpExpr(cast<Expr>(Cur)))
            return (void)fail("a statement sets the streams up and does more");
          if (!llvm::is_contained(SetUp, Child))
            SetUp.push_back(Child);
          return;
        }
        return (void)fail("the streams are set up inside an expression");
      }
    }

    static bool isSetUpCall(const Expr *E) {
      E = ignoreWrappers(E);
      const auto *C = dyn_cast<CallExpr>(E);
      const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
      if (!FD || !FD->getIdentifier() || !isInStd(FD))
        return false;
      return llvm::is_contained({"sync_with_stdio", "tie"}, FD->getName());
    }

    static bool isSetUpExpr(const Expr *E) {
      E = ignoreWrappers(E);
      if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isCommaOp())
        return isSetUpExpr(B->getLHS()) && isSetUpExpr(B->getRHS());
      return isSetUpCall(E);
    }

    void classify(const DeclRefExpr *E, StreamKind K, const Stmt *First) {
      ASTContext &AST = this->AST;
      const Stmt *P = First;
      while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
                   isa<MaterializeTemporaryExpr>(P)))
        P = parentStmt(AST, P);
      // `cin.tie(0)`, `cout.flush()`, `cin.sync_with_stdio(false)`.
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
        const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        const auto *Call =
            dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
        llvm::StringRef Name = MD && MD->getIdentifier() ? MD->getName() : "";
        if (Call && (Name == "tie" || Name == "sync_with_stdio")) {
          if (Name == "sync_with_stdio")
            AlreadyUnsynced = true;
          return setUp(Call);
        }
        return (void)fail("the stream member '" + Name.str() +
                          "' has no stdio equivalent here");
      }
      // In a template, an operator on a dependent operand is resolved per
      // instantiation, where it is checked; the instantiations must cover
      // the text.
      if (const auto *PE = dyn_cast_or_null<Expr>(P);
          PE && (PE->isTypeDependent() || PE->isValueDependent())) {
        InPatterns.push_back(E);
        return;
      }
      const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P);
      if (!Op)
        return (void)fail("a stream is used other than with << or >>");
      if (Op->isTypeDependent() || !Op->getDirectCallee()) {
        // A template: its instantiations are checked, and must cover it.
        InPatterns.push_back(E);
        return;
      }
      OverloadedOperatorKind Want =
          K == StreamKind::In ? OO_GreaterGreater : OO_LessLess;
      if (Op->getOperator() != Want || Op->getNumArgs() != 2 ||
          ignoreWrappers(Op->getArg(0)) != E)
        return (void)fail("a stream is an operand of another operator");
      Chain C;
      C.Kind = K;
      C.Stream = E;
      C.Function = enclosingFunction(E);
      // Up the chain: each link's left operand is the one below.
      const Expr *Cur = Op;
      std::vector<const CXXOperatorCallExpr *> Links{Op};
      while (true) {
        auto [Up, Ch] = realParent(AST, Cur);
        const auto *UpOp = dyn_cast_or_null<CXXOperatorCallExpr>(Up);
        if (!UpOp || UpOp->getOperator() != Want || UpOp->getNumArgs() != 2 ||
            ignoreWrappers(UpOp->getArg(0)) != ignoreWrappers(cast<Expr>(Cur)))
          break;
        if (UpOp->isTypeDependent() || !UpOp->getDirectCallee()) {
          // A dependent operand further up: the instantiations decide.
          InPatterns.push_back(E);
          return;
        }
        Links.push_back(UpOp);
        Cur = UpOp;
      }
      C.Top = Cur;
      if (!SeenTops.insert(C.Top).second)
        return;
      for (const CXXOperatorCallExpr *L : Links)
        if (!operand(C, L))
          return;
      if (!context(C))
        return;
      Chains.push_back(std::move(C));
    }

    /// The operand of link \p L, appended to \p C.
    bool operand(Chain &C, const CXXOperatorCallExpr *L) {
      const FunctionDecl *Callee = L->getDirectCallee();
      unsigned ParamIdx = isa<CXXMethodDecl>(Callee) ? 0 : 1;
      if (Callee->getNumParams() <= ParamIdx)
        return fail("an unexpected stream operator");
      QualType P = Callee->getParamDecl(ParamIdx)->getType();
      const Expr *Arg = L->getArg(1);
      Operand O;
      O.E = Arg;
      if (C.Kind == StreamKind::In)
        return input(C, O, P);
      return output(C, O, P);
    }

    const CharBuffer *bufferOf(const Expr *E) {
      const auto *D = dyn_cast<DeclRefExpr>(ignoreWrappers(E));
      if (!D)
        return nullptr;
      for (const CharBuffer &B : Buffers)
        if (B.Var == D->getDecl())
          return &B;
      return nullptr;
    }

    bool input(Chain &C, Operand &O, QualType P) {
      const Expr *Arg = ignoreWrappers(O.E);
      if (const CharBuffer *B = bufferOf(Arg)) {
        O.Spec = "%" + std::to_string(B->Size - 1) + "s";
        C.Operands.push_back(O);
        return true;
      }
      if (P->isPointerType()) {
        QualType Pointee = P->getPointeeType();
        if (!Pointee->isCharType() || Pointee.isConstQualified())
          return fail("reading into a pointer that is not char *");
        O.Spec = "%s";
        if (const auto *AT = AST.getAsConstantArrayType(Arg->getType()))
          if (AT->getSize().getZExtValue() > 1)
            O.Spec =
                "%" + std::to_string(AT->getSize().getZExtValue() - 1) + "s";
        C.Operands.push_back(O);
        return true;
      }
      if (!P->isLValueReferenceType())
        return fail("an input manipulator");
      QualType T = P.getNonReferenceType();
      if (const auto *AT = AST.getAsConstantArrayType(T);
          AT && AT->getElementType()->isCharType() &&
          !AT->getElementType().isConstQualified()) {
        O.Spec =
            AT->getSize().getZExtValue() > 1
                ? "%" + std::to_string(AT->getSize().getZExtValue() - 1) + "s"
                : "%s";
        C.Operands.push_back(O);
        return true;
      }
      if (T.isConstQualified())
        return fail("reading a const");
      const auto *BT = T->getAs<BuiltinType>();
      if (!BT)
        return fail("reading a type scanf does not read: " + T.getAsString());
      llvm::StringRef Spec;
      switch (BT->getKind()) {
      case BuiltinType::Char_S:
      case BuiltinType::Char_U:
        Spec = " %c";
        break;
      case BuiltinType::Short:
        Spec = "%hd";
        break;
      case BuiltinType::UShort:
        Spec = "%hu";
        break;
      case BuiltinType::Int:
        Spec = "%d";
        break;
      case BuiltinType::UInt:
        Spec = "%u";
        break;
      case BuiltinType::Long:
        Spec = "%ld";
        break;
      case BuiltinType::ULong:
        Spec = "%lu";
        break;
      case BuiltinType::LongLong:
        Spec = "%lld";
        break;
      case BuiltinType::ULongLong:
        Spec = "%llu";
        break;
      case BuiltinType::Float:
        Spec = "%f";
        break;
      case BuiltinType::Double:
        Spec = "%lf";
        break;
      case BuiltinType::LongDouble:
        Spec = "%Lf";
        break;
      default:
        return fail("reading a type scanf does not read: " + T.getAsString());
      }
      O.Spec = Spec.str();
      // Postfix expressions take `&` as they are.
      if (isa<DeclRefExpr>(Arg) || isa<ArraySubscriptExpr>(Arg) ||
          isa<MemberExpr>(Arg) || isa<ParenExpr>(O.E->IgnoreImpCasts()))
        O.Prefix = "&";
      else {
        O.Prefix = "&(";
        O.Suffix = ")";
      }
      C.Operands.push_back(O);
      return true;
    }

    bool output(Chain &C, Operand &O, QualType P) {
      const Expr *Arg = ignoreWrappers(O.E);
      QualType T = P.getNonReferenceType().getCanonicalType();
      // Literals are folded into the format where they are written with the
      // rest of the statement (not when they come from a macro argument of
      // a statement in a macro body: the body is shared).
      bool SameText = SM.isMacroBodyExpansion(C.Stream->getLocation()) ==
                      SM.isMacroBodyExpansion(Arg->getBeginLoc());
      if (const auto *S = dyn_cast<StringLiteral>(Arg);
          S && SameText && S->isOrdinary()) {
        O.IsFolded = true;
        O.Folded = S->getString().str();
        C.Operands.push_back(O);
        return true;
      }
      if (const auto *Ch = dyn_cast<CharacterLiteral>(Arg);
          Ch && SameText && Ch->getKind() == CharacterLiteralKind::Ascii &&
          isPlainChar(T)) {
        O.IsFolded = true;
        O.Folded = std::string(1, char(Ch->getValue()));
        C.Operands.push_back(O);
        return true;
      }
      if (T->isPointerType() && T->getPointeeType()->isFunctionType())
        return manipulator(C, O, Arg);
      if (const auto *RD = T->getAsCXXRecordDecl();
          RD && RD->getIdentifier() && RD->getName() == "_Setprecision") {
        const auto *Call = dyn_cast<CallExpr>(Arg);
        std::optional<int64_t> N = Call && Call->getNumArgs() == 1
                                       ? integerValue(Call->getArg(0), AST)
                                       : std::nullopt;
        if (!N || *N < 0 || *N > 100)
          return fail("setprecision of a value that is not a constant");
        O.IsManipulator = true;
        O.SetPrecision = int(*N);
        C.Operands.push_back(O);
        return true;
      }
      if (const CharBuffer *B = bufferOf(Arg)) {
        (void)B;
        O.Spec = "%s";
        C.Operands.push_back(O);
        return true;
      }
      if (isStdString(T)) {
        O.Spec = "%s";
        bool Postfix = isa<DeclRefExpr>(Arg) || isa<MemberExpr>(Arg) ||
                       isa<ArraySubscriptExpr>(Arg) || isa<CallExpr>(Arg) ||
                       isa<ParenExpr>(O.E->IgnoreImpCasts());
        O.Prefix = Postfix ? "" : "(";
        O.Suffix = Postfix ? ".c_str()" : ").c_str()";
        C.Operands.push_back(O);
        return true;
      }
      if (T->isPointerType()) {
        if (!T->getPointeeType()->isCharType())
          return fail("writing a pointer that is not a C string");
        O.Spec = "%s";
        C.Operands.push_back(O);
        return true;
      }
      return outputBuiltin(C, O, T);
    }

    /// An output manipulator (std::endl, std::fixed, ...), \p Arg.
    bool manipulator(Chain &C, Operand &O, const Expr *Arg) {
      const FunctionDecl *M = namedFunction(Arg);
      if (!M || !M->getIdentifier() || !isInStd(M))
        return fail("an unknown stream manipulator");
      llvm::StringRef N = M->getName();
      if (N == "endl" || N == "flush") {
        O.IsFolded = true;
        O.Folded = N == "endl" ? "\n" : "";
      } else if (N == "fixed" || N == "scientific" || N == "defaultfloat") {
        O.IsManipulator = true;
        O.SetField = N == "fixed" ? 'f' : N == "scientific" ? 'e' : 'g';
      } else {
        return fail("the manipulator std::" + N.str() +
                    " has no printf equivalent here");
      }
      C.Operands.push_back(O);
      return true;
    }

    /// An output operand of builtin type \p T: its printf conversion.
    bool outputBuiltin(Chain &C, Operand &O, QualType T) {
      const auto *BT = T->getAs<BuiltinType>();
      if (!BT)
        return fail("writing a type printf does not write: " + T.getAsString());
      llvm::StringRef Spec;
      switch (BT->getKind()) {
      case BuiltinType::Bool:
        Spec = "%d";
        break;
      case BuiltinType::Char_S:
      case BuiltinType::Char_U:
      case BuiltinType::SChar:
      case BuiltinType::UChar:
        Spec = "%c";
        break;
      case BuiltinType::Short:
        Spec = "%hd";
        break;
      case BuiltinType::UShort:
        Spec = "%hu";
        break;
      case BuiltinType::Int:
        Spec = "%d";
        break;
      case BuiltinType::UInt:
        Spec = "%u";
        break;
      case BuiltinType::Long:
        Spec = "%ld";
        break;
      case BuiltinType::ULong:
        Spec = "%lu";
        break;
      case BuiltinType::LongLong:
        Spec = "%lld";
        break;
      case BuiltinType::ULongLong:
        Spec = "%llu";
        break;
      case BuiltinType::Float:
      case BuiltinType::Double:
        O.IsDouble = true;
        Spec = "";
        break;
      case BuiltinType::LongDouble:
        O.IsDouble = true;
        Spec = "L";
        break;
      default:
        return fail("writing a type printf does not write: " + T.getAsString());
      }
      O.Spec = Spec.str();
      C.Operands.push_back(O);
      return true;
    }

    static bool isPlainChar(QualType T) {
      return T->isSpecificBuiltinType(BuiltinType::Char_S) ||
             T->isSpecificBuiltinType(BuiltinType::Char_U);
    }

    /// Where the chain's value goes.
    bool context(Chain &C) {
      auto [P, Child] = realParent(AST, C.Top);
      C.Replaced = C.Top;
      // The value discarded: a statement, a for-init or -increment, the
      // left of a comma.
      auto Discarded = [&](const Stmt *P, const Stmt *Child) {
        if (!P)
          return false;
        if (isa<CompoundStmt>(P) || isa<LabelStmt>(P) || isa<CaseStmt>(P) ||
            isa<DefaultStmt>(P))
          return true;
        if (const auto *If = dyn_cast<IfStmt>(P))
          return If->getThen() == Child || If->getElse() == Child;
        if (const auto *F = dyn_cast<ForStmt>(P))
          return F->getInit() == Child || F->getInc() == Child ||
                 F->getBody() == Child;
        if (const auto *W = dyn_cast<WhileStmt>(P))
          return W->getBody() == Child;
        if (const auto *D = dyn_cast<DoStmt>(P))
          return D->getBody() == Child;
        if (const auto *B = dyn_cast<BinaryOperator>(P))
          return B->isCommaOp() && B->getLHS() == Child;
        if (const auto *R = dyn_cast<CXXForRangeStmt>(P))
          return R->getBody() == Child;
        return false;
      };
      if (Discarded(P, Child)) {
        C.Context = Chain::Discarded;
        if (isa<CompoundStmt>(P))
          C.Statement = Child;
        return true;
      }
      if (C.Kind != StreamKind::In)
        return fail("the value of an output statement is used");
      // `cin >> x` as a condition: the conversion to bool, or `!`.
      const Expr *Use = C.Top;
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
        const auto *Conv = dyn_cast<CXXConversionDecl>(ME->getMemberDecl());
        const auto *Call =
            dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
        if (!Conv || !Call || !Conv->getConversionType()->isBooleanType())
          return fail("a stream member other than its bool conversion");
        C.Context = Chain::AsBool;
        Use = Call;
      } else if (const auto *Not = dyn_cast_or_null<CXXOperatorCallExpr>(P);
                 Not && Not->getOperator() == OO_Exclaim) {
        C.Context = Chain::AsNot;
        Use = Not;
        C.Replaced = Not;
      } else {
        return fail("the value of an input statement is used");
      }
      // A condition by itself needs no parentheses around `scanf(...) == N`.
      auto [UseP, UseChild] = realParent(AST, Use);
      bool Alone = false;
      if (const auto *If = dyn_cast_or_null<IfStmt>(UseP))
        Alone = If->getCond() == UseChild;
      else if (const auto *W = dyn_cast_or_null<WhileStmt>(UseP))
        Alone = W->getCond() == UseChild;
      else if (const auto *F = dyn_cast_or_null<ForStmt>(UseP))
        Alone = F->getCond() == UseChild;
      else if (const auto *D = dyn_cast_or_null<DoStmt>(UseP))
        Alone = D->getCond() == UseChild;
      C.NeedsParens = !Alone;
      return true;
    }
  };

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
    for (const MainInclude &I : findMainIncludes(Ctx)) {
      llvm::StringRef S = streamHeaderSpelling(I);
      if (S.empty())
        continue;
      Removed.push_back(I.File);
      Spellings.push_back(S.str());
    }
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
