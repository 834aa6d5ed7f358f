//===-- Evaluator.cpp - Build, check and time variants --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every run of a variant follows DESIGN section 4: it starts in a fresh
// folder, under the supervisor (maxcode-timer), in the same sandbox as every
// other run and build; its output is compared with the expected one whether
// it was a check or a measured run; its measurements come from the
// supervisor's report or valgrind's log, never from a file the program could
// have written; and the search only ever sees the feedback tests.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Evaluator.h"
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
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_TYPE "maxcode-eval"

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

namespace {
/// Where a run's fresh folder and binary are inside bubblewrap: the same
/// path for every run, so that no run can tell itself from another.
constexpr llvm::StringLiteral RunInside = "/sandbox";
constexpr llvm::StringLiteral CuptiInside = "/maxcode-cupti";
constexpr llvm::StringLiteral ProfileInside = "/maxcode-profile";

/// Feedback is bounded (DESIGN section 4, rule 5): what a proposer, a
/// critic, the store and a prompt see of a test is a few hundred bytes.
constexpr size_t FeedbackBytes = 200;

std::string bounded(llvm::StringRef S, size_t N = FeedbackBytes) {
  if (S.size() <= N)
    return S.str();
  return S.take_front(N).str() + "...";
}

/// Why a run of a variant failed, with the status it gives the variant.
class RunFailure : public llvm::ErrorInfo<RunFailure> {
public:
  static char ID;
  RunFailure(EvalStatus Status, std::string Reason,
             std::optional<TestFailure> Failure = std::nullopt)
      : Status(Status), Reason(std::move(Reason)), Failure(std::move(Failure)) {
  }
  void log(llvm::raw_ostream &OS) const override { OS << Reason; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  EvalStatus Status;
  std::string Reason;
  std::optional<TestFailure> Failure;
};
char RunFailure::ID;

/// Records \p E, a failed run, into \p Out (a RunFailure keeps its status;
/// anything else is a crash).
void recordFailure(llvm::Error E, EvalResult &Out) {
  llvm::handleAllErrors(
      std::move(E),
      [&](const RunFailure &F) {
        Out.Status = F.Status;
        Out.Reason = F.Reason;
        if (F.Failure)
          Out.FirstFailure = F.Failure;
      },
      [&](const llvm::ErrorInfoBase &B) {
        Out.Status = EvalStatus::Crash;
        Out.Reason = B.message();
      });
}

llvm::Error writeFile(llvm::StringRef Path, llvm::StringRef Text) {
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

double sum(llvm::ArrayRef<double> V) {
  double S = 0;
  for (double X : V)
    S += X;
  return S;
}

/// The per-process instruction counts of valgrind's log (--log-fd): one
/// "Collected : N" per process. The program shares the descriptor, so it
/// can add lines but cannot take valgrind's away; anything that is not
/// valgrind's own format, or a process counted twice, is tampering.
llvm::Expected<uint64_t> instructionsFromLog(llvm::StringRef Log, int MainPid) {
  static const llvm::Regex Line("^==([0-9]+)== ?(.*)$");
  static const llvm::Regex Collected("^Collected : ([0-9]+)$");
  std::map<int, uint64_t> Counts;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Log.split(Lines, '\n');
  if (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  for (llvm::StringRef L : Lines) {
    llvm::SmallVector<llvm::StringRef, 3> M;
    if (!Line.match(L, &M))
      return llvm::createStringError(
          "valgrind's log holds a line valgrind did not write ('" +
          bounded(L, 80) + "'): the measurement was tampered with");
    llvm::StringRef Body = M[2];
    // Another process's prefix inside a line: half a line written before
    // valgrind's own (a line may hold "==" of its own, as in a command).
    static const llvm::Regex Prefix("==[0-9]+== ");
    if (Prefix.match(Body))
      return llvm::createStringError(
          "valgrind's log holds a spliced line: the measurement was tampered "
          "with");
    llvm::SmallVector<llvm::StringRef, 2> C;
    if (!Collected.match(Body, &C))
      continue;
    int Pid;
    uint64_t N;
    if (M[1].getAsInteger(10, Pid) || C[1].getAsInteger(10, N))
      return llvm::createStringError("valgrind's log is malformed");
    if (!Counts.emplace(Pid, N).second)
      return llvm::createStringError(
          "valgrind's log counts process " + std::to_string(Pid) +
          " twice: the measurement was tampered with");
  }
  if (!Counts.count(MainPid))
    return llvm::createStringError(
        "valgrind reported no instruction count for the program (process " +
        std::to_string(MainPid) + ")");
  uint64_t Total = 0;
  for (const auto &KV : Counts)
    Total += KV.second;
  return Total;
}
} // namespace

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

struct Evaluator::Built {
  std::optional<ScratchDir> Dir;
  std::string Text;
  std::string SourcePath; ///< The variant's file in scratch.
  std::string Exe;        ///< Program mode: the binary, read-only.
  std::string Tree;       ///< Project mode: the tree copy runs use.
  std::string Snapshot;   ///< Project mode: the tree as the build left it.
  bool TreeUsed = false;  ///< A run has used Tree since it was restored.
  EvalResult Result;      ///< Filled up to the build.
  bool Ok = false;
  /// The scheduler's ids of the jobs run for this variant (Slurm).
  std::vector<std::string> JobIds;
};

struct Evaluator::RunRequest {
  /// The program's command inside the run's folder ("./prog", valgrind ...,
  /// or a project command through /bin/sh).
  std::vector<std::string> Argv;
  std::string Stdin;
  JobKind Kind = JobKind::Check;
  double WallSeconds = 0;
  /// valgrind's --log-fd, which the supervisor reads.
  int LogFd = -1;
  /// Run under libmaxcode-cupti with this pass.
  std::optional<CuptiPass> Cupti;
  /// A folder of its own for callgrind's profiles, outside the run's working
  /// folder; "@PROFILE@" in Argv names it.
  bool Profile = false;
};

struct Evaluator::RunOutcome {
  ProcessResult Proc;
  SupervisorReport Report;
  /// The run's folder on this machine: its callgrind profiles, until the
  /// outcome is destroyed.
  std::optional<ScratchDir> Folder;
  std::optional<ScratchDir> CuptiDir;
  std::optional<ScratchDir> ProfileDir;
};

Evaluator::Evaluator(EvalConfig C, Executor &E, EvalCache *Cache)
    : Config(std::move(C)), Exec(E), Cache(Cache) {}

Evaluator::~Evaluator() = default;

double Evaluator::processSeconds() const {
  std::lock_guard<std::mutex> L(StatsMutex);
  return ProcessTime;
}

llvm::Error Evaluator::splitTests() {
  auto Loaded = loadTests(Config.TestsDir);
  if (!Loaded)
    return Loaded.takeError();
  Tests = std::move(*Loaded);
  double F = Config.HeldOutFraction;
  if (!(F >= 0 && F < 1))
    return llvm::createStringError("--held-out must be at least 0 and below 1");
  // The held-out tests are those whose names hash lowest: a split that does
  // not depend on how the folder lists them, and that a proposer cannot
  // predict from the numbering.
  size_t N = Tests.size();
  size_t H = 0;
  if (N >= 2 && F > 0)
    H = std::min(N - 1, std::max<size_t>(1, size_t(N * F + 0.5)));
  std::vector<std::pair<std::string, size_t>> ByHash;
  for (size_t I = 0; I < N; ++I)
    ByHash.push_back(
        {llvm::toHex(llvm::SHA256::hash(
             llvm::arrayRefFromStringRef(llvm::StringRef(Tests[I].Name)))),
         I});
  llvm::sort(ByHash);
  for (size_t K = 0; K < N; ++K)
    (K < H ? HeldOut : Feedback).push_back(ByHash[K].second);
  llvm::sort(HeldOut);
  llvm::sort(Feedback);
  BaselineRunCost.assign(N, {0.0, 0.0});
  BaselineOutputs.assign(N, {});
  chooseTimedTests();
  return llvm::Error::success();
}

llvm::Error Evaluator::countBaselineTests() {
  // Under instructions, what each test costs the baseline is counted, not
  // timed: CPU times of a few milliseconds tie at the clock's resolution,
  // and the tie went to the largest input, not the costliest (a loaded
  // machine timed 200 kB of white space above the real workload). Only a
  // set with more tests than are timed needs the order.
  if (Config.Measure != MeasureMode::Instructions)
    return llvm::Error::success();
  std::vector<size_t> Which;
  for (const std::vector<size_t> *Set : {&Feedback, &HeldOut})
    if (Set->size() > std::max(1u, Config.MeasureTests))
      Which.insert(Which.end(), Set->begin(), Set->end());
  std::vector<std::optional<std::string>> Failed(Which.size());
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(
      std::max(1u, std::min<unsigned>(Exec.parallelism(), Which.size()))));
  for (size_t K = 0; K < Which.size(); ++K)
    Pool.async([&, K] {
      auto C =
          measureInput(*Baseline, Which[K], MeasureMode::Instructions, nullptr);
      if (!C) {
        Failed[K] = llvm::toString(C.takeError());
        return;
      }
      BaselineRunCost[Which[K]].first = *C;
    });
  Pool.wait();
  for (size_t K = 0; K < Which.size(); ++K)
    if (Failed[K])
      return llvm::createStringError("the unmodified program cannot be "
                                     "measured on test " +
                                     Tests[Which[K]].Name + ": " + *Failed[K]);
  return llvm::Error::success();
}

void Evaluator::chooseTimedTests() {
  auto Costliest = [&](std::vector<size_t> Order) {
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      if (BaselineRunCost[A] != BaselineRunCost[B])
        return BaselineRunCost[A] > BaselineRunCost[B];
      return Tests[A].InputBytes > Tests[B].InputBytes;
    });
    Order.resize(
        std::min<size_t>(Order.size(), std::max(1u, Config.MeasureTests)));
    llvm::sort(Order);
    return Order;
  };
  TimedTests = Costliest(Feedback);
  TimedHeldOut = Costliest(HeldOut);
}

/// What `<compiler> --version` prints: part of the cache key, so that a new
/// compiler never answers from an old one's evaluations.
static std::string compilerVersion(const clang::tooling::CompileCommand &C,
                                   llvm::StringRef File) {
  std::vector<std::string> Argv =
      variantCompileCommand(C, File, File, "/dev/null", false, false);
  ProcessSpec S;
  S.Argv = {Argv.front(), "--version"};
  S.Limits.WallSeconds = 30;
  auto R = runProcess(S);
  if (!R)
    return "unknown: " + llvm::toString(R.takeError());
  return Argv.front() + "\n" + R->Stdout;
}

