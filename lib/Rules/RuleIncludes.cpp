//===-- RuleIncludes.cpp - The includes rules read and ask for ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Inclusions/StandardLibrary.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace maxcode;
using namespace clang;

//===----------------------------------------------------------------------===//
// Includes.
//===----------------------------------------------------------------------===//

std::vector<MainInclude> maxcode::findMainIncludes(const RuleContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<MainInclude> Out;
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
    if (!Entry.isFile())
      continue;
    SourceLocation At = Entry.getFile().getIncludeLoc();
    if (At.isInvalid() || !SM.isWrittenInMainFile(At) || !At.isFileID())
      continue;
    FileID FID = SM.getFileID(SourceLocation::getFromRawEncoding(
        static_cast<SourceLocation::UIntTy>(Entry.getOffset())));
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE)
      continue;
    Out.push_back({FID, FE->getName().str(), At});
  }
  llvm::sort(Out, [&](const MainInclude &A, const MainInclude &B) {
    return SM.isBeforeInTranslationUnit(A.IncludedAt, B.IncludedAt);
  });
  return Out;
}

llvm::StringRef maxcode::streamHeaderSpelling(const MainInclude &I) {
  llvm::StringRef P(I.Path);
  if (llvm::sys::path::filename(P) == "iostream")
    return "<iostream>";
  if (P.ends_with("bits/stdc++.h"))
    return "<bits/stdc++.h>";
  return "";
}

void maxcode::findStreamIncludes(const RuleContext &Ctx,
                                 std::vector<FileID> &Files,
                                 std::vector<std::string> &Spellings) {
  for (const MainInclude &I : findMainIncludes(Ctx)) {
    llvm::StringRef S = streamHeaderSpelling(I);
    if (S.empty())
      continue;
    Files.push_back(I.File);
    Spellings.push_back(S.str());
  }
}

/// libstdc++'s internal headers and the public header that declares what
/// they hold, for declarations the standard library table does not name.
static llvm::StringRef publicHeaderForInternal(llvm::StringRef Base) {
  static const std::pair<const char *, const char *> Table[] = {
      {"basic_string.h", "<string>"},
      {"basic_string.tcc", "<string>"},
      {"char_traits.h", "<string>"},
      {"stringfwd.h", "<string>"},
      {"stl_algobase.h", "<algorithm>"},
      {"stl_algo.h", "<algorithm>"},
      {"stl_heap.h", "<algorithm>"},
      {"ranges_algo.h", "<algorithm>"},
      {"stl_pair.h", "<utility>"},
      {"move.h", "<utility>"},
      {"stl_vector.h", "<vector>"},
      {"stl_bvector.h", "<vector>"},
      {"vector.tcc", "<vector>"},
      {"stl_function.h", "<functional>"},
      {"functional_hash.h", "<functional>"},
      {"stl_queue.h", "<queue>"},
      {"stl_stack.h", "<stack>"},
      {"stl_deque.h", "<deque>"},
      {"stl_list.h", "<list>"},
      {"stl_map.h", "<map>"},
      {"stl_multimap.h", "<map>"},
      {"stl_tree.h", "<map>"},
      {"stl_set.h", "<set>"},
      {"stl_multiset.h", "<set>"},
      {"unordered_map.h", "<unordered_map>"},
      {"unordered_set.h", "<unordered_set>"},
      {"hashtable.h", "<unordered_map>"},
      {"stl_numeric.h", "<numeric>"},
      {"stl_iterator.h", "<iterator>"},
      {"range_access.h", "<iterator>"},
      {"stl_iterator_base_funcs.h", "<iterator>"},
      {"stl_iterator_base_types.h", "<iterator>"},
      {"unique_ptr.h", "<memory>"},
      {"shared_ptr.h", "<memory>"},
      {"shared_ptr_base.h", "<memory>"},
      {"stl_tempbuf.h", "<memory>"},
      {"allocator.h", "<memory>"},
      {"std_abs.h", "<cmath>"},
      {"specfun.h", "<cmath>"},
      {"stl_uninitialized.h", "<memory>"},
      {"random.h", "<random>"},
      {"chrono.h", "<chrono>"},
      {"sstream.tcc", "<sstream>"},
      {"istream.tcc", "<istream>"},
      {"ostream.tcc", "<ostream>"},
      {"string_view.tcc", "<string_view>"},
      {"utility.h", "<utility>"},
      {"invoke.h", "<functional>"},
      {"refwrap.h", "<functional>"},
      {"std_function.h", "<functional>"},
      {"exception.h", "<exception>"},
      {"cpp_type_traits.h", "<type_traits>"},
      {"stl_construct.h", "<memory>"},
      {"postypes.h", "<ios>"},
      {"locale_facets.h", "<locale>"},
      {"ios_base.h", "<ios>"},
  };
  for (const auto &[Internal, Public] : Table)
    if (Base == Internal)
      return Public;
  return "";
}

