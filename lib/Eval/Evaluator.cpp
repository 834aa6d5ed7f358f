//===-- Evaluator.cpp - Build, check and time variants --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Statistics.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Profile.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>
#include <unistd.h>

using namespace maxcode;

llvm::StringRef maxcode::measureModeName(MeasureMode M) {
  switch (M) {
  case MeasureMode::Time:
    return "time";
  case MeasureMode::Instructions:
    return "instructions";
  case MeasureMode::CudaKernel:
    return "cuda-kernel";
  }
  llvm_unreachable("unknown measure mode");
}

//===----------------------------------------------------------------------===//
// Compile commands and compiler output
//===----------------------------------------------------------------------===//

static bool isCudaFile(llvm::StringRef File) {
  llvm::StringRef Ext = llvm::sys::path::extension(File);
  return Ext == ".cu" || Ext == ".cuh";
}

std::vector<std::string>
maxcode::variantCompileCommand(const clang::tooling::CompileCommand &Command,
                               llvm::StringRef OriginalFile,
                               llvm::StringRef Source, llvm::StringRef Output,
                               bool Link, bool DebugInfo) {
  const std::vector<std::string> &In = Command.CommandLine;
  std::vector<std::string> Out;
  bool Nvcc = isNvccCommand(In);
  // Flags given after "--" name no compiler ("clang-tool"): build C++ with
  // g++ as PIE does, CUDA with nvcc.
  llvm::StringRef Argv0 = In.empty() ? "" : llvm::StringRef(In.front());
  llvm::StringRef Base = llvm::sys::path::filename(Argv0);
  if (Base == "clang-tool" || Base.empty()) {
    Nvcc = isCudaFile(OriginalFile);
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

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

struct Evaluator::Built {
  std::optional<ScratchDir> Dir;
  std::string Text;
  std::string SourcePath; ///< The variant's file in scratch.
  std::string Exe;        ///< Program mode.
  std::string Tree;       ///< Project mode: the tree copy.
  EvalResult Result;      ///< Filled up to the build.
  bool Ok = false;
  /// The scheduler's ids of the jobs run for this variant (Slurm).
  std::vector<std::string> JobIds;
};

Evaluator::Evaluator(EvalConfig C, Executor &E, EvalCache *Cache)
    : Config(std::move(C)), Exec(E), Cache(Cache) {}

Evaluator::~Evaluator() = default;

double Evaluator::processSeconds() const {
  std::lock_guard<std::mutex> L(StatsMutex);
  return ProcessTime;
}

llvm::Expected<std::unique_ptr<Evaluator>>
Evaluator::create(EvalConfig Config, Executor &Exec, EvalCache *Cache) {
  auto Buf = llvm::MemoryBuffer::getFile(Config.File);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Config.File +
                                   "': " + Buf.getError().message());
  std::unique_ptr<Evaluator> E(new Evaluator(std::move(Config), Exec, Cache));
  E->Original = (*Buf)->getBuffer().str();
  const EvalConfig &C = E->Config;
  if (C.programMode()) {
    auto Tests = loadTests(C.TestsDir);
    if (!Tests)
      return Tests.takeError();
    E->Tests = std::move(*Tests);
    // Time the largest inputs: where a faster program shows.
    std::vector<size_t> Order(E->Tests.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      return E->Tests[A].InputBytes > E->Tests[B].InputBytes;
    });
    Order.resize(std::min<size_t>(Order.size(), std::max(1u, C.MeasureTests)));
    llvm::sort(Order);
    E->TimedTests = std::move(Order);
  } else {
    if (C.BuildCmd.empty() || C.TestCmd.empty())
      return llvm::createStringError(
          "give --tests=<dir> (program mode), or --build-cmd and --test-cmd "
          "(project mode; --bench-cmd to time)");
    if (C.BenchCmd.empty() && C.Measure != MeasureMode::Instructions)
      return llvm::createStringError(
          "project mode needs --bench-cmd to measure with --measure=" +
          measureModeName(C.Measure).str());
    if (!llvm::sys::fs::is_directory(C.ProjectRoot))
      return llvm::createStringError("project root '" + C.ProjectRoot +
                                     "' is not a folder");
    if (!llvm::StringRef(C.File).starts_with(C.ProjectRoot))
      return llvm::createStringError("'" + C.File +
                                     "' is not inside the project root '" +
                                     C.ProjectRoot + "'");
    if (C.Measure == MeasureMode::Instructions)
      return llvm::createStringError(
          "--measure=instructions is for program mode (--tests); project "
          "mode measures --bench-cmd with --measure=time");
  }
  if (C.Measure == MeasureMode::CudaKernel)
    if (llvm::Error E = checkCudaMeasurable(C.CuptiLibrary))
      return std::move(E);
  // What makes two evaluations the same, besides the variant.
  llvm::SHA256 H;
  for (const std::string &A : C.Command.CommandLine)
    H.update(A + '\0');
  H.update(C.Command.Directory + '\0' + C.File + '\0' +
           measureModeName(C.Measure).str() + '\0' +
           editScopeName(C.Scope).str() + '\0' + C.BuildCmd + '\0' +
           C.TestCmd + '\0' + C.BenchCmd + '\0' + C.BenchMetric + '\0' +
           std::to_string(C.Tolerance) + '\0' + std::to_string(C.MeasureTests));
  for (const TestCase &T : E->Tests) {
    H.update(T.Name + '\0');
    for (const std::string *P : {&T.InputPath, &T.ExpectedPath})
      if (auto B = llvm::MemoryBuffer::getFile(*P))
        H.update(llvm::SHA256::hash(
            llvm::arrayRefFromStringRef((*B)->getBuffer())));
  }
  E->Fingerprint = llvm::toHex(H.final(), true);
  return std::move(E);
}

