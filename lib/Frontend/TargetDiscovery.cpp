//===-- TargetDiscovery.cpp - Functions and kernels of a main file --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Target.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace clang;

ParsedFile::ParsedFile() = default;
ParsedFile::~ParsedFile() = default;
ParsedFile::ParsedFile(ParsedFile &&) = default;
ParsedFile &ParsedFile::operator=(ParsedFile &&) = default;

llvm::StringRef maxcode::targetKindName(TargetKind K) {
  switch (K) {
  case TargetKind::CpuFunction:
    return "cpu-function";
  case TargetKind::CudaKernel:
    return "cuda-kernel";
  case TargetKind::CudaDeviceFunction:
    return "cuda-device-function";
  }
  llvm_unreachable("unknown target kind");
}

double Target::staticScore() const {
  double Score = LoopDepth * 10.0 + LaunchSites.size() * 5.0;
  if (Kind == TargetKind::CudaKernel)
    Score += 20;
  return Score;
}

void maxcode::rankTargets(std::vector<Target> &Targets) {
  bool Measured =
      !Targets.empty() && llvm::all_of(Targets, [](const Target &T) {
        return T.Share.has_value();
      });
  std::stable_sort(Targets.begin(), Targets.end(),
                   [Measured](const Target &A, const Target &B) {
                     if (Measured)
                       return *A.Share > *B.Share;
                     return A.staticScore() > B.staticScore();
                   });
}

llvm::Expected<std::vector<Target>>
maxcode::selectTargets(const std::vector<Target> &Ranked, llvm::StringRef Names,
                       llvm::ArrayRef<BlockedTarget> Blocked) {
  auto BlockedError = [](const BlockedTarget &B) {
    return llvm::createStringError("target '" + B.T.Name +
                                   "' cannot be optimised: " + B.Reason);
  };
  if (Ranked.empty()) {
    if (!Blocked.empty() && Names.trim().empty())
      return BlockedError(Blocked.front());
    if (Blocked.empty())
      return llvm::createStringError(
          "no function or kernel definitions found to optimise");
  }
  if (Names.trim().empty())
    return std::vector<Target>{Ranked.front()};
  auto IsKnown = [&](llvm::StringRef W) {
    return llvm::any_of(Ranked, [&](const Target &T) { return T.Name == W; }) ||
           llvm::any_of(Blocked,
                        [&](const BlockedTarget &B) { return B.T.Name == W; });
  };
  // Names hold commas of their own (`Cache<K, V>::get`, as --list-targets
  // prints them), so the list is cut at a comma only where the longest run
  // of pieces that names a target ends.
  llvm::SmallVector<llvm::StringRef, 4> Pieces;
  Names.split(Pieces, ',', -1, /*KeepEmpty=*/true);
  std::vector<std::string> Wanted;
  for (size_t I = 0; I < Pieces.size();) {
    size_t End = I + 1;
    std::string Name = Pieces[I].trim().str();
    std::string Joined = Pieces[I].str();
    for (size_t J = I + 1; J < Pieces.size(); ++J) {
      Joined += "," + Pieces[J].str();
      if (IsKnown(llvm::StringRef(Joined).trim())) {
        Name = llvm::StringRef(Joined).trim().str();
        End = J + 1;
      }
    }
    if (!Name.empty())
      Wanted.push_back(Name);
    I = End;
  }
  std::vector<Target> Out;
  for (llvm::StringRef W : Wanted) {
    auto It =
        llvm::find_if(Ranked, [&](const Target &T) { return T.Name == W; });
    if (It == Ranked.end()) {
      auto B = llvm::find_if(
          Blocked, [&](const BlockedTarget &B) { return B.T.Name == W; });
      if (B != Blocked.end())
        return BlockedError(*B);
      std::string Known;
      for (const Target &T : Ranked)
        Known += (Known.empty() ? "" : ", ") + T.Name;
      return llvm::createStringError("unknown target '" + W.str() +
                                     "'; the targets are: " + Known);
    }
    Out.push_back(*It);
  }
  return Out;
}

