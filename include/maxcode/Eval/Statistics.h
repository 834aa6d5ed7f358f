//===-- maxcode/Eval/Statistics.h - Medians, spreads, noise -----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The small statistics that make a speedup believable (DESIGN section 5):
/// medians of paired ratios, their spread, and the noise rule.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_STATISTICS_H
#define MAXCODE_EVAL_STATISTICS_H

#include "llvm/ADT/ArrayRef.h"

namespace maxcode {

double median(llvm::ArrayRef<double> Values);
/// Half the inter-quartile range.
double halfIQR(llvm::ArrayRef<double> Values);
/// Half the inter-quartile range over the median (0 for fewer than 2 values).
double relativeSpread(llvm::ArrayRef<double> Values);

/// Baseline and variant costs measured in alternation (A B A B ...).
struct PairedComparison {
  double BaselineMedian = 0;
  double VariantMedian = 0;
  double RawRatio = 0; ///< Median of the paired ratios A_i / B_i.
  double Spread = 0;   ///< Half the IQR of the paired ratios.
  double Noise = 0;    ///< Relative noise of the runs themselves.
  double Ratio = 0;    ///< RawRatio, or 1.0 when inside the noise.
};

/// Compares paired samples. \p NoiseFloor is the smallest relative
/// difference ever credited (measurement resolution).
PairedComparison comparePaired(llvm::ArrayRef<double> Baseline,
                               llvm::ArrayRef<double> Variant,
                               double NoiseFloor);

/// Whether the paired ratio Baseline[i] / Variant[i] is below \p Threshold
/// in so many of nine or more pairs that it would be in at most 2% of
/// comparisons whose ratios are centred on the threshold (a sign test: 8 of
/// 9, 12 of 15, 16 of 21).
bool belowInNearlyEveryPair(llvm::ArrayRef<double> Baseline,
                            llvm::ArrayRef<double> Variant, double Threshold);

/// Whether the variant's runs \p Variant were slower than the baseline's
/// \p Baseline (paired, as for comparePaired) in so many of nine or more
/// pairs that a program compared with itself would be in at most 2% of
/// comparisons (a sign test: 8 of 9, 12 of 15, 16 of 21), with \p RawRatio,
/// the median paired ratio, at most 0.9 (chance rarely sets them a tenth
/// apart as well). Robust where the runs' spread is not: a loaded moment
/// that slows one run scatters the noise estimate, not the order within the
/// pairs.
bool slowerInNearlyEveryPair(llvm::ArrayRef<double> Baseline,
                             llvm::ArrayRef<double> Variant, double RawRatio);

} // namespace maxcode

#endif // MAXCODE_EVAL_STATISTICS_H
