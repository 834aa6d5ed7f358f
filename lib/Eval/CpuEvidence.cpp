//===-- CpuEvidence.cpp - Why a CPU target's lines are slow
//----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CpuEvidence.h"
#include "EvaluatorImpl.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <chrono>
#include <set>

using namespace maxcode;

double LineEvidence::estimatedCycles() const {
  // Callgrind's own cycle estimate (KCachegrind's "CEst"), with the calls'
  // instructions, whose misses are the callee's lines'.
  return double(Instructions) + 10.0 * double(L1Misses) +
         100.0 * double(LLMisses) + 10.0 * double(Mispredicts) +
         double(CallInstructions);
}

std::vector<std::string> maxcode::simulationOptions() {
  return {"--cache-sim=yes", "--branch-sim=yes"};
}

CpuEvidence maxcode::lineEvidenceOf(const CallgrindProfile &Profile,
                                    llvm::StringRef SourceName, unsigned First,
                                    unsigned Last) {
  CpuEvidence Out;
  auto Column = [&](llvm::StringRef Event) -> int {
    auto It = llvm::find(Profile.Events, Event);
    return It == Profile.Events.end() ? -1 : int(It - Profile.Events.begin());
  };
  int Ir = Column("Ir"), D1mr = Column("D1mr"), D1mw = Column("D1mw"),
      DLmr = Column("DLmr"), DLmw = Column("DLmw"), Bc = Column("Bc"),
      Bcm = Column("Bcm"), Bi = Column("Bi"), Bim = Column("Bim");
  auto Get = [](const std::vector<uint64_t> &V, int C) -> uint64_t {
    return C >= 0 && size_t(C) < V.size() ? V[C] : 0;
  };
  std::map<unsigned, LineEvidence> ByLine;
  auto Own = [&](const std::pair<std::string, unsigned> &Key) {
    return llvm::sys::path::filename(Key.first) == SourceName &&
           Key.second >= First && Key.second <= Last;
  };
  for (const auto &[Key, V] : Profile.LineEvents) {
    LineEvidence L;
    L.Line = Key.second;
    L.Instructions = Get(V, Ir);
    L.L1Misses = Get(V, D1mr) + Get(V, D1mw);
    L.LLMisses = Get(V, DLmr) + Get(V, DLmw);
    L.Branches = Get(V, Bc) + Get(V, Bi);
    L.Mispredicts = Get(V, Bcm) + Get(V, Bim);
    Out.TotalCycles += L.estimatedCycles();
    if (!Own(Key))
      continue;
    LineEvidence &Mine = ByLine[Key.second];
    Mine.Line = Key.second;
    Mine.Instructions += L.Instructions;
    Mine.L1Misses += L.L1Misses;
    Mine.LLMisses += L.LLMisses;
    Mine.Branches += L.Branches;
    Mine.Mispredicts += L.Mispredicts;
  }
  for (const auto &[Key, N] : Profile.LineCalls)
    if (Own(Key)) {
      ByLine[Key.second].Line = Key.second;
      ByLine[Key.second].Calls += N;
    }
  for (const auto &[Key, C] : Profile.LineCallCost)
    if (Own(Key)) {
      ByLine[Key.second].Line = Key.second;
      ByLine[Key.second].CallInstructions += C;
    }
  for (auto &[Line, L] : ByLine) {
    Out.TargetCycles += L.estimatedCycles();
    Out.Lines.push_back(L);
  }
  llvm::stable_sort(Out.Lines,
                    [](const LineEvidence &A, const LineEvidence &B) {
                      return A.estimatedCycles() > B.estimatedCycles();
                    });
  if (Out.Lines.size() > MaxEvidenceLines)
    Out.Lines.resize(MaxEvidenceLines);
  return Out;
}

std::vector<std::string>
maxcode::remarkFlags(llvm::ArrayRef<std::string> Argv) {
  if (Argv.empty() || isNvccCommand(Argv))
    return {};
  if (isGccCommand(Argv))
    // GCC's loop-missed remarks are its loop splitter's bookkeeping
    // ("splitting region at dominance boundary"), which says nothing of
    // the code.
    return {"-fopt-info-vec-missed", "-fopt-info-inline-missed"};
  if (llvm::sys::path::filename(Argv.front()).contains("clang"))
    return {"-Rpass-missed=loop-vectorize|inline|licm|gvn",
            "-Rpass-analysis=loop-vectorize"};
  return {};
}

/// The pass a remark is of: Clang names it, GCC's words tell.
static std::string passOf(llvm::StringRef Named, llvm::StringRef Message) {
  if (Named == "loop-vectorize" || Message.contains("vectoriz"))
    return "vectorize";
  if (!Named.empty())
    return Named.str();
  return Message.contains("inlin") ? "inline" : "loop";
}

