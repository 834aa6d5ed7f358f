//===-- ByteKeyTable.cpp - Byte-keyed lookups through a 256-entry table ---===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `auto It = Codes.find(C);` for every byte of an input, with `Codes` a
// std::map, std::unordered_map, std::set or std::unordered_set keyed by a
// one-byte type (char, unsigned char, int8_t, std::byte, an enum on one
// byte): each lookup hashes and walks a bucket (or a tree of up to eight
// levels) for a key that has only 256 values. When the loop does not change
// the container, the rule fills an array of its iterators by key before the
// loop (the container's end() where a key is absent) and each lookup reads
// the array: find gives the same iterator, count and contains the same
// answer, and at the same element (or, for an absent key, calls at, which
// throws as before).
//
// It is sound when nothing changes the container's elements while the array
// is in use: the container is a local or a parameter by value, nothing
// takes its address or a non-const reference to it (no alias, no lambda
// capturing it by reference), and every use of it in the loop is one of the
// lookups or a read of its size or ends. Lookups in a lambda the loop
// creates are left alone (the lambda may run after the loop). The array is
// built before the outermost loop that satisfies this, so that a nest pays
// for it once.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace maxcode;
using namespace clang;

namespace {

/// What a standard associative container is, for this rule.
struct ByteKeyed {
  QualType Key;
  bool IsMap = false; ///< Elements are pairs (`It->first`), not keys.
};

/// The key of \p T when it is a std::map, std::set, std::unordered_map or
/// std::unordered_set (not a multi- one: its find may give any of equal
/// keys) keyed by a one-byte integer or enum, comparing keys with std::less
/// or std::equal_to of the key: then a key found equals the key looked up
/// (a transparent or custom comparison might not), whatever the hash.
std::optional<ByteKeyed> byteKeyed(QualType T, const ASTContext &AST) {
  const ClassTemplateSpecializationDecl *Spec = stdSpecialization(T);
  if (!Spec)
    return std::nullopt;
  ByteKeyed B;
  // The template argument that compares keys.
  unsigned Compare = llvm::StringSwitch<unsigned>(Spec->getName())
                         .Case("map", 2)
                         .Case("set", 1)
                         .Case("unordered_map", 3)
                         .Case("unordered_set", 2)
                         .Default(0);
  if (!Compare)
    return std::nullopt;
  B.IsMap = Spec->getName().ends_with("map");
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() <= Compare || Args[0].getKind() != TemplateArgument::Type ||
      Args[Compare].getKind() != TemplateArgument::Type)
    return std::nullopt;
  B.Key = Args[0].getAsType().getCanonicalType().getUnqualifiedType();
  if (!B.Key->isIntegralOrEnumerationType() || AST.getTypeSize(B.Key) != 8)
    return std::nullopt;
  llvm::StringRef Equal =
      Spec->getName().starts_with("unordered") ? "equal_to" : "less";
  if (!isStdTemplateOf(Args[Compare], Equal, B.Key))
    return std::nullopt;
  return B;
}

/// The expression without the implicit nodes around it: casts, the
/// temporary a `const Key &` parameter binds.
const Expr *written(const Expr *E) {
  return E->IgnoreImplicit()->IgnoreParens();
}

/// A lookup of the container: `C.find(K)`, `C.count(K)`, `C.contains(K)`
/// or, on a map, `C.at(K)`.
struct Lookup {
  const CXXMemberCallExpr *Call = nullptr;
  llvm::StringRef Name;
  const Expr *Key = nullptr;
};

/// The member call whose object is \p Ref, when there is one.
const CXXMemberCallExpr *memberCallOn(ASTContext &AST, const DeclRefExpr *Ref) {
  const Stmt *P = parentStmt(AST, Ref);
  while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P)))
    P = parentStmt(AST, P);
  const auto *ME = dyn_cast_or_null<MemberExpr>(P);
  if (!ME || ME->isArrow())
    return nullptr;
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
  if (!Call || Call->getCallee()->IgnoreParens() != ME)
    return nullptr;
  return Call;
}

/// The members a loop may call on the container while the array stands in
/// for its lookups: none changes which elements it holds.
bool readsOnly(llvm::StringRef Name) {
  return llvm::is_contained({"find", "count", "contains", "at", "begin", "end",
                             "cbegin", "cend", "size", "empty", "max_size",
                             "bucket_count", "load_factor"},
                            Name);
}

/// True when every use of \p V in \p Loop is a call of a member that reads
/// it only.
bool onlyReadIn(const VarDecl *V, const Stmt *Loop, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    ASTContext &AST;
    bool Ok = true;
    Finder(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() != V)
        return true;
      const CXXMemberCallExpr *Call = memberCallOn(AST, D);
      const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
      Ok = MD && MD->getIdentifier() && readsOnly(MD->getName());
      return Ok;
    }
  } F(V, AST);
  F.TraverseStmt(const_cast<Stmt *>(Loop));
  return F.Ok;
}

