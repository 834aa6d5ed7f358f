//===-- ProgramHarness.cpp - A program and its tests ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Program mode (DESIGN section 4): the target's file built alone with its
// translation unit's command into a program, run on test pairs fed on
// standard input; the feedback tests are the search's, the held-out ones
// verify a winner.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Eval/CpuEvidence.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/DerivedInputs.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Statistics.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Rewrite/Apply.h"
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

namespace maxcode {
class EvaluatorImpl::ProgramHarness : public EvaluatorImpl::Harness {
public:
  using Harness::Harness;
  llvm::Error prepare() override;
  void addFolders(SandboxPolicy &P) const override;
  llvm::Error placeBuild(Built &B, WorkerTrees::Tree *W, ProcessSpec &Spec,
                         SandboxPolicy &P) override;
  llvm::Error keepBuild(Built &B, WorkerTrees::Tree *W) override;
  llvm::Error placeRun(Built &B, const std::string &Host,
                       const std::string &Inside, ProcessSpec &S,
                       SandboxPolicy &P) override;
  RunRequest metricsRun() const override;
  void check(Built &B, bool HeldOutToo, EvalResult &Out) override;
  llvm::Error learnFromBaseline() override;
  llvm::Expected<std::vector<double>>
  measureOnce(Built &B, MeasureMode M, TimingSet On, EvalResult *Into) override;
  llvm::Expected<double> measureWall(Built &B, TimingSet On,
                                     double *Cpu) override;
  llvm::Expected<std::vector<double>> floorRuns(MeasureMode M,
                                                TimingSet On) override;
  bool bench() const override { return false; }
  size_t timedCount(TimingSet S) const override {
    return (S == TimingSet::HeldOut ? TimedHeldOut : TimedTests).size();
  }
  std::optional<std::string> noHeldOutTiming() const override;
  void addWorkload(WorkloadFacts &W) const override;
  llvm::Expected<std::vector<std::string>> sanitizerFindings(Built &B) override;
  bool derivedInput(size_t Test) const override {
    return llvm::is_contained(Derived, Test);
  }
  unsigned testCount(TimingSet S) const override {
    return (S == TimingSet::HeldOut ? HeldOut : Feedback).size();
  }
  void fingerprint(llvm::SHA256 &H) const override;
  llvm::Expected<CallgrindProfile> simulate(Built &B) override;

private:
  /// Which tests a check runs: what it may say of a failure, and where
  /// it counts the passes.
  enum class TestSet { Feedback, HeldOut, Derived };
  /// Runs \p B on tests \p Which of \p Set in parallel; with \p All every
  /// one, else up to the first failure.
  void checkTests(Built &B, llvm::ArrayRef<size_t> Which, TestSet Set, bool All,
                  EvalResult &Out);
  /// Whether test \p Test's details stay out of what the search sees.
  bool unseen(size_t Test) const {
    return llvm::is_contained(HeldOut, Test) ||
           llvm::is_contained(Derived, Test);
  }
  /// Each test's cost to the baseline as the split and the choice of timed
  /// inputs read it (BaselineRunCost; CPU seconds to the hundredth, so that
  /// a tie is broken the same way in every run).
  double costOf(size_t Test) const;
  /// Holds tests out of the search (rule 5), stratified by the baseline's
  /// cost (rule 10): the costliest tests in pairs, the one of each pair
  /// whose name hashes lowest held out, so both sides hold costly inputs.
  void splitTests();
  /// Derives inputs from the tests and keeps those the baseline answers
  /// the same way twice, in the shape of its template's answer (rule 13;
  /// DerivedInputs.h).
  llvm::Error deriveFromTests();
  /// Adds the derived input \p Text, made from test \p Template, with the
  /// baseline's two answers \p Answers, as a test kept in \p Dir.
  llvm::Error addDerivedTest(const std::string &Text, size_t Template,
                             const std::string (&Answers)[2],
                             const std::string &Dir);
  /// Runs the baseline once on \p Input for at most \p Seconds: what it
  /// printed and the run's wall seconds, or why the run does not count.
  llvm::Expected<std::pair<std::string, double>>
  baselineAnswer(llvm::StringRef Input, double Seconds);
  /// What test \p Test's answers are held to besides the expected output
  /// (none when the user set --tolerance).
  llvm::ArrayRef<std::string> baselineAnswers(size_t Test) const;
  /// One measured run of \p B on test \p Test.
  llvm::Expected<double> measureInput(Built &B, size_t Test, MeasureMode M,
                                      EvalResult *Into);
  /// Picks the timed inputs of both sets by the baseline's own cost in its
  /// check runs (BaselineRunCost): the costliest, where a faster program
  /// shows; input size only breaks ties.
  void chooseTimedTests();
  /// Whether the baseline's cost of each input is counted by instructions
  /// rather than timed: under --measure=instructions, where the split or
  /// the choice of timed inputs has more than one to order (three tests or
  /// more, or derived inputs beside the tests).
  bool wantsCounts() const;
  /// The baseline's cost of inputs \p Which by instructions, in
  /// BaselineRunCost.
  llvm::Error countBaselineTests(llvm::ArrayRef<size_t> Which);
  /// Which timed inputs measurements use (DESIGN section 4, rule 10): the
  /// costliest feedback tests while searching, the costliest held-out ones
  /// for the ratio a verification reports. Every measurement names its set.
  const std::vector<size_t> &timed(TimingSet On) const {
    return On == TimingSet::HeldOut ? TimedHeldOut : TimedTests;
  }