std::string Evaluator::cacheKey(const Variant &V, const Target &T) const {
  llvm::SHA256 H;
  H.update(Fingerprint + '\0' + T.Name + '\0' + V.Text);
  return llvm::toHex(H.final(), true);
}

/// \p S as text, with \p Dir (a scratch folder, whose name is random)
/// replaced by a placeholder: the same job of another process that runs the
/// same search reads the same.
static std::string describeJob(const ProcessSpec &S, llvm::StringRef Dir) {
  std::string Out;
  auto Add = [&](llvm::StringRef Field) {
    std::string F = Field.str();
    for (size_t At = 0;
         !Dir.empty() && (At = F.find(Dir.str(), At)) != std::string::npos;)
      F.replace(At, Dir.size(), "@");
    Out += F;
    Out += '\0';
  };
  for (const std::string &A : S.Argv)
    Add(A);
  Add(S.WorkingDir);
  Add(S.StdinFile);
  for (const auto &[Name, Value] : S.Env)
    Add(Name + "=" + Value);
  return Out;
}

llvm::Expected<ProcessResult> Evaluator::runTracked(const ProcessSpec &S,
                                                    JobKind K, Built *For) {
  // Checks and timed runs of a variant get a key that a resumed search
  // computes again (the same variant, run, input and repetition), so an
  // executor whose jobs outlive this process can find them. Builds do not:
  // what they make is in this process's scratch folder.
  std::string Key;
  if (For && For->Dir && K != JobKind::Build) {
    llvm::SHA256 H;
    H.update(Fingerprint + '\0' + For->Text + '\0' +
             std::to_string(static_cast<int>(K)) + '\0' +
             describeJob(S, For->Dir->path()));
    Key = llvm::toHex(H.final(), true);
    std::lock_guard<std::mutex> L(StatsMutex);
    Key += "-" + std::to_string(JobsStarted[Key]++);
  }
  auto R = Exec.run(S, K, Key);
  if (R) {
    std::lock_guard<std::mutex> L(StatsMutex);
    ProcessTime += R->WallSeconds;
    // The baseline's own runs repeat with every comparison; only a
    // variant's jobs are recorded with its evaluation.
    if (For && For != Baseline.get() && !R->JobId.empty()) {
      For->JobIds.insert(For->JobIds.end(), R->LostJobIds.begin(),
                         R->LostJobIds.end());
      For->JobIds.push_back(R->JobId);
    }
  }
  return R;
}

static llvm::Error writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return llvm::createStringError("cannot write '" + Path.str() +
                                   "': " + EC.message());
  OS << Text;
  OS.close();
  if (OS.has_error())
    return llvm::createStringError("cannot write '" + Path.str() + "'");
  return llvm::Error::success();
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