/// C headers by the C++ name that declares the same things.
static std::string publicNameOf(llvm::StringRef Path) {
  llvm::StringRef Base = llvm::sys::path::filename(Path);
  static const char *const CHeaders[] = {
      "assert", "ctype", "errno",  "float",  "inttypes", "limits",
      "locale", "math",  "setjmp", "signal", "stdarg",   "stddef",
      "stdint", "stdio", "stdlib", "string", "time",     "wchar",
      "wctype", "uchar", "fenv",   "iso646", "stdbool",  "complex"};
  if (Base.consume_back(".h")) {
    for (const char *C : CHeaders)
      if (Base == C)
        return ("<c" + Base + ">").str();
    return "";
  }
  if (Base.contains('.'))
    return "";
  return ("<" + Base + ">").str();
}

namespace {
/// Declarations the main file refers to, with where they are referred to.
class UseCollector : public RecursiveASTVisitor<UseCollector> {
public:
  UseCollector(const SourceManager &SM) : SM(SM) {}

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
        !isa<LinkageSpecDecl>(D)) {
      SourceLocation L = SM.getExpansionLoc(D->getLocation());
      if (L.isInvalid() || !SM.isWrittenInMainFile(L))
        return true;
    }
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    add(E->getDecl(), E->getLocation());
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    // Operators are found by argument-dependent lookup through the types'
    // own headers; a named overload set needs the header of its name, which
    // any one of its declarations gives.
    if (E->getName().isIdentifier() && E->decls_begin() != E->decls_end())
      add(*E->decls_begin(), E->getNameLoc());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitUsingTypeLoc(UsingTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc TL) {
    if (TemplateDecl *TD =
            TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add(TD, TL.getTemplateNameLoc());
    return true;
  }
  bool VisitDeducedTemplateSpecializationTypeLoc(
      DeducedTemplateSpecializationTypeLoc TL) {
    if (TemplateDecl *TD =
            TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add(TD, TL.getTemplateNameLoc());
    return true;
  }
  bool VisitUsingDecl(UsingDecl *D) {
    for (const UsingShadowDecl *S : D->shadows())
      add(S->getTargetDecl(), D->getLocation());
    return true;
  }

  /// Each declaration named, and where.
  std::vector<std::pair<const Decl *, SourceLocation>> Uses;

private:
  void add(const Decl *D, SourceLocation Loc) {
    if (D)
      Uses.push_back({D, Loc});
  }
  const SourceManager &SM;
};
} // namespace

/// The declaration the standard library table knows: a class for its
/// members, the primary template for a specialization.
static const Decl *recognizableDecl(const Decl *D) {
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    if (FunctionTemplateDecl *P = FD->getPrimaryTemplate())
      return P->getTemplatedDecl();
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(D))
    return Spec->getSpecializedTemplate()->getTemplatedDecl();
  if (const auto *TD = dyn_cast<TemplateDecl>(D))
    if (TD->getTemplatedDecl())
      return TD->getTemplatedDecl();
  if (isa<CXXMethodDecl>(D) || isa<FieldDecl>(D) || isa<EnumConstantDecl>(D))
    if (const auto *Parent = dyn_cast<Decl>(D->getDeclContext()))
      return recognizableDecl(Parent);
  return D;
}

namespace {
/// The include chains that bring declarations and macros into the main
/// file, and which of its includes are to be removed.
class IncludeChains {
public:
  IncludeChains(const SourceManager &SM, llvm::ArrayRef<FileID> Removed)
      : SM(SM), Removed(Removed) {}

  /// The file the main file included that brought a location in.
  FileID directIncludeOf(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid())
      return FileID();
    FileID FID = SM.getFileID(Loc);
    while (FID.isValid() && FID != SM.getMainFileID()) {
      SourceLocation IncLoc = SM.getIncludeLoc(FID);
      if (IncLoc.isInvalid())
        return FileID();
      if (SM.isWrittenInMainFile(IncLoc))
        return FID;
      FID = SM.getFileID(SM.getExpansionLoc(IncLoc));
    }
    return FileID();
  }

  /// True when a location came in through a removed include.
  bool isRemoved(SourceLocation Loc) const {
    FileID F = directIncludeOf(Loc);
    return F.isValid() && llvm::is_contained(Removed, F);
  }