  /// The test pairs of --tests, then the inputs derived from them.
  std::vector<TestCase> Tests;
  /// Indices into Tests. Derived: the inputs derived from the tests (rule
  /// 13), after the user's; like held-out ones, only verifications run
  /// them.
  std::vector<size_t> Feedback, HeldOut, Derived;
  /// Whether BaselineRunCost holds instructions (countBaselineTests).
  bool Counted = false;
  /// Indices into Tests: the costliest feedback ones, and
  /// the costliest of the held-out and derived ones (chooseTimedTests).
  std::vector<size_t> TimedTests, TimedHeldOut;
  /// Each test's cost in the baseline's check run: CPU seconds (under
  /// --measure=instructions, instructions; countBaselineTests), then wall.
  std::vector<std::pair<double, double>> BaselineRunCost;
  /// Each test's outputs in the baseline's check runs, where they hold
  /// decimals (two runs): what a variant's answers are held to.
  std::vector<std::vector<std::string>> BaselineOutputs;
  /// The inputs derived from the tests and the baseline's answers
  /// (Derived), for the evaluator's life.
  std::optional<ScratchDir> DerivedFolder;
};
} // namespace maxcode

std::unique_ptr<EvaluatorImpl::Harness>
EvaluatorImpl::makeProgramHarness(EvaluatorImpl &E) {
  return std::make_unique<ProgramHarness>(E);
}

void EvaluatorImpl::ProgramHarness::fingerprint(llvm::SHA256 &H) const {
  for (const TestCase &T : Tests) {
    H.update(T.Name + '\0');
    for (const std::string *P : {&T.InputPath, &T.ExpectedPath})
      if (auto B = llvm::MemoryBuffer::getFile(*P))
        H.update(
            llvm::SHA256::hash(llvm::arrayRefFromStringRef((*B)->getBuffer())));
  }
}

llvm::Error EvaluatorImpl::ProgramHarness::prepare() {
  if (!E.Config.Settings.HoldoutBenchCommand.empty())
    return llvm::createStringError(
        E.Config.Names("HoldoutBenchCommand") +
        " is for project mode; program mode holds out "
        "tests of its own (" +
        E.Config.Names("HeldOut") + ")");
  auto Loaded = loadTests(E.Config.Settings.Tests);
  if (!Loaded)
    return Loaded.takeError();
  Tests = std::move(*Loaded);
  double F = E.Config.Settings.HeldOut;
  if (!(F >= 0 && F < 1))
    return llvm::createStringError(E.Config.Names("HeldOut") +
                                   " must be at least 0 and below 1");
  // Every test is the search's until the baseline's cost of each splits
  // them (splitTests): the baseline must pass them all anyway.
  size_t N = Tests.size();
  for (size_t I = 0; I < N; ++I)
    Feedback.push_back(I);
  BaselineRunCost.assign(N, {0.0, 0.0});
  BaselineOutputs.assign(N, {});
  chooseTimedTests();
  return llvm::Error::success();
}

bool EvaluatorImpl::ProgramHarness::wantsCounts() const {
  // Under instructions, what each input costs the baseline is counted, not
  // timed: CPU times of a few milliseconds tie at the clock's resolution,
  // and the tie went to the largest input, not the costliest (a loaded
  // machine timed 200 kB of white space above the real workload), and a
  // timed order made two runs of the same evaluation time different inputs.
  // The split (splitTests) and the timed inputs read the order; with one or
  // two tests and nothing derived there is nothing to order.
  return measureTraits(E.Config.Settings.Measure).Deterministic &&
         (Tests.size() >= 3 || E.Config.Settings.DerivedInputs > 0);
}