Evaluator::Built Evaluator::build(llvm::StringRef Text, llvm::StringRef Tag) {
  Built B;
  B.Text = Text.str();
  auto Dir = ScratchDir::create("maxcode-" + Tag.str(), Config.ScratchRoot);
  if (!Dir) {
    B.Result.Status = EvalStatus::Crash;
    B.Result.Reason = llvm::toString(Dir.takeError());
    return B;
  }
  B.Dir.emplace(std::move(*Dir));
  const std::string &Scratch = B.Dir->path();
  SandboxPolicy Policy;
  Policy.Mode = Config.Sandbox;
  Policy.Writable = {Scratch};
  Policy.Uid = Policy.Gid = B.Dir->uid();
  if (Config.programMode())
    Policy.Hidden = {makeAbsolutePath(Config.TestsDir)};
  ProcessSpec Spec;
  Spec.Limits.WallSeconds = std::max(120.0, 12 * Config.TimeoutSeconds);
  Spec.Limits.FileSizeBytes = 1ull << 30;
  Spec.Limits.MaxProcesses = 512;
  Spec.Limits.OutputBytes = 1 << 20;
  // Compilers write temporaries: keep them in scratch.
  Spec.Env = {{"TMPDIR", Scratch}};

  auto Start = std::chrono::steady_clock::now();
  if (Config.programMode()) {
    llvm::SmallString<256> Src(Scratch);
    llvm::sys::path::append(Src, llvm::sys::path::filename(Config.File));
    B.SourcePath = std::string(Src);
    llvm::SmallString<256> Exe(Scratch);
    llvm::sys::path::append(Exe, "prog");
    B.Exe = std::string(Exe);
    if (llvm::Error E = writeFile(Src, Text)) {
      B.Result.Status = EvalStatus::Crash;
      B.Result.Reason = llvm::toString(std::move(E));
      return B;
    }
    Spec.Argv = variantCompileCommand(
        Config.Command, Config.File, Src, Exe, /*Link=*/true,
        /*DebugInfo=*/Config.Measure == MeasureMode::Instructions);
    Spec.WorkingDir = Config.Command.Directory;
  } else {
    llvm::SmallString<256> Tree(Scratch);
    llvm::sys::path::append(Tree, "tree");
    B.Tree = std::string(Tree);
    // A copy of the project (copy-on-write where the file system can),
    // never links into the user's tree.
    ProcessSpec Copy;
    Copy.Argv = {"/bin/sh", "-c",
                 "mkdir -p " + shellQuote(B.Tree) + " && cd " +
                     shellQuote(Config.ProjectRoot) +
                     " && for f in * .[!.]* ..?*; do [ -e \"$f\" ] || "
                     "continue; [ \"$f\" = .git ] && continue; cp -a "
                     "--reflink=auto \"$f\" " +
                     shellQuote(B.Tree) + "/ || exit 1; done"};
    Copy.Limits.WallSeconds = 600;
    auto CR = runTracked(Copy, JobKind::Build, &B);
    if (!CR || !CR->succeeded()) {
      B.Result.Status = EvalStatus::Crash;
      B.Result.Reason = "cannot copy the project tree: " +
                        (CR ? CR->Stderr : llvm::toString(CR.takeError()));
      return B;
    }
    llvm::SmallString<256> Src(B.Tree);
    llvm::sys::path::append(
        Src, llvm::StringRef(Config.File).drop_front(Config.ProjectRoot.size()));
    B.SourcePath = std::string(Src);
    (void)llvm::sys::fs::remove(Src);
    if (llvm::Error E = writeFile(Src, Text)) {
      B.Result.Status = EvalStatus::Crash;
      B.Result.Reason = llvm::toString(std::move(E));
      return B;
    }
    if (int Uid = B.Dir->uid(); Uid >= 0) {
      ProcessSpec Own;
      Own.Argv = {"chown", "-R", std::to_string(Uid) + ":" +
                                     std::to_string(Uid), B.Tree};
      // Here, not as a job: the copy was made here.
      auto R = runProcess(Own);
      if (!R || !R->succeeded()) {
        B.Result.Status = EvalStatus::Crash;
        B.Result.Reason = "cannot hand the tree copy to the sandbox's user: " +
                          (R ? R->describe() : llvm::toString(R.takeError()));
        return B;
      }
    }
    Policy.Hidden = {Config.ProjectRoot};
    Spec.Argv = {"/bin/sh", "-c", Config.BuildCmd};
    Spec.WorkingDir = B.Tree;
  }
  auto R = runTracked(sandboxed(Spec, Policy), JobKind::Build, &B);
  B.Result.BuildSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - Start)
                              .count();
  if (!R) {
    // The compiler never ran (or its job was lost): not the variant's error.
    B.Result.Status = EvalStatus::Crash;
    B.Result.Reason = llvm::toString(R.takeError());
    return B;
  }
  B.Result.BuildLog = R->Stderr + R->Stdout;
  if (B.Result.BuildLog.size() > 64 * 1024)
    B.Result.BuildLog.resize(64 * 1024);
  B.Result.Diagnostics =
      parseCompilerOutput(B.Result.BuildLog, B.SourcePath);
  if (!R->succeeded()) {
    B.Result.Status = R->TimedOut ? EvalStatus::Timeout : EvalStatus::BuildError;
    B.Result.Reason = R->TimedOut ? "the build " + R->describe()
                                  : firstError(B.Result.Diagnostics,
                                               B.Result.BuildLog);
    return B;
  }
  B.Ok = true;
  return B;
}

/// Classifies a run that did not succeed.
static void describeFailedRun(const ProcessResult &R, EvalResult &Out,
                              llvm::StringRef What) {
  if (R.TimedOut) {
    Out.Status = EvalStatus::Timeout;
    Out.Reason = What.str() + " " + R.describe();
  } else {
    Out.Status = EvalStatus::Crash;
    Out.Reason = What.str() + " " + R.describe();
    if (R.OutputLimitExceeded)
      Out.Reason += " (" + std::to_string(R.Stdout.size() >> 20) + " MiB cap)";
  }
}