  /// The first public header on the include chain of a location's file,
  /// counting from the declaring file upward.
  std::string publicAncestor(SourceLocation Loc) const {
    FileID FID = SM.getFileID(SM.getExpansionLoc(Loc));
    while (FID.isValid() && FID != SM.getMainFileID()) {
      OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
      if (!FE)
        return "";
      llvm::StringRef Path = FE->getName();
      llvm::StringRef Base = llvm::sys::path::filename(Path);
      bool Internal = Path.contains("/bits/") || Path.contains("/ext/") ||
                      Path.contains("/debug/");
      if (Internal) {
        llvm::StringRef Known = publicHeaderForInternal(Base);
        if (!Known.empty())
          return Known.str();
      } else if (Base != "stdc++.h") {
        std::string Name = publicNameOf(Path);
        if (!Name.empty())
          return Name;
      }
      SourceLocation IncLoc = SM.getIncludeLoc(FID);
      if (IncLoc.isInvalid() || SM.isWrittenInMainFile(IncLoc))
        return "";
      FID = SM.getFileID(SM.getExpansionLoc(IncLoc));
    }
    return "";
  }

private:
  const SourceManager &SM;
  llvm::ArrayRef<FileID> Removed;
};
} // namespace

/// Adds to \p Headers the headers of the declarations the main file uses
/// that came in through a removed include, but those \p Ignore names.
static void
addHeadersOfDecls(const RuleContext &Ctx, const IncludeChains &Chains,
                  llvm::function_ref<bool(const Decl *, SourceLocation)> Ignore,
                  std::set<std::string> &Headers) {
  const SourceManager &SM = Ctx.getSourceManager();
  tooling::stdlib::Recognizer Recognize;
  UseCollector Uses(SM);
  Uses.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  llvm::DenseSet<const Decl *> Done;
  for (const auto &[D, UseLoc] : Uses.Uses) {
    if (Done.contains(D) || D->isImplicit() || Ignore(D, UseLoc))
      continue;
    Done.insert(D);
    if (isa<NamespaceDecl>(D))
      continue;
    SourceLocation Loc = D->getLocation();
    if (Loc.isInvalid() || SM.isWrittenInMainFile(SM.getExpansionLoc(Loc)) ||
        !Chains.isRemoved(Loc))
      continue;
    std::string Header;
    if (std::optional<tooling::stdlib::Symbol> Sym =
            Recognize(recognizableDecl(D)))
      if (std::optional<tooling::stdlib::Header> H = Sym->header())
        Header = H->name().str();
    if (Header.empty())
      Header = Chains.publicAncestor(Loc);
    if (Header.empty() || Header == "<iostream>" || Header == "<bits/stdc++.h>")
      continue;
    Headers.insert(Header);
  }
}

/// Adds to \p Headers the headers of the macros the file uses (INT_MAX,
/// EOF, ...) that came in through a removed include.
static void addHeadersOfMacros(const RuleContext &Ctx,
                               const IncludeChains &Chains,
                               std::set<std::string> &Headers) {
  const SourceManager &SM = Ctx.getSourceManager();
  Preprocessor &PP = Ctx.getPreprocessor();
  llvm::StringRef Code = Ctx.getCode();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  Lexer Lex(SourceLocation(), LO, Code.begin(), Code.begin(), Code.end());
  Token Tok;
  bool More = true;
  llvm::StringSet<> SeenMacros;
  while (More) {
    More = !Lex.LexFromRawLexer(Tok);
    if (!Tok.is(tok::raw_identifier))
      continue;
    llvm::StringRef Name = Tok.getRawIdentifier();
    if (!SeenMacros.insert(Name).second)
      continue;
    IdentifierInfo *II = PP.getIdentifierInfo(Name);
    if (!II || !II->hadMacroDefinition())
      continue;
    const MacroInfo *MI = PP.getMacroInfo(II);
    if (!MI)
      continue;
    SourceLocation Def = MI->getDefinitionLoc();
    if (Def.isInvalid() || SM.isWrittenInMainFile(Def) ||
        !Chains.isRemoved(Def))
      continue;
    std::string Header = Chains.publicAncestor(Def);
    if (!Header.empty() && Header != "<iostream>")
      Headers.insert(Header);
  }
}

std::vector<std::string> maxcode::findHeadersNeededWithout(
    const RuleContext &Ctx, llvm::ArrayRef<FileID> Removed,
    llvm::function_ref<bool(const Decl *, SourceLocation)> Ignore) {
  IncludeChains Chains(Ctx.getSourceManager(), Removed);
  std::set<std::string> Headers;
  addHeadersOfDecls(Ctx, Chains, Ignore, Headers);
  // Macros of the removed headers that the file uses (INT_MAX, EOF, ...).
  addHeadersOfMacros(Ctx, Chains, Headers);

  // Headers the file keeps are not added again.
  for (const MainInclude &I : findMainIncludes(Ctx))
    if (!llvm::is_contained(Removed, I.File)) {
      std::string Name = publicNameOf(I.Path);
      if (!Name.empty())
        Headers.erase(Name);
    }
  return std::vector<std::string>(Headers.begin(), Headers.end());
}