llvm::Error EvaluatorImpl::ProgramHarness::countBaselineTests(
    llvm::ArrayRef<size_t> Which) {
  std::vector<std::optional<std::string>> Failed(Which.size());
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(
      std::max(1u, std::min<unsigned>(E.Exec.parallelism(), Which.size()))));
  for (size_t K = 0; K < Which.size(); ++K)
    Pool.async([&, K] {
      auto C = measureInput(*E.Baseline, Which[K], E.Config.Settings.Measure,
                            nullptr);
      if (!C) {
        Failed[K] = llvm::toString(C.takeError());
        return;
      }
      BaselineRunCost[Which[K]].first = *C;
    });
  Pool.wait();
  Counted = true;
  for (size_t K = 0; K < Which.size(); ++K)
    if (Failed[K])
      return llvm::createStringError("the unmodified program cannot be "
                                     "measured on test " +
                                     Tests[Which[K]].Name + ": " + *Failed[K]);
  return llvm::Error::success();
}

void EvaluatorImpl::ProgramHarness::chooseTimedTests() {
  auto Costliest = [&](std::vector<size_t> Order) {
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      if (BaselineRunCost[A] != BaselineRunCost[B])
        return BaselineRunCost[A] > BaselineRunCost[B];
      return Tests[A].InputBytes > Tests[B].InputBytes;
    });
    Order.resize(std::min<size_t>(
        Order.size(), std::max(1u, E.Config.Settings.MeasureTests)));
    llvm::sort(Order);
    return Order;
  };
  TimedTests = Costliest(Feedback);
  // Inputs the search never saw: the held-out tests and the derived ones.
  std::vector<size_t> Unseen = HeldOut;
  llvm::append_range(Unseen, Derived);
  TimedHeldOut = Costliest(Unseen);
}

llvm::Error EvaluatorImpl::ProgramHarness::placeBuild(Built &B,
                                                      WorkerTrees::Tree *,
                                                      ProcessSpec &Spec,
                                                      SandboxPolicy &) {
  const std::string &Scratch = B.Dir->path();
  llvm::SmallString<256> Src(Scratch);
  llvm::sys::path::append(Src, llvm::sys::path::filename(E.Config.File));
  B.SourcePath = std::string(Src);
  llvm::SmallString<256> Exe(Scratch);
  llvm::sys::path::append(Exe, "prog");
  B.Exe = std::string(Exe);
  if (llvm::Error Err = writeFile(Src, B.Text))
    return Err;
  Spec.Argv = variantCompileCommand(
      E.Config.Command, E.Config.File, Src, Exe, /*Link=*/true,
      /*DebugInfo=*/measureTraits(E.Config.Settings.Measure).LinesFromBuild);
  if (B.Sanitized)
    llvm::append_range(Spec.Argv, sanitizerFlags());
  Spec.WorkingDir = E.Config.Command.Directory;
  return llvm::Error::success();
}

void EvaluatorImpl::ProgramHarness::addFolders(SandboxPolicy &P) const {
  // The folders the compile command reads, and the source's folder for its
  // quoted includes; never the tests.
  P.ReadOnly = commandFolders(E.Config.Command);
  P.ReadOnly.push_back(llvm::sys::path::parent_path(E.Config.File).str());
  P.Hidden.push_back(makeAbsolutePath(E.Config.Settings.Tests));
}

llvm::Error EvaluatorImpl::ProgramHarness::keepBuild(Built &B,
                                                     WorkerTrees::Tree *) {
  // What runs is read-only and, as root, no sandbox user's: no run can
  // change the binary or leave anything in the scratch folder for the next
  // run (every run gets a folder of its own).
  if (geteuid() == 0) {
    (void)::chown(B.Exe.c_str(), 0, 0);
    (void)::chown(B.Dir->path().c_str(), 0, 0);
  }
  (void)::chmod(B.Exe.c_str(), 0555);
  return llvm::Error::success();
}

llvm::Error EvaluatorImpl::ProgramHarness::placeRun(Built &B,
                                                    const std::string &Host,
                                                    const std::string &Inside,
                                                    ProcessSpec &S,
                                                    SandboxPolicy &P) {
  S.WorkingDir = Inside;
  if (E.Config.Sandbox == SandboxMode::Bwrap) {
    P.Mounts.push_back({B.Exe, Inside + "/prog", /*Writable=*/false});
    return llvm::Error::success();
  }
  // Without a mount namespace: a read-only copy of the binary.
  std::string Copy = Host + "/prog";
  if (std::error_code EC = llvm::sys::fs::copy_file(B.Exe, Copy))
    return llvm::createStringError("cannot copy the program: " + EC.message());
  (void)::chmod(Copy.c_str(), 0555);
  return llvm::Error::success();
}

EvaluatorImpl::RunRequest EvaluatorImpl::ProgramHarness::metricsRun() const {
  // The first timed input.
  RunRequest R;
  R.Argv = {"./prog"};
  if (!timed(TimingSet::Feedback).empty())
    R.Stdin = Tests[timed(TimingSet::Feedback).front()].InputPath;
  return R;
}

