//===-- CuptiReportFuzzer.cpp - Fuzzing the CUPTI report reader -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The report is written inside the measured CUDA program, which runs a
/// variant's code, so the evaluator must survive any bytes in it. A report
/// that parses is also summed, ranked, appended to itself and asked for the
/// metrics of each of its kernels, as the evaluator does.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiReport.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<CuptiReport> R = parseCuptiReport(Text);
  if (!R) {
    llvm::consumeError(R.takeError());
    return 0;
  }

  uint64_t Total = R->totalKernelTimeNs();
  (void)R->timesComplete();
  std::vector<CuptiKernelTotal> Totals = R->kernelTotals();
  unsigned Launches = 0;
  for (const CuptiKernelTotal &T : Totals) {
    Launches += T.Launches;
    if (!(T.Share >= 0 && T.Share <= 1.0000001))
      abort();
  }
  if (Launches != R->Kernels.size())
    abort();

  for (const CuptiKernel &K : R->Kernels) {
    (void)cuptiKernelBaseName(K.Name);
    (void)R->metricsFor(K.Mangled);
    (void)R->metricsFor(cuptiKernelBaseName(K.Name));
  }

  CuptiReport Twice = *R;
  Twice.append(*R);
  if (Twice.Kernels.size() != 2 * R->Kernels.size() ||
      Twice.totalKernelTimeNs() != 2 * Total)
    abort();
  return 0;
}
