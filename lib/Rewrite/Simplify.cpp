//===-- Simplify.cpp - What a winner need not add -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A model's winner carries what earlier samples left: helpers nothing calls
// (or that only other dead helpers call), a second copy of a helper from
// another sample, includes for code that is gone. Which declaration uses
// which is Clang's to say (DeclUseVisitor over what stays, from every
// declaration the original has); what is left is parsed again, and a
// removal the parse refuses (a helper only a library template's
// instantiation used) is put back.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Simplify.h"
#include "maxcode/Frontend/DeclUses.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RawCommentList.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "maxcode-rewrite"

using namespace maxcode;
using namespace clang;

namespace {

/// A declaration at namespace scope of the main file: what a winner adds,
/// or what the original has.
struct TopDecl {
  /// The outermost declaration (a template, not its pattern) of the first
  /// redeclaration, and every redeclaration written in the main file.
  const Decl *D = nullptr;
  std::vector<const Decl *> Redecls;
  /// "f:ns::name", "v:name", "t:Name": what it is called, by kind.
  std::string Key;
  std::string Name;
  unsigned Line = 0;
  /// Never removed: the original has it, or it is of a kind whose uses
  /// Clang does not show (an operator, a specialisation, an ADL hook).
  bool Kept = false;
  bool Needed = false;
  bool Removed = false;
};

/// Names a library calls through argument-dependent lookup from its own
/// templates, where no use is seen in the file.
bool isCustomisationPoint(llvm::StringRef Name) {
  return llvm::is_contained({"swap", "begin", "end", "cbegin", "cend", "rbegin",
                             "rend", "size", "data", "get", "hash_value",
                             "operator new", "operator delete"},
                            Name);
}

/// The declaration whose owner \p D is at namespace scope: a member's
/// class, a template's pattern's template.
const Decl *ownerOf(const Decl *D) {
  while (D && !D->getDeclContext()->isFileContext()) {
    const DeclContext *DC = D->getDeclContext();
    if (DC->isFunctionOrMethod())
      return nullptr; // A local.
    D = dyn_cast<Decl>(DC);
  }
  if (!D)
    return nullptr;
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (FunctionTemplateDecl *T = FD->getPrimaryTemplate())
      D = T;
    else if (FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
      D = T;
  } else if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
    if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      if (!S->isExplicitSpecialization())
        D = S->getSpecializedTemplate();
    } else if (ClassTemplateDecl *T = RD->getDescribedClassTemplate()) {
      D = T;
    }
  } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
    if (VarTemplateDecl *T = VD->getDescribedVarTemplate())
      D = T;
  }
  return D->getCanonicalDecl();
}

/// The kind letter of a declaration that may be a helper, or 0.
char kindOf(const Decl *D) {
  if (isa<FunctionDecl, FunctionTemplateDecl>(D))
    return 'f';
  if (isa<VarDecl, VarTemplateDecl>(D))
    return 'v';
  if (isa<TagDecl, ClassTemplateDecl, TypedefNameDecl, TypeAliasTemplateDecl>(
          D))
    return 't';
  return 0;
}

/// The namespace-scope declarations of a parsed main file.
class TopDecls {
public:
  explicit TopDecls(ASTContext &Ctx) : Ctx(Ctx), SM(Ctx.getSourceManager()) {
    collect(Ctx.getTranslationUnitDecl());
  }

  std::vector<TopDecl> Decls;
  /// The index of the TopDecl a canonical owner declaration belongs to.
  llvm::DenseMap<const Decl *, unsigned> Index;

