//===-- Screen.cpp - The static screen of variants ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Screen.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Support/Options.h"
#include "maxcode/Support/Process.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/xxhash.h"

using namespace maxcode;
using namespace clang;

namespace {
bool isStdOrGlobal(const DeclContext *DC) {
  DC = DC->getRedeclContext();
  if (DC->isTranslationUnit() || DC->isExternCContext())
    return true;
  if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
    return NS->isStdNamespace() ||
           (NS->isInlineNamespace() && isStdOrGlobal(NS->getParent()));
  return false;
}

/// Whether \p D is in namespace std::chrono (or an inline namespace of it).
bool inStdChrono(const DeclContext *DC) {
  for (; DC; DC = DC->getParent()) {
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS)
      continue;
    if (NS->isInlineNamespace())
      continue;
    return NS->getName() == "chrono" && NS->getParent() &&
           NS->getParent()->isStdNamespace();
  }
  return false;
}

/// Whether \p FID is the main file's text: the main file, or the main file
/// included by itself (`#include __FILE__`), whose code is the variant's as
/// much as the rest.
bool isMainFileText(const SourceManager &SM, FileID FID) {
  if (FID == SM.getMainFileID())
    return true;
  OptionalFileEntryRef A = SM.getFileEntryRefForID(FID);
  OptionalFileEntryRef M = SM.getFileEntryRefForID(SM.getMainFileID());
  return A && M && A->getUniqueID() == M->getUniqueID();
}

/// The API uses written in the main file (macro expansions count where
/// they are expanded).
class ApiVisitor : public RecursiveASTVisitor<ApiVisitor> {
public:
  ApiVisitor(ASTContext &Ctx, std::vector<ApiUse> &Out)
      : SM(Ctx.getSourceManager()), Out(Out) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    noteReference(E->getDecl(), E->getBeginLoc());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    noteReference(E->getMemberDecl(), E->getMemberLoc());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    // std::ofstream and friends open files.
    const CXXRecordDecl *RD = E->getConstructor()->getParent();
    llvm::StringRef Name = RD->getName();
    if (isStdOrGlobal(RD->getDeclContext()) &&
        (Name == "basic_ofstream" || Name == "basic_ifstream" ||
         Name == "basic_fstream") &&
        E->getNumArgs() > 0)
      add(ApiCategory::FileSystem, "std::" + Name.str(), E->getBeginLoc());
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!inMain(FD->getLocation()))
      return true;
    // A function compiled for an instruction set the build did not ask for.
    if (const auto *A = FD->getAttr<TargetAttr>())
      add(ApiCategory::InstructionSet, "target attribute", A->getLocation());
    if (const auto *A = FD->getAttr<TargetClonesAttr>())
      add(ApiCategory::InstructionSet, "target_clones attribute",
          A->getLocation());
    if (FD->isMain() && FD->getNumParams() >= 3)
      add(ApiCategory::MeasurementAwareness, "envp", FD->getLocation());
    if (!FD->doesThisDeclarationHaveABody())
      return true;
    // A definition that replaces a library symbol (a clock, getenv, ...),
    // by its name or by an asm label.
    // Only a C-linkage name (or an asm label) replaces the library's
    // symbol: a C++ helper named `connect` or `time` is mangled apart.
    std::string Symbol;
    if (const auto *L = FD->getAttr<AsmLabelAttr>())
      Symbol = L->getLabel().str();
    else if (FD->getIdentifier() && FD->isExternC())
      Symbol = FD->getName().str();
    if (auto C = apiCategoryOf(Symbol); C && *C != ApiCategory::FileSystem)
      add(*C, Symbol, FD->getLocation(), /*Definition=*/true);
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (inMain(VD->getLocation()) && VD->hasGlobalStorage() &&
        !VD->isStaticLocal() && VD->getIdentifier() &&
        isStdOrGlobal(VD->getDeclContext()) &&
        VD->isThisDeclarationADefinition())
      if (auto C = apiCategoryOf(VD->getName());
          C && *C == ApiCategory::MeasurementAwareness)
        add(*C, VD->getName().str(), VD->getLocation(), /*Definition=*/true);
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    add(ApiCategory::InlineAssembly, "asm", S->getAsmLoc());
    return true;
  }
  bool VisitMSAsmStmt(MSAsmStmt *S) {
    add(ApiCategory::InlineAssembly, "asm", S->getAsmLoc());
    return true;
  }
  bool VisitFileScopeAsmDecl(FileScopeAsmDecl *D) {
    add(ApiCategory::InlineAssembly, "asm", D->getAsmLoc());
    return true;
  }
  bool VisitStringLiteral(StringLiteral *S) {
    if (S->getCharByteWidth() == 1 &&
        (S->getString().contains("/proc/") || S->getString() == "/proc"))
      add(ApiCategory::MeasurementAwareness, "/proc", S->getBeginLoc());
    return true;
  }

