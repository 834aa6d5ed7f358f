//===-- TargetDiscovery.cpp - Functions and kernels of a main file --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/DeclUses.h"
#include "maxcode/Frontend/Target.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

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

std::string maxcode::targetSelector(const Target &T,
                                    llvm::ArrayRef<Target> All) {
  bool Shared = llvm::any_of(All, [&](const Target &O) {
    return O.Name == T.Name && (O.Line != T.Line || O.File != T.File);
  });
  return Shared ? T.Name + ":" + std::to_string(T.Line) : T.Name;
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
  // A name, or NAME:LINE for one of several definitions of a name
  // (overloads), as --list-targets prints it.
  auto Selects = [](const Target &T, llvm::StringRef W) {
    return T.Name == W || W == T.Name + ":" + std::to_string(T.Line);
  };
  auto IsKnown = [&](llvm::StringRef W) {
    return llvm::any_of(Ranked,
                        [&](const Target &T) { return Selects(T, W); }) ||
           llvm::any_of(Blocked, [&](const BlockedTarget &B) {
             return Selects(B.T, W);
           });
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
        llvm::find_if(Ranked, [&](const Target &T) { return Selects(T, W); });
    if (It != Ranked.end() &&
        std::count_if(Ranked.begin(), Ranked.end(),
                      [&](const Target &T) { return Selects(T, W); }) > 1) {
      std::string Which;
      for (const Target &T : Ranked)
        if (Selects(T, W))
          Which += (Which.empty() ? "" : ", ") + targetSelector(T, Ranked) +
                   " (" + llvm::sys::path::filename(T.File).str() + ")";
      return llvm::createStringError("target '" + W.str() + "' names " +
                                     "several definitions: " + Which +
                                     "; name one as --target=NAME:LINE");
    }
    if (It == Ranked.end()) {
      auto B = llvm::find_if(
          Blocked, [&](const BlockedTarget &B) { return Selects(B.T, W); });
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

/// What an expression a kernel launch or a call is given names, through
/// parentheses, casts, `&` and `*`: the declaration, or null.
const ValueDecl *declNamedBy(const Expr *E) {
  while (E) {
    E = E->IgnoreParenCasts();
    const auto *U = dyn_cast<UnaryOperator>(E);
    if (!U || (U->getOpcode() != UO_AddrOf && U->getOpcode() != UO_Deref))
      break;
    E = U->getSubExpr();
  }
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return DRE->getDecl();
  return nullptr;
}

/// Adds the kernels \p E names to \p Out: a kernel (or kernel template)
/// named directly, either kernel of a conditional, a local function
/// pointer initialised with one (`auto K = Fast ? kernelA : kernelB;`), or
/// an element of a local array of them (`void (*K[])(float *) = {kA, kB};
/// K[i]<<<g, b>>>(p)`: a launch of each).
void addKernelsNamedBy(const Expr *E,
                       llvm::SmallVectorImpl<const FunctionDecl *> &Out,
                       unsigned Depth = 0) {
  if (!E || Depth > 4)
    return;
  E = E->IgnoreParenCasts();
  if (const auto *S = dyn_cast<ArraySubscriptExpr>(E)) {
    const auto *A = dyn_cast_or_null<VarDecl>(declNamedBy(S->getBase()));
    if (A && !isa<ParmVarDecl>(A) && A->isLocalVarDecl() &&
        A->getType()->isArrayType())
      if (const auto *List = dyn_cast_or_null<InitListExpr>(A->getInit()))
        for (const Expr *Element : List->inits())
          addKernelsNamedBy(Element, Out, Depth + 1);
    return;
  }
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
    addKernelsNamedBy(C->getTrueExpr(), Out, Depth + 1);
    addKernelsNamedBy(C->getFalseExpr(), Out, Depth + 1);
    return;
  }
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(E)) {
    for (const NamedDecl *D : ULE->decls())
      if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
        if (FTD->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>()) {
          Out.push_back(patternOf(FTD->getTemplatedDecl()));
          return;
        }
    return;
  }
  const ValueDecl *D = declNamedBy(E);
  if (const auto *FD = dyn_cast_or_null<FunctionDecl>(D)) {
    if (FD->hasAttr<CUDAGlobalAttr>())
      Out.push_back(patternOf(FD));
    return;
  }
  if (const auto *VD = dyn_cast_or_null<VarDecl>(D))
    if (!isa<ParmVarDecl>(VD) && VD->isLocalVarDecl() && VD->hasInit())
      addKernelsNamedBy(VD->getInit(), Out, Depth + 1);
}

/// The parameter of \p F that \p E names, or null.
const ParmVarDecl *paramNamedBy(const Expr *E, const FunctionDecl *F) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(declNamedBy(E));
  if (!P || !F || P->getDeclContext() != F)
    return nullptr;
  return P;
}