void EvaluatorImpl::ProgramHarness::check(Built &B, bool HeldOutToo,
                                          EvalResult &Out) {
  // The baseline runs every input: each one's cost orders them (the split,
  // the timed inputs). A variant's verdict is settled by its first failure,
  // and every later input would only refine a count at the price of a run:
  // a variant that hangs cost a whole timeout per derived input.
  bool All = HeldOutToo && &B == E.Baseline.get();
  Out.TestsTotal = Feedback.size();
  checkTests(B, Feedback, TestSet::Feedback, All, Out);
  if (HeldOutToo) {
    Out.HeldOutTotal = HeldOut.size();
    if (All || Out.ok())
      checkTests(B, HeldOut, TestSet::HeldOut, All, Out);
    Out.DerivedTotal = Derived.size();
    if (All || Out.ok())
      checkTests(B, Derived, TestSet::Derived, All, Out);
  }
}

llvm::Error EvaluatorImpl::ProgramHarness::learnFromBaseline() {
  // A baseline the check cannot read (not ELF) turns the check off.
  auto Facts = readBinaryFacts(E.Baseline->Exe);
  if (Facts)
    E.BaselineBinary = std::move(*Facts);
  else
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": no binary check: "
                               << llvm::toString(Facts.takeError()) << "\n");
  // A second run of each test whose answer holds decimals: how much the
  // program's own answers vary is what a variant's may.
  std::vector<size_t> Decimal;
  for (size_t I = 0; I < Tests.size(); ++I)
    if (!BaselineOutputs[I].empty())
      Decimal.push_back(I);
  EvalResult Again = E.Baseline->Result;
  Again.Status = EvalStatus::Ok;
  checkTests(*E.Baseline, Decimal, TestSet::Feedback, /*All=*/true, Again);
  if (!Again.ok())
    return llvm::createStringError(
        "the unmodified program fails its own tests when run again (" +
        evalStatusName(Again.Status).str() + ": " + Again.Reason + ")");
  if (wantsCounts())
    if (llvm::Error Err = countBaselineTests(Feedback))
      return Err;
  splitTests();
  if (llvm::Error Err = deriveFromTests())
    return Err;
  // A derived input costs what its own numbers make it cost, not what its
  // template did.
  if (Counted)
    if (llvm::Error Err = countBaselineTests(Derived))
      return Err;
  chooseTimedTests();
  return llvm::Error::success();
}

double EvaluatorImpl::ProgramHarness::costOf(size_t Test) const {
  double C = BaselineRunCost[Test].first;
  return Counted ? C : std::round(C * 100) / 100;
}

void EvaluatorImpl::ProgramHarness::splitTests() {
  size_t N = Tests.size();
  double F = E.Config.Settings.HeldOut;
  size_t H = 0;
  if (N >= 2 && F > 0)
    H = std::min(N - 1, std::max<size_t>(1, size_t(N * F + 0.5)));
  // Within a stratum, the test whose name hashes lowest: a choice that does
  // not depend on how the folder lists them, and that a proposer cannot
  // predict from the numbering.
  std::vector<std::string> Hash(N);
  for (size_t I = 0; I < N; ++I)
    Hash[I] = llvm::toHex(llvm::SHA256::hash(
        llvm::arrayRefFromStringRef(llvm::StringRef(Tests[I].Name))));
  std::vector<size_t> Order(N);
  for (size_t I = 0; I < N; ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t A, size_t B) {
    if (costOf(A) != costOf(B))
      return costOf(A) > costOf(B);
    return Hash[A] < Hash[B];
  });
  // Strata of two from the costliest down; with more than half held out,
  // H strata of (nearly) equal size.
  size_t Size = 2 * H <= N ? 2 : 0;
  std::vector<char> Held(N, 0);
  for (size_t S = 0, At = 0; S < H; ++S) {
    size_t Len = Size ? Size : N / H + (S < N % H);
    size_t Best = Order[At];
    for (size_t K = At; K < At + Len; ++K)
      if (Hash[Order[K]] < Hash[Best])
        Best = Order[K];
    Held[Best] = 1;
    At += Len;
  }
  Feedback.clear();
  HeldOut.clear();
  for (size_t I = 0; I < N; ++I)
    (Held[I] ? HeldOut : Feedback).push_back(I);
}

llvm::Expected<std::pair<std::string, double>>
EvaluatorImpl::ProgramHarness::baselineAnswer(llvm::StringRef Input,
                                              double Seconds) {
  RunRequest R;
  R.Argv = {"./prog"};
  R.Stdin = Input.str();
  R.Kind = JobKind::Check;
  R.WallSeconds = Seconds;
  auto Run = E.runOnce(*E.Baseline, R);
  if (!Run)
    return Run.takeError();
  if (auto Bad = classifyRun(Run->Proc, &Run->Report, "the program"))
    return llvm::createStringError(Bad->second);
  return std::make_pair(std::move(Run->Proc.Stdout), Run->Report.WallSeconds);
}

