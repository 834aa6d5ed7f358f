//===-- ReportMain.cpp - maxcode-cupti-report: summarise CUPTI reports ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads the JSON reports libmaxcode-cupti.so wrote (one per process) with
/// the evaluator's own reader and prints what the evaluator would take from
/// them: the total kernel time, the kernels ranked by time, the metrics of
/// one kernel, and the notes. Exit codes: 0 success, 1 a report that cannot
/// be read.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiReport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace llvm;

static cl::OptionCategory ReportCategory("maxcode-cupti-report options");
static cl::list<std::string> Reports(cl::Positional, cl::OneOrMore,
                                     cl::desc("<report.json>..."),
                                     cl::cat(ReportCategory));
static cl::opt<std::string>
    Kernel("kernel", cl::desc("Print the metrics of the kernel with this name"),
           cl::value_desc("name"), cl::cat(ReportCategory));
static cl::opt<bool>
    TotalOnly("total-ns",
              cl::desc("Print only the total kernel time in nanoseconds"),
              cl::cat(ReportCategory));

static void printSummary(const CuptiReport &R, raw_ostream &OS) {
  OS << "pass: " << (R.Pass == CuptiPass::Timing ? "timing" : "metrics")
     << "\nmetrics: " << cuptiMetricsStatusName(R.MetricsStatus);
  if (!R.MetricNames.empty())
    OS << " (" << R.MetricNames.size() << " metrics, " << R.MetricPasses
       << " passes)";
  OS << "\ndropped records: " << R.DroppedRecords
     << "\nrecords without time: " << R.RecordsWithoutTime
     << "\ntotal kernel time: " << R.totalKernelTimeNs() << " ns over "
     << R.Kernels.size() << " launches"
     << (R.timesComplete() ? "" : " (incomplete)") << "\n";

  std::vector<CuptiKernelTotal> Totals = R.kernelTotals();
  size_t Width = 6;
  for (const CuptiKernelTotal &T : Totals)
    Width = std::max(Width, T.Name.size());
  OS << left_justify("KERNEL", Width) << "  LAUNCHES     TOTAL_NS  SHARE\n";
  for (const CuptiKernelTotal &T : Totals)
    OS << left_justify(T.Name, Width) << "  " << format_decimal(T.Launches, 8)
       << " " << format_decimal(T.TotalNs, 12) << " "
       << format("%5.1f%%", 100.0 * T.Share) << "\n";

  for (const std::string &Note : R.Notes)
    OS << "note: " << Note << "\n";
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  cl::HideUnrelatedOptions(ReportCategory);
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "Summarise the reports of libmaxcode-cupti.so (docs/CUDA.md); several "
      "reports are one run's processes and add up\n");

  CuptiReport Combined;
  bool First = true;
  for (const std::string &Path : Reports) {
    Expected<CuptiReport> R = readCuptiReport(Path);
    if (!R) {
      WithColor::error(errs(), "maxcode-cupti-report")
          << toString(R.takeError()) << "\n";
      return 1;
    }
    if (First)
      Combined = std::move(*R);
    else
      Combined.append(*R);
    First = false;
  }

  if (TotalOnly) {
    outs() << Combined.totalKernelTimeNs() << "\n";
    return 0;
  }
  printSummary(Combined, outs());
  if (Kernel.empty())
    return 0;
  std::optional<std::map<std::string, double>> Metrics =
      Combined.metricsFor(Kernel);
  if (!Metrics) {
    outs() << "no metrics for kernel '" << Kernel << "'\n";
    return 0;
  }
  outs() << "metrics of " << Kernel << ":\n";
  for (const auto &[Name, Value] : *Metrics)
    outs() << "  " << Name << " = " << format("%g", Value) << "\n";
  return 0;
}
