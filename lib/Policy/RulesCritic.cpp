//===-- RulesCritic.cpp - The built-in critic -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Support/Diff.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <map>
#include <set>

using namespace maxcode;

namespace {

std::vector<llvm::StringRef> splitLines(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Lines.push_back(Line);
    Text = Rest;
  }
  return Lines;
}

llvm::StringRef lineText(llvm::ArrayRef<llvm::StringRef> Lines, unsigned N) {
  return N >= 1 && N <= Lines.size() ? Lines[N - 1].trim() : "";
}

/// Lines of \p Text (1-based) that are inside a loop: under a `for`,
/// `while` or `do` (or a loop macro such as `rep(i, n)`), braced or not.
std::vector<bool> loopLines(llvm::ArrayRef<llvm::StringRef> Lines) {
  std::vector<bool> InLoop(Lines.size() + 2, false);
  auto IsLoopHeader = [](llvm::StringRef H) {
    H = H.trim();
    auto Word =
        H.take_while([](char C) { return llvm::isAlnum(C) || C == '_'; });
    if (Word == "for" || Word == "while" || Word == "do")
      return true;
    std::string Lower = Word.lower();
    return !Word.empty() &&
           H.drop_front(Word.size()).ltrim().starts_with("(") &&
           (llvm::StringRef(Lower).contains("rep") ||
            llvm::StringRef(Lower).starts_with("for") ||
            llvm::StringRef(Lower).contains("loop"));
  };
  std::vector<bool> Stack; // Is each open brace a loop's?
  std::string Header;      // Text since the last ; { or }.
  bool PendingSingle = false;
  for (size_t L = 0; L < Lines.size(); ++L) {
    llvm::StringRef Line = Lines[L];
    bool Loop = llvm::is_contained(Stack, true) || PendingSingle;
    llvm::StringRef Code = Line.split("//").first;
    if (IsLoopHeader(Code))
      Loop = true;
    InLoop[L + 1] = Loop;
    // A loop header without a brace governs the next statement.
    if (!Code.trim().empty())
      PendingSingle = IsLoopHeader(Code) && !Code.contains('{') &&
                      !Code.trim().ends_with(";");
    for (char C : Code) {
      if (C == '{') {
        Stack.push_back(IsLoopHeader(Header));
        Header.clear();
      } else if (C == '}') {
        if (!Stack.empty())
          Stack.pop_back();
        Header.clear();
      } else if (C == ';') {
        Header.clear();
      } else {
        Header += C;
      }
    }
    Header += ' ';
  }
  return InLoop;
}

bool isIOLine(llvm::StringRef Line) {
  for (const char *Word :
       {"cin", "cout", "cerr", "scanf", "printf", "getline", "getchar",
        "putchar", "puts", "gets", "fread", "fwrite", "mc_in", "mc_out", "endl",
        "ifstream", "ofstream"}) {
    size_t At = Line.find(Word);
    while (At != llvm::StringRef::npos) {
      bool Start =
          At == 0 || !(llvm::isAlnum(Line[At - 1]) || Line[At - 1] == '_');
      size_t End = At + strlen(Word);
      bool Stop =
          End >= Line.size() || !(llvm::isAlnum(Line[End]) || Line[End] == '_');
      if (Start && Stop)
        return true;
      At = Line.find(Word, At + 1);
    }
  }
  return false;
}

std::optional<double> metric(const EvalResult &R,
                             std::initializer_list<const char *> Names) {
  for (const char *N : Names) {
    auto It = R.Metrics.find(N);
    if (It != R.Metrics.end())
      return It->second;
  }
  return std::nullopt;
}