namespace {
/// Prints diagnostics, notes whether an error was a syntax error, and keeps
/// every error with its place for per-target validity.
class RecordingPrinter : public SyntaxAwarePrinter {
public:
  using SyntaxAwarePrinter::SyntaxAwarePrinter;
  /// The first fatal error (its text), or one without a place: either hides
  /// what Clang would have said next, or cannot be attributed to anything.
  std::optional<std::string> Unattributable;
  std::vector<ClangError> Errors;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    if (Level >= DiagnosticsEngine::Error)
      record(Level, Info);
    SyntaxAwarePrinter::HandleDiagnostic(Level, Info);
  }

private:
  void record(DiagnosticsEngine::Level Level, const Diagnostic &Info) {
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    ClangError E;
    E.Text = std::string(Message);
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      const SourceManager &SM = Info.getSourceManager();
      E.Loc = SM.getFileLoc(Info.getLocation());
      PresumedLoc P = SM.getPresumedLoc(E.Loc);
      if (P.isValid())
        E.Text =
            (llvm::Twine(P.getFilename()) + ":" + llvm::Twine(P.getLine()) +
             ":" + llvm::Twine(P.getColumn()) + ": " + Message)
                .str();
    }
    if (!Unattributable &&
        (Level == DiagnosticsEngine::Fatal || E.Loc.isInvalid()))
      Unattributable = E.Text;
    Errors.push_back(std::move(E));
  }
};
} // namespace

llvm::Expected<ParsedFile>
maxcode::parseFile(const tooling::CompileCommand &Command, llvm::StringRef File,
                   const ParseSettings &Settings, llvm::raw_ostream &DiagOS,
                   std::optional<llvm::StringRef> Contents, bool *SyntaxError,
                   ParseErrors Policy) {
  tooling::CompileCommand Adjusted =
      adjustedParseCommand(Command, File, Settings);
  SingleCommandDatabase DB(Adjusted);
  tooling::ClangTool Tool(DB, {File.str()});
  if (Contents)
    Tool.mapVirtualFile(File, *Contents);
  DiagnosticOptions DiagOpts;
  DiagOpts.ShowColors = false;
  RecordingPrinter Printer(DiagOS, DiagOpts);
  Tool.setDiagnosticConsumer(&Printer);
  std::vector<std::unique_ptr<ASTUnit>> ASTs;
  int RC = Tool.buildASTs(ASTs);
  DiagOS.flush();
  if (SyntaxError)
    *SyntaxError = Printer.SawSyntaxError;
  unsigned Errors = Printer.getNumErrors();
  if (!ASTs.empty() && ASTs.front()->getDiagnostics().hasErrorOccurred())
    Errors = std::max(Errors, 1u);
  auto CountAbove = [&] {
    return Errors ? " (" + std::to_string(Errors) + " error" +
                        (Errors == 1 ? "" : "s") + " above)"
                  : std::string();
  };
  if (ASTs.size() != 1 || (Policy == ParseErrors::Fail && (RC != 0 || Errors)))
    return llvm::createStringError(
        "cannot parse '" + File.str() + "'" + CountAbove() +
        "; a broken AST gives wrong names and ranges, so nothing is listed");
  if (!Printer.Unattributable && Errors && Printer.Errors.empty())
    Printer.Unattributable = "an error Clang did not report";
  if (Printer.Unattributable)
    return llvm::createStringError(
        "cannot parse '" + File.str() + "'" + CountAbove() + ": '" +
        *Printer.Unattributable +
        "' stops Clang from checking the rest of the file, so nothing is "
        "listed");
  ParsedFile P;
  P.AST = std::move(ASTs.front());
  P.File = File.str();
  P.Command = Command;
  P.ParseArgs = Adjusted.CommandLine;
  P.Errors = std::move(Printer.Errors);
  return P;
}

namespace {
/// Deepest loop nesting under a statement.
class LoopDepthVisitor : public RecursiveASTVisitor<LoopDepthVisitor> {
public:
  unsigned Depth = 0, Max = 0;
#define MAXCODE_LOOP(CLASS)                                                    \
  bool Traverse##CLASS(CLASS *S) {                                             \
    ++Depth;                                                                   \
    Max = std::max(Max, Depth);                                                \
    bool R = RecursiveASTVisitor::Traverse##CLASS(S);                          \
    --Depth;                                                                   \
    return R;                                                                  \
  }
  MAXCODE_LOOP(ForStmt)
  MAXCODE_LOOP(WhileStmt)
  MAXCODE_LOOP(DoStmt)
  MAXCODE_LOOP(CXXForRangeStmt)
#undef MAXCODE_LOOP
};

