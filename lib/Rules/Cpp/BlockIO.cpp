//===-- BlockIO.cpp - Per-element reads and writes to one block transfer --===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A loop that writes or reads a contiguous array one element at a time
// (`out.write((char *)&v[i], sizeof v[i])`, `fread(&a[i], sizeof a[i], 1,
// f)`, `fputc(s[i], f)`) pays the stream's sentry, locking and bounds
// checks per element. One `write`/`read`/`fwrite`/`fread` of the whole
// range moves the same bytes to the same places: a short read fills the
// same prefix, and the stream or FILE ends in the same state. An index loop
// keeps its bounds as a guard (`if (lo < hi)`), so an empty range still
// transfers nothing.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

using namespace maxcode;
using namespace clang;

namespace {

/// How the loop's statement moves one element.
enum class Transfer { StreamWrite, StreamRead, FileWrite, FileRead, ByteOut };

/// What a loop's single statement does with its element.
struct ElementIO {
  Transfer Kind;
  const Expr *Element = nullptr; ///< `v[i]`, or the range-for's variable.
  const Expr *Channel = nullptr; ///< The stream object or the FILE *.
  /// For ByteOut: `put` of a stream (else `fputc`/`putc` of a FILE).
  bool Put = false;
};

/// The element \p E's bytes start at, when it is `&X` possibly cast to a
/// character or void pointer.
const Expr *addressed(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
    if (!C->getType()->isPointerType())
      return nullptr;
    E = C->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *U = dyn_cast<UnaryOperator>(E);
  return U && U->getOpcode() == UO_AddrOf ? U->getSubExpr()->IgnoreParens()
                                          : nullptr;
}

/// True when \p E is `sizeof` of \p Element or of its type.
bool isSizeOf(const Expr *E, const Expr *Element, const ASTContext &AST) {
  const auto *S = dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
  if (!S || S->getKind() != UETT_SizeOf)
    return false;
  return AST.hasSameUnqualifiedType(S->getTypeOfArgument(), Element->getType());
}

bool isOneLiteral(const Expr *E) {
  const auto *L = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
  return L && L->getValue() == 1;
}

/// The stream class \p MD belongs to, when it is std::basic_ostream or
/// std::basic_istream: 'o' or 'i'.
char streamKind(const CXXMethodDecl *MD) {
  const CXXRecordDecl *RD = MD ? MD->getParent() : nullptr;
  if (!RD || !isInStd(RD) || !RD->getIdentifier())
    return 0;
  if (RD->getName() == "basic_ostream")
    return 'o';
  if (RD->getName() == "basic_istream")
    return 'i';
  return 0;
}

/// The element transfer statement \p S is, if any.
std::optional<ElementIO> elementIO(const Stmt *S, const ASTContext &AST) {
  if (const auto *C = dyn_cast_or_null<CompoundStmt>(S))
    S = C->size() == 1 ? C->body_front() : nullptr;
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return std::nullopt;
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr();
  E = E->IgnoreParens();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    char Kind = streamKind(MD);
    if (!Kind || !MD->getIdentifier())
      return std::nullopt;
    ElementIO IO;
    IO.Channel = MC->getImplicitObjectArgument();
    llvm::StringRef Name = MD->getName();
    if (Name == "put" && Kind == 'o' && MC->getNumArgs() == 1) {
      IO.Kind = Transfer::ByteOut;
      IO.Put = true;
      IO.Element = MC->getArg(0)->IgnoreParenImpCasts();
      if (!IO.Element->getType()->isCharType())
        return std::nullopt;
      return IO;
    }
    if ((Name != "write" || Kind != 'o') && (Name != "read" || Kind != 'i'))
      return std::nullopt;
    if (MC->getNumArgs() != 2)
      return std::nullopt;
    IO.Kind = Name == "write" ? Transfer::StreamWrite : Transfer::StreamRead;
    IO.Element = addressed(MC->getArg(0));
    if (!IO.Element || !isSizeOf(MC->getArg(1), IO.Element, AST))
      return std::nullopt;
    return IO;
  }
  const auto *C = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() ||
      !AST.getSourceManager().isInSystemHeader(FD->getLocation()))
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  ElementIO IO;
  if ((Name == "fputc" || Name == "putc") && C->getNumArgs() == 2) {
    IO.Kind = Transfer::ByteOut;
    IO.Element = C->getArg(0)->IgnoreParenImpCasts();
    IO.Channel = C->getArg(1);
    if (!IO.Element->getType()->isCharType())
      return std::nullopt;
    return IO;
  }
  if ((Name != "fwrite" && Name != "fread") || C->getNumArgs() != 4)
    return std::nullopt;
  IO.Kind = Name == "fwrite" ? Transfer::FileWrite : Transfer::FileRead;
  IO.Element = addressed(C->getArg(0));
  IO.Channel = C->getArg(3);
  if (!IO.Element || !isSizeOf(C->getArg(1), IO.Element, AST) ||
      !isOneLiteral(C->getArg(2)))
    return std::nullopt;
  return IO;
}