  std::optional<unsigned> find(const Decl *Used) const {
    const Decl *O = ownerOf(Used);
    auto It = O ? Index.find(O) : Index.end();
    if (It == Index.end())
      return std::nullopt;
    return It->second;
  }

private:
  void collect(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (D->isImplicit())
        continue;
      SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
      if (!SM.isWrittenInMainFile(Loc))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D)) {
        collect(cast<DeclContext>(D));
        continue;
      }
      add(D);
    }
  }

  void add(const Decl *D) {
    // A redeclaration (a prototype and its definition, a class and its
    // members defined outside it) goes with the first.
    const Decl *Owner = ownerOf(D);
    char Kind = kindOf(D);
    const auto *ND = dyn_cast<NamedDecl>(D);
    if (Owner && Index.count(Owner)) {
      Decls[Index[Owner]].Redecls.push_back(D);
      return;
    }
    TopDecl T;
    T.D = D;
    T.Redecls = {D};
    T.Line = SM.getExpansionLineNumber(D->getBeginLoc());
    if (D->getDeclContext()->isRecord()) {
      // A member of a class from elsewhere (a header): the class's, never
      // a helper of the winner's.
      T.Kept = true;
      T.Key = "m:" + (ND ? ND->getQualifiedNameAsString() : "");
      Decls.push_back(std::move(T));
      return;
    }
    std::string Qualified = ND ? ND->getQualifiedNameAsString() : "";
    T.Name = ND ? ND->getNameAsString() : "";
    if (!Kind || Qualified.empty() || Qualified.find("(anonymous") == 0)
      T.Kept = true; // using-declarations, static_asserts, unnamed types
    T.Key = std::string(1, Kind ? Kind : '?') + ":" + Qualified;
    if (const auto *FD = D->getAsFunction()) {
      if (FD->isOverloadedOperator() || FD->getLiteralIdentifier() ||
          isa<CXXDeductionGuideDecl, CXXConversionDecl>(FD) || FD->isMain() ||
          isCustomisationPoint(T.Name) ||
          FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
        T.Kept = true;
    }
    if (isa<ClassTemplateSpecializationDecl, VarTemplateSpecializationDecl>(D))
      T.Kept = true; // std::hash<Key>, a trait.
    if (D->hasAttrs())
      for (const Attr *A : D->getAttrs())
        if (isa<UsedAttr, ConstructorAttr, DestructorAttr>(A))
          T.Kept = true;
    unsigned I = Decls.size();
    Decls.push_back(std::move(T));
    if (Owner)
      Index[Owner] = I;
  }

  ASTContext &Ctx;
  SourceManager &SM;
};

/// The keys of \p Text's namespace-scope declarations, and its #include
/// lines, trimmed.
struct OriginalFacts {
  llvm::StringSet<> Keys;
  llvm::StringSet<> Includes;
};

bool isIncludeLine(llvm::StringRef Line) {
  Line = Line.ltrim();
  return Line.consume_front("#") && Line.ltrim().starts_with("include");
}

/// An edit of the main file: every edit of one simplification names the
/// same file, as Replacements requires.
tooling::Replacement edit(unsigned Offset, unsigned Length,
                          llvm::StringRef Text) {
  return tooling::Replacement("<main>", Offset, Length, Text);
}

/// The byte range a removed declaration takes: its comment, its template
/// header, a closing ';', and the whole lines it stands on alone.
tooling::Replacement removal(const ASTContext &Ctx, const Decl *D) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation Begin = SM.getExpansionLoc(D->getBeginLoc());
  if (const RawComment *C = Ctx.getRawCommentForDeclNoCache(D))
    if (SM.isWrittenInMainFile(C->getBeginLoc()) &&
        SM.isBeforeInTranslationUnit(C->getBeginLoc(), Begin))
      Begin = C->getBeginLoc();
  SourceLocation Last = SM.getExpansionLoc(D->getEndLoc());
  SourceLocation End = Lexer::getLocForEndOfToken(Last, 0, SM, LO);
  if (std::optional<Token> Next = Lexer::findNextToken(Last, SM, LO))
    if (Next->is(tok::semi))
      End = Next->getEndLoc();
  llvm::StringRef Buf = SM.getBufferData(SM.getMainFileID());
  unsigned B = SM.getFileOffset(Begin), E = SM.getFileOffset(End);
  // Whole lines when the declaration stands alone on them.
  // StringRef::rfind looks below its position: the newline ending the
  // line before.
  size_t LineStart = Buf.rfind('\n', B);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  size_t LineEnd = Buf.find('\n', E);
  LineEnd = LineEnd == llvm::StringRef::npos ? Buf.size() : LineEnd + 1;
  if (Buf.slice(LineStart, B).trim().empty() &&
      Buf.slice(E, LineEnd).trim().empty()) {
    B = LineStart;
    E = LineEnd;
    // The comment lines right above it are its own (Clang attaches only
    // documentation comments).
    while (B > 0) {
      size_t Prev = Buf.rfind('\n', B - 1);
      Prev = Prev == llvm::StringRef::npos ? 0 : Prev + 1;
      llvm::StringRef Line = Buf.slice(Prev, B).trim();
      if (!Line.starts_with("//") &&
          !(Line.starts_with("/*") && Line.ends_with("*/")))
        break;
      B = Prev;
    }
    // And the blank line after it when one is before it: no double gaps.
    size_t Next = Buf.find('\n', E);
    bool BlankBefore = B >= 2 && Buf[B - 1] == '\n' && Buf[B - 2] == '\n';
    if (BlankBefore && Next != llvm::StringRef::npos &&
        Buf.slice(E, Next).trim().empty())
      E = Next + 1;
  }
  return edit(B, E - B, "");
}