/// Collects findings by tag and writes them in tag order.
class Report {
public:
  void add(CritiqueTag T, std::string Text) {
    Findings[static_cast<unsigned>(T)].push_back(std::move(Text));
  }
  /// A finding without a tag (printed after the tagged ones).
  void addPlain(std::string Text) { Plain.push_back(std::move(Text)); }
  /// The tool's own notes on a run (a build that is not incremental, a
  /// cache that could not be written) are not findings about the variant:
  /// they stay in the evaluation, out of what a proposer reads.
  Critique finish(std::vector<std::string> Blamed) {
    Critique C;
    llvm::raw_string_ostream OS(C.Text);
    for (CritiqueTag T : allCritiqueTags()) {
      auto It = Findings.find(static_cast<unsigned>(T));
      if (It == Findings.end())
        continue;
      C.Tags.push_back(T);
      for (const std::string &F : It->second)
        OS << "[" << critiqueTagName(T) << "] " << F << "\n";
    }
    for (const std::string &P : Plain)
      OS << P << "\n";
    C.BlamedRules = std::move(Blamed);
    return C;
  }

private:
  std::map<unsigned, std::vector<std::string>> Findings;
  std::vector<std::string> Plain;
};

/// The rules that can be blamed: every rule id of the variant, not the
/// names of other proposers.
std::vector<std::string> blameable(const Variant &V) {
  std::vector<std::string> Out;
  for (const std::string &R : V.Rules)
    if (R != "user" && R != "llm")
      Out.push_back(R);
  return Out;
}

void critiqueBuild(const EvalResult &R, const Variant &V,
                   llvm::StringRef BaseText,
                   llvm::ArrayRef<llvm::StringRef> Lines, Report &Out) {
  std::vector<const BuildDiagnostic *> Errors;
  for (const BuildDiagnostic &D : R.Diagnostics)
    if (D.Severity == "error")
      Errors.push_back(&D);
  std::vector<DiffHunk> Hunks =
      BaseText.empty() ? std::vector<DiffHunk>() : diffLines(BaseText, V.Text);
  auto Changed = [&](unsigned Line) {
    return llvm::any_of(Hunks, [&](const DiffHunk &H) {
      return Line >= H.AfterStart && Line < H.AfterStart + H.AfterCount;
    });
  };
  std::string Rules;
  for (const std::string &Id : blameable(V))
    Rules += (Rules.empty() ? "" : ", ") + Id;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << (Errors.empty() ? std::string("the build failed")
                        : llvm::formatv("{0} compiler error{1}", Errors.size(),
                                        Errors.size() == 1 ? "" : "s")
                              .str());
  if (!Rules.empty())
    OS << " in the variant made by " << Rules;
  OS << ".";
  for (size_t I = 0; I < std::min<size_t>(Errors.size(), 5); ++I) {
    const BuildDiagnostic &D = *Errors[I];
    OS << "\n  line " << D.Line << ": " << D.Message;
    llvm::StringRef Src = lineText(Lines, D.Line);
    if (!Src.empty())
      OS << "\n    " << D.Line << " | " << Src;
    if (!BaseText.empty())
      OS << "\n    ("
         << (Changed(D.Line) ? "a line the variant changed"
                             : "a line the variant kept")
         << ")";
  }
  if (Errors.size() > 5)
    OS << "\n  ... and " << Errors.size() - 5 << " more";
  if (Errors.empty() && !R.BuildLog.empty()) {
    llvm::SmallVector<llvm::StringRef, 8> LogLines;
    llvm::StringRef(R.BuildLog).split(LogLines, '\n', 5, false);
    for (size_t I = 0; I < std::min<size_t>(LogLines.size(), 5); ++I)
      OS << "\n  " << LogLines[I];
  }
  Out.add(CritiqueTag::BuildError, Text);
}