namespace {
/// What maxcode-timer measured inside the sandbox.
struct TimerReport {
  double WallSeconds = 0, UserSeconds = 0, SystemSeconds = 0;
  uint64_t MaxRSSBytes = 0;
};

std::optional<TimerReport> readTimerReport(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 6> F;
  llvm::SplitString((*Buf)->getBuffer(), F);
  long long Wall, User, Sys, RSS;
  if (F.size() < 4 || F[0].getAsInteger(10, Wall) ||
      F[1].getAsInteger(10, User) || F[2].getAsInteger(10, Sys) ||
      F[3].getAsInteger(10, RSS))
    return std::nullopt;
  TimerReport R;
  R.WallSeconds = Wall / 1e9;
  R.UserSeconds = User / 1e6;
  R.SystemSeconds = Sys / 1e6;
  R.MaxRSSBytes = uint64_t(RSS) * 1024;
  return R;
}
} // namespace

llvm::Expected<std::vector<double>>
Evaluator::measureOnce(Built &B, bool Warmup, EvalResult *HotLinesInto) {
  SandboxPolicy Policy = runPolicy(B);
  std::vector<double> Costs;
  auto Check = [](const ProcessResult &R) -> llvm::Error {
    if (R.succeeded())
      return llvm::Error::success();
    llvm::StringRef Tail = llvm::StringRef(R.Stderr).trim();
    if (Tail.size() > 500)
      Tail = Tail.take_back(500);
    return llvm::createStringError("a timed run " + R.describe() +
                                   (Tail.empty() ? "" : ": " + Tail.str()));
  };
  if (!Config.programMode()) {
    ProcessSpec S;
    std::string Report = B.Dir->path() + "/timing.txt";
    S.Argv = {"/bin/sh", "-c", Config.BenchCmd};
    if (!Config.TimerPath.empty())
      S.Argv.insert(S.Argv.begin(), {Config.TimerPath, Report});
    S.WorkingDir = B.Tree;
    S.Limits.WallSeconds = Config.TimeoutSeconds;
    S.Limits.FileSizeBytes = 1ull << 30;
    S.Limits.MaxProcesses = 512;
    if (Config.Measure == MeasureMode::CudaKernel) {
      auto Cost = measureKernels(B, S, Policy, HotLinesInto);
      if (!Cost)
        return Cost.takeError();
      Costs.push_back(*Cost);
      return Costs;
    }
    auto R = runTracked(sandboxed(S, Policy), JobKind::Timed, &B);
    if (!R)
      return R.takeError();
    if (llvm::Error E = Check(*R))
      return std::move(E);
    if (Config.BenchMetric.empty()) {
      std::optional<TimerReport> T = readTimerReport(Report);
      Costs.push_back(T ? T->WallSeconds : R->WallSeconds);
    } else {
      llvm::Regex Re(Config.BenchMetric);
      llvm::SmallVector<llvm::StringRef, 2> M;
      std::string Out = R->Stdout + R->Stderr;
      double V;
      if (!Re.match(Out, &M) ||
          !llvm::to_float(M.size() > 1 ? M[1] : M[0], V))
        return llvm::createStringError("--bench-metric '" +
                                       Config.BenchMetric +
                                       "' found no number in the output");
      Costs.push_back(V);
    }
    return Costs;
  }
  // Hot lines over all timed inputs (callgrind only).
  std::map<unsigned, uint64_t> LineCost;
  uint64_t TotalCost = 0;
  auto Cleanup = llvm::make_scope_exit([&] {
    if (!HotLinesInto || !TotalCost)
      return;
    for (const auto &KV : LineCost)
      HotLinesInto->HotLines.push_back(
          {KV.first, double(KV.second) / TotalCost});
  });
  for (size_t Idx : TimedTests) {
    const TestCase &T = Tests[Idx];
    ProcessSpec S;
    S.StdinFile = T.InputPath;
    S.WorkingDir = B.Dir->path();
    S.ClearEnv = true;
    S.Limits.FileSizeBytes = 256ull << 20;
    S.Limits.MaxProcesses = 256;
    if (Config.Measure == MeasureMode::Instructions) {
      if (Warmup)
        continue; // Instruction counts need no warm-up.
      S.Argv = {"valgrind", "--tool=callgrind",
                "--callgrind-out-file=" + B.Dir->path() + "/callgrind.out",
                "--dump-line=yes", "./prog"};
      S.Limits.WallSeconds = std::max(60.0, 40 * Config.TimeoutSeconds);
      auto R = runTracked(sandboxed(S, Policy), JobKind::Check, &B);
      if (!R)
        return R.takeError();
      if (llvm::Error E = Check(*R))
        return std::move(E);
      auto Buf =
          llvm::MemoryBuffer::getFile(B.Dir->path() + "/callgrind.out");
      if (!Buf)
        return llvm::createStringError("callgrind wrote no profile");
      auto P = parseCallgrind((*Buf)->getBuffer());
      if (!P)
        return P.takeError();
      Costs.push_back(double(P->Total));
      llvm::StringRef Name = llvm::sys::path::filename(B.SourcePath);
      for (const auto &KV : P->Lines)
        if (llvm::sys::path::filename(KV.first.first) == Name)
          LineCost[KV.first.second] += KV.second;
      TotalCost += P->Total;
    } else {
      std::string Report = B.Dir->path() + "/timing.txt";
      S.Argv = {"./prog"};
      if (!Config.TimerPath.empty())
        S.Argv.insert(S.Argv.begin(), {Config.TimerPath, Report});
      S.Limits.WallSeconds = Config.TimeoutSeconds;
      S.Limits.MemoryBytes = memoryLimit();
      if (Config.Measure == MeasureMode::CudaKernel) {
        auto Cost = measureKernels(B, S, Policy, HotLinesInto);
        if (!Cost)
          return Cost.takeError();
        Costs.push_back(*Cost);
        continue;
      }
      auto R = runTracked(sandboxed(S, Policy), JobKind::Timed, &B);
      if (!R)
        return R.takeError();
      if (llvm::Error E = Check(*R))
        return std::move(E);
      TimerReport T;
      if (std::optional<TimerReport> Inside = readTimerReport(Report))
        T = *Inside;
      else
        T = {R->WallSeconds, R->UserSeconds, R->SystemSeconds, R->MaxRSSBytes};
      Costs.push_back(T.WallSeconds);
      if (HotLinesInto) {
        HotLinesInto->UserSeconds += T.UserSeconds;
        HotLinesInto->SystemSeconds += T.SystemSeconds;
        HotLinesInto->PeakMemoryBytes =
            std::max(HotLinesInto->PeakMemoryBytes, T.MaxRSSBytes);
      }
    }
  }
  return Costs;
}

