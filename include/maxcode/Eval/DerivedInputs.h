//===-- maxcode/Eval/DerivedInputs.h - Inputs from tests -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The baseline as the oracle (DESIGN section 4, rule 13): the user's tests
/// are often weak, so program mode derives further inputs from them, runs
/// the unmodified program on each, and holds a variant to its answers. The
/// derivation keeps what makes an input valid and changes what a wrong
/// variant depends on (docs/Evaluation.md, "Derived inputs").
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_DERIVEDINPUTS_H
#define MAXCODE_EVAL_DERIVEDINPUTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace maxcode {

/// One derived input: its text and the test it was derived from.
struct DerivedInput {
  std::string Text;
  size_t Template = 0; ///< Index into the inputs it was derived from.
};

/// Derives up to \p Count inputs from \p Inputs (the tests' inputs), the
/// templates taken in turn from the costliest first (\p Order: indices into
/// \p Inputs, costliest first), with \p Seed. Each keeps its template's
/// lines, white space, words and decimals, and every integer token that
/// counts something the input holds (a value equal to a line's number of
/// tokens, or to the length of a run of lines of one shape, after it); the
/// other integers are drawn afresh, each between the integers next to it
/// in the template's sorted set of values, so that every order and
/// equality between two numbers of the input holds (an index stays below
/// the count it indexes, l stays at most r, a sorted list stays sorted).
/// The smallest and largest may move out to the range the tests use at
/// that place (line and column). Where the tests hold different values at
/// a place, a value there also stays within them, so that no derived input
/// asks for far more work than the tests do. An input with nothing to draw
/// yields nothing; duplicates and copies of a test are left out.
std::vector<DerivedInput> deriveInputs(llvm::ArrayRef<std::string> Inputs,
                                       llvm::ArrayRef<size_t> Order,
                                       unsigned Count, uint64_t Seed);

} // namespace maxcode

#endif // MAXCODE_EVAL_DERIVEDINPUTS_H