llvm::Expected<std::unique_ptr<Evaluator>>
Evaluator::create(EvalConfig Config, Executor &Exec, EvalCache *Cache) {
  auto Buf = llvm::MemoryBuffer::getFile(Config.File);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Config.File +
                                   "': " + Buf.getError().message());
  if (Config.TimerPath.empty() || !llvm::sys::fs::can_execute(Config.TimerPath))
    return llvm::createStringError(
        "maxcode-timer, which supervises every run, is not beside the tool "
        "('" +
        Config.TimerPath + "'); reinstall clang-maxcode");
  if (!(Config.TimeoutSeconds > 0 && Config.TimeoutSeconds <= 86400))
    return llvm::createStringError(
        "--timeout must be a number of seconds above 0 (and at most a day)");
  std::unique_ptr<Evaluator> E(new Evaluator(std::move(Config), Exec, Cache));
  E->Original = (*Buf)->getBuffer().str();
  const EvalConfig &C = E->Config;
  if (C.programMode()) {
    if (!C.HoldoutBenchCmd.empty())
      return llvm::createStringError(
          "--holdout-bench-cmd is for project mode; program mode holds out "
          "tests of its own (--held-out)");
    if (llvm::Error Err = E->splitTests())
      return Err;
  } else {
    if (C.BuildCmd.empty() || C.TestCmd.empty())
      return llvm::createStringError(
          "give --tests=<dir> (program mode), or --build-cmd and --test-cmd "
          "(project mode; --bench-cmd to time)");
    if (C.BenchCmd.empty())
      return llvm::createStringError(
          "project mode needs --bench-cmd to measure with --measure=" +
          measureModeName(C.Measure).str());
    if (!llvm::sys::fs::is_directory(C.ProjectRoot))
      return llvm::createStringError("project root '" + C.ProjectRoot +
                                     "' is not a folder");
    if (!llvm::StringRef(C.File).starts_with(C.ProjectRoot + "/"))
      return llvm::createStringError("'" + C.File +
                                     "' is not inside the project root '" +
                                     C.ProjectRoot + "'");
    if (C.Measure == MeasureMode::Instructions && !C.BenchMetric.empty())
      return llvm::createStringError(
          "--bench-metric reads the bench's own figure and "
          "--measure=instructions counts the bench's instructions: give "
          "one");
  }
  if (C.Measure == MeasureMode::CudaKernel)
    if (llvm::Error Err = checkCudaMeasurable(C.CuptiLibrary))
      return Err;
  // Project mode builds once, then incrementally, where bubblewrap can show
  // a copy at the project's own path; without it, every build is of a
  // fresh copy at another path (docs/Evaluation.md, Building).
  if (!C.programMode() && C.Sandbox == SandboxMode::Bwrap) {
    std::vector<std::string> Excluded = C.Protected;
    if (!C.ScratchRoot.empty())
      Excluded.push_back(makeAbsolutePath(C.ScratchRoot));
    E->Trees = std::make_unique<WorkerTrees>(C.ProjectRoot, C.ScratchRoot,
                                             std::move(Excluded));
  }
  // What makes two evaluations the same, besides the variant: everything
  // that can change a result (DESIGN section 4).
  llvm::SHA256 H;
  // The rules a result was judged by: a stored result from before a rule
  // changed (the linked-program check, answers held to the baseline's) is
  // not this tool's verdict.
  H.update(llvm::StringRef("judged-by-rules-2026-12-02"));
  for (const std::string &A : C.Command.CommandLine)
    H.update(A + '\0');
  for (llvm::StringRef Field :
       {llvm::StringRef(C.Command.Directory), llvm::StringRef(C.File),
        measureModeName(C.Measure), editScopeName(C.Scope),
        llvm::StringRef(C.BuildCmd), llvm::StringRef(C.TestCmd),
        llvm::StringRef(C.BenchCmd), llvm::StringRef(C.HoldoutCmd),
        llvm::StringRef(C.HoldoutBenchCmd), llvm::StringRef(C.BenchMetric),
        sandboxModeName(C.Sandbox)})
    H.update(Field.str() + '\0');
  for (double D : {C.Tolerance, C.HeldOutFraction, C.TimeoutSeconds,
                   double(C.MeasureTests), double(C.Repetitions),
                   double(C.MemoryLimitBytes), double(C.TmpBytes)})
    H.update(std::to_string(D) + '\0');
  for (const std::vector<std::string> *L : {&C.AllowApis, &C.PassEnv})
    for (const std::string &S : *L)
      H.update(S + '\0');
  H.update(compilerVersion(C.Command, C.File) + '\0');
  for (const TestCase &T : E->Tests) {
    H.update(T.Name + '\0');
    for (const std::string *P : {&T.InputPath, &T.ExpectedPath})
      if (auto B = llvm::MemoryBuffer::getFile(*P))
        H.update(
            llvm::SHA256::hash(llvm::arrayRefFromStringRef((*B)->getBuffer())));
  }
  E->Fingerprint = llvm::toHex(H.final(), true);
  return E;
}

std::string Evaluator::cacheKey(const Variant &V, const Target &T) const {
  llvm::SHA256 H;
  H.update(Fingerprint + '\0' + T.Name + '\0' + V.Text);
  return llvm::toHex(H.final(), true);
}

llvm::Expected<const VariantScreen *> Evaluator::screenFor(const Target &T) {
  std::lock_guard<std::mutex> L(ScreenMutex);
  if (!Screen || ScreenTarget != T.Name) {
    // The screen reads what the build compiler compiles: GCC's branches
    // when GCC builds.
    std::vector<std::string> Build =
        variantCompileCommand(Config.Command, Config.File, Config.File, "a.out",
                              /*Link=*/false, /*DebugInfo=*/false);
    std::string Macros;
    if (isGccCommand(Build))
      Macros = gccPredefinedMacros(Build, Config.Command.Directory);
    auto S = VariantScreen::create(Config.Command, Config.File, Config.Parse,
                                   Original, T, Config.Scope, Config.AllowApis,
                                   std::move(Macros));
    if (!S)
      return S.takeError();
    Screen = std::move(*S);
    ScreenTarget = T.Name;
  }
  return Screen.get();
}

std::optional<std::string> Evaluator::screen(const Variant &V,
                                             const Target &T) {
  auto S = screenFor(T);
  if (!S)
    return "the static screen could not run: " + llvm::toString(S.takeError());
  return (*S)->screen(V.Text);
}

llvm::Expected<std::vector<ApiUse>> Evaluator::addedCalls(llvm::StringRef Text,
                                                          const Target &T) {
  auto S = screenFor(T);
  if (!S)
    return S.takeError();
  return (*S)->addedCalls(Text);
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
  for (const std::string &A : S.Argv) {
    // The sandbox's user comes from the scratch folder's random name too.
    llvm::StringRef W(A);
    if (W.starts_with("--uid=") || W.starts_with("--gid="))
      W = W.take_front(6);
    Add(W);
  }
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

SandboxPolicy Evaluator::basePolicy(const Built &B) const {
  SandboxPolicy P;
  P.Mode = Config.Sandbox;
  P.Uid = P.Gid = B.Dir ? B.Dir->uid() : -1;
  P.Supervisor = Config.TimerPath;
  P.TmpBytes = Config.TmpBytes;
  // The same read-only allow-list for every build and run: the folders the
  // compile command reads (program mode: the source's folder for its quoted
  // includes), a toolchain outside /usr, our own CUPTI library.
  if (Config.programMode()) {
    P.ReadOnly = commandFolders(Config.Command);
    P.ReadOnly.push_back(llvm::sys::path::parent_path(Config.File).str());
  } else {
    for (std::string &F : commandFolders(Config.Command))
      if (!llvm::StringRef(F).starts_with(Config.ProjectRoot))
        P.ReadOnly.push_back(std::move(F));
  }
  if (Config.Measure == MeasureMode::CudaKernel && !Config.CuptiLibrary.empty())
    P.ReadOnly.push_back(Config.CuptiLibrary);
  // Never visible, even where a visible folder holds them.
  // (Where a copy is shown at the project's path, it covers the user's.)
  if (Config.programMode())
    P.Hidden.push_back(makeAbsolutePath(Config.TestsDir));
  else if (!Trees)
    P.Hidden.push_back(Config.ProjectRoot);
  P.Hidden.insert(P.Hidden.end(), Config.Protected.begin(),
                  Config.Protected.end());
  // A CUDA program needs the GPU's device nodes to run at all.
  if (Config.cudaProgram())
    P.Devices = nvidiaDevices();
  return P;
}

ProcessSpec Evaluator::baseSpec(const Built &B) const {
  ProcessSpec S;
  S.PassEnv = Config.PassEnv;
  S.Limits.FileSizeBytes = 256ull << 20;
  S.Limits.MaxProcesses = 256;
  S.Limits.MemoryBytes = memoryLimit();
  return S;
}

uint64_t Evaluator::memoryLimit() const {
  // The CUDA driver reserves far more address space than any host program
  // (unified addressing), so RLIMIT_AS would make every CUDA call fail.
  return Config.cudaProgram() ? 0 : Config.MemoryLimitBytes;
}

llvm::Error Evaluator::buildProgram(Built &B, ProcessSpec &Spec,
                                    SandboxPolicy &Policy) {
  const std::string &Scratch = B.Dir->path();
  llvm::SmallString<256> Src(Scratch);
  llvm::sys::path::append(Src, llvm::sys::path::filename(Config.File));
  B.SourcePath = std::string(Src);
  llvm::SmallString<256> Exe(Scratch);
  llvm::sys::path::append(Exe, "prog");
  B.Exe = std::string(Exe);
  if (llvm::Error E = writeFile(Src, B.Text))
    return E;
  Spec.Argv = variantCompileCommand(
      Config.Command, Config.File, Src, Exe, /*Link=*/true,
      /*DebugInfo=*/Config.Measure == MeasureMode::Instructions);
  Spec.WorkingDir = Config.Command.Directory;
  return llvm::Error::success();
}

llvm::Error Evaluator::copyProject(Built &B, ProcessSpec &Spec,
                                   SandboxPolicy &Policy) {
  llvm::SmallString<256> Tree(B.Dir->path());
  llvm::sys::path::append(Tree, "tree");
  B.Tree = std::string(Tree);
  // A copy of the project (copy-on-write where the file system can), never
  // links into the user's tree, never the scratch root or the store.
  std::vector<std::string> Excluded = Config.Protected;
  Excluded.push_back(makeAbsolutePath(
      Config.ScratchRoot.empty() ? B.Dir->path() : Config.ScratchRoot));
  auto Copied = copyTree(Config.ProjectRoot, B.Tree, Excluded);
  if (!Copied)
    return llvm::createStringError("cannot copy the project tree: " +
                                   llvm::toString(Copied.takeError()));
  llvm::SmallString<256> Src(B.Tree);
  llvm::sys::path::append(
      Src, llvm::StringRef(Config.File).drop_front(Config.ProjectRoot.size()));
  B.SourcePath = std::string(Src);
  (void)llvm::sys::fs::remove(Src);
  if (llvm::Error E = writeFile(Src, B.Text))
    return E;
  if (int Uid = B.Dir->uid(); Uid >= 0)
    if (llvm::Error E = chownTree(B.Tree, Uid, Uid))
      return E;
  Spec.Argv = {"/bin/sh", "-c", Config.BuildCmd};
  Spec.WorkingDir = B.Tree;
  return llvm::Error::success();
}

/// \p W's copy of the project's file \p File (under \p Root).
static std::string fileInTree(const WorkerTrees::Tree &W, llvm::StringRef Root,
                              llvm::StringRef File) {
  return W.Path + File.drop_front(Root.size()).str();
}

/// Writes \p Text as \p Path afresh (a link a build left there is replaced,
/// never followed), owned by \p Uid where that is set.
static llvm::Error replaceFile(llvm::StringRef Path, llvm::StringRef Text,
                               int Uid) {
  (void)llvm::sys::fs::remove(Path);
  if (llvm::Error E = writeFile(Path, Text))
    return E;
  if (Uid >= 0 && ::chown(Path.str().c_str(), Uid, Uid) != 0)
    return llvm::createStringError("cannot hand '" + Path.str() +
                                   "' to the sandbox's user");
  return llvm::Error::success();
}

llvm::Error Evaluator::swapIntoWorker(Built &B, WorkerTrees::Tree &W,
                                      ProcessSpec &Spec,
                                      SandboxPolicy &Policy) {
  if (llvm::Error E = replaceFile(
          fileInTree(W, Config.ProjectRoot, Config.File), B.Text, W.Dir->uid()))
    return E;
  // The build sees the copy at the project's own path: a build folder that
  // names the project by absolute path works unchanged, and the compiler
  // names the variant's file as the user's.
  B.SourcePath = Config.File;
  Policy.Mounts.push_back({W.Path, Config.ProjectRoot, /*Writable=*/true});
  Spec.Argv = {"/bin/sh", "-c", Config.BuildCmd};
  Spec.WorkingDir = Config.ProjectRoot;
  return llvm::Error::success();
}

void Evaluator::releaseWorker(WorkerTrees::Tree &W) {
  // The original file back (newer than its object, so the next build
  // recompiles it whatever it holds); a tree that cannot be put back is
  // dropped, never reused.
  if (llvm::Error E =
          replaceFile(fileInTree(W, Config.ProjectRoot, Config.File), Original,
                      W.Dir->uid())) {
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": worker tree dropped: "
                               << llvm::toString(std::move(E)) << "\n");
    return;
  }
  Trees->release(&W);
}