/// Warnings the build gave on lines the variant changed: a winner is not
/// credited such an edit (the minimiser drops it when the speedup holds
/// without it), so the next proposal should not need it.
void critiqueWarnings(const EvalResult &R, const Variant &V,
                      llvm::StringRef BaseText, Report &Out) {
  if (R.Status == EvalStatus::BuildError || BaseText.empty())
    return;
  std::vector<DiffHunk> Hunks = diffLines(BaseText, V.Text);
  unsigned Shown = 0;
  for (const BuildDiagnostic &D : R.Diagnostics) {
    if (D.Severity != "warning" || llvm::none_of(Hunks, [&](const DiffHunk &H) {
          return D.Line >= H.AfterStart && D.Line < H.AfterStart + H.AfterCount;
        }))
      continue;
    if (++Shown > 3)
      break;
    Out.addPlain(llvm::formatv("compiler warning at line {0}, which the "
                               "variant changed: {1}; a winner keeps no edit "
                               "that adds a warning unless its speedup needs "
                               "it",
                               D.Line, D.Message)
                     .str());
  }
}

void critiqueSpeed(const EvalResult &R, Report &Out) {
  std::string Costs = llvm::formatv("baseline {0}, variant {1}",
                                    formatCost(R.BaselineCost, R.CostUnit),
                                    formatCost(R.VariantCost, R.CostUnit))
                          .str();
  std::string Spread = llvm::formatv("spread +/-{0:f3}, noise {1:f1}%",
                                     R.RatioSpread, R.Noise * 100)
                           .str();
  if (R.Ratio > 1.0)
    Out.add(CritiqueTag::Faster,
            llvm::formatv("{0:f2}x faster than the baseline ({1}; {2}).",
                          R.Ratio, Costs, Spread));
  else if (R.Ratio < 1.0)
    Out.add(CritiqueTag::Slower,
            llvm::formatv("{0:f2}x slower than the baseline ({1}; {2}).",
                          R.Ratio > 0 ? 1.0 / R.Ratio : 0.0, Costs, Spread));
  else
    Out.add(CritiqueTag::WithinNoise,
            llvm::formatv("no difference beyond the noise (measured {0:f3}x; "
                          "{1}; {2}).",
                          R.RawRatio, Costs, Spread));
}

void critiqueHotLines(const EvalResult &R,
                      llvm::ArrayRef<llvm::StringRef> Lines, Report &Out) {
  if (R.HotLines.empty())
    return;
  std::vector<bool> InLoop = loopLines(Lines);
  double Covered = 0;
  for (const HotLine &H : R.HotLines)
    Covered += H.Share;
  std::string Text = "hottest lines:";
  bool IO = false;
  for (size_t I = 0; I < std::min<size_t>(R.HotLines.size(), 3); ++I) {
    const HotLine &H = R.HotLines[I];
    if (I > 0 && H.Share < 0.001)
      break;
    llvm::StringRef Src = lineText(Lines, H.Line);
    Text += llvm::formatv("\n  line {0} ({1:f1}%): {2}", H.Line, H.Share * 100,
                          Src.empty() ? "?" : Src)
                .str();
    IO |= H.Share >= 0.1 && isIOLine(Src);
  }
  const HotLine &Top = R.HotLines.front();
  bool Loop = Top.Line < InLoop.size() && InLoop[Top.Line];
  if (Loop)
    Out.add(CritiqueTag::HotLoop, Text);
  if (IO)
    Out.add(CritiqueTag::IOBound,
            "the hot lines read or write streams: faster I/O (stdio, no "
            "<iostream>, no flush per line) pays here.");
  if (!Loop)
    Out.addPlain(Text);
  if (Covered >= 0.3)
    return;
  // Advice about streams only for a program that uses them.
  bool Streams = llvm::any_of(Lines, [](llvm::StringRef L) {
    static const llvm::Regex Uses(
        "#[ \t]*include[ \t]*<(iostream|fstream|sstream|istream|ostream)>|"
        "(^|[^A-Za-z0-9_])(cin|cout|cerr|endl|getline)([^A-Za-z0-9_]|$)");
    return Uses.match(L);
  });
  Out.add(CritiqueTag::StartupBound,
          Streams ? llvm::formatv("only {0:f1}% of the cost is on the "
                                  "program's own lines; the rest is start-up "
                                  "and library code (the dynamic loader, the "
                                  "C++ runtime, stream initialisation): avoid "
                                  "<iostream> and what needs libstdc++.",
                                  Covered * 100)
                        .str()
                  : llvm::formatv("only {0:f1}% of the cost is on the "
                                  "program's own lines; the rest is start-up "
                                  "and library code, so a change to those "
                                  "lines shows little on these inputs.",
                                  Covered * 100)
                        .str());
}

