//===-- IORules.cpp - Fast I/O, endl, includes, dead globals --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The rules that matter most for small programs. A program that includes
// <iostream> pays for the stream library's start-up (locale set-up) on every
// run, and one that needs libstdc++ at all pays for loading and relocating it;
// for programs that read a few numbers this is most of their cost. So:
//
//   fast-io                stream objects become small stdio-based ones and
//                          <iostream> goes; or, when that cannot be done,
//                          sync_with_stdio(false) and an untied cin.
//   endl-to-newline        std::endl becomes '\n' (no flush per line).
//   prune-includes         <iostream> / <bits/stdc++.h> in a file that does no
//                          stream I/O become the headers it really uses.
//   remove-unused-globals  unreferenced globals of standard container types,
//                          whose construction alone needs libstdc++.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

enum class StreamKind { None, In, Out, Err };

/// Which standard stream a declaration is, if any.
StreamKind streamKindOf(const Decl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  if (!VD || !VD->getDeclContext()->isStdNamespace() || !VD->getIdentifier())
    return StreamKind::None;
  return llvm::StringSwitch<StreamKind>(VD->getName())
      .Case("cin", StreamKind::In)
      .Case("cout", StreamKind::Out)
      .Cases("cerr", "clog", StreamKind::Err)
      .Default(StreamKind::None);
}

bool isInStd(const Decl *D) {
  const DeclContext *DC = D->getDeclContext();
  while (DC && !DC->isStdNamespace()) {
    if (DC->isTranslationUnit())
      return false;
    DC = DC->getParent();
  }
  return DC != nullptr;
}

bool isStdString(QualType T) {
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() || Spec->getName() != "basic_string" ||
      !isInStd(Spec) || Spec->getTemplateArgs().size() < 1)
    return false;
  const TemplateArgument &Arg = Spec->getTemplateArgs()[0];
  return Arg.getKind() == TemplateArgument::Type &&
         (Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_S) ||
          Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_U));
}

bool isPlainChar(QualType T) {
  return T->isSpecificBuiltinType(BuiltinType::Char_S) ||
         T->isSpecificBuiltinType(BuiltinType::Char_U);
}

/// Builtin types both our helpers and the standard streams read and write
/// with the same overload.
bool isStreamableBuiltin(QualType T, bool Input) {
  const auto *BT = T->getAs<BuiltinType>();
  if (!BT)
    return false;
  switch (BT->getKind()) {
  case BuiltinType::Bool:
    return !Input;
  case BuiltinType::Char_S:
  case BuiltinType::Char_U:
  case BuiltinType::SChar:
  case BuiltinType::UChar:
  case BuiltinType::Short:
  case BuiltinType::UShort:
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::Long:
  case BuiltinType::ULong:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
  case BuiltinType::Float:
  case BuiltinType::Double:
  case BuiltinType::LongDouble:
    return true;
  default:
    return false;
  }
}

const Expr *ignoreWrappers(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
}

/// The function a manipulator argument names (std::endl, std::fixed, ...).
const FunctionDecl *namedFunction(const Expr *E, const DeclRefExpr **Ref) {
  E = ignoreWrappers(E);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      E = ignoreWrappers(U->getSubExpr());
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  if (!DRE)
    return nullptr;
  *Ref = DRE;
  return dyn_cast<FunctionDecl>(DRE->getDecl());
}

/// One textual replacement of a spelled range.
struct SpelledEdit {
  unsigned Begin, End;
  std::string Text;
};

/// Collects everything the stdio rewrite must change, or why it cannot.
class StreamUseChecker : public RecursiveASTVisitor<StreamUseChecker> {
public:
  explicit StreamUseChecker(const RuleContext &Ctx)
      : Ctx(Ctx), AST(Ctx.getASTContext()), SM(Ctx.getSourceManager()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D || Failed)
      return !Failed;
    if (!isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
        !isa<LinkageSpecDecl>(D) && !D->isImplicit()) {
      SourceLocation L = SM.getExpansionLoc(D->getLocation());
      if (L.isInvalid() || !SM.isWrittenInMainFile(L))
        return true;
    }
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitUsingShadowDecl(UsingShadowDecl *D) {
    const NamedDecl *T = D->getTargetDecl();
    if (streamKindOf(T) != StreamKind::None ||
        (T->getIdentifier() && isInStd(T) &&
         llvm::StringSwitch<bool>(T->getName())
             .Cases("endl", "getline", "flush", "fixed", "setprecision",
                    true)
             .Default(false)))
      fail("a using-declaration names a stream or a manipulator");
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    StreamKind K = streamKindOf(D);
    if (K != StreamKind::None) {
      ++Uses;
      if (K == StreamKind::In)
        UsesInput = true;
      if (!replaceSpelled(E->getSourceRange(),
                          K == StreamKind::In    ? "mc_in"
                          : K == StreamKind::Out ? "mc_out"
                                                 : "mc_err"))
        return fail("a stream is named where it cannot be rewritten");
      checkStreamUse(E, K);
      return !Failed;
    }
    // ios_base::sync_with_stdio(...) named without an object.
    if (const auto *MD = dyn_cast<CXXMethodDecl>(D))
      if (MD->isStatic() && MD->getIdentifier() &&
          MD->getName() == "sync_with_stdio" && isInStd(MD)) {
        ++Uses;
        if (!replaceSpelled(E->getSourceRange(), "mc_sync_with_stdio"))
          return fail("sync_with_stdio is named where it cannot be rewritten");
      }
    return true;
  }

  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    for (const NamedDecl *D : E->decls())
      if (D->getIdentifier() && isInStd(D) &&
          (D->getName() == "getline" || D->getName() == "endl")) {
        // In a template the call is resolved per instantiation, where it is
        // checked; its text is shared, so rename it here too.
        if (!replaceSpelled(E->getSourceRange(), D->getName() == "getline"
                                                     ? "mc_getline"
                                                     : "'\\n'"))
          return fail("a stream function is named where it cannot be "
                      "rewritten");
        break;
      }
    return true;
  }

  const RuleContext &Ctx;
  ASTContext &AST;
  const SourceManager &SM;
  bool Failed = false;
  std::string Reason;
  unsigned Uses = 0;
  bool UsesInput = false;
  bool NeedsString = false;
  std::vector<SpelledEdit> Edits;
  /// Declarations the rewrite stops using (operators, manipulators).
  llvm::DenseSet<const Decl *> Replaced;

