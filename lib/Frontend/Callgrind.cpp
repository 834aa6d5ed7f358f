//===-- Callgrind.cpp - Reading callgrind's output format -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// The format is documented in valgrind's "Callgrind Format Specification":
// header lines (events:, positions:, summary:/totals:), name compression
// "fn=(id) name" / "fn=(id)", position lines with optional relative
// ("+N", "-N", "*") compression, and "calls=" lines whose following cost line
// is the inclusive cost of the call.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Profile.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include <limits>
#include <optional>

using namespace maxcode;

/// Whether \p A and \p B, of one name, are one function: the same object
/// and source file, where both are known.
static bool sameFunction(const CallgrindProfile::Function &A,
                         const CallgrindProfile::Function &B) {
  auto Same = [](llvm::StringRef X, llvm::StringRef Y) {
    return X.empty() || Y.empty() || X == "???" || Y == "???" || X == Y;
  };
  return Same(A.Object, B.Object) && Same(A.File, B.File);
}

void CallgrindProfile::merge(const CallgrindProfile &Other) {
  Total += Other.Total;
  for (const auto &KV : Other.Functions) {
    // Two programs' functions of one name (each executable's `main` when a
    // bench runs two) stay apart, under callgrind's own suffix for another
    // instance of a name, which callgrindBaseName takes off again:
    // attributeProfile tells them apart by their source files.
    std::string Key = KV.getKey().str();
    for (unsigned N = 1;
         Functions.count(Key) && !sameFunction(Functions[Key], KV.getValue());
         ++N)
      Key = (KV.getKey() + "'" + llvm::Twine(1000 + N)).str();
    Function &F = Functions[Key];
    F.Self += KV.getValue().Self;
    if (F.File.empty())
      F.File = KV.getValue().File;
    if (F.Object.empty())
      F.Object = KV.getValue().Object;
    F.Calls.insert(F.Calls.end(), KV.getValue().Calls.begin(),
                   KV.getValue().Calls.end());
  }
  for (const auto &KV : Other.Lines)
    Lines[KV.first] += KV.second;
  if (Events.empty())
    Events = Other.Events;
  // Files of other events (another valgrind's options) are not added up.
  if (Events == Other.Events)
    for (const auto &KV : Other.LineEvents) {
      std::vector<uint64_t> &Mine = LineEvents[KV.first];
      Mine.resize(std::max(Mine.size(), KV.second.size()), 0);
      for (size_t I = 0; I < KV.second.size(); ++I)
        Mine[I] += KV.second[I];
    }
  for (const auto &KV : Other.LineCalls)
    LineCalls[KV.first] += KV.second;
  for (const auto &KV : Other.LineCallCost)
    LineCallCost[KV.first] += KV.second;
}

llvm::StringRef maxcode::callgrindBaseName(llvm::StringRef Name) {
  size_t Quote = Name.rfind('\'');
  if (Quote != llvm::StringRef::npos && Quote + 1 < Name.size() &&
      llvm::all_of(Name.drop_front(Quote + 1), llvm::isDigit))
    return Name.take_front(Quote);
  return Name;
}

namespace {
/// Resolves "(id) name" / "(id)" compressed names.
class NameTable {
public:
  llvm::Expected<std::string> resolve(llvm::StringRef Spec, unsigned LineNo) {
    Spec = Spec.trim();
    if (!Spec.consume_front("("))
      return Spec.str();
    size_t Close = Spec.find(')');
    unsigned Id;
    if (Close == llvm::StringRef::npos ||
        Spec.take_front(Close).getAsInteger(10, Id))
      return llvm::createStringError(
          "callgrind line " + std::to_string(LineNo) + ": bad compressed name");
    llvm::StringRef Name = Spec.drop_front(Close + 1).trim();
    if (!Name.empty()) {
      Names[Id] = Name.str();
      return Name.str();
    }
    auto It = Names.find(Id);
    if (It == Names.end())
      return llvm::createStringError(
          "callgrind line " + std::to_string(LineNo) + ": undefined name id " +
          std::to_string(Id));
    return It->second;
  }

private:
  llvm::DenseMap<unsigned, std::string> Names;
};

/// One reading of a callgrind file (parseCallgrind): what each line leaves
/// for the lines after it, and the profile so far.
class CallgrindParser {
public:
  /// Reads one line that is neither empty nor a comment.
  llvm::Error line(llvm::StringRef Line, unsigned LineNo);
  /// The profile, once every line of \p Text is read.
  llvm::Expected<CallgrindProfile> finish(llvm::StringRef Text);

private:
  /// A cost line: positions, then the costs of the events.
  void costLine(llvm::StringRef Line);
  /// A "key=value" line: a name, a file, an object, a call.
  llvm::Error keyLine(llvm::StringRef Key, llvm::StringRef Value,
                      unsigned LineNo);
  /// A header line ("positions:", "summary:", "totals:"; others ignored).
  void headerLine(llvm::StringRef Line);