void Evaluator::noteIfNotIncremental(EvalResult &R) const {
  // The first build of a copy is the full one; later ones should take a
  // fraction of it. One that takes as long rebuilt everything.
  if (!Baseline)
    return;
  double Full = Baseline->Result.BuildSeconds;
  if (Full < 2 || R.BuildSeconds < 0.7 * Full)
    return;
  R.Notes.push_back(llvm::formatv(
      "the build is not incremental: it took {0:f1} s, as long as the "
      "first build ({1:f1} s); a build command that reconfigures or cleans "
      "every time rebuilds the whole project for each variant "
      "(docs/Evaluation.md, Building)",
      R.BuildSeconds, Full));
}

Evaluator::Built Evaluator::build(llvm::StringRef Text, llvm::StringRef Tag) {
  Built B;
  B.Text = Text.str();
  auto Fail = [&](EvalStatus S, std::string Reason) -> Built {
    B.Result.Status = S;
    B.Result.Reason = std::move(Reason);
    return std::move(B);
  };
  // Project mode under bubblewrap: a built copy of the project, rebuilt
  // incrementally (WorkerTrees.h); the variant's folder is its user's.
  WorkerTrees::Tree *W = nullptr;
  if (Trees) {
    auto T = Trees->acquire();
    if (!T)
      return Fail(EvalStatus::Crash, llvm::toString(T.takeError()));
    W = *T;
  }
  llvm::scope_exit GiveBack([&] {
    if (W)
      releaseWorker(*W);
  });
  auto Dir = ScratchDir::create("maxcode-" + Tag.str(), Config.ScratchRoot,
                                W ? W->Dir->uid() : -1);
  if (!Dir)
    return Fail(EvalStatus::Crash, llvm::toString(Dir.takeError()));
  B.Dir.emplace(std::move(*Dir));
  const std::string &Scratch = B.Dir->path();
  SandboxPolicy Policy = basePolicy(B);
  Policy.Writable = {Scratch};
  // Builds have limits too (DESIGN section 7).
  ProcessSpec Spec = baseSpec(B);
  double Wall = std::max(120.0, 12 * Config.TimeoutSeconds);
  Spec.Limits.WallSeconds = Wall;
  Spec.Limits.CpuSeconds = unsigned(Wall) + 1;
  Spec.Limits.MemoryBytes = Config.BuildMemoryLimitBytes;
  Spec.Limits.FileSizeBytes = 1ull << 30;
  Spec.Limits.MaxProcesses = 512;
  Spec.Limits.OutputBytes = 1 << 20;
  // Compilers write temporaries: keep them in scratch; no user's home.
  Spec.Env = {{"TMPDIR", Scratch}, {"HOME", Scratch}};

  auto Start = std::chrono::steady_clock::now();
  if (llvm::Error E = Config.programMode() ? buildProgram(B, Spec, Policy)
                      : W                  ? swapIntoWorker(B, *W, Spec, Policy)
                                           : copyProject(B, Spec, Policy))
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
  if (Config.programMode()) {
    // What runs is read-only and, as root, no sandbox user's: no run can
    // change the binary or leave anything in the scratch folder for the
    // next run (every run gets a folder of its own).
    if (geteuid() == 0) {
      (void)::chown(B.Exe.c_str(), 0, 0);
      (void)::chown(Scratch.c_str(), 0, 0);
    }
    (void)::chmod(B.Exe.c_str(), 0555);
  } else {
    // Every run starts from the tree exactly as the build left it.
    B.Snapshot = Scratch + "/built";
    auto S = copyTree(W ? W->Path : B.Tree, B.Snapshot, {});
    if (!S)
      return Fail(EvalStatus::Crash, "cannot keep the built tree: " +
                                         llvm::toString(S.takeError()));
    if (W) {
      // The runs' copy is made from the snapshot before the first run.
      B.Tree = Scratch + "/tree";
      B.TreeUsed = true;
      W->Built = true;
      noteIfNotIncremental(B.Result);
    }
  }
  B.Ok = true;
  return B;
}

/// "the program exited with code 3", with what the supervisor saw.
static std::optional<std::pair<EvalStatus, std::string>>
classifyRun(const ProcessResult &P, const SupervisorReport *Rep,
            llvm::StringRef What) {
  if (P.Interrupted || P.Cancelled)
    return std::pair{EvalStatus::Crash, What.str() + " was " + P.describe()};
  if (P.TimedOut) {
    std::string R = What.str() + " " + P.describe();
    if (Rep && Rep->ExitCode == 0)
      R += " (it exited, but a process it started kept running)";
    return std::pair{EvalStatus::Timeout, R};
  }
  if (P.OutputLimitExceeded)
    return std::pair{EvalStatus::Crash,
                     What.str() + " " + P.describe() + " (" +
                         std::to_string(P.Stdout.size() >> 20) + " MiB cap)"};
  if (!Rep)
    return std::nullopt;
  if (Rep->Signal) {
    ProcessResult Fake;
    Fake.Signal = Rep->Signal;
    EvalStatus S =
        Rep->Signal == SIGXCPU ? EvalStatus::Timeout : EvalStatus::Crash;
    return std::pair{S, What.str() + " " + Fake.describe()};
  }
  if (Rep->ExitCode != 0)
    return std::pair{EvalStatus::Crash, What.str() + " exited with code " +
                                            std::to_string(Rep->ExitCode)};
  return std::nullopt;
}