void critiqueGpu(const EvalResult &R, Report &Out) {
  if (R.Metrics.empty())
    return;
  auto Sm = metric(R, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  auto Dram = metric(R, {"dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  auto Occ = metric(R, {"sm__warps_active.avg.pct_of_peak_sustained_active",
                        "achieved_occupancy"});
  auto L1 = metric(R, {"l1tex__t_sector_hit_rate.pct"});
  auto L2 = metric(R, {"lts__t_sector_hit_rate.pct"});
  auto Regs =
      metric(R, {"registers_per_thread", "launch__registers_per_thread"});
  auto Block = metric(R, {"block_size", "launch__block_size"});
  double Smem =
      metric(R, {"static_shared_memory", "launch__shared_mem_per_block_static"})
          .value_or(0) +
      metric(R,
             {"dynamic_shared_memory", "launch__shared_mem_per_block_dynamic"})
          .value_or(0);

  if (Sm && Dram) {
    std::string Both = llvm::formatv("DRAM throughput {0:f0}% of peak, SM "
                                     "throughput {1:f0}%",
                                     *Dram, *Sm)
                           .str();
    if (*Dram >= 60 && *Dram > *Sm + 10)
      Out.add(CritiqueTag::MemoryBound,
              Both + ": memory-bound; move fewer bytes (vectorised loads, "
                     "shared-memory tiling, reuse through caches).");
    else if (*Sm >= 60 && *Sm > *Dram + 10)
      Out.add(CritiqueTag::ComputeBound,
              Both + ": compute-bound; do less arithmetic (fast math "
                     "intrinsics, unrolling, simpler index math).");
    else if (*Sm < 40 && *Dram < 40)
      Out.add(CritiqueTag::LatencyBound,
              Both + ": neither is busy; latency-bound (more parallelism: "
                     "launch configuration, more work per thread).");
  }

  std::optional<OccupancyEstimate> Est;
  if (Block)
    Est = estimateOccupancy(unsigned(*Block), unsigned(Regs.value_or(0)),
                            uint64_t(Smem));
  bool Low = (Occ && *Occ < 40) || (Est && Est->Theoretical < 0.5);
  if (Low) {
    std::string Text =
        Occ ? llvm::formatv("achieved occupancy {0:f0}%", *Occ).str()
            : std::string("low occupancy");
    if (Est)
      Text += llvm::formatv(" (at most {0:f0}% with {1} threads per block, "
                            "{2} registers per thread, {3} bytes of shared "
                            "memory per block)",
                            Est->Theoretical * 100, unsigned(*Block),
                            unsigned(Regs.value_or(0)), uint64_t(Smem))
                  .str();
    Out.add(CritiqueTag::LowOccupancy, Text + ".");
    if (Est && Est->Theoretical < 1.0) {
      switch (Est->Limit) {
      case CritiqueTag::RegisterLimited:
        Out.add(CritiqueTag::RegisterLimited,
                "registers limit the blocks per multiprocessor: "
                "__launch_bounds__ or less live state per thread.");
        break;
      case CritiqueTag::SharedMemoryLimited:
        Out.add(CritiqueTag::SharedMemoryLimited,
                "shared memory limits the blocks per multiprocessor: "
                "smaller tiles.");
        break;
      case CritiqueTag::BlockSizeLimited:
        Out.add(CritiqueTag::BlockSizeLimited,
                "the block size limits the resident threads: a block size "
                "that is a larger multiple of 32.");
        break;
      default:
        break;
      }
    }
  }
  if (L1 && *L1 < 50)
    Out.add(CritiqueTag::PoorL1HitRate,
            llvm::formatv("L1 hit rate {0:f0}%: reuse data through shared "
                          "memory or read-only loads.",
                          *L1));
  if (L2 && *L2 < 50)
    Out.add(CritiqueTag::PoorL2HitRate,
            llvm::formatv("L2 hit rate {0:f0}%: accesses with little reuse; "
                          "tile the loops for locality.",
                          *L2));
}

/// What the CPU evidence must show before a finding names it (tuned on
/// the fixtures of test/Policy/evidence-critic.test and the projects of
/// docs/Rules.md, "CPU evidence").
namespace evidence {
/// A line is read when it holds this share of the target's estimated
/// cycles.
constexpr double HotShare = 0.05;
/// Cache-miss bound: the misses' cycles (10 per L1 miss, 100 per
/// last-level miss) are at least this share of the line's instructions.
constexpr double MissCyclesPerInstruction = 0.5;
/// Mispredict bound: the mispredicts' cycles (10 each) are at least this
/// share of the line's instructions, and this share of its branches.
constexpr double MispredictCyclesPerInstruction = 0.2;
constexpr double MispredictRate = 0.05;
/// Call bound and per-element I/O: at least this many calls, whose cost is
/// at least the line's own.
constexpr uint64_t ManyCalls = 1000;
/// Findings of one kind shown at most.
constexpr size_t Shown = 3;
} // namespace evidence

/// Whether \p Line calls a stream or stdio function that moves a few
/// bytes: read/get/put/write on a stream, fgetc, fread and their kin.
bool isElementIOLine(llvm::StringRef Line) {
  static const llvm::Regex Calls(
      "(\\.|->)(read|get|put|write|getline|peek|ignore)[ \t]*\\(|"
      "(^|[^A-Za-z0-9_])(fgetc|fputc|getc|putc|getc_unlocked|putc_unlocked|"
      "fread|fwrite|getchar|putchar|fscanf|fprintf|scanf|printf)[ \t]*\\(");
  return isIOLine(Line) || Calls.match(Line);
}

std::string describeLine(llvm::ArrayRef<llvm::StringRef> Lines, unsigned N) {
  llvm::StringRef Src = lineText(Lines, N);
  return llvm::formatv("line {0} (`{1}`)", N, Src.empty() ? "?" : Src).str();
}

void critiqueEvidence(const CpuEvidence &E, llvm::StringRef OriginalText,
                      Report &Out) {
  std::vector<llvm::StringRef> Lines = splitLines(OriginalText);
  std::map<CritiqueTag, size_t> Count;
  auto Add = [&](CritiqueTag T, std::string Text) {
    if (Count[T]++ < evidence::Shown)
      Out.add(T, std::move(Text));
  };
  auto Share = [&](const LineEvidence &L) {
    return E.TargetCycles > 0 ? L.estimatedCycles() / E.TargetCycles : 0.0;
  };
  std::set<unsigned> Hot;
  for (const LineEvidence &L : E.Lines) {
    double S = Share(L);
    if (S < evidence::HotShare)
      continue;
    Hot.insert(L.Line);
    std::string Where = describeLine(Lines, L.Line);
    double Ir = double(std::max<uint64_t>(1, L.Instructions));
    double MissCycles = 10.0 * double(L.L1Misses) + 100.0 * double(L.LLMisses);
    if (MissCycles >= evidence::MissCyclesPerInstruction * Ir)
      Add(CritiqueTag::CacheMissBound,
          llvm::formatv("{0}, {1:f0}% of the target's estimated cycles: {2} "
                        "first-level and {3} last-level data cache misses "
                        "over {4} instructions; touch less memory or touch "
                        "it in order (a denser layout, a hash or sorted "
                        "vector for a tree, a loop order that walks "
                        "memory by rows).",
                        Where, S * 100, L.L1Misses, L.LLMisses, L.Instructions)
              .str());
    if (L.Branches &&
        10.0 * double(L.Mispredicts) >=
            evidence::MispredictCyclesPerInstruction * Ir &&
        double(L.Mispredicts) >= evidence::MispredictRate * double(L.Branches))
      Add(CritiqueTag::MispredictBound,
          llvm::formatv("{0}: {1} of its {2} branches mispredicted ({3:f0}%); "
                        "a select of cheap side-effect-free arms, or sorted "
                        "or partitioned data, removes them.",
                        Where, L.Mispredicts, L.Branches,
                        100.0 * double(L.Mispredicts) / double(L.Branches))
              .str());
    if (L.Calls >= evidence::ManyCalls &&
        L.CallInstructions >= L.Instructions) {
      bool IO = isElementIOLine(lineText(Lines, L.Line));
      Add(IO ? CritiqueTag::PerElementIO : CritiqueTag::CallBound,
          IO ? llvm::formatv("{0} makes {1} I/O calls costing {2} "
                             "instructions: one call per element; read or "
                             "write the whole block with one call and keep "
                             "the loop's checks.",
                             Where, L.Calls, L.CallInstructions)
                   .str()
             : llvm::formatv("{0} makes {1} calls costing {2} instructions, "
                             "its own code {3}: hoist a call whose arguments "
                             "do not change out of the loop, or make the "
                             "callee inlinable.",
                             Where, L.Calls, L.CallInstructions, L.Instructions)
                   .str());
    }
  }
  // The compiler's word on the hot loops (on every line of the target when
  // there is no simulation to say which are hot).
  std::map<unsigned, std::vector<std::string>> Vector, Other;
  for (const CompilerRemark &R : E.Remarks) {
    if (!E.Lines.empty() && !Hot.count(R.Line))
      continue;
    auto &Into = R.Pass == "vectorize" ? Vector : Other;
    if (!llvm::is_contained(Into[R.Line], R.Message))
      Into[R.Line].push_back(R.Message);
  }
  for (const auto &[Line, Messages] : Vector)
    Add(CritiqueTag::NotVectorised,
        llvm::formatv("{0}: the compiler says: {1}.", describeLine(Lines, Line),
                      llvm::join(Messages, "; "))
            .str());
  size_t Plain = 0;
  for (const auto &[Line, Messages] : Other)
    if (Plain++ < evidence::Shown)
      Out.addPlain(llvm::formatv("compiler remark at {0}: {1}.",
                                 describeLine(Lines, Line),
                                 llvm::join(Messages, "; "))
                       .str());
  if (E.Lines.empty())
    return;
  std::string Text = "the original's hottest lines by estimated cycles "
                     "(callgrind's cache and branch simulation):";
  for (size_t I = 0; I < std::min<size_t>(E.Lines.size(), 3); ++I) {
    const LineEvidence &L = E.Lines[I];
    if (Share(L) < evidence::HotShare)
      break; // Hottest first: the rest are colder still.
    Text += llvm::formatv("\n  {0}: {1:f1}%, {2} instructions, {3} L1 and {4} "
                          "LL misses, {5} of {6} branches mispredicted, {7} "
                          "calls",
                          describeLine(Lines, L.Line), Share(L) * 100,
                          L.Instructions, L.L1Misses, L.LLMisses, L.Mispredicts,
                          L.Branches, L.Calls)
                .str();
  }
  Out.addPlain(Text);
}

} // namespace

