//===-- CuptiReport.cpp - Reading libmaxcode-cupti's JSON report ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// The writer is tools/maxcode-cupti/ReportWriter.cpp; the format is in
// docs/CUDA.md. Every field the writer always writes is required here, so a
// drift between the two fails loudly instead of reading as zeros.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <limits>

using namespace maxcode;
namespace json = llvm::json;

llvm::StringRef maxcode::cuptiMetricsStatusName(CuptiMetricsStatus S) {
  switch (S) {
  case CuptiMetricsStatus::NotRequested:
    return "not-requested";
  case CuptiMetricsStatus::Collected:
    return "collected";
  case CuptiMetricsStatus::InsufficientPrivileges:
    return "insufficient-privileges";
  case CuptiMetricsStatus::Failed:
    return "failed";
  }
  llvm_unreachable("unknown metrics status");
}

namespace maxcode {

static bool fromJSON(const json::Value &V, CuptiMetricsStatus &S,
                     json::Path P) {
  std::optional<llvm::StringRef> Name = V.getAsString();
  for (CuptiMetricsStatus Candidate :
       {CuptiMetricsStatus::NotRequested, CuptiMetricsStatus::Collected,
        CuptiMetricsStatus::InsufficientPrivileges, CuptiMetricsStatus::Failed})
    if (Name && *Name == cuptiMetricsStatusName(Candidate)) {
      S = Candidate;
      return true;
    }
  P.report("expected not-requested, collected, insufficient-privileges or "
           "failed");
  return false;
}

static bool fromJSON(const json::Value &V, CuptiPass &Pass, json::Path P) {
  std::optional<llvm::StringRef> Name = V.getAsString();
  if (Name && *Name == "timing")
    Pass = CuptiPass::Timing;
  else if (Name && *Name == "metrics")
    Pass = CuptiPass::Metrics;
  else {
    P.report("expected timing or metrics");
    return false;
  }
  return true;
}

/// An unsigned field that must fit in \p T.
template <typename T>
static bool mapUnsigned(json::ObjectMapper &O, llvm::StringLiteral Key, T &Out,
                        json::Path P) {
  uint64_t Wide = 0;
  if (!O.map(Key, Wide))
    return false;
  if (Wide > std::numeric_limits<T>::max()) {
    P.field(Key).report("value out of range");
    return false;
  }
  Out = static_cast<T>(Wide);
  return true;
}

static bool mapTriple(json::ObjectMapper &O, llvm::StringLiteral Key,
                      std::array<int64_t, 3> &Out, json::Path P) {
  std::vector<int64_t> List;
  if (!O.map(Key, List))
    return false;
  if (List.size() != 3) {
    P.field(Key).report("expected three numbers");
    return false;
  }
  llvm::copy(List, Out.begin());
  return true;
}

static bool fromJSON(const json::Value &V, CuptiKernel &K, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O)
    return false;
  const json::Object &Obj = *V.getAsObject();
  if (!O.map("name", K.Name) || !O.map("mangled", K.Mangled) ||
      !mapUnsigned(O, "correlation_id", K.CorrelationId, P) ||
      !mapUnsigned(O, "device", K.Device, P) ||
      !mapUnsigned(O, "context", K.Context, P))
    return false;

  // The launch configuration comes as a whole, and so do the two times.
  K.HasLaunch = Obj.get("grid") != nullptr;
  if (K.HasLaunch &&
      (!mapUnsigned(O, "stream", K.Stream, P) ||
       !mapTriple(O, "grid", K.Grid, P) || !mapTriple(O, "block", K.Block, P) ||
       !mapUnsigned(O, "registers_per_thread", K.RegistersPerThread, P) ||
       !O.map("static_shared_memory", K.StaticSharedMemory) ||
       !O.map("dynamic_shared_memory", K.DynamicSharedMemory)))
    return false;
  K.HasTime = Obj.get("start_ns") || Obj.get("end_ns");
  if (K.HasTime && (!O.map("start_ns", K.StartNs) || !O.map("end_ns", K.EndNs)))
    return false;