private:
  bool inMain(SourceLocation L) const {
    return L.isValid() &&
           isMainFileText(SM, SM.getFileID(SM.getExpansionLoc(L)));
  }

  void add(ApiCategory C, std::string Name, SourceLocation L,
           bool Definition = false) {
    if (!inMain(L))
      return;
    ApiUse U;
    U.Category = C;
    U.Name = std::move(Name);
    U.Line = SM.getExpansionLineNumber(L);
    U.Definition = Definition;
    Out.push_back(std::move(U));
  }

  void noteReference(const ValueDecl *D, SourceLocation L) {
    if (!D || !inMain(L))
      return;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(D)) {
      // std::chrono::steady_clock::now() and every other std clock.
      const CXXRecordDecl *RD = MD->getParent();
      if (MD->isStatic() && MD->getIdentifier() && MD->getName() == "now" &&
          RD->getName().ends_with("_clock") && inStdChrono(RD))
        add(ApiCategory::Clock, "std::chrono::" + RD->getName().str() + "::now",
            L);
      return;
    }
    // A declaration whose asm label names a library symbol is that symbol,
    // whatever name the code calls it by (`long t() asm("clock_gettime")`).
    for (const Decl *R : D->redecls())
      if (const auto *Label = R->getAttr<AsmLabelAttr>()) {
        llvm::StringRef Symbol = Label->getLabel();
        if (auto C = apiCategoryOf(Symbol))
          add(*C, Symbol.str(), L);
        return;
      }
    if (!D->getIdentifier() || !isStdOrGlobal(D->getDeclContext()))
      return;
    // A library's symbol, not the user's function of the same name: one
    // declared by a system header, a builtin, or a C-linkage function or
    // variable the file declares without defining (`extern "C" int fork();`).
    const Decl *First = D->getCanonicalDecl();
    bool Library = SM.isInSystemHeader(First->getLocation());
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      Library |=
          FD->getBuiltinID() != 0 || (FD->isExternC() && !FD->isDefined());
    else if (const auto *VD = dyn_cast<VarDecl>(D))
      Library |= VD->hasExternalStorage() && VD->hasGlobalStorage();
    if (!Library)
      return;
    if (const auto *NS =
            dyn_cast<NamespaceDecl>(D->getDeclContext()->getRedeclContext());
        NS && NS->getName() == "filesystem")
      return;
    if (auto C = apiCategoryOf(D->getName()))
      add(*C, D->getName().str(), L);
  }

  SourceManager &SM;
  std::vector<ApiUse> &Out;
};

/// Records every token the parser receives, and every pragma, in order.
class TokenRecorder : public PPCallbacks {
public:
  TokenRecorder(Preprocessor &PP, std::vector<ScreenToken> &Out,
                std::vector<ApiUse> &Uses)
      : PP(PP), SM(PP.getSourceManager()), Out(Out), Uses(Uses) {}

  void InclusionDirective(SourceLocation HashLoc, const Token &,
                          StringRef FileName, bool, CharSourceRange,
                          OptionalFileEntryRef, StringRef, StringRef,
                          const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    // The intrinsics of one instruction set: code that runs only where it
    // is (immintrin.h's AVX, arm_neon.h's NEON).
    llvm::StringRef Name = llvm::sys::path::filename(FileName);
    if (Name.ends_with("intrin.h") || Name.starts_with("arm_neon") ||
        Name.starts_with("arm_sve") || Name == "cpuid.h")
      use(HashLoc, Name.str());
  }

  void token(const Token &T) {
    if (T.is(tok::eof))
      return;
    ScreenToken S;
    std::string Key = std::to_string(unsigned(T.getKind())) + ':';
    if (!T.isAnnotation()) {
      if (const IdentifierInfo *II = T.getIdentifierInfo())
        Key += II->getName();
      else if (T.isLiteral() && T.getLiteralData())
        Key.append(T.getLiteralData(), T.getLength());
      else if (T.isLiteral())
        Key += PP.getSpelling(T);
    }
    S.Hash = llvm::xxh3_64bits(Key);
    S.Brace = T.is(tok::l_brace) ? 1 : T.is(tok::r_brace) ? 2 : 0;
    place(T.getLocation(), S);
    Out.push_back(S);
  }