private:
  bool fail(llvm::StringRef Why) {
    if (!Failed) {
      Failed = true;
      Reason = Why.str();
    }
    return false;
  }

  bool replaceSpelled(SourceRange R, llvm::StringRef Text) {
    auto Spelled = Ctx.getSpelledRange(R);
    if (!Spelled)
      return false;
    for (const SpelledEdit &E : Edits)
      if (E.Begin == Spelled->first && E.End == Spelled->second)
        return E.Text == Text;
    Edits.push_back({Spelled->first, Spelled->second, Text.str()});
    return true;
  }

  const Stmt *parentOf(const Stmt *S) {
    DynTypedNodeList Parents = AST.getParents(*S);
    if (Parents.size() != 1)
      return nullptr;
    return Parents[0].get<Stmt>();
  }

  bool isParentDecl(const Stmt *S) {
    DynTypedNodeList Parents = AST.getParents(*S);
    return Parents.size() == 1 && Parents[0].get<Decl>();
  }

  /// Checks the operand of one `<<` or `>>` link and records the renames
  /// its manipulators need.
  void checkOperand(const CXXOperatorCallExpr *Op, bool Input) {
    const FunctionDecl *Callee = Op->getDirectCallee();
    if (!Callee) {
      // A dependent call in a template: checked where it is instantiated.
      if (!Op->isTypeDependent() && !Op->isValueDependent())
        fail("an unresolved stream operator");
      return;
    }
    Replaced.insert(Callee);
    unsigned ParamIdx = isa<CXXMethodDecl>(Callee) ? 0 : 1;
    if (Callee->getNumParams() <= ParamIdx)
      return (void)fail("an unexpected stream operator");
    QualType P = Callee->getParamDecl(ParamIdx)->getType();
    const Expr *Arg = Op->getArg(1);
    if (Input) {
      if (!P->isLValueReferenceType() && !P->isPointerType())
        return (void)fail("an input manipulator");
      if (P->isPointerType()) {
        if (!isPlainChar(P->getPointeeType()) ||
            P->getPointeeType().isConstQualified())
          fail("reading into a pointer that is not char *");
        return;
      }
      QualType T = P.getNonReferenceType();
      if (isStdString(T)) {
        NeedsString = true;
        return;
      }
      if (T.isConstQualified() || !isStreamableBuiltin(T, /*Input=*/true))
        fail("reading a type the stdio helpers do not read: " +
             T.getAsString());
      return;
    }
    QualType T = P.getNonReferenceType().getCanonicalType();
    if (isStdString(T)) {
      NeedsString = true;
      return;
    }
    if (T->isPointerType()) {
      QualType Pointee = T->getPointeeType();
      if (Pointee->isFunctionType()) {
        const DeclRefExpr *Ref = nullptr;
        const FunctionDecl *M = namedFunction(Arg, &Ref);
        if (!M || !M->getIdentifier() || !isInStd(M))
          return (void)fail("an unknown stream manipulator");
        Replaced.insert(M);
        llvm::StringRef New = llvm::StringSwitch<llvm::StringRef>(M->getName())
                                  .Case("endl", "'\\n'")
                                  .Case("flush", "mc_flush")
                                  .Case("fixed", "mc_fixed")
                                  .Case("scientific", "mc_scientific")
                                  .Case("defaultfloat", "mc_defaultfloat")
                                  .Default("");
        if (New.empty())
          return (void)fail("the manipulator std::" + M->getName().str() +
                            " has no stdio equivalent here");
        if (!replaceSpelled(Ref->getSourceRange(), New))
          fail("a manipulator is named where it cannot be rewritten");
        return;
      }
      if (!isPlainChar(Pointee))
        fail("writing a pointer that is not a C string");
      return;
    }
    if (isStreamableBuiltin(T, /*Input=*/false))
      return;
    // <iomanip>'s setprecision/setw/setfill return libstdc++'s helper
    // structs; the call is renamed to ours.
    if (const auto *RD = T->getAsCXXRecordDecl()) {
      llvm::StringRef Name = RD->getIdentifier() ? RD->getName() : "";
      llvm::StringRef New = llvm::StringSwitch<llvm::StringRef>(Name)
                                .Case("_Setprecision", "mc_setprecision")
                                .Case("_Setw", "mc_setw")
                                .Case("_Setfill", "mc_setfill")
                                .Default("");
      const auto *Call = dyn_cast<CallExpr>(ignoreWrappers(Arg));
      if (!New.empty() && Call && Call->getDirectCallee()) {
        Replaced.insert(Call->getDirectCallee());
        const Expr *CalleeE = Call->getCallee()->IgnoreParenImpCasts();
        if (!replaceSpelled(CalleeE->getSourceRange(), New))
          fail("a manipulator is named where it cannot be rewritten");
        return;
      }
    }
    fail("writing a type the stdio helpers do not write: " + T.getAsString());
  }

  /// Follows a stream object up through the expressions using it; every
  /// use must be one the helpers support.
  void checkStreamUse(const Expr *E, StreamKind K) {
    bool Input = K == StreamKind::In;
    const Stmt *Cur = E;
    for (unsigned Depth = 0; Depth < 1000 && !Failed; ++Depth) {
      const Stmt *P = parentOf(Cur);
      if (!P) {
        if (!isParentDecl(Cur))
          return;
        return (void)fail("a stream initialises a declaration");
      }
      if (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
          isa<MaterializeTemporaryExpr>(P) || isa<ExprWithCleanups>(P) ||
          isa<CXXBindTemporaryExpr>(P)) {
        Cur = P;
        continue;
      }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
        OverloadedOperatorKind OK = Op->getOperator();
        bool IsObject =
            Op->getNumArgs() >= 1 && ignoreWrappers(Op->getArg(0)) ==
                                         ignoreWrappers(cast<Expr>(Cur));
        if (!IsObject)
          return (void)fail("a stream is an operand on the right");
        if (OK == OO_Exclaim)
          return;
        if ((OK == OO_LessLess && !Input) || (OK == OO_GreaterGreater && Input)) {
          checkOperand(Op, Input);
          Cur = P;
          continue;
        }
        return (void)fail("an unsupported operator on a stream");
      }
      if (const auto *ME = dyn_cast<MemberExpr>(P)) {
        const auto *Method = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        if (!Method)
          return (void)fail("a stream member that is not a function");
        if (isa<CXXConversionDecl>(Method))
          return; // explicit operator bool: ours has one.
        llvm::StringRef Name =
            Method->getIdentifier() ? Method->getName() : "";
        bool Chains = false;
        bool Known =
            Input ? llvm::StringSwitch<bool>(Name)
                        .Cases("tie", "sync_with_stdio", "eof", "fail", "good",
                               "clear", true)
                        .Case("peek", true)
                        .Default(false)
                  : llvm::StringSwitch<bool>(Name)
                        .Cases("tie", "sync_with_stdio", "precision", "width",
                               "fill", true)
                        .Default(false);
        if (Input && (Name == "get" || Name == "ignore")) {
          Known = true;
          Chains = Method->getReturnType()->isReferenceType();
          if (Name == "get" && Method->getNumParams() > 1)
            Known = false;
        }
        if (!Input && (Name == "flush" || Name == "put" || Name == "write")) {
          Known = true;
          Chains = true;
        }
        if (!Known)
          return (void)fail("the stream member '" + Name.str() +
                            "' has no stdio equivalent here");
        const Stmt *Call = parentOf(ME);
        if (!Call || !isa<CXXMemberCallExpr>(Call))
          return (void)fail("a stream member is not called");
        if (!Chains)
          return;
        Cur = Call;
        continue;
      }
      if (const auto *Call = dyn_cast<CallExpr>(P)) {
        const FunctionDecl *FD = Call->getDirectCallee();
        bool IsGetline = FD && FD->getIdentifier() &&
                         FD->getName() == "getline" && isInStd(FD) && Input &&
                         Call->getNumArgs() >= 2 &&
                         ignoreWrappers(Call->getArg(0)) ==
                             ignoreWrappers(cast<Expr>(Cur)) &&
                         isStdString(Call->getArg(1)->getType());
        if (!IsGetline)
          return (void)fail("a stream is passed to a function");
        if (Call->getNumArgs() == 3 &&
            !isPlainChar(FD->getParamDecl(2)->getType()))
          return (void)fail("getline with a delimiter that is not a char");
        NeedsString = true;
        Replaced.insert(FD);
        if (!replaceSpelled(Call->getCallee()->IgnoreParenImpCasts()
                                ->getSourceRange(),
                            "mc_getline"))
          return (void)fail("getline is named where it cannot be rewritten");
        Cur = P;
        continue;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
        if (BO->getOpcode() != BO_Comma)
          return (void)fail("a stream is an operand of a binary operator");
        if (BO->getLHS() == Cur)
          return; // Value discarded.
        Cur = P;
        continue;
      }
      if (const auto *Cast = dyn_cast<ExplicitCastExpr>(P)) {
        if (Cast->getType()->isVoidType() || Cast->getType()->isBooleanType())
          return;
        return (void)fail("a stream is cast");
      }
      if (isa<Expr>(P) || isa<ReturnStmt>(P) || isa<DeclStmt>(P))
        return (void)fail("a stream is used as a value");
      // A statement: the value is discarded.
      return;
    }
  }
};

