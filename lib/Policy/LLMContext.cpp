//===-- LLMContext.cpp - What a model sees beside the target --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A model that sees only the target's definition writes code that does not
/// compile, or code made type-generic to be safe: for a member function it
/// must guess the class's fields, for a function whose types live in the
/// project's headers it must guess those types, and without the call sites
/// it cannot tell whether the function runs once or in the innermost loop.
/// This collects, from Clang's parse, what the target's code uses and who
/// calls it, wherever the project declares it (the main file and the
/// project's own headers; never system headers), and lays it out within a
/// token budget in a fixed priority order (docs/LLM.md, "The context").
///
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/DeclUses.h"
#include "maxcode/Policy/LLMPolicy.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace maxcode;
using namespace clang;

namespace {

/// The context's sections, in the order the budget serves them.
enum class Section { Class, Types, Functions, Variables, Macros, Callers };

llvm::StringRef headingOf(Section S) {
  switch (S) {
  case Section::Class:
    return "Its class: the fields, and the members it uses.";
  case Section::Types:
    return "Types it uses.";
  case Section::Functions:
    return "Functions it calls.";
  case Section::Variables:
    return "Variables and constants it uses.";
  case Section::Macros:
    return "Macros it uses.";
  case Section::Callers:
    return "Where it is called.";
  }
  llvm_unreachable("unknown section");
}

/// One declaration or call site as the prompt shows it.
struct Entry {
  Section S;
  /// Source order within a section: the file's include order, then offset.
  uint64_t Order = 0;
  std::string Text;
};

/// The text of \p R, whole tokens, in the file it was written in.
std::string textOf(const SourceManager &SM, const LangOptions &LO,
                   SourceLocation B, SourceLocation E) {
  CharSourceRange CR = CharSourceRange::getTokenRange(SM.getExpansionLoc(B),
                                                      SM.getExpansionLoc(E));
  return Lexer::getSourceText(CR, SM, LO).str();
}

/// The text from \p B up to (not including) \p E.
std::string textUpTo(const SourceManager &SM, const LangOptions &LO,
                     SourceLocation B, SourceLocation E) {
  CharSourceRange CR = CharSourceRange::getCharRange(SM.getExpansionLoc(B),
                                                     SM.getExpansionLoc(E));
  return llvm::StringRef(Lexer::getSourceText(CR, SM, LO)).rtrim().str();
}

unsigned lineCount(llvm::StringRef S) { return S.count('\n') + 1; }

/// The context of one target in one parse.
class ContextBuilder {
public:
  ContextBuilder(ParsedFile &Parsed, const Target &T, const FunctionDecl *FD)
      : Ctx(Parsed.AST->getASTContext()), SM(Ctx.getSourceManager()),
        LO(Ctx.getLangOpts()), PP(Parsed.AST->getPreprocessor()), T(T), FD(FD) {
    Class = dyn_cast<CXXMethodDecl>(FD) ? cast<CXXMethodDecl>(FD)->getParent()
                                        : nullptr;
    if (Class && Class->getDefinition())
      Class = Class->getDefinition();
  }

  std::vector<Entry> entries() {
    collectUses();
    std::vector<Entry> Out;
    if (Class)
      Out.push_back({Section::Class, orderOf(Class), outline(Class, true)});
    for (const Decl *D : Types)
      if (D != Class)
        Out.push_back({Section::Types, orderOf(D), typeText(D)});
    for (const Decl *D : Functions)
      Out.push_back({Section::Functions, orderOf(D), functionText(D)});
    for (const Decl *D : Variables)
      Out.push_back({Section::Variables, orderOf(D), variableText(D)});
    addMacros(Out);
    addCallers(Out);
    llvm::stable_sort(Out, [](const Entry &A, const Entry &B) {
      return std::tie(A.S, A.Order) < std::tie(B.S, B.Order);
    });
    return Out;
  }

private:
  /// Whether \p Loc is the project's: the main file or a header that is not
  /// a system header (nor the CUDA compatibility header the tool adds).
  bool projects(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid() || SM.isInSystemHeader(Loc))
      return false;
    if (SM.isWrittenInMainFile(Loc))
      return true;
    llvm::StringRef Name = SM.getFilename(Loc);
    return !Name.empty() && !Name.contains("cuda-compat") &&
           !Name.contains("<built-in>") && !Name.contains("<command line>");
  }