/// The shape of an answer: how many tokens each line holds.
static std::vector<size_t> shapeOf(llvm::StringRef Output) {
  std::vector<size_t> Shape;
  for (llvm::StringRef L : llvm::split(Output.rtrim(), '\n')) {
    llvm::SmallVector<llvm::StringRef, 8> Tokens;
    llvm::SplitString(L, Tokens);
    Shape.push_back(Tokens.size());
  }
  return Shape;
}

llvm::Error EvaluatorImpl::ProgramHarness::addDerivedTest(
    const std::string &Text, size_t Template, const std::string (&Answers)[2],
    const std::string &Dir) {
  TestCase T;
  T.Name = "derived." + std::to_string(Derived.size() + 1);
  T.InputPath = Dir + "/" + T.Name + ".in";
  T.ExpectedPath = Dir + "/" + T.Name + ".out";
  T.InputBytes = Text.size();
  if (llvm::Error Err = writeFile(T.InputPath, Text))
    return Err;
  if (llvm::Error Err = writeFile(T.ExpectedPath, Answers[0]))
    return Err;
  Derived.push_back(Tests.size());
  // As costly as the test it came from, for the choice of timed inputs.
  BaselineRunCost.push_back(BaselineRunCost[Template]);
  BaselineOutputs.emplace_back();
  if (hasDecimalTokens(Answers[0]))
    BaselineOutputs.back() = {Answers[0], Answers[1]};
  Tests.push_back(std::move(T));
  return llvm::Error::success();
}

llvm::Error EvaluatorImpl::ProgramHarness::deriveFromTests() {
  const EvalConfig &C = E.Config;
  if (!C.Settings.DerivedInputs)
    return llvm::Error::success();
  auto Start = std::chrono::steady_clock::now();
  size_t Users = Tests.size();
  std::vector<std::string> Inputs;
  std::vector<size_t> Order;
  for (size_t I = 0; I < Users; ++I) {
    auto Buf = llvm::MemoryBuffer::getFile(Tests[I].InputPath);
    Inputs.push_back(Buf ? (*Buf)->getBuffer().str() : "");
    Order.push_back(I);
  }
  llvm::stable_sort(Order,
                    [&](size_t A, size_t B) { return costOf(A) > costOf(B); });
  std::vector<DerivedInput> Made =
      deriveInputs(Inputs, Order, C.Settings.DerivedInputs, C.Settings.Seed);
  if (Made.empty())
    return llvm::Error::success();
  // This run's own folder (another run of the same file may be deriving
  // beside it); what a variant fails is kept elsewhere (keepDerived).
  auto Folder = ScratchDir::create("maxcode-derived", C.Settings.ScratchDir);
  if (!Folder)
    return Folder.takeError();
  DerivedFolder.emplace(std::move(*Folder));
  const std::string &Dir = DerivedFolder->path();
  // Two runs of each, in parallel: an answer the program gives twice, in
  // the shape of its answer to the test the input came from, within a few
  // times that test's time (a drawn count that makes it loop is no input).
  struct Candidate {
    std::string Path;
    std::string Answers[2];
    double Wall[2] = {0, 0};
    bool Ok = true;
  };
  // No costlier than the costliest test, give or take the clock: an input
  // far past what the tests exercise times a regime the user never asked
  // about (a ratio many times the tests' own) and, counted under
  // instructions, costs minutes of valgrind for each evaluation.
  double MostWall = 0;
  for (size_t I = 0; I < Users; ++I)
    MostWall = std::max(MostWall, BaselineRunCost[I].second);
  double WallLimit = std::max(2 * MostWall, MostWall + 0.05);
  std::vector<Candidate> Cands(Made.size());
  for (size_t K = 0; K < Made.size(); ++K) {
    Cands[K].Path = Dir + "/candidate." + std::to_string(K);
    if (llvm::Error Err = writeFile(Cands[K].Path, Made[K].Text))
      return Err;
  }
  unsigned Width = std::max(1u, E.Exec.parallelism());
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Width));
  for (size_t K = 0; K < Made.size(); ++K)
    for (int Run = 0; Run < 2; ++Run)
      Pool.async([&, K, Run] {
        double Own = BaselineRunCost[Made[K].Template].second;
        auto A = baselineAnswer(Cands[K].Path,
                                std::min(C.Settings.Timeout, 1 + 5 * Own));
        if (!A) {
          MAXCODE_DEBUG(llvm::dbgs()
                        << DEBUG_TYPE << ": derived input " << K << " dropped: "
                        << llvm::toString(A.takeError()) << "\n");
          llvm::consumeError(A.takeError());
          Cands[K].Ok = false;
          return;
        }
        Cands[K].Answers[Run] = std::move(A->first);
        Cands[K].Wall[Run] = A->second;
      });
  Pool.wait();
  for (size_t K = 0; K < Made.size(); ++K) {
    Candidate &X = Cands[K];
    (void)llvm::sys::fs::remove(X.Path);
    const TestCase &From = Tests[Made[K].Template];
    auto Expected = llvm::MemoryBuffer::getFile(From.ExpectedPath);
    if (!X.Ok || X.Answers[0] != X.Answers[1] || !Expected ||
        shapeOf(X.Answers[0]) != shapeOf((*Expected)->getBuffer()))
      continue;
    if (std::min(X.Wall[0], X.Wall[1]) > WallLimit) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": derived input " << K
                    << " dropped: it takes the program "
                    << std::min(X.Wall[0], X.Wall[1]) << " s, the tests "
                    << MostWall << " s at most\n");
      continue;
    }
    if (llvm::Error Err =
            addDerivedTest(Made[K].Text, Made[K].Template, X.Answers, Dir))
      return Err;
  }
  MAXCODE_DEBUG(llvm::dbgs()
                << DEBUG_TYPE << ": " << Derived.size() << " of " << Made.size()
                << " derived inputs kept in " << Dir
                << llvm::formatv(" ({0:f2} s)",
                                 std::chrono::duration<double>(
                                     std::chrono::steady_clock::now() - Start)
                                     .count())
                << "\n");
  return llvm::Error::success();
}