/// The stdio-based stand-ins for the standard streams. They mirror the
/// overloads of std::istream/std::ostream, so a call picks the same
/// conversion it picked before; formatting follows the standard's
/// definition in terms of printf (%.*g with precision 6 by default).
const char *const HelperHead = R"cpp(// clang-maxcode fast-io: the standard streams on top of stdio, so that the
// program needs neither <iostream> nor its start-up.
#include <cstdio>
#include <cstdlib>
#include <cstring>
)cpp";

const char *const HelperStringInclude = "#include <string>\n";

const char *const HelperOutput = R"cpp(struct mc_ostream {
  int Fd, Prec, Width;
  char Fmt, Fill;
  int precision() const { return Prec; }
  int precision(int P) { int Old = Prec; Prec = P; return Old; }
  int width() const { return Width; }
  int width(int W) { int Old = Width; Width = W; return Old; }
  char fill() const { return Fill; }
  char fill(char C) { char Old = Fill; Fill = C; return Old; }
  mc_ostream &flush() { std::fflush(Fd == 2 ? stderr : stdout); return *this; }
  mc_ostream &put(char C);
  mc_ostream &write(const char *S, long N);
  template <class T> void *tie(T) { return 0; }
  void *tie() const { return 0; }
  static bool sync_with_stdio(bool = true) { return true; }
};
static mc_ostream mc_out = {1, 6, 0, 'g', ' '};
static mc_ostream mc_err = {2, 6, 0, 'g', ' '};
static inline bool mc_sync_with_stdio(bool = true) { return true; }
static inline void mc_write(mc_ostream &O, const char *S, std::size_t N) {
  std::FILE *F = O.Fd == 2 ? stderr : stdout;
  for (std::size_t I = N; O.Width > 0 && I < std::size_t(O.Width); ++I)
    std::putc(O.Fill, F);
  O.Width = 0;
  std::fwrite(S, 1, N, F);
}
inline mc_ostream &mc_ostream::put(char C) { mc_write(*this, &C, 1); return *this; }
inline mc_ostream &mc_ostream::write(const char *S, long N) {
  int W = Width; Width = 0; mc_write(*this, S, std::size_t(N)); Width = W;
  return *this;
}
static inline mc_ostream &mc_put_uint(mc_ostream &O, unsigned long long V,
                                      bool Neg) {
  char B[24];
  int I = 24;
  do { B[--I] = char('0' + V % 10); V /= 10; } while (V);
  if (Neg) B[--I] = '-';
  mc_write(O, B + I, std::size_t(24 - I));
  return O;
}
template <class T> static inline mc_ostream &mc_put_int(mc_ostream &O, T V) {
  unsigned long long U = (unsigned long long)V;
  return mc_put_uint(O, V < 0 ? 0ULL - U : U, V < 0);
}
static inline mc_ostream &operator<<(mc_ostream &O, bool V) { return mc_put_uint(O, V, false); }
static inline mc_ostream &operator<<(mc_ostream &O, short V) { return mc_put_int(O, V); }
static inline mc_ostream &operator<<(mc_ostream &O, unsigned short V) { return mc_put_uint(O, V, false); }
static inline mc_ostream &operator<<(mc_ostream &O, int V) { return mc_put_int(O, V); }
static inline mc_ostream &operator<<(mc_ostream &O, unsigned V) { return mc_put_uint(O, V, false); }
static inline mc_ostream &operator<<(mc_ostream &O, long V) { return mc_put_int(O, V); }
static inline mc_ostream &operator<<(mc_ostream &O, unsigned long V) { return mc_put_uint(O, V, false); }
static inline mc_ostream &operator<<(mc_ostream &O, long long V) { return mc_put_int(O, V); }
static inline mc_ostream &operator<<(mc_ostream &O, unsigned long long V) { return mc_put_uint(O, V, false); }
template <class T>
static inline mc_ostream &mc_put_float(mc_ostream &O, T V, const char *F) {
  char B[128];
  int N = std::snprintf(B, sizeof B, F, O.Prec, V);
  if (N < 0) return O;
  if (std::size_t(N) < sizeof B) { mc_write(O, B, std::size_t(N)); return O; }
  char *H = (char *)std::malloc(std::size_t(N) + 1);
  if (!H) return O;
  std::snprintf(H, std::size_t(N) + 1, F, O.Prec, V);
  mc_write(O, H, std::size_t(N));
  std::free(H);
  return O;
}
static inline mc_ostream &operator<<(mc_ostream &O, double V) {
  return mc_put_float(O, V, O.Fmt == 'f' ? "%.*f" : O.Fmt == 'e' ? "%.*e" : "%.*g");
}
static inline mc_ostream &operator<<(mc_ostream &O, float V) { return O << double(V); }
static inline mc_ostream &operator<<(mc_ostream &O, long double V) {
  return mc_put_float(O, V, O.Fmt == 'f' ? "%.*Lf" : O.Fmt == 'e' ? "%.*Le" : "%.*Lg");
}
static inline mc_ostream &operator<<(mc_ostream &O, char C) { mc_write(O, &C, 1); return O; }
static inline mc_ostream &operator<<(mc_ostream &O, signed char C) { return O << char(C); }
static inline mc_ostream &operator<<(mc_ostream &O, unsigned char C) { return O << char(C); }
static inline mc_ostream &operator<<(mc_ostream &O, const char *S) { mc_write(O, S, std::strlen(S)); return O; }
struct mc_manip { char Kind; int N; };
static inline mc_manip mc_setprecision(int N) { mc_manip M = {'p', N}; return M; }
static inline mc_manip mc_setw(int N) { mc_manip M = {'w', N}; return M; }
static inline mc_manip mc_setfill(char C) { mc_manip M = {'c', C}; return M; }
static const mc_manip mc_fixed = {'f', 0}, mc_scientific = {'e', 0},
                      mc_defaultfloat = {'g', 0}, mc_flush = {'F', 0};