  bool inTarget(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    if (!SM.isWrittenInMainFile(Loc))
      return false;
    unsigned Off = SM.getFileOffset(Loc);
    return Off >= T.BeginOffset && Off < T.EndOffset;
  }

  /// Declared where the target can use it: in a header, or in the main
  /// file before the target.
  bool visible(const Decl *D) const {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    if (!SM.isWrittenInMainFile(Loc))
      return true;
    return SM.getFileOffset(Loc) < T.BeginOffset;
  }

  uint64_t orderOf(const Decl *D) const {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    // Headers, in the order they were entered, before the main file.
    uint64_t Rank = SM.isWrittenInMainFile(Loc)
                        ? UINT32_MAX
                        : SM.getFileID(Loc).getHashValue();
    return (Rank << 32) | SM.getFileOffset(Loc);
  }

  /// "tgaimage.h:21" for a header's declaration; empty in the main file.
  std::string placeOf(const Decl *D) const {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    if (SM.isWrittenInMainFile(Loc))
      return "";
    return (llvm::sys::path::filename(SM.getFilename(Loc)) + ":" +
            llvm::Twine(SM.getExpansionLineNumber(Loc)))
        .str();
  }

  /// Sorts what the target's code names into the sections.
  void collectUses() {
    DeclUseVisitor V([this](const Decl *D) { use(D); });
    V.TraverseDecl(const_cast<FunctionDecl *>(FD));
    // A helper shown whole shows what it uses too, one level down.
    std::vector<const Decl *> Called(Functions.begin(), Functions.end());
    for (const Decl *D : Called)
      if (shownWhole(cast<FunctionDecl>(D))) {
        V.TraverseDecl(const_cast<Decl *>(D));
        ShownBodies.push_back(textRange(cast<FunctionDecl>(D)));
      }
    // The types of the fields and signatures shown, one level.
    std::vector<const Decl *> Shown(Types.begin(), Types.end());
    if (Class)
      Shown.push_back(Class);
    for (const Decl *D : Shown)
      if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
        for (const FieldDecl *F : RD->fields())
          useType(F->getType());
    for (const Decl *D : Functions)
      if (const FunctionDecl *F = D->getAsFunction()) {
        useType(F->getReturnType());
        for (const ParmVarDecl *P : F->parameters())
          useType(P->getType());
      }
  }

  void useType(QualType QT) {
    const Type *Ty = QT.getNonReferenceType()->getPointeeOrArrayElementType();
    if (const TagDecl *TD = Ty->getAsTagDecl())
      use(TD);
    else if (const auto *TT = Ty->getAs<TypedefType>())
      use(TT->getDecl());
  }

