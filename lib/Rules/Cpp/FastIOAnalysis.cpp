//===-- FastIOAnalysis.cpp - fast-io's view of a program's streams --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "FastIO.h"

using namespace maxcode;
using namespace maxcode::fastio;
using namespace clang;

StreamKind fastio::streamKindOf(const Decl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  if (!VD || !VD->getDeclContext()->isStdNamespace() || !VD->getIdentifier())
    return StreamKind::None;
  return llvm::StringSwitch<StreamKind>(VD->getName())
      .Case("cin", StreamKind::In)
      .Case("cout", StreamKind::Out)
      .Cases({"cerr", "clog"}, StreamKind::Err)
      .Default(StreamKind::None);
}

const Expr *fastio::ignoreWrappers(const Expr *E) {
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

std::pair<const Stmt *, const Stmt *> fastio::realParent(ASTContext &AST,
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

const FunctionDecl *fastio::namedFunction(const Expr *E) {
  E = ignoreWrappers(E);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      E = ignoreWrappers(U->getSubExpr());
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  return DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
}

std::string fastio::cLiteral(llvm::StringRef Bytes, bool Format) {
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

bool fastio::isReplaced(const RuleEdit &E, unsigned Off) {
  return llvm::any_of(E.Replaces, [&](const auto &Rep) {
    return Rep.getOffset() != UINT_MAX && Off >= Rep.getOffset() &&
           Off < Rep.getOffset() + Rep.getLength();
  });
}

void Analysis::run() {
  for (const FunctionDecl *FD : Ctx.getFileFunctions())
    if (FD->isMain())
      Main = FD;
  Buffers = findCharBuffers(Ctx);
  TraverseDecl(AST.getTranslationUnitDecl());
}

bool Analysis::TraverseDecl(Decl *D) {
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

bool Analysis::fail(llvm::StringRef Why) {
  if (!Failed) {
    Failed = true;
    Reason = Why.str();
  }
  return true;
}

const FunctionDecl *Analysis::enclosingFunction(const Stmt *S) {
  DynTypedNodeList Ps = AST.getParents(*S);
  while (!Ps.empty()) {
    if (const auto *FD = Ps[0].get<FunctionDecl>())
      return FD;
    Ps = AST.getParents(Ps[0]);
  }
  return nullptr;
}

bool Analysis::VisitCallExpr(CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return true;
  // C stdio beside the streams: they must stay synchronised.
  if (!isa<CXXMethodDecl>(FD) &&
      llvm::is_contained({"printf", "scanf", "puts", "putchar", "getchar",
                          "fprintf", "fscanf", "fputs", "fgets", "gets", "putc",
                          "getc", "fwrite", "fread", "fflush"},
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

bool Analysis::VisitDeclRefExpr(DeclRefExpr *E) {
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

void Analysis::setUp(const Expr *Call) {
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

bool Analysis::isSetUpCall(const Expr *E) {
  E = ignoreWrappers(E);
  const auto *C = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || !isInStd(FD))
    return false;
  return llvm::is_contained({"sync_with_stdio", "tie"}, FD->getName());
}

bool Analysis::isSetUpExpr(const Expr *E) {
  E = ignoreWrappers(E);
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isCommaOp())
    return isSetUpExpr(B->getLHS()) && isSetUpExpr(B->getRHS());
  return isSetUpCall(E);
}

void Analysis::classify(const DeclRefExpr *E, StreamKind K, const Stmt *First) {
  ASTContext &AST = this->AST;
  const Stmt *P = First;
  while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
               isa<MaterializeTemporaryExpr>(P)))
    P = parentStmt(AST, P);
  // `cin.tie(0)`, `cout.flush()`, `cin.sync_with_stdio(false)`.
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
    const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
    const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
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

bool Analysis::operand(Chain &C, const CXXOperatorCallExpr *L) {
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

const CharBuffer *Analysis::bufferOf(const Expr *E) {
  const auto *D = dyn_cast<DeclRefExpr>(ignoreWrappers(E));
  if (!D)
    return nullptr;
  for (const CharBuffer &B : Buffers)
    if (B.Var == D->getDecl())
      return &B;
  return nullptr;
}

/// The conversion of an integer of kind \p K, which scanf and printf spell
/// alike; empty for any other kind.
static llvm::StringRef integerConversion(BuiltinType::Kind K) {
  switch (K) {
  case BuiltinType::Short:
    return "%hd";
  case BuiltinType::UShort:
    return "%hu";
  case BuiltinType::Int:
    return "%d";
  case BuiltinType::UInt:
    return "%u";
  case BuiltinType::Long:
    return "%ld";
  case BuiltinType::ULong:
    return "%lu";
  case BuiltinType::LongLong:
    return "%lld";
  case BuiltinType::ULongLong:
    return "%llu";
  default:
    return "";
  }
}

bool Analysis::input(Chain &C, Operand &O, QualType P) {
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
        O.Spec = "%" + std::to_string(AT->getSize().getZExtValue() - 1) + "s";
    C.Operands.push_back(O);
    return true;
  }
  if (!P->isLValueReferenceType())
    return fail("an input manipulator");
  QualType T = P.getNonReferenceType();
  if (const auto *AT = AST.getAsConstantArrayType(T);
      AT && AT->getElementType()->isCharType() &&
      !AT->getElementType().isConstQualified()) {
    O.Spec = AT->getSize().getZExtValue() > 1
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
  llvm::StringRef Spec = integerConversion(BT->getKind());
  switch (BT->getKind()) {
  case BuiltinType::Char_S:
  case BuiltinType::Char_U:
    Spec = " %c";
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
    if (Spec.empty())
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

bool Analysis::output(Chain &C, Operand &O, QualType P) {
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

bool Analysis::manipulator(Chain &C, Operand &O, const Expr *Arg) {
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

bool Analysis::outputBuiltin(Chain &C, Operand &O, QualType T) {
  const auto *BT = T->getAs<BuiltinType>();
  if (!BT)
    return fail("writing a type printf does not write: " + T.getAsString());
  llvm::StringRef Spec = integerConversion(BT->getKind());
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
    if (Spec.empty())
      return fail("writing a type printf does not write: " + T.getAsString());
  }
  O.Spec = Spec.str();
  C.Operands.push_back(O);
  return true;
}

bool Analysis::isPlainChar(QualType T) {
  return T->isSpecificBuiltinType(BuiltinType::Char_S) ||
         T->isSpecificBuiltinType(BuiltinType::Char_U);
}

bool Analysis::context(Chain &C) {
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
    const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
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