static inline mc_ostream &operator<<(mc_ostream &O, mc_manip M) {
  if (M.Kind == 'p') O.Prec = M.N;
  else if (M.Kind == 'w') O.Width = M.N;
  else if (M.Kind == 'c') O.Fill = char(M.N);
  else if (M.Kind == 'F') O.flush();
  else O.Fmt = M.Kind;
  return O;
}
)cpp";

const char *const HelperStringOutput = R"cpp(static inline mc_ostream &operator<<(mc_ostream &O, const std::string &S) {
  mc_write(O, S.data(), S.size());
  return O;
}
)cpp";

const char *const HelperInput = R"cpp(static inline int mc_getc() {
#if defined(__unix__) || defined(__APPLE__)
  return getc_unlocked(stdin);
#else
  return std::getc(stdin);
#endif
}
static inline bool mc_space(int C) { return C == ' ' || (C >= '\t' && C <= '\r'); }
struct mc_istream {
  bool Fail, Eof;
  explicit operator bool() const { return !Fail; }
  bool operator!() const { return Fail; }
  bool fail() const { return Fail; }
  bool eof() const { return Eof; }
  bool good() const { return !Fail && !Eof; }
  void clear() { Fail = Eof = false; }
  template <class T> void *tie(T) { return 0; }
  void *tie() const { return 0; }
  static bool sync_with_stdio(bool = true) { return true; }
  int get() {
    int C = mc_getc();
    if (C == EOF) Fail = Eof = true;
    return C;
  }
  mc_istream &get(char &C) {
    int X = get();
    if (X != EOF) C = char(X);
    return *this;
  }
  int peek() {
    int C = mc_getc();
    if (C == EOF) Eof = true; else std::ungetc(C, stdin);
    return C;
  }
  mc_istream &ignore(long N = 1, int Delim = EOF) {
    for (; N > 0; --N) {
      int C = mc_getc();
      if (C == EOF) { Eof = true; break; }
      if (C == Delim) break;
    }
    return *this;
  }
};
static mc_istream mc_in = {false, false};
static inline int mc_skip(mc_istream &I) {
  int C;
  do C = mc_getc(); while (mc_space(C));
  if (C == EOF) I.Fail = I.Eof = true;
  return C;
}
static inline void mc_unget(mc_istream &I, int C) {
  if (C == EOF) I.Eof = true; else std::ungetc(C, stdin);
}
template <class T> static inline mc_istream &mc_get_int(mc_istream &I, T &V) {
  if (I.Fail) return I;
  int C = mc_skip(I);
  if (C == EOF) return I;
  bool Neg = false;
  if (C == '-' || C == '+') { Neg = C == '-'; C = mc_getc(); }
  if (C < '0' || C > '9') { mc_unget(I, C); I.Fail = true; V = 0; return I; }
  unsigned long long X = 0;
  do { X = X * 10 + unsigned(C - '0'); C = mc_getc(); } while (C >= '0' && C <= '9');
  mc_unget(I, C);
  V = Neg ? T(0ULL - X) : T(X);
  return I;
}
template <class T>
static inline mc_istream &mc_get_float(mc_istream &I, T &V, const char *F) {
  if (I.Fail) return I;
  int C = mc_skip(I);
  if (C == EOF) return I;
  std::ungetc(C, stdin);
  if (std::scanf(F, &V) != 1) { I.Fail = true; V = 0; }
  return I;
}
template <class T> static inline mc_istream &mc_get_char(mc_istream &I, T &V) {
  if (I.Fail) return I;
  int C = mc_skip(I);
  if (C != EOF) V = T(C);
  return I;
}
static inline mc_istream &operator>>(mc_istream &I, short &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, unsigned short &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, int &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, unsigned &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, long &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, unsigned long &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, long long &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, unsigned long long &V) { return mc_get_int(I, V); }
static inline mc_istream &operator>>(mc_istream &I, float &V) { return mc_get_float(I, V, "%f"); }
static inline mc_istream &operator>>(mc_istream &I, double &V) { return mc_get_float(I, V, "%lf"); }
static inline mc_istream &operator>>(mc_istream &I, long double &V) { return mc_get_float(I, V, "%Lf"); }
static inline mc_istream &operator>>(mc_istream &I, char &V) { return mc_get_char(I, V); }
static inline mc_istream &operator>>(mc_istream &I, signed char &V) { return mc_get_char(I, V); }
static inline mc_istream &operator>>(mc_istream &I, unsigned char &V) { return mc_get_char(I, V); }
static inline mc_istream &operator>>(mc_istream &I, char *S) {
  if (I.Fail) return I;
  int C = mc_skip(I);
  if (C == EOF) return I;
  do { *S++ = char(C); C = mc_getc(); } while (C != EOF && !mc_space(C));
  *S = 0;
  mc_unget(I, C);
  return I;
}
)cpp";