static double sum(llvm::ArrayRef<double> V) {
  double S = 0;
  for (double X : V)
    S += X;
  return S;
}

bool EvalConfig::cudaProgram() const {
  if (llvm::sys::path::extension(File) == ".cu")
    return true;
  for (size_t I = 0; I < Command.CommandLine.size(); ++I) {
    llvm::StringRef A = Command.CommandLine[I];
    if ((I == 0 && llvm::sys::path::filename(A).contains("nvcc")) ||
        A == "-xcuda" ||
        (A == "-x" && I + 1 < Command.CommandLine.size() &&
         Command.CommandLine[I + 1] == "cuda"))
      return true;
  }
  return false;
}

SandboxPolicy Evaluator::runPolicy(const Built &B) const {
  SandboxPolicy Policy;
  Policy.Mode = Config.Sandbox;
  Policy.Writable = {B.Dir->path()};
  Policy.Uid = Policy.Gid = B.Dir->uid();
  // The program never sees the expected outputs or the user's tree.
  Policy.Hidden = {makeAbsolutePath(Config.TestsDir),
                   std::string(llvm::sys::path::parent_path(Config.File)),
                   makeAbsolutePath(Config.Command.Directory)};
  if (!Config.ProjectRoot.empty())
    Policy.Hidden.push_back(Config.ProjectRoot);
  // The tool's own helpers stay visible even inside a hidden build folder.
  if (!Config.TimerPath.empty())
    Policy.ReadOnly.push_back(Config.TimerPath);
  if (Config.Measure == MeasureMode::CudaKernel)
    Policy.ReadOnly.push_back(Config.CuptiLibrary);
  // A CUDA program needs the GPU's device nodes to run at all.
  Policy.Devices = nvidiaDevices();
  return Policy;
}

uint64_t Evaluator::memoryLimit() const {
  // The CUDA driver reserves far more address space than any host program
  // (unified addressing), so RLIMIT_AS would make every CUDA call fail.
  return Config.cudaProgram() ? 0 : Config.MemoryLimitBytes;
}

llvm::Expected<CuptiReport> Evaluator::runUnderCupti(Built &B, ProcessSpec S,
                                                     SandboxPolicy Policy,
                                                     CuptiPass Pass) {
  // A fresh folder per run: the report is one file per CUDA process.
  llvm::SmallString<256> Dir(B.Dir->path());
  llvm::sys::path::append(Dir, "cupti");
  (void)llvm::sys::fs::remove_directories(Dir);
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError("cannot create '" + Dir +
                                   "': " + EC.message());
  if (Policy.Uid >= 0 && ::chown(Dir.c_str(), Policy.Uid, Policy.Gid) != 0)
    return llvm::createStringError("cannot hand '" + Dir +
                                   "' to the sandbox's user");
  for (auto &KV : cuptiEnvironment(Config.CuptiLibrary, Dir, Pass))
    S.Env.push_back(std::move(KV));
  auto R = runTracked(sandboxed(S, Policy), JobKind::Timed, &B);
  if (!R)
    return R.takeError();
  if (!R->succeeded()) {
    llvm::StringRef Tail = llvm::StringRef(R->Stderr).trim();
    if (Tail.size() > 500)
      Tail = Tail.take_back(500);
    return llvm::createStringError("a run under CUPTI " + R->describe() +
                                   (Tail.empty() ? "" : ": " + Tail.str()));
  }
  return readCuptiReports(Dir);
}

