//===-- MapToUnorderedMap.cpp - Ordered containers whose order is unused -===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// std::map / std::set variables whose order is never used (only lookups,
// inserts, erases by key, size) become std::unordered_map /
// std::unordered_set: hashing instead of a tree walk per access. The
// variables of the target, and globals the whole file only looks up.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// std::map or std::set with the default comparator and allocator, keyed by
/// a type std::hash knows: the name to switch to, else "".
llvm::StringRef unorderedNameFor(QualType T) {
  T = T.getCanonicalType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier())
    return "";
  llvm::StringRef Name = Spec->getName();
  if (Name != "map" && Name != "set")
    return "";
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() < 1 || Args[0].getKind() != TemplateArgument::Type)
    return "";
  QualType Key = Args[0].getAsType().getCanonicalType();
  bool Hashable = Key->isIntegralOrEnumerationType();
  if (const auto *RD = Key->getAsCXXRecordDecl())
    Hashable = RD->isInStdNamespace() && RD->getIdentifier() &&
               RD->getName() == "basic_string";
  if (!Hashable)
    return "";
  // The comparator must be std::less<Key>.
  unsigned CompareIdx = Name == "map" ? 2 : 1;
  if (Args.size() > CompareIdx &&
      Args[CompareIdx].getKind() == TemplateArgument::Type) {
    const auto *Less = Args[CompareIdx].getAsType()->getAsCXXRecordDecl();
    if (!Less || !Less->getIdentifier() || Less->getName() != "less")
      return "";
  }
  return Name == "map" ? "unordered_map" : "unordered_set";
}

/// True when every use of \p V is a lookup, an insert, an erase by key or a
/// size query: nothing that depends on the order of the elements.
class OrderUseChecker : public RecursiveASTVisitor<OrderUseChecker> {
public:
  OrderUseChecker(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() != V)
      return true;
    ++Uses;
    const Stmt *P = parentOf(E);
    while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P)))
      P = parentOf(P);
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
      const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
      if (!MD || !MD->getIdentifier())
        return Ok = false;
      llvm::StringRef Name = MD->getName();
      bool Allowed = llvm::StringSwitch<bool>(Name)
                         .Cases({"count", "size", "empty", "clear", "at"}, true)
                         .Cases({"insert", "emplace", "contains"}, true)
                         .Default(false);
      if (Name == "find") {
        // The iterator must not go into a variable whose type spells
        // map<...>::iterator.
        const Stmt *Call = parentOf(ME);
        const VarDecl *Holder = Call ? declParentOf(Call) : nullptr;
        const Stmt *Up = Call ? parentOf(Call) : nullptr;
        while (Up &&
               (isa<ImplicitCastExpr>(Up) || isa<ExprWithCleanups>(Up) ||
                isa<MaterializeTemporaryExpr>(Up) || isa<CXXConstructExpr>(Up)))
          Up = parentOf(Up);
        const auto *Assign = dyn_cast_or_null<CXXOperatorCallExpr>(Up);
        Allowed = (!Holder || Holder->getType()->getContainedAutoType()) &&
                  !(Assign && Assign->getOperator() == OO_Equal);
      }
      if (Name == "end")
        Allowed = true; // Compared with find's result; begin() is refused.
      if (Name == "erase")
        Allowed = MD->getNumParams() == 1 &&
                  !MD->getParamDecl(0)->getType()->isRecordType();
      if (!Allowed)
        return Ok = false;
      return true;
    }
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
      if (Op->getOperator() == OO_Subscript &&
          Op->getArg(0)->IgnoreImpCasts() == E)
        return true;
    }
    return Ok = false;
  }

  bool Ok = true;
  unsigned Uses = 0;