/// The text of \p FD with its own name, its parameters' and its locals'
/// names made positional: two helpers alike in this are one helper.
std::string shapeOf(const ASTContext &Ctx, const Decl *D) {
  const FunctionDecl *FD = D->getAsFunction();
  if (!FD || !FD->hasBody())
    return "";
  llvm::StringMap<unsigned> Locals;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier())
      Locals.try_emplace(P->getName(), Locals.size());
  struct VarNames : RecursiveASTVisitor<VarNames> {
    llvm::StringMap<unsigned> *Out;
    bool VisitVarDecl(VarDecl *V) {
      if (V->getIdentifier())
        Out->try_emplace(V->getName(), Out->size());
      return true;
    }
  } Names;
  Names.Out = &Locals;
  Names.TraverseStmt(FD->getBody());
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  CharSourceRange R = CharSourceRange::getTokenRange(
      SM.getExpansionLoc(D->getBeginLoc()), SM.getExpansionLoc(D->getEndLoc()));
  // A copy: the raw lexer stops at the NUL after its buffer.
  std::string Text = Lexer::getSourceText(R, SM, LO).str();
  Lexer L(SourceLocation(), LO, Text.data(), Text.data(),
          Text.data() + Text.size());
  std::string Shape;
  Token Tok;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = L.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      break;
    llvm::StringRef Spelling(Text.data() + Tok.getLocation().getRawEncoding(),
                             Tok.getLength());
    if (Tok.is(tok::raw_identifier)) {
      if (Spelling == FD->getName()) {
        Shape += "@self ";
        continue;
      }
      if (auto It = Locals.find(Spelling); It != Locals.end()) {
        Shape += "@" + std::to_string(It->second) + " ";
        continue;
      }
    }
    Shape += Spelling.str() + " ";
  }
  return Shape;
}

/// Replacements renaming every use, in the main file, of the function
/// \p From (a TopDecl) to \p To; none when a use is spelled in a macro.
std::optional<std::vector<tooling::Replacement>>
renameUses(ASTContext &Ctx, const TopDecls &Tops, unsigned From,
           llvm::StringRef To) {
  struct Uses : RecursiveASTVisitor<Uses> {
    const TopDecls *Tops;
    unsigned From;
    std::vector<SourceLocation> Locs;
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (Tops->find(E->getDecl()) == From)
        Locs.push_back(E->getNameInfo().getLoc());
      return true;
    }
    bool VisitOverloadExpr(OverloadExpr *E) {
      for (const NamedDecl *D : E->decls())
        if (Tops->find(D) == From) {
          Locs.push_back(E->getNameLoc());
          break;
        }
      return true;
    }
  } V;
  V.Tops = &Tops;
  V.From = From;
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<tooling::Replacement> Out;
  for (SourceLocation L : V.Locs) {
    if (!L.isFileID())
      return std::nullopt;
    if (!SM.isWrittenInMainFile(L))
      continue;
    Out.push_back(edit(SM.getFileOffset(L), Tops.Decls[From].Name.size(), To));
  }
  return Out;
}

