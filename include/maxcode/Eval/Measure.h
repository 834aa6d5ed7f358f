//===-- maxcode/Eval/Measure.h - What each measure is -----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the evaluator needs to know of each --measure value, in one table:
/// how it repeats, its unit and resolution, which measure cross-checks it,
/// what its builds and floors need. The evaluator asks the table rather
/// than which measure is on; how one run is measured is the harness's
/// (measureInput, measureBench).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_MEASURE_H
#define MAXCODE_EVAL_MEASURE_H

#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace maxcode {

struct MeasureTraits {
  MeasureMode Mode;
  /// The unit of its costs in results ("seconds", "instructions",
  /// "gpu-ns"): EvalResult::CostUnit, formatCost.
  llvm::StringLiteral Unit;
  /// Whether a program's cost repeats exactly: measured once per variant,
  /// the baseline's once per timing set, instead of in alternated pairs.
  bool Deterministic;
  /// The smallest change in the ratio it resolves: the paired
  /// comparison's floor (Statistics.h).
  double Resolution;
  /// The measure that cross-checks a speedup by it (DESIGN section 4,
  /// rule 9) in program mode; none where no other measure sees the same
  /// work (kernel time).
  std::optional<MeasureMode> CrossCheckedBy;
  /// Builds carry debug information: the measure reports costs by line.
  bool LinesFromBuild;
  /// Runs of the empty program whose median is the start-up floor.
  unsigned FloorRuns;
  /// Compiler hints' savings are credited only where wall time confirms
  /// them (docs/Evaluation.md, "Compiler hints"): a count the CPU may not
  /// pay.
  bool HintsNeedTime;
};

/// The traits of \p M.
const MeasureTraits &measureTraits(MeasureMode M);

} // namespace maxcode

#endif // MAXCODE_EVAL_MEASURE_H