private:
  const Stmt *parentOf(const Stmt *S) {
    DynTypedNodeList Ps = AST.getParents(*S);
    return Ps.size() == 1 ? Ps[0].get<Stmt>() : nullptr;
  }
  const VarDecl *declParentOf(const Stmt *S) {
    while (S) {
      DynTypedNodeList Ps = AST.getParents(*S);
      if (Ps.size() != 1)
        return nullptr;
      if (const auto *VD = Ps[0].get<VarDecl>())
        return VD;
      S = Ps[0].get<Stmt>();
      if (S && !isa<ImplicitCastExpr>(S) && !isa<ExprWithCleanups>(S) &&
          !isa<CXXConstructExpr>(S) && !isa<MaterializeTemporaryExpr>(S))
        return nullptr;
    }
    return nullptr;
  }

  const VarDecl *V;
  ASTContext &AST;
};

class MapToUnorderedMapRule : public Rule {
public:
  MapToUnorderedMapRule()
      : Rule("map-to-unordered-map",
             "std::map/std::set whose order is never used to "
             "std::unordered_map/std::unordered_set",
             "hash container") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    std::vector<const VarDecl *> Vars;
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const VarDecl *> &Vars;
      explicit Finder(std::vector<const VarDecl *> &Vars) : Vars(Vars) {}
      bool VisitVarDecl(VarDecl *V) {
        if (!isa<ParmVarDecl>(V) && !unorderedNameFor(V->getType()).empty())
          Vars.push_back(V);
        return true;
      }
    } F(Vars);
    for (const FunctionDecl *FD : Ctx.getFunctions())
      F.TraverseStmt(FD->getBody());
    if (Ctx.getOptions().Scope == EditScope::File)
      for (const Decl *D : AST.getTranslationUnitDecl()->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (!unorderedNameFor(V->getType()).empty())
            Vars.push_back(V);
    RuleEdit E = makeEdit("", 40);
    std::vector<std::string> Names;
    std::vector<unsigned> Lines;
    bool NeedMap = false, NeedSet = false;
    for (const VarDecl *V : Vars) {
      if (!V->getTypeSourceInfo() || !Ctx.isEditable(V->getSourceRange()))
        continue;
      // The type must be written as map<...> / std::set<...> right here.
      TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
      auto Spec = TL.getAs<TemplateSpecializationTypeLoc>();
      if (!Spec)
        continue;
      auto NameR = Ctx.getEditRange(SourceRange(Spec.getTemplateNameLoc()));
      if (!NameR)
        continue;
      llvm::StringRef Old = Ctx.getText(*NameR);
      if (Old != "map" && Old != "set")
        continue;
      OrderUseChecker C(V, AST);
      C.TraverseDecl(AST.getTranslationUnitDecl());
      if (!C.Ok)
        continue;
      llvm::StringRef New = unorderedNameFor(V->getType());
      if (!New.ends_with(Old))
        continue;
      RuleEdit Trial = E;
      if (!addReplacement(Trial, Ctx, *NameR, New))
        continue;
      E = std::move(Trial);
      Names.push_back(V->getNameAsString());
      Lines.push_back(Ctx.getUserLine(V->getLocation()));
      (New == "unordered_map" ? NeedMap : NeedSet) = true;
    }
    if (Names.empty())
      return;
    // The header, unless everything is included already.
    bool All = llvm::any_of(findMainIncludes(Ctx), [](const MainInclude &I) {
      return streamHeaderSpelling(I) == "<bits/stdc++.h>";
    });
    if (!All && NeedMap && !addHeader(E, Ctx, "<unordered_map>"))
      return;
    if (!All && NeedSet && !addHeader(E, Ctx, "<unordered_set>"))
      return;
    std::string List;
    for (const std::string &N : Names)
      List += (List.empty() ? "" : ", ") + N;
    E.Description = llvm::formatv("hash containers for {0} (order never used; "
                                  "{1})",
                                  List, describeLines(Lines));
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createMapToUnorderedMapRule() {
  return std::make_unique<MapToUnorderedMapRule>();
}
