//===-- EvalRun.cpp - Run a built variant once ----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every run of a variant follows DESIGN section 4: it starts in a fresh
// folder, under the supervisor (maxcode-timer), in the same sandbox as every
// other run and build; its output is compared with the expected one whether
// it was a check or a measured run; and its measurements come from the
// supervisor's report or valgrind's log, never from a file the program could
// have written.
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
#include "maxcode/Support/Options.h"
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

std::string evaldetail::bounded(llvm::StringRef S, size_t N) {
  if (S.size() <= N)
    return S.str();
  return S.take_front(N).str() + "...";
}

char evaldetail::RunFailure::ID;

void evaldetail::recordFailure(llvm::Error E, EvalResult &Out) {
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

llvm::Error evaldetail::writeFile(llvm::StringRef Path, llvm::StringRef Text) {
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

double evaldetail::sum(llvm::ArrayRef<double> V) {
  double S = 0;
  for (double X : V)
    S += X;
  return S;
}

/// The per-process instruction counts of valgrind's log (--log-fd): one
/// "Collected : N" per process. The program shares the descriptor, so it
/// can add lines but cannot take valgrind's away; anything that is not
/// valgrind's own format, or a process counted twice, is tampering.
llvm::Expected<uint64_t> evaldetail::instructionsFromLog(llvm::StringRef Log,
                                                         int MainPid) {
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

/// The callgrind profiles in \p Folder, each as \p Each sees it; a file that
/// is not one is skipped.
void evaldetail::forEachProfile(
    llvm::StringRef Folder,
    llvm::function_ref<void(const CallgrindProfile &)> Each) {
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
    Each(*P);
  }
}

std::vector<std::string>
evaldetail::callgrindArgv(llvm::StringRef OutFile,
                          std::vector<std::string> Argv, bool LineInfo,
                          llvm::ArrayRef<std::string> Options) {
  // Every process of the run counted (DESIGN section 4, rule 4), its log on
  // a pipe the supervisor reads: the program shares the descriptor, so it
  // can add lines but cannot take valgrind's away.
  std::vector<std::string> V = {"valgrind", "--tool=callgrind",
                                "--trace-children=yes", "--log-fd=3"};
  if (LineInfo)
    V.push_back("--dump-line=yes");
  V.insert(V.end(), Options.begin(), Options.end());
  V.push_back(("--callgrind-out-file=" + OutFile).str());
  V.insert(V.end(), Argv.begin(), Argv.end());
  return V;
}

std::optional<std::pair<EvalStatus, std::string>>
evaldetail::classifyRun(const ProcessResult &P, const SupervisorReport *Rep,
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

std::optional<EvalResult>
evaldetail::judgeTestRun(const ProcessResult &P, const SupervisorReport *Rep,
                         const TestCase &T, const EvalConfig &Config,
                         bool HeldOut, llvm::StringRef When,
                         llvm::ArrayRef<std::string> BaselineRuns) {
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
      Expected ? compareOutputs((*Expected)->getBuffer(), P.Stdout,
                                Config.Settings.Tolerance)
               : std::optional<TestFailure>(TestFailure{
                     T.Name, 0, "", "", "expected output unreadable"});
  if (!D) {
    // Inside the tolerance, and still not the answer the program gives: an
    // approximation (a series cut short, 22/7 for pi) is no speedup.
    D = compareWithBaseline(BaselineRuns, P.Stdout, Config.Settings.Tolerance);
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
                  "; an answer within " + Config.Names("Tolerance") +
                  " of the expected one must still be the one the program "
                  "prints";
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

llvm::Expected<ProcessResult> EvaluatorImpl::runTracked(const ProcessSpec &S,
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
std::string EvaluatorImpl::runFolderName(const RunRequest &R) {
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

llvm::Error EvaluatorImpl::setUpRun(Built &B, const RunRequest &R,
                                    RunOutcome &Out, ProcessSpec &S,
                                    SandboxPolicy &P) {
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
  // Nothing a run leaves in the kernel reaches the next (rule 12).
  P.SealKernel = true;
  std::string Inside = Bwrap ? RunInside.str() : Host;
  // Every run alike, checked or measured: glibc's string functions never
  // take the `rep stos`/`rep movs` paths, which callgrind counts a byte or
  // word at a time (a 1 MiB memset read as a million instructions, where
  // vector stores read 14x fewer at the same wall time; rule 9).
  S.Env = {{"HOME", Inside},
           {"TMPDIR", Bwrap ? "/tmp" : Inside},
           {"GLIBC_TUNABLES", RepStringTunables.str()}};
  if (B.Sanitized)
    for (auto &KV : sanitizerEnvironment())
      S.Env.push_back(std::move(KV));
  if (Bwrap)
    P.Mounts.push_back({Host, Inside, /*Writable=*/true});
  if (llvm::Error E = Mode->placeRun(B, Host, Inside, S, P))
    return E;
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

llvm::Expected<EvaluatorImpl::RunOutcome>
EvaluatorImpl::runOnce(Built &B, const RunRequest &R) {
  RunOutcome Out;
  // A project's tree as the build left it, for every run.
  if (!B.Snapshot.empty() && B.TreeUsed)
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

void EvaluatorImpl::collectGpuMetrics(Built &B, llvm::StringRef Kernel,
                                      EvalResult &Out) {
  // One run of the first measured input (or the bench command): metrics
  // replay kernels many times, so they are never taken during timing.
  RunRequest R = Mode->metricsRun();
  R.Kind = JobKind::Timed;
  R.WallSeconds = std::max(120.0, 20 * Config.Settings.Timeout);
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