const char *const HelperStringInput = R"cpp(static inline mc_istream &operator>>(mc_istream &I, std::string &S) {
  if (I.Fail) return I;
  int C = mc_skip(I);
  if (C == EOF) return I;
  S.clear();
  char B[256];
  std::size_t N = 0;
  do {
    if (N == sizeof B) { S.append(B, N); N = 0; }
    B[N++] = char(C);
    C = mc_getc();
  } while (C != EOF && !mc_space(C));
  S.append(B, N);
  mc_unget(I, C);
  return I;
}
static inline mc_istream &mc_getline(mc_istream &I, std::string &S, char Delim = '\n') {
  if (I.Fail) return I;
  S.clear();
  std::size_t N = 0;
  int C = mc_getc();
  for (; C != EOF && C != Delim; C = mc_getc(), ++N) S.push_back(char(C));
  if (C == EOF) { I.Eof = true; if (N == 0) I.Fail = true; }
  return I;
}
)cpp";

/// The helpers; \p Present are headers the file includes already (or will),
/// which the helpers do not include again.
std::string helperText(bool Input, bool Strings,
                       llvm::ArrayRef<std::string> Present) {
  std::string Out;
  for (llvm::StringRef Line : llvm::split(llvm::StringRef(HelperHead), '\n')) {
    llvm::StringRef Header = Line;
    if (Line.empty() || (Header.consume_front("#include ") &&
                         llvm::is_contained(Present, Header)))
      continue;
    Out += Line;
    Out += "\n";
  }
  if (Strings && !llvm::is_contained(Present, "<string>"))
    Out += HelperStringInclude;
  Out += HelperOutput;
  if (Strings)
    Out += HelperStringOutput;
  if (Input) {
    Out += HelperInput;
    if (Strings)
      Out += HelperStringInput;
  }
  return Out;
}