  CallgrindProfile P;
  NameTable Files, Fns, Objects;
  unsigned PositionColumns = 1; // "positions: line" by default
  std::string CurrentFn, CurrentFile, CurrentSubFile, CurrentObject;
  std::string PendingCallee;
  uint64_t PendingCalls = 0;
  bool ExpectCallCost = false;
  bool HaveTotal = false;
  uint64_t SumOfSelf = 0;
  // Positions are addresses or line numbers: unsigned, and relative ones
  // wrap around as addresses do, so no input can overflow them.
  std::vector<uint64_t> LastPos = std::vector<uint64_t>(4, 0);
};

llvm::Error CallgrindParser::line(llvm::StringRef Line, unsigned LineNo) {
  char C = Line.front();
  bool IsCost = llvm::isDigit(C) || C == '+' || C == '-' || C == '*';
  if (IsCost) {
    costLine(Line);
    return llvm::Error::success();
  }
  auto [Key, Value] = Line.split('=');
  if (Line.contains('=') && !Key.contains(' ') && !Key.contains(':'))
    return keyLine(Key, Value, LineNo);
  headerLine(Line);
  return llvm::Error::success();
}

void CallgrindParser::costLine(llvm::StringRef Line) {
  llvm::SmallVector<llvm::StringRef, 8> Cols;
  Line.split(Cols, ' ', -1, /*KeepEmpty=*/false);
  if (Cols.size() < PositionColumns)
    return;
  // Positions: absolute, relative (+N/-N) or the same (*).
  uint64_t LinePos = 0;
  for (unsigned I = 0; I < PositionColumns; ++I) {
    llvm::StringRef Col = Cols[I];
    uint64_t V = LastPos[I];
    if (Col == "*") {
    } else if (Col.starts_with("+") || Col.starts_with("-")) {
      uint64_t D = 0;
      if (!Col.drop_front().getAsInteger(0, D))
        V = Col.front() == '+' ? V + D : V - D;
    } else {
      (void)Col.getAsInteger(0, V);
    }
    LastPos[I] = V;
    LinePos = V; // the last position column is the line
  }
  uint64_t Cost = 0;
  if (Cols.size() > PositionColumns)
    (void)Cols[PositionColumns].getAsInteger(10, Cost);
  const std::string &F = CurrentSubFile.empty() ? CurrentFile : CurrentSubFile;
  bool HasLine = LinePos > 0 && LinePos <= std::numeric_limits<unsigned>::max();
  if (ExpectCallCost) {
    P.Functions[CurrentFn].Calls.push_back({PendingCallee, Cost});
    // The call's line is the caller's: where a loop calls per element.
    if (HasLine) {
      P.LineCalls[{F, unsigned(LinePos)}] += PendingCalls;
      P.LineCallCost[{F, unsigned(LinePos)}] += Cost;
    }
    ExpectCallCost = false;
    return;
  }
  P.Functions[CurrentFn].Self += Cost;
  SumOfSelf += Cost;
  if (!HasLine)
    return;
  P.Lines[{F, unsigned(LinePos)}] += Cost;
  if (P.Events.size() < 2)
    return;
  std::vector<uint64_t> &All = P.LineEvents[{F, unsigned(LinePos)}];
  All.resize(P.Events.size(), 0);
  // Trailing zero costs may be left out of a line.
  for (size_t I = 0; I < P.Events.size() && PositionColumns + I < Cols.size();
       ++I) {
    uint64_t V = 0;
    (void)Cols[PositionColumns + I].getAsInteger(10, V);
    All[I] += V;
  }
}

llvm::Error CallgrindParser::keyLine(llvm::StringRef Key, llvm::StringRef Value,
                                     unsigned LineNo) {
  if (Key == "fn") {
    auto N = Fns.resolve(Value, LineNo);
    if (!N)
      return N.takeError();
    CurrentFn = *N;
    CurrentSubFile.clear();
    CallgrindProfile::Function &F = P.Functions[CurrentFn];
    if (F.File.empty())
      F.File = CurrentFile;
    if (F.Object.empty())
      F.Object = CurrentObject;
  } else if (Key == "cfn" || Key == "cfnc") {
    auto N = Fns.resolve(Value, LineNo);
    if (!N)
      return N.takeError();
    PendingCallee = *N;
  } else if (Key == "fl") {
    auto N = Files.resolve(Value, LineNo);
    if (!N)
      return N.takeError();
    CurrentFile = *N;
    CurrentSubFile.clear();
  } else if (Key == "fi" || Key == "fe") {
    auto N = Files.resolve(Value, LineNo);
    if (!N)
      return N.takeError();
    CurrentSubFile = *N;
  } else if (Key == "cfi" || Key == "cfl") {
    if (auto N = Files.resolve(Value, LineNo); !N)
      return N.takeError();
  } else if (Key == "ob" || Key == "cob") {
    auto N = Objects.resolve(Value, LineNo);
    if (!N)
      return N.takeError();
    if (Key == "ob")
      CurrentObject = *N;
  } else if (Key == "calls") {
    ExpectCallCost = true;
    PendingCalls = 0;
    (void)Value.split(' ').first.getAsInteger(10, PendingCalls);
  }
  return llvm::Error::success();
}

void CallgrindParser::headerLine(llvm::StringRef Line) {
  auto [Header, Rest] = Line.split(':');
  Rest = Rest.trim();
  if (Header == "events") {
    llvm::SmallVector<llvm::StringRef, 16> Names;
    Rest.split(Names, ' ', -1, false);
    P.Events.assign(Names.begin(), Names.end());
  } else if (Header == "positions") {
    llvm::SmallVector<llvm::StringRef, 4> Cols;
    Rest.split(Cols, ' ', -1, false);
    PositionColumns = std::max<unsigned>(1, Cols.size());
    LastPos.assign(PositionColumns, 0);
  } else if (Header == "summary" || Header == "totals") {
    llvm::StringRef First = Rest.split(' ').first;
    uint64_t V;
    if (!First.getAsInteger(10, V) && (!HaveTotal || Header == "totals")) {
      P.Total = V;
      HaveTotal = true;
    }
  }
}

llvm::Expected<CallgrindProfile> CallgrindParser::finish(llvm::StringRef Text) {
  if (!HaveTotal)
    P.Total = SumOfSelf;
  if (P.Functions.empty() && P.Total == 0 && !Text.contains("events:"))
    return llvm::createStringError("not a callgrind output file");
  return std::move(P);
}
} // namespace