/// Puts \p Tree back as the build left it (\p Snapshot), handed to \p Uid.
static llvm::Error restoreTree(llvm::StringRef Tree, llvm::StringRef Snapshot,
                               int Uid) {
  if (llvm::Error E = removeTree(Tree)) {
    // The copy below says that it failed; this says why.
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": restoring '" << Tree << "': "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
  auto C = copyTree(Snapshot, Tree, {});
  if (!C)
    return llvm::createStringError("cannot restore the built tree: " +
                                   llvm::toString(C.takeError()));
  if (Uid >= 0)
    if (llvm::Error E = chownTree(Tree, Uid, Uid))
      return E;
  return llvm::Error::success();
}

/// Makes \p Into, a folder of the run's own beside its folder \p Host (named
/// \p Host + \p Suffix), mounted at \p BwrapAt under bubblewrap: returns
/// where the run sees it.
static llvm::Expected<std::string>
addSideFolder(const std::string &Host, const char *Suffix, int Uid, bool Bwrap,
              llvm::StringRef BwrapAt, SandboxPolicy &P,
              std::optional<ScratchDir> &Into) {
  auto Dir = ScratchDir::createAt(Host + Suffix, Uid);
  if (!Dir)
    return Dir.takeError();
  Into.emplace(std::move(*Dir));
  std::string At = Bwrap ? BwrapAt.str() : Into->path();
  if (Bwrap)
    P.Mounts.push_back({Into->path(), At, /*Writable=*/true});
  return At;
}

/// Reads the supervisor's report of a finished run \p Proc into \p Report.
static llvm::Error readRunReport(ProcessResult &Proc,
                                 SupervisorReport &Report) {
  // A run stopped from outside has no report to read; any other run must
  // have one, or its numbers cannot be trusted.
  if (Proc.TimedOut || Proc.OutputLimitExceeded || Proc.Cancelled ||
      Proc.Interrupted) {
    if (auto Rep = parseSupervisorReport(Proc.Report))
      Report = std::move(*Rep);
    else
      llvm::consumeError(Rep.takeError()); // None is expected: it was stopped.
    return llvm::Error::success();
  }
  auto Rep = parseSupervisorReport(Proc.Report);
  if (Rep && Rep->TimedOut) {
    // The run's own deadline: a timeout, as the process's would be.
    Proc.TimedOut = true;
    Proc.WallSeconds = Rep->WallSeconds;
    Report = std::move(*Rep);
    return llvm::Error::success();
  }
  if (!Rep)
    return llvm::make_error<RunFailure>(
        EvalStatus::Crash,
        llvm::toString(Rep.takeError()) +
            (Proc.Stderr.empty()
                 ? ""
                 : ": " + bounded(llvm::StringRef(Proc.Stderr).trim())));
  Report = std::move(*Rep);
  return llvm::Error::success();
}

std::string Evaluator::runFolderName(const RunRequest &R) {
  std::string Key = std::to_string(int(R.Kind)) + '\0' + R.Stdin;
  for (const std::string &A : R.Argv)
    Key += '\0' + A;
  unsigned N;
  {
    std::lock_guard<std::mutex> L(StatsMutex);
    N = JobsStarted["run:" + Key]++;
  }
  return "run-" +
         llvm::toHex(llvm::SHA256::hash(
                         llvm::arrayRefFromStringRef(llvm::StringRef(Key))),
                     true)
             .substr(0, 12) +
         "-" + std::to_string(N);
}

llvm::Error Evaluator::setUpRun(Built &B, const RunRequest &R, RunOutcome &Out,
                                ProcessSpec &S, SandboxPolicy &P) {
  const std::string &Host = Out.Folder->path();
  bool Bwrap = Config.Sandbox == SandboxMode::Bwrap;
  S.Argv = R.Argv;
  S.StdinFile = R.Stdin;
  // The supervisor owns the run's deadline, so that a run it ends still
  // has its report; ours is a backstop for a supervisor that was killed.
  P.SupervisorTimeout = R.WallSeconds;
  S.Limits.WallSeconds = R.WallSeconds + 10;
  // The same CPU limit in every run: a program cannot tell a check from a
  // measured run by its limits.
  S.Limits.CpuSeconds = unsigned(R.WallSeconds) + 1;
  P.LogFd = R.LogFd;
  std::string Inside = Bwrap ? RunInside.str() : Host;
  S.Env = {{"HOME", Inside}, {"TMPDIR", Bwrap ? "/tmp" : Inside}};
  if (Bwrap)
    P.Mounts.push_back({Host, Inside, /*Writable=*/true});
  if (Config.programMode()) {
    S.WorkingDir = Inside;
    if (Bwrap) {
      P.Mounts.push_back({B.Exe, Inside + "/prog", /*Writable=*/false});
    } else {
      // Without a mount namespace: a read-only copy of the binary.
      std::string Copy = Host + "/prog";
      if (std::error_code EC = llvm::sys::fs::copy_file(B.Exe, Copy))
        return llvm::createStringError("cannot copy the program: " +
                                       EC.message());
      (void)::chmod(Copy.c_str(), 0555);
    }
  } else if (Trees) {
    // At the project's own path, as it was built.
    S.WorkingDir = Config.ProjectRoot;
    P.Mounts.push_back({B.Tree, Config.ProjectRoot, /*Writable=*/true});
  } else {
    S.WorkingDir = B.Tree;
    P.Writable.push_back(B.Tree);
  }
  if (R.Cupti) {
    auto CuptiAt = addSideFolder(Host, "-cupti", B.Dir->uid(), Bwrap,
                                 CuptiInside, P, Out.CuptiDir);
    if (!CuptiAt)
      return CuptiAt.takeError();
    for (auto &KV : cuptiEnvironment(Config.CuptiLibrary, *CuptiAt, *R.Cupti))
      S.Env.push_back(std::move(KV));
  }
  if (R.Profile) {
    auto At = addSideFolder(Host, "-profile", B.Dir->uid(), Bwrap,
                            ProfileInside, P, Out.ProfileDir);
    if (!At)
      return At.takeError();
    for (std::string &A : S.Argv)
      if (size_t I = A.find("@PROFILE@"); I != std::string::npos)
        A.replace(I, 9, *At);
  }
  return llvm::Error::success();
}

llvm::Expected<Evaluator::RunOutcome> Evaluator::runOnce(Built &B,
                                                         const RunRequest &R) {
  RunOutcome Out;
  // Project mode: the tree as the build left it, for every run.
  if (!Config.programMode() && B.TreeUsed)
    if (llvm::Error E = restoreTree(B.Tree, B.Snapshot, B.Dir->uid()))
      return E;
  B.TreeUsed = true;
  // A fresh folder per run, named the same in every process that runs the
  // same search (a resumed search finds its jobs by their command lines).
  std::string Name = runFolderName(R);
  auto Folder = ScratchDir::createAt(B.Dir->path() + "/" + Name, B.Dir->uid());
  if (!Folder)
    return Folder.takeError();
  Out.Folder.emplace(std::move(*Folder));
  ProcessSpec S = baseSpec(B);
  SandboxPolicy P = basePolicy(B);
  if (llvm::Error E = setUpRun(B, R, Out, S, P))
    return E;
  auto Proc = runTracked(sandboxed(S, P), R.Kind, &B);
  if (!Proc)
    return Proc.takeError();
  Out.Proc = std::move(*Proc);
  if (llvm::Error E = readRunReport(Out.Proc, Out.Report))
    return E;
  return Out;
}

bool EvalConfig::cudaProgram() const {
  return compilesAsCuda(Command.CommandLine, File);
}

void Evaluator::collectGpuMetrics(Built &B, llvm::StringRef Kernel,
                                  EvalResult &Out) {
  // One run of the first measured input (or the bench command): metrics
  // replay kernels many times, so they are never taken during timing.
  RunRequest R;
  if (Config.programMode()) {
    R.Argv = {"./prog"};
    if (!timed().empty())
      R.Stdin = Tests[timed().front()].InputPath;
  } else {
    R.Argv = {"/bin/sh", "-c", Config.BenchCmd};
  }
  R.Kind = JobKind::Timed;
  R.WallSeconds = std::max(120.0, 20 * Config.TimeoutSeconds);
  R.Cupti = CuptiPass::Metrics;
  auto Run = runOnce(B, R);
  if (!Run) {
    Out.Notes.push_back("metrics not collected: " +
                        llvm::toString(Run.takeError()));
    return;
  }
  if (auto Bad = classifyRun(Run->Proc, &Run->Report, "the metrics run")) {
    Out.Notes.push_back("metrics not collected: " + Bad->second);
    return;
  }
  auto Report = readCuptiReports(Run->CuptiDir->path());
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

/// The failure of test \p Name given its run; nothing when it passed.
/// \p HeldOut: its details stay out of the feedback.
/// \p BaselineRuns: what the unmodified program printed for it, where that
/// holds decimals (compareWithBaseline); empty for the baseline itself.
static std::optional<EvalResult>
judgeTestRun(const ProcessResult &P, const SupervisorReport *Rep,
             const TestCase &T, double Tolerance, bool HeldOut,
             llvm::StringRef When, llvm::ArrayRef<std::string> BaselineRuns) {
  EvalResult F;
  std::string Kind = HeldOut ? "held-out test " : "test ";
  if (auto Bad = classifyRun(P, Rep, "the program")) {
    F.Status = Bad->first;
    F.Reason = Bad->second + When.str() + " on " + Kind + T.Name;
    F.FirstFailure = TestFailure{T.Name, 0, "", "", bounded(Bad->second)};
    return F;
  }
  auto Expected = llvm::MemoryBuffer::getFile(T.ExpectedPath);
  std::optional<TestFailure> D =
      Expected ? compareOutputs((*Expected)->getBuffer(), P.Stdout, Tolerance)
               : std::optional<TestFailure>(TestFailure{
                     T.Name, 0, "", "", "expected output unreadable"});
  if (!D) {
    // Inside the tolerance, and still not the answer the program gives: an
    // approximation (a series cut short, 22/7 for pi) is no speedup.
    D = compareWithBaseline(BaselineRuns, P.Stdout);
    if (!D)
      return std::nullopt;
    D->Test = T.Name;
    F.Status = EvalStatus::WrongOutput;
    F.Reason = "approximate answer" + When.str() + " on " + Kind + T.Name +
               " (line " + std::to_string(D->Line) + ")";
    if (HeldOut) {
      D->Expected.clear();
      D->Actual.clear();
      D->Detail.clear();
    } else {
      F.Reason += ": '" + bounded(D->Actual) + "' is " + D->Detail +
                  "; an answer within --tolerance of the expected one must "
                  "still be the one the program prints";
    }
    F.FirstFailure = std::move(*D);
    return F;
  }
  D->Test = T.Name;
  F.Status = EvalStatus::WrongOutput;
  if (!D->Line) {
    // Not a line that differs: the output as a whole (far too large).
    F.Reason =
        "wrong output" + When.str() + " on " + Kind + T.Name + ": " + D->Detail;
  } else if (HeldOut) {
    // Which test and line, never what was expected there.
    F.Reason = "wrong output" + When.str() + " on held-out test " + T.Name +
               " (line " + std::to_string(D->Line) + ")";
    D->Expected.clear();
    D->Actual.clear();
  } else {
    D->Expected = bounded(D->Expected);
    D->Actual = bounded(D->Actual);
    F.Reason = "test " + T.Name + ", line " + std::to_string(D->Line) +
               When.str() + ": expected '" + D->Expected + "', got '" +
               D->Actual + "'";
  }
  F.FirstFailure = std::move(*D);
  return F;
}

llvm::ArrayRef<std::string> Evaluator::baselineAnswers(size_t Test) const {
  // A --tolerance of the user's own says how far an answer may stray: the
  // baseline's digits then hold nobody to more.
  if (Config.Tolerance != DefaultTolerance)
    return {};
  return BaselineOutputs[Test];
}

void Evaluator::checkTests(Built &B, llvm::ArrayRef<size_t> Which,
                           bool IsHeldOut, bool All, EvalResult &Out) {
  // Checks run in parallel; the first failure in test order is reported.
  std::vector<std::optional<EvalResult>> Failures(Which.size());
  std::vector<char> Ran(Which.size(), 0);
  std::atomic<bool> Failed{false};
  unsigned Width =
      std::max(1u, std::min<unsigned>(Exec.parallelism(), Which.size()));
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Width));
  for (size_t K = 0; K < Which.size(); ++K)
    Pool.async([&, K] {
      if (Failed && !All)
        return;
      const TestCase &T = Tests[Which[K]];
      RunRequest R;
      R.Argv = {"./prog"};
      R.Stdin = T.InputPath;
      R.Kind = JobKind::Check;
      R.WallSeconds = Config.TimeoutSeconds;
      auto Run = runOnce(B, R);
      std::optional<EvalResult> F;
      if (!Run) {
        EvalResult E;
        recordFailure(Run.takeError(), E);
        E.Reason += " on test " + T.Name;
        F = std::move(E);
      } else {
        bool IsBaseline = &B == Baseline.get();
        F = judgeTestRun(Run->Proc, &Run->Report, T, Config.Tolerance,
                         IsHeldOut, "",
                         IsBaseline ? llvm::ArrayRef<std::string>()
                                    : baselineAnswers(Which[K]));
        if (IsBaseline) {
          // The baseline's own cost of each test picks the timed ones.
          BaselineRunCost[Which[K]] = {Run->Report.UserSeconds +
                                           Run->Report.SystemSeconds,
                                       Run->Report.WallSeconds};
          // Its answers, where they hold decimals, are what a variant's
          // are held to (compareWithBaseline).
          if (!F && hasDecimalTokens(Run->Proc.Stdout))
            BaselineOutputs[Which[K]].push_back(Run->Proc.Stdout);
        }
      }
      if (F) {
        Failures[K] = std::move(F);
        Failed = true;
      }
      Ran[K] = 1;
    });
  Pool.wait();
  unsigned Passed = 0;
  for (size_t K = 0; K < Which.size(); ++K) {
    if (!Ran[K])
      break; // Not run: an earlier test failed and not every test is wanted.
    if (!Failures[K]) {
      ++Passed;
      continue;
    }
    if (Out.ok()) {
      Out.Status = Failures[K]->Status;
      Out.Reason = Failures[K]->Reason;
      Out.FirstFailure = Failures[K]->FirstFailure;
    }
    if (!All)
      break;
  }
  (IsHeldOut ? Out.HeldOutPassed : Out.TestsPassed) += Passed;
}