/// Names the helpers define; a file using any of them is left alone.
const char *const HelperNames[] = {"mc_in",        "mc_out",      "mc_err",
                                   "mc_ostream",   "mc_istream",  "mc_getline",
                                   "mc_write",     "mc_manip",    "mc_getc",
                                   "mc_sync_with_stdio"};

bool isIOStreamHeader(llvm::StringRef Name) {
  return Name == "iostream" || Name == "bits/stdc++.h";
}

/// True when the file calls C stdio itself (printf, scanf, puts, ...): the
/// streams must then stay synchronised with it.
bool usesCStdio(const RuleContext &Ctx) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const SourceManager &SM;
    bool Found = false;
    explicit Finder(const SourceManager &SM) : SM(SM) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      const auto *FD = dyn_cast<FunctionDecl>(E->getDecl());
      if (!FD || !FD->getIdentifier() ||
          !SM.isWrittenInMainFile(SM.getExpansionLoc(E->getBeginLoc())))
        return true;
      Found |= llvm::StringSwitch<bool>(FD->getName())
                   .Cases("printf", "scanf", "puts", "putchar", "getchar",
                          true)
                   .Cases("fprintf", "fscanf", "fputs", "fgets", "gets", true)
                   .Cases("putc", "getc", "fwrite", "fread", "fflush", true)
                   .Default(false);
      return true;
    }
  } F(Ctx.getSourceManager());
  F.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  return F.Found;
}

/// Replaces the iostream includes with \p Headers and, when \p Helper is
/// given, adds it at \p HelperAt.
bool rewriteIncludes(const RuleContext &Ctx, RuleEdit &E,
                     llvm::ArrayRef<IncludeLine> Includes,
                     llvm::ArrayRef<unsigned> Removed,
                     llvm::ArrayRef<std::string> Headers,
                     llvm::StringRef Helper, unsigned HelperAt) {
  std::string HeaderText;
  for (const std::string &H : Headers)
    HeaderText += "#include " + H + "\n";
  bool HelperPlaced = Helper.empty();
  for (unsigned N = 0; N < Removed.size(); ++N) {
    const IncludeLine &L = Includes[Removed[N]];
    std::string Text = N == 0 ? HeaderText : "";
    if (!HelperPlaced && HelperAt == L.LineEnd) {
      Text += Helper;
      HelperPlaced = true;
    }
    if (!addReplacement(E, Ctx, L.LineBegin, L.LineEnd - L.LineBegin, Text))
      return false;
  }
  if (!HelperPlaced)
    return addReplacement(E, Ctx, HelperAt, 0, Helper);
  return true;
}

class FastIORule : public Rule {
public:
  FastIORule()
      : Rule("fast-io", "stream I/O on stdio without <iostream>; else "
                        "sync_with_stdio(false) and an untied cin") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus() || Ctx.isCuda())
      return;
    StreamUseChecker Checker(Ctx);
    Checker.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
    if (Checker.Uses == 0)
      return;
    if (!Checker.Failed && proposeStdio(Ctx, Checker, Out))
      return;
    proposeUnsync(Ctx, Out);
  }