  // null is a metric CUPTI could not evaluate (JSON has no NaN).
  std::map<std::string, std::optional<double>> Metrics;
  if (!O.mapOptional("metrics", Metrics))
    return false;
  K.Metrics.clear();
  for (auto &[Name, Value] : Metrics)
    if (Value)
      K.Metrics[Name] = *Value;
  return true;
}

static bool fromJSON(const json::Value &V, CuptiReport &R, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O)
    return false;
  std::string Tool;
  if (!O.map("tool", Tool))
    return false;
  if (Tool != "maxcode-cupti") {
    P.field("tool").report("expected maxcode-cupti");
    return false;
  }
  return O.map("pass", R.Pass) && O.map("pid", R.Pid) &&
         mapUnsigned(O, "cupti_api_version", R.CuptiApiVersion, P) &&
         O.map("dropped_records", R.DroppedRecords) &&
         O.map("records_without_time", R.RecordsWithoutTime) &&
         O.map("metrics_status", R.MetricsStatus) &&
         O.map("requested_metrics", R.RequestedMetrics) &&
         O.map("metric_names", R.MetricNames) &&
         O.map("metric_passes", R.MetricPasses) &&
         O.map("kernels", R.Kernels) && O.map("notes", R.Notes);
}

} // namespace maxcode

llvm::Expected<CuptiReport> maxcode::parseCuptiReport(llvm::StringRef Text) {
  llvm::Expected<json::Value> V = json::parse(Text);
  if (!V)
    return V.takeError();
  // The version decides how to read the rest, so it is checked first.
  const json::Object *Obj = V->getAsObject();
  std::optional<int64_t> Version =
      Obj ? Obj->getInteger("version") : std::nullopt;
  if (!Version)
    return llvm::createStringError("not a maxcode-cupti report: no version");
  if (*Version != CuptiReportVersion)
    return llvm::createStringError("unsupported maxcode-cupti report version " +
                                   std::to_string(*Version) +
                                   " (this build reads version " +
                                   std::to_string(CuptiReportVersion) + ")");
  CuptiReport R;
  json::Path::Root Root("report");
  if (!fromJSON(*V, R, Root))
    return Root.getError();
  R.Version = CuptiReportVersion;
  return R;
}

llvm::Expected<CuptiReport> maxcode::readCuptiReport(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(),
                                   "cannot read CUPTI report '" + Path +
                                       "': " + Buffer.getError().message());
  llvm::Expected<CuptiReport> R = parseCuptiReport((*Buffer)->getBuffer());
  if (!R)
    return llvm::createStringError("malformed CUPTI report '" + Path +
                                   "': " + llvm::toString(R.takeError()));
  return R;
}

uint64_t CuptiReport::totalKernelTimeNs() const {
  uint64_t Total = 0;
  for (const CuptiKernel &K : Kernels)
    Total += K.durationNs();
  return Total;
}

bool CuptiReport::timesComplete() const {
  return DroppedRecords == 0 && RecordsWithoutTime == 0 &&
         llvm::all_of(Kernels, [](const CuptiKernel &K) { return K.HasTime; });
}

std::vector<CuptiKernelTotal> CuptiReport::kernelTotals() const {
  // By mangled name: two instantiations of a template are two kernels.
  llvm::StringMap<CuptiKernelTotal> ByName;
  for (const CuptiKernel &K : Kernels) {
    CuptiKernelTotal &T = ByName[K.Mangled.empty() ? K.Name : K.Mangled];
    T.Name = K.Name;
    T.Mangled = K.Mangled;
    ++T.Launches;
    T.TotalNs += K.durationNs();
  }
  uint64_t Total = totalKernelTimeNs();
  std::vector<CuptiKernelTotal> Result;
  for (auto &Entry : ByName) {
    CuptiKernelTotal T = Entry.getValue();
    T.Share = Total ? double(T.TotalNs) / double(Total) : 0.0;
    Result.push_back(std::move(T));
  }
  llvm::sort(Result, [](const CuptiKernelTotal &A, const CuptiKernelTotal &B) {
    if (A.TotalNs != B.TotalNs)
      return A.TotalNs > B.TotalNs;
    return std::tie(A.Name, A.Mangled) < std::tie(B.Name, B.Mangled);
  });
  return Result;
}