llvm::Expected<CallgrindProfile> maxcode::parseCallgrind(llvm::StringRef Text) {
  CallgrindParser Parser;
  unsigned LineNo = 0;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    ++LineNo;
    Line = Line.rtrim("\r");
    if (Line.empty() || Line.starts_with("#"))
      continue;
    if (llvm::Error E = Parser.line(Line, LineNo))
      return E;
  }
  return Parser.finish(Text);
}

/// Whether \p File, where callgrind found a function, is not the program's
/// own source: a system header or library source, or none known.
/// Whether \p Name, a linker name as callgrind gives it, is the C++
/// runtime's or the standard library's (std::, its abbreviations, the ABI
/// library, operator new and delete), or a C name: without a source line
/// nothing else tells those from the program's own.
static bool isLibraryName(llvm::StringRef Name) {
  if (!Name.starts_with("_Z"))
    return true;
  for (llvm::StringRef Runtime : {"_Znw", "_Zna", "_Zdl", "_Zda"})
    if (Name.starts_with(Runtime))
      return true;
  llvm::StringRef R = Name.drop_front(2);
  R.consume_front("N");
  R.consume_front("K");
  return (R.size() > 1 && R[0] == 'S' &&
          (R[1] == 't' || llvm::isLower(R[1]))) ||
         R.starts_with("9__gnu_cxx") || R.starts_with("10__cxxabiv1");
}

static bool isLibrarySource(llvm::StringRef File) {
  return File.empty() || File == "???" || File.starts_with("/usr/") ||
         File.contains("/include/c++/");
}