private:
  bool proposeStdio(const RuleContext &Ctx, const StreamUseChecker &Checker,
                    std::vector<RuleEdit> &Out) const {
    for (const char *Name : HelperNames)
      if (Ctx.getFreshName(Name) != Name)
        return false;
    std::vector<IncludeLine> Includes = findIncludeLines(Ctx);
    std::vector<unsigned> Removed;
    for (unsigned I = 0; I < Includes.size(); ++I)
      if (Includes[I].Angled && isIOStreamHeader(Includes[I].Name))
        Removed.push_back(I);
    std::vector<std::string> Headers = findHeadersNeededWithout(
        Ctx, Includes, Removed, [&](const Decl *D, SourceLocation Use) {
          if (Checker.Replaced.contains(D) ||
              streamKindOf(D) != StreamKind::None)
            return true;
          // Names inside rewritten text (the `ios` of ios::sync_with_stdio)
          // are gone from the variant.
          auto R = Ctx.getSpelledRange(SourceRange(Use, Use));
          return R && llvm::any_of(Checker.Edits, [&](const SpelledEdit &S) {
                   return R->first >= S.Begin && R->second <= S.End;
                 });
        });

    // The helpers go after the includes and before the program's macros;
    // under the target scope, right before the target.
    std::optional<unsigned> At;
    if (Ctx.getOptions().Scope == EditScope::Target) {
      At = Ctx.getTarget().BeginOffset;
      for (const SpelledEdit &S : Checker.Edits)
        if (S.Begin < Ctx.getEditBegin() || S.End > Ctx.getEditEnd())
          return false;
    } else {
      At = findHelperInsertionPoint(Ctx);
    }
    if (!At)
      return false;
    std::vector<std::string> Present = Headers;
    for (unsigned I = 0; I < Includes.size(); ++I)
      if (Includes[I].Angled && !llvm::is_contained(Removed, I))
        Present.push_back("<" + Includes[I].Name + ">");
    std::string Helper =
        helperText(Checker.UsesInput, Checker.NeedsString, Present);
    if (!helperIsMacroSafe(Ctx, Helper, *At))
      return false;

    RuleEdit E = makeEdit("", 90);
    E.Group = "fast-io";
    for (const SpelledEdit &S : Checker.Edits)
      if (!addReplacement(E, Ctx, S.Begin, S.End - S.Begin, S.Text))
        return false;
    if (!rewriteIncludes(Ctx, E, Includes, Removed, Headers, Helper, *At))
      return false;
    std::string Desc =
        llvm::formatv("stream I/O on stdio ({0} stream use{1})",
                      Checker.Uses, Checker.Uses == 1 ? "" : "s");
    if (!Removed.empty())
      Desc += llvm::formatv(", <iostream> removed ({0} header{1} added)",
                            Headers.size(), Headers.size() == 1 ? "" : "s");
    E.Description = Desc;
    Out.push_back(std::move(E));
    return true;
  }

  void proposeUnsync(const RuleContext &Ctx,
                     std::vector<RuleEdit> &Out) const {
    const FunctionDecl *Main = nullptr;
    for (const FunctionDecl *FD : editableFunctions(Ctx))
      if (FD->isMain())
        Main = FD;
    if (!Main || usesCStdio(Ctx))
      return;
    // Already unsynchronised?
    if (Ctx.getCode().contains("sync_with_stdio"))
      return;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Main->getBody());
    if (!Body)
      return;
    auto LBrace = Ctx.getFileOffset(Body->getLBracLoc());
    if (!LBrace)
      return;
    RuleEdit E = makeEdit("std::ios::sync_with_stdio(false) and an untied "
                          "std::cin at the start of main",
                          45);
    E.Group = "fast-io";
    if (!addReplacement(E, Ctx, *LBrace + 1, 0,
                        "\n  std::ios::sync_with_stdio(false);\n"
                        "  std::cin.tie(nullptr);"))
      return;
    Out.push_back(std::move(E));
  }
};

class EndlToNewlineRule : public Rule {
public:
  EndlToNewlineRule()
      : Rule("endl-to-newline",
             "std::endl to '\\n': no flush of the stream per line") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus())
      return;
    struct Finder : RecursiveASTVisitor<Finder> {
      const RuleContext &Ctx;
      RuleEdit &E;
      unsigned Count = 0;
      bool Ok = true;
      Finder(const RuleContext &Ctx, RuleEdit &E) : Ctx(Ctx), E(E) {}
      bool shouldVisitTemplateInstantiations() const { return true; }
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        const auto *FD = dyn_cast<FunctionDecl>(D->getDecl());
        if (!FD || !FD->getIdentifier() || FD->getName() != "endl" ||
            !isInStd(FD))
          return true;
        auto R = Ctx.getSpelledRange(D->getSourceRange());
        if (!R || R->first < Ctx.getEditBegin() || R->second > Ctx.getEditEnd())
          return true;
        if (!addReplacement(E, Ctx, R->first, R->second - R->first, "'\\n'"))
          Ok = false;
        ++Count;
        return true;
      }
    };
    RuleEdit E = makeEdit("", 50);
    Finder F(Ctx, E);
    F.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
    if (!F.Ok || E.Replaces.empty())
      return;
    E.Description = llvm::formatv("std::endl -> '\\n' ({0} place{1})",
                                  E.Replaces.size(),
                                  E.Replaces.size() == 1 ? "" : "s");
    Out.push_back(std::move(E));
  }
};