  void PragmaDirective(SourceLocation Loc,
                       PragmaIntroducerKind Introducer) override {
    ScreenToken S;
    S.Pragma = true;
    std::string Text = pragmaText(Loc);
    S.Hash = llvm::xxh3_64bits("pragma:" + Text);
    S.PragmaKind = pragmaScopeKind(Text);
    llvm::SmallVector<llvm::StringRef, 8> Words;
    llvm::SplitString(Text, Words, " \t()\"',");
    place(Loc, S);
    Out.push_back(S);
    // A GCC target pragma (or Clang's attribute pragma of one), or an
    // optimize pragma that picks the machine; `#pragma` and `_Pragma` alike.
    bool IsTarget = false, IsOptimize = false, IsGCC = false, IsClang = false;
    for (llvm::StringRef W : Words) {
      IsGCC |= W == "GCC";
      IsClang |= W == "clang";
      IsTarget |= W == "target" || W.starts_with("target(");
      IsOptimize |= W == "optimize";
    }
    if (IsTarget && (IsGCC || IsClang))
      use(Loc, "#pragma GCC target");
    else if (IsGCC && IsOptimize &&
             (llvm::StringRef(Text).contains("arch") ||
              llvm::StringRef(Text).contains("tune")))
      use(Loc, "#pragma GCC optimize with -march");
  }

private:
  void use(SourceLocation L, std::string Name) {
    SourceLocation E = SM.getExpansionLoc(L);
    if (!isMainFileText(SM, SM.getFileID(E)))
      return;
    ApiUse U;
    U.Category = ApiCategory::InstructionSet;
    U.Name = std::move(Name);
    U.Line = SM.getExpansionLineNumber(E);
    Uses.push_back(std::move(U));
  }

  void place(SourceLocation L, ScreenToken &S) {
    SourceLocation E = SM.getExpansionLoc(L);
    auto [FID, Offset] = SM.getDecomposedLoc(E);
    S.MainFile = isMainFileText(SM, FID);
    if (S.MainFile) {
      S.Offset = Offset;
      S.Line = SM.getLineNumber(FID, Offset);
    }
  }

  /// The pragma's text as written, to the end of its (spliced) line.
  std::string pragmaText(SourceLocation Loc) {
    SourceLocation Sp = SM.getSpellingLoc(Loc);
    bool Invalid = false;
    const char *P = SM.getCharacterData(Sp, &Invalid);
    if (Invalid || !P)
      return "";
    std::string Text;
    for (; *P && Text.size() < 1024; ++P) {
      if (*P == '\\' && (P[1] == '\n' || (P[1] == '\r' && P[2] == '\n'))) {
        P += P[1] == '\r' ? 2 : 1;
        continue;
      }
      if (*P == '\n' || *P == '\r')
        break;
      Text += *P;
    }
    return Text;
  }

  Preprocessor &PP;
  SourceManager &SM;
  std::vector<ScreenToken> &Out;
  std::vector<ApiUse> &Uses;
};

class ScanConsumer : public ASTConsumer {
public:
  explicit ScanConsumer(FileScan &Scan) : Scan(Scan) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    ApiVisitor(Ctx, Scan.Uses).TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  FileScan &Scan;
};

class ScanAction : public ASTFrontendAction {
public:
  explicit ScanAction(FileScan &Scan) : Scan(Scan) {}

protected:
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    Preprocessor &PP = CI.getPreprocessor();
    auto Recorder = std::make_unique<TokenRecorder>(PP, Scan.Tokens, Scan.Uses);
    TokenRecorder *R = Recorder.get();
    PP.addPPCallbacks(std::move(Recorder));
    PP.setTokenWatcher([R](const Token &T) { R->token(T); });
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<ScanConsumer>(Scan);
  }

private:
  FileScan &Scan;
};

/// Keeps the first syntax error (the text is not C++) and drops the rest:
/// semantic errors are left to the project's own compiler.
class ScanDiagnostics : public DiagnosticConsumer {
public:
  explicit ScanDiagnostics(FileScan &Scan) : Scan(Scan) {}
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || !isSyntaxDiagnostic(Info))
      return;
    if (!Scan.SyntaxError) {
      llvm::SmallString<128> Message;
      Info.FormatDiagnostic(Message);
      unsigned Line = 0, Column = 0;
      if (Info.hasSourceManager() && Info.getLocation().isValid()) {
        const SourceManager &SM = Info.getSourceManager();
        SourceLocation L = SM.getExpansionLoc(Info.getLocation());
        Line = SM.getExpansionLineNumber(L);
        Column = SM.getExpansionColumnNumber(L);
      }
      Scan.FirstError = "line " + std::to_string(Line) + ":" +
                        std::to_string(Column) +
                        ": error: " + Message.str().str();
    }
    Scan.SyntaxError = true;
  }