llvm::Expected<std::vector<double>>
EvaluatorImpl::ProgramHarness::measureOnce(Built &B, MeasureMode M,
                                           TimingSet On, EvalResult *Into) {
  std::vector<double> Costs;
  for (size_t Test : timed(On)) {
    auto C = measureInput(B, Test, M, Into);
    if (!C)
      return C.takeError();
    Costs.push_back(*C);
  }
  return Costs;
}

llvm::Expected<double> EvaluatorImpl::ProgramHarness::measureWall(Built &B,
                                                                  TimingSet On,
                                                                  double *Cpu) {
  EvalResult Usage;
  auto C = measureOnce(B, MeasureMode::Time, On, Cpu ? &Usage : nullptr);
  if (!C)
    return C.takeError();
  if (Cpu)
    *Cpu = Usage.UserSeconds + Usage.SystemSeconds;
  return sum(*C);
}

llvm::Expected<std::vector<double>>
EvaluatorImpl::ProgramHarness::floorRuns(MeasureMode M, TimingSet On) {
  // exec, the dynamic loader, the C and C++ runtimes, exit.
  std::vector<double> Runs;
  if (!E.Null) {
    // The program's own start-up: its includes and macros (a C++
    // program's runtime, iostreams' initialisation) and an empty main;
    // the bare empty program where those do not build alone.
    static constexpr llvm::StringLiteral Empty = "int main() { return 0; }\n";
    if (std::string D = directivesOnly(E.Original); !D.empty()) {
      E.Null = std::make_unique<Built>(
          E.build(D + "\nsigned main() { return 0; }\n", "null"));
      if (!E.Null->Ok)
        E.Null.reset();
    }
    if (!E.Null)
      E.Null = std::make_unique<Built>(E.build(Empty, "null"));
    if (!E.Null->Ok)
      return llvm::createStringError("an empty program does not build: " +
                                     E.Null->Result.Reason);
  }
  const RunMeasure &Measure = RunMeasure::of(M);
  for (unsigned I = 0; I < measureTraits(M).FloorRuns; ++I) {
    double Sum = 0;
    for (size_t Test : timed(On)) {
      (void)Test;
      RunRequest R;
      R.Argv = {"./prog"};
      Measure.shape(R, E.Config.Settings.Timeout, /*HotLines=*/false);
      auto Run = E.runOnce(*E.Null, R);
      if (!Run)
        return Run.takeError();
      auto Cost = Measure.read(*Run, "", nullptr);
      if (!Cost)
        return Cost.takeError();
      Sum += *Cost;
    }
    Runs.push_back(Sum);
  }
  return Runs;
}

std::optional<std::string>
EvaluatorImpl::ProgramHarness::noHeldOutTiming() const {
  if (!TimedHeldOut.empty())
    return std::nullopt;
  std::string Derived =
      E.Config.Settings.DerivedInputs
          ? ", and no input could be derived from the tests that the "
            "unmodified program answers the same way twice"
          : "";
  return Tests.size() == 1
             ? "one test only, so none is held out" + Derived +
                   ": the ratio is measured on the input the search saw, and "
                   "a variant that remembers its answer would not be caught; "
                   "give more tests"
             : "no held-out test (" + E.Config.Names("HeldOut") + "=0)" +
                   Derived +
                   ": the ratio is measured on the inputs the search saw";
}