void maxcode::attributeProfile(const CallgrindProfile &Profile,
                               std::vector<Target> &Targets) {
  // Targets by name: several where a project builds several programs
  // (each its own `main`), told apart by their files.
  llvm::StringMap<llvm::SmallVector<size_t, 1>> Owner;
  for (size_t I = 0; I < Targets.size(); ++I)
    for (const std::string &N : Targets[I].MangledNames)
      Owner[N].push_back(I);
  auto OwnerOf =
      [&](llvm::StringRef Name,
          const CallgrindProfile::Function &F) -> std::optional<size_t> {
    auto It = Owner.find(callgrindBaseName(Name));
    if (It == Owner.end())
      return std::nullopt;
    if (It->second.size() == 1)
      return It->second.front();
    // Callgrind names the file as the compiler was given it: absolute, or
    // relative to where it ran.
    std::optional<size_t> Found;
    for (size_t I : It->second) {
      llvm::StringRef File = Targets[I].File;
      if (F.File.empty() || F.File == "???" ||
          !(File == F.File || File.ends_with("/" + F.File)))
        continue;
      if (Found)
        return std::nullopt; // Nothing tells them apart.
      Found = I;
    }
    return Found;
  };
  // A call is the caller's own cost when it goes into library code: another
  // object, or a function with no source of the program's.
  auto IntoLibrary = [&](const CallgrindProfile::Function &Caller,
                         llvm::StringRef Callee) {
    if (Owner.count(callgrindBaseName(Callee)))
      return false;
    auto It = Profile.Functions.find(Callee);
    if (It == Profile.Functions.end())
      return true;
    const CallgrindProfile::Function &F = It->second;
    if (!F.Object.empty() && F.Object != Caller.Object)
      return true;
    if (!F.File.empty() && F.File != "???")
      return isLibrarySource(F.File);
    // No source line (a build without -g, as a release build is): in the
    // program's own object, the program's own function (a helper the
    // target calls, another file's loader), unless its name is the
    // standard library's (a template instantiated in the program).
    return isLibraryName(Callee);
  };
  std::vector<uint64_t> Own(Targets.size(), 0), All(Targets.size(), 0);
  for (const auto &KV : Profile.Functions) {
    const CallgrindProfile::Function &F = KV.getValue();
    std::optional<size_t> Target = OwnerOf(KV.getKey(), F);
    if (!Target)
      continue;
    uint64_t C = F.Self, Incl = F.Self;
    for (const CallgrindProfile::Call &Call : F.Calls) {
      // A recursive call's cost is already the function's own.
      if (callgrindBaseName(Call.Callee) == callgrindBaseName(KV.getKey()))
        continue;
      Incl += Call.Inclusive;
      if (IntoLibrary(F, Call.Callee))
        C += Call.Inclusive;
    }
    Own[*Target] += C;
    All[*Target] += Incl;
  }
  auto Share = [&](uint64_t C) {
    return Profile.Total ? std::min(1.0, double(C) / Profile.Total) : 0.0;
  };
  for (size_t I = 0; I < Targets.size(); ++I) {
    Targets[I].Share = Share(Own[I]);
    Targets[I].InclusiveShare = Share(All[I]);
  }
}

void maxcode::attributeKernelTimes(llvm::ArrayRef<KernelTime> Times,
                                   std::vector<Target> &Targets) {
  llvm::StringMap<size_t> Owner, ByName;
  for (size_t I = 0; I < Targets.size(); ++I) {
    if (Targets[I].Kind != TargetKind::CudaKernel)
      continue;
    for (const std::string &N : Targets[I].MangledNames)
      Owner[N] = I;
    ByName[Targets[I].Name] = I;
  }
  uint64_t Total = 0;
  std::vector<uint64_t> Cost(Targets.size(), 0);
  for (const KernelTime &K : Times) {
    Total += K.Nanoseconds;
    auto It = Owner.find(K.Mangled);
    if (It != Owner.end()) {
      Cost[It->second] += K.Nanoseconds;
      continue;
    }
    auto Named = ByName.find(K.Name);
    if (Named != ByName.end())
      Cost[Named->second] += K.Nanoseconds;
  }
  for (size_t I = 0; I < Targets.size(); ++I)
    Targets[I].Share = Targets[I].Kind == TargetKind::CudaKernel && Total
                           ? double(Cost[I]) / Total
                           : 0.0;
}
