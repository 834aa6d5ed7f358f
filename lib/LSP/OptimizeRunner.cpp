//===-- OptimizeRunner.cpp - Running a search for the editor --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Logging.h"
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

/// \p Text as a JSON object, or none.
static std::optional<llvm::json::Object> parseObject(llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  if (llvm::json::Object *O = V->getAsObject())
    return std::move(*O);
  return std::nullopt;
}

llvm::Expected<OptimizeResult> lsp::parseOptimizeOutput(llvm::StringRef Text) {
  std::optional<llvm::json::Object> J = parseObject(Text);
  if (!J)
    return llvm::createStringError("clang-maxcode printed no JSON document: '" +
                                   Text.trim().take_front(200).str() + "'");
  std::optional<int64_t> Version = J->getInteger("version");
  if (Version != 1)
    return llvm::createStringError(
        "clang-maxcode printed output version " +
        (Version ? std::to_string(*Version) : std::string("(none)")) +
        "; this maxcode-lsp reads version 1");
  OptimizeResult R;
  std::optional<llvm::StringRef> Status = J->getString("status");
  if (Status == "improved")
    R.Improved = true;
  else if (Status != "no-improvement")
    return llvm::createStringError("clang-maxcode printed an unknown status '" +
                                   Status.value_or("").str() + "'");
  R.Target = J->getString("target").value_or("").str();
  R.File = J->getString("file").value_or("").str();
  R.Speedup = J->getNumber("speedup").value_or(1.0);
  R.Noise = J->getNumber("noise").value_or(0.0);
  R.BelowMinSpeedup = J->getBoolean("below_min_speedup").value_or(false);
  R.MinSpeedup = J->getNumber("min_speedup").value_or(1.0);
  R.Evaluations = static_cast<unsigned>(
      std::max<int64_t>(0, J->getInteger("evaluations").value_or(0)));
  if (const llvm::json::Object *V = J->getObject("verification")) {
    R.Verdict = V->getString("verdict").value_or("").str();
    if (!R.Verdict.empty())
      R.VerdictReason = V->getString("reason").value_or("").str();
  }
  if (!R.Improved)
    return R;
  const llvm::json::Object *Winner = J->getObject("winner");
  std::optional<llvm::StringRef> NewText =
      Winner ? Winner->getString("text") : std::nullopt;
  if (!NewText)
    return llvm::createStringError(
        "clang-maxcode reported an improvement without the winner's text");
  R.NewText = NewText->str();
  R.Description = Winner->getString("description").value_or("").str();
  if (Winner->getString("refused"))
    if (const llvm::json::Array *Review = Winner->getArray("review"))
      for (const llvm::json::Value &N : *Review)
        if (const llvm::json::Object *O = N.getAsObject())
          if (O->getString("kind") == "mutable-state") {
            R.Refused = O->getString("text").value_or("").str();
            break;
          }
  if (const llvm::json::Array *Rules = Winner->getArray("rules"))
    for (const llvm::json::Value &Rule : *Rules)
      if (std::optional<llvm::StringRef> Name = Rule.getAsString())
        R.Rules.push_back(Name->str());
  return R;
}

std::optional<OptimizeProgress> lsp::parseProgressLine(llvm::StringRef Line) {
  std::optional<llvm::json::Object> J = parseObject(Line);
  if (!J)
    return std::nullopt;
  std::optional<int64_t> Done = J->getInteger("evaluations");
  if (!Done || *Done < 0)
    return std::nullopt;
  OptimizeProgress P;
  P.Evaluations = static_cast<unsigned>(*Done);
  std::optional<int64_t> Budget = J->getInteger("budget");
  P.Budget = Budget && *Budget > 0 ? static_cast<unsigned>(*Budget) : 0;
  P.BestSpeedup = J->getNumber("best_speedup").value_or(1.0);
  P.SecondsLeft = J->getNumber("seconds_left");
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
  llvm::lsp::Logger::info("running in {0}: {1}", Request.WorkingDir, Shown);

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
    llvm::lsp::Logger::debug("clang-maxcode stderr:\n{0}", Result->Stderr);
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