/// Whether \p Text parses as \p Command builds it.
bool parses(const clang::tooling::CompileCommand &Command, llvm::StringRef File,
            const ParseSettings &Settings, llvm::StringRef Text) {
  auto P = parseFile(Command, File, Settings, llvm::nulls(), Text);
  if (P)
    return true;
  llvm::consumeError(P.takeError());
  return false;
}

/// One change the simplification would make: its replacements and words.
struct Change {
  std::vector<tooling::Replacement> Edits;
  std::string Why;
  /// Right only if what is left still parses (an include something is used
  /// through, which another may provide as well): tried last, alone.
  bool Tentative = false;
};

/// \p Text with \p Changes' edits applied; none when they overlap.
std::optional<std::string>
applyChanges(llvm::StringRef Text, llvm::ArrayRef<const Change *> Changes) {
  tooling::Replacements All;
  for (const Change *C : Changes)
    for (const tooling::Replacement &R : C->Edits)
      if (llvm::Error E = All.add(R)) {
        llvm::consumeError(std::move(E));
        return std::nullopt;
      }
  auto Out = tooling::applyAllReplacements(Text, All);
  if (!Out) {
    llvm::consumeError(Out.takeError());
    return std::nullopt;
  }
  return *Out;
}

llvm::Expected<OriginalFacts>
originalFacts(const clang::tooling::CompileCommand &Command,
              llvm::StringRef File, const ParseSettings &Settings,
              llvm::StringRef Original) {
  OriginalFacts F;
  for (llvm::StringRef L : llvm::split(Original, '\n'))
    if (isIncludeLine(L))
      F.Includes.insert(L.trim());
  auto P = parseFile(Command, File, Settings, llvm::nulls(), Original, nullptr,
                     ParseErrors::BlockTheirTargets);
  if (!P)
    return P.takeError();
  TopDecls Tops(P->AST->getASTContext());
  for (const TopDecl &T : Tops.Decls)
    F.Keys.insert(T.Key);
  return F;
}

/// The line of the main file's #include that brought \p Loc's file in, if
/// any. A header that another include brought in first is used through
/// that one: a second #include of it entered nothing.
std::optional<unsigned> includedThrough(const SourceManager &SM,
                                        SourceLocation Loc) {
  FileID F = SM.getFileID(SM.getExpansionLoc(Loc));
  while (F.isValid() && F != SM.getMainFileID()) {
    SourceLocation Inc = SM.getIncludeLoc(F);
    if (Inc.isInvalid())
      return std::nullopt;
    if (SM.isWrittenInMainFile(Inc))
      return SM.getSpellingLineNumber(Inc);
    F = SM.getFileID(SM.getExpansionLoc(Inc));
  }
  return std::nullopt;
}

/// What the simplification of one parse of the winner finds.
class Simplifier {
public:
  Simplifier(ASTContext &Ctx, Preprocessor &PP, const OriginalFacts &Orig)
      : Ctx(Ctx), PP(PP), SM(Ctx.getSourceManager()), Tops(Ctx), Orig(Orig) {}

  std::vector<Change> changes() {
    for (TopDecl &T : Tops.Decls)
      if (Orig.Keys.count(T.Key))
        T.Kept = true;
    markNeeded();
    std::vector<Change> Out;
    for (TopDecl &T : Tops.Decls)
      if (!T.Kept && !T.Needed) {
        T.Removed = true;
        Out.push_back(removeDecl(T, llvm::formatv("{0} `{1}` (line {2}): "
                                                  "nothing uses it",
                                                  kindName(T), T.Name, T.Line)
                                        .str()));
      }
    foldCopies(Out);
    dropIncludes(Out);
    return Out;
  }

private:
  static llvm::StringRef kindName(const TopDecl &T) {
    switch (T.Key.front()) {
    case 'f':
      return "helper";
    case 'v':
      return "variable";
    default:
      return "type";
    }
  }

