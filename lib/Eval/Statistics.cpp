//===-- Statistics.cpp - Medians, spreads, noise --------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Statistics.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cmath>
#include <vector>

using namespace maxcode;

static double quantile(std::vector<double> V, double Q) {
  if (V.empty())
    return 0;
  llvm::sort(V);
  double Pos = Q * (V.size() - 1);
  size_t Lo = size_t(std::floor(Pos)), Hi = size_t(std::ceil(Pos));
  return V[Lo] + (V[Hi] - V[Lo]) * (Pos - Lo);
}

double maxcode::median(llvm::ArrayRef<double> Values) {
  return quantile(Values.vec(), 0.5);
}

double maxcode::halfIQR(llvm::ArrayRef<double> Values) {
  if (Values.size() < 2)
    return 0;
  return (quantile(Values.vec(), 0.75) - quantile(Values.vec(), 0.25)) / 2;
}

double maxcode::relativeSpread(llvm::ArrayRef<double> Values) {
  double M = median(Values);
  return M > 0 ? halfIQR(Values) / M : 0;
}

PairedComparison maxcode::comparePaired(llvm::ArrayRef<double> Baseline,
                                        llvm::ArrayRef<double> Variant,
                                        double NoiseFloor) {
  PairedComparison C;
  C.BaselineMedian = median(Baseline);
  C.VariantMedian = median(Variant);
  std::vector<double> Ratios;
  for (size_t I = 0; I < std::min(Baseline.size(), Variant.size()); ++I)
    if (Variant[I] > 0)
      Ratios.push_back(Baseline[I] / Variant[I]);
  C.RawRatio = Ratios.empty() ? 0 : median(Ratios);
  C.Spread = halfIQR(Ratios);
  // The noise is what the runs themselves vary by; a ratio must clear both it
  // and the spread of the ratios to count.
  C.Noise =
      std::max({relativeSpread(Baseline), relativeSpread(Variant), NoiseFloor});
  // And five standard errors of the median ratio. The half-IQRs alone are
  // cleared by chance by one comparison of a program with itself in three
  // (5 pairs), so an A/A comparison would often "win". The runs' own noise
  // (sigma, from the median absolute deviation of every run's log time
  // around its side's median: 2n values, steadier than n ratios) gives the
  // median ratio's standard error 1.2533 * sqrt(2) * sigma / sqrt(n); five
  // of them leave about 1.4% of A/A comparisons over the line with 5 pairs,
  // 0.1% with 10, and still credit a 1.5x with 5% noise nearly always.
  double StandardError = 0;
  if (Ratios.size() >= 2) {
    std::vector<double> Deviations;
    for (llvm::ArrayRef<double> Side : {Baseline, Variant}) {
      std::vector<double> Logs;
      for (double X : Side)
        if (X > 0)
          Logs.push_back(std::log(X));
      double M = median(Logs);
      for (double L : Logs)
        Deviations.push_back(std::fabs(L - M));
    }
    double Sigma = 1.4826 * median(Deviations);
    StandardError =
        1.2533 * std::sqrt(2.0) * Sigma / std::sqrt(double(Ratios.size()));
  }
  double Margin = std::max({C.Noise, C.Spread, 5 * StandardError});
  C.Ratio = std::fabs(C.RawRatio - 1.0) <= Margin ? 1.0 : C.RawRatio;
  return C;
}

bool maxcode::belowInNearlyEveryPair(llvm::ArrayRef<double> Baseline,
                                     llvm::ArrayRef<double> Variant,
                                     double Threshold) {
  size_t N = std::min(Baseline.size(), Variant.size());
  if (N < 9)
    return false;
  size_t Below = 0;
  for (size_t I = 0; I < N; ++I)
    Below += Variant[I] > 0 && Baseline[I] / Variant[I] < Threshold;
  // One-sided sign test: the chance that Below of N pairs or more fall on
  // one side of a line the pairs' own distribution is centred on, sum over
  // K >= Below of C(N, K) / 2^N, at most 2% (8 of 9, 12 of 15, 16 of 21).
  double Tail = 0, Choose = 1; // C(N, K), K from N down.
  for (size_t K = N; K >= Below && K > 0; --K) {
    Tail += Choose;
    Choose = Choose * double(K) / double(N - K + 1);
  }
  if (Below == 0)
    Tail += Choose;
  return Tail / std::pow(2.0, double(N)) <= 0.02;
}

bool maxcode::slowerInNearlyEveryPair(llvm::ArrayRef<double> Baseline,
                                      llvm::ArrayRef<double> Variant,
                                      double RawRatio) {
  return RawRatio <= 0.9 && belowInNearlyEveryPair(Baseline, Variant, 1.0);
}
