//===-- maxcode/Policy/VariantCheck.h - Variants the compiler takes -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The compile check every proposed variant of a CUDA file passes before it
/// is listed or evaluated: the file's own nvcc command compiles it.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_VARIANTCHECK_H
#define MAXCODE_POLICY_VARIANTCHECK_H

#include "maxcode/Rewrite/Variant.h"
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

struct ParsedFile;

/// A variant the build compiler rejected; its rules are blamed.
struct RejectedVariant {
  std::vector<std::string> Rules;
  std::string Description;
  std::string Compiler; ///< "nvcc", or "clang" where no nvcc was found.
  /// The compiler's first error; for a variant that changes nothing, what
  /// was compared.
  std::string Error;
};

/// Compiles each of \p Variants of \p Parsed's file as its build does (the
/// file's own nvcc command, `-c`: host and device) and moves those the
/// compiler rejects to \p Rejected. Clang's parse and nvcc disagree (nvcc's
/// front end, the host compiler, `__NVCC__` branches), so what only Clang
/// read is not yet known to build. Only for files whose command is nvcc's
/// (a database's, or nvcc's flags after --); results are kept by command
/// and text for the life of the process. Where nvcc cannot be run, that is
/// said once on \p Diag and Clang's parse of the variant is the check;
/// where nvcc rejects the file itself, that is said once and nothing is
/// dropped.
///
/// A variant nvcc builds to the original's code is dropped too, into
/// \p Unchanged when given: the same PTX for each architecture and the same
/// host translation (cudafe's, compared without line markers and layout),
/// so nothing the GPU or the CPU runs differs (an unroll pragma on a loop
/// nvcc unrolls anyway). Its evaluation would measure nothing.
void dropVariantsTheCompilerRejects(
    const ParsedFile &Parsed, std::vector<Variant> &Variants,
    std::vector<RejectedVariant> &Rejected, llvm::raw_ostream &Diag,
    std::vector<RejectedVariant> *Unchanged = nullptr);

} // namespace maxcode

#endif // MAXCODE_POLICY_VARIANTCHECK_H