/// True for the runtime and driver API calls that launch the kernel (or
/// function) one of their arguments names.
bool isLaunchAPI(llvm::StringRef Name) {
  return Name.starts_with("cudaLaunch") || Name.starts_with("cuLaunch");
}

/// True for the runtime calls that give a driver-API handle of the kernel
/// their second argument names, stored through their first.
bool isHandleLookup(llvm::StringRef Name) {
  return Name == "cudaGetFuncBySymbol" || Name == "cudaGetKernel";
}

/// The place \p Loc as "file:line", for the path of an indirect launch.
std::string placeOf(const SourceManager &SM, SourceLocation Loc) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "?";
  return (llvm::sys::path::filename(P.getFilename()) + ":" +
          llvm::Twine(P.getLine()))
      .str();
}

/// A parameter of a function definition (its template pattern's), by index.
using ParamKey = std::pair<const FunctionDecl *, unsigned>;

/// The index, in \p Callee's pattern, of the parameter that receives
/// argument \p ArgIndex of a call: past a parameter pack, the pack's.
std::optional<unsigned> patternParamFor(const FunctionDecl *Callee,
                                        unsigned ArgIndex) {
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    if (Callee->getParamDecl(I)->isParameterPack())
      return I;
    if (I == ArgIndex)
      return I;
  }
  return std::nullopt;
}

class DiscoveryVisitor : public RecursiveASTVisitor<DiscoveryVisitor> {
public:
  DiscoveryVisitor(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}

  std::vector<const FunctionDecl *> Definitions;
  llvm::DenseMap<const FunctionDecl *, std::vector<SourcePosition>> Launches;

