//===-- CuptiRun.cpp - Running programs under libmaxcode-cupti ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Support/Options.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace maxcode;

std::vector<std::pair<std::string, std::string>>
maxcode::cuptiEnvironment(llvm::StringRef Library, llvm::StringRef OutputDir,
                          CuptiPass Pass) {
  llvm::SmallString<256> Output(OutputDir);
  llvm::sys::path::append(Output, "cupti.%p.json");
  return {{"CUDA_INJECTION64_PATH", Library.str()},
          {"MAXCODE_CUPTI_OUTPUT", std::string(Output)},
          {"MAXCODE_CUPTI_PASS",
           Pass == CuptiPass::Metrics ? "metrics" : "timing"}};
}

std::vector<std::string> maxcode::nvidiaDevices() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It("/dev", EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::filename(It->path()).starts_with("nvidia"))
      Out.push_back(It->path());
  llvm::sort(Out);
  return Out;
}

/// What timing kernels needs that this machine or this build lacks, said
/// as what follows "needs".
static std::optional<std::string> cudaMissing(llvm::StringRef Library) {
  if (Library.empty() || !llvm::sys::fs::exists(Library))
    return "libmaxcode-cupti.so, which is built only when CMake finds CUDA "
           "with CUPTI (MAXCODE_CUDA_PATH); this clang-maxcode has none";
  // The driver creates /dev/nvidiactl and one node per GPU when it loads.
  if (!llvm::sys::fs::exists("/dev/nvidiactl"))
    return "an NVIDIA GPU and its driver, and this machine has none (no "
           "/dev/nvidiactl)";
  return std::nullopt;
}

llvm::Error maxcode::checkCudaMeasurable(llvm::StringRef Library,
                                         OptionNames Names) {
  auto Missing = cudaMissing(Library);
  if (!Missing)
    return llvm::Error::success();
  std::string Measure = Names("Measure");
  return llvm::createStringError(Measure + "=cuda-kernel needs " + *Missing +
                                 "; use " + Measure + "=time or " + Measure +
                                 "=instructions for host code");
}

llvm::Expected<CuptiReport>
maxcode::readCuptiReports(llvm::StringRef OutputDir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OutputDir, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".json"))
      Files.push_back(It->path());
  if (Files.empty())
    return llvm::createStringError(
        "the CUPTI injection library wrote no report: no CUDA process ran, "
        "or the CUDA driver did not load it");
  llvm::sort(Files);
  std::optional<CuptiReport> Merged;
  for (const std::string &F : Files) {
    auto R = readCuptiReport(F);
    if (!R)
      return R.takeError();
    if (Merged)
      Merged->append(*R);
    else
      Merged = std::move(*R);
  }
  return std::move(*Merged);
}

llvm::Expected<double> maxcode::cudaKernelCost(const CuptiReport &R) {
  if (R.Kernels.empty())
    return llvm::createStringError(
        "the program launched no CUDA kernel" +
        (R.Notes.empty() ? std::string() : " (" + R.Notes.front() + ")"));
  // A partial list would make a variant look faster by losing records.
  if (!R.timesComplete())
    return llvm::createStringError(
        llvm::formatv("the kernel list is incomplete ({0} records dropped, "
                      "{1} without timestamps)",
                      R.DroppedRecords, R.RecordsWithoutTime)
            .str());
  return double(R.totalKernelTimeNs());
}

llvm::Expected<std::vector<KernelTime>>
maxcode::profileKernels(llvm::StringRef Command, const CommandPlacement &Place,
                        llvm::StringRef Library, double TimeoutSeconds) {
  if (auto Missing = cudaMissing(Library))
    return llvm::createStringError("timing the profile command's kernels "
                                   "needs " +
                                   *Missing);
  llvm::Expected<TempFolder> Folder = TempFolder::create("maxcode-gpu-profile");
  if (!Folder)
    return Folder.takeError();
  llvm::StringRef Dir = Folder->path();
  if (llvm::Error E = runUserCommand(
          Command, {}, cuptiEnvironment(Library, Dir, CuptiPass::Timing), Place,
          Dir, TimeoutSeconds))
    return E;
  auto Report = readCuptiReports(Dir);
  if (!Report)
    return Report.takeError();
  if (Report->Kernels.empty())
    return llvm::createStringError("profile command '" + Command.str() +
                                   "' launched no CUDA kernel");
  std::vector<KernelTime> Out;
  for (const CuptiKernelTotal &T : Report->kernelTotals())
    Out.push_back({T.Mangled, cuptiKernelBaseName(T.Name), T.TotalNs});
  return Out;
}