llvm::Expected<double> Evaluator::measureKernels(Built &B, const ProcessSpec &S,
                                                 const SandboxPolicy &Policy,
                                                 EvalResult *Into) {
  auto Report = runUnderCupti(B, S, Policy, CuptiPass::Timing);
  if (!Report)
    return Report.takeError();
  auto Cost = cudaKernelCost(*Report);
  if (!Cost)
    return Cost.takeError();
  if (Into)
    for (const std::string &N : Report->Notes)
      if (!llvm::is_contained(Into->Notes, N))
        Into->Notes.push_back(N);
  return *Cost;
}

void Evaluator::collectGpuMetrics(Built &B, llvm::StringRef Kernel,
                                  EvalResult &Out) {
  SandboxPolicy Policy = runPolicy(B);
  // One run of the first measured input (or the bench command): metrics
  // replay kernels many times, so they are never taken during timing.
  ProcessSpec S;
  if (Config.programMode()) {
    S.Argv = {"./prog"};
    S.WorkingDir = B.Dir->path();
    S.ClearEnv = true;
    if (!TimedTests.empty())
      S.StdinFile = Tests[TimedTests.front()].InputPath;
  } else {
    S.Argv = {"/bin/sh", "-c", Config.BenchCmd};
    S.WorkingDir = B.Tree;
  }
  S.Limits.WallSeconds = std::max(120.0, 20 * Config.TimeoutSeconds);
  S.Limits.FileSizeBytes = 256ull << 20;
  auto Report = runUnderCupti(B, S, Policy, CuptiPass::Metrics);
  if (!Report) {
    Out.Notes.push_back("metrics not collected: " +
                        llvm::toString(Report.takeError()));
    return;
  }
  if (Report->MetricsStatus != CuptiMetricsStatus::Collected)
    Out.Notes.push_back(
        ("metrics not collected (" +
         cuptiMetricsStatusName(Report->MetricsStatus) + ")" +
         (Report->Notes.empty() ? "" : ": " + Report->Notes.front()))
            .str());
  if (auto M = Report->metricsFor(Kernel))
    Out.Metrics.insert(M->begin(), M->end());
  // The launch configuration, for the critic's occupancy findings.
  for (const CuptiKernel &K : Report->Kernels) {
    if (!K.HasLaunch || !cuptiKernelMatches(K, Kernel))
      continue;
    Out.Metrics["registers_per_thread"] = K.RegistersPerThread;
    Out.Metrics["block_size"] =
        double(K.Block[0]) * double(K.Block[1]) * double(K.Block[2]);
    Out.Metrics["static_shared_memory"] = double(K.StaticSharedMemory);
    Out.Metrics["dynamic_shared_memory"] = double(K.DynamicSharedMemory);
    break;
  }
}