  /// Everything the kept declarations use, and what that uses.
  void markNeeded() {
    std::vector<unsigned> Work;
    for (unsigned I = 0; I < Tops.Decls.size(); ++I)
      if (Tops.Decls[I].Kept)
        Work.push_back(I);
    while (!Work.empty()) {
      unsigned I = Work.back();
      Work.pop_back();
      forEachUse(Tops.Decls[I], [&](const Decl *U) {
        if (std::optional<unsigned> J = Tops.find(U))
          if (!Tops.Decls[*J].Kept && !Tops.Decls[*J].Needed) {
            Tops.Decls[*J].Needed = true;
            Work.push_back(*J);
          }
      });
    }
  }

  template <typename Fn> void forEachUse(const TopDecl &T, Fn Use) {
    DeclUseVisitor V([&](const Decl *U) { Use(U); });
    for (const Decl *D : T.Redecls)
      V.TraverseDecl(const_cast<Decl *>(D));
  }

  Change removeDecl(const TopDecl &T, std::string Why) {
    Change C;
    C.Why = std::move(Why);
    for (const Decl *D : T.Redecls)
      C.Edits.push_back(removal(Ctx, D));
    return C;
  }

  /// Needed helpers the winner adds that are copies of an earlier one:
  /// removed, their calls calling the earlier.
  void foldCopies(std::vector<Change> &Out) {
    std::map<std::string, unsigned> First;
    for (unsigned I = 0; I < Tops.Decls.size(); ++I) {
      TopDecl &T = Tops.Decls[I];
      if (T.Kept || T.Removed || T.Key.front() != 'f')
        continue;
      const Decl *Def = definitionOf(T);
      std::string Shape = Def ? shapeOf(Ctx, Def) : "";
      if (Shape.empty())
        continue;
      auto [It, New] = First.try_emplace(Shape, I);
      if (New)
        continue;
      const TopDecl &Kept = Tops.Decls[It->second];
      std::optional<std::vector<tooling::Replacement>> Renames =
          renameUses(Ctx, Tops, I, Kept.Name);
      if (!Renames)
        continue;
      Change C = removeDecl(
          T, llvm::formatv("helper `{0}` (line {1}): a copy of `{2}` (line "
                           "{3}); its calls call `{2}`",
                           T.Name, T.Line, Kept.Name, Kept.Line)
                 .str());
      llvm::append_range(C.Edits, *Renames);
      T.Removed = true;
      Out.push_back(std::move(C));
    }
  }

  const Decl *definitionOf(const TopDecl &T) const {
    for (const Decl *D : T.Redecls)
      if (const FunctionDecl *FD = D->getAsFunction())
        if (FD->doesThisDeclarationHaveABody())
          return D;
    return nullptr;
  }

  /// The #include lines the winner adds that nothing staying is used
  /// through.
  void dropIncludes(std::vector<Change> &Out) {
    llvm::DenseSet<unsigned> Used;
    auto Mark = [&](SourceLocation L) {
      if (std::optional<unsigned> Line = includedThrough(SM, L))
        Used.insert(*Line);
    };
    for (const TopDecl &T : Tops.Decls)
      if (!T.Removed)
        forEachUse(T, [&](const Decl *U) { Mark(U->getLocation()); });
    markMacroUses(Mark);
    llvm::StringRef Buf = SM.getBufferData(SM.getMainFileID());
    unsigned Line = 0;
    for (size_t Off = 0; Off < Buf.size();) {
      size_t End = Buf.find('\n', Off);
      End = End == llvm::StringRef::npos ? Buf.size() : End + 1;
      llvm::StringRef Text = Buf.slice(Off, End);
      ++Line;
      if (isIncludeLine(Text) && !Orig.Includes.count(Text.trim())) {
        // One that something is used through may only have come first:
        // the original's includes may declare the same, which only a parse
        // without it can tell.
        Change C;
        C.Tentative = Used.count(Line);
        C.Why = llvm::formatv(C.Tentative
                                  ? "`{0}` (line {1}): the file's other "
                                    "includes declare what it is used for"
                                  : "`{0}` (line {1}): nothing from it is used",
                              Text.trim(), Line)
                    .str();
        C.Edits.push_back(edit(Off, End - Off, ""));
        Out.push_back(std::move(C));
      }
      Off = End;
    }
  }

