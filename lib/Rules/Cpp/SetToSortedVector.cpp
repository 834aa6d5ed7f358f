//===-- SetToSortedVector.cpp - A set built, then searched: a vector ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `std::set<int> Seen;` filled by a loop of inserts and only searched after
// it (count, contains, find compared with end, size, iteration): every
// insert allocates a node and walks a tree, and every search chases
// pointers through it. When all the inserts come before all the other uses,
// a std::vector takes them with push_back, one std::sort and std::unique
// after the last make it hold what the set held in the same order, and the
// searches are std::binary_search over contiguous memory.
//
// It is sound when the phases are apart: the set is a local of a block, and
// every statement of that block holding an insert comes before every one
// holding another use, so that nothing reads it between inserts. Keys are
// types whose `==` agrees with `<` (integers, enums, strings, and pairs and
// tuples of them: not floating point, where NaN breaks both), compared by
// std::less; a search's key converts to the set's key without a change of
// value. The set has no alias (no reference, pointer or capture by
// reference), and the function has no goto.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"

using namespace maxcode;
using namespace clang;

namespace {

/// True for keys whose `==` says what `<` says of equivalence, so that
/// std::unique keeps what the set kept: integers, enums, std::string, and
/// pairs and tuples of them.
bool equalityAgreesWithOrder(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isIntegralOrEnumerationType() || isStdString(T))
    return true;
  const ClassTemplateSpecializationDecl *Spec = stdSpecialization(T);
  if (!Spec)
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Spec->getName() == "pair")
    return Args.size() == 2 && equalityAgreesWithOrder(Args[0].getAsType()) &&
           equalityAgreesWithOrder(Args[1].getAsType());
  if (Spec->getName() != "tuple" || Args.size() != 1 ||
      Args[0].getKind() != TemplateArgument::Pack)
    return false;
  return llvm::all_of(Args[0].pack_elements(), [](const TemplateArgument &A) {
    return A.getKind() == TemplateArgument::Type &&
           equalityAgreesWithOrder(A.getAsType());
  });
}

/// The key of \p T when it is a std::set with std::less of its key and the
/// standard allocator.
std::optional<QualType> sortableSetKey(QualType T) {
  const ClassTemplateSpecializationDecl *Spec = stdSpecialization(T);
  if (!Spec || Spec->getName() != "set")
    return std::nullopt;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() != 3 || Args[0].getKind() != TemplateArgument::Type)
    return std::nullopt;
  QualType Key = Args[0].getAsType().getCanonicalType();
  if (!isStdTemplateOf(Args[1], "less", Key) ||
      !isStdTemplateOf(Args[2], "allocator", Key) ||
      !equalityAgreesWithOrder(Key))
    return std::nullopt;
  return Key;
}

/// True when a key of type \p Arg converts to \p Key keeping its value, so
/// that comparing it with `<` gives what the set's converted lookup gave.
bool convertsExactly(QualType Arg, QualType Key, const ASTContext &AST) {
  Arg = Arg.getCanonicalType().getUnqualifiedType();
  Key = Key.getCanonicalType().getUnqualifiedType();
  if (Arg == Key)
    return true;
  // Not bool: `std::binary_search` would compare it as an integer where
  // the set converted the key first.
  return !Arg->isBooleanType() && !Key->isBooleanType() &&
         integerConvertsExactly(Arg, Key, AST);
}