  bool TraverseDecl(Decl *D) {
    auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody())
      return RecursiveASTVisitor::TraverseDecl(D);
    Functions.push_back(FD);
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Functions.pop_back();
    return R;
  }

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
    llvm::SmallVector<const FunctionDecl *, 2> Kernels;
    if (const FunctionDecl *K = patternOf(E->getDirectCallee()))
      Kernels.push_back(K);
    else
      addKernelsNamedBy(E->getCallee(), Kernels);
    for (const FunctionDecl *K : Kernels)
      addLaunch(K, E->getBeginLoc(), {});
    if (const ParmVarDecl *P = paramNamedBy(E->getCallee(), current()))
      addParamLaunch(P, "<<<>>> at " + placeOf(SM, E->getBeginLoc()));
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    const FunctionDecl *Callee = calleePattern(E);
    llvm::StringRef Name;
    if (Callee && Callee->getIdentifier())
      Name = Callee->getName();
    else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(
                 E->getCallee()->IgnoreParenImpCasts()))
      if (const IdentifierInfo *II = ULE->getName().getAsIdentifierInfo())
        Name = II->getName();
    // A member operator's object is its first argument, not a parameter.
    unsigned Skip = isa<CXXOperatorCallExpr>(E) && Callee &&
                            isa<CXXMethodDecl>(Callee) &&
                            !cast<CXXMethodDecl>(Callee)->isStatic()
                        ? 1
                        : 0;
    for (unsigned I = Skip; I < E->getNumArgs(); ++I) {
      const Expr *Arg = E->getArg(I);
      llvm::SmallVector<const FunctionDecl *, 2> Kernels;
      addKernelsNamedBy(Arg, Kernels);
      const ParmVarDecl *P = paramNamedBy(Arg, current());
      if (I == Skip + 1 && isHandleLookup(Name))
        if (const auto *H =
                dyn_cast_or_null<VarDecl>(declNamedBy(E->getArg(Skip))))
          HandleKernels[H].append(Kernels.begin(), Kernels.end());
      if (isLaunchAPI(Name)) {
        for (const FunctionDecl *K : Kernels)
          addLaunch(K, E->getBeginLoc(), {});
        if (const auto *H = dyn_cast_or_null<VarDecl>(declNamedBy(Arg));
            H && !P && Kernels.empty())
          HandleLaunches.push_back({H, Name.str(), E->getBeginLoc()});
        if (P)
          addParamLaunch(P,
                         Name.str() + " at " + placeOf(SM, E->getBeginLoc()));
        continue;
      }
      std::optional<unsigned> To =
          Callee ? patternParamFor(Callee, I - Skip) : std::nullopt;
      if (!To)
        continue;
      ParamKey Target{Callee, *To};
      for (const FunctionDecl *K : Kernels)
        KernelArgs.push_back({K, Target, E->getBeginLoc()});
      if (P)
        Forwards.push_back({paramKey(P), Target, E->getBeginLoc()});
    }
    return true;
  }

  /// Adds the launches through functions: a kernel given to a function
  /// (directly, or as a local function pointer) that launches that
  /// parameter, with <<<>>> or a launch API, itself or through the
  /// functions it hands it to.
  void resolveIndirectLaunches() {
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const Forward &F : Forwards) {
        if (ParamLaunches.count(F.From))
          continue;
        auto It = ParamLaunches.find(F.To);
        if (It == ParamLaunches.end())
          continue;
        std::vector<std::string> Path{nameOf(F.To.first) + " at " +
                                      placeOf(SM, F.Loc)};
        Path.insert(Path.end(), It->second.begin(), It->second.end());
        ParamLaunches[F.From] = std::move(Path);
        Changed = true;
      }
    }
    for (const KernelArg &A : KernelArgs) {
      auto It = ParamLaunches.find(A.To);
      if (It == ParamLaunches.end())
        continue;
      std::vector<std::string> Path{nameOf(A.To.first)};
      Path.insert(Path.end(), It->second.begin(), It->second.end());
      addLaunch(A.Kernel, A.Loc, std::move(Path));
    }
    // A driver-API launch of a handle the runtime looked up for a kernel.
    for (const HandleLaunch &L : HandleLaunches) {
      auto It = HandleKernels.find(L.Handle);
      if (It == HandleKernels.end())
        continue;
      for (const FunctionDecl *K : It->second)
        addLaunch(K, L.Loc,
                  {L.Handle->getName().str() + " (a handle of it)",
                   L.API + " at " + placeOf(SM, L.Loc)});
    }
  }

private:
  struct Forward {
    ParamKey From, To;
    SourceLocation Loc;
  };
  struct KernelArg {
    const FunctionDecl *Kernel;
    ParamKey To;
    SourceLocation Loc;
  };
  struct HandleLaunch {
    const VarDecl *Handle;
    std::string API;
    SourceLocation Loc;
  };

  const FunctionDecl *current() const {
    return Functions.empty() ? nullptr : Functions.back();
  }

  static std::string nameOf(const FunctionDecl *FD) {
    return FD->getQualifiedNameAsString();
  }

  static ParamKey paramKey(const ParmVarDecl *P) {
    const auto *F = cast<FunctionDecl>(P->getDeclContext());
    return {patternOf(F), P->getFunctionScopeIndex()};
  }

  /// The definition a call reaches (a template's pattern); for a call a
  /// template cannot resolve yet, the one function template it names.
  static const FunctionDecl *calleePattern(const CallExpr *E) {
    if (const FunctionDecl *FD = E->getDirectCallee())
      return patternOf(FD);
    const auto *ULE =
        dyn_cast<UnresolvedLookupExpr>(E->getCallee()->IgnoreParenImpCasts());
    if (!ULE || ULE->getNumDecls() != 1)
      return nullptr;
    const NamedDecl *D = *ULE->decls_begin();
    if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
      return patternOf(FTD->getTemplatedDecl());
    return patternOf(dyn_cast<FunctionDecl>(D));
  }

  void addParamLaunch(const ParmVarDecl *P, std::string Step) {
    ParamLaunches.try_emplace(paramKey(P), std::vector<std::string>{Step});
  }

  void addLaunch(const FunctionDecl *K, SourceLocation Loc,
                 std::vector<std::string> Via) {
    if (!K)
      return;
    Loc = SM.getExpansionLoc(Loc);
    if (!SM.isWrittenInMainFile(Loc))
      return;
    SourcePosition Pos{SM.getExpansionLineNumber(Loc),
                       SM.getExpansionColumnNumber(Loc), std::move(Via)};
    std::vector<SourcePosition> &Sites = Launches[K];
    if (llvm::none_of(Sites, [&](const SourcePosition &S) {
          return S.Line == Pos.Line && S.Column == Pos.Column;
        }))
      Sites.push_back(std::move(Pos));
  }

  const SourceManager &SM;
  std::vector<const FunctionDecl *> Functions;
  std::map<ParamKey, std::vector<std::string>> ParamLaunches;
  std::vector<Forward> Forwards;
  std::vector<KernelArg> KernelArgs;
  /// Function handles (CUfunction, cudaKernel_t) looked up for kernels, and
  /// the launches of handles.
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const FunctionDecl *, 1>>
      HandleKernels;
  std::vector<HandleLaunch> HandleLaunches;
};

