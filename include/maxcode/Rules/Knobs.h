//===-- maxcode/Rules/Knobs.h - Integer constants to tune ------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Knob tuning, as Kernel Tuner does it: integer constants that shape the
/// work (tile sizes, block sizes, constexpr sizes, unroll factors, and any
/// literal marked `// maxcode: tune(a,b,c)`) form a discrete space; the
/// `tune-constants` rule offers one variant per value and the search
/// measures them. Launch configurations are tuned by `cuda-launch-config`,
/// which also moves the grid.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_RULES_KNOBS_H
#define MAXCODE_RULES_KNOBS_H

#include "maxcode/Rules/Rule.h"
#include <cstdint>
#include <string>
#include <vector>

namespace maxcode {

enum class KnobKind {
  Marked,   ///< A literal on a line marked `// maxcode: tune(...)`.
  Constant, ///< A const/constexpr variable or a #define naming a size.
  Unroll,   ///< The factor of an unroll pragma.
};

/// "marked", "constant", "unroll".
llvm::StringRef knobKindName(KnobKind K);

struct Knob {
  KnobKind Kind = KnobKind::Constant;
  /// What is tuned: the constant's name, or "unroll at line 12".
  std::string Name;
  unsigned Line = 0;
  /// The literal's token, and its bytes in the file.
  clang::SourceLocation Loc;
  unsigned Offset = 0;
  unsigned Length = 0;
  int64_t Current = 0;
  /// The values to try, nearest to the current one first; the current one
  /// is not among them.
  std::vector<int64_t> Values;
};

/// The knobs of the main file inside the editable range, in file order.
std::vector<Knob> findKnobs(const RuleContext &Ctx);

/// The values a power-of-two constant is tried at: a quarter, half, double
/// and four times it, within [Min, Max], nearest first.
std::vector<int64_t> powerOfTwoNeighbours(int64_t Current, int64_t Min,
                                          int64_t Max);

/// The values of a `tune(a, b, c)` list, or none when it is malformed.
std::optional<std::vector<int64_t>> parseTuneList(llvm::StringRef Text);

} // namespace maxcode

#endif // MAXCODE_RULES_KNOBS_H