/// A contiguous container or array whose elements a pointer can walk: a C
/// array, std::vector (not of bool), std::array, std::basic_string.
bool isContiguous(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isConstantArrayType())
    return true;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !isInStd(Spec) || !Spec->getIdentifier())
    return false;
  llvm::StringRef Name = Spec->getName();
  if (Name == "vector")
    return !Spec->getTemplateArgs()[0].getAsType()->isBooleanType();
  return Name == "array" || Name == "basic_string";
}

/// A variable, or a field of one, read without side effects: what the
/// channel, the container and the bounds must be to be named once.
bool isPlainName(const Expr *E, ASTContext &AST) {
  return isSimpleSideEffectFree(E, AST) ||
         (isa<CXXThisExpr>(E->IgnoreParenImpCasts()));
}

/// The text of the one transfer of \p Count elements from \p Pointer (to
/// the first element), through \p IO's channel; \p ElementText names an
/// element for `sizeof`.
std::string blockTransfer(const ElementIO &IO, llvm::StringRef Channel,
                          llvm::StringRef Pointer, llvm::StringRef Count,
                          llvm::StringRef ElementText) {
  std::string Bytes = (Count + " * sizeof(" + ElementText + ")").str();
  switch (IO.Kind) {
  case Transfer::StreamWrite:
    return (Channel + ".write(reinterpret_cast<const char *>(" + Pointer +
            "), " + Bytes + ");")
        .str();
  case Transfer::StreamRead:
    return (Channel + ".read(reinterpret_cast<char *>(" + Pointer + "), " +
            Bytes + ");")
        .str();
  case Transfer::FileWrite:
  case Transfer::FileRead:
    return ((IO.Kind == Transfer::FileWrite ? "fwrite(" : "fread(") + Pointer +
            ", sizeof(" + ElementText + "), " + Count + ", " + Channel + ");")
        .str();
  case Transfer::ByteOut:
    if (IO.Put)
      return (Channel + ".write(reinterpret_cast<const char *>(" + Pointer +
              "), " + Count + ");")
          .str();
    return ("fwrite(" + Pointer + ", 1, " + Count + ", " + Channel + ");")
        .str();
  }
  return "";
}

/// How many times \p S names \p V where it is evaluated (not in `sizeof`).
unsigned evaluatedReferences(const VarDecl *V, const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    unsigned Count = 0;
    explicit Finder(const VarDecl *V) : V(V) {}
    bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) {
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Count += D->getDecl() == V;
      return true;
    }
  } F(V);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Count;
}