EvalResult Evaluator::checkAndMeasure(Built &B, unsigned Repetitions,
                                      bool Verify) {
  EvalResult Out = B.Result;
  SandboxPolicy Policy = runPolicy(B);

  if (Config.programMode()) {
    Out.TestsTotal = Tests.size();
    // Checks run in parallel; the first failure in test order is reported.
    std::vector<std::optional<EvalResult>> Failures(Tests.size());
    std::atomic<size_t> Next{0};
    std::atomic<bool> Failed{false};
    auto Worker = [&] {
      for (size_t I; (I = Next++) < Tests.size();) {
        if (Failed && !Verify)
          return;
        const TestCase &T = Tests[I];
        ProcessSpec S;
        S.Argv = {"./prog"};
        S.StdinFile = T.InputPath;
        S.WorkingDir = B.Dir->path();
        S.ClearEnv = true;
        S.Limits.WallSeconds = Config.TimeoutSeconds;
        S.Limits.CpuSeconds = unsigned(Config.TimeoutSeconds * 2) + 1;
        S.Limits.MemoryBytes = memoryLimit();
        S.Limits.FileSizeBytes = 256ull << 20;
        S.Limits.MaxProcesses = 256;
        auto R = runTracked(sandboxed(S, Policy), JobKind::Check, &B);
        EvalResult F;
        if (!R) {
          F.Status = EvalStatus::Crash;
          F.Reason = llvm::toString(R.takeError());
        } else if (!R->succeeded()) {
          describeFailedRun(*R, F, "the program");
          F.FirstFailure = TestFailure{T.Name, 0, "", "", R->describe()};
          F.Reason += " on test " + T.Name;
        } else {
          auto Expected = llvm::MemoryBuffer::getFile(T.ExpectedPath);
          std::optional<TestFailure> D =
              Expected ? compareOutputs((*Expected)->getBuffer(), R->Stdout,
                                        Config.Tolerance)
                       : std::optional<TestFailure>(TestFailure{
                             T.Name, 0, "", "", "expected output unreadable"});
          if (!D)
            continue;
          D->Test = T.Name;
          F.Status = EvalStatus::WrongOutput;
          F.Reason = "test " + T.Name + ", line " + std::to_string(D->Line) +
                     ": expected '" + D->Expected + "', got '" + D->Actual +
                     "'";
          F.FirstFailure = std::move(*D);
        }
        Failures[I] = std::move(F);
        Failed = true;
      }
    };
    unsigned Width = std::max(1u, std::min<unsigned>(Exec.parallelism(),
                                                     Tests.size()));
    std::vector<std::thread> Pool;
    for (unsigned I = 0; I < Width; ++I)
      Pool.emplace_back(Worker);
    for (std::thread &T : Pool)
      T.join();
    unsigned Passed = 0;
    for (size_t I = 0; I < Tests.size(); ++I) {
      if (!Failures[I]) {
        ++Passed;
        continue;
      }
      EvalResult &F = *Failures[I];
      Out.Status = F.Status;
      Out.Reason = F.Reason;
      Out.FirstFailure = F.FirstFailure;
      // Tests after a failure were not run unless verifying.
      Out.TestsPassed = Passed;
      return Out;
    }
    Out.TestsPassed = Passed;
  } else {
    Out.TestsTotal = 1;
    ProcessSpec S;
    S.Argv = {"/bin/sh", "-c", Config.TestCmd};
    S.WorkingDir = B.Tree;
    S.Limits.WallSeconds = std::max(Config.TimeoutSeconds, 60.0);
    S.Limits.FileSizeBytes = 1ull << 30;
    S.Limits.MaxProcesses = 512;
    auto R = runTracked(sandboxed(S, Policy), JobKind::Check, &B);
    if (!R || !R->succeeded()) {
      if (!R) {
        Out.Status = EvalStatus::Crash;
        Out.Reason = llvm::toString(R.takeError());
      } else if (R->TimedOut || R->Signal || R->OutputLimitExceeded) {
        describeFailedRun(*R, Out, "the test command");
      } else {
        Out.Status = EvalStatus::WrongOutput;
        Out.Reason = "the test command " + R->describe();
      }
      std::string Tail = R ? (R->Stdout + R->Stderr) : "";
      if (Tail.size() > 2000)
        Tail = Tail.substr(Tail.size() - 2000);
      Out.FirstFailure = TestFailure{"test command", 0, "", "", Tail};
      return Out;
    }
    Out.TestsPassed = 1;
  }

  // Measure against the baseline.
  Out.Status = EvalStatus::Ok;
  Out.CostUnit = Config.Measure == MeasureMode::Instructions ? "instructions"
                 : Config.Measure == MeasureMode::CudaKernel ? "gpu-ns"
                 : !Config.programMode() && !Config.BenchMetric.empty()
                     ? "bench-metric"
                     : "seconds";
  std::vector<double> A, V;
  if (Config.Measure == MeasureMode::Instructions) {
    auto Costs = measureOnce(B, false, &Out);
    if (!Costs) {
      Out.Status = EvalStatus::Crash;
      Out.Reason = llvm::toString(Costs.takeError());
      return Out;
    }
    A = {sum(BaselineCost)};
    V = {sum(*Costs)};
    Out.Repetitions = 1;
  } else {
    // Warm-up, then baseline and variant alternated: A B A B ...
    for (bool Warm : {true, false}) {
      unsigned Reps = Warm ? 1 : Repetitions;
      for (unsigned I = 0; I < Reps; ++I) {
        auto CA = measureOnce(*Baseline, false, nullptr);
        auto CV = measureOnce(B, false, Warm ? nullptr : &Out);
        if (!CA || !CV) {
          Out.Status = EvalStatus::Crash;
          if (!CA)
            Out.Reason = "the baseline failed while timing: " +
                         llvm::toString(CA.takeError());
          if (!CV) {
            std::string Msg = llvm::toString(CV.takeError());
            if (Out.Reason.empty())
              Out.Reason = Msg;
          }
          return Out;
        }
        if (Warm)
          continue;
        A.push_back(sum(*CA));
        V.push_back(sum(*CV));
      }
    }
    Out.Repetitions = Repetitions;
    if (Repetitions) {
      Out.UserSeconds /= Repetitions;
      Out.SystemSeconds /= Repetitions;
    }
  }
  // Instruction counts repeat exactly; the floor is their resolution.
  double Floor = Config.Measure == MeasureMode::Instructions ? 0.002 : 0.01;
  PairedComparison C = comparePaired(A, V, Floor);
  Out.BaselineCost = C.BaselineMedian;
  Out.VariantCost = C.VariantMedian;
  Out.RawRatio = C.RawRatio;
  Out.Ratio = C.Ratio;
  Out.RatioSpread = C.Spread;
  Out.Noise = C.Noise;
  llvm::sort(Out.HotLines, [](const HotLine &X, const HotLine &Y) {
    return X.Share > Y.Share || (X.Share == Y.Share && X.Line < Y.Line);
  });
  if (Out.HotLines.size() > 10)
    Out.HotLines.resize(10);
  Out.Reason = C.Ratio == 1.0 && C.RawRatio != 1.0
                   ? "within the noise"
                   : (C.Ratio > 1 ? "faster" : C.Ratio < 1 ? "slower" : "same");
  return Out;
}

