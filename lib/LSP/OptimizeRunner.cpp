//===-- OptimizeRunner.cpp - Running a search for the editor --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/OptimizeRunner.h"
#include "JSONUtil.h"
#include "maxcode/LSP/Logger.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"
#include <fcntl.h>
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;

char CancelledError::ID;

void CancelledError::log(llvm::raw_ostream &OS) const { OS << "cancelled"; }

std::error_code CancelledError::convertToErrorCode() const {
  return std::make_error_code(std::errc::operation_canceled);
}

OptimizeRunner::~OptimizeRunner() = default;

std::vector<std::string>
lsp::buildOptimizeCommand(llvm::StringRef Executable,
                          const OptimizeRequest &Request,
                          llvm::StringRef ProgressFile) {
  std::vector<std::string> Argv = {Executable.str(), Request.File,
                                   "--target=" + Request.Target};
  if (!Request.BuildPath.empty()) {
    Argv.push_back("-p");
    Argv.push_back(Request.BuildPath);
  }
  // The merged settings travel in the options model's own form, as
  // `.clang-maxcode` keys (JSON is YAML): clang-maxcode then reads no
  // configuration file of its own.
  llvm::json::Object Settings = Request.Options.toJSON();
  if (!Settings.empty()) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << llvm::json::Value(std::move(Settings));
    Argv.push_back("--config=" + Text);
  }
  // Its messages name settings as the editor's user sets them.
  Argv.push_back("--option-names=settings");
  Argv.push_back("--format=json");
  Argv.push_back(("--progress-file=" + ProgressFile).str());
  // Without a database, the default command that code actions parsed with.
  if (Request.BuildPath.empty())
    Argv.push_back("--");
  return Argv;
}

llvm::Expected<OptimizeResult> lsp::parseOptimizeOutput(llvm::StringRef Text) {
  std::optional<json> J = parseJSON(Text);
  if (!J || !J->is_object())
    return llvm::createStringError("clang-maxcode printed no JSON document: '" +
                                   Text.trim().take_front(200).str() + "'");
  std::optional<int64_t> Version = getInteger(*J, "version");
  if (Version != 1)
    return llvm::createStringError(
        "clang-maxcode printed output version " +
        (Version ? std::to_string(*Version) : std::string("(none)")) +
        "; this maxcode-lsp reads version 1");
  OptimizeResult R;
  std::optional<std::string> Status = getString(*J, "status");
  if (Status == "improved")
    R.Improved = true;
  else if (Status != "no-improvement")
    return llvm::createStringError("clang-maxcode printed an unknown status '" +
                                   Status.value_or("") + "'");
  R.Target = getString(*J, "target").value_or("");
  R.File = getString(*J, "file").value_or("");
  R.Speedup = getNumber(*J, "speedup").value_or(1.0);
  R.Noise = getNumber(*J, "noise").value_or(0.0);
  if (const json *Below = member(*J, "below_min_speedup"))
    R.BelowMinSpeedup = Below->is_boolean() && Below->get<bool>();
  R.MinSpeedup = getNumber(*J, "min_speedup").value_or(1.0);
  R.Evaluations = static_cast<unsigned>(
      std::max<int64_t>(0, getInteger(*J, "evaluations").value_or(0)));
  if (!R.Improved)
    return R;
  const json *Winner = member(*J, "winner");
  std::optional<std::string> NewText =
      Winner ? getString(*Winner, "text") : std::nullopt;
  if (!NewText)
    return llvm::createStringError(
        "clang-maxcode reported an improvement without the winner's text");
  R.NewText = std::move(*NewText);
  R.Description = getString(*Winner, "description").value_or("");
  if (const json *Rules = member(*Winner, "rules"))
    if (Rules->is_array())
      for (const json &Rule : *Rules)
        if (Rule.is_string())
          R.Rules.push_back(Rule.get<std::string>());
  return R;
}

std::optional<OptimizeProgress> lsp::parseProgressLine(llvm::StringRef Line) {
  std::optional<json> J = parseJSON(Line);
  if (!J)
    return std::nullopt;
  std::optional<int64_t> Done = getInteger(*J, "evaluations");
  if (!Done || *Done < 0)
    return std::nullopt;
  OptimizeProgress P;
  P.Evaluations = static_cast<unsigned>(*Done);
  std::optional<int64_t> Budget = getInteger(*J, "budget");
  P.Budget = Budget && *Budget > 0 ? static_cast<unsigned>(*Budget) : 0;
  P.BestSpeedup = getNumber(*J, "best_speedup").value_or(1.0);
  P.SecondsLeft = getNumber(*J, "seconds_left");
  return P;
}

