//===-- Review.cpp - What a reviewer asks about ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A verified winner is correct on its tests and faster on its inputs; what
// a maintainer still asks about is what tests cannot show. A model found
// 1.13x on an SVM solver by keeping a scratch array in a function-static
// pointer allocated with new[] and never freed: shared between calls and
// threads, and not in the diff's words. Each kind of note is found in both
// the original and the winner, and only what the winner adds is said.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Review.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace clang;

llvm::StringRef maxcode::reviewKindName(ReviewKind K) {
  switch (K) {
  case ReviewKind::MutableState:
    return "mutable-state";
  case ReviewKind::Leak:
    return "leak";
  case ReviewKind::Extension:
    return "extension";
  }
  llvm_unreachable("unknown review kind");
}

namespace {

/// One thing a note may be about, found in a parse: its kind, a key that
/// finds the same thing in the other text, and the note.
struct Finding {
  std::string Key;
  ReviewNote Note;
};

/// The name of the function \p D is in, or "".
std::string functionOf(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      return FD->getQualifiedNameAsString();
  return "";
}

/// \p E without the parentheses and implicit casts around it, upward: the
/// first parent that is something else.
DynTypedNode parentOf(ASTContext &Ctx, DynTypedNode N) {
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      return DynTypedNode();
    N = Parents[0];
    if (const auto *E = N.get<Expr>())
      if (isa<ParenExpr, ImplicitCastExpr, CXXStaticCastExpr, CStyleCastExpr,
              ExprWithCleanups>(E))
        continue;
    return N;
  }
}

/// The variable or member \p E names, ignoring casts.
const ValueDecl *namedBy(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return R->getDecl();
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return M->getMemberDecl();
  return nullptr;
}

bool isAllocation(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getIdentifier() &&
         llvm::is_contained(
             {"malloc", "calloc", "realloc", "strdup", "aligned_alloc"},
             FD->getName());
}

/// What one parse holds of each kind.
class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &Ctx) : Ctx(Ctx), SM(Ctx.getSourceManager()) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitVarDecl(VarDecl *VD) {
    if (!inMain(VD->getLocation()) || isa<ParmVarDecl>(VD))
      return true;
    QualType T = VD->getType();
    // A const array's elements are const; a pointer to const is not.
    if (VD->hasGlobalStorage() && !VD->isConstexpr() &&
        !Ctx.getBaseElementType(T).isConstQualified()) {
      std::string Fn = functionOf(VD);
      std::string Where =
          Fn.empty() ? (VD->isStaticDataMember() ? "static member" : "global")
                     : "static in `" + Fn + "`";
      add(ReviewKind::MutableState, "state:" + Fn + "::" + VD->getName().str(),
          VD->getLocation(),
          llvm::formatv("`{0}` ({1}, line {2}) is mutable state that keeps its "
                        "value between calls and is shared between threads",
                        VD->getName(), Where, line(VD->getLocation()))
              .str());
    }
    if (VD->getType()->isVariableArrayType())
      add(ReviewKind::Extension, "vla", VD->getLocation(),
          llvm::formatv("`{0}` (line {1}) is a variable-length array, a GNU "
                        "extension in C++",
                        VD->getName(), line(VD->getLocation()))
              .str());
    return true;
  }

  bool VisitStmtExpr(StmtExpr *E) {
    if (inMain(E->getBeginLoc()))
      add(ReviewKind::Extension, "stmt-expr", E->getBeginLoc(),
          llvm::formatv("a statement expression `({ ... })` (line {0}), a GNU "
                        "extension",
                        line(E->getBeginLoc()))
              .str());
    return true;
  }

  bool VisitCXXNewExpr(CXXNewExpr *E) {
    if (inMain(E->getBeginLoc()) && E->getNumPlacementArgs() == 0)
      allocation(E, E->isArray() ? "new[]" : "new");
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (inMain(C->getBeginLoc()) && isAllocation(C))
      allocation(C, C->getDirectCallee()->getName().str());
    if (const FunctionDecl *FD = C->getDirectCallee())
      if (FD->getIdentifier() && FD->getName() == "free" && C->getNumArgs())
        if (const ValueDecl *V = namedBy(C->getArg(0)))
          Freed.insert(V->getCanonicalDecl());
    return true;
  }

  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    if (const ValueDecl *V = namedBy(E->getArgument()))
      Freed.insert(V->getCanonicalDecl());
    return true;
  }

  /// Allocations whose holder nothing frees, now that every free is known.
  void finishLeaks() {
    for (auto &[Holder, F] : Held)
      if (!Freed.count(Holder))
        Out.push_back(std::move(F));
  }

  /// Extensions spelled in the main file's tokens.
  void scanTokens() {
    FileID Main = SM.getMainFileID();
    llvm::StringRef Buf = SM.getBufferData(Main);
    const LangOptions &LO = Ctx.getLangOpts();
    Lexer L(SM.getLocForStartOfFile(Main), LO, Buf.begin(), Buf.begin(),
            Buf.end());
    L.SetCommentRetentionState(false);
    Token Tok;
    for (bool AtEnd = false; !AtEnd;) {
      AtEnd = L.LexFromRawLexer(Tok);
      if (Tok.is(tok::eof))
        break;
      if (Tok.is(tok::hash) && Tok.isAtStartOfLine()) {
        pragma(L, Tok);
        continue;
      }
      if (!Tok.is(tok::raw_identifier))
        continue;
      llvm::StringRef Id = Tok.getRawIdentifier();
      std::string What;
      if (Id == "__attribute__" || Id == "__attribute")
        What = "a GNU attribute";
      else if (Id.starts_with("__builtin_"))
        What = "a GCC and Clang builtin";
      else if (Id == "__restrict" || Id == "__restrict__")
        What = "a compiler's restrict qualifier";
      else if (Id == "__int128" || Id == "__int128_t" || Id == "__uint128_t")
        What = "a 128-bit integer type GCC and Clang have on 64-bit targets";
      else if (Id == "__typeof__" || Id == "__typeof" || Id == "typeof")
        What = "GNU typeof";
      else if (Id == "__extension__")
        What = "a GNU extension marker";
      if (What.empty())
        continue;
      add(ReviewKind::Extension, "ext:" + Id.str(), Tok.getLocation(),
          llvm::formatv("`{0}` (line {1}): {2}, not standard C++", Id,
                        line(Tok.getLocation()), What)
              .str());
    }
  }

  std::vector<Finding> Out;