std::optional<std::map<std::string, double>>
CuptiReport::metricsFor(llvm::StringRef Target) const {
  std::map<std::string, std::pair<double, unsigned>> Sums;
  for (const CuptiKernel &K : Kernels) {
    if (K.Metrics.empty() || !cuptiKernelMatches(K, Target))
      continue;
    for (const auto &[Name, Value] : K.Metrics) {
      auto &[Sum, Count] = Sums[Name];
      Sum += Value;
      ++Count;
    }
  }
  if (Sums.empty())
    return std::nullopt;
  std::map<std::string, double> Mean;
  for (const auto &[Name, SumCount] : Sums)
    Mean[Name] = SumCount.first / SumCount.second;
  return Mean;
}

static bool isFailure(CuptiMetricsStatus S) {
  return S == CuptiMetricsStatus::Failed ||
         S == CuptiMetricsStatus::InsufficientPrivileges;
}

void CuptiReport::append(const CuptiReport &Other) {
  Kernels.insert(Kernels.end(), Other.Kernels.begin(), Other.Kernels.end());
  DroppedRecords += Other.DroppedRecords;
  RecordsWithoutTime += Other.RecordsWithoutTime;
  Notes.insert(Notes.end(), Other.Notes.begin(), Other.Notes.end());
  for (const std::string &Name : Other.MetricNames)
    if (!llvm::is_contained(MetricNames, Name))
      MetricNames.push_back(Name);
  for (const std::string &Name : Other.RequestedMetrics)
    if (!llvm::is_contained(RequestedMetrics, Name))
      RequestedMetrics.push_back(Name);
  MetricPasses = std::max(MetricPasses, Other.MetricPasses);
  if (!isFailure(MetricsStatus) &&
      (isFailure(Other.MetricsStatus) ||
       MetricsStatus == CuptiMetricsStatus::NotRequested))
    MetricsStatus = Other.MetricsStatus;
}

std::string maxcode::cuptiKernelBaseName(llvm::StringRef Demangled) {
  llvm::StringRef S = Demangled.trim();
  // The parameter list: from the '(' matching the final ')'.
  if (S.ends_with(")")) {
    int Depth = 0;
    for (size_t I = S.size(); I-- > 0;) {
      if (S[I] == ')')
        ++Depth;
      else if (S[I] == '(' && --Depth == 0) {
        S = S.take_front(I).rtrim();
        break;
      }
    }
  }
  // Template arguments, which may hold spaces and parentheses.
  std::string NoTemplates;
  int Angle = 0;
  for (char C : S) {
    if (C == '<')
      ++Angle;
    else if (C == '>' && Angle > 0)
      --Angle;
    else if (Angle == 0)
      NoTemplates += C;
  }
  // The return type ends at the last space outside parentheses, which keeps
  // "(anonymous namespace)::relu" whole.
  llvm::StringRef Name(NoTemplates);
  int Paren = 0;
  size_t Cut = llvm::StringRef::npos;
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Name[I] == '(')
      ++Paren;
    else if (Name[I] == ')')
      --Paren;
    else if (Name[I] == ' ' && Paren == 0)
      Cut = I;
  }
  if (Cut != llvm::StringRef::npos)
    Name = Name.drop_front(Cut + 1);
  return Name.trim().str();
}

bool maxcode::cuptiKernelMatches(const CuptiKernel &K, llvm::StringRef Target) {
  Target = Target.trim();
  Target.consume_front("::");
  if (Target.empty())
    return false;
  if (!K.Mangled.empty() && K.Mangled == Target)
    return true;
  std::string Base = cuptiKernelBaseName(K.Name.empty() ? K.Mangled : K.Name);
  llvm::StringRef B(Base);
  return B == Target ||
         (B.ends_with(Target) && B.drop_back(Target.size()).ends_with("::"));
}