/// The function a GCC inlining remark names as the callee ("int
/// fscanf(FILE*, const char*, ...)/67" -> "fscanf"): its name without
/// return type, parameters or template arguments.
static std::string calleeName(llvm::StringRef Signature) {
  llvm::StringRef Name = Signature.split('(').first.rtrim();
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Name[I] == '<')
      ++Depth;
    else if (Name[I] == '>')
      --Depth;
    else if (Name[I] == ' ' && Depth == 0)
      Start = I + 1;
  }
  Name = Name.drop_front(Start);
  // std::vector<_Tp, _Alloc>::vector -> std::vector::vector.
  std::string Out;
  Depth = 0;
  for (char C : Name) {
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (Depth == 0)
      Out += C;
  }
  return Out;
}

/// GCC's words without its internals: an inlining remark as the callee
/// and the reason (not the mangled signatures), a vectoriser remark
/// without the GIMPLE statement it quotes.
static std::string tidyGccMessage(llvm::StringRef Message) {
  static const llvm::Regex Inline(
      "^(not inlinable|will not early inline|inlining failed[^:]*): "
      ".*/[0-9]+ ?-> ?(.*)/[0-9]+, (.*)$");
  llvm::SmallVector<llvm::StringRef, 4> M;
  if (Inline.match(Message, &M))
    return ("call to " + calleeName(M[2]) + " not inlined: " + M[3]).str();
  // "statement can throw an exception: _112 = fgetc (stdin.0_2)": the
  // words before the statement it quotes (an SSA value assigned, or a
  // call).
  static const llvm::Regex Gimple("^(_[0-9]+ |[A-Za-z_][A-Za-z0-9_.:<>]* \\()");
  for (size_t At = Message.find(": "); At != llvm::StringRef::npos;
       At = Message.find(": ", At + 2))
    if (Gimple.match(Message.drop_front(At + 2)))
      return Message.take_front(At).str();
  return Message.str();
}

std::vector<CompilerRemark>
maxcode::parseCompilerRemarks(llvm::StringRef Output, llvm::StringRef File,
                              llvm::StringRef Directory, unsigned First,
                              unsigned Last) {
  // GCC: "f.cpp:6:11: missed: not vectorized: complicated access pattern."
  // Clang: "f.cpp:5:3: remark: loop not vectorized [-Rpass-missed=...]".
  static const llvm::Regex Line(
      "^(.*):([0-9]+):([0-9]+): (missed|remark): +(.*)$");
  static const llvm::Regex Flag(" \\[-Rpass(-missed|-analysis)?=([a-z-]+)\\]$");
  auto Absolute = [&](llvm::StringRef P) {
    llvm::SmallString<256> A(P);
    if (!llvm::sys::path::is_absolute(A)) {
      A = Directory;
      llvm::sys::path::append(A, P);
    }
    llvm::sys::path::remove_dots(A, /*remove_dot_dot=*/true);
    return std::string(A);
  };
  std::string Main = Absolute(File);
  std::vector<CompilerRemark> Out;
  std::set<std::pair<unsigned, std::string>> Seen;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Output.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    llvm::SmallVector<llvm::StringRef, 6> M;
    if (!Line.match(L.rtrim("\r"), &M) || Absolute(M[1]) != Main)
      continue;
    CompilerRemark R;
    if (M[2].getAsInteger(10, R.Line) || M[3].getAsInteger(10, R.Column) ||
        R.Line < First || R.Line > Last)
      continue;
    llvm::StringRef Message = M[5].trim();
    // GCC's loop splitter's bookkeeping says nothing of the code.
    if (Message.starts_with("splitting region at"))
      continue;
    llvm::SmallVector<llvm::StringRef, 3> F;
    llvm::StringRef Named;
    if (Flag.match(Message, &F)) {
      Named = F[2];
      Message = Message.drop_back(F[0].size()).rtrim();
    }
    R.Pass = passOf(Named, Message);
    R.Message = llvm::StringRef(M[4] == "missed" ? tidyGccMessage(Message)
                                                 : Message.str())
                    .rtrim(". ;")
                    .str();
    if (Seen.insert({R.Line, R.Message}).second)
      Out.push_back(std::move(R));
  }
  return Out;
}