private:
  FileScan &Scan;
};

bool sameToken(const ScreenToken &A, const ScreenToken &B) {
  return A.Hash == B.Hash && A.Pragma == B.Pragma;
}
} // namespace

llvm::Expected<FileScan>
maxcode::scanFile(const tooling::CompileCommand &Command, llvm::StringRef File,
                  const ParseSettings &Settings, llvm::StringRef Text,
                  ScanPass Pass, llvm::StringRef BuildMacros) {
  tooling::CompileCommand Adjusted =
      adjustedParseCommand(Command, File, Settings);
  if (Pass == ScanPass::Device) {
    auto Args = deviceSideArgs(Adjusted.CommandLine);
    if (!Args)
      return llvm::createStringError("'" + File.str() +
                                     "' is not CUDA: it has no device pass");
    Adjusted.CommandLine = std::move(*Args);
  }
  // The text in place of the file, over the real file system, in the
  // command's directory; one invocation, which prints nothing of its own.
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      privateFileSystem());
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Overlay->pushOverlay(Memory);
  Memory->addFile(File, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, File));
  // The build compiler's own predefined macros in place of Clang's: the
  // screen reads the branches (`#ifndef __clang__`) that compiler compiles.
  static constexpr llvm::StringLiteral MacrosFile =
      "/__clang_maxcode__/build-compiler-macros.h";
  if (!BuildMacros.empty())
    Memory->addFile(MacrosFile, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(BuildMacros));
  if (!Adjusted.Directory.empty())
    (void)Overlay->setCurrentWorkingDirectory(Adjusted.Directory);
  // Reference-counted: the compiler instance holds on to it.
  auto Files =
      llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), Overlay);
  std::vector<std::string> Args = Adjusted.CommandLine;
  for (const tooling::ArgumentsAdjuster &A :
       {tooling::getClangSyntaxOnlyAdjuster(),
        tooling::getClangStripOutputAdjuster(),
        tooling::getClangStripDependencyFileAdjuster()})
    Args = A(Args, File);
  // Without carets Clang prints no "N errors generated" line of its own (the
  // device pass reads host launches as errors).
  Args.push_back("-fno-caret-diagnostics");
  if (!BuildMacros.empty())
    Args.insert(Args.end(), {"-undef", "-Wno-builtin-macro-redefined",
                             "-include", MacrosFile.str()});
  FileScan Scan;
  ScanDiagnostics Diags(Scan);
  tooling::ToolInvocation Invocation(
      std::move(Args), std::make_unique<ScanAction>(Scan), Files.get());
  Invocation.setDiagnosticConsumer(&Diags);
  // A false result means errors, which the consumer has judged; only a run
  // that produced no tokens at all is a failure of the parse itself.
  {
    BlockingWork Parse;
    (void)Invocation.run();
  }
  if (Scan.Tokens.empty() && !Scan.SyntaxError && !Text.trim().empty())
    return llvm::createStringError("cannot parse '" + File.str() +
                                   "' for the static screen");
  return Scan;
}

llvm::Expected<std::unique_ptr<VariantScreen>>
VariantScreen::create(const tooling::CompileCommand &Command,
                      llvm::StringRef File, const ParseSettings &Settings,
                      llvm::StringRef Original, const Target &T,
                      EditScope Scope, std::vector<std::string> AllowedApis,
                      OptionNames Names, std::string BuildMacros) {
  auto Scan =
      scanFile(Command, File, Settings, Original, ScanPass::Host, BuildMacros);
  if (!Scan)
    return Scan.takeError();
  std::unique_ptr<VariantScreen> S(new VariantScreen());
  S->Command = Command;
  S->File = File.str();
  S->Settings = Settings;
  S->T = T;
  S->Scope = Scope;
  S->AllowedApis = std::move(AllowedApis);
  S->Names = Names;
  S->BuildMacros = std::move(BuildMacros);
  S->Original = std::move(*Scan);
  S->OriginalText = Original.str();
  if (testsDevicePassMacros(Original) &&
      deviceSideArgs(
          adjustedParseCommand(Command, File, Settings).CommandLine)) {
    auto Device = scanFile(Command, File, Settings, Original, ScanPass::Device);
    if (!Device)
      return Device.takeError();
    S->OriginalDevice = std::move(*Device);
  }
  return S;
}