llvm::Error Evaluator::prepareBaseline() {
  Built B = build(Original, "baseline");
  if (!B.Ok) {
    std::string Log = B.Result.BuildLog;
    if (Log.size() > 4000)
      Log.resize(4000);
    return llvm::createStringError(
        "the unmodified program does not build (" + B.Result.Reason +
        "); fix the baseline before searching\n" + Log);
  }
  Baseline = std::make_unique<Built>(std::move(B));
  if (Config.Measure == MeasureMode::Instructions) {
    auto Costs = measureOnce(*Baseline, false, nullptr);
    // Checked below with the tests; a baseline that cannot be measured
    // fails there or here.
    if (Costs)
      BaselineCost = *Costs;
    else
      return llvm::createStringError(
          "the unmodified program cannot be measured: " +
          llvm::toString(Costs.takeError()));
  }
  EvalResult R = checkAndMeasure(*Baseline, 1, /*Verify=*/false);
  if (R.Status != EvalStatus::Ok)
    return llvm::createStringError(
        "the unmodified program fails its own tests (" +
        evalStatusName(R.Status).str() + ": " + R.Reason +
        "); fix the baseline before searching");
  return llvm::Error::success();
}

std::vector<EvalResult> Evaluator::evaluate(llvm::ArrayRef<Variant> Variants,
                                            const Target &T) {
  std::vector<EvalResult> Results(Variants.size());
  std::vector<std::optional<Built>> Builds(Variants.size());
  std::vector<std::string> Keys(Variants.size());
  std::vector<bool> Pending(Variants.size(), false);
  for (size_t I = 0; I < Variants.size(); ++I) {
    const Variant &V = Variants[I];
    Keys[I] = cacheKey(V, T);
    if (Cache)
      if (std::optional<EvalResult> Hit = Cache->lookup(Keys[I])) {
        Results[I] = std::move(*Hit);
        Results[I].FromCache = true;
        continue;
      }
    if (llvm::Error E = checkScope(Original, V.Text, T, Config.Scope)) {
      Results[I].Status = EvalStatus::Rejected;
      Results[I].Reason = "edits outside --scope=" +
                          editScopeName(Config.Scope).str() + ": " +
                          llvm::toString(std::move(E));
      continue;
    }
    // A variant that is not C++ at all is rejected; semantic errors are
    // left to the project's compiler, whose diagnostics the critic reads.
    std::string Diags;
    llvm::raw_string_ostream DOS(Diags);
    bool Syntax = false;
    auto P = parseFile(Config.Command, Config.File, Config.Parse, DOS,
                       llvm::StringRef(V.Text), &Syntax);
    if (!P) {
      llvm::consumeError(P.takeError());
      if (Syntax) {
        DOS.flush();
        std::string First;
        for (llvm::StringRef L : llvm::split(Diags, '\n'))
          if (L.contains("error:")) {
            First = L.str();
            break;
          }
        // The parser names the original file; the lines are the variant's.
        llvm::StringRef F(First);
        if (F.consume_front(Config.File + ":"))
          First = "line " + F.str();
        Results[I].Status = EvalStatus::Rejected;
        Results[I].Reason = "does not parse: " + First;
        continue;
      }
    }
    Pending[I] = true;
  }
  // Builds in parallel, bounded by the executor.
  {
    std::atomic<size_t> Next{0};
    auto Worker = [&] {
      for (size_t I; (I = Next++) < Variants.size();)
        if (Pending[I])
          Builds[I].emplace(build(Variants[I].Text, "variant"));
    };
    unsigned Width = std::max(1u, Exec.parallelism());
    std::vector<std::thread> Pool;
    for (unsigned W = 0; W < Width; ++W)
      Pool.emplace_back(Worker);
    for (std::thread &Th : Pool)
      Th.join();
  }
  // Checks and measurements one variant at a time.
  for (size_t I = 0; I < Variants.size(); ++I) {
    if (!Pending[I])
      continue;
    Built &B = *Builds[I];
    Results[I] = B.Ok ? checkAndMeasure(B, Config.Repetitions, false)
                      : B.Result;
    if (Config.Measure == MeasureMode::CudaKernel && Results[I].ok())
      collectGpuMetrics(B, T.Name, Results[I]);
    Results[I].JobIds = std::move(B.JobIds);
    Builds[I].reset();
    if (Cache)
      if (llvm::Error E = Cache->store(Keys[I], Results[I]))
        Results[I].Notes.push_back("not cached: " + llvm::toString(std::move(E)));
  }
  return Results;
}

EvalResult Evaluator::evaluate(const Variant &V, const Target &T) {
  return evaluate(llvm::ArrayRef<Variant>(V), T).front();
}

EvalResult Evaluator::verify(const Variant &V, const Target &T,
                             unsigned Repetitions) {
  if (llvm::Error E = checkScope(Original, V.Text, T, Config.Scope)) {
    EvalResult R;
    R.Status = EvalStatus::Rejected;
    R.Reason = llvm::toString(std::move(E));
    return R;
  }
  Built B = build(V.Text, "verify");
  EvalResult R =
      B.Ok ? checkAndMeasure(B, Repetitions, /*Verify=*/true) : B.Result;
  R.JobIds = std::move(B.JobIds);
  return R;
}