llvm::Expected<std::vector<CompilerRemark>>
maxcode::compilerRemarks(const clang::tooling::CompileCommand &Command,
                         llvm::StringRef File, unsigned First, unsigned Last,
                         double TimeoutSeconds) {
  // The build's own command for the file as it is, into /dev/null, its
  // dependency files dropped: nothing of the user's is written.
  std::vector<std::string> Argv =
      variantCompileCommand(Command, File, File, "/dev/null", /*Link=*/false,
                            /*DebugInfo=*/false);
  // Flags that write beside the output or into the folder (temporaries,
  // coverage and profile data, split debug information, dumps) are dropped:
  // this compile runs in the user's folder.
  llvm::erase_if(Argv, [](const std::string &A) {
    llvm::StringRef F(A);
    return F.starts_with("-save-temps") || F == "--coverage" ||
           F.starts_with("-fprofile-") || F == "-ftest-coverage" ||
           F.starts_with("-gsplit-dwarf") || F.starts_with("-fdump-") ||
           F == "-fstack-usage" || F.starts_with("-fcallgraph-info") ||
           F.starts_with("-ftime-trace") ||
           F.starts_with("-fsave-optimization-record") ||
           F.starts_with("-fopt-info") || F.starts_with("-Rpass");
  });
  std::vector<std::string> Flags = remarkFlags(Argv);
  if (Flags.empty())
    return llvm::createStringError(
        "no optimisation remarks from '" +
        llvm::sys::path::filename(Argv.front()).str() +
        "' (GCC and Clang give them)");
  // Before "-c -o /dev/null", which the command ends with.
  Argv.insert(Argv.end() - 3, Flags.begin(), Flags.end());
  ProcessSpec Spec;
  Spec.Argv = std::move(Argv);
  Spec.WorkingDir = Command.Directory;
  Spec.Limits.WallSeconds = TimeoutSeconds;
  auto R = runProcess(Spec);
  if (!R)
    return R.takeError();
  if (!R->succeeded())
    return R->failure("the compile with optimisation remarks");
  return parseCompilerRemarks(R->Stderr, File, Command.Directory, First, Last);
}

llvm::json::Value maxcode::toJSON(const CpuEvidence &E) {
  llvm::json::Array Lines, Remarks;
  for (const LineEvidence &L : E.Lines)
    Lines.push_back(
        llvm::json::Object{{"line", L.Line},
                           {"instructions", int64_t(L.Instructions)},
                           {"l1_misses", int64_t(L.L1Misses)},
                           {"ll_misses", int64_t(L.LLMisses)},
                           {"branches", int64_t(L.Branches)},
                           {"mispredicts", int64_t(L.Mispredicts)},
                           {"calls", int64_t(L.Calls)},
                           {"call_instructions", int64_t(L.CallInstructions)},
                           {"estimated_cycles", L.estimatedCycles()}});
  for (const CompilerRemark &R : E.Remarks)
    Remarks.push_back(llvm::json::Object{{"line", R.Line},
                                         {"column", R.Column},
                                         {"pass", R.Pass},
                                         {"message", R.Message}});
  llvm::json::Array Notes;
  for (const std::string &N : E.Notes)
    Notes.push_back(N);
  return llvm::json::Object{
      {"lines", std::move(Lines)},     {"target_cycles", E.TargetCycles},
      {"total_cycles", E.TotalCycles}, {"remarks", std::move(Remarks)},
      {"notes", std::move(Notes)},     {"seconds", E.Seconds}};
}

CpuEvidence EvaluatorImpl::cpuEvidence(const Target &T) {
  auto Start = std::chrono::steady_clock::now();
  CpuEvidence Out;
  if (T.Kind != TargetKind::CpuFunction) {
    Out.Notes.push_back("CPU evidence is for CPU functions; a kernel's is "
                        "CUPTI's metrics");
    return Out;
  }
  unsigned Last = std::max(T.Line, T.EndLine);
  auto Remarks = compilerRemarks(Config.Command, Config.File, T.Line, Last,
                                 std::max(60.0, 6 * Config.Settings.Timeout));
  if (Remarks)
    Out.Remarks = std::move(*Remarks);
  else
    Out.Notes.push_back("compiler remarks: " +
                        llvm::toString(Remarks.takeError()));
  if (!llvm::sys::findProgramByName("valgrind")) {
    Out.Notes.push_back("cache and branch simulation: valgrind is not "
                        "installed");
  } else if (Baseline) {
    auto Profile = Mode->simulate(*Baseline);
    if (!Profile) {
      Out.Notes.push_back("cache and branch simulation: " +
                          llvm::toString(Profile.takeError()));
    } else {
      CpuEvidence Lines = lineEvidenceOf(
          *Profile, llvm::sys::path::filename(Baseline->SourcePath), T.Line,
          Last);
      Out.Lines = std::move(Lines.Lines);
      Out.TargetCycles = Lines.TargetCycles;
      Out.TotalCycles = Lines.TotalCycles;
      if (Out.Lines.empty())
        Out.Notes.push_back(
            "cache and branch simulation: no line of " +
            llvm::sys::path::filename(Baseline->SourcePath).str() +
            " in the profile (a build without debug information, -g, names "
            "none)");
    }
  }
  Out.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Out;
}