/// The start of every reason why an edit breaks the target scope.
static std::string outsideTargetScope(OptionNames Names) {
  return "edits outside " + Names("Scope") + "=target";
}

bool VariantScreen::allowed(const FileScan &Orig, const ApiUse &U) const {
  if (U.Category == ApiCategory::FileSystem)
    return true;
  if (apiAllowedByUser(AllowedApis, U.Name, U.Category))
    return true;
  // What the original already does stays allowed.
  return llvm::any_of(Orig.Uses, [&](const ApiUse &O) {
    return O.Name == U.Name && O.Definition == U.Definition;
  });
}

std::string VariantScreen::outsideScope(unsigned Line,
                                        llvm::StringRef Where) const {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(OriginalText).split(Lines, '\n');
  std::string Text =
      Line >= 1 && Line <= Lines.size() ? Lines[Line - 1].trim().str() : "";
  // Judged on the preprocessed tokens: an edit that changes only how the
  // code after the target expands (a new #define, a _Pragma) is named at
  // the first line whose tokens differ.
  return outsideTargetScope(Names) + ": line " + std::to_string(Line) + " (" +
         Where.str() + " the target) was changed or removed: '" + Text + "'";
}

std::optional<std::string> VariantScreen::judgeScope(const FileScan &Orig,
                                                     const FileScan &V) const {
  const std::vector<ScreenToken> &O = Orig.Tokens;
  const std::vector<ScreenToken> &VT = V.Tokens;
  auto FirstAt = [&](unsigned Offset) {
    size_t I = 0;
    while (I < O.size() && !(O[I].MainFile && O[I].Offset >= Offset))
      ++I;
    return I;
  };
  size_t Begin = FirstAt(T.BeginOffset), End = FirstAt(T.EndOffset);
  if (Begin == End) {
    // This pass does not compile the target (it is under a test of
    // __CUDA_ARCH__ that this pass skips): nothing it compiles may change.
    for (size_t I = 0; I < O.size(); ++I)
      if (I >= VT.size() || !sameToken(VT[I], O[I])) {
        size_t J = I;
        while (J > 0 && !O[J].MainFile)
          --J;
        return outsideScope(O[J].Line,
                            O[J].Offset < T.BeginOffset ? "before" : "after");
      }
    if (VT.size() != O.size())
      return outsideScope(O.empty() ? 1 : O.back().Line, "after");
    return std::nullopt;
  }
  // The line of original token I, or of the main-file token before it (a
  // header's tokens are placed at the #include that brought them).
  auto LineOf = [&](size_t I) -> unsigned {
    for (size_t J = I + 1; J-- > 0;)
      if (J < O.size() && O[J].MainFile)
        return O[J].Line;
    return 1;
  };
  // After the target: every token, headers included, exactly as before.
  size_t SuffixLen = O.size() - End;
  for (size_t K = 0; K < SuffixLen; ++K) {
    size_t OI = O.size() - 1 - K;
    if (K >= VT.size() || !sameToken(VT[VT.size() - 1 - K], O[OI]))
      return outsideScope(LineOf(OI), "after");
  }
  // Before the target: the main file's tokens as before (#include lines may
  // change, so headers' tokens are not compared).
  std::vector<const ScreenToken *> Head;
  for (size_t I = 0; I + SuffixLen < VT.size(); ++I)
    if (VT[I].MainFile)
      Head.push_back(&VT[I]);
  size_t Kept = 0;
  for (size_t I = 0; I < Begin; ++I) {
    if (!O[I].MainFile)
      continue;
    if (Kept >= Head.size() || !sameToken(*Head[Kept], O[I]))
      return outsideScope(O[I].Line, "before");
    ++Kept;
  }
  if (Kept == Head.size())
    return outsideTargetScope(Names) + ": the target's definition was removed";
  // In the new text, a pragma outside any body would apply to the code
  // after it, unless it is undone there (push ... pop).
  int Depth = 0, Pushed = 0;
  for (size_t I = Kept; I < Head.size(); ++I) {
    const ScreenToken &Tok = *Head[I];
    if (Tok.Brace == 1)
      ++Depth;
    else if (Tok.Brace == 2)
      --Depth;
    if (!Tok.Pragma || Depth > 0)
      continue;
    if (Tok.PragmaKind == 1) {
      ++Pushed;
    } else if (Tok.PragmaKind == 2 && Pushed > 0) {
      --Pushed;
    } else if (Pushed == 0) {
      return outsideTargetScope(Names) + ": a #pragma at line " +
             std::to_string(Tok.Line) +
             " of the variant, outside the target's body, would apply to the "
             "code after it";
    }
  }
  if (Pushed > 0)
    return outsideTargetScope(Names) +
           ": a #pragma push before the target is never popped, so it would "
           "apply to the code after it";
  return std::nullopt;
}