class BlockIORule : public Rule {
public:
  BlockIORule()
      : Rule("block-io",
             "a loop writing or reading a contiguous array one element at a "
             "time (stream write/read/put, fwrite/fread/fputc) to one block "
             "transfer",
             "block transfer") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 55), Ctx, FD);
      bool UsesGcount = usesGcount(FD);
      for (const Stmt *Loop : loopsIn(FD->getBody())) {
        std::optional<std::string> Text = rewrite(Loop, Ctx, UsesGcount);
        if (!Text || followsPragma(Ctx, Loop))
          continue;
        E.replace(Loop->getBeginLoc(), statementRange(Ctx, Loop), *Text);
      }
      E.addTo(Out, "one block transfer for the per-element I/O loop");
    }
  }

private:
  /// After a block read, gcount() counts the block, not the last element:
  /// a function that asks keeps its loop.
  static bool usesGcount(const FunctionDecl *FD) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
        const CXXMethodDecl *MD = C->getMethodDecl();
        Found |= MD && MD->getIdentifier() && MD->getName() == "gcount";
        return !Found;
      }
    } F;
    F.TraverseStmt(FD->getBody());
    return F.Found;
  }

  /// The statement that replaces \p Loop, when it moves one element of a
  /// contiguous range per iteration and nothing else.
  static std::optional<std::string>
  rewrite(const Stmt *Loop, const RuleContext &Ctx, bool UsesGcount) {
    ASTContext &AST = Ctx.getASTContext();
    std::optional<ElementIO> IO = elementIO(loopBody(Loop), AST);
    if (!IO || !isPlainName(IO->Channel, AST) ||
        (UsesGcount && IO->Kind == Transfer::StreamRead))
      return std::nullopt;
    auto Text = [&](const Expr *E) -> std::optional<std::string> {
      auto R = Ctx.getEditRange(E->getSourceRange());
      if (!R)
        return std::nullopt;
      return Ctx.getText(*R).str();
    };
    auto Channel = Text(IO->Channel);
    if (!Channel)
      return std::nullopt;
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop))
      return rewriteRangeFor(RF, *IO, Ctx, *Channel, Text);
    const auto *For = dyn_cast<ForStmt>(Loop);
    if (!For)
      return std::nullopt;
    // for (T i = Lo; i < Hi; ++i): the element is X[i].
    const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
    const auto *I = Init && Init->isSingleDecl()
                        ? dyn_cast<VarDecl>(Init->getSingleDecl())
                        : nullptr;
    const auto *Cond = dyn_cast_or_null<BinaryOperator>(
        For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!I || !I->getInit() || !I->getType()->isIntegerType() || !Cond ||
        Cond->getOpcode() != BO_LT || !For->getInc())
      return std::nullopt;
    const auto *CondVar =
        dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
    if (!CondVar || CondVar->getDecl() != I || !isIncrementOf(For->getInc(), I))
      return std::nullopt;
    const Expr *Lo = I->getInit(), *Hi = Cond->getRHS();
    const Expr *Base = nullptr, *Index = nullptr;
    const Expr *El = IO->Element->IgnoreParenImpCasts();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(El)) {
      Base = AS->getBase();
      Index = AS->getIdx();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(El);
               Op && Op->getOperator() == OO_Subscript &&
               isContiguous(Op->getArg(0)->getType())) {
      Base = Op->getArg(0);
      Index = Op->getArg(1);
    }
    const auto *IndexVar =
        Index ? dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts()) : nullptr;
    if (!Base || !IndexVar || IndexVar->getDecl() != I ||
        !isPlainName(Base, AST) || !isRepeatable(Lo, AST) ||
        !isRepeatable(Hi, AST) || evaluatedReferences(I, loopBody(Loop)) != 1)
      return std::nullopt;
    // The bounds do not change in the loop (a read into the array they
    // come from would).
    for (const Expr *Bound : {Lo, Hi})
      for (const VarDecl *V : referencedVars(Bound))
        if (V == I || isMutatedIn(V, loopBody(Loop), AST))
          return std::nullopt;
    auto BaseText = Text(Base), LoText = Text(Lo), HiText = Text(Hi);
    if (!BaseText || !LoText || !HiText)
      return std::nullopt;
    // A count that is not one name, literal or call is multiplied in
    // parentheses.
    bool Simple = isa<DeclRefExpr, IntegerLiteral, MemberExpr, CallExpr>(
        Hi->IgnoreParenImpCasts());
    std::string First = *BaseText + "[" + *LoText + "]";
    std::string Count = *LoText == "0" && Simple ? *HiText
                        : *LoText == "0"
                            ? "(" + *HiText + ")"
                            : "(" + *HiText + " - " + *LoText + ")";
    return "if (" + *LoText + " < " + *HiText + ")\n" +
           blockTransfer(*IO, *Channel, "&" + First, Count, First);
  }

  static bool isIncrementOf(const Expr *Inc, const VarDecl *I) {
    Inc = Inc->IgnoreParenImpCasts();
    const Expr *Target = nullptr;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc); U && U->isIncrementOp())
      Target = U->getSubExpr();
    if (const auto *B = dyn_cast<BinaryOperator>(Inc);
        B && B->getOpcode() == BO_AddAssign &&
        isa<IntegerLiteral>(B->getRHS()->IgnoreParenImpCasts()) &&
        cast<IntegerLiteral>(B->getRHS()->IgnoreParenImpCasts())->getValue() ==
            1)
      Target = B->getLHS();
    const auto *D =
        Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr;
    return D && D->getDecl() == I;
  }

  /// for (const T &x : range) with the element `x`: the whole range.
  template <typename TextFn>
  static std::optional<std::string>
  rewriteRangeFor(const CXXForRangeStmt *RF, const ElementIO &IO,
                  const RuleContext &Ctx, llvm::StringRef Channel,
                  TextFn Text) {
    ASTContext &AST = Ctx.getASTContext();
    const VarDecl *V = RF->getLoopVariable();
    const auto *D = dyn_cast<DeclRefExpr>(IO.Element->IgnoreParenImpCasts());
    const Expr *Range = RF->getRangeInit();
    if (!D || D->getDecl() != V || !Range || !isContiguous(Range->getType()) ||
        !isPlainName(Range, AST) ||
        evaluatedReferences(V, RF->getBody()) != 1 ||
        !AST.hasSameUnqualifiedType(V->getType().getNonReferenceType(),
                                    elementType(Range->getType())))
      return std::nullopt;
    // A read stores into the range: a by-value loop variable reads into a
    // copy that is thrown away.
    if ((IO.Kind == Transfer::StreamRead || IO.Kind == Transfer::FileRead) &&
        (!V->getType()->isReferenceType() ||
         V->getType().getNonReferenceType().isConstQualified()))
      return std::nullopt;
    auto RangeText = Text(Range);
    if (!RangeText)
      return std::nullopt;
    std::string R = *RangeText;
    bool IsArray = Range->getType().getCanonicalType()->isConstantArrayType();
    std::string Count =
        IsArray ? "(sizeof(" + R + ") / sizeof(" + R + "[0]))" : R + ".size()";
    // data(): the first element without indexing an empty container.
    std::string Pointer = IsArray ? R : R + ".data()";
    if (!IsArray &&
        (IO.Kind == Transfer::StreamRead || IO.Kind == Transfer::FileRead) &&
        isStdString(Range->getType()))
      return std::nullopt; // data() is const before C++17.
    return blockTransfer(IO, Channel, Pointer, Count, R + "[0]");
  }

  static QualType elementType(QualType T) {
    T = T.getNonReferenceType().getCanonicalType();
    if (const auto *AT = dyn_cast<ArrayType>(T.getTypePtr()))
      return AT->getElementType();
    const auto *Spec =
        cast<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
    return Spec->getTemplateArgs()[0].getAsType();
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createBlockIORule() {
  return std::make_unique<BlockIORule>();
}