/// The declarations a target's definition names, with the text that was
/// checked for each: a function's or class's definition, and the template an
/// instantiation came from.
class UsedDeclCollector {
public:
  llvm::SmallPtrSet<const Decl *, 32> Used;

  void TraverseDecl(Decl *D) { Visitor.TraverseDecl(D); }

private:
  void add(const Decl *D) {
    Used.insert(D);
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

  DeclUseVisitor Visitor{[this](const Decl *D) { add(D); }};
};

/// The first of the parse's errors written inside \p D's text, if any.
const ClangError *errorInside(const Decl *D, const ParsedFile &Parsed) {
  const ASTContext &Ctx = Parsed.AST->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = SM.getExpansionRange(D->getSourceRange());
  if (R.isInvalid())
    return nullptr;
  std::pair<FileID, unsigned> B = SM.getDecomposedLoc(R.getBegin());
  std::pair<FileID, unsigned> End = SM.getDecomposedLoc(R.getEnd());
  if (B.first != End.first)
    return nullptr;
  unsigned EndOffset =
      End.second +
      (R.isTokenRange()
           ? Lexer::MeasureTokenLength(R.getEnd(), SM, Ctx.getLangOpts())
           : 0);
  for (const ClangError &E : Parsed.Errors) {
    std::pair<FileID, unsigned> At = SM.getDecomposedLoc(E.Loc);
    if (At.first == B.first && At.second >= B.second && At.second < EndOffset)
      return &E;
  }
  return nullptr;
}

/// The first expression in \p FD's body that Clang could not build: what
/// is left of a use of an invalid declaration, which names no declaration.
const RecoveryExpr *firstRecoveryExpr(const FunctionDecl *FD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const RecoveryExpr *Found = nullptr;
    bool VisitRecoveryExpr(RecoveryExpr *E) {
      Found = E;
      return false;
    }
  } F;
  if (Stmt *Body = FD->getBody())
    F.TraverseStmt(Body);
  return F.Found;
}