  /// Each macro the main file names, at its definition.
  template <typename Fn> void markMacroUses(Fn Mark) {
    FileID Main = SM.getMainFileID();
    llvm::StringRef Buf = SM.getBufferData(Main);
    Lexer L(SM.getLocForStartOfFile(Main), Ctx.getLangOpts(), Buf.begin(),
            Buf.begin(), Buf.end());
    Token Tok;
    while (!L.LexFromRawLexer(Tok)) {
      if (!Tok.is(tok::raw_identifier))
        continue;
      IdentifierInfo *II = PP.getIdentifierInfo(Tok.getRawIdentifier());
      if (const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr)
        Mark(MI->getDefinitionLoc());
    }
  }

  ASTContext &Ctx;
  Preprocessor &PP;
  SourceManager &SM;
  TopDecls Tops;
  const OriginalFacts &Orig;
};

} // namespace

llvm::Expected<DeclSimplification> maxcode::simplifyDeclarations(
    const clang::tooling::CompileCommand &Command, llvm::StringRef File,
    const ParseSettings &Settings, llvm::StringRef Original,
    llvm::StringRef Winner) {
  DeclSimplification Out;
  Out.Text = Winner.str();
  if (Winner == Original)
    return Out;
  auto Orig = originalFacts(Command, File, Settings, Original);
  if (!Orig)
    return Orig.takeError();
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  auto P = parseFile(Command, File, Settings, DOS, Winner);
  if (!P)
    return llvm::createStringError("the winner does not parse: " +
                                   llvm::toString(P.takeError()));
  Simplifier S(P->AST->getASTContext(), P->AST->getPreprocessor(), *Orig);
  std::vector<Change> Changes = S.changes();
  if (Changes.empty())
    return Out;
  std::stable_partition(Changes.begin(), Changes.end(),
                        [](const Change &C) { return !C.Tentative; });
  // All at once when the result parses; else one at a time, each kept when
  // what is left still parses.
  std::vector<const Change *> Kept;
  for (const Change &C : Changes)
    Kept.push_back(&C);
  std::optional<std::string> Text = applyChanges(Winner, Kept);
  if (!Text || !parses(Command, File, Settings, *Text)) {
    Kept.clear();
    for (const Change &C : Changes) {
      Kept.push_back(&C);
      std::optional<std::string> T = applyChanges(Winner, Kept);
      if (!T || !parses(Command, File, Settings, *T)) {
        MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": simplify: kept, the "
                                   << "parse needs it: " << C.Why << "\n");
        Kept.pop_back();
      }
    }
    Text = applyChanges(Winner, Kept);
  }
  if (!Text)
    return Out;
  Out.Text = std::move(*Text);
  for (const Change *C : Kept)
    Out.Changes.push_back(C->Why);
  return Out;
}

DiffSize maxcode::winnerSize(const clang::tooling::CompileCommand &Command,
                             llvm::StringRef File,
                             const ParseSettings &Settings,
                             llvm::StringRef Original, llvm::StringRef Winner) {
  DiffSize S;
  for (const DiffHunk &H : diffLines(Original, Winner)) {
    S.Added += H.AfterCount;
    S.Removed += H.BeforeCount;
  }
  llvm::StringSet<> Before;
  for (llvm::StringRef L : llvm::split(Original, '\n'))
    if (isIncludeLine(L))
      Before.insert(L.trim());
  for (llvm::StringRef L : llvm::split(Winner, '\n'))
    if (isIncludeLine(L) && !Before.count(L.trim()))
      ++S.Includes;
  if (Winner == Original)
    return S;
  auto Orig = originalFacts(Command, File, Settings, Original);
  auto P = parseFile(Command, File, Settings, llvm::nulls(), Winner, nullptr,
                     ParseErrors::BlockTheirTargets);
  if (!Orig || !P) {
    if (!Orig)
      llvm::consumeError(Orig.takeError());
    if (!P)
      llvm::consumeError(P.takeError());
    return S;
  }
  TopDecls Tops(P->AST->getASTContext());
  for (const TopDecl &T : Tops.Decls)
    if (T.Key.front() != '?' && !Orig->Keys.count(T.Key))
      ++S.Helpers;
  return S;
}
