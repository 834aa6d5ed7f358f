//===-- Rules.h - What the rule implementations share -----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Policy: the registration hooks of each family of rules and
/// the helpers they share (adding replacements, reading #include lines,
/// finding the standard headers a file still needs, checking that a variable
/// is not modified).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_POLICY_RULES_H
#define MAXCODE_LIB_POLICY_RULES_H

#include "maxcode/Policy/Rule.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <functional>

namespace maxcode {

// The C++ rules, by file.
std::unique_ptr<Rule> createFastIORule();
std::unique_ptr<Rule> createEndlToNewlineRule();
std::unique_ptr<Rule> createPruneIncludesRule();
std::unique_ptr<Rule> createRemoveUnusedGlobalsRule();
std::unique_ptr<Rule> createStaticMainArraysRule();
std::unique_ptr<Rule> createHoistLoopInvariantRule();
std::unique_ptr<Rule> createReserveBeforePushBackRule();
std::unique_ptr<Rule> createLoopUnrollPragmaRule();
std::unique_ptr<Rule> createConstRefParamRule();
std::unique_ptr<Rule> createRangeForCopyRule();
std::unique_ptr<Rule> createMapToUnorderedMapRule();
std::unique_ptr<Rule> createSubstrCompareRule();
std::unique_ptr<Rule> createPowToMultiplyRule();
std::unique_ptr<Rule> createMemoizeRecursionRule();
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

/// Adds a replacement of [Offset, Offset + Length) by \p Text to \p E. An
/// identical replacement already there is not added twice. Returns false
/// when it overlaps a different one (the edit must then be dropped).
bool addReplacement(RuleEdit &E, const RuleContext &Ctx, unsigned Offset,
                    unsigned Length, llvm::StringRef Text);

/// Adds every replacement of \p From to \p Into; false on any conflict,
/// leaving \p Into partly merged (callers merge into a copy).
bool mergeReplacements(clang::tooling::Replacements &Into,
                       const clang::tooling::Replacements &From);

/// One `#include` line of the main file.
struct IncludeLine {
  unsigned LineBegin = 0; ///< Offset of the line's first character.
  unsigned LineEnd = 0;   ///< Offset after its newline.
  std::string Name;       ///< Between the brackets or quotes.
  bool Angled = false;
};

/// The #include lines of the main file, in order, found by lexing it (lines
/// inside a false #if are included: they are still text to edit around).
std::vector<IncludeLine> findIncludeLines(const RuleContext &Ctx);

/// The offset right after the last #include line before the first #define
/// of the main file (or the first line that is not a comment, a blank or a
/// preprocessor line): where helpers can go, untouched by the program's own
/// macros. None when a #define comes before every #include.
std::optional<unsigned> findHelperInsertionPoint(const RuleContext &Ctx);

/// True when no identifier of \p HelperText is a macro the main file
/// defines before \p Offset (such a macro would change the helper).
bool helperIsMacroSafe(const RuleContext &Ctx, llvm::StringRef HelperText,
                       unsigned Offset);

/// The standard headers the main file needs, beyond the includes it keeps,
/// when the #include lines \p Removed (indices into \p Includes) go away:
/// one for every declaration or macro the file uses that came in only
/// through them. \p Ignore skips uses (a declaration and where it is
/// named) that the caller's rewrite removes. Returns "<vector>"-style names,
/// sorted, without duplicates.
std::vector<std::string> findHeadersNeededWithout(
    const RuleContext &Ctx, llvm::ArrayRef<IncludeLine> Includes,
    llvm::ArrayRef<unsigned> Removed,
    llvm::function_ref<bool(const clang::Decl *, clang::SourceLocation)>
        Ignore);

/// True when \p Var may be modified (assigned, incremented, bound to a
/// non-const reference, its address taken, a non-const member called) in
/// \p Scope. Uses clang's ExprMutationAnalyzer.
bool isMutatedIn(const clang::VarDecl *Var, const clang::Stmt *Scope,
                 clang::ASTContext &AST);

/// True when \p E has no side effects and reads only local variables,
/// parameters and constants (safe to evaluate once more or once less).
bool isSimpleSideEffectFree(const clang::Expr *E, clang::ASTContext &AST);

/// The VarDecls \p S refers to.
llvm::SmallPtrSet<const clang::VarDecl *, 8>
referencedVars(const clang::Stmt *S);

/// Functions of the main file defined inside [Ctx.getEditBegin(),
/// Ctx.getEditEnd()), the target first.
std::vector<const clang::FunctionDecl *>
editableFunctions(const RuleContext &Ctx);

/// The variable whose storage an argument designates: `a`, `&a[0]`,
/// `a + 1`, `v.data()`; null for pointers, which may point anywhere.
const clang::VarDecl *storageVariable(const clang::Expr *E);

/// True when \p Body assigns through \p P (`P[i] = `, `*P += `, `++P[i]`).
bool writesThrough(const clang::ParmVarDecl *P, const clang::Stmt *Body);

/// The bytes of the statements \p First..\p Last in the main file,
/// through the last one's semicolon; a statement written with a macro
/// starts at the macro's name.
std::optional<std::pair<unsigned, unsigned>>
statementFileRange(const RuleContext &Ctx, const clang::Stmt *First,
                   const clang::Stmt *Last);

/// A piece of a text to replace, relative to the text's own start.
struct TextEdit {
  unsigned Offset;
  unsigned Length;
  std::string Text;
};

/// \p Text with \p Edits (non-overlapping, any order) applied.
std::string applyTextEdits(llvm::StringRef Text,
                           std::vector<TextEdit> Edits);

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

} // namespace maxcode

#endif // MAXCODE_LIB_POLICY_RULES_H