  void use(const Decl *D) {
    if (!D || D->isImplicit() || inTarget(D->getLocation()) ||
        !projects(D->getLocation()))
      return;
    const DeclContext *DC = D->getDeclContext();
    if (DC->isFunctionOrMethod())
      return; // A local of some function.
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC)) {
      // A member: its class's outline shows it.
      Members.insert(D->getCanonicalDecl());
      use(RD);
      return;
    }
    if (const auto *ED = dyn_cast<EnumDecl>(DC)) {
      use(ED);
      return;
    }
    // An implicit instantiation stands for the template's text.
    if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(D))
      if (!CTS->isExplicitSpecialization())
        D = CTS->getSpecializedTemplate();
    if (const auto *CT = dyn_cast<ClassTemplateDecl>(D))
      D = CT->getTemplatedDecl();
    if (const auto *F = dyn_cast<FunctionDecl>(D))
      if (FunctionTemplateDecl *P = F->getPrimaryTemplate())
        D = P->getTemplatedDecl();
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      D = FT->getTemplatedDecl();
    if (!isa<NamedDecl>(D) || isa<NamespaceDecl>(D))
      return;
    if (const auto *TD = dyn_cast<TagDecl>(D)) {
      if (const TagDecl *Def = TD->getDefinition())
        D = Def;
      if (D == Class || !visible(D))
        return;
      if (Types.insert(D))
        if (const auto *TN = dyn_cast<TypedefNameDecl>(D))
          useType(TN->getUnderlyingType());
      return;
    }
    if (const auto *TN = dyn_cast<TypedefNameDecl>(D)) {
      if (visible(D) && Types.insert(D))
        useType(TN->getUnderlyingType());
      return;
    }
    if (const auto *F = dyn_cast<FunctionDecl>(D)) {
      if (const FunctionDecl *Shown = visibleDeclaration(F))
        Functions.insert(Shown);
      return;
    }
    if (isa<VarDecl>(D) && visible(D))
      Variables.insert(D->getCanonicalDecl());
  }

  /// The declaration of \p F to show: its definition when that comes before
  /// the target, else its first declaration that does.
  const FunctionDecl *visibleDeclaration(const FunctionDecl *F) const {
    if (const FunctionDecl *Def = F->getDefinition())
      if (visible(Def))
        return Def;
    for (const FunctionDecl *R : F->redecls())
      if (visible(R))
        return R;
    return nullptr;
  }

  /// A function's declaration up to its body, template header included.
  std::string signatureOf(const FunctionDecl *F) const {
    SourceLocation Begin = F->getBeginLoc();
    if (const FunctionTemplateDecl *FT = F->getDescribedFunctionTemplate())
      Begin = FT->getBeginLoc();
    std::string Text =
        F->doesThisDeclarationHaveABody() && F->getBody()
            ? textUpTo(SM, LO, Begin, F->getBody()->getBeginLoc())
            : textOf(SM, LO, Begin, F->getEndLoc());
    return llvm::StringRef(Text).rtrim().str() + ";";
  }

  std::string labelled(const Decl *D, std::string Text) const {
    std::string Place = placeOf(D);
    return Place.empty() ? Text : "// " + Place + "\n" + Text;
  }

  /// \p F's whole text, template header included, as offsets into the
  /// main file.
  std::pair<unsigned, unsigned> textRange(const FunctionDecl *F) const {
    SourceLocation Begin = F->getBeginLoc();
    if (const FunctionTemplateDecl *FT = F->getDescribedFunctionTemplate())
      Begin = FT->getBeginLoc();
    SourceLocation End = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(F->getEndLoc()), 0, SM, LO);
    return {SM.getFileOffset(SM.getExpansionLoc(Begin)), SM.getFileOffset(End)};
  }

  /// A short function defined in the main file is shown whole: an earlier
  /// step's helper is code the model must read to build on.
  bool shownWhole(const FunctionDecl *F) const {
    if (!F->doesThisDeclarationHaveABody() ||
        !SM.isWrittenInMainFile(SM.getExpansionLoc(F->getBeginLoc())))
      return false;
    auto [B, E] = textRange(F);
    return SM.getBufferData(SM.getMainFileID()).slice(B, E).count('\n') < 12;
  }

  std::string functionText(const Decl *D) const {
    const auto *F = cast<FunctionDecl>(D);
    if (shownWhole(F)) {
      auto [B, E] = textRange(F);
      return SM.getBufferData(SM.getMainFileID()).slice(B, E).str();
    }
    return labelled(D, signatureOf(F));
  }

  std::string variableText(const Decl *D) const {
    const auto *VD = cast<VarDecl>(D);
    if (const VarDecl *Def = VD->getDefinition())
      if (visible(Def))
        VD = Def;
    std::string Text = textOf(SM, LO, VD->getBeginLoc(), VD->getEndLoc());
    // A large table's values say nothing the model needs.
    if (Text.size() > 240 && VD->getInit())
      Text = textUpTo(SM, LO, VD->getBeginLoc(), VD->getInit()->getBeginLoc()) +
             " /* ... */";
    return labelled(VD, Text + ";");
  }

  std::string typeText(const Decl *D) const {
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
      return labelled(D, outline(RD, false));
    SourceLocation Begin = D->getBeginLoc();
    std::string Text = textOf(SM, LO, Begin, D->getEndLoc());
    if (lineCount(Text) > 25)
      Text = llvm::StringRef(Text).split('{').first.rtrim().str() +
             " { /* ... */ }";
    return labelled(D, Text + ";");
  }

  /// A class as the prompt shows it: whole when it is short and not the
  /// target's own; else its head, every data member, and the members the
  /// target uses as declarations, in the class's order.
  std::string outline(const CXXRecordDecl *RD, bool OwnClass) const {
    SourceLocation Begin = RD->getBeginLoc();
    if (const ClassTemplateDecl *CT = RD->getDescribedClassTemplate())
      Begin = CT->getBeginLoc();
    std::string Whole = textOf(SM, LO, Begin, RD->getEndLoc()) + ";";
    if (!OwnClass && lineCount(Whole) <= 25)
      return Whole;
    std::string Out =
        textUpTo(SM, LO, Begin, RD->getBraceRange().getBegin()) + " {\n";
    if (OwnClass)
      Out = "// " +
            (placeOf(RD).empty()
                 ? "line " + std::to_string(
                                 SM.getExpansionLineNumber(RD->getBeginLoc()))
                 : placeOf(RD)) +
            "\n" + Out;
    AccessSpecifier Shown = RD->isClass() ? AccessSpecifier::AS_private
                                          : AccessSpecifier::AS_public;
    unsigned Hidden = 0;
    SourceLocation GroupBegin;
    for (auto It = RD->decls_begin(), End = RD->decls_end(); It != End; ++It) {
      const Decl *M = *It;
      if (M->isImplicit() || isa<AccessSpecDecl>(M))
        continue;
      std::string Text = memberText(M, It, End, GroupBegin);
      if (Text.empty()) {
        // Part of a declaration group already shown, or not needed.
        if (!isa<FieldDecl>(M) || M->getBeginLoc() != GroupBegin)
          ++Hidden;
        continue;
      }
      if (M->getAccess() != Shown && M->getAccess() != AS_none) {
        Shown = M->getAccess();
        Out += std::string(getAccessSpelling(Shown)) + ":\n";
      }
      for (llvm::StringRef L : llvm::split(Text, '\n'))
        Out += "  " + L.str() + "\n";
    }
    if (Hidden)
      Out += llvm::formatv("  // ... {0} more member{1} not shown\n", Hidden,
                           Hidden == 1 ? "" : "s")
                 .str();
    return Out + "};";
  }

  /// What the outline shows of member \p M, or empty. Fields that share a
  /// declaration (`int w, h;`) are shown once, as written.
  std::string memberText(const Decl *M, DeclContext::decl_iterator It,
                         DeclContext::decl_iterator End,
                         SourceLocation &GroupBegin) const {
    bool Data = isa<FieldDecl>(M) ||
                (isa<VarDecl>(M) && cast<VarDecl>(M)->isStaticDataMember());
    if (Data) {
      if (M->getBeginLoc() == GroupBegin)
        return "";
      GroupBegin = M->getBeginLoc();
      SourceLocation Last = M->getEndLoc();
      for (auto Next = std::next(It); Next != End; ++Next)
        if ((*Next)->getBeginLoc() == GroupBegin)
          Last = (*Next)->getEndLoc();
      return textOf(SM, LO, GroupBegin, Last) + ";";
    }
    const Decl *Key = M;
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(M))
      Key = FT->getTemplatedDecl();
    if (!Members.count(Key->getCanonicalDecl()) || inTarget(M->getLocation()))
      return "";
    if (const FunctionDecl *F = Key->getAsFunction())
      return signatureOf(F);
    std::string Text = textOf(SM, LO, M->getBeginLoc(), M->getEndLoc());
    if (lineCount(Text) > 10)
      Text = llvm::StringRef(Text).split('{').first.rtrim().str() +
             " { /* ... */ }";
    return Text + ";";
  }

  /// Macros the target's tokens name, defined in the project.
  void addMacros(std::vector<Entry> &Out) const {
    FileID Main = SM.getMainFileID();
    llvm::StringRef Buffer = SM.getBufferData(Main);
    if (T.EndOffset > Buffer.size())
      return;
    // A copy of the target's text and of the helpers shown whole: the raw
    // lexer stops at the NUL after its buffer, which a slice lacks.
    std::string Text = Buffer.slice(T.BeginOffset, T.EndOffset).str();
    for (auto [B, E] : ShownBodies)
      Text += "\n" + Buffer.slice(B, E).str();
    Lexer L(SourceLocation(), LO, Text.data(), Text.data(),
            Text.data() + Text.size());
    llvm::SmallPtrSet<const MacroInfo *, 8> Seen;
    Token Tok;
    for (bool AtEnd = false; !AtEnd;) {
      AtEnd = L.LexFromRawLexer(Tok);
      if (Tok.is(tok::eof))
        break;
      if (!Tok.is(tok::raw_identifier))
        continue;
      IdentifierInfo *II = PP.getIdentifierInfo(Tok.getRawIdentifier());
      const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr;
      if (!MI || MI->isBuiltinMacro() || !Seen.insert(MI).second ||
          !projects(MI->getDefinitionLoc()))
        continue;
      SourceLocation B = MI->getDefinitionLoc(), E = MI->getDefinitionEndLoc();
      if (SM.isWrittenInMainFile(B) && SM.getFileOffset(B) >= T.BeginOffset)
        continue;
      // The whole #define line, continuation lines included.
      llvm::StringRef Buf = SM.getBufferData(SM.getFileID(B));
      unsigned Begin = SM.getFileOffset(B), Stop = SM.getFileOffset(E);
      size_t LineStart = Buf.rfind('\n', Begin);
      LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
      size_t LineEnd = Buf.find('\n', Stop);
      std::string Text = Buf.slice(LineStart, LineEnd).rtrim().str();
      std::string Place =
          SM.isWrittenInMainFile(B)
              ? ""
              : "// " + llvm::sys::path::filename(SM.getFilename(B)).str() +
                    ":" + std::to_string(SM.getExpansionLineNumber(B)) + "\n";
      Out.push_back({Section::Macros, SM.getFileOffset(B), Place + Text});
    }
  }

  /// A call of the target, as the context shows it.
  struct Site {
    const CallExpr *C;
    std::vector<const Stmt *> Loops; ///< Innermost first.
    /// The statement it is in; null when it is in a loop's own header.
    const Stmt *Statement = nullptr;
    const FunctionDecl *In = nullptr;
  };

  /// The calls of the target in the main file, outside the target.
  std::vector<const CallExpr *> callsOfTarget() {
    struct Calls : RecursiveASTVisitor<Calls> {
      const FunctionDecl *Target;
      std::vector<const CallExpr *> Found;
      bool shouldVisitTemplateInstantiations() const { return false; }
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *Callee = C->getDirectCallee();
        if (!Callee)
          return true;
        if (FunctionTemplateDecl *P = Callee->getPrimaryTemplate())
          Callee = P->getTemplatedDecl();
        if (Callee->getCanonicalDecl() == Target->getCanonicalDecl())
          Found.push_back(C);
        return true;
      }
    } V;
    V.Target = FD;
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
    std::vector<const CallExpr *> Out;
    for (const CallExpr *C : V.Found) {
      SourceLocation Loc = SM.getExpansionLoc(C->getBeginLoc());
      if (SM.isWrittenInMainFile(Loc) && !inTarget(Loc))
        Out.push_back(C);
    }
    return Out;
  }

  /// Upward from call \p C: the statement it is in (the child of a block or
  /// of a loop), the loops around it, and the function.
  Site siteOf(const CallExpr *C) {
    Site S{C, {}, nullptr, nullptr};
    DynTypedNode N = DynTypedNode::create(*C);
    const Stmt *Child = C;
    bool InHeader = false;
    while (true) {
      auto Parents = Ctx.getParents(N);
      if (Parents.empty())
        break;
      N = Parents[0];
      if (const auto *F = N.get<FunctionDecl>()) {
        S.In = F;
        break;
      }
      const Stmt *P = N.get<Stmt>();
      if (!P)
        continue;
      bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P);
      if (!S.Statement && !InHeader && (isa<CompoundStmt>(P) || Loop)) {
        if (Loop && !isBodyOf(P, Child))
          InHeader = true;
        else
          S.Statement = Child;
      }
      if (Loop)
        S.Loops.push_back(P);
      Child = P;
    }
    return S;
  }

  /// "// in main (line 33), inside 1 loop:", the loops' headers outermost
  /// first, and the statement's first line.
  std::string siteText(const Site &S) const {
    std::string Text = llvm::formatv(
        "// in {0} (line {1}), {2}:\n", S.In ? S.In->getNameAsString() : "?",
        SM.getExpansionLineNumber(S.C->getBeginLoc()),
        S.Loops.empty() ? std::string("not in a loop")
                        : llvm::formatv("inside {0} loop{1}", S.Loops.size(),
                                        S.Loops.size() == 1 ? "" : "s")
                              .str());
    std::string Indent;
    for (auto L = S.Loops.rbegin(); L != S.Loops.rend(); ++L) {
      Text += Indent + loopHead(*L) + "\n";
      Indent += "  ";
    }
    if (!S.Statement)
      return llvm::StringRef(Text).rtrim().str() +
             "  // the call is in this loop's header";
    std::string Stmt =
        textOf(SM, LO, S.Statement->getBeginLoc(), S.Statement->getEndLoc());
    llvm::StringRef First = llvm::StringRef(Stmt).split('\n').first.rtrim();
    std::string Line = First.str();
    if (First.size() < Stmt.size() || Line.size() > 120)
      Line = Line.substr(0, std::min<size_t>(Line.size(), 117)) + " ...";
    else if (isa<Expr>(S.Statement))
      Line += ";"; // An expression statement's text ends before its ';'.
    return Text + Indent + Line;
  }

  /// Up to two places the target is called from in this file, the ones in
  /// the deepest loops first.
  void addCallers(std::vector<Entry> &Out) {
    std::vector<Site> Sites;
    for (const CallExpr *C : callsOfTarget())
      Sites.push_back(siteOf(C));
    std::stable_sort(Sites.begin(), Sites.end(),
                     [](const Site &A, const Site &B) {
                       return A.Loops.size() > B.Loops.size();
                     });
    unsigned Shown = std::min<size_t>(2, Sites.size());
    for (unsigned I = 0; I < Shown; ++I)
      Out.push_back({Section::Callers, I, siteText(Sites[I])});
    if (Sites.size() > Shown)
      Out.push_back({Section::Callers, Shown,
                     llvm::formatv("// ... and {0} more call site{1}",
                                   Sites.size() - Shown,
                                   Sites.size() - Shown == 1 ? "" : "s")
                         .str()});
  }

  /// Whether \p Child is the body of loop \p L.
  static bool isBodyOf(const Stmt *L, const Stmt *Child) {
    if (const auto *F = dyn_cast<ForStmt>(L))
      return F->getBody() == Child;
    if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
      return R->getBody() == Child;
    if (const auto *W = dyn_cast<WhileStmt>(L))
      return W->getBody() == Child;
    if (const auto *D = dyn_cast<DoStmt>(L))
      return D->getBody() == Child;
    return false;
  }

  /// A loop's header as written: `for (...)`, `while (...)`,
  /// `do ... while (...)`.
  std::string loopHead(const Stmt *L) const {
    std::string Text;
    if (const auto *F = dyn_cast<ForStmt>(L))
      Text = textOf(SM, LO, F->getForLoc(), F->getRParenLoc());
    else if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
      Text = textOf(SM, LO, R->getForLoc(), R->getRParenLoc());
    else if (const auto *W = dyn_cast<WhileStmt>(L))
      Text = textOf(SM, LO, W->getWhileLoc(), W->getRParenLoc());
    else if (const auto *D = dyn_cast<DoStmt>(L))
      Text = "do ... " + textOf(SM, LO, D->getWhileLoc(), D->getRParenLoc());
    std::string Flat;
    for (llvm::StringRef Part : llvm::split(Text, '\n'))
      Flat += (Flat.empty() ? "" : " ") + Part.trim().str();
    if (Flat.size() > 100)
      Flat = Flat.substr(0, 97) + "...";
    return Flat;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  Preprocessor &PP;
  const Target &T;
  const FunctionDecl *FD;
  const CXXRecordDecl *Class = nullptr;
  llvm::SetVector<const Decl *> Types, Functions, Variables;
  /// The main file's ranges of the helpers shown whole.
  std::vector<std::pair<unsigned, unsigned>> ShownBodies;
  llvm::SmallPtrSet<const Decl *, 16> Members;
};

} // namespace