/// The definition a call names: the template pattern for instantiations.
const FunctionDecl *patternOf(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  return FD->getCanonicalDecl();
}

/// Finds the kernel an argument of cudaLaunchKernel names, if any.
const FunctionDecl *kernelNamedBy(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      E = U->getSubExpr()->IgnoreParenCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      if (FD->hasAttr<CUDAGlobalAttr>())
        return patternOf(FD);
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(E))
    for (const NamedDecl *D : ULE->decls())
      if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
        if (FTD->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>())
          return patternOf(FTD->getTemplatedDecl());
  return nullptr;
}

class DiscoveryVisitor : public RecursiveASTVisitor<DiscoveryVisitor> {
public:
  DiscoveryVisitor(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}

  std::vector<const FunctionDecl *> Definitions;
  llvm::DenseMap<const FunctionDecl *, std::vector<SourcePosition>> Launches;

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isImplicit() ||
        FD->isTemplateInstantiation())
      return true;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      if (MD->getParent()->isLambda())
        return true;
    if (!SM.isWrittenInMainFile(SM.getExpansionLoc(FD->getLocation())))
      return true;
    Definitions.push_back(FD);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    const FunctionDecl *K = patternOf(E->getDirectCallee());
    if (!K)
      K = kernelNamedBy(E->getCallee());
    addLaunch(K, E->getBeginLoc());
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    llvm::StringRef Name;
    if (const FunctionDecl *Callee = E->getDirectCallee()) {
      if (Callee->getIdentifier())
        Name = Callee->getName();
    } else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(
                   E->getCallee()->IgnoreParenImpCasts())) {
      Name = ULE->getName().getAsIdentifierInfo()
                 ? ULE->getName().getAsIdentifierInfo()->getName()
                 : "";
    }
    if (!Name.starts_with("cudaLaunch"))
      return true;
    for (const Expr *Arg : E->arguments())
      if (const FunctionDecl *K = kernelNamedBy(Arg)) {
        addLaunch(K, E->getBeginLoc());
        break;
      }
    return true;
  }

private:
  void addLaunch(const FunctionDecl *K, SourceLocation Loc) {
    if (!K)
      return;
    Loc = SM.getExpansionLoc(Loc);
    if (!SM.isWrittenInMainFile(Loc))
      return;
    Launches[K].push_back(
        {SM.getExpansionLineNumber(Loc), SM.getExpansionColumnNumber(Loc)});
  }

  const SourceManager &SM;
};

/// The declarations a target's definition names: what it calls, constructs,
/// reads and writes, and the types it spells (its signature included).
class UsedDeclCollector : public RecursiveASTVisitor<UsedDeclCollector> {
public:
  llvm::SmallPtrSet<const Decl *, 32> Used;

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    add(E->getDecl());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    add(E->getMemberDecl());
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    for (const NamedDecl *D : E->decls())
      add(D);
    return true;
  }
  bool VisitCallExpr(CallExpr *E) {
    add(E->getCalleeDecl());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    add(E->getConstructor());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) {
    add(TL.getDecl());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    add(TL.getDecl());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc TL) {
    add(TL.getTypePtr()->getTemplateName().getAsTemplateDecl());
    if (const CXXRecordDecl *RD = TL.getType()->getAsCXXRecordDecl())
      add(RD);
    return true;
  }

private:
  void add(const Decl *D) {
    if (!D)
      return;
    Used.insert(D);
    // The text that was checked: a function's or class's definition, and
    // the template an instantiation came from.
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (const FunctionDecl *Def = FD->getDefinition())
        Used.insert(Def);
      if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
        Used.insert(P);
    } else if (const auto *TD = dyn_cast<TagDecl>(D)) {
      if (const TagDecl *Def = TD->getDefinition())
        Used.insert(Def);
      if (const auto *RD = dyn_cast<CXXRecordDecl>(TD))
        if (const CXXRecordDecl *P = RD->getTemplateInstantiationPattern())
          Used.insert(P);
    }
  }
};

