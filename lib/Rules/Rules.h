//===-- Rules.h - What the rule implementations share -----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Rules: the constructor of each rule (one file each under
/// Cpp/ and Cuda/) and the helpers they share: statement ranges from the AST,
/// the main file's includes as the SourceManager recorded them, the standard
/// headers a file still needs, and the analyses (is it modified, is it free
/// of side effects) the rules decide with.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_RULES_RULES_H
#define MAXCODE_LIB_RULES_RULES_H

#include "maxcode/Rules/Rule.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <functional>

namespace maxcode {

// The C++ rules.
std::unique_ptr<Rule> createFastIORule();
std::unique_ptr<Rule> createEndlToNewlineRule();
std::unique_ptr<Rule> createBlockIORule();
std::unique_ptr<Rule> createBranchToSelectRule();
std::unique_ptr<Rule> createLoopInterchangeRule();
std::unique_ptr<Rule> createPruneIncludesRule();
std::unique_ptr<Rule> createRemoveUnusedGlobalsRule();
std::unique_ptr<Rule> createStaticMainArraysRule();
std::unique_ptr<Rule> createStringToCharBufferRule();
std::unique_ptr<Rule> createHoistLoopInvariantRule();
std::unique_ptr<Rule> createAccumulateInLocalRule();
std::unique_ptr<Rule> createReserveBeforePushBackRule();
std::unique_ptr<Rule> createLoopUnrollPragmaRule();
std::unique_ptr<Rule> createConstRefParamRule();
std::unique_ptr<Rule> createRangeForCopyRule();
std::unique_ptr<Rule> createUnnecessaryCopyInitRule();
std::unique_ptr<Rule> createStringAppendRule();
// C++: clang-tidy's other performance-* checks, as measured rules.
std::unique_ptr<Rule> createFasterStringFindRule();
std::unique_ptr<Rule> createTypePromotionInMathFnRule();
std::unique_ptr<Rule> createInefficientAlgorithmRule();
std::unique_ptr<Rule> createImplicitConversionInLoopRule();
std::unique_ptr<Rule> createMoveConstArgRule();
std::unique_ptr<Rule> createNoAutomaticMoveRule();
std::unique_ptr<Rule> createMoveConstructorInitRule();
std::unique_ptr<Rule> createNoexceptMoveConstructorRule();
std::unique_ptr<Rule> createNoexceptSwapRule();
std::unique_ptr<Rule> createNoexceptDestructorRule();
std::unique_ptr<Rule> createTriviallyDestructibleRule();
std::unique_ptr<Rule> createMapToUnorderedMapRule();
std::unique_ptr<Rule> createByteKeyTableRule();
std::unique_ptr<Rule> createSetToSortedVectorRule();
std::unique_ptr<Rule> createSubstrCompareRule();
std::unique_ptr<Rule> createPowToMultiplyRule();
std::unique_ptr<Rule> createMemoizeRecursionRule();
std::unique_ptr<Rule> createMonotoneLoopExitRule();
std::unique_ptr<Rule> createGccPragmasRule();
std::unique_ptr<Rule> createRestrictPointerParamsRule();

// The CUDA rules.
std::unique_ptr<Rule> createCudaLaunchConfigRule();
std::unique_ptr<Rule> createCudaLaunchBoundsRule();
std::unique_ptr<Rule> createCudaUnrollRule();
std::unique_ptr<Rule> createCudaRestrictLdgRule();
std::unique_ptr<Rule> createCudaFastMathRule();
std::unique_ptr<Rule> createCudaGridStrideRule();
std::unique_ptr<Rule> createCudaVectorizeFloat4Rule();
std::unique_ptr<Rule> createCudaSharedMemoryTilingRule();
std::unique_ptr<Rule> createCudaWarpReduceRule();

// Knob tuning.
std::unique_ptr<Rule> createTuneConstantsRule();

//===----------------------------------------------------------------------===//
// Statements and lines, from the AST and the lexer.
//===----------------------------------------------------------------------===//

/// The main-file range of statement \p S through its semicolon; a statement
/// that starts with a macro (`rep(i, n) ...`) starts at the macro's name.
/// None when it is not editable text of the main file.
std::optional<clang::CharSourceRange> statementRange(const RuleContext &Ctx,
                                                     const clang::Stmt *S);
/// The range from the first statement's start to the last one's end.
std::optional<clang::CharSourceRange> statementsRange(const RuleContext &Ctx,
                                                      const clang::Stmt *First,
                                                      const clang::Stmt *Last);

/// True when no token comes before \p Loc (a main-file location) on its
/// line: a preprocessor line can be inserted right before it.
bool startsLine(const RuleContext &Ctx, clang::SourceLocation Loc);
/// \p R widened to the whole lines it is on when nothing else is on them,
/// so that removing it leaves no empty line.
clang::CharSourceRange wholeLines(const RuleContext &Ctx,
                                  clang::CharSourceRange R);
/// Removes statement \p S (with its line when it is alone on it).
bool removeStatement(RuleEdit &E, const RuleContext &Ctx, const clang::Stmt *S);
/// Inserts \p Line as a line of its own before \p S, which must start its
/// line; the proposer's formatting indents it.
bool insertLineBefore(RuleEdit &E, const RuleContext &Ctx, const clang::Stmt *S,
                      llvm::StringRef Line);

/// True when the line above statement \p S is a pragma (`#pragma omp
/// parallel for`): code put between them would take the statement's place.
bool followsPragma(const RuleContext &Ctx, const clang::Stmt *S);

/// The loops inside \p S (for, while, do, range-for), outermost first.
std::vector<const clang::Stmt *> loopsIn(const clang::Stmt *S);
/// The body of a loop statement.
const clang::Stmt *loopBody(const clang::Stmt *Loop);
/// The one statement of \p S: itself, or the only one of a block; null for
/// a block of more or fewer.
const clang::Stmt *onlyStatement(const clang::Stmt *S);
/// True when \p Loop carries a loop pragma already (`#pragma unroll`,
/// `#pragma GCC unroll`, which Clang keeps as a loop hint).
bool hasLoopHint(clang::ASTContext &AST, const clang::Stmt *Loop);

/// True when a line of the main file is `#pragma` followed by \p Words
/// ("GCC", "optimize"), found by lexing the file.
bool hasPragma(const RuleContext &Ctx, llvm::ArrayRef<llvm::StringRef> Words);

/// The statement's parent, when it is a compound statement.
const clang::CompoundStmt *compoundParent(clang::ASTContext &AST,
                                          const clang::Stmt *S);
/// The single parent of \p S in the AST, or null.
const clang::Stmt *parentStmt(clang::ASTContext &AST, const clang::Stmt *S);
/// The statement around \p S, looking through the declaration whose
/// initialiser it is (`auto It = C.find(K);`, where parentStmt stops at the
/// VarDecl). Null at a function, or where the AST has two parents (a
/// lambda's body).
const clang::Stmt *enclosingStmt(clang::ASTContext &AST, const clang::Stmt *S);
/// The function whose text holds \p S, looking through lambdas: a lambda's
/// body is part of the function it is written in. Null when that is not
/// one function, or when \p S is in a generic lambda (a template whose
/// pattern's choices are not settled).
const clang::FunctionDecl *enclosingFunction(clang::ASTContext &AST,
                                             const clang::Stmt *S);

//===----------------------------------------------------------------------===//
// Includes.
//===----------------------------------------------------------------------===//

/// A file the main file includes directly, as the SourceManager recorded it.
struct MainInclude {
  clang::FileID File;
  std::string Path;                 ///< The header's path.
  clang::SourceLocation IncludedAt; ///< The directive's location.
};

/// The headers the main file includes directly, in order.
std::vector<MainInclude> findMainIncludes(const RuleContext &Ctx);

/// `<iostream>` and `<bits/stdc++.h>`: the headers whose inclusion starts the
/// stream library, and how they are spelled.
llvm::StringRef streamHeaderSpelling(const MainInclude &I);

/// The main file's direct includes of stream headers: their files (for
/// findHeadersNeededWithout) to \p Files, their spellings (for
/// removeHeader) to \p Spellings.
void findStreamIncludes(const RuleContext &Ctx,
                        std::vector<clang::FileID> &Files,
                        std::vector<std::string> &Spellings);

/// The standard headers the main file needs when the direct includes
/// \p Removed go away: one for every declaration or macro the file uses that
/// came in only through them. \p Ignore skips uses (a declaration and where
/// it is named) that the caller's rewrite removes. Returns "<vector>"-style
/// names, sorted, without duplicates.
std::vector<std::string> findHeadersNeededWithout(
    const RuleContext &Ctx, llvm::ArrayRef<clang::FileID> Removed,
    llvm::function_ref<bool(const clang::Decl *, clang::SourceLocation)>
        Ignore);

//===----------------------------------------------------------------------===//
// Analyses.
//===----------------------------------------------------------------------===//

/// True when \p Var may be modified (assigned, incremented, bound to a
/// non-const reference, its address taken, a non-const member called) in
/// \p Scope. Uses clang's ExprMutationAnalyzer.
bool isMutatedIn(const clang::VarDecl *Var, const clang::Stmt *Scope,
                 clang::ASTContext &AST);

/// Whether \p A and \p B are the same expression, parentheses and implicit
/// conversions aside (Clang's structural profile).
bool sameExpr(const clang::Expr *A, const clang::Expr *B,
              const clang::ASTContext &AST);

/// True when \p E has no side effects and reads only local variables,
/// parameters and constants (safe to evaluate once more or once less).
bool isSimpleSideEffectFree(const clang::Expr *E, clang::ASTContext &AST);

/// True when evaluating \p E twice gives the same value and changes
/// nothing: isSimpleSideEffectFree, and also element reads and size queries
/// of standard containers and strings (`v[i] % k`, `s.size()`), the const
/// members of standard types and calls of functions Clang knows to be pure.
bool isRepeatable(const clang::Expr *E, clang::ASTContext &AST);

/// True when the call \p C itself writes no memory the program can see:
/// read-only members of standard containers and strings, functions declared
/// pure or const, and library functions of numbers only (`sqrt`, `exp`,
/// `std::abs`: errno at most). Its arguments are not looked at. False for a
/// call that does not return.
bool callWritesNothing(const clang::CallExpr *C, clang::ASTContext &AST);

/// True when a call of \p FD, whose definition this file holds, computes a
/// value and changes nothing: its body (and those of the functions it calls,
/// a few levels deep, no recursion) stores only to its own locals (a
/// constructor: to its object too), reads no mutable global, does not throw,
/// allocate or divide integers by a variable (it may then run where the
/// original did not: a hoisted call), and is not virtual. With \p Fills, a
/// pointer parameter of \p FD, it may also store to the elements \p Fills
/// points to (`Fills[i] = `, `*Fills = `): a function that fills an array it
/// is handed; \p Fills is named nowhere but as the base of an element.
bool isPureFunction(const clang::FunctionDecl *FD, clang::ASTContext &AST,
                    const clang::ParmVarDecl *Fills = nullptr);

/// True when \p V's address or a non-const reference to it is taken
/// anywhere in \p Scope (an alias could change it behind the analysis).
bool hasAliases(const clang::VarDecl *V, const clang::Stmt *Scope);

/// The VarDecls \p S refers to.
llvm::SmallPtrSet<const clang::VarDecl *, 8>
referencedVars(const clang::Stmt *S);

/// How many times \p S names \p V.
unsigned countReferences(const clang::VarDecl *V, const clang::Stmt *S);

/// The variable whose storage an argument designates: `a`, `&a[0]`,
/// `a + 1`, `v.data()`; null for pointers, which may point anywhere.
const clang::VarDecl *storageVariable(const clang::Expr *E);

/// True when \p Body assigns through \p P (`P[i] = `, `*P += `, `++P[i]`).
bool writesThrough(const clang::ParmVarDecl *P, const clang::Stmt *Body);

/// Calls \p OnStore with the target (parentheses and implicit casts
/// stripped) of every assignment, compound assignment, ++ and -- in \p S:
/// the one walk the rules' "does it write ..." questions share.
void forEachStore(const clang::Stmt *S,
                  llvm::function_ref<void(const clang::Expr *)> OnStore);

/// True for object types whose copy costs more than a reference: a copy
/// that does more than copy bytes (a non-trivial copy constructor or
/// destructor: a string, a vector), or more than two pointers' worth.
bool isExpensiveToCopy(clang::QualType T, const clang::ASTContext &AST);
/// Makes the variable \p V a const reference (`T x` to `const T &x`) in
/// \p E; false, \p E unchanged, where its type and name cannot be edited
/// so (a macro, several declarators).
bool makeConstReference(RuleEdit &E, const RuleContext &Ctx,
                        const clang::VarDecl *V);
/// True when the parameter of \p F that argument \p Index meets (the one at
/// that position, or a pack before it) binds a non-const lvalue by
/// reference: it is `T &`, or a reference a template deduces (`U &`,
/// `U &&`, `U &&...`). False when \p F takes no argument there.
bool paramTakesNonConstLvalue(const clang::FunctionDecl *F, unsigned Index);
/// The classes defined in the main file that a rule may edit as written,
/// in the order they appear: not lambdas, not templates, their members or
/// their specialisations (what holds for some template arguments may not
/// for others), and not in namespace std. None outside C++.
std::vector<const clang::CXXRecordDecl *>
mainFileClasses(const RuleContext &Ctx);
/// True when \p D is declared inside namespace std.
bool isInStd(const clang::Decl *D);
/// std::basic_string<char>.
bool isStdString(clang::QualType T);
/// The specialisation of a class template of namespace std that \p T is
/// (named \p Name unless it is empty), or null.
const clang::ClassTemplateSpecializationDecl *
stdSpecialization(clang::QualType T, llvm::StringRef Name = "");
/// True when the template argument \p T is the type `std::Name<Arg>` of one
/// type argument: the default comparison, hash or allocator of a container
/// of \p Arg.
bool isStdTemplateOf(const clang::TemplateArgument &T, llvm::StringRef Name,
                     clang::QualType Arg);
/// True when every value of the integer type \p From is a value of the
/// integer type \p To (not enums), so that converting keeps it.
bool integerConvertsExactly(clang::QualType From, clang::QualType To,
                            const clang::ASTContext &AST);

/// The instantiations of the function template, or of the member of a class
/// template, whose pattern is \p FD; empty when there are none.
std::vector<const clang::FunctionDecl *>
instantiationsOf(const clang::FunctionDecl *FD);

/// The name a description uses for \p FD: its qualified name, or "a lambda
/// in F" for a lambda's call operator.
std::string describeFunction(const clang::FunctionDecl *FD);

/// `line N` or `lines N, M and K`, for descriptions.
std::string describeLines(std::vector<unsigned> Lines);

/// The one edit a local rule proposes for one function (the shape of most
/// rules: every place in the function it can rewrite, in one edit). Each
/// change is tried on a copy and kept only when it fits with those kept
/// before it, so one that overlaps another costs only itself.
class FunctionEdit {
public:
  /// \p Empty comes from the rule's makeEdit.
  FunctionEdit(RuleEdit Empty, const RuleContext &Ctx,
               const clang::FunctionDecl *FD)
      : E(std::move(Empty)), Ctx(Ctx), FD(FD) {}
  /// Applies \p Change to a copy of the edit; keeps the copy, and the
  /// user's line of \p At for the description, when it returns true.
  bool tryChange(clang::SourceLocation At,
                 llvm::function_ref<bool(RuleEdit &)> Change);
  /// Replaces \p FileRange (none: nothing to do) by \p Text.
  bool replace(clang::SourceLocation At,
               std::optional<clang::CharSourceRange> FileRange,
               llvm::StringRef Text);
  /// Appends the edit to \p Out, described as "<What> in <function>
  /// (<lines>)", when a change was kept.
  void addTo(std::vector<RuleEdit> &Out, const llvm::Twine &What);

private:
  RuleEdit E;
  const RuleContext &Ctx;
  const clang::FunctionDecl *FD;
  std::vector<unsigned> Lines;
};

/// The rules that replace what a matcher finds: in each function, every
/// node \p M binds as "node" for which \p Rewrite has a text (empty: none)
/// replaced by it, one edit per function (\p Empty, from makeEdit),
/// described as \p What.
template <typename NodeT>
void replaceEachMatch(const RuleContext &Ctx, const RuleEdit &Empty,
                      const clang::ast_matchers::StatementMatcher &M,
                      llvm::function_ref<std::string(const NodeT *)> Rewrite,
                      llvm::StringRef What, std::vector<RuleEdit> &Out) {
  namespace am = clang::ast_matchers;
  for (const clang::FunctionDecl *FD : Ctx.getFunctions()) {
    FunctionEdit E(Empty, Ctx, FD);
    for (const am::BoundNodes &N :
         am::match(am::findAll(M), *FD->getBody(), Ctx.getASTContext()))
      if (const auto *Node = N.getNodeAs<NodeT>("node"))
        if (std::string Text = Rewrite(Node); !Text.empty())
          E.replace(Node->getBeginLoc(),
                    Ctx.getEditRange(Node->getSourceRange()), Text);
    E.addTo(Out, What);
  }
}

//===----------------------------------------------------------------------===//
// What fast-io and string-to-char-buffer share.
//===----------------------------------------------------------------------===//

/// A std::string of main that can be a char array: declared at the top of
/// main without an initializer, and only read into with `>>`, written with
/// `<<`, indexed, measured and compared.
struct CharBuffer {
  const clang::VarDecl *Var = nullptr;
  /// The array's size (the rule's BufferSize option).
  unsigned Size = 0;
  /// The declaration, the size queries and the comparisons rewritten (the
  /// stream statements are fast-io's).
  clang::tooling::Replacements Replaces;
  bool NeedsCString = false; ///< strlen or strcmp is used.
  /// Where the uses that keep their text name std::string's members (the
  /// operator of `s[i]`): a header check must not count them.
  std::vector<clang::SourceLocation> StringMemberUses;
};

/// The strings of the file that can be char buffers, with their edits;
/// found once per context, for both rules that use them.
const std::vector<CharBuffer> &findCharBuffers(const RuleContext &Ctx);

//===----------------------------------------------------------------------===//
// CUDA helpers (CudaUtils.cpp).
//===----------------------------------------------------------------------===//

/// A `__global__` function.
bool isCudaKernel(const clang::FunctionDecl *FD);
/// A `__global__` or `__device__` function.
bool isCudaDeviceCode(const clang::FunctionDecl *FD);

/// When \p E reads a CUDA built-in (`threadIdx.x`), its variable
/// ("threadIdx") and component ('x').
std::optional<std::pair<llvm::StringRef, char>>
cudaBuiltinOf(const clang::Expr *E);
bool isCudaBuiltin(const clang::Expr *E, llvm::StringRef Var, char Comp);

/// `blockIdx.D * blockDim.D + threadIdx.D`, operands in any order.
bool isGlobalThreadIndex(const clang::Expr *E, char D);

/// True when \p S reads threadIdx.y/z or blockIdx.y/z (a 2D or 3D kernel).
bool usesMultiDimensionalIndex(const clang::Stmt *S);

/// Triple-chevron launches of \p Kernel (its template pattern for
/// instantiations) written in the main file.
std::vector<const clang::CUDAKernelCallExpr *>
findKernelLaunches(clang::ASTContext &AST, const clang::FunctionDecl *Kernel);

/// The expression written for a launch's grid (0), block (1), shared-memory
/// (2) or stream (3) argument, without the implicit dim3 conversion; null
/// when it was not written.
const clang::Expr *writtenLaunchArg(const clang::CUDAKernelCallExpr *Launch,
                                    unsigned Index);

/// True when \p S, made the body of a new loop, would misbehave: it
/// returns, synchronises, or breaks/continues out of itself.
bool unsafeInLoop(const clang::Stmt *S);

/// The pattern of an element-wise kernel: `I = global index;` then
/// `if (I < N) Body` (or `if (I >= N) return;` then the rest).
struct IndexGuard {
  const clang::DeclStmt *Decl = nullptr; ///< `int i = blockIdx.x * ...;`
  const clang::VarDecl *Index = nullptr;
  const clang::Expr *Bound = nullptr; ///< N.
  const clang::Stmt *Guard = nullptr; ///< The if statement.
  /// The statements the loop runs: the if's body, or everything after an
  /// early return.
  std::vector<const clang::Stmt *> Body;
  bool EarlyReturn = false;
};

/// The element-wise pattern of kernel \p FD, with a bound that is cheap and
/// unchanged and a body safe to run in a loop.
std::optional<IndexGuard> matchIndexGuard(const clang::FunctionDecl *FD,
                                          clang::ASTContext &AST);

/// The value of an integer constant expression.
std::optional<int64_t> integerValue(const clang::Expr *E,
                                    const clang::ASTContext &AST);

/// The literal block size of a launch: a literal, or a local variable
/// initialised with one and never changed, or a dim3 of literals. The
/// product of the dimensions.
std::optional<int64_t> launchBlockSize(const clang::CUDAKernelCallExpr *L,
                                       clang::ASTContext &AST);

/// The kernels (`__global__`) or all device functions among the functions
/// the rules may rewrite.
std::vector<const clang::FunctionDecl *> deviceFunctions(const RuleContext &Ctx,
                                                         bool KernelsOnly);

//===----------------------------------------------------------------------===//
// Exception specifications and special members (NoexceptUtils.cpp).
//===----------------------------------------------------------------------===//

/// The functions (canonical declarations) taken not to throw although their
/// declarations do not say so: the ones a rule is proving it for.
using AssumedSet = llvm::SmallPtrSet<const clang::Decl *, 16>;

/// True when a call of \p FD cannot throw: it is trivial, or its exception
/// specification, as Clang resolved it, is non-throwing, or it is in
/// \p Assumed. An unresolved specification (of a callee Clang never needed
/// it for) counts as throwing.
bool isNothrow(const clang::FunctionDecl *FD,
               const AssumedSet *Assumed = nullptr);

/// True when the class has a move constructor that is usable (declared or
/// implicit, not deleted, public) and not trivial, so that moving does
/// better than copying.
bool movesBetterThanCopies(const clang::CXXRecordDecl *RD);

/// The destructor \p RD declares itself, when a rule may rewrite its
/// declarations: not deleted, and not virtual (every overrider would have to
/// follow). Null otherwise.
const clang::CXXDestructorDecl *
editableDestructor(const clang::CXXRecordDecl *RD);

/// True when destroying an object of type \p T cannot throw.
bool destroysWithoutThrowing(clang::QualType T, const clang::ASTContext &AST);

/// True when running the definition \p Def (a constructor's initialisers,
/// written or implicit, and its body) may throw, the functions in
/// \p Assumed taken not to: a throw, a new, a dynamic_cast to a reference,
/// a typeid of an object, or a call of a function that is not non-throwing
/// (constructors and the destructors of temporaries, locals and deleted
/// objects included). True when \p Def has no body.
bool mayThrow(const clang::FunctionDecl *Def, const clang::ASTContext &AST,
              const AssumedSet *Assumed = nullptr);

/// Narrows \p Candidates (functions defined in this file) to the largest set
/// none of which may throw when the others are taken not to, so that calls
/// among them (a move constructor moving a member whose move constructor is
/// a candidate too, a free swap calling the member swap) need no
/// specification written first. Returns their canonical declarations.
AssumedSet provenNothrow(llvm::ArrayRef<const clang::FunctionDecl *> Candidates,
                         const clang::ASTContext &AST);

/// How a declaration's exception specification is written.
enum class WrittenSpec {
  None,      ///< Not at all.
  FalseExpr, ///< `noexcept(expr)`, expr false but not a literal.
  Other,     ///< Anything else: `noexcept`, `noexcept(false)`, `throw()`.
};

/// How declaration \p D's exception specification is written.
WrittenSpec writtenSpec(const clang::FunctionDecl *D);

/// Where `noexcept` goes in declaration \p D: after the `)` of its
/// parameter list and any cv- and ref-qualifiers. None when that text is
/// not editable.
std::optional<clang::SourceLocation>
noexceptLocation(const RuleContext &Ctx, const clang::FunctionDecl *D);

/// Makes every declaration of \p FD noexcept in \p E (inserting it where
/// none is written, replacing a `noexcept(expr)` that is false), appending
/// their lines to \p Lines; false (\p E then partly edited) when one of
/// them cannot be edited or they are not written alike.
bool makeNoexcept(RuleEdit &E, const RuleContext &Ctx,
                  const clang::FunctionDecl *FD, std::vector<unsigned> &Lines);

} // namespace maxcode

#endif // MAXCODE_LIB_RULES_RULES_H
