//===-- EvalBuild.cpp - Build a variant -----------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A variant is built as the user builds it (DESIGN section 4): with the
// translation unit's own compile command, or the project's build command, in
// the sandbox every run shares.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Statistics.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_TYPE "maxcode-eval"

using namespace maxcode;
using namespace maxcode::evaldetail;

//===----------------------------------------------------------------------===//
// Compile commands and compiler output
//===----------------------------------------------------------------------===//

std::vector<std::string> maxcode::variantCompileCommand(
    const clang::tooling::CompileCommand &Command, llvm::StringRef OriginalFile,
    llvm::StringRef Source, llvm::StringRef Output, bool Link, bool DebugInfo) {
  // A compiler cache in front of the compiler (`ccache g++ ...`) is left
  // out: its cache lives in the user's home, which builds never see.
  std::vector<std::string> In = Command.CommandLine;
  while (!In.empty()) {
    llvm::StringRef W = llvm::sys::path::filename(In.front());
    if (W != "ccache" && W != "sccache")
      break;
    In.erase(In.begin());
  }
  if (!In.empty() && llvm::StringRef(In.front()).contains("/ccache/"))
    In.front() = llvm::sys::path::filename(In.front()).str();
  std::vector<std::string> Out;
  bool Nvcc = isNvccCommand(In);
  // Flags given after "--" name no compiler ("clang-tool"): build C++ with
  // g++ as PIE does, CUDA with nvcc.
  llvm::StringRef Argv0 = In.empty() ? "" : llvm::StringRef(In.front());
  llvm::StringRef Base = llvm::sys::path::filename(Argv0);
  if (Base == "clang-tool" || Base.empty()) {
    Nvcc = isCudaFileName(OriginalFile);
    Out.push_back(Nvcc ? "nvcc" : "g++");
  } else {
    Out.push_back(Argv0.str());
  }
  auto SameFile = [&](llvm::StringRef A) {
    if (A == OriginalFile)
      return true;
    llvm::SmallString<256> Abs(A);
    if (!llvm::sys::path::is_absolute(Abs)) {
      Abs = Command.Directory;
      llvm::sys::path::append(Abs, A);
    }
    llvm::sys::path::remove_dots(Abs, true);
    return Abs == OriginalFile;
  };
  bool Replaced = false;
  for (size_t I = 1; I < In.size(); ++I) {
    llvm::StringRef A = In[I];
    if (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ" ||
        A == "--output-file") {
      ++I;
      continue;
    }
    if ((A.starts_with("-o") && A.size() > 2) || A == "-MD" || A == "-MMD" ||
        A.starts_with("--output-file=") || A.starts_with("-MF"))
      continue;
    if (Link && (A == "-c" || A == "-dc" || A == "--compile"))
      continue;
    if (!Replaced && SameFile(A)) {
      Out.push_back(Source.str());
      Replaced = true;
      continue;
    }
    Out.push_back(A.str());
  }
  if (!Replaced)
    Out.push_back(Source.str());
  // Quoted includes of the original still resolve from the scratch copy.
  std::string Dir = llvm::sys::path::parent_path(OriginalFile).str();
  if (Nvcc) {
    Out.push_back("-I" + Dir);
  } else {
    Out.push_back("-iquote");
    Out.push_back(Dir);
  }
  if (DebugInfo)
    Out.push_back("-g");
  if (!Link)
    Out.push_back("-c");
  Out.push_back("-o");
  Out.push_back(Output.str());
  return Out;
}

std::vector<BuildDiagnostic>
maxcode::parseCompilerOutput(llvm::StringRef Output,
                             llvm::StringRef SourceName) {
  // gcc/clang: "path:line:col: error: msg"; nvcc front end:
  // "path(line): error: msg".
  static const llvm::Regex Gcc(
      "^(.*):([0-9]+):([0-9]+): (fatal error|error|warning|note): (.*)$");
  static const llvm::Regex Nvcc(
      "^(.*)\\(([0-9]+)\\): (error|warning)[^:]*: (.*)$");
  std::vector<BuildDiagnostic> Out;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Output.split(Lines, '\n');
  llvm::StringRef Name = llvm::sys::path::filename(SourceName);
  for (llvm::StringRef L : Lines) {
    llvm::SmallVector<llvm::StringRef, 6> M;
    BuildDiagnostic D;
    llvm::StringRef Path;
    if (Gcc.match(L, &M)) {
      Path = M[1];
      M[2].getAsInteger(10, D.Line);
      M[3].getAsInteger(10, D.Column);
      D.Severity = M[4] == "fatal error" ? "error" : M[4].str();
      D.Message = M[5].str();
    } else if (Nvcc.match(L, &M)) {
      Path = M[1];
      M[2].getAsInteger(10, D.Line);
      D.Severity = M[3].str();
      D.Message = M[4].str();
    } else {
      continue;
    }
    if (llvm::sys::path::filename(Path) != Name)
      continue;
    Out.push_back(std::move(D));
  }
  return Out;
}

bool EvalConfig::cudaProgram() const {
  return compilesAsCuda(Command.CommandLine, File);
}
/// The first error line of a compiler's output, for a one-line reason.
static std::string firstError(const std::vector<BuildDiagnostic> &Diags,
                              llvm::StringRef Log) {
  for (const BuildDiagnostic &D : Diags)
    if (D.Severity == "error")
      return "line " + std::to_string(D.Line) + ": " + D.Message;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Log.split(Lines, '\n');
  for (llvm::StringRef L : Lines)
    if (L.contains("error"))
      return L.trim().str();
  return Log.trim().take_front(200).str();
}