/// Why \p FD cannot be a target, given the parse's errors; empty when it can.
std::string blockingReason(const FunctionDecl *FD, unsigned BeginOff,
                           unsigned EndOff, const ParsedFile &Parsed) {
  const ASTContext &Ctx = Parsed.AST->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  for (const ClangError &E : Parsed.Errors) {
    std::pair<FileID, unsigned> At = SM.getDecomposedLoc(E.Loc);
    if (At.first == Main && At.second >= BeginOff && At.second < EndOff)
      return "an error in its definition: " + E.Text;
  }
  // A template's parameters (their default arguments) count as its own.
  UsedDeclCollector C;
  if (FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate())
    C.TraverseDecl(FTD);
  else
    C.TraverseDecl(const_cast<FunctionDecl *>(FD));
  for (const Decl *D : C.Used) {
    if (D == FD || D->getCanonicalDecl() == FD->getCanonicalDecl())
      continue;
    std::string Name = isa<NamedDecl>(D)
                           ? cast<NamedDecl>(D)->getQualifiedNameAsString()
                           : std::string("a declaration");
    if (D->isInvalidDecl())
      return "it uses '" + Name + "', whose declaration has an error";
    CharSourceRange R = SM.getExpansionRange(D->getSourceRange());
    if (R.isInvalid())
      continue;
    std::pair<FileID, unsigned> B = SM.getDecomposedLoc(R.getBegin());
    std::pair<FileID, unsigned> End = SM.getDecomposedLoc(R.getEnd());
    if (B.first != End.first)
      continue;
    unsigned EndOffset =
        End.second +
        (R.isTokenRange()
             ? Lexer::MeasureTokenLength(R.getEnd(), SM, Ctx.getLangOpts())
             : 0);
    for (const ClangError &E : Parsed.Errors) {
      std::pair<FileID, unsigned> At = SM.getDecomposedLoc(E.Loc);
      if (At.first == B.first && At.second >= B.second && At.second < EndOffset)
        return "it uses '" + Name + "', which has an error: " + E.Text;
    }
  }
  return "";
}

bool hasExplicitAttr(const FunctionDecl *FD, attr::Kind K) {
  for (const Attr *A : FD->attrs())
    if (A->getKind() == K && !A->isImplicit() && !A->isInherited())
      return true;
  return false;
}

std::string collapseWhitespace(llvm::StringRef S) {
  std::string Out;
  bool Space = false;
  for (char C : S) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

/// Where \p FD's definition is written in the main file, as offsets: from
/// its template header or its first attribute (__global__ is a macro for
/// one), whichever comes first, to its last token. None when it is not
/// written there in one piece.
std::optional<std::pair<unsigned, unsigned>>
definitionOffsets(const FunctionDecl *FD, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  SourceLocation Begin = SM.getExpansionLoc(FD->getBeginLoc());
  if (const FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate())
    Begin = SM.getExpansionLoc(FTD->getBeginLoc());
  if (FD->getNumTemplateParameterLists())
    Begin =
        SM.getExpansionLoc(FD->getTemplateParameterList(0)->getTemplateLoc());
  for (const Attr *A : FD->attrs()) {
    if (A->isImplicit() || A->isInherited() || !A->getLocation().isValid())
      continue;
    SourceLocation L = SM.getExpansionLoc(A->getRange().getBegin());
    if (SM.isWrittenInMainFile(L) && SM.isBeforeInTranslationUnit(L, Begin))
      Begin = L;
  }
  SourceLocation End = SM.getExpansionLoc(FD->getEndLoc());
  if (SM.getFileID(Begin) != Main || SM.getFileID(End) != Main)
    return std::nullopt;
  unsigned BeginOff = SM.getFileOffset(Begin);
  unsigned EndOff = SM.getFileOffset(End) +
                    Lexer::MeasureTokenLength(End, SM, Ctx.getLangOpts());
  if (EndOff <= BeginOff || EndOff > SM.getBufferData(Main).size())
    return std::nullopt;
  return std::make_pair(BeginOff, EndOff);
}

/// Linker names, for mapping profiles. Dependent declarations have none;
/// their instantiations do.
void addLinkerNames(const FunctionDecl *FD, ASTNameGenerator &Mangler,
                    std::vector<std::string> &Out) {
  auto AddNames = [&](const FunctionDecl *D) {
    if (D->isDependentContext())
      return;
    if (isa<CXXConstructorDecl>(D) || isa<CXXDestructorDecl>(D)) {
      for (std::string &N : Mangler.getAllManglings(D))
        Out.push_back(std::move(N));
      return;
    }
    Out.push_back(Mangler.getName(D));
  };
  if (const FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *Spec : FTD->specializations())
      AddNames(Spec);
  } else {
    AddNames(FD);
  }
}