/// An invalid declaration named \p Name: the one \p FD's scopes find, or
/// else one in any namespace (the use may have been qualified: ns::Var).
const NamedDecl *invalidDeclNamed(const FunctionDecl *FD,
                                  const IdentifierInfo *Name) {
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    for (const NamedDecl *D : DC->lookup(Name))
      if (D->isInvalidDecl())
        return D;
  llvm::SmallVector<const DeclContext *, 8> Todo{
      FD->getASTContext().getTranslationUnitDecl()};
  while (!Todo.empty()) {
    const DeclContext *DC = Todo.pop_back_val();
    for (const Decl *D : DC->decls()) {
      if (const auto *NS = dyn_cast<NamespaceDecl>(D))
        Todo.push_back(NS);
      else if (const auto *ND = dyn_cast<NamedDecl>(D);
               ND && ND->isInvalidDecl() && ND->getIdentifier() == Name)
        return ND;
    }
  }
  return nullptr;
}

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
  auto NameOf = [](const Decl *D) {
    return isa<NamedDecl>(D) ? cast<NamedDecl>(D)->getQualifiedNameAsString()
                             : std::string("a declaration");
  };
  // The error inside a declaration, when there is one: its text says what
  // to fix (and what nvcc makes of it, RecordingPrinter).
  auto Uses = [&](const Decl *D, const ClangError *Inside) {
    if (D->isInvalidDecl())
      return "it uses '" + NameOf(D) + "', whose declaration has an error" +
             (Inside ? ": " + Inside->Text : std::string());
    return "it uses '" + NameOf(D) + "', which has an error: " + Inside->Text;
  };
  // A template's parameters (their default arguments) count as its own.
  UsedDeclCollector C;
  if (FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate())
    C.TraverseDecl(FTD);
  else
    C.TraverseDecl(const_cast<FunctionDecl *>(FD));
  for (const Decl *D : C.Used) {
    if (D == FD || D->getCanonicalDecl() == FD->getCanonicalDecl())
      continue;
    const ClangError *Inside = errorInside(D, Parsed);
    if (D->isInvalidDecl() || Inside)
      return Uses(D, Inside);
  }
  // A use of an invalid declaration leaves no reference to it, only an
  // expression Clang could not build: the rules would read a body with a
  // hole. The name written there finds the declaration, in the scopes
  // around the target.
  if (const RecoveryExpr *RE = firstRecoveryExpr(FD)) {
    SourceLocation Loc = SM.getFileLoc(RE->getBeginLoc());
    Token Tok;
    if (!Lexer::getRawToken(Loc, Tok, SM, Ctx.getLangOpts()) &&
        Tok.is(tok::raw_identifier))
      if (const NamedDecl *D =
              invalidDeclNamed(FD, &Ctx.Idents.get(Tok.getRawIdentifier())))
        return Uses(D, errorInside(D, Parsed));
    PresumedLoc P = SM.getPresumedLoc(Loc);
    return "its definition has an expression Clang could not build" +
           (P.isValid() ? " (line " + std::to_string(P.getLine()) + ")"
                        : std::string());
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
  T.HostCode =
      T.Kind == TargetKind::CpuFunction || hasExplicitAttr(FD, attr::CUDAHost);
  T.Cuda = Ctx.getLangOpts().CUDA;
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
  if (It != V.Launches.end()) {
    T.LaunchSites = It->second;
    llvm::sort(T.LaunchSites,
               [](const SourcePosition &A, const SourcePosition &B) {
                 return std::tie(A.Line, A.Column) < std::tie(B.Line, B.Column);
               });
  }
  addLinkerNames(FD, Mangler, T.MangledNames);
  return T;
}
} // namespace

namespace {
/// Finds the definition whose text ends where the target's does.
class TargetFinder : public RecursiveASTVisitor<TargetFinder> {
public:
  TargetFinder(const SourceManager &SM, const LangOptions &LO, const Target &T)
      : SM(SM), LO(LO), T(T) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (Found || !FD->doesThisDeclarationHaveABody() ||
        FD->isTemplateInstantiation())
      return true;
    SourceLocation End = FD->getEndLoc();
    SourceLocation Name = FD->getLocation();
    if (!End.isFileID() || !SM.isWrittenInMainFile(End))
      return true;
    unsigned EndOff =
        SM.getFileOffset(End) + Lexer::MeasureTokenLength(End, SM, LO);
    unsigned NameOff = SM.getFileOffset(SM.getExpansionLoc(Name));
    if (EndOff == T.EndOffset && NameOff >= T.BeginOffset &&
        NameOff < T.EndOffset)
      Found = FD;
    return true;
  }

  const FunctionDecl *Found = nullptr;

private:
  const SourceManager &SM;
  const LangOptions &LO;
  const Target &T;
};
} // namespace

const FunctionDecl *maxcode::findTargetDecl(ParsedFile &Parsed,
                                            const Target &T) {
  ASTContext &Ctx = Parsed.AST->getASTContext();
  TargetFinder F(Ctx.getSourceManager(), Ctx.getLangOpts(), T);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  return F.Found;
}

std::vector<Target>
maxcode::discoverTargets(ParsedFile &Parsed,
                         std::vector<BlockedTarget> *Blocked) {
  ASTContext &Ctx = Parsed.AST->getASTContext();
  DiscoveryVisitor V(Ctx);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  V.resolveIndirectLaunches();
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
