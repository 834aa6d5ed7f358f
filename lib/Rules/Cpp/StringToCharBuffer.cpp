//===-- StringToCharBuffer.cpp - Strings of main as char arrays -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A program that keeps one std::string needs libstdc++ loaded and relocated
// at start-up, which on a small input is most of its cost. A string of main
// that is only read with `cin >>`, written with `cout <<`, indexed, measured
// and compared (what a contest program does with the word it reads) works
// the same as a char array: `static char s[N]` (static: main runs once, and
// the array is zeroed, empty, like a new string), `s.size()` -> `strlen(s)`,
// `s == "abc"` -> `strcmp(s, "abc") == 0`. The stream statements stay as they
// are (the streams read and write char arrays too) unless fast-io rewrites
// them, and then it reads with a width that fits the array.
//
// N is the option BufferSize (1 MiB by default): a longer word than that
// would be cut, which the tests would show.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

const char *const RuleId = "string-to-char-buffer";

/// Skips the implicit nodes around a use.
const Stmt *up(ASTContext &AST, const Stmt *S) {
  const Stmt *P = parentStmt(AST, S);
  while (P &&
         (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
          isa<MaterializeTemporaryExpr>(P) || isa<CXXBindTemporaryExpr>(P)))
    P = parentStmt(AST, P);
  return P;
}

/// True when \p S is inside the condition of a loop (evaluated again and
/// again: strlen there would cost the length every time).
bool inLoopCondition(ASTContext &AST, const Stmt *S) {
  const Stmt *Child = S;
  for (const Stmt *P = parentStmt(AST, S); P;
       Child = P, P = parentStmt(AST, P)) {
    if (const auto *F = dyn_cast<ForStmt>(P))
      if (F->getCond() == Child || F->getInc() == Child)
        return true;
    if (const auto *W = dyn_cast<WhileStmt>(P))
      if (W->getCond() == Child)
        return true;
    if (const auto *D = dyn_cast<DoStmt>(P))
      if (D->getCond() == Child)
        return true;
  }
  return false;
}

/// The text of the other side of a comparison, as strcmp takes it, or ""
/// when it is not a C string, a literal or another buffer.
std::string cStringText(const RuleContext &Ctx, const Expr *E,
                        const llvm::SmallPtrSetImpl<const VarDecl *> &Buffers) {
  const Expr *X = E->IgnoreParenImpCasts();
  if (const auto *C = dyn_cast<CXXConstructExpr>(X))
    if (C->getNumArgs() >= 1)
      X = C->getArg(0)->IgnoreParenImpCasts();
  if (const auto *D = dyn_cast<DeclRefExpr>(X))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && Buffers.count(V))
      return Ctx.getSourceText(D).str();
  QualType T = X->getType();
  if (isa<StringLiteral>(X) ||
      (T->isPointerType() && T->getPointeeType()->isCharType()) ||
      (T->isArrayType() && T->getArrayElementTypeNoTypeQual()->isCharType()))
    return Ctx.getSourceText(X).str();
  return "";
}

/// The strings declared at the top of main (\p Body), default-constructed.
std::vector<const VarDecl *> topStrings(const CompoundStmt *Body) {
  std::vector<const VarDecl *> Vars;
  for (const Stmt *S : Body->body()) {
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      continue;
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !isStdString(V->getType()) || V->getType()->isReferenceType() ||
          V->isStaticLocal() || V->getType().isConstQualified())
        continue;
      const auto *Init = dyn_cast_or_null<CXXConstructExpr>(
          V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr);
      if (!Init || Init->getNumArgs() != 0)
        continue;
      Vars.push_back(V);
    }
  }
  return Vars;
}

