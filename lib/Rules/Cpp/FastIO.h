//===-- FastIO.h - fast-io's view of a program's streams --------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to fast-io: the analysis that finds every stream statement of a
/// file and what printf or scanf would say for it (FastIOAnalysis.cpp); the
/// edits are the rule's (FastIO.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_RULES_CPP_FASTIO_H
#define MAXCODE_LIB_RULES_CPP_FASTIO_H

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

namespace maxcode {
namespace fastio {

enum class StreamKind { None, In, Out, Err };

/// Which standard stream a declaration is, if any.
StreamKind streamKindOf(const clang::Decl *D);

const clang::Expr *ignoreWrappers(const clang::Expr *E);

/// The parent of \p S above implicit nodes and parentheses, and the child of
/// it on the way.
std::pair<const clang::Stmt *, const clang::Stmt *>
realParent(clang::ASTContext &AST, const clang::Stmt *S);

/// The function a manipulator argument names (std::endl, std::fixed, ...).
const clang::FunctionDecl *namedFunction(const clang::Expr *E);

/// \p Bytes as the inside of a C string literal, with printf's `%`
/// doubled when \p Format.
std::string cLiteral(llvm::StringRef Bytes, bool Format);

/// The floating-point format of a stream: the float field and precision.
struct FloatFormat {
  char Field = 'g'; ///< 'g' (default), 'f' (fixed), 'e' (scientific).
  int Precision = 6;
  bool operator==(const FloatFormat &O) const {
    return Field == O.Field && Precision == O.Precision;
  }
};

/// One operand of a stream chain.
struct Operand {
  const clang::Expr *E = nullptr;
  /// Text folded into the format (a literal, endl); empty for an argument.
  std::string Folded;
  bool IsFolded = false;
  /// A manipulator that only changes the format (fixed, setprecision).
  bool IsManipulator = false;
  std::optional<char> SetField;
  std::optional<int> SetPrecision;
  /// For arguments: the conversion, and what the argument needs around it.
  std::string Spec;
  std::string Prefix, Suffix;
  bool IsDouble = false;
};

/// A `cin >> a >> b` or `cout << x << y` expression.
struct Chain {
  StreamKind Kind = StreamKind::None;
  const clang::Expr *Top = nullptr;           ///< The outermost `<<`/`>>`.
  const clang::DeclRefExpr *Stream = nullptr; ///< `cin`.
  std::vector<Operand> Operands;              ///< In source order.
  const clang::FunctionDecl *Function = nullptr;
  /// What replaces the whole expression's value: the expression itself when
  /// its value is discarded; `!(cin >> x)` or the bool conversion of a
  /// condition otherwise.
  const clang::Expr *Replaced = nullptr;
  enum { Discarded, AsBool, AsNot } Context = Discarded;
  bool NeedsParens = false;
  /// The statement of a block the chain is, when it is one.
  const clang::Stmt *Statement = nullptr;
};

/// True when a replacement of \p E covers the file offset \p Off.
bool isReplaced(const RuleEdit &E, unsigned Off);

/// Everything the stdio rewrite needs, or why it cannot be done.
struct Analysis : clang::RecursiveASTVisitor<Analysis> {
  const RuleContext &Ctx;
  clang::ASTContext &AST;
  const clang::SourceManager &SM;
  bool Failed = false;
  std::string Reason;
  unsigned StreamUses = 0;
  bool AlreadyUnsynced = false;
  bool UsesCStdio = false;
  std::vector<Chain> Chains;
  /// Statements that only set the streams up (sync_with_stdio, tie).
  std::vector<const clang::Stmt *> SetUp;
  /// Stream names in templates, which instantiations must have rewritten.
  std::vector<const clang::DeclRefExpr *> InPatterns;
  llvm::SmallPtrSet<const clang::Expr *, 16> SeenTops;
  std::vector<CharBuffer> Buffers;
  const clang::FunctionDecl *Main = nullptr;

  explicit Analysis(const RuleContext &Ctx)
      : Ctx(Ctx), AST(Ctx.getASTContext()), SM(Ctx.getSourceManager()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  void run();

  bool TraverseDecl(clang::Decl *D);

  bool fail(llvm::StringRef Why);

  const clang::FunctionDecl *enclosingFunction(const clang::Stmt *S);

  bool VisitCallExpr(clang::CallExpr *C);

  bool VisitDeclRefExpr(clang::DeclRefExpr *E);

  /// A call that sets the streams up: its statement goes.
  void setUp(const clang::Expr *Call);

  static bool isSetUpCall(const clang::Expr *E);

  static bool isSetUpExpr(const clang::Expr *E);

  void classify(const clang::DeclRefExpr *E, StreamKind K,
                const clang::Stmt *First);

  /// The operand of link \p L, appended to \p C.
  bool operand(Chain &C, const clang::CXXOperatorCallExpr *L);

  const CharBuffer *bufferOf(const clang::Expr *E);

  bool input(Chain &C, Operand &O, clang::QualType P);

  bool output(Chain &C, Operand &O, clang::QualType P);

  /// An output manipulator (std::endl, std::fixed, ...), \p Arg.
  bool manipulator(Chain &C, Operand &O, const clang::Expr *Arg);

  /// An output operand of builtin type \p T: its printf conversion.
  bool outputBuiltin(Chain &C, Operand &O, clang::QualType T);

  static bool isPlainChar(clang::QualType T);

  /// Where the chain's value goes.
  bool context(Chain &C);
};

} // namespace fastio
} // namespace maxcode

#endif // MAXCODE_LIB_RULES_CPP_FASTIO_H