/// The key a search names as written, when std::binary_search compares it
/// with the elements as the set compared its converted copy: one of the
/// key's type or converting exactly, or a string literal for a
/// std::string. Null for a braced list (binary_search cannot deduce its
/// type) or another conversion.
const Expr *searchKey(const Expr *Arg, QualType Key, const ASTContext &AST) {
  const Expr *E = Arg->IgnoreImplicit()->IgnoreParens();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && !isa<CXXTemporaryObjectExpr>(CE)) {
    // `std::string(const char *, const Alloc & = Alloc())`.
    if (CE->getNumArgs() == 0 || !isStdString(Key) ||
        !llvm::all_of(llvm::drop_begin(CE->arguments()),
                      [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      return nullptr;
    const Expr *From = CE->getArg(0)->IgnoreParenImpCasts();
    QualType T = From->getType();
    const Type *Element = T->getPointeeOrArrayElementType();
    bool CharPointer = (T->isPointerType() || T->isArrayType()) &&
                       (Element->isSpecificBuiltinType(BuiltinType::Char_S) ||
                        Element->isSpecificBuiltinType(BuiltinType::Char_U));
    return CharPointer ? CE->getArg(0)->IgnoreImplicit()->IgnoreParens()
                       : nullptr;
  }
  if (isa<InitListExpr>(E) ||
      !convertsExactly(E->IgnoreParenImpCasts()->getType(), Key, AST))
    return nullptr;
  return E;
}

/// The single parent of \p N (a statement or a declaration), or a null
/// node.
DynTypedNode parentOf(ASTContext &AST, DynTypedNode N) {
  DynTypedNodeList Ps = AST.getParents(N);
  return Ps.size() == 1 ? Ps[0] : DynTypedNode();
}

/// The statement of \p Block that holds \p S, or -1.
int topIndexIn(ASTContext &AST, const Stmt *S, const CompoundStmt *Block) {
  for (const Stmt *P = enclosingStmt(AST, S); P;
       S = P, P = enclosingStmt(AST, P))
    if (P == Block) {
      for (unsigned I = 0; I < Block->size(); ++I)
        if (Block->body_begin()[I] == S)
          return I;
      return -1;
    }
  return -1;
}

/// The expression around \p E without the nodes that copy or convert it.
const Stmt *consumerOf(ASTContext &AST, const Expr *E) {
  const Stmt *P = parentStmt(AST, E);
  while (P && (isa<ImplicitCastExpr>(P) || isa<MaterializeTemporaryExpr>(P) ||
               isa<CXXBindTemporaryExpr>(P) || isa<ExprWithCleanups>(P) ||
               isa<ParenExpr>(P) ||
               (isa<CXXConstructExpr>(P) &&
                cast<CXXConstructExpr>(P)->getNumArgs() == 1)))
    P = parentStmt(AST, P);
  return P;
}

/// `S.Name()` on \p V.
bool isCallOn(const Expr *E, const VarDecl *V,
              std::initializer_list<llvm::StringRef> Names) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(E ? E->IgnoreImplicit() : nullptr);
  if (!Call || !Call->getMethodDecl() ||
      !Call->getMethodDecl()->getIdentifier())
    return false;
  const auto *Ref = dyn_cast<DeclRefExpr>(
      Call->getImplicitObjectArgument()->IgnoreParenImpCasts());
  return Ref && Ref->getDecl() == V &&
         llvm::is_contained(Names, Call->getMethodDecl()->getName());
}

/// One use of the set, and what it becomes.
struct Use {
  enum KindT { Insert, Search, Read } Kind;
  const Stmt *Where = nullptr;    ///< The expression the use is part of.
  const Expr *Replaced = nullptr; ///< What the edit replaces, if anything.
  const Expr *Key = nullptr;      ///< A search's key.
  bool Negated = false;           ///< `S.find(K) == S.end()`.
  bool AsCount = false;           ///< count() where a number is read.
  const CXXMemberCallExpr *Call = nullptr; ///< An insert's call.
};

/// The uses of \p V in \p Body, classified; none when one is of a kind the
/// rule does not know.
std::optional<std::vector<Use>> usesOf(const VarDecl *V, QualType Key,
                                       const Stmt *Body, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const DeclRefExpr *> Refs;
    const VarDecl *V;
    explicit Finder(const VarDecl *V) : V(V) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() == V)
        Refs.push_back(D);
      return true;
    }
  } F(V);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  std::vector<Use> Uses;
  llvm::SmallPtrSet<const Expr *, 8> Ends; // end() calls a search consumed.
  for (const DeclRefExpr *Ref : F.Refs) {
    const Stmt *P = parentStmt(AST, Ref);
    while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P)))
      P = parentStmt(AST, P);
    // A range-for over it reads it in order, as a sorted vector has it.
    if (!P) {
      DynTypedNode N = parentOf(AST, DynTypedNode::create(*Ref));
      const auto *Range = N.get<VarDecl>();
      DynTypedNode DS = Range ? parentOf(AST, N) : DynTypedNode();
      const auto *For =
          DS.get<DeclStmt>() ? parentStmt(AST, DS.get<DeclStmt>()) : nullptr;
      const auto *RF = dyn_cast_or_null<CXXForRangeStmt>(For);
      if (!RF || RF->getRangeStmt() != DS.get<DeclStmt>())
        return std::nullopt;
      Uses.push_back({Use::Read, Ref});
      continue;
    }
    const auto *ME = dyn_cast<MemberExpr>(P);
    const auto *Call =
        ME ? dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME)) : nullptr;
    const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
    if (!MD || !MD->getIdentifier() || ME->isArrow())
      return std::nullopt;
    llvm::StringRef Name = MD->getName();
    if (Name == "insert" || Name == "emplace") {
      // Its result (an iterator and a flag) unused: a statement of its own.
      const Stmt *Around = parentStmt(AST, Call);
      while (Around && isa<ExprWithCleanups>(Around))
        Around = parentStmt(AST, Around);
      if ((Name == "insert" && Call->getNumArgs() != 1) || !Around ||
          isa<Expr>(Around))
        return std::nullopt;
      Use U{Use::Insert, Call};
      U.Call = Call;
      Uses.push_back(U);
      continue;
    }
    if (Name == "count" || Name == "contains" || Name == "find") {
      if (Call->getNumArgs() != 1)
        return std::nullopt;
      Use U{Use::Search, Call};
      U.Key = searchKey(Call->getArg(0), Key, AST);
      if (!U.Key)
        return std::nullopt;
      U.Replaced = Call;
      if (Name == "count") {
        const auto *Cast =
            dyn_cast_or_null<ImplicitCastExpr>(parentStmt(AST, Call));
        U.AsCount = !Cast || Cast->getCastKind() != CK_IntegralToBoolean;
      }
      if (Name == "find") {
        // Only compared with end(): `S.find(K) != S.end()`.
        const Stmt *Cmp = consumerOf(AST, Call);
        const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Cmp);
        if (!Op || Op->getNumArgs() != 2 ||
            (Op->getOperator() != OO_EqualEqual &&
             Op->getOperator() != OO_ExclaimEqual))
          return std::nullopt;
        const Expr *Other =
            Op->getArg(0)->IgnoreImplicit() == Call->IgnoreImplicit()
                ? Op->getArg(1)
                : Op->getArg(0);
        if (!isCallOn(Other, V, {"end", "cend"}))
          return std::nullopt;
        Ends.insert(Other->IgnoreImplicit());
        U.Negated = Op->getOperator() == OO_EqualEqual;
        U.Replaced = Op;
        // C++20 writes `a != b` as a rewritten `!(a == b)`.
        const Stmt *Up = parentStmt(AST, Op);
        if (const auto *Not = dyn_cast_or_null<UnaryOperator>(Up);
            Not && Not->getOpcode() == UO_LNot)
          if (const auto *RW = dyn_cast_or_null<CXXRewrittenBinaryOperator>(
                  parentStmt(AST, Not))) {
            U.Negated = !U.Negated;
            U.Replaced = RW;
          }
        if (const auto *RW = dyn_cast_or_null<CXXRewrittenBinaryOperator>(Up))
          U.Replaced = RW;
      }
      U.Where = U.Replaced;
      Uses.push_back(U);
      continue;
    }
    if (llvm::is_contained({"size", "empty", "begin", "end", "cbegin", "cend",
                            "rbegin", "rend", "crbegin", "crend"},
                           Name)) {
      Uses.push_back({Use::Read, Call});
      continue;
    }
    return std::nullopt;
  }
  // The end() calls a search compares with go with it.
  llvm::erase_if(Uses, [&](const Use &U) {
    return U.Kind == Use::Read && isa<Expr>(U.Where) &&
           Ends.contains(cast<Expr>(U.Where));
  });
  return Uses;
}