/// The facts of input \p T a prompt may hold: its size and its numbers.
static InputFacts factsOf(const TestCase &T) {
  InputFacts F;
  F.Name = T.Name;
  F.Bytes = T.InputBytes;
  auto Buf = llvm::MemoryBuffer::getFile(T.InputPath);
  if (!Buf)
    return F;
  llvm::StringRef Text = (*Buf)->getBuffer();
  F.Lines = Text.count('\n') + (!Text.empty() && !Text.ends_with("\n"));
  double Largest = -1;
  llvm::SmallVector<llvm::StringRef, 0> Tokens;
  llvm::SplitString(Text, Tokens);
  for (llvm::StringRef Tok : Tokens) {
    double D;
    llvm::StringRef Digits = Tok.starts_with("-") ? Tok.drop_front() : Tok;
    if (Digits.empty() || !llvm::isDigit(Digits.front()) ||
        Digits.getAsDouble(D))
      continue;
    ++F.Numbers;
    if (D > Largest) {
      Largest = D;
      F.Largest = Tok.str();
    }
  }
  return F;
}

/// The first lines of \p Path, each cut to a width, a few hundred bytes in
/// all (DESIGN section 4, rule 5: feedback is bounded).
static std::string headOf(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  std::string Out;
  unsigned N = 0;
  for (llvm::StringRef L : llvm::split((*Buf)->getBuffer(), '\n')) {
    if (++N > 8 || Out.size() > FeedbackBytes)
      break;
    L = L.rtrim("\r");
    Out += (L.size() > 72 ? L.take_front(72).str() + " ..." : L.str()) + "\n";
  }
  return llvm::StringRef(Out).rtrim().str();
}

void EvaluatorImpl::ProgramHarness::addWorkload(WorkloadFacts &W) const {
  // The timed inputs first, then the larger first: an order, like every
  // word of a prompt, that does not depend on a clock (a recorded search
  // replays only if its prompts are the same).
  std::vector<size_t> Order = Feedback;
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    bool TA = llvm::is_contained(TimedTests, A);
    bool TB = llvm::is_contained(TimedTests, B);
    if (TA != TB)
      return TA;
    return Tests[A].InputBytes > Tests[B].InputBytes;
  });
  // Only feedback inputs: the held-out ones are counted, never shown.
  for (size_t I : Order) {
    InputFacts F = factsOf(Tests[I]);
    F.Timed = llvm::is_contained(TimedTests, I);
    W.Inputs.push_back(std::move(F));
  }
  W.HeldOutInputs = HeldOut.size();
  if (!Order.empty() && llvm::is_contained(TimedTests, Order.front()))
    W.Head = headOf(Tests[Order.front()].InputPath);
}

llvm::Expected<std::vector<std::string>>
EvaluatorImpl::ProgramHarness::sanitizerFindings(Built &B) {
  std::vector<std::string> Findings(Tests.size());
  std::string Source = llvm::sys::path::filename(E.Config.File).str();
  unsigned Width =
      std::max(1u, std::min<unsigned>(E.Exec.parallelism(), Tests.size()));
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Width));
  for (size_t I = 0; I < Tests.size(); ++I)
    Pool.async([&, I] {
      RunRequest R;
      R.Argv = {"./prog"};
      R.Stdin = Tests[I].InputPath;
      R.Kind = JobKind::Check;
      // The sanitizers slow a program down two to five times.
      R.WallSeconds = 5 * E.Config.Settings.Timeout;
      auto Run = E.runOnce(B, R);
      if (!Run) {
        llvm::consumeError(Run.takeError());
        return;
      }
      std::string F = sanitizerFinding(Run->Proc.Stderr, Source);
      if (F.empty() && Run->Proc.Signal == 0 && !Run->Proc.TimedOut &&
          Run->Proc.ExitCode == SanitizerExitCode)
        F = "a sanitizer reported a finding (exit code " +
            std::to_string(SanitizerExitCode) + ")";
      if (!F.empty())
        Findings[I] = F + ", on test " + Tests[I].Name;
    });
  Pool.wait();
  return Findings;
}

llvm::ArrayRef<std::string>
EvaluatorImpl::ProgramHarness::baselineAnswers(size_t Test) const {
  // A --tolerance of the user's own says how far an answer may stray: the
  // baseline's digits then hold nobody to more.
  if (E.Config.Settings.Tolerance != DefaultTolerance)
    return {};
  return BaselineOutputs[Test];
}

