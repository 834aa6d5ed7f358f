//===-- JobFile.cpp - A process run elsewhere
//------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/JobFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

/// JSON strings must be UTF-8; a path or variable that is not is carried
/// with its bad bytes replaced rather than dropped.
static Value str(llvm::StringRef S) {
  if (llvm::json::isUTF8(S))
    return S;
  return llvm::json::fixUTF8(S);
}

static llvm::Error writeBytes(const llvm::Twine &Path, llvm::StringRef Bytes) {
  std::string P = Path.str();
  std::string Tmp = P + ".tmp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Tmp, EC);
    if (EC)
      return llvm::createStringError("cannot write '" + Tmp +
                                     "': " + EC.message());
    OS << Bytes;
    OS.close();
    if (OS.has_error())
      return llvm::createStringError("cannot write '" + Tmp + "'");
  }
  // Renamed into place, so a reader on another node never sees half a file.
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, P))
    return llvm::createStringError("cannot rename '" + Tmp + "' to '" + P +
                                   "': " + EC.message());
  return llvm::Error::success();
}

static llvm::Expected<Value> readJSON(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Path +
                                   "': " + Buf.getError().message());
  auto V = llvm::json::parse((*Buf)->getBuffer());
  if (!V)
    return llvm::createStringError(
        "'" + Path + "' is not valid JSON: " + llvm::toString(V.takeError()));
  return std::move(*V);
}