std::string maxcode::targetContext(ParsedFile &Parsed, const Target &T,
                                   unsigned TokenBudget) {
  const FunctionDecl *FD = findTargetDecl(Parsed, T);
  if (!FD)
    return "";
  std::vector<Entry> Entries = ContextBuilder(Parsed, T, FD).entries();
  // About four characters a token: the budget in characters.
  size_t Budget = size_t(TokenBudget) * 4, Used = 0;
  unsigned LeftOut = 0;
  std::string Out;
  std::optional<Section> Current;
  for (const Entry &E : Entries) {
    std::string Heading;
    if (Current != E.S)
      Heading = "// " + headingOf(E.S).str() + "\n";
    size_t Cost = E.Text.size() + 1 + Heading.size();
    if (Used + Cost > Budget) {
      ++LeftOut;
      continue;
    }
    if (!Heading.empty()) {
      Out += (Out.empty() ? "" : "\n") + Heading;
      Current = E.S;
    }
    Out += E.Text + "\n";
    Used += Cost;
  }
  if (LeftOut)
    Out += llvm::formatv("\n// ... {0} more declaration{1} and call site{1} "
                         "left out to stay within the context budget\n",
                         LeftOut, LeftOut == 1 ? "" : "s")
               .str();
  return llvm::StringRef(Out).rtrim().str();
}