void Evaluator::checkProject(Built &B, llvm::StringRef Cmd, bool IsHeldOut,
                             EvalResult &Out) {
  RunRequest R;
  R.Argv = {"/bin/sh", "-c", Cmd.str()};
  R.Kind = JobKind::Check;
  R.WallSeconds = std::max(Config.TimeoutSeconds, 60.0);
  auto Run = runOnce(B, R);
  std::string What =
      IsHeldOut ? "the held-out test command" : "the test command";
  if (!Run) {
    recordFailure(Run.takeError(), Out);
    return;
  }
  auto Bad = classifyRun(Run->Proc, &Run->Report, What);
  if (!Bad) {
    (IsHeldOut ? Out.HeldOutPassed : Out.TestsPassed) += 1;
    return;
  }
  // A test command that ran and said no is a wrong output; a signal, a
  // timeout or the output cap is what it is.
  Out.Status = Run->Report.Signal || Run->Proc.TimedOut ||
                       Run->Proc.OutputLimitExceeded || Run->Report.Killed
                   ? Bad->first
                   : EvalStatus::WrongOutput;
  Out.Reason = Bad->second;
  std::string Tail = IsHeldOut ? "" : Run->Proc.Stdout + Run->Proc.Stderr;
  if (Tail.size() > 400)
    Tail = "..." + Tail.substr(Tail.size() - 400);
  Out.FirstFailure = TestFailure{
      IsHeldOut ? "held-out test command" : "test command", 0, "", "", Tail};
}

/// Hot lines of \p SourceName from the callgrind profiles in \p Folder.
static void addHotLines(llvm::StringRef Folder, llvm::StringRef SourceName,
                        std::map<unsigned, uint64_t> &Lines, uint64_t &Total) {
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Folder, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!llvm::sys::path::filename(It->path()).starts_with("callgrind.out"))
      continue;
    auto Buf = llvm::MemoryBuffer::getFile(It->path());
    if (!Buf)
      continue;
    auto P = parseCallgrind((*Buf)->getBuffer());
    if (!P) {
      llvm::Error E = P.takeError();
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": profile '" << It->path()
                    << "' skipped: " << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
      continue;
    }
    for (const auto &KV : P->Lines)
      if (llvm::sys::path::filename(KV.first.first) == SourceName)
        Lines[KV.first.second] += KV.second;
    Total += P->Total;
  }
}

llvm::Expected<double> Evaluator::measureInput(Built &B, size_t Test,
                                               MeasureMode M,
                                               EvalResult *Into) {
  const TestCase &T = Tests[Test];
  RunRequest R;
  R.Stdin = T.InputPath;
  R.Argv = {"./prog"};
  R.Kind = JobKind::Timed;
  R.WallSeconds = Config.TimeoutSeconds;
  if (M == MeasureMode::Instructions) {
    // Every process of the run counted, its log on a pipe the supervisor
    // reads; the profiles (hot lines only) in the run's own folder.
    R.Argv = {"valgrind",
              "--tool=callgrind",
              "--trace-children=yes",
              "--log-fd=3",
              "--dump-line=yes",
              "--callgrind-out-file=@PROFILE@/callgrind.out.%p",
              "./prog"};
    R.LogFd = 3;
    R.Profile = true;
    R.Kind = JobKind::Check; // Counts do not depend on what else runs.
    R.WallSeconds = std::max(60.0, 40 * Config.TimeoutSeconds);
  } else if (M == MeasureMode::CudaKernel) {
    R.Cupti = CuptiPass::Timing;
  }
  auto Run = runOnce(B, R);
  if (!Run)
    return Run.takeError();
  // Every run is checked: one that answers differently when measured is a
  // wrong output, whatever it cost.
  if (auto F = judgeTestRun(Run->Proc, &Run->Report, T, Config.Tolerance,
                            llvm::is_contained(HeldOut, Test), " when measured",
                            &B == Baseline.get() ? llvm::ArrayRef<std::string>()
                                                 : baselineAnswers(Test)))
    return llvm::make_error<RunFailure>(F->Status, F->Reason, F->FirstFailure);
  if (M == MeasureMode::Instructions) {
    auto Count = instructionsFromLog(Run->Report.Log, Run->Report.MainPid);
    if (!Count)
      return llvm::make_error<RunFailure>(EvalStatus::Crash,
                                          llvm::toString(Count.takeError()));
    if (Into) {
      std::map<unsigned, uint64_t> Lines;
      uint64_t Total = 0;
      addHotLines(Run->ProfileDir->path(),
                  llvm::sys::path::filename(B.SourcePath), Lines, Total);
      for (const auto &KV : Lines)
        if (Total)
          Into->HotLines.push_back({KV.first, double(KV.second) / Total});
    }
    return double(*Count);
  }
  if (M == MeasureMode::CudaKernel) {
    auto Report = readCuptiReports(Run->CuptiDir->path());
    if (!Report)
      return Report.takeError();
    if (Into)
      for (const std::string &N : Report->Notes)
        if (!llvm::is_contained(Into->Notes, N))
          Into->Notes.push_back(N);
    return cudaKernelCost(*Report);
  }
  if (Into) {
    Into->UserSeconds += Run->Report.UserSeconds;
    Into->SystemSeconds += Run->Report.SystemSeconds;
    Into->PeakMemoryBytes =
        std::max(Into->PeakMemoryBytes, Run->Report.MaxRSSBytes);
  }
  return Run->Report.WallSeconds;
}

llvm::Expected<double> Evaluator::measureBench(Built &B, EvalResult *Into,
                                               bool WallOnly) {
  RunRequest R;
  // Verification times the held-out bench, where there is one (rule 10).
  R.Argv = {"/bin/sh", "-c",
            Timing == TimingSet::HeldOut && !Config.HoldoutBenchCmd.empty()
                ? Config.HoldoutBenchCmd
                : Config.BenchCmd};
  R.Kind = JobKind::Timed;
  R.WallSeconds = Config.TimeoutSeconds;
  if (Config.Measure == MeasureMode::CudaKernel && !WallOnly)
    R.Cupti = CuptiPass::Timing;
  bool Count = Config.Measure == MeasureMode::Instructions && !WallOnly;
  if (Count) {
    // Every process the bench starts counted, as program mode counts its
    // program's (DESIGN section 4, rule 4); the log on a pipe.
    R.Argv.insert(R.Argv.begin(),
                  {"valgrind", "--tool=callgrind", "--trace-children=yes",
                   "--log-fd=3", "--callgrind-out-file=/dev/null"});
    R.LogFd = 3;
    R.Kind = JobKind::Check; // Counts do not depend on what else runs.
    R.WallSeconds = std::max(60.0, 40 * Config.TimeoutSeconds);
  }
  auto Run = runOnce(B, R);
  if (!Run)
    return Run.takeError();
  if (auto Bad = classifyRun(Run->Proc, &Run->Report, "a timed run")) {
    llvm::StringRef Tail = llvm::StringRef(Run->Proc.Stderr).trim();
    return llvm::make_error<RunFailure>(
        Bad->first, Bad->second + (Tail.empty() ? "" : ": " + bounded(Tail)));
  }
  if (Config.Measure == MeasureMode::CudaKernel) {
    auto Report = readCuptiReports(Run->CuptiDir->path());
    if (!Report)
      return Report.takeError();
    return cudaKernelCost(*Report);
  }
  if (Count) {
    auto N = instructionsFromLog(Run->Report.Log, Run->Report.MainPid);
    if (!N)
      return llvm::make_error<RunFailure>(EvalStatus::Crash,
                                          llvm::toString(N.takeError()));
    return double(*N);
  }
  if (Config.BenchMetric.empty() || WallOnly)
    return Run->Report.WallSeconds;
  // Exactly one metric line (DESIGN section 4, rule 8): a second one, printed
  // first, is how a bench would report a number of its choosing.
  llvm::Regex Re(Config.BenchMetric, llvm::Regex::Newline);
  std::string Text = Run->Proc.Stdout + "\n" + Run->Proc.Stderr;
  llvm::StringRef Rest = Text;
  unsigned Matches = 0;
  double Value = 0;
  llvm::SmallVector<llvm::StringRef, 2> M;
  while (!Rest.empty() && Re.match(Rest, &M)) {
    ++Matches;
    if (!llvm::to_float(M.size() > 1 ? M[1] : M[0], Value))
      return llvm::make_error<RunFailure>(
          EvalStatus::Crash, "--bench-metric '" + Config.BenchMetric +
                                 "' matched '" + bounded(M[0], 80) +
                                 "', which holds no number");
    size_t Next = M[0].data() + std::max<size_t>(M[0].size(), 1) - Rest.data();
    Rest = Rest.drop_front(std::min(Next, Rest.size()));
  }
  if (Matches != 1)
    return llvm::make_error<RunFailure>(
        EvalStatus::Crash,
        "--bench-metric '" + Config.BenchMetric + "' matched " +
            std::to_string(Matches) +
            " times in the bench's output; it must match exactly once");
  return Value;
}

llvm::Expected<std::vector<double>>
Evaluator::measureOnce(Built &B, MeasureMode M, EvalResult *Into) {
  std::vector<double> Costs;
  if (!Config.programMode()) {
    auto C = measureBench(B, Into);
    if (!C)
      return C.takeError();
    Costs.push_back(*C);
    return Costs;
  }
  for (size_t Test : timed()) {
    auto C = measureInput(B, Test, M, Into);
    if (!C)
      return C.takeError();
    Costs.push_back(*C);
  }
  return Costs;
}