/// True when \p FD has a goto (a jump back would insert after the sort).
bool hasGoto(const FunctionDecl *FD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitGotoStmt(GotoStmt *) { return !(Found = true); }
    bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return !(Found = true); }
  } F;
  F.TraverseStmt(FD->getBody());
  return F.Found;
}

/// True when \p S lies inside a loop within \p Block.
bool inLoopWithin(ASTContext &AST, const Stmt *S, const Stmt *Block) {
  for (const Stmt *P = enclosingStmt(AST, S); P && P != Block;
       P = enclosingStmt(AST, P))
    if (isa<ForStmt>(P) || isa<WhileStmt>(P) || isa<DoStmt>(P) ||
        isa<CXXForRangeStmt>(P))
      return true;
  return false;
}

class SetToSortedVectorRule : public Rule {
public:
  SetToSortedVectorRule()
      : Rule("set-to-sorted-vector",
             "a std::set filled by inserts and only searched or read after "
             "the last to a vector sorted once (std::sort, std::unique, "
             "std::binary_search)",
             "sorted vector") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    if (!AST.getLangOpts().CPlusPlus11)
      return;
    bool All = llvm::any_of(findMainIncludes(Ctx), [](const MainInclude &I) {
      return streamHeaderSpelling(I) == "<bits/stdc++.h>";
    });
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      if (hasGoto(FD))
        continue;
      FunctionEdit E(makeEdit("", 40), Ctx, FD);
      std::string Names;
      struct Finder : RecursiveASTVisitor<Finder> {
        std::vector<const VarDecl *> Vars;
        bool VisitVarDecl(VarDecl *V) {
          if (V->isLocalVarDecl() && !V->isStaticLocal() &&
              sortableSetKey(V->getType()))
            Vars.push_back(V);
          return true;
        }
      } F;
      F.TraverseStmt(FD->getBody());
      for (const VarDecl *V : F.Vars)
        if (propose(Ctx, E, FD, V, All))
          Names += (Names.empty() ? "" : ", ") + V->getName().str();
      E.addTo(Out, "a sorted vector for " + Names);
    }
  }