class PruneIncludesRule : public Rule {
public:
  PruneIncludesRule()
      : Rule("prune-includes",
             "<iostream> or <bits/stdc++.h> in a file without stream I/O "
             "to the headers it uses") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus() || Ctx.isCuda())
      return;
    StreamUseChecker Checker(Ctx);
    Checker.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
    if (Checker.Uses != 0)
      return;
    std::vector<IncludeLine> Includes = findIncludeLines(Ctx);
    std::vector<unsigned> Removed;
    for (unsigned I = 0; I < Includes.size(); ++I)
      if (Includes[I].Angled && isIOStreamHeader(Includes[I].Name))
        Removed.push_back(I);
    if (Removed.empty())
      return;
    std::vector<std::string> Headers = findHeadersNeededWithout(
        Ctx, Includes, Removed, [](const Decl *, SourceLocation) { return false; });
    RuleEdit E = makeEdit("", 85);
    if (!rewriteIncludes(Ctx, E, Includes, Removed, Headers, "", 0))
      return;
    std::string Names;
    for (const std::string &H : Headers)
      Names += (Names.empty() ? "" : ", ") + H;
    E.Description = llvm::formatv(
        "{0} -> {1}", Includes[Removed.front()].Angled
                          ? "<" + Includes[Removed.front()].Name + ">"
                          : Includes[Removed.front()].Name,
        Names.empty() ? std::string("no header") : Names);
    Out.push_back(std::move(E));
  }
};

/// True when constructing \p T may need the C++ runtime (allocation,
/// non-trivial constructors or destructors): the only reason to remove an
/// unused global.
bool needsRuntime(QualType T) {
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && RD->hasDefinition() &&
         (!RD->hasTrivialDestructor() ||
          !RD->hasTrivialDefaultConstructor());
}

bool isStdRecord(QualType T) {
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && isInStd(RD);
}

/// The initializer only builds standard-library values from constants.
bool isPureStdInit(const Expr *Init) {
  if (!Init)
    return true;
  struct Checker : RecursiveASTVisitor<Checker> {
    bool Ok = true;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !isInStd(FD))
        Ok = false;
      return Ok;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      if (!isInStd(C->getConstructor()))
        Ok = false;
      return Ok;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      const auto *VD = dyn_cast<VarDecl>(E->getDecl());
      if (VD && !VD->getType().isConstQualified())
        Ok = false;
      return Ok;
    }
    bool VisitCXXNewExpr(CXXNewExpr *) { return Ok = false; }
    bool VisitLambdaExpr(LambdaExpr *) { return Ok = false; }
  } C;
  C.TraverseStmt(const_cast<Expr *>(Init));
  return C.Ok;
}

class RemoveUnusedGlobalsRule : public Rule {
public:
  RemoveUnusedGlobalsRule()
      : Rule("remove-unused-globals",
             "remove unreferenced globals of standard-library types (their "
             "construction alone needs the C++ runtime)") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus())
      return;
    RuleEdit E = makeEdit("", 55);
    std::vector<std::string> Names;
    llvm::DenseMap<unsigned, unsigned> DeclsAt;
    std::vector<const VarDecl *> Candidates;
    const SourceManager &SM = Ctx.getSourceManager();
    for (const Decl *D : Ctx.getASTContext().getTranslationUnitDecl()->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue;
      SourceLocation B = VD->getBeginLoc();
      if (B.isFileID() && SM.isWrittenInMainFile(B))
        ++DeclsAt[SM.getFileOffset(B)];
      if (VD->isReferenced() || VD->isUsed() || VD->hasExternalStorage() ||
          !needsRuntime(VD->getType()) || !isStdRecord(VD->getType()) ||
          !isPureStdInit(VD->getInit()) || !Ctx.isEditable(VD->getSourceRange()))
        continue;
      Candidates.push_back(VD);
    }
    llvm::StringRef Code = Ctx.getCode();
    for (const VarDecl *VD : Candidates) {
      auto R = Ctx.getFileRange(VD->getSourceRange());
      // One declarator per declaration: `vector<int> a, b;` is left alone.
      if (!R || DeclsAt[R->first] != 1)
        continue;
      size_t Semi = R->second;
      while (Semi < Code.size() && (Code[Semi] == ' ' || Code[Semi] == '\t'))
        ++Semi;
      if (Semi >= Code.size() || Code[Semi] != ';')
        continue;
      unsigned Begin = R->first, End = Semi + 1;
      // Take the whole line when the declaration is alone on it.
      size_t LineBegin = Code.rfind('\n', Begin);
      LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
      size_t LineEnd = Code.find('\n', End);
      if (Code.slice(LineBegin, Begin).trim().empty() &&
          (LineEnd == llvm::StringRef::npos ||
           Code.slice(End, LineEnd).trim().empty())) {
        Begin = LineBegin;
        End = LineEnd == llvm::StringRef::npos ? Code.size() : LineEnd + 1;
      }
      if (!addReplacement(E, Ctx, Begin, End - Begin, ""))
        return;
      Names.push_back(VD->getNameAsString());
    }
    if (Names.empty())
      return;
    std::string List;
    for (const std::string &N : Names)
      List += (List.empty() ? "" : ", ") + N;
    E.Description = "remove unused global" +
                    std::string(Names.size() == 1 ? " " : "s ") + List;
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createFastIORule() {
  return std::make_unique<FastIORule>();
}
std::unique_ptr<Rule> maxcode::createEndlToNewlineRule() {
  return std::make_unique<EndlToNewlineRule>();
}
std::unique_ptr<Rule> maxcode::createPruneIncludesRule() {
  return std::make_unique<PruneIncludesRule>();
}
std::unique_ptr<Rule> maxcode::createRemoveUnusedGlobalsRule() {
  return std::make_unique<RemoveUnusedGlobalsRule>();
}