void Evaluator::measure(Built &B, unsigned Repetitions, EvalResult &Out) {
  Out.CostUnit = Config.Measure == MeasureMode::Instructions ? "instructions"
                 : Config.Measure == MeasureMode::CudaKernel ? "gpu-ns"
                 : !Config.programMode() && !Config.BenchMetric.empty()
                     ? "bench-metric"
                     : "seconds";
  std::vector<double> A, V;
  if (Config.Measure == MeasureMode::Instructions) {
    auto Costs = measureOnce(B, MeasureMode::Instructions, &Out);
    if (!Costs)
      return recordFailure(Costs.takeError(), Out);
    A = {sum(baselineCost()[MeasureMode::Instructions])};
    V = {sum(*Costs)};
    Out.Repetitions = 1;
  } else {
    // Warm-up, then baseline and variant alternated: A B A B ...
    for (bool Warm : {true, false}) {
      unsigned Reps = Warm ? 1 : Repetitions;
      for (unsigned I = 0; I < Reps; ++I) {
        auto CA = measureOnce(*Baseline, Config.Measure, nullptr);
        if (!CA) {
          recordFailure(CA.takeError(), Out);
          Out.Status = EvalStatus::Crash;
          Out.Reason = "the baseline failed while timing: " + Out.Reason;
          return;
        }
        auto CV = measureOnce(B, Config.Measure, Warm ? nullptr : &Out);
        if (!CV)
          return recordFailure(CV.takeError(), Out);
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
  Out.Reason = C.Ratio == 1.0 && C.RawRatio != 1.0 ? "within the noise"
                                                   : (C.Ratio > 1   ? "faster"
                                                      : C.Ratio < 1 ? "slower"
                                                                    : "same");
}

llvm::Expected<double> Evaluator::floorCost(MeasureMode M) {
  if (auto It = floorCosts().find(M); It != floorCosts().end())
    return It->second;
  // The cost of a program that does nothing, run as every measured run is:
  // exec, the dynamic loader, the C and C++ runtimes, exit.
  std::vector<double> Runs;
  if (!Config.programMode()) {
    for (int I = 0; I < 3; ++I) {
      RunRequest R;
      R.Argv = {"/bin/sh", "-c", "true"};
      R.Kind = JobKind::Timed;
      R.WallSeconds = Config.TimeoutSeconds;
      auto Run = runOnce(*Baseline, R);
      if (!Run)
        return Run.takeError();
      Runs.push_back(Run->Report.WallSeconds);
    }
  } else {
    if (!Null) {
      // The program's own start-up: its includes and macros (a C++
      // program's runtime, iostreams' initialisation) and an empty main;
      // the bare empty program where those do not build alone.
      static constexpr llvm::StringLiteral Empty = "int main() { return 0; }\n";
      if (std::string D = directivesOnly(Original); !D.empty()) {
        Null = std::make_unique<Built>(
            build(D + "\nsigned main() { return 0; }\n", "null"));
        if (!Null->Ok)
          Null.reset();
      }
      if (!Null)
        Null = std::make_unique<Built>(build(Empty, "null"));
      if (!Null->Ok)
        return llvm::createStringError("an empty program does not build: " +
                                       Null->Result.Reason);
    }
    for (int I = 0; I < (M == MeasureMode::Time ? 3 : 1); ++I) {
      double Sum = 0;
      for (size_t Test : timed()) {
        (void)Test;
        RunRequest R;
        R.Kind = JobKind::Timed;
        R.WallSeconds = Config.TimeoutSeconds;
        R.Argv = {"./prog"};
        if (M == MeasureMode::Instructions) {
          R.Argv = {"valgrind",
                    "--tool=callgrind",
                    "--trace-children=yes",
                    "--log-fd=3",
                    "--callgrind-out-file=/dev/null",
                    "./prog"};
          R.LogFd = 3;
          R.WallSeconds = std::max(60.0, 40 * Config.TimeoutSeconds);
        }
        auto Run = runOnce(*Null, R);
        if (!Run)
          return Run.takeError();
        if (M == MeasureMode::Instructions) {
          auto N = instructionsFromLog(Run->Report.Log, Run->Report.MainPid);
          if (!N)
            return N.takeError();
          Sum += double(*N);
        } else {
          Sum += Run->Report.WallSeconds;
        }
      }
      Runs.push_back(Sum);
    }
  }
  llvm::sort(Runs);
  double F = Runs[Runs.size() / 2];
  floorCosts()[M] = F;
  return F;
}

/// The cross-check's measurements of baseline and variant by the other
/// measure (crossCheck), and the notes they leave in Out.
struct Evaluator::CrossCheckState {
  CrossCheckState(Evaluator &E, Built &B, EvalResult &Out, MeasureMode Other,
                  bool Bench)
      : E(E), B(B), Out(Out), Other(Other), Bench(Bench) {}

  /// One measurement of \p X by the other measure: its cost; by time, the
  /// CPU seconds it spent go to \p Cpu.
  llvm::Expected<double> measureOther(Built &X, double *Cpu);
  /// \p N more pairs into A and V; false when measuring failed (Out then
  /// says why).
  bool measurePairs(unsigned N);
  /// The start-up floor of \p M; 0, with a note, when it cannot be had.
  double floorOf(MeasureMode M);

  Evaluator &E;
  Built &B;
  EvalResult &Out;
  MeasureMode Other;
  bool Bench;
  std::vector<double> A, V;
  /// The baseline's CPU seconds in each pair, where timed in program mode.
  std::vector<double> ACpu;
};

llvm::Expected<double> Evaluator::CrossCheckState::measureOther(Built &X,
                                                                double *Cpu) {
  if (Bench) {
    auto W = E.measureBench(X, nullptr, /*WallOnly=*/true);
    if (!W)
      return W.takeError();
    return *W;
  }
  if (&X == E.Baseline.get() && Other == MeasureMode::Instructions &&
      !E.baselineCost()[Other].empty())
    return sum(E.baselineCost()[Other]);
  EvalResult Usage;
  auto C = E.measureOnce(X, Other, Cpu ? &Usage : nullptr);
  if (!C)
    return C.takeError();
  if (&X == E.Baseline.get() && Other == MeasureMode::Instructions)
    E.baselineCost()[Other] = *C;
  if (Cpu)
    *Cpu = Usage.UserSeconds + Usage.SystemSeconds;
  return sum(*C);
}

bool Evaluator::CrossCheckState::measurePairs(unsigned N) {
  bool ByCpu = !Bench && Other == MeasureMode::Time;
  for (unsigned I = 0; I < N; ++I) {
    double Cpu = 0;
    auto CA = measureOther(*E.Baseline, ByCpu ? &Cpu : nullptr);
    if (!CA) {
      Out.Notes.push_back("not cross-checked: " +
                          llvm::toString(CA.takeError()));
      return false;
    }
    auto CV = measureOther(B, nullptr);
    if (!CV) {
      // The variant fails when measured the other way: not a speedup.
      recordFailure(CV.takeError(), Out);
      Out.Reason += " (when cross-checked by " + Out.CrossMeasure + ")";
      return false;
    }
    A.push_back(*CA);
    V.push_back(*CV);
    if (ByCpu)
      ACpu.push_back(Cpu);
  }
  return true;
}

double Evaluator::CrossCheckState::floorOf(MeasureMode M) {
  auto F = E.floorCost(M);
  if (!F) {
    Out.Notes.push_back("cross-check without a start-up floor: " +
                        llvm::toString(F.takeError()));
    return 0;
  }
  return *F;
}

/// The share of \p Base's cost above the floor \p Fl (of all of it, when
/// the floor is not below it) that \p Var saved.
static double savedShare(double Base, double Var, double Fl) {
  double Variable = Base - Fl > 0 ? Base - Fl : Base;
  return Variable > 0 ? (Base - Var) / Variable : 0;
}

/// The baseline's own work by the other measure in comparison \p C: its
/// cost above the start-up floor \p FloorOther, and by time no more than
/// the CPU seconds \p Cpu it spent (none known: empty). A baseline that
/// sleeps, or waits on a device or the disk, for most of its run does none
/// of the work instructions count meanwhile: a saving of its work is judged
/// against that work, not against its sleep (a 2 s sleep beside 20 ms of
/// work read an honest 2.2x by instructions as 1.001x by time, "suspect").
static double baselineWork(const PairedComparison &C, double FloorOther,
                           llvm::ArrayRef<double> Cpu) {
  double Work = C.BaselineMedian - FloorOther;
  if (!Cpu.empty())
    Work = std::min(Work, median(Cpu) - FloorOther);
  return Work;
}

/// Whether the other measure, comparison \p C with the baseline's own work
/// \p Work (baselineWork), cannot judge the speedup (crossCheck says why).
static bool cannotJudge(const PairedComparison &C, double Work,
                        double SavedPrimary, bool LargeClaim) {
  // Judged at any ratio (2026-12-02), a program of two milliseconds, most
  // of them its start-up, read 1.33x in one run and 0.95x in the next for
  // the same honest 1.6x: its own work must be at least half its run. A
  // variant a quarter slower than the baseline is judged whatever its work
  // (one that sleeps, or leaves its work to the kernel).
  // And a third of the saving the primary measure saw, in the share of
  // the run that is work, must stand out of the other measure's noise (its
  // runs' own, or its pairs' when those scatter more): otherwise what it
  // says is noise either way.
  double Noise = std::max(C.Noise, C.Spread);
  double Slower = C.VariantMedian - C.BaselineMedian;
  // (Slower at all beside a claim above 10x; a quarter slower beside a
  // small one, whose wall time may scatter that far.)
  bool ClearlySlower = Slower > 3 * Noise * C.BaselineMedian &&
                       (LargeClaim || Slower > 0.25 * C.BaselineMedian);
  if (ClearlySlower)
    return false;
  double WorkShare = Work / C.BaselineMedian;
  // A claim above 10x is judged wherever the work is a quarter of the run
  // and above the runs' own noise, as before: a loaded machine's scattered
  // pairs must not let a bench that silenced its own metric (98536x)
  // through unjudged.
  if (LargeClaim)
    return WorkShare < 0.25 || WorkShare < 3 * C.Noise;
  return WorkShare < 0.5 || SavedPrimary / 3 * WorkShare < 3 * Noise;
}

/// The note of a cross-check whose other measure, \p CrossMeasure, cannot
/// judge; \p RawRatio is the ratio it saw.
static std::string cannotJudgeNote(const std::string &CrossMeasure,
                                   double RawRatio) {
  return llvm::formatv("not cross-checked: the baseline's own work, or the "
                       "share of it saved, is below what {0} resolves "
                       "({1:f2}x by {0})",
                       CrossMeasure, RawRatio)
      .str();
}

/// Denies \p Out's speedup by \p Primary (the bench's metric with \p Bench),
/// which the other measure saw as \p OtherRatio.
static void markSuspect(EvalResult &Out, bool Bench, MeasureMode Primary,
                        double OtherRatio) {
  // Never credited: the speedup one measure sees and the other does not is
  // what a variant that games one of them looks like.
  Out.Suspect = true;
  std::string By = Bench && Primary != MeasureMode::Instructions
                       ? "the bench's metric"
                       : measureModeName(Primary).str();
  std::string Other2 = Bench ? "its wall time" : Out.CrossMeasure;
  Out.Reason = llvm::formatv("suspect: {0:f1}x by {1}, but {2:f2}x by {3}; "
                             "not credited",
                             Out.Ratio, By, OtherRatio, Other2)
                   .str();
  Out.RawRatio = Out.Ratio;
  Out.Ratio = 1.0;
}

void Evaluator::crossCheck(Built &B, EvalResult &Out) {
  // Every credited speedup is measured again the other way (DESIGN section
  // 4): work moved where one measure does not look (into the kernel, a
  // child, valgrind's blind spots) shows up in the other, at any ratio.
  // Program mode: wall time for instructions, instructions for wall time;
  // project mode: a bench's own figure against its wall time. Both are
  // compared above the program's own start-up floor (floorCost), so that an
  // honest 4x by instructions on an input of milliseconds, which reads 1.2x
  // by time, is judged on the work it saved.
  if (!Out.ok() || Out.Ratio <= 1 || Config.Measure == MeasureMode::CudaKernel)
    return;
  bool Bench = !Config.programMode();
  if (Bench && Config.BenchMetric.empty() &&
      Config.Measure != MeasureMode::Instructions)
    return; // Wall time already.
  MeasureMode Other = Config.Measure == MeasureMode::Instructions || Bench
                          ? MeasureMode::Time
                          : MeasureMode::Instructions;
  Out.CrossMeasure = measureModeName(Other).str();
  if (Other == MeasureMode::Instructions &&
      !llvm::sys::findProgramByName("valgrind")) {
    Out.Notes.push_back("not cross-checked: valgrind is not installed");
    return;
  }
  CrossCheckState X(*this, B, Out, Other, Bench);
  // Three timed pairs first; more only before calling a result suspect
  // (below), so that one noisy pair on a loaded machine cannot deny an
  // honest speedup.
  unsigned Reps = Other == MeasureMode::Time ? 3 : 1;
  if (!X.measurePairs(Reps))
    return;
  PairedComparison C = comparePaired(X.A, X.V, 0.01);
  Out.CrossRatio = C.RawRatio;
  // The two measures agree on what share of the baseline's cost the variant
  // saved, beyond the cost of starting a program at all (which wall time
  // pays in full and instructions hardly count): near that floor their
  // ratios are ill-conditioned, their savings are not. The other measure
  // must confirm at least a third of the saving.
  double FloorPrimary = Bench ? 0 : X.floorOf(Config.Measure);
  double FloorOther = X.floorOf(Other);
  // The other measure can only speak to work it resolves: a baseline whose
  // own work is a small part of its run (the rest starting a process), or
  // inside that measure's noise, confirms nothing. It still denies: a
  // variant that costs more than the baseline by it, beyond its noise (one
  // that sleeps, or waits for a child, on a loaded machine), is no speedup.
  // Whether the other measure can judge, asked again after a second look;
  // when it cannot, the note says so.
  double SavedPrimary =
      savedShare(Out.BaselineCost, Out.VariantCost, FloorPrimary);
  auto CanJudge = [&] {
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": cross-check by " << Out.CrossMeasure
                  << ": " << X.A.size() << " pairs, baseline "
                  << C.BaselineMedian << ", variant " << C.VariantMedian
                  << ", floor " << FloorOther << ", baseline's work "
                  << baselineWork(C, FloorOther, X.ACpu) << ", noise "
                  << C.Noise << ", spread " << C.Spread << "\n");
    return slowerInNearlyEveryPair(X.A, X.V, C.RawRatio) ||
           !cannotJudge(C, baselineWork(C, FloorOther, X.ACpu), SavedPrimary,
                        Out.Ratio > 10);
  };
  // The share of the baseline's own work the variant saved by the other
  // measure.
  auto SavedByOther = [&] {
    double Work = baselineWork(C, FloorOther, X.ACpu);
    return Work > 0 ? (C.BaselineMedian - C.VariantMedian) / Work
                    : savedShare(C.BaselineMedian, C.VariantMedian, 0);
  };
  bool Judged = CanJudge();
  double SavedOther = SavedByOther();
  // A second look, six more pairs, before a verdict that denies, and before
  // giving up on a claim time does not confirm: three pairs' spread is one
  // loaded moment's (a variant 1.8x slower in every pair read 31% noise by
  // its runs on a busy machine, which judged nothing); nine pairs' is the
  // machine's.
  if (Other == MeasureMode::Time && SavedOther < SavedPrimary / 3) {
    if (!X.measurePairs(6))
      return;
    C = comparePaired(X.A, X.V, 0.01);
    Out.CrossRatio = C.RawRatio;
    Judged = CanJudge();
    SavedOther = SavedByOther();
  }
  // Time reading the variant a tenth slower or more, but too scattered to
  // judge (a loaded machine stretches wall time, not the CPU time the
  // baseline's work is judged by, nor the order within the pairs): up to
  // 21 pairs, for the sign test to speak (CI read a variant twice as slow
  // by time 0.67x in nine pairs, not judged, and credited its 6.3x).
  while (!Judged && Other == MeasureMode::Time && C.RawRatio < 0.9 &&
         X.A.size() < 21) {
    if (!X.measurePairs(6))
      return;
    C = comparePaired(X.A, X.V, 0.01);
    Out.CrossRatio = C.RawRatio;
    Judged = CanJudge();
    SavedOther = SavedByOther();
  }
  if (!Judged) {
    Out.Notes.push_back(cannotJudgeNote(Out.CrossMeasure, C.RawRatio));
    return;
  }
  MAXCODE_DEBUG(llvm::dbgs()
                << DEBUG_TYPE << ": cross-check saved " << SavedPrimary
                << " by " << measureModeName(Config.Measure) << ", "
                << SavedOther << " by " << Out.CrossMeasure << "\n");
  if (SavedOther >= SavedPrimary / 3)
    return;
  markSuspect(Out, Bench, Config.Measure, C.RawRatio);
}

EvalResult Evaluator::checkAndMeasure(Built &B, unsigned Repetitions,
                                      bool HeldOutToo) {
  EvalResult Out = B.Result;
  Out.Status = EvalStatus::Ok;
  if (Config.programMode()) {
    Out.TestsTotal = Feedback.size();
    checkTests(B, Feedback, /*HeldOut=*/false, /*All=*/HeldOutToo, Out);
    if (HeldOutToo) {
      Out.HeldOutTotal = HeldOut.size();
      checkTests(B, HeldOut, /*HeldOut=*/true, /*All=*/true, Out);
    }
  } else {
    Out.TestsTotal = 1;
    checkProject(B, Config.TestCmd, false, Out);
    if (HeldOutToo && Out.ok() && !Config.HoldoutCmd.empty()) {
      Out.HeldOutTotal = 1;
      checkProject(B, Config.HoldoutCmd, true, Out);
    }
  }
  if (!Out.ok())
    return Out;
  measure(B, Repetitions, Out);
  return Out;
}

llvm::Error Evaluator::prepareBaseline(const Target *T) {
  // The static screen's parse of the original runs beside the baseline's
  // build and runs: on two cores that is most of its cost hidden.
  // The pool's destructor waits for the parse, however this returns.
  llvm::DefaultThreadPool Screening(llvm::hardware_concurrency(1));
  if (T)
    Screening.async([this, T] {
      if (auto S = screenFor(*T); !S)
        llvm::consumeError(S.takeError()); // Said again at the first screen.
    });
  Built B = build(Original, "baseline");
  if (!B.Ok) {
    std::string Log = B.Result.BuildLog;
    if (Log.size() > 4000)
      Log.resize(4000);
    return llvm::createStringError(
        "the unmodified program does not build (" + B.Result.Reason +
        "); fix it first: every variant is compared with it\n" + Log);
  }
  Baseline = std::make_unique<Built>(std::move(B));
  // Every other worker's copy starts as the baseline's build left it.
  if (Trees)
    Trees->seed(Baseline->Snapshot);
  if (Config.programMode()) {
    // A baseline the check cannot read (not ELF) turns the check off.
    auto Facts = readBinaryFacts(Baseline->Exe);
    if (Facts)
      BaselineBinary = std::move(*Facts);
    else
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": no binary check: "
                                 << llvm::toString(Facts.takeError()) << "\n");
  }
  // Every test, held-out ones included: a baseline must pass them all.
  EvalResult R = Baseline->Result;
  R.Status = EvalStatus::Ok;
  if (Config.programMode()) {
    checkTests(*Baseline, Feedback, false, /*All=*/true, R);
    checkTests(*Baseline, HeldOut, true, /*All=*/true, R);
  } else {
    checkProject(*Baseline, Config.TestCmd, false, R);
    if (R.ok() && !Config.HoldoutCmd.empty())
      checkProject(*Baseline, Config.HoldoutCmd, true, R);
  }
  if (R.Status != EvalStatus::Ok) {
    std::string Advice = "fix it first: every variant is compared with it";
    if (R.Status == EvalStatus::Timeout) {
      Advice.clear();
      llvm::raw_string_ostream(Advice)
          << "if it needs longer than "
          << llvm::format("%g", Config.TimeoutSeconds)
          << " s a run, raise --timeout";
    }
    return llvm::createStringError("the unmodified program fails its own "
                                   "tests (" +
                                   evalStatusName(R.Status).str() + ": " +
                                   R.Reason + "); " + Advice);
  }
  if (Config.programMode()) {
    // A second run of each test whose answer holds decimals: how much the
    // program's own answers vary is what a variant's may.
    std::vector<size_t> Decimal;
    for (size_t I = 0; I < Tests.size(); ++I)
      if (!BaselineOutputs[I].empty())
        Decimal.push_back(I);
    EvalResult Again = Baseline->Result;
    Again.Status = EvalStatus::Ok;
    checkTests(*Baseline, Decimal, false, /*All=*/true, Again);
    if (!Again.ok())
      return llvm::createStringError(
          "the unmodified program fails its own tests when run again (" +
          evalStatusName(Again.Status).str() + ": " + Again.Reason + ")");
    if (llvm::Error E = countBaselineTests())
      return E;
    chooseTimedTests();
  }
  // Deterministic measures are taken once; timed ones beside each variant.
  if (Config.Measure == MeasureMode::Instructions) {
    auto Costs = measureOnce(*Baseline, MeasureMode::Instructions, nullptr);
    if (!Costs)
      return llvm::createStringError(
          "the unmodified program cannot be measured: " +
          llvm::toString(Costs.takeError()));
    baselineCost()[MeasureMode::Instructions] = *Costs;
  } else {
    // A baseline that cannot be timed is said here, not at every variant.
    auto Costs = measureOnce(*Baseline, Config.Measure, nullptr);
    if (!Costs)
      return llvm::createStringError(
          "the unmodified program cannot be measured: " +
          llvm::toString(Costs.takeError()));
  }
  return llvm::Error::success();
}

void Evaluator::screenAndBuild(llvm::ArrayRef<const Variant *> Vs,
                               const Target &T, llvm::StringRef Tag,
                               std::vector<std::optional<std::string>> &Why,
                               std::vector<std::optional<Built>> &Builds) {
  // The screen's parse and the compiler on different cores at once, each
  // in its own pool (-j counts builds: with -j 1 a screen still runs beside
  // the build, which on a real project saved the parse's second of every
  // evaluation); the build of a variant the screen rejects is thrown away
  // unused.
  Why.assign(Vs.size(), std::nullopt);
  Builds.clear();
  Builds.resize(Vs.size());
  auto Width = llvm::hardware_concurrency(std::max(1u, Exec.parallelism()));
  llvm::DefaultThreadPool Screens(Width), BuildPool(Width);
  for (size_t I = 0; I < Vs.size(); ++I) {
    Screens.async([&, I] { Why[I] = screen(*Vs[I], T); });
    BuildPool.async([&, I] { Builds[I].emplace(build(Vs[I]->Text, Tag)); });
  }
  Screens.wait();
  BuildPool.wait();
  // Behind the screen, the linked program: what the compiler made of the
  // spelling (DESIGN section 4, rule 7).
  for (size_t I = 0; I < Vs.size(); ++I)
    if (!Why[I] && BaselineBinary && Builds[I]->Ok) {
      auto Facts = readBinaryFacts(Builds[I]->Exe);
      if (!Facts)
        Why[I] = llvm::toString(Facts.takeError());
      else
        Why[I] = judgeBinary(*BaselineBinary, *Facts, Config.AllowApis);
    }
  for (size_t I = 0; I < Vs.size(); ++I)
    if (Why[I]) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": rejected '" << Vs[I]->Description
                    << "': " << *Why[I] << "\n");
      Builds[I].reset();
    }
}