private:
  bool inMain(SourceLocation L) const {
    return L.isValid() && SM.isWrittenInMainFile(SM.getExpansionLoc(L));
  }
  unsigned line(SourceLocation L) const { return SM.getExpansionLineNumber(L); }
  void add(ReviewKind K, std::string Key, SourceLocation L, std::string Text) {
    Out.push_back({std::move(Key), {K, line(L), std::move(Text)}});
  }

  /// `#pragma GCC ...` and `#pragma clang ...` lines.
  void pragma(Lexer &L, Token &Hash) {
    Token Tok;
    L.LexFromRawLexer(Tok);
    if (!Tok.is(tok::raw_identifier) || Tok.getRawIdentifier() != "pragma")
      return;
    L.LexFromRawLexer(Tok);
    if (!Tok.is(tok::raw_identifier))
      return;
    llvm::StringRef Space = Tok.getRawIdentifier();
    if (Space != "GCC" && Space != "clang")
      return;
    Token Name;
    L.LexFromRawLexer(Name);
    std::string What = Space.str();
    if (Name.is(tok::raw_identifier))
      What += " " + Name.getRawIdentifier().str();
    add(ReviewKind::Extension, "pragma:" + What, Hash.getLocation(),
        llvm::formatv("`#pragma {0}` (line {1}): {2}-specific", What,
                      line(Hash.getLocation()),
                      Space == "GCC" ? "GCC" : "Clang")
            .str());
  }

  /// An allocation at \p E: where its pointer goes decides whether it can
  /// leak.
  void allocation(const Expr *E, std::string How) {
    DynTypedNode P = parentOf(Ctx, DynTypedNode::create(*E));
    const ValueDecl *Holder = nullptr;
    if (const auto *VD = P.get<VarDecl>())
      Holder = VD;
    else if (const auto *B = P.get<BinaryOperator>()) {
      if (B->isAssignmentOp())
        Holder = namedBy(B->getLHS());
    }
    // Returned, handed to a function (a smart pointer, a container) or
    // used otherwise: whose it is then is not this note's to say.
    if (!Holder)
      return;
    const auto *VD = dyn_cast<VarDecl>(Holder);
    if (VD && VD->getType()->isRecordType())
      return; // A smart pointer constructed from it.
    bool Static = VD && VD->hasGlobalStorage();
    std::string Fn = functionOf(Holder);
    Held.emplace_back(
        Holder->getCanonicalDecl(),
        Finding{"leak:" + Fn + "::" + Holder->getName().str() + ":" + How,
                {ReviewKind::Leak, line(E->getBeginLoc()),
                 llvm::formatv("`{0}` (line {1}) is stored in {2}`{3}` and "
                               "never freed in this file",
                               How, line(E->getBeginLoc()),
                               Static ? "static " : "", Holder->getName())
                     .str()}});
  }

  ASTContext &Ctx;
  SourceManager &SM;
  llvm::DenseSet<const Decl *> Freed;
  std::vector<std::pair<const Decl *, Finding>> Held;
};

llvm::Expected<std::vector<Finding>>
findingsOf(const clang::tooling::CompileCommand &Command, llvm::StringRef File,
           const ParseSettings &Settings, llvm::StringRef Text,
           ParseErrors Errors) {
  auto P =
      parseFile(Command, File, Settings, llvm::nulls(), Text, nullptr, Errors);
  if (!P)
    return P.takeError();
  ASTContext &Ctx = P->AST->getASTContext();
  Collector C(Ctx);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  C.finishLeaks();
  C.scanTokens();
  return std::move(C.Out);
}

} // namespace

llvm::Expected<std::vector<ReviewNote>>
maxcode::reviewWinner(const clang::tooling::CompileCommand &Command,
                      llvm::StringRef File, const ParseSettings &Settings,
                      llvm::StringRef Original, llvm::StringRef Winner) {
  if (Winner == Original)
    return std::vector<ReviewNote>();
  auto Before = findingsOf(Command, File, Settings, Original,
                           ParseErrors::BlockTheirTargets);
  if (!Before)
    return Before.takeError();
  auto After = findingsOf(Command, File, Settings, Winner, ParseErrors::Fail);
  if (!After)
    return After.takeError();
  // What the original has is not the winner's to answer for: as many of
  // each key as the original holds are passed over.
  llvm::StringMap<unsigned> Had;
  for (const Finding &F : *Before)
    ++Had[F.Key];
  std::vector<ReviewNote> Notes;
  for (Finding &F : *After) {
    unsigned &N = Had[F.Key];
    if (N) {
      --N;
      continue;
    }
    Notes.push_back(std::move(F.Note));
  }
  llvm::stable_sort(Notes, [](const ReviewNote &A, const ReviewNote &B) {
    return A.Line < B.Line;
  });
  return Notes;
}