namespace {
/// Reads the lines a child appends to its progress file, as they come.
class ProgressFollower {
public:
  explicit ProgressFollower(llvm::StringRef Path) : Path(Path.str()) {}

  /// Reports every complete new line; a partial last line waits.
  void poll(ProgressFn Progress) {
    int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    if (FD < 0)
      return;
    char Buf[4096];
    ssize_t N;
    while ((N = ::pread(FD, Buf, sizeof(Buf), Offset)) > 0) {
      Pending.append(Buf, N);
      Offset += N;
    }
    ::close(FD);
    size_t NL;
    while ((NL = Pending.find('\n')) != std::string::npos) {
      std::string Line = Pending.substr(0, NL);
      Pending.erase(0, NL + 1);
      if (std::optional<OptimizeProgress> P = parseProgressLine(Line))
        Progress(*P);
    }
  }

private:
  std::string Path;
  off_t Offset = 0;
  std::string Pending;
};
} // namespace

/// The line of the child's stderr that says what went wrong.
static std::string errorLine(llvm::StringRef Stderr) {
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  Stderr.split(Lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  llvm::StringRef Chosen;
  for (llvm::StringRef L : Lines)
    if (L.contains("error:")) {
      Chosen = L;
      break;
    }
  // Else the first line: later ones tend to be follow-ups ("did you
  // mean", "try --help").
  if (Chosen.empty())
    for (llvm::StringRef L : Lines)
      if (!L.trim().empty()) {
        Chosen = L;
        break;
      }
  return Chosen.trim().take_front(500).str();
}

llvm::Expected<OptimizeResult>
ClangMaxcodeRunner::run(const OptimizeRequest &Request, ProgressFn Progress,
                        const std::atomic<bool> &Cancel) {
  if (Cancel)
    return llvm::make_error<CancelledError>();
  llvm::SmallString<128> ProgressPath;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
          "maxcode-progress", "jsonl", FD, ProgressPath))
    return llvm::createStringError("cannot create a progress file: " +
                                   EC.message());
  ::close(FD);
  llvm::FileRemover RemoveProgress(ProgressPath);

  ProcessSpec Spec;
  Spec.Argv = buildOptimizeCommand(Executable, Request, ProgressPath);
  Spec.WorkingDir = Request.WorkingDir;
  Spec.Cancel = &Cancel;
  // Our own tool: it needs the user's environment (the API key's variable),
  // and on "stop" the time to kill its children and remove its scratch.
  Spec.InheritEnvironment = true;
  Spec.StopGraceSeconds = 15;
  std::string Shown;
  for (const std::string &A : Spec.Argv)
    Shown += (Shown.empty() ? "" : " ") + shellQuote(A);
  Log.info("running in " + Request.WorkingDir + ": " + Shown);

  // The progress file is followed from runProcess's own waiting loop.
  ProgressFollower Follower(ProgressPath);
  Spec.WhileRunning = [&] { Follower.poll(Progress); };
  llvm::Expected<ProcessResult> Result = runProcess(Spec);
  Follower.poll(Progress);

  if (!Result)
    return llvm::createStringError("cannot run clang-maxcode: " +
                                   llvm::toString(Result.takeError()));
  if (Result->Cancelled)
    return llvm::make_error<CancelledError>();
  if (!Result->Stderr.empty())
    Log.verbose("clang-maxcode stderr:\n" + Result->Stderr);
  if (!Result->succeeded()) {
    std::string Why = errorLine(Result->Stderr);
    // Exit code 1 is a user error whose message is the whole story.
    if (Result->ExitCode == 1 && !Why.empty() && !Result->Signal &&
        !Result->TimedOut)
      return llvm::createStringError(Why);
    return llvm::createStringError("clang-maxcode " + Result->describe() +
                                   (Why.empty() ? "" : ": " + Why));
  }
  return parseOptimizeOutput(Result->Stdout);
}