std::vector<EvalResult> Evaluator::evaluate(llvm::ArrayRef<Variant> Variants,
                                            const Target &T) {
  std::vector<EvalResult> Results(Variants.size());
  std::vector<std::string> Keys(Variants.size());
  std::vector<size_t> Fresh;
  std::vector<const Variant *> ToBuild;
  for (size_t I = 0; I < Variants.size(); ++I) {
    Keys[I] = cacheKey(Variants[I], T);
    if (Cache)
      if (std::optional<EvalResult> Hit = Cache->lookup(Keys[I])) {
        Results[I] = std::move(*Hit);
        Results[I].FromCache = true;
        continue;
      }
    Fresh.push_back(I);
    ToBuild.push_back(&Variants[I]);
  }
  std::vector<std::optional<std::string>> Why;
  std::vector<std::optional<Built>> Builds;
  screenAndBuild(ToBuild, T, "variant", Why, Builds);
  // Checks and measurements one variant at a time.
  for (size_t K = 0; K < Fresh.size(); ++K) {
    size_t I = Fresh[K];
    if (Why[K]) {
      Results[I].Status = EvalStatus::Rejected;
      Results[I].Reason = *Why[K];
    } else {
      Built &B = *Builds[K];
      Results[I] =
          B.Ok ? checkAndMeasure(B, Config.Repetitions, false) : B.Result;
      if (Config.Measure == MeasureMode::CudaKernel && Results[I].ok())
        collectGpuMetrics(B, T.Name, Results[I]);
      Results[I].JobIds = std::move(B.JobIds);
      Builds[K].reset();
    }
    // An interrupted evaluation says nothing about the variant.
    if (Cache && !interrupted())
      if (llvm::Error E = Cache->store(Keys[I], Results[I]))
        Results[I].Notes.push_back("not cached: " +
                                   llvm::toString(std::move(E)));
  }
  return Results;
}