Critique maxcode::critiqueOfEvidence(const CpuEvidence &E,
                                     llvm::StringRef OriginalText) {
  Report Out;
  critiqueEvidence(E, OriginalText, Out);
  return Out.finish({});
}

std::optional<OccupancyEstimate>
maxcode::estimateOccupancy(unsigned BlockSize, unsigned RegistersPerThread,
                           uint64_t SharedMemoryPerBlock) {
  if (BlockSize == 0 || BlockSize > 1024)
    return std::nullopt;
  const unsigned MaxWarps = 64, MaxBlocks = 32, Registers = 65536;
  const uint64_t SharedMemory = 228 * 1024;
  unsigned Warps = (BlockSize + 31) / 32;
  unsigned ByThreads = std::min(MaxWarps / Warps, MaxBlocks);
  unsigned ByRegs = ByThreads;
  if (RegistersPerThread) {
    // Registers are allocated per warp in units of 256.
    unsigned PerWarp = ((RegistersPerThread * 32 + 255) / 256) * 256;
    ByRegs = Registers / (PerWarp * Warps);
  }
  unsigned BySmem = ByThreads;
  if (SharedMemoryPerBlock)
    BySmem = unsigned(SharedMemory / SharedMemoryPerBlock);
  unsigned Blocks = std::min({ByThreads, ByRegs, BySmem});
  OccupancyEstimate E;
  E.Theoretical = double(Blocks * Warps) / MaxWarps;
  if (ByRegs < ByThreads && ByRegs <= BySmem)
    E.Limit = CritiqueTag::RegisterLimited;
  else if (BySmem < ByThreads)
    E.Limit = CritiqueTag::SharedMemoryLimited;
  else
    E.Limit = CritiqueTag::BlockSizeLimited;
  return E;
}