llvm::Error maxcode::writeJobSpec(llvm::StringRef Stem,
                                  const ProcessSpec &Spec) {
  Array Argv, Env, Pass;
  for (const std::string &A : Spec.Argv)
    Argv.push_back(str(A));
  for (const std::string &P : Spec.PassEnv)
    Pass.push_back(str(P));
  for (const auto &KV : Spec.Env)
    Env.push_back(Array{str(KV.first), str(KV.second)});
  const ProcessLimits &L = Spec.Limits;
  Object O{{"argv", std::move(Argv)},
           {"working_dir", str(Spec.WorkingDir)},
           {"env", std::move(Env)},
           {"inherit_env", Spec.InheritEnvironment},
           {"pass_env", std::move(Pass)},
           {"report_pipe", Spec.ReportPipe},
           {"stop_grace_seconds", Spec.StopGraceSeconds},
           {"stdin", str(Spec.StdinFile)},
           {"wall_seconds", L.WallSeconds},
           {"cpu_seconds", L.CpuSeconds},
           {"memory_bytes", int64_t(L.MemoryBytes)},
           {"file_size_bytes", int64_t(L.FileSizeBytes)},
           {"max_processes", L.MaxProcesses},
           {"output_bytes", int64_t(L.OutputBytes)},
           {"uid", Spec.RunAsUid},
           {"gid", Spec.RunAsGid}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Value(std::move(O));
  return writeBytes(Stem + ".spec.json", OS.str());
}

llvm::Expected<ProcessSpec> maxcode::readJobSpec(llvm::StringRef Stem) {
  std::string Path = (Stem + ".spec.json").str();
  auto V = readJSON(Path);
  if (!V)
    return V.takeError();
  const Object *O = V->getAsObject();
  const Array *Argv = O ? O->getArray("argv") : nullptr;
  if (!Argv || Argv->empty())
    return llvm::createStringError("'" + Path + "' names no program");
  ProcessSpec S;
  for (const Value &A : *Argv)
    S.Argv.push_back(A.getAsString().value_or("").str());
  if (const Array *Env = O->getArray("env"))
    for (const Value &KV : *Env)
      if (const Array *P = KV.getAsArray(); P && P->size() == 2)
        S.Env.emplace_back((*P)[0].getAsString().value_or("").str(),
                           (*P)[1].getAsString().value_or("").str());
  auto Str = [&](llvm::StringRef K) {
    return O->getString(K).value_or("").str();
  };
  auto Int = [&](llvm::StringRef K, int64_t Default) {
    return O->getInteger(K).value_or(Default);
  };
  S.WorkingDir = Str("working_dir");
  S.InheritEnvironment = O->getBoolean("inherit_env").value_or(false);
  if (const Array *Pass = O->getArray("pass_env"))
    for (const Value &P : *Pass)
      S.PassEnv.push_back(P.getAsString().value_or("").str());
  S.ReportPipe = O->getBoolean("report_pipe").value_or(false);
  S.StopGraceSeconds = O->getNumber("stop_grace_seconds").value_or(2);
  S.StdinFile = Str("stdin");
  S.Limits.WallSeconds = O->getNumber("wall_seconds").value_or(0);
  S.Limits.CpuSeconds = unsigned(Int("cpu_seconds", 0));
  S.Limits.MemoryBytes = uint64_t(Int("memory_bytes", 0));
  S.Limits.FileSizeBytes = uint64_t(Int("file_size_bytes", 0));
  S.Limits.MaxProcesses = unsigned(Int("max_processes", 0));
  S.Limits.OutputBytes = uint64_t(Int("output_bytes", 64ll << 20));
  S.RunAsUid = int(Int("uid", -1));
  S.RunAsGid = int(Int("gid", -1));
  return S;
}

llvm::Error maxcode::writeJobResult(llvm::StringRef Stem,
                                    const ProcessResult &R) {
  if (llvm::Error E = writeBytes(Stem + ".stdout", R.Stdout))
    return E;
  if (llvm::Error E = writeBytes(Stem + ".stderr", R.Stderr))
    return E;
  if (llvm::Error E = writeBytes(Stem + ".report", R.Report))
    return E;
  Object O{{"exit_code", R.ExitCode},
           {"signal", R.Signal},
           {"timed_out", R.TimedOut},
           {"output_limit_exceeded", R.OutputLimitExceeded},
           {"cancelled", R.Cancelled},
           {"interrupted", R.Interrupted},
           {"wall_seconds", R.WallSeconds},
           {"user_seconds", R.UserSeconds},
           {"system_seconds", R.SystemSeconds},
           {"max_rss_bytes", int64_t(R.MaxRSSBytes)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Value(std::move(O));
  return writeBytes(Stem + ".result.json", OS.str());
}

llvm::Expected<ProcessResult> maxcode::readJobResult(llvm::StringRef Stem) {
  auto V = readJSON((Stem + ".result.json").str());
  if (!V)
    return V.takeError();
  const Object *O = V->getAsObject();
  if (!O)
    return llvm::createStringError("'" + Stem +
                                   ".result.json' is not an object");
  ProcessResult R;
  R.ExitCode = int(O->getInteger("exit_code").value_or(-1));
  R.Signal = int(O->getInteger("signal").value_or(0));
  R.TimedOut = O->getBoolean("timed_out").value_or(false);
  R.OutputLimitExceeded =
      O->getBoolean("output_limit_exceeded").value_or(false);
  R.Cancelled = O->getBoolean("cancelled").value_or(false);
  R.Interrupted = O->getBoolean("interrupted").value_or(false);
  R.WallSeconds = O->getNumber("wall_seconds").value_or(0);
  R.UserSeconds = O->getNumber("user_seconds").value_or(0);
  R.SystemSeconds = O->getNumber("system_seconds").value_or(0);
  R.MaxRSSBytes = uint64_t(O->getInteger("max_rss_bytes").value_or(0));
  for (auto [Suffix, Into] :
       {std::pair{".stdout", &R.Stdout}, std::pair{".stderr", &R.Stderr},
        std::pair{".report", &R.Report}}) {
    auto Buf = llvm::MemoryBuffer::getFile(Stem + Suffix);
    if (!Buf)
      return llvm::createStringError("cannot read '" + Stem + Suffix +
                                     "': " + Buf.getError().message());
    *Into = (*Buf)->getBuffer().str();
  }
  return R;
}

void maxcode::removeJobFiles(llvm::StringRef Stem) {
  for (const char *Suffix :
       {".spec.json", ".result.json", ".stdout", ".stderr", ".report",
        ".result.json.tmp", ".stdout.tmp", ".stderr.tmp", ".report.tmp",
        ".spec.json.tmp", ".jobid"})
    (void)llvm::sys::fs::remove(Stem + Suffix);
}