/// The index into the array for \p Key, the lookup's argument (text
/// \p Text): its value as the container's key type, as an unsigned char.
/// None when that needs a conversion the text cannot show simply.
std::optional<std::string> indexFor(const Expr *Key, llvm::StringRef Text,
                                    QualType KeyType, const ASTContext &AST) {
  QualType T = Key->IgnoreParenImpCasts()
                   ->getType()
                   .getCanonicalType()
                   .getUnqualifiedType();
  std::string Cast = "static_cast<unsigned char>(" + Text.str() + ")";
  if (T == KeyType)
    return Cast;
  // An integer converted to a one-byte integer key keeps its value modulo
  // 256, as the cast to unsigned char does; a bool key, an enum or a
  // floating-point argument would need the conversion written out.
  if (T->isIntegerType() && !T->isEnumeralType() && !T->isBooleanType() &&
      KeyType->isIntegerType() && !KeyType->isBooleanType() &&
      !KeyType->isEnumeralType())
    return Cast;
  return std::nullopt;
}

/// True when the text replacing \p E must be parenthesised to keep its
/// place: an operand of an operator, a cast or a member access.
bool isOperand(ASTContext &AST, const Expr *E) {
  const Stmt *P = parentStmt(AST, E);
  while (P && isa<ImplicitCastExpr>(P))
    P = parentStmt(AST, P);
  return P && (isa<BinaryOperator>(P) || isa<UnaryOperator>(P) ||
               isa<AbstractConditionalOperator>(P) ||
               isa<ArraySubscriptExpr>(P) || isa<MemberExpr>(P) ||
               isa<CXXOperatorCallExpr>(P) || isa<ExplicitCastExpr>(P));
}

/// The loops around \p S inside \p Body, innermost first, up to the first
/// lambda or block boundary: a lookup in a lambda the loop creates is left
/// alone, as the lambda may run after the loop.
std::vector<const Stmt *> enclosingLoops(ASTContext &AST, const Stmt *S,
                                         const Stmt *Body) {
  std::vector<const Stmt *> Loops;
  for (const Stmt *P = enclosingStmt(AST, S); P && P != Body;
       P = enclosingStmt(AST, P)) {
    if (isa<LambdaExpr>(P) || isa<BlockExpr>(P))
      break;
    if (isa<ForStmt>(P) || isa<WhileStmt>(P) || isa<DoStmt>(P) ||
        isa<CXXForRangeStmt>(P))
      Loops.push_back(P);
  }
  return Loops;
}

/// True when \p Loop's text holds \p D's declaration.
bool declaredIn(const VarDecl *D, const Stmt *Loop, const SourceManager &SM) {
  SourceRange R = Loop->getSourceRange();
  return !SM.isBeforeInTranslationUnit(D->getLocation(), R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), D->getLocation());
}

/// A name for the array: the container's, in its own style.
std::string tableName(const RuleContext &Ctx, const VarDecl *V) {
  llvm::StringRef Name = V->getName();
  bool Snake = Name.contains('_') || Name.lower() == Name;
  return Ctx.getFreshName(Name.str() + (Snake ? "_by_byte" : "ByByte"));
}

class ByteKeyTableRule : public Rule {
public:
  ByteKeyTableRule()
      : Rule("byte-key-table",
             "lookups in a loop of a map or set keyed by a byte (find, count, "
             "contains, at) read a 256-entry table of its iterators, filled "
             "before the loop",
             "byte-keyed lookup table") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // decltype, auto and range-for in the text it writes.
    if (!AST.getLangOpts().CPlusPlus11)
      return;
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 55), Ctx, FD);
      std::string Names;
      for (const Group &G : groupsIn(FD, AST))
        if (propose(Ctx, E, G))
          Names += (Names.empty() ? "" : ", ") + G.Var->getName().str();
      E.addTo(Out, "look " + Names + " up through a table by byte");
    }
  }