Critique maxcode::critiqueByRules(const EvalResult &R, const Variant &V,
                                  llvm::StringRef BaseText) {
  std::vector<llvm::StringRef> Lines = splitLines(V.Text);
  Report Out;
  bool Blame = false;
  switch (R.Status) {
  case EvalStatus::Rejected:
    Out.add(CritiqueTag::Rejected,
            R.Reason.empty() ? "the variant was rejected." : R.Reason);
    Blame = true;
    break;
  case EvalStatus::BuildError:
    critiqueBuild(R, V, BaseText, Lines, Out);
    Blame = true;
    break;
  case EvalStatus::Crash:
  case EvalStatus::Timeout:
  case EvalStatus::WrongOutput:
  case EvalStatus::Unsafe: {
    CritiqueTag T = R.Status == EvalStatus::Crash     ? CritiqueTag::Crash
                    : R.Status == EvalStatus::Timeout ? CritiqueTag::Timeout
                    : R.Status == EvalStatus::Unsafe ? CritiqueTag::Unsafe
                                                     : CritiqueTag::WrongOutput;
    std::string Text =
        R.Reason.empty() ? std::string(evalStatusName(R.Status)) : R.Reason;
    if (R.TestsTotal)
      Text += llvm::formatv(" ({0} of {1} tests passed)", R.TestsPassed,
                            R.TestsTotal)
                  .str();
    if (const std::optional<TestFailure> &F = R.FirstFailure) {
      Text += "\n  test " + F->Test;
      if (F->Line && (!F->Expected.empty() || !F->Actual.empty()))
        Text += llvm::formatv(": line {0}: expected \"{1}\", got \"{2}\"",
                              F->Line, F->Expected, F->Actual)
                    .str();
      else if (F->Line) // A held-out test: what it expects is never shown.
        Text += llvm::formatv(": line {0}", F->Line).str();
      if (!F->Detail.empty())
        Text += " (" + F->Detail + ")";
    }
    Out.add(T, Text);
    Blame = true;
    break;
  }
  case EvalStatus::Ok:
    critiqueSpeed(R, Out);
    Blame = R.Ratio <= 1.0;
    break;
  }
  critiqueWarnings(R, V, BaseText, Out);
  critiqueHotLines(R, Lines, Out);
  critiqueGpu(R, Out);
  return Out.finish(Blame ? blameable(V) : std::vector<std::string>());
}

Critique RulesCritic::critique(const EvalResult &R, const Variant &V,
                               const Observation &Parent) {
  Critique C = critiqueByRules(R, V, Parent.CurrentText);
  // The root's children carry why the original is slow, once, for the
  // expansions below them; deeper critiques speak of their own code.
  if (Parent.Feedback || !Parent.Evidence || Parent.Evidence->empty())
    return C;
  Critique E = critiqueOfEvidence(*Parent.Evidence, Parent.OriginalText);
  C.Text += E.Text;
  for (CritiqueTag T : E.Tags)
    if (!C.has(T))
      C.Tags.push_back(T);
  return C;
}
