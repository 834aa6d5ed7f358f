//===-- ReportWriter.cpp - The JSON report of one run ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes the report in the format docs/CUDA.md documents and
/// lib/Eval/CuptiReport.cpp reads. A small writer of our own: the library
/// lives inside other people's programs and must not bring LLVM with it.
///
//===----------------------------------------------------------------------===//

#include "CuptiInjection.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace maxcode::cupti;

namespace {

/// Appends JSON text to a string, indenting nested values by two spaces.
class JsonText {
public:
  std::string Text;

  void string(const std::string &S) {
    Text += '"';
    for (unsigned char C : S) {
      switch (C) {
      case '"':
        Text += "\\\"";
        break;
      case '\\':
        Text += "\\\\";
        break;
      case '\n':
        Text += "\\n";
        break;
      case '\t':
        Text += "\\t";
        break;
      case '\r':
        Text += "\\r";
        break;
      default:
        if (C < 0x20) {
          char Buf[8];
          std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
          Text += Buf;
        } else {
          Text += static_cast<char>(C);
        }
      }
    }
    Text += '"';
  }
  void integer(int64_t V) { Text += std::to_string(V); }
  void unsignedInteger(uint64_t V) { Text += std::to_string(V); }
  /// JSON has no NaN or infinity; a metric CUPTI could not evaluate is null.
  void number(double V) {
    if (!std::isfinite(V)) {
      Text += "null";
      return;
    }
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%.17g", V);
    Text += Buf;
  }

  void key(const char *Name) {
    separate();
    string(Name);
    Text += ": ";
  }
  /// Before a value inside an array.
  void element() { separate(); }
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }

private:
  /// One entry per open object or array: whether it has a member yet.
  std::vector<bool> HasMember{false};

  void separate() {
    if (HasMember.back())
      Text += ',';
    HasMember.back() = true;
    Text += '\n';
    Text.append(2 * (HasMember.size() - 1), ' ');
  }
  void open(char C) {
    Text += C;
    HasMember.push_back(false);
  }
  void close(char C) {
    bool Empty = !HasMember.back();
    HasMember.pop_back();
    if (!Empty) {
      Text += '\n';
      Text.append(2 * (HasMember.size() - 1), ' ');
    }
    Text += C;
  }
};

} // namespace

static void writeTriple(JsonText &J, const char *Key, const int32_t *V) {
  J.key(Key);
  // On one line: three numbers read better as "[4096, 1, 1]".
  J.Text += "[" + std::to_string(V[0]) + ", " + std::to_string(V[1]) + ", " +
            std::to_string(V[2]) + "]";
}

static void writeKernel(JsonText &J, const KernelRecord &K,
                        const std::vector<std::string> &MetricNames) {
  J.element();
  J.beginObject();
  J.key("name");
  J.string(demangle(K.Mangled));
  J.key("mangled");
  J.string(K.Mangled);
  J.key("correlation_id");
  J.unsignedInteger(K.CorrelationId);
  J.key("device");
  J.unsignedInteger(K.DeviceId);
  J.key("context");
  J.unsignedInteger(K.ContextId);
  if (K.HasLaunch) {
    J.key("stream");
    J.unsignedInteger(K.StreamId);
    writeTriple(J, "grid", K.Grid);
    writeTriple(J, "block", K.Block);
    J.key("registers_per_thread");
    J.unsignedInteger(K.RegistersPerThread);
    J.key("static_shared_memory");
    J.integer(K.StaticSharedMemory);
    J.key("dynamic_shared_memory");
    J.integer(K.DynamicSharedMemory);
  }
  if (K.HasTime) {
    J.key("start_ns");
    J.unsignedInteger(K.StartNs);
    J.key("end_ns");
    J.unsignedInteger(K.EndNs);
  }
  if (!K.MetricValues.empty()) {
    J.key("metrics");
    J.beginObject();
    for (size_t I = 0; I < K.MetricValues.size() && I < MetricNames.size();
         ++I) {
      J.key(MetricNames[I].c_str());
      J.number(K.MetricValues[I]);
    }
    J.endObject();
  }
  J.endObject();
}

static void writeStrings(JsonText &J, const char *Key,
                         const std::vector<std::string> &List) {
  J.key(Key);
  J.beginArray();
  for (const std::string &S : List) {
    J.element();
    J.string(S);
  }
  J.endArray();
}

bool maxcode::cupti::writeReport(const Config &Cfg, Report &R) {
  std::lock_guard<std::mutex> Lock(R.Mutex);
  bool Metrics = R.Pass == PassKind::Metrics;
  // Activity buffers complete in any order: present launches by GPU start.
  // Metrics records are already in launch order per context.
  std::vector<KernelRecord> Kernels = R.Kernels;
  std::stable_sort(Kernels.begin(), Kernels.end(),
                   [](const KernelRecord &A, const KernelRecord &B) {
                     if (A.HasTime != B.HasTime)
                       return A.HasTime;
                     if (A.HasTime && A.StartNs != B.StartNs)
                       return A.StartNs < B.StartNs;
                     return A.CorrelationId < B.CorrelationId;
                   });

  JsonText J;
  J.beginObject();
  J.key("version");
  J.unsignedInteger(ReportVersion);
  J.key("tool");
  J.string("maxcode-cupti");
  J.key("pass");
  J.string(Metrics ? "metrics" : "timing");
  J.key("pid");
  J.integer(static_cast<int64_t>(getpid()));
  uint32_t ApiVersion = 0;
  if (cuptiGetVersion(&ApiVersion) != CUPTI_SUCCESS)
    ApiVersion = 0;
  J.key("cupti_api_version");
  J.unsignedInteger(ApiVersion);
  J.key("dropped_records");
  J.unsignedInteger(R.DroppedRecords);
  J.key("records_without_time");
  J.unsignedInteger(R.RecordsWithoutTime);
  J.key("metrics_status");
  J.string(!Metrics                  ? "not-requested"
           : R.MetricsStatus.empty() ? "collected"
                                     : R.MetricsStatus);
  writeStrings(J, "requested_metrics",
               Metrics ? Cfg.Metrics : std::vector<std::string>());
  writeStrings(J, "metric_names", R.MetricNames);
  J.key("metric_passes");
  J.unsignedInteger(R.MetricPasses);
  J.key("kernels");
  J.beginArray();
  for (const KernelRecord &K : Kernels)
    writeKernel(J, K, R.MetricNames);
  J.endArray();
  std::vector<std::string> Notes = R.Notes;
  if (R.DroppedRecords)
    Notes.push_back(
        "activity records dropped: " + std::to_string(R.DroppedRecords) +
        " (the kernel list and the total time are incomplete)");
  if (R.RecordsWithoutTime)
    Notes.push_back("kernel records without timestamps: " +
                    std::to_string(R.RecordsWithoutTime));
  writeStrings(J, "notes", Notes);
  J.endObject();
  J.Text += '\n';

  std::string Temp = Cfg.OutputPath + ".tmp" + std::to_string(getpid());
  std::FILE *F = std::fopen(Temp.c_str(), "w");
  if (!F)
    return false;
  bool Ok = std::fwrite(J.Text.data(), 1, J.Text.size(), F) == J.Text.size();
  Ok = std::fclose(F) == 0 && Ok;
  if (!Ok || std::rename(Temp.c_str(), Cfg.OutputPath.c_str()) != 0) {
    std::remove(Temp.c_str());
    return false;
  }
  return true;
}