/// A use \p D of a buffer as an operand of \p Op: streamed, indexed or
/// compared (its edit, if any, into \p E; \p Ok false if it fails). False
/// when a char array has no such use.
bool operatorUse(const RuleContext &Ctx, const CXXOperatorCallExpr *Op,
                 const DeclRefExpr *D,
                 const llvm::SmallPtrSetImpl<const VarDecl *> &Candidates,
                 CharBuffer &B, RuleEdit &E, bool &Ok) {
  OverloadedOperatorKind K = Op->getOperator();
  const FunctionDecl *Callee = Op->getDirectCallee();
  bool IsArg1 =
      Op->getNumArgs() == 2 && Op->getArg(1)->IgnoreParenImpCasts() == D;
  bool IsArg0 =
      Op->getNumArgs() >= 1 && Op->getArg(0)->IgnoreParenImpCasts() == D;
  if ((K == OO_GreaterGreater || K == OO_LessLess) && IsArg1 && Callee &&
      isInStd(Callee))
    return true; // Streams read and write char arrays.
  if (K == OO_Subscript && IsArg0) {
    // The same text indexes an array.
    if (const auto *C =
            dyn_cast<DeclRefExpr>(Op->getCallee()->IgnoreParenImpCasts()))
      B.StringMemberUses.push_back(C->getLocation());
    return true;
  }
  bool Compare = K == OO_EqualEqual || K == OO_ExclaimEqual || K == OO_Less ||
                 K == OO_Greater || K == OO_LessEqual || K == OO_GreaterEqual;
  if (!Compare || Op->getNumArgs() != 2 || (!IsArg0 && !IsArg1))
    return false;
  std::string L = cStringText(Ctx, Op->getArg(0), Candidates);
  std::string R = cStringText(Ctx, Op->getArg(1), Candidates);
  auto Whole = Ctx.getEditRange(Op->getSourceRange());
  if (L.empty() || R.empty() || !Whole)
    return false;
  const char *Spelled = K == OO_EqualEqual     ? "=="
                        : K == OO_ExclaimEqual ? "!="
                        : K == OO_Less         ? "<"
                        : K == OO_Greater      ? ">"
                        : K == OO_LessEqual    ? "<="
                                               : ">=";
  Ok &= addReplacement(E, Ctx, *Whole,
                       "strcmp(" + L + ", " + R + ") " + Spelled + " 0");
  B.NeedsCString = true;
  return true;
}

/// A use \p D of a buffer as the object of a member call (\p ME): its
/// size, length or emptiness (the edit into \p E; \p Ok false if it
/// fails). False when a char array has no such use.
bool memberUse(const RuleContext &Ctx, const MemberExpr *ME,
               const DeclRefExpr *D, CharBuffer &B, RuleEdit &E, bool &Ok) {
  ASTContext &AST = Ctx.getASTContext();
  const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
  llvm::StringRef Name = MD && MD->getIdentifier() ? MD->getName() : "";
  auto Whole = Call ? Ctx.getEditRange(Call->getSourceRange()) : std::nullopt;
  std::string Text = Ctx.getSourceText(D).str();
  if (Whole && (Name == "size" || Name == "length") &&
      !inLoopCondition(AST, Call)) {
    Ok &= addReplacement(E, Ctx, *Whole, "strlen(" + Text + ")");
    B.NeedsCString = true;
    return true;
  }
  if (Whole && Name == "empty") {
    // A call binds tighter than `==`: parentheses unless it stands
    // alone in a condition.
    const Stmt *Use = up(AST, Call);
    bool Alone = false;
    if (const auto *If = dyn_cast_or_null<IfStmt>(Use))
      Alone = If->getCond()->IgnoreParenImpCasts() == Call;
    if (const auto *W = dyn_cast_or_null<WhileStmt>(Use))
      Alone = W->getCond()->IgnoreParenImpCasts() == Call;
    std::string Test = Text + "[0] == '\\0'";
    Ok &= addReplacement(E, Ctx, *Whole, Alone ? Test : "(" + Test + ")");
    return true;
  }
  return false;
}

/// True when every use of \p V in \p Main is one a char array has too; the
/// edits of the uses go to \p B.
bool checkUses(const RuleContext &Ctx, const FunctionDecl *Main,
               const VarDecl *V,
               const llvm::SmallPtrSetImpl<const VarDecl *> &Candidates,
               CharBuffer &B) {
  ASTContext &AST = Ctx.getASTContext();
  RuleEdit E;
  bool Ok = true;
  auto Ref = declRefExpr(to(varDecl(equalsNode(V)))).bind("ref");
  for (const BoundNodes &N : match(findAll(Ref), *Main->getBody(), AST)) {
    const auto *D = N.getNodeAs<DeclRefExpr>("ref");
    const Stmt *P = up(AST, D);
    if (!Ctx.getEditRange(D->getSourceRange())) {
      Ok = false;
      break;
    }
    bool Usable = false;
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P))
      Usable = operatorUse(Ctx, Op, D, Candidates, B, E, Ok);
    else if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
      Usable = memberUse(Ctx, ME, D, B, E, Ok);
    if (!Usable) {
      Ok = false;
      break;
    }
  }
  // Not in a lambda (a capture would copy an array, or keep a
  // reference with other rules).
  auto Captures = lambdaExpr(hasAnyCapture(capturesVar(equalsNode(V))));
  if (!match(findAll(Captures), *Main->getBody(), AST).empty())
    Ok = false;
  if (Ok)
    B.Replaces = E.Replaces;
  return Ok;
}