private:
  bool propose(const RuleContext &Ctx, FunctionEdit &E, const FunctionDecl *FD,
               const VarDecl *V, bool All) const {
    ASTContext &AST = Ctx.getASTContext();
    QualType Key = *sortableSetKey(V->getType());
    if (V->getType().isVolatileQualified() || V->getType().isConstQualified() ||
        hasAliases(V, FD->getBody()) || !V->getTypeSourceInfo())
      return false;
    // Declared alone, by `std::set<K> S;` or from a list or a range, which
    // a vector's constructors take as they are.
    DynTypedNodeList Ps = AST.getParents(*V);
    const auto *DS = Ps.size() == 1 ? Ps[0].get<DeclStmt>() : nullptr;
    const CompoundStmt *Block = DS ? compoundParent(AST, DS) : nullptr;
    if (!Block || !DS->isSingleDecl())
      return false;
    if (const auto *Init = dyn_cast_or_null<CXXConstructExpr>(
            V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr)) {
      const CXXConstructorDecl *Ctor = Init->getConstructor();
      if (Ctor->isCopyOrMoveConstructor())
        return false;
    }
    auto Spec = V->getTypeSourceInfo()
                    ->getTypeLoc()
                    .getAs<TemplateSpecializationTypeLoc>();
    if (!Spec || Spec.getNumArgs() != 1)
      return false;
    auto NameR = Ctx.getEditRange(SourceRange(Spec.getTemplateNameLoc()));
    if (!NameR || Ctx.getText(*NameR) != "set")
      return false;
    std::optional<std::vector<Use>> Uses = usesOf(V, Key, FD->getBody(), AST);
    if (!Uses)
      return false;
    // The phases: every statement of the block with an insert before every
    // one with another use; one insert at least in a loop.
    int LastInsert = -1, FirstOther = INT_MAX;
    bool Looped = false;
    int Decl = topIndexIn(AST, DS, Block);
    for (const Use &U : *Uses) {
      int I = topIndexIn(AST, U.Where, Block);
      if (I < 0 || I <= Decl)
        return false;
      if (U.Kind == Use::Insert) {
        LastInsert = std::max(LastInsert, I);
        Looped |= inLoopWithin(AST, U.Where, Block);
      } else {
        FirstOther = std::min(FirstOther, I);
      }
    }
    if (!Looped || FirstOther == INT_MAX || LastInsert >= FirstOther)
      return false;
    std::string S = V->getName().str();
    std::string Range = S + ".begin(), " + S + ".end()";
    return E.tryChange(V->getLocation(), [&](RuleEdit &T) {
      if (!addReplacement(T, Ctx, *NameR, "vector"))
        return false;
      for (const Use &U : *Uses) {
        if (U.Kind == Use::Insert) {
          auto MemberR = Ctx.getEditRange(
              SourceRange(cast<MemberExpr>(U.Call->getCallee()->IgnoreParens())
                              ->getMemberLoc()));
          if (!MemberR || !addReplacement(T, Ctx, *MemberR,
                                          Ctx.getText(*MemberR) == "insert"
                                              ? "push_back"
                                              : "emplace_back"))
            return false;
          continue;
        }
        if (U.Kind != Use::Search)
          continue;
        auto KeyR = Ctx.getEditRange(U.Key->getSourceRange());
        auto R = Ctx.getEditRange(U.Replaced->getSourceRange());
        if (!KeyR || !R)
          return false;
        std::string Text = "std::binary_search(" + Range + ", " +
                           Ctx.getText(*KeyR).str() + ")";
        if (U.AsCount)
          Text = "static_cast<decltype(" + S + ".size())>(" + Text + ")";
        if (U.Negated)
          Text = "!" + Text;
        if (!addReplacement(T, Ctx, *R, Text))
          return false;
      }
      // Sorted and without duplicates before the first other use: what the
      // set held, in its order.
      std::string Sort = "std::sort(" + Range + ");\n" + S +
                         ".erase(std::unique(" + Range + "), " + S + ".end());";
      return insertLineBefore(T, Ctx, Block->body_begin()[LastInsert + 1],
                              Sort) &&
             (All || (addHeader(T, Ctx, "<algorithm>") &&
                      addHeader(T, Ctx, "<vector>")));
    });
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createSetToSortedVectorRule() {
  return std::make_unique<SetToSortedVectorRule>();
}