EvalResult Evaluator::evaluate(const Variant &V, const Target &T) {
  return evaluate(llvm::ArrayRef<Variant>(V), T).front();
}

EvalResult Evaluator::retime(const Variant &V, const Target &T,
                             unsigned Repetitions) {
  return verification(V, T, Repetitions, "retime", /*CrossCheck=*/false);
}

EvalResult Evaluator::verify(const Variant &V, const Target &T,
                             unsigned Repetitions) {
  return verification(V, T, Repetitions, "verify", /*CrossCheck=*/true);
}

EvalResult Evaluator::verification(const Variant &V, const Target &T,
                                   unsigned Repetitions, llvm::StringRef Tag,
                                   bool CrossCheck) {
  std::vector<std::optional<std::string>> Why;
  std::vector<std::optional<Built>> Builds;
  screenAndBuild({&V}, T, Tag, Why, Builds);
  EvalResult R;
  if (Why[0]) {
    R.Status = EvalStatus::Rejected;
    R.Reason = *Why[0];
    return R;
  }
  Built &B = *Builds[0];
  // Every test, and the ratio on held-out inputs (DESIGN section 4, rule
  // 10): the incumbent's re-time as much as the winner's verification.
  R = B.Ok ? checkAndMeasure(B, Repetitions, /*HeldOutToo=*/true) : B.Result;
  if (B.Ok && R.ok())
    measureHeldOut(B, Repetitions, R);
  if (B.Ok && CrossCheck) {
    // The cross-check measures the inputs whose ratio is reported.
    llvm::SaveAndRestore<TimingSet> On(Timing, R.TimedOn == "held-out"
                                                   ? TimingSet::HeldOut
                                                   : TimingSet::Feedback);
    crossCheck(B, R);
  }
  R.JobIds = std::move(B.JobIds);
  return R;
}

void Evaluator::measureHeldOut(Built &B, unsigned Repetitions, EvalResult &R) {
  R.TimedOn = "feedback";
  if (!Config.programMode() && Config.HoldoutBenchCmd.empty()) {
    R.Notes.push_back("the ratio is the bench's, on inputs the search saw; "
                      "--holdout-bench-cmd would time the winner on inputs "
                      "it did not see");
    return;
  }
  if (Config.programMode() && TimedHeldOut.empty()) {
    R.Notes.push_back(
        Tests.size() == 1
            ? "one test only, so none is held out: the ratio is measured on "
              "the input the search saw, and a variant that remembers its "
              "answer would not be caught; give more tests"
            : "no held-out test (--held-out=0): the ratio is measured on the "
              "inputs the search saw");
    return;
  }
  llvm::SaveAndRestore<TimingSet> On(Timing, TimingSet::HeldOut);
  if (Config.Measure == MeasureMode::Instructions &&
      baselineCost()[MeasureMode::Instructions].empty()) {
    auto Costs = measureOnce(*Baseline, MeasureMode::Instructions, nullptr);
    if (!Costs) {
      recordFailure(Costs.takeError(), R);
      R.Reason =
          "the baseline cannot be measured on the held-out inputs: " + R.Reason;
      return;
    }
    baselineCost()[MeasureMode::Instructions] = *Costs;
  }
  // Only the ratio comes back: the held-out runs' hot lines and failures
  // say nothing of what they expected.
  EvalResult H;
  H.Status = EvalStatus::Ok;
  measure(B, Repetitions, H);
  if (!H.ok() && !Config.programMode())
    H.Reason = "on the held-out bench: " + H.Reason;
  if (!H.ok()) {
    R.Status = H.Status;
    R.Reason = H.Reason;
    R.FirstFailure = H.FirstFailure;
    return;
  }
  // Held-out inputs that cost far less than the feedback ones (a sample
  // test, where the search timed the real workload) cannot show a speedup
  // that grows with the work, honest or not: an honest 4x reads 1.0 there,
  // as a variant that remembers its answers does. They judge nothing, and
  // the result says so rather than pretend either way.
  double PerFeedback = R.BaselineCost / std::max<size_t>(1, TimedTests.size());
  double PerHeldOut = H.BaselineCost / std::max<size_t>(1, TimedHeldOut.size());
  if (PerHeldOut < 0.5 * PerFeedback) {
    R.Notes.push_back(llvm::formatv(
        "the held-out inputs are too small to judge the speedup (each costs "
        "the baseline {0:f0}% of a feedback input): the ratio is the one on "
        "the inputs the search saw; held-out tests as costly as the others "
        "would confirm it",
        100 * PerHeldOut / PerFeedback));
    return;
  }
  double Feedback = R.Ratio, FeedbackRaw = R.RawRatio;
  double Margin = std::max({R.Noise, R.RatioSpread, H.Noise, H.RatioSpread});
  R.FeedbackRatio = FeedbackRaw;
  R.TimedOn = "held-out";
  R.BaselineCost = H.BaselineCost;
  R.VariantCost = H.VariantCost;
  R.Ratio = H.Ratio;
  R.RawRatio = H.RawRatio;
  R.RatioSpread = H.RatioSpread;
  R.Noise = H.Noise;
  R.Reason = H.Reason;
  // Faster, resolvably, on what the search saw, and not on what it did not
  // (answers remembered, or a fast path keyed on those inputs): nothing
  // resolvable held out, or less than half the feedback speedup in log terms
  // (a 150x remembered answer beside the 1.1x a loaded machine gives an
  // unchanged program). An honest speedup varies with the input far less
  // (1.8x shown, 1.6x held out). The two must also be far apart beyond the
  // noise, and by a quarter at least: one run of a program of milliseconds
  // reads 1.04x on some inputs and 0.85x on others from noise alone.
  bool FarApart =
      FeedbackRaw >= 1.1 && H.RawRatio > 0 &&
      FeedbackRaw / H.RawRatio > 1 + std::max(2 * Margin, 0.25) &&
      (H.Ratio <= 1 || std::log(H.RawRatio) < 0.5 * std::log(FeedbackRaw));
  if (Feedback > 1 && FarApart) {
    R.ShownInputsOnly = true;
    R.Reason = llvm::formatv("fast only on the inputs it was shown: {0:f2}x "
                             "on the feedback inputs, {1:f2}x on held-out "
                             "ones; credited the held-out ratio",
                             FeedbackRaw, H.RawRatio)
                   .str();
  }
}