SandboxPolicy EvaluatorImpl::basePolicy(const Built &B) const {
  SandboxPolicy P;
  P.Mode = Config.Sandbox;
  P.Uid = P.Gid = B.Dir ? B.Dir->uid() : -1;
  P.Supervisor = Config.TimerPath;
  P.TmpBytes = Config.TmpBytes;
  // The same read-only allow-list for every build and run: the folders the
  // compile command reads (Harness::addFolders), a toolchain outside /usr,
  // our own CUPTI library.
  Mode->addFolders(P);
  if (Config.Settings.Measure == MeasureMode::CudaKernel &&
      !Config.CuptiLibrary.empty())
    P.ReadOnly.push_back(Config.CuptiLibrary);
  // Never visible, even where a visible folder holds them.
  P.Hidden.insert(P.Hidden.end(), Config.Protected.begin(),
                  Config.Protected.end());
  // A CUDA program needs the GPU's device nodes to run at all.
  if (Config.cudaProgram())
    P.Devices = nvidiaDevices();
  return P;
}

ProcessSpec EvaluatorImpl::baseSpec(const Built &B) const {
  ProcessSpec S;
  S.PassEnv = Config.Settings.PassEnv;
  S.Limits.FileSizeBytes = 256ull << 20;
  S.Limits.MaxProcesses = 256;
  S.Limits.MemoryBytes = B.Sanitized ? 0 : memoryLimit();
  return S;
}

uint64_t EvaluatorImpl::memoryLimit() const {
  // The CUDA driver reserves far more address space than any host program
  // (unified addressing), so RLIMIT_AS would make every CUDA call fail.
  return Config.cudaProgram() ? 0 : Config.MemoryLimitBytes;
}

EvaluatorImpl::Built EvaluatorImpl::build(llvm::StringRef Text,
                                          llvm::StringRef Tag, bool Sanitized) {
  Built B;
  B.Text = Text.str();
  B.Sanitized = Sanitized;
  auto Fail = [&](EvalStatus S, std::string Reason) -> Built {
    B.Result.Status = S;
    B.Result.Reason = std::move(Reason);
    return std::move(B);
  };
  // Project mode under bubblewrap: a built copy of the project, rebuilt
  // incrementally (WorkerTrees.h); the variant's folder is its user's.
  auto Acquired = Mode->acquireTree();
  if (!Acquired)
    return Fail(EvalStatus::Crash, llvm::toString(Acquired.takeError()));
  WorkerTrees::Tree *W = *Acquired;
  llvm::scope_exit GiveBack([&] {
    if (W)
      Mode->releaseTree(*W);
  });
  auto Dir =
      ScratchDir::create("maxcode-" + Tag.str(), Config.Settings.ScratchDir,
                         W ? W->Dir->uid() : -1);
  if (!Dir)
    return Fail(EvalStatus::Crash, llvm::toString(Dir.takeError()));
  B.Dir.emplace(std::move(*Dir));
  const std::string &Scratch = B.Dir->path();
  SandboxPolicy Policy = basePolicy(B);
  Policy.Writable = {Scratch};
  // Builds have limits too (DESIGN section 7).
  ProcessSpec Spec = baseSpec(B);
  double Wall = std::max(120.0, 12 * Config.Settings.Timeout);
  Spec.Limits.WallSeconds = Wall;
  Spec.Limits.CpuSeconds = unsigned(Wall) + 1;
  Spec.Limits.MemoryBytes = Config.BuildMemoryLimitBytes;
  Spec.Limits.FileSizeBytes = 1ull << 30;
  Spec.Limits.MaxProcesses = 512;
  Spec.Limits.OutputBytes = 1 << 20;
  // Compilers write temporaries: keep them in scratch; no user's home.
  Spec.Env = {{"TMPDIR", Scratch}, {"HOME", Scratch}};

  auto Start = std::chrono::steady_clock::now();
  if (llvm::Error E = Mode->placeBuild(B, W, Spec, Policy))
    return Fail(EvalStatus::Crash, llvm::toString(std::move(E)));
  auto R = runTracked(sandboxed(Spec, Policy), JobKind::Build, &B);
  B.Result.BuildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (!R) // The compiler never ran (or its job was lost): not the variant's.
    return Fail(EvalStatus::Crash, llvm::toString(R.takeError()));
  B.Result.BuildLog = R->Stderr + R->Stdout;
  if (B.Result.BuildLog.size() > 64 * 1024)
    B.Result.BuildLog.resize(64 * 1024);
  B.Result.Diagnostics = parseCompilerOutput(B.Result.BuildLog, B.SourcePath);
  if (!R->succeeded()) {
    std::string Why = R->TimedOut
                          ? "the build " + R->describe()
                          : firstError(B.Result.Diagnostics, B.Result.BuildLog);
    // A folder the sandbox's user cannot read fails the build with a
    // message that does not say so ("Can't chdir", "No such file").
    if (std::string Advice = unreachableAdvice(Policy); !Advice.empty())
      Why += "; " + Advice;
    return Fail(R->TimedOut ? EvalStatus::Timeout : EvalStatus::BuildError,
                Why);
  }
  if (llvm::Error E = Mode->keepBuild(B, W))
    return Fail(EvalStatus::Crash, llvm::toString(std::move(E)));
  B.Ok = true;
  return B;
}