private:
  /// The lookups of one container in one loop.
  struct Group {
    const VarDecl *Var = nullptr;
    ByteKeyed Kind;
    const Stmt *Loop = nullptr;
    std::vector<Lookup> Lookups;
  };

  /// The containers a loop's code cannot change other than by name: a
  /// local or a parameter by value, not volatile, with no alias.
  static std::optional<ByteKeyed>
  candidate(const VarDecl *V, const FunctionDecl *FD, ASTContext &AST) {
    if (!V->hasLocalStorage() || V->getType()->isReferenceType() ||
        V->getType().isVolatileQualified() || hasAliases(V, FD->getBody()))
      return std::nullopt;
    return byteKeyed(V->getType(), AST);
  }

  static std::vector<Group> groupsIn(const FunctionDecl *FD, ASTContext &AST) {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const DeclRefExpr *> Refs;
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        Refs.push_back(D);
        return true;
      }
    } F;
    F.TraverseStmt(FD->getBody());
    const SourceManager &SM = AST.getSourceManager();
    std::vector<Group> Groups;
    llvm::DenseMap<const VarDecl *, std::optional<ByteKeyed>> Kinds;
    for (const DeclRefExpr *Ref : F.Refs) {
      const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
      if (!V)
        continue;
      auto [It, New] = Kinds.try_emplace(V);
      if (New)
        It->second = candidate(V, FD, AST);
      if (!It->second)
        continue;
      const CXXMemberCallExpr *Call = memberCallOn(AST, Ref);
      const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
      if (!MD || !MD->getIdentifier() || Call->getNumArgs() != 1)
        continue;
      Lookup L{Call, MD->getName(), written(Call->getArg(0))};
      if (L.Name != "find" && L.Name != "count" && L.Name != "contains" &&
          (L.Name != "at" || !It->second->IsMap))
        continue;
      // The outermost loop around the lookup that keeps the container as
      // it is and does not declare it.
      const Stmt *Loop = nullptr;
      for (const Stmt *Around : enclosingLoops(AST, Call, FD->getBody())) {
        if (declaredIn(V, Around, SM) || !onlyReadIn(V, Around, AST))
          break;
        Loop = Around;
      }
      if (!Loop)
        continue;
      auto G = llvm::find_if(
          Groups, [&](const Group &G) { return G.Var == V && G.Loop == Loop; });
      if (G == Groups.end())
        G = Groups.insert(Groups.end(), Group{V, *It->second, Loop, {}});
      G->Lookups.push_back(L);
    }
    return Groups;
  }

  /// Replaces the lookups of \p G and fills the table before its loop.
  bool propose(const RuleContext &Ctx, FunctionEdit &E, const Group &G) const {
    ASTContext &AST = Ctx.getASTContext();
    std::string C = G.Var->getName().str();
    std::string Table = tableName(Ctx, G.Var);
    std::string It = Ctx.getFreshName("It"), Slot = Ctx.getFreshName("Slot");
    std::string Fill =
        "decltype(" + C + ".end()) " + Table + "[256];\n" + "for (auto &" +
        Slot + " : " + Table + ")\n" + Slot + " = " + C + ".end();\n" +
        "for (auto " + It + " = " + C + ".begin(); " + It + " != " + C +
        ".end(); ++" + It + ")\n" + Table + "[static_cast<unsigned char>(" +
        (G.Kind.IsMap ? It + "->first" : "*" + It) + ")] = " + It + ";";
    return E.tryChange(G.Lookups.front().Call->getBeginLoc(), [&](RuleEdit &T) {
      for (const Lookup &L : G.Lookups) {
        auto CallR = Ctx.getEditRange(L.Call->getSourceRange());
        auto KeyR = Ctx.getEditRange(L.Key->getSourceRange());
        if (!CallR || !KeyR)
          return false;
        llvm::StringRef KeyText = Ctx.getText(*KeyR);
        std::optional<std::string> Index =
            indexFor(L.Key, KeyText, G.Kind.Key, AST);
        if (!Index)
          return false;
        std::string Entry = Table + "[" + *Index + "]";
        std::string Text;
        if (L.Name == "find")
          Text = Entry;
        else if (L.Name == "contains")
          Text = Entry + " != " + C + ".end()";
        else if (L.Name == "count")
          // count's type, so that `auto N = C.count(K)` keeps its type.
          Text = "static_cast<decltype(" + C + ".size())>(" + Entry +
                 " != " + C + ".end())";
        else {
          // at: an absent key still throws from at; the key is read twice
          // then, so it must give the same value and change nothing.
          if (!isRepeatable(L.Key, AST))
            return false;
          Text = Entry + " != " + C + ".end() ? " + Entry + "->second : " + C +
                 ".at(" + KeyText.str() + ")";
        }
        if (L.Name != "find" && L.Name != "count" && isOperand(AST, L.Call))
          Text = "(" + Text + ")";
        if (!addReplacement(T, Ctx, *CallR, Text))
          return false;
      }
      auto LoopR = statementRange(Ctx, G.Loop);
      if (!LoopR)
        return false;
      if (compoundParent(AST, G.Loop) && startsLine(Ctx, LoopR->getBegin()))
        return insertLineBefore(T, Ctx, G.Loop, Fill);
      // A brace between a pragma and its loop would take the loop's place.
      return !followsPragma(Ctx, G.Loop) &&
             insertText(T, Ctx, LoopR->getBegin(), "{\n" + Fill + "\n") &&
             insertText(T, Ctx, LoopR->getEnd(), "\n}");
    });
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createByteKeyTableRule() {
  return std::make_unique<ByteKeyTableRule>();
}