/// The target \p FD defines between \p BeginOff and \p EndOff.
Target makeTarget(const FunctionDecl *FD, unsigned BeginOff, unsigned EndOff,
                  const ParsedFile &Parsed, const DiscoveryVisitor &V,
                  ASTNameGenerator &Mangler) {
  const ASTContext &Ctx = Parsed.AST->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::StringRef Buffer = SM.getBufferData(SM.getMainFileID());
  Target T;
  T.Name = FD->getQualifiedNameAsString();
  if (hasExplicitAttr(FD, attr::CUDAGlobal))
    T.Kind = TargetKind::CudaKernel;
  else if (hasExplicitAttr(FD, attr::CUDADevice))
    T.Kind = TargetKind::CudaDeviceFunction;
  T.File = Parsed.File;
  T.Line = SM.getLineNumber(SM.getMainFileID(), BeginOff);
  T.EndLine = SM.getExpansionLineNumber(SM.getExpansionLoc(FD->getEndLoc()));
  T.BeginOffset = BeginOff;
  T.EndOffset = EndOff;
  llvm::SmallString<128> USR;
  if (!index::generateUSRForDecl(FD, USR))
    T.USR = std::string(USR);
  if (const Stmt *Body = FD->getBody()) {
    unsigned BodyOff =
        SM.getFileOffset(SM.getExpansionLoc(Body->getBeginLoc()));
    if (BodyOff > BeginOff && BodyOff <= EndOff)
      T.Signature = collapseWhitespace(Buffer.slice(BeginOff, BodyOff).rtrim());
    LoopDepthVisitor L;
    L.TraverseStmt(const_cast<Stmt *>(Body));
    T.LoopDepth = L.Max;
  }
  std::array<uint8_t, 32> Hash = llvm::SHA256::hash(
      llvm::arrayRefFromStringRef(Buffer.slice(BeginOff, EndOff)));
  T.TextHash = llvm::toHex(Hash, /*LowerCase=*/true);
  auto It = V.Launches.find(FD->getCanonicalDecl());
  if (It != V.Launches.end())
    T.LaunchSites = It->second;
  addLinkerNames(FD, Mangler, T.MangledNames);
  return T;
}
} // namespace

std::vector<Target>
maxcode::discoverTargets(ParsedFile &Parsed,
                         std::vector<BlockedTarget> *Blocked) {
  ASTContext &Ctx = Parsed.AST->getASTContext();
  DiscoveryVisitor V(Ctx);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  ASTNameGenerator Mangler(Ctx);

  std::vector<Target> Out;
  llvm::DenseSet<unsigned> Seen;
  for (const FunctionDecl *FD : V.Definitions) {
    auto Offsets = definitionOffsets(FD, Ctx);
    if (!Offsets || !Seen.insert(Offsets->first).second)
      continue;
    auto [BeginOff, EndOff] = *Offsets;
    Target T = makeTarget(FD, BeginOff, EndOff, Parsed, V, Mangler);
    if (!Parsed.Errors.empty()) {
      std::string Why = blockingReason(FD, BeginOff, EndOff, Parsed);
      if (!Why.empty()) {
        if (Blocked)
          Blocked->push_back({std::move(T), std::move(Why)});
        continue;
      }
    }
    Out.push_back(std::move(T));
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const Target &A, const Target &B) {
                     return A.BeginOffset < B.BeginOffset;
                   });
  return Out;
}
