//===-- LLMContext.cpp - Declarations a target uses, for prompts ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A model that sees only the target's definition writes code that does not
/// compile: it guesses at the types, helpers and macros the definition uses.
/// This collects those declarations from the main file (types and aliases
/// whole, functions as signatures, macros as their #define line), following
/// aliases to what they name, so that the proposer prompt can show them.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/DeclUses.h"
#include "maxcode/Policy/LLMPolicy.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace maxcode;
using namespace clang;

namespace {
/// Main-file declarations at namespace scope that a subtree refers to.
class UseCollector {
public:
  UseCollector(SourceManager &SM, const Target &T) : SM(SM), T(T) {}

  void TraverseDecl(Decl *D) { Visitor.TraverseDecl(D); }
  void TraverseTypeLoc(TypeLoc TL) { Visitor.TraverseTypeLoc(TL); }

  /// Found declarations not yet traversed themselves.
  std::vector<const Decl *> Pending;
  llvm::SmallPtrSet<const Decl *, 32> Found;

private:
  void add(const Decl *D) {
    // An implicit instantiation stands for its template's text.
    if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(D))
      if (!CTS->isExplicitSpecialization())
        D = CTS->getSpecializedTemplate();
    // Members stand for their class; enumerators for their enum.
    while (D && !D->getDeclContext()->isFileContext()) {
      const DeclContext *DC = D->getDeclContext();
      if (DC->isFunctionOrMethod())
        return; // A local: part of the code shown already.
      D = dyn_cast<Decl>(DC);
    }
    if (!D || isa<TranslationUnitDecl, NamespaceDecl>(D))
      return;
    if (const auto *TD = dyn_cast<ClassTemplateDecl>(D))
      D = TD->getTemplatedDecl();
    D = D->getCanonicalDecl();
    SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
    if (!SM.isInMainFile(Loc))
      return;
    unsigned Offset = SM.getFileOffset(Loc);
    if (Offset >= T.BeginOffset && Offset < T.EndOffset)
      return; // The target itself.
    if (Found.insert(D).second)
      Pending.push_back(D);
  }

  SourceManager &SM;
  const Target &T;
  DeclUseVisitor Visitor{[this](const Decl *D) { add(D); }};
};
} // namespace

/// The source text of \p R, expanded to whole tokens.
static std::string textOf(SourceManager &SM, const LangOptions &LO,
                          SourceRange R) {
  CharSourceRange CR = CharSourceRange::getTokenRange(
      SM.getExpansionLoc(R.getBegin()), SM.getExpansionLoc(R.getEnd()));
  return Lexer::getSourceText(CR, SM, LO).str();
}

std::string maxcode::declarationsUsedBy(ParsedFile &Parsed, const Target &T) {
  ASTContext &Ctx = Parsed.AST->getASTContext();
  SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  UseCollector C(SM, T);

  // The target's definition: every top-level declaration starting in it.
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    if (!SM.isInMainFile(Loc))
      continue;
    unsigned Offset = SM.getFileOffset(Loc);
    if (Offset >= T.BeginOffset && Offset < T.EndOffset)
      C.TraverseDecl(D);
  }

  // Then what those declarations use, functions by their signature only.
  std::map<unsigned, std::string> ByOffset;
  while (!C.Pending.empty()) {
    const Decl *D = C.Pending.back();
    C.Pending.pop_back();
    std::string Text;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      const FunctionDecl *Def = FD->getDefinition();
      const FunctionDecl *Shown = Def ? Def : FD;
      SourceRange R = Shown->getSourceRange();
      if (Shown->hasBody() && Shown->getBody())
        R.setEnd(Shown->getBody()->getBeginLoc());
      Text = textOf(SM, LO, R);
      if (Shown->hasBody()) {
        // Up to the body's opening brace, which is left out.
        Text = llvm::StringRef(Text).drop_back().rtrim().str();
      }
      Text += ";";
      if (TypeSourceInfo *TSI = FD->getTypeSourceInfo())
        C.TraverseTypeLoc(TSI->getTypeLoc());
    } else {
      const Decl *Shown = D;
      if (const auto *TD = dyn_cast<TagDecl>(D))
        if (const TagDecl *Def = TD->getDefinition())
          Shown = Def;
      if (const auto *RD = dyn_cast<CXXRecordDecl>(Shown))
        if (const ClassTemplateDecl *CT = RD->getDescribedClassTemplate())
          Shown = CT;
      Text = textOf(SM, LO, Shown->getSourceRange()) + ";";
      C.TraverseDecl(const_cast<Decl *>(Shown));
    }
    unsigned Offset =
        SM.getFileOffset(SM.getExpansionLoc(D->getSourceRange().getBegin()));
    ByOffset.emplace(Offset, std::move(Text));
  }

  // Macros the definition's tokens name, defined in the main file.
  Preprocessor &PP = Parsed.AST->getPreprocessor();
  FileID Main = SM.getMainFileID();
  llvm::StringRef Buffer = SM.getBufferData(Main);
  if (T.EndOffset <= Buffer.size()) {
    llvm::StringRef Body = Buffer.slice(T.BeginOffset, T.EndOffset);
    Lexer L(SM.getLocForStartOfFile(Main), LO, Buffer.begin(), Body.begin(),
            Buffer.begin() + T.EndOffset);
    Token Tok;
    while (!L.LexFromRawLexer(Tok)) {
      if (Tok.is(tok::raw_identifier)) {
        IdentifierInfo *II = PP.getIdentifierInfo(Tok.getRawIdentifier());
        const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr;
        if (MI && SM.isInMainFile(MI->getDefinitionLoc())) {
          unsigned Begin = SM.getFileOffset(MI->getDefinitionLoc());
          unsigned End = SM.getFileOffset(MI->getDefinitionEndLoc());
          size_t LineStart = Buffer.rfind('\n', Begin);
          LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
          size_t LineEnd = Buffer.find('\n', End);
          ByOffset.emplace(LineStart,
                           Buffer.slice(LineStart, LineEnd).rtrim().str());
        }
      }
      if (Tok.is(tok::eof))
        break;
    }
  }

  std::string Out;
  constexpr size_t Cap = 8000;
  for (const auto &[Offset, Text] : ByOffset) {
    if (Out.size() + Text.size() > Cap) {
      Out += "// ... (more declarations left out)\n";
      break;
    }
    Out += Text + "\n";
  }
  return llvm::StringRef(Out).rtrim().str();
}
