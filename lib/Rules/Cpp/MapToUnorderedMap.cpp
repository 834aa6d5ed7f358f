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
// A composite key (std::pair and std::tuple of integers, enums and strings,
// nested) has no std::hash: the rule declares a hash right before the
// variable and names it as the container's third (map) or second (set)
// template argument.
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

/// Most scalar parts a composite key may have: a hash of more is not worth
/// reading in a diff.
constexpr unsigned MaxKeyParts = 8;

/// Appends to \p Parts, for a key of type \p T read as \p Access, the
/// expressions whose hashes make the key's hash: the key itself when
/// std::hash knows it (an integer, an enum, a std::string), else the members
/// of a std::pair (`.first`, `.second`) or a std::tuple (`std::get<I>`),
/// recursively. False for anything else (a float, whose `<` and `==` differ
/// on NaN; a struct, which may have no `==`).
bool keyParts(QualType T, const std::string &Access,
              std::vector<std::string> &Parts) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isIntegralOrEnumerationType()) {
    Parts.push_back("static_cast<std::size_t>(" + Access + ")");
    return Parts.size() <= MaxKeyParts;
  }
  if (isStdString(T)) {
    Parts.push_back("std::hash<std::string>{}(" + Access + ")");
    return Parts.size() <= MaxKeyParts;
  }
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier())
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Spec->getName() == "pair")
    return Args.size() == 2 &&
           keyParts(Args[0].getAsType(), Access + ".first", Parts) &&
           keyParts(Args[1].getAsType(), Access + ".second", Parts);
  if (Spec->getName() != "tuple" || Args.size() != 1 ||
      Args[0].getKind() != TemplateArgument::Pack || Args[0].pack_size() == 0)
    return false;
  unsigned I = 0;
  for (const TemplateArgument &A : Args[0].pack_elements())
    if (A.getKind() != TemplateArgument::Type ||
        !keyParts(A.getAsType(),
                  llvm::formatv("std::get<{0}>({1})", I++, Access).str(),
                  Parts))
      return false;
  return true;
}

/// The parts of \p Key (parameter `K` of the hash) when it is a composite
/// key the rule can hash; empty when it is not composite or not hashable.
std::vector<std::string> compositeKeyParts(QualType Key) {
  std::vector<std::string> Parts;
  Key = Key.getCanonicalType();
  if (Key->isIntegralOrEnumerationType() || isStdString(Key) ||
      !keyParts(Key, "K", Parts))
    return {};
  return Parts;
}

/// std::map or std::set with the default comparator and allocator, keyed by
/// a type std::hash knows, or a composite of such types: the name to switch
/// to, else "".
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
    Hashable = (RD->isInStdNamespace() && RD->getIdentifier() &&
                RD->getName() == "basic_string") ||
               !compositeKeyParts(Key).empty();
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

/// For a map or set \p V keyed by a composite (its type written as \p Spec),
/// declares a hash for the key on a line of its own before \p V's
/// declaration and names it as the hash argument of the container; true and
/// nothing done when the key has a standard hash. \p Hashes counts the hashes
/// the edit declares, so that their names stay distinct.
bool addKeyHash(RuleEdit &E, const RuleContext &Ctx, const VarDecl *V,
                TemplateSpecializationTypeLoc Spec, unsigned &Hashes) {
  const auto *Container = cast<ClassTemplateSpecializationDecl>(
      V->getType().getCanonicalType()->getAsCXXRecordDecl());
  std::vector<std::string> Parts =
      compositeKeyParts(Container->getTemplateArgs()[0].getAsType());
  if (Parts.empty())
    return true;
  // A local class is a template argument only from C++11; the hash goes
  // where the map's template arguments end, so none may be written after the
  // key and value (a comparator, an allocator).
  unsigned Written = Container->getName() == "map" ? 2 : 1;
  if (!Ctx.getASTContext().getLangOpts().CPlusPlus11 ||
      Spec.getNumArgs() != Written)
    return false;
  auto KeyR = Ctx.getEditRange(Spec.getArgLoc(0).getSourceRange());
  // The hash follows the last argument's text (`set<tuple<...> >` keeps its
  // space after the hash, not before it).
  auto LastR = Ctx.getEditRange(Spec.getArgLoc(Written - 1).getSourceRange());
  if (!KeyR || !LastR)
    return false;
  std::string Name =
      Ctx.getFreshName(Hashes == 0 ? std::string("KeyHash")
                                   : "KeyHash" + std::to_string(Hashes + 1));
  // The parts' hashes are mixed by a multiply, so that keys differing in one
  // part by small integers (grid cells, pixels) spread over the buckets.
  std::string List;
  for (const std::string &P : Parts)
    List += (List.empty() ? "" : ",\n") + P;
  std::string Hash = llvm::formatv(
      "struct {0} {{\nstd::size_t operator()(const {1} &K) const {{\n"
      "std::size_t H = 0;\nfor (std::size_t X : {{{2}})\nH = (H ^ X) * "
      "0x9e3779b97f4a7c15ULL;\nreturn H ^ (H >> 29);\n}\n};",
      Name, Ctx.getText(*KeyR), List);
  bool Declared;
  if (V->isLocalVarDecl()) {
    DynTypedNodeList Ps = Ctx.getASTContext().getParents(*V);
    const auto *DS = Ps.size() == 1 ? Ps[0].get<DeclStmt>() : nullptr;
    Declared = DS && insertLineBefore(E, Ctx, DS, Hash);
  } else {
    Declared = startsLine(Ctx, V->getBeginLoc()) &&
               insertText(E, Ctx, V->getBeginLoc(), Hash + "\n");
  }
  if (!Declared || !insertText(E, Ctx, LastR->getEnd(), ", " + Name))
    return false;
  ++Hashes;
  return true;
}

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
    unsigned Hashes = 0;
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
      if (!addReplacement(Trial, Ctx, *NameR, New) ||
          !addKeyHash(Trial, Ctx, V, Spec, Hashes))
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