/// The declarations: `string s, t;` -> `static char s[N], t[N];`. The type
/// is shared by the declarators of one statement, which must all be
/// buffers; those that cannot be rewritten leave \p Found.
void rewriteDeclarations(const RuleContext &Ctx, const CompoundStmt *Body,
                         std::map<const VarDecl *, CharBuffer> &Found) {
  for (const Stmt *S : Body->body()) {
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      continue;
    bool Any = false, All = true;
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      bool Is = V && Found.count(V);
      Any |= Is;
      All &= Is;
    }
    if (!Any)
      continue;
    if (!All) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Found.erase(V);
      continue;
    }
    for (const Decl *D : DS->decls()) {
      const auto *V = cast<VarDecl>(D);
      CharBuffer &B = Found[V];
      RuleEdit E;
      E.Replaces = B.Replaces;
      TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
      auto TypeR = Ctx.getEditRange(TL.getSourceRange());
      auto NameR = Ctx.getEditRange(SourceRange(V->getLocation()));
      if (!TypeR || !NameR || !addReplacement(E, Ctx, *TypeR, "static char") ||
          !insertText(E, Ctx, NameR->getEnd(),
                      "[" + std::to_string(B.Size) + "]")) {
        Found.erase(V);
        continue;
      }
      B.Replaces = E.Replaces;
    }
  }
}

} // namespace

/// findCharBuffers' work, done once per context.
static std::vector<CharBuffer> computeCharBuffers(const RuleContext &Ctx) {
  std::vector<CharBuffer> Out;
  if (!Ctx.isCPlusPlus() || Ctx.isCuda())
    return Out;
  const Rule *Self = findRule(RuleId);
  int64_t Size = Self ? Ctx.getOption(*Self, "BufferSize", int64_t(1) << 20)
                      : int64_t(1) << 20;
  if (Size < 2 || Size > (int64_t(1) << 30))
    return Out;
  const FunctionDecl *Main = nullptr;
  for (const FunctionDecl *FD : Ctx.getFileFunctions())
    if (FD->isMain())
      Main = FD;
  const auto *Body = Main ? dyn_cast<CompoundStmt>(Main->getBody()) : nullptr;
  if (!Body)
    return Out;

  // Strings declared at the top of main, default-constructed.
  std::vector<const VarDecl *> Vars = topStrings(Body);
  if (Vars.empty())
    return Out;
  llvm::SmallPtrSet<const VarDecl *, 4> Candidates(Vars.begin(), Vars.end());

  // Every use must be one a char array has too. A failure removes the
  // variable and starts again (a comparison with it no longer qualifies the
  // other side).
  bool Changed = true;
  std::map<const VarDecl *, CharBuffer> Found;
  while (Changed) {
    Changed = false;
    Found.clear();
    for (const VarDecl *V : Candidates) {
      CharBuffer B;
      B.Var = V;
      B.Size = unsigned(Size);
      if (!checkUses(Ctx, Main, V, Candidates, B)) {
        Candidates.erase(V);
        Changed = true;
        break;
      }
      Found[V] = std::move(B);
    }
  }

  rewriteDeclarations(Ctx, Body, Found);
  for (const VarDecl *V : Vars)
    if (Found.count(V))
      Out.push_back(std::move(Found[V]));
  return Out;
}

const std::vector<CharBuffer> &
maxcode::findCharBuffers(const RuleContext &Ctx) {
  static const char Key = 0;
  return Ctx.getSharedAnalysis<std::vector<CharBuffer>>(
      &Key, [&] { return computeCharBuffers(Ctx); });
}

namespace {

class StringToCharBufferRule : public Rule {
public:
  StringToCharBufferRule()
      : Rule(RuleId,
             "std::string variables of main only read, written, indexed, "
             "measured and compared to char arrays (no libstdc++ start-up)",
             "char buffer", RuleLanguages::CPlusPlus) {}

  std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const override {
    return {{"BufferSize", "1048576"}};
  }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    const std::vector<CharBuffer> &Buffers = findCharBuffers(Ctx);
    if (Buffers.empty())
      return;
    RuleEdit E = makeEdit("", 60);
    std::string Names;
    std::vector<unsigned> Lines;
    bool CString = false;
    for (const CharBuffer &B : Buffers) {
      if (!mergeReplacements(E.Replaces, B.Replaces))
        return;
      Names += (Names.empty() ? "" : ", ") + B.Var->getNameAsString();
      Lines.push_back(Ctx.getUserLine(B.Var->getLocation()));
      CString |= B.NeedsCString;
    }
    if (CString && !addHeader(E, Ctx, "<cstring>"))
      return;
    E.Description = llvm::formatv("std::string {0} of main as char array{1} "
                                  "of {2} bytes ({3})",
                                  Names, Buffers.size() == 1 ? "" : "s",
                                  Buffers.front().Size, describeLines(Lines));
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createStringToCharBufferRule() {
  return std::make_unique<StringToCharBufferRule>();
}