std::optional<std::string> VariantScreen::judge(const FileScan &Orig,
                                                const FileScan &V) const {
  // A syntax error the original does not have (an original Clang cannot
  // parse, such as CUDA it does not know, is judged by its compiler alone).
  if (V.SyntaxError && !Orig.SyntaxError)
    return "does not parse: " + V.FirstError;
  // What reads a clock or starts a process is named before an intrinsics
  // header that came with it.
  std::vector<const ApiUse *> Uses;
  for (const ApiUse &U : V.Uses)
    Uses.push_back(&U);
  llvm::stable_sort(Uses, [](const ApiUse *A, const ApiUse *B) {
    return A->Category != ApiCategory::InstructionSet &&
           B->Category == ApiCategory::InstructionSet;
  });
  for (const ApiUse *UP : Uses) {
    const ApiUse &U = *UP;
    if (allowed(Orig, U))
      continue;
    std::string Key = U.Name == "/proc" || U.Name == "envp" || U.Name == "asm"
                          ? apiCategoryKey(U.Category).str()
                          : U.Name;
    if (U.Definition)
      return "defines " + U.Name + " at line " + std::to_string(U.Line) +
             ", a library " + apiCategoryName(U.Category).str() +
             " symbol the original does not define (allow it with " +
             Names("AllowApi") + "=" + Key + ")";
    std::string What = U.Name == "/proc"  ? "a path under /proc"
                       : U.Name == "envp" ? "main's environment parameter"
                       : U.Name == "asm"  ? "inline assembly"
                                          : U.Name;
    // Portable by default: as a compiler needs -march.
    if (U.Category == ApiCategory::InstructionSet)
      return "adds " + What + " at line " + std::to_string(U.Line) +
             ", which ties the program to an instruction set the original "
             "does not need, so it would not run on every machine the "
             "original runs on (allow it with " +
             Names("AllowIsa") + "=native or a list)";
    return "adds " + What + " (" + apiCategoryName(U.Category).str() +
           ") at line " + std::to_string(U.Line) +
           ", which the original does not use (allow it with " +
           Names("AllowApi") + "=" + Key + ")";
  }
  if (Scope == EditScope::Target)
    return judgeScope(Orig, V);
  return std::nullopt;
}

std::optional<std::string>
VariantScreen::screen(llvm::StringRef VariantText) const {
  auto Scan = scanFile(Command, File, Settings, VariantText, ScanPass::Host,
                       BuildMacros);
  if (!Scan)
    return "does not parse: " + llvm::toString(Scan.takeError());
  if (std::optional<std::string> Why = judge(Original, *Scan))
    return Why;
  if (!OriginalDevice)
    return std::nullopt;
  auto Device =
      scanFile(Command, File, Settings, VariantText, ScanPass::Device);
  if (!Device)
    return "does not parse for the device: " +
           llvm::toString(Device.takeError());
  if (std::optional<std::string> Why = judge(*OriginalDevice, *Device))
    return "in the device pass: " + *Why;
  return std::nullopt;
}

llvm::Expected<std::vector<ApiUse>>
VariantScreen::addedCalls(llvm::StringRef VariantText) const {
  std::vector<ApiUse> Out;
  auto Scan = scanFile(Command, File, Settings, VariantText, ScanPass::Host,
                       BuildMacros);
  if (!Scan)
    return llvm::createStringError("the variant does not parse: " +
                                   llvm::toString(Scan.takeError()));
  for (const ApiUse &U : Scan->Uses) {
    bool Before = llvm::any_of(
        Original.Uses, [&](const ApiUse &O) { return O.Name == U.Name; });
    bool Seen =
        llvm::any_of(Out, [&](const ApiUse &O) { return O.Name == U.Name; });
    if (!Before && !Seen &&
        (U.Category == ApiCategory::FileSystem ||
         U.Category == ApiCategory::ProcessCreation ||
         U.Category == ApiCategory::Socket))
      Out.push_back(U);
  }
  return Out;
}