/// Copies derived input \p T and the unmodified program's answer to it
/// into \p Dir, named by the input's content (the same input, the same
/// name, whichever run failed it): the path of the copy of the input, or
/// why there is none.
static llvm::Expected<std::string> keepDerived(const TestCase &T,
                                               llvm::StringRef Dir) {
  auto In = llvm::MemoryBuffer::getFile(T.InputPath);
  auto Out = llvm::MemoryBuffer::getFile(T.ExpectedPath);
  if (!In || !Out)
    return llvm::createStringError("the derived input is gone");
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError("cannot make '" + Dir +
                                   "': " + EC.message());
  std::string Base =
      (Dir + "/derived-" +
       llvm::toHex(
           llvm::SHA256::hash(llvm::arrayRefFromStringRef((*In)->getBuffer())),
           /*LowerCase=*/true)
           .substr(0, 12))
          .str();
  if (llvm::Error E = writeFileAtomically(Base + ".in", (*In)->getBuffer()))
    return E;
  if (llvm::Error E = writeFileAtomically(Base + ".out", (*Out)->getBuffer()))
    return E;
  return Base + ".in";
}

/// Why a variant failed derived input \p T, whose expected answer is the
/// unmodified program's, from \p F as a held-out test's failure reads:
/// where the input and that answer are kept (in \p Dir), so that a user can
/// judge it and add it to the tests.
static std::string derivedFailure(const EvalResult &F, const TestCase &T,
                                  llvm::StringRef Dir) {
  std::string Reason = F.Reason;
  std::string HeldOut = "held-out test " + T.Name;
  if (size_t At = Reason.find(HeldOut); At != std::string::npos)
    Reason.replace(At, HeldOut.size(), "derived input " + T.Name);
  if (F.Status == EvalStatus::WrongOutput)
    Reason += ", where the unmodified program answers otherwise";
  if (Dir.empty())
    return Reason;
  auto Kept = keepDerived(T, Dir);
  if (!Kept)
    return Reason + " (not kept: " + llvm::toString(Kept.takeError()) + ")";
  return Reason + " (the input and its answer: " + *Kept + ", " +
         llvm::sys::path::stem(*Kept).str() + ".out)";
}

void EvaluatorImpl::ProgramHarness::checkTests(Built &B,
                                               llvm::ArrayRef<size_t> Which,
                                               TestSet Set, bool All,
                                               EvalResult &Out) {
  // Checks run in parallel; the first failure in test order is reported.
  std::vector<std::optional<EvalResult>> Failures(Which.size());
  std::vector<char> Ran(Which.size(), 0);
  std::atomic<bool> Failed{false};
  unsigned Width =
      std::max(1u, std::min<unsigned>(E.Exec.parallelism(), Which.size()));
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
      R.WallSeconds = E.Config.Settings.Timeout;
      auto Run = E.runOnce(B, R);
      std::optional<EvalResult> F;
      if (!Run) {
        EvalResult Failure;
        recordFailure(Run.takeError(), Failure);
        Failure.Reason += " on test " + T.Name;
        F = std::move(Failure);
      } else {
        bool IsBaseline = &B == E.Baseline.get();
        F = judgeTestRun(Run->Proc, &Run->Report, T, E.Config,
                         Set != TestSet::Feedback, "",
                         IsBaseline ? llvm::ArrayRef<std::string>()
                                    : baselineAnswers(Which[K]));
        if (F && Set == TestSet::Derived)
          F->Reason = derivedFailure(*F, T, E.Config.DerivedDir);
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
  (Set == TestSet::Derived   ? Out.DerivedPassed
   : Set == TestSet::HeldOut ? Out.HeldOutPassed
                             : Out.TestsPassed) += Passed;
}

llvm::Expected<CallgrindProfile>
EvaluatorImpl::ProgramHarness::simulate(Built &B) {
  CallgrindProfile All;
  for (size_t Test : timed(TimingSet::Feedback))
    if (llvm::Error Err = simulateRun(B, {"./prog"}, Tests[Test].InputPath,
                                      "the program", All))
      return Err;
  return All;
}

llvm::Expected<double>
EvaluatorImpl::ProgramHarness::measureInput(Built &B, size_t Test,
                                            MeasureMode M, EvalResult *Into) {
  const TestCase &T = Tests[Test];
  const RunMeasure &Measure = RunMeasure::of(M);
  RunRequest R;
  R.Stdin = T.InputPath;
  R.Argv = {"./prog"};
  Measure.shape(R, E.Config.Settings.Timeout, /*HotLines=*/true);
  auto Run = E.runOnce(B, R);
  if (!Run)
    return Run.takeError();
  // Every run is checked: one that answers differently when measured is a
  // wrong output, whatever it cost.
  if (auto F = judgeTestRun(
          Run->Proc, &Run->Report, T, E.Config, unseen(Test), " when measured",
          &B == E.Baseline.get() ? llvm::ArrayRef<std::string>()
                                 : baselineAnswers(Test)))
    return llvm::make_error<RunFailure>(F->Status, F->Reason, F->FirstFailure);
  return Measure.read(*Run, llvm::sys::path::filename(B.SourcePath), Into);
}
