//===-- Jobs.cpp - The searches the actions start -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A search ("job") of maxcode.optimize: checked, run in a thread of its own
// through the OptimizeRunner with progress, and applied as a workspace edit
// when the document is still what was searched (Server.cpp's file comment
// lists the steps).
//
//===----------------------------------------------------------------------===//

#include "ServerImpl.h"

using namespace maxcode;
using namespace maxcode::lsp;
using namespace maxcode::lsp::impl;

/// Reads the command and the argument of a workspace/executeCommand
/// request; the error says what is wrong with them.
static llvm::Expected<OptimizeArgs> optimizeArgsFrom(const json::Value &V) {
  const json::Object *Params = V.getAsObject();
  std::optional<llvm::StringRef> Command =
      Params ? Params->getString("command") : std::nullopt;
  if (Command != OptimizeCommand)
    return llvm::createStringError("unknown command '" +
                                   Command.value_or("").str() + "'");
  const json::Array *Args = Params->getArray("arguments");
  const json::Object *Arg =
      Args && Args->size() == 1 ? Args->front().getAsObject() : nullptr;
  std::optional<llvm::StringRef> URI =
      Arg ? Arg->getString("uri") : std::nullopt;
  std::optional<llvm::StringRef> Name =
      Arg ? Arg->getString("target") : std::nullopt;
  std::optional<int64_t> Version =
      Arg ? Arg->getInteger("version") : std::nullopt;
  if (!URI || !Name || !Version)
    return llvm::createStringError(OptimizeCommand +
                                   " takes one argument: {uri, target, "
                                   "version}");
  OptimizeArgs A{URI->str(), Name->str(), *Version, std::nullopt};
  if (const json::Value *Token = Params->get("workDoneToken")) {
    if (!isValidID(*Token))
      return llvm::createStringError(
          "workDoneToken must be an integer or a string");
    A.Token = *Token;
  }
  return A;
}

void Server::Impl::onExecuteCommand(const RawParams &Params,
                                    Callback<json::Value> Reply) {
  llvm::Expected<OptimizeArgs> A = optimizeArgsFrom(Params.V);
  if (!A)
    return Reply(llvm::make_error<LSPError>(llvm::toString(A.takeError()),
                                            ErrorCode::InvalidParams));
  std::optional<OptimizeFile> F = checkDocument(Reply, *A);
  if (!F || !checkTarget(Reply, *A, *F))
    return;
  std::optional<JobSettings> Settings = jobSettings(Reply, F->Path);
  if (!Settings)
    return;

  auto NewJob = std::make_unique<Job>();
  Job &J = *NewJob;
  J.RequestID = DispatchedID;
  J.Reply = std::move(Reply);
  J.URI = A->URI;
  J.Name = F->FileName;
  J.Version = A->Version;
  J.OriginalText = std::move(F->Text);
  J.Request.File = F->Path;
  J.Request.Target = A->Target;
  J.Request.BuildPath = loadDatabase(F->Path).BuildPath;
  J.Request.WorkingDir = Settings->WorkingDir;
  J.Request.Options = std::move(Settings->Options);
  J.Token = std::move(A->Token);
  startJob(std::move(NewJob));
}

// Everything the user can fix is said with showMessage; the request then
// succeeds, having done nothing.
void Server::Impl::refuse(Callback<json::Value> &Reply, MessageType Type,
                          const llvm::Twine &Message) {
  showMessage(Type, ("MaxCode: " + Message).str());
  Reply(nullptr);
}

std::optional<OptimizeFile>
Server::Impl::checkDocument(Callback<json::Value> &Reply,
                            const OptimizeArgs &A) {
  OptimizeFile F;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    reapJobs();
    auto It = Documents.find(A.URI);
    if (It == Documents.end()) {
      refuse(Reply, MessageType::Warning,
             "open the file to optimise " + quoteName(A.Target) + " in it");
      return std::nullopt;
    }
    const Document &Doc = It->second;
    F.FileName = llvm::sys::path::filename(Doc.Path).str();
    if (Doc.Version != A.Version) {
      refuse(Reply, MessageType::Warning,
             quoteName(F.FileName) +
                 " changed since the action was offered (version " +
                 std::to_string(A.Version) + ", now " +
                 std::to_string(Doc.Version) +
                 "); ask for the code action again");
      return std::nullopt;
    }
    for (const std::unique_ptr<Job> &J : Jobs)
      if (J->URI == A.URI && J->St != Job::State::Done) {
        refuse(Reply, MessageType::Warning,
               "a search is already running on " + quoteName(F.FileName));
        return std::nullopt;
      }
    if (Doc.Path.empty()) {
      refuse(Reply, MessageType::Error,
             quoteName(A.URI) + " is not a local file");
      return std::nullopt;
    }
    F.Path = Doc.Path;
    F.Text = Doc.Text;
  }
  std::optional<std::string> Saved = readFile(F.Path);
  if (!Saved || *Saved != F.Text) {
    refuse(Reply, MessageType::Warning,
           "save " + quoteName(F.FileName) +
               " first: the search builds and runs the saved file");
    return std::nullopt;
  }
  return F;
}

bool Server::Impl::checkTarget(Callback<json::Value> &Reply,
                               const OptimizeArgs &A, const OptimizeFile &F) {
  const Document *Doc = updateTargets(A.URI);
  bool Found = false;
  std::string NoTargets;
  if (Doc) {
    std::lock_guard<std::mutex> Lock(Mu);
    for (const Target &T : Doc->Targets)
      Found |= T.Name == A.Target;
    NoTargets = Doc->TargetsError;
  }
  if (!Found)
    refuse(Reply, MessageType::Error,
           "no function or kernel " + quoteName(A.Target) + " in " +
               quoteName(F.FileName) +
               (NoTargets.empty() ? "" : ": " + NoTargets));
  return Found;
}

std::optional<JobSettings>
Server::Impl::jobSettings(Callback<json::Value> &Reply,
                          const std::string &Path) {
  // The user's configuration, then the repository's (which may not say
  // where code, data or secrets go), then the editor's settings.
  std::vector<std::string> ConfigWarnings;
  std::string ConfigFile;
  auto FromFiles = loadConfiguration(Path, ConfigWarnings, &ConfigFile);
  if (!FromFiles) {
    refuse(Reply, MessageType::Error, llvm::toString(FromFiles.takeError()));
    return std::nullopt;
  }
  for (const std::string &W : ConfigWarnings) {
    Logger::info("{0}", W);
    showMessage(MessageType::Warning, W);
  }
  JobSettings S;
  S.Options = std::move(*FromFiles);
  if (!ConfigFile.empty()) {
    S.WorkingDir = llvm::sys::path::parent_path(ConfigFile).str();
  } else if (!WorkspaceRoot.empty() &&
             llvm::StringRef(Path).starts_with(WorkspaceRoot + "/")) {
    S.WorkingDir = WorkspaceRoot;
  } else {
    S.WorkingDir = llvm::sys::path::parent_path(Path).str();
  }
  S.Options.overrideWith(EditorOptions);
  return S;
}

void Server::Impl::startJob(std::unique_ptr<Job> NewJob) {
  Job &J = *NewJob;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    J.Number = NextJobNumber++;
    if (J.Token) {
      // The client made the token: progress can start now.
      beginProgress(J);
    } else if (ClientProgress) {
      J.Token = "maxcode-optimize-" + std::to_string(J.Number);
      J.TokenPending = true;
    }
    J.St = J.TokenPending ? Job::State::WaitingForClient : Job::State::Busy;
    if (J.St == Job::State::Busy)
      ++BusyJobs;
    Jobs.push_back(std::move(NewJob));
  }
  if (J.TokenPending) {
    call<llvm::lsp::NoParams>(
        "window/workDoneProgress/create", json::Object{{"token", *J.Token}},
        [this, Number = J.Number](json::Value,
                                  llvm::Expected<llvm::lsp::NoParams> R) {
          onProgressToken(Number, R.takeError());
        });
  }
  J.Finished = JobPool.async([this, &J] { runJob(J); });
}

void Server::Impl::onProgressToken(uint64_t Number, llvm::Error Refused) {
  std::lock_guard<std::mutex> Lock(Mu);
  Job *JP = findJob(Number);
  if (!JP || JP->St == Job::State::Done)
    return llvm::consumeError(std::move(Refused));
  JP->TokenPending = false;
  if (Refused) {
    Logger::info("the client refused a progress token: {0}",
                 llvm::toString(std::move(Refused)));
    JP->Token.reset();
  } else if (!JP->Cancel) {
    // Sent here, before any later message is read, so that "begin"
    // always comes before a cancellation's "end".
    beginProgress(*JP);
  }
  if (JP->St == Job::State::WaitingForClient)
    setState(*JP, Job::State::Busy);
  JP->CV.notify_all();
}

void Server::Impl::setState(Job &J, Job::State S) {
  if (J.St == Job::State::Busy)
    --BusyJobs;
  J.St = S;
  if (S == Job::State::Busy)
    ++BusyJobs;
  QuietCV.notify_all();
}

void Server::Impl::beginProgress(Job &J) {
  if (!J.Token)
    return;
  J.Begun = true;
  notifyProgress(*J.Token,
                 json::Object{{"kind", "begin"},
                              {"title", "MaxCode: optimising " +
                                            quoteName(J.Request.Target)},
                              {"cancellable", true},
                              {"message", "starting the search"},
                              {"percentage", 0}});
}

void Server::Impl::reportProgress(Job &J, const OptimizeProgress &P) {
  std::lock_guard<std::mutex> Lock(Mu);
  if (!J.Begun || J.Cancel)
    return;
  std::string Message = std::to_string(P.Evaluations);
  if (P.Budget)
    Message += "/" + std::to_string(P.Budget);
  Message += " evaluations, best " + formatSpeedup(P.BestSpeedup);
  if (P.SecondsLeft && P.Budget && P.Evaluations < P.Budget)
    Message += ", ~" + std::to_string(std::lround(*P.SecondsLeft)) + " s left";
  json::Object Value{{"kind", "report"}, {"message", Message}};
  if (P.Budget)
    Value["percentage"] =
        std::min<unsigned>(100, P.Evaluations * 100 / P.Budget);
  notifyProgress(*J.Token, std::move(Value));
}

void Server::Impl::endProgress(Job &J, llvm::StringRef Message) {
  std::lock_guard<std::mutex> Lock(Mu);
  if (!J.Begun)
    return;
  J.Begun = false;
  notifyProgress(*J.Token, json::Object{{"kind", "end"}, {"message", Message}});
}

std::optional<std::string> Server::Impl::changedSince(const Job &J) {
  {
    std::lock_guard<std::mutex> Lock(Mu);
    auto It = Documents.find(J.URI);
    if (It != Documents.end() && It->second.Version != J.Version)
      return quoteName(J.Name) + " was edited (version " +
             std::to_string(J.Version) + ", now " +
             std::to_string(It->second.Version) + ")";
  }
  // Open or closed, the saved file must still be the text searched.
  std::optional<std::string> Saved = readFile(J.Request.File);
  if (!Saved || *Saved != J.OriginalText)
    return quoteName(J.Name) + " changed on disk";
  return std::nullopt;
}

void Server::Impl::finish(Job &J) {
  std::lock_guard<std::mutex> Lock(Mu);
  setState(J, Job::State::Done);
}

void Server::Impl::finishCancelled(Job &J) {
  endProgress(J, "cancelled");
  J.Reply(llvm::make_error<LSPError>("the search was cancelled",
                                     ErrorCode::RequestCancelled));
  finish(J);
}

/// `3 evaluations`, for messages.
static std::string evaluationCount(unsigned N) {
  return std::to_string(N) + (N == 1 ? " evaluation" : " evaluations");
}

void Server::Impl::finishWith(Job &J, llvm::StringRef Progress,
                              MessageType Type, llvm::StringRef Message) {
  endProgress(J, Progress);
  showMessage(Type, Message);
  J.Reply(nullptr);
  finish(J);
}

void Server::Impl::runJob(Job &J) {
  {
    std::unique_lock<std::mutex> Lock(Mu);
    J.CV.wait(Lock, [&] { return !J.TokenPending || J.Cancel; });
  }
  if (J.Cancel)
    return finishCancelled(J);
  if (std::optional<std::string> Why = changedSince(J))
    return finishWith(J, "not started", MessageType::Warning,
                      "MaxCode: " + *Why +
                          " before the search started; ask for the "
                          "code action again");
  std::optional<OptimizeResult> Result = search(J);
  if (!Result)
    return;
  std::optional<TextEdit> Edit = editToSend(J, *Result);
  if (!Edit)
    return;
  applyEdit(J, *Result, *Edit);
}

std::optional<OptimizeResult> Server::Impl::search(Job &J) {
  llvm::Expected<OptimizeResult> Result = Runner.run(
      J.Request, [&](const OptimizeProgress &P) { reportProgress(J, P); },
      J.Cancel);
  if (J.Cancel) {
    // The editor was told it stopped; how it ended is for the log.
    if (!Result)
      Logger::debug("cancelled search of {0} ended with: {1}",
                    quoteName(J.Request.Target),
                    llvm::toString(Result.takeError()));
    finishCancelled(J);
    return std::nullopt;
  }
  if (!Result) {
    std::string Why;
    bool Cancelled = false;
    llvm::handleAllErrors(
        Result.takeError(), [&](const CancelledError &) { Cancelled = true; },
        [&](const llvm::ErrorInfoBase &E) { Why = E.message(); });
    if (Cancelled)
      finishCancelled(J);
    else
      finishWith(J, "failed", MessageType::Error,
                 "MaxCode: optimising " + quoteName(J.Request.Target) +
                     " failed: " + Why);
    return std::nullopt;
  }
  return std::move(*Result);
}

std::optional<TextEdit> Server::Impl::editToSend(Job &J,
                                                 const OptimizeResult &Result) {
  const std::string Target = quoteName(J.Request.Target);
  std::optional<TextEdit> Edit =
      Result.Improved ? computeLineEdit(J.OriginalText, Result.NewText)
                      : std::nullopt;
  if (!Edit) {
    finishWith(J, "no verified improvement", MessageType::Info,
               "MaxCode: no verified improvement found for " + Target + " (" +
                   evaluationCount(Result.Evaluations) + ")" +
                   (Result.Verdict.empty()
                        ? std::string()
                        : ": the best candidate is " + Result.Verdict + " (" +
                              Result.VerdictReason + ")"));
    return std::nullopt;
  }
  std::string Speedup = formatSpeedup(Result.Speedup);
  if (Result.BelowMinSpeedup) {
    finishWith(J, "below the minimum speedup", MessageType::Info,
               "MaxCode: found a " + Speedup + " faster " + Target +
                   ", below the minimum speedup worth a review (" +
                   formatSpeedup(Result.MinSpeedup) + ", the setting " +
                   findOption("MinSpeedup")->setting() + "); nothing applied");
    return std::nullopt;
  }
  if (!Result.Refused.empty()) {
    finishWith(J, "not applied", MessageType::Info,
               "MaxCode: found a " + Speedup + " faster " + Target +
                   ", but it adds mutable static state (" + Result.Refused +
                   "); the setting " +
                   findOption("AllowStaticState")->setting() +
                   " takes it; nothing applied");
    return std::nullopt;
  }
  if (std::optional<std::string> Why = changedSince(J)) {
    finishWith(J, "not applied", MessageType::Warning,
               "MaxCode: found a " + Speedup + " faster " + Target + ", but " +
                   *Why +
                   " during the search, so the edit was not "
                   "sent; run the action again");
    return std::nullopt;
  }
  endProgress(J, Speedup + " faster");
  if (!ClientApplyEdit) {
    showMessage(MessageType::Warning,
                "MaxCode: found a " + Speedup + " faster " + Target +
                    ", but this editor cannot apply edits a server sends "
                    "(workspace/applyEdit); run clang-maxcode --apply");
    J.Reply(nullptr);
    finish(J);
    return std::nullopt;
  }
  return Edit;
}

json::Value Server::Impl::workspaceEdit(const Job &J,
                                        const TextEdit &Edit) const {
  if (ClientDocumentChanges)
    // Versioned edits, which LLVM's WorkspaceEdit does not have.
    return json::Object{
        {"documentChanges",
         json::Array{json::Object{
             {"textDocument",
              json::Object{{"uri", J.URI}, {"version", J.Version}}},
             {"edits", json::Array{Edit}}}}}};
  llvm::lsp::WorkspaceEdit E;
  E.changes[J.URI].push_back(Edit);
  return E;
}

void Server::Impl::onApplyAnswer(uint64_t Number,
                                 llvm::Expected<ApplyEditAnswer> Answer) {
  std::lock_guard<std::mutex> Lock(Mu);
  Job *JP = findJob(Number);
  if (!JP || JP->St == Job::State::Done)
    return llvm::consumeError(Answer.takeError());
  if (Answer) {
    JP->Applied = std::move(*Answer);
  } else {
    // An error answer (or one without "applied"): nothing was applied.
    JP->Applied = ApplyEditAnswer();
    llvm::handleAllErrors(
        Answer.takeError(),
        [&](const LSPError &E) { JP->Applied->FailureReason = E.message; },
        [&](const llvm::ErrorInfoBase &E) {
          JP->Applied->FailureReason = E.message();
        });
  }
  if (JP->St == Job::State::WaitingForClient)
    setState(*JP, Job::State::Busy);
  JP->CV.notify_all();
}

void Server::Impl::applyEdit(Job &J, const OptimizeResult &Result,
                             const TextEdit &Edit) {
  const std::string Target = quoteName(J.Request.Target);
  std::string Speedup = formatSpeedup(Result.Speedup);
  call<ApplyEditAnswer>(
      "workspace/applyEdit",
      json::Object{{"label", "MaxCode: optimise " + Target + " (" + Speedup +
                                 " faster)"},
                   {"edit", workspaceEdit(J, Edit)}},
      [this, Number = J.Number](json::Value,
                                llvm::Expected<ApplyEditAnswer> Answer) {
        onApplyAnswer(Number, std::move(Answer));
      });
  ApplyEditAnswer Answer;
  {
    std::unique_lock<std::mutex> Lock(Mu);
    if (!J.Applied)
      setState(J, Job::State::WaitingForClient);
    J.CV.wait(Lock, [&] { return J.Applied || Stopping; });
    if (J.Applied)
      Answer = *J.Applied;
  }
  if (Answer.Applied) {
    std::string Summary = "MaxCode: " + Target + " is " + Speedup +
                          " faster (noise " +
                          llvm::formatv("{0:f2}", Result.Noise).str() + ", " +
                          evaluationCount(Result.Evaluations) + ")";
    if (!Result.Description.empty())
      Summary += ": " + Result.Description;
    if (!Result.Verdict.empty())
      Summary += "; " + Result.VerdictReason;
    showMessage(MessageType::Info, Summary);
  } else {
    showMessage(MessageType::Warning, "MaxCode: the editor did not apply the " +
                                          Speedup + " faster " + Target +
                                          (Answer.FailureReason.empty()
                                               ? std::string()
                                               : ": " + Answer.FailureReason));
  }
  J.Reply(nullptr);
  finish(J);
}

void Server::Impl::cancel(Job &J) {
  J.Cancel = true;
  // A job waiting for its progress token now has work to do (answer the
  // request); one waiting for the answer to its edit has sent it already,
  // and the cancellation comes too late.
  if (J.TokenPending && J.St == Job::State::WaitingForClient)
    setState(J, Job::State::Busy);
  J.CV.notify_all();
}

void Server::Impl::onCancelRequest(const RawParams &Params) {
  const json::Object *P = Params.V.getAsObject();
  const json::Value *ID = P ? P->get("id") : nullptr;
  if (!ID || !isValidID(*ID))
    return Logger::error("$/cancelRequest without an id");
  std::lock_guard<std::mutex> Lock(Mu);
  for (const std::unique_ptr<Job> &J : Jobs)
    if (J->St != Job::State::Done && J->RequestID == *ID)
      cancel(*J);
}

void Server::Impl::onProgressCancel(const RawParams &Params) {
  const json::Object *P = Params.V.getAsObject();
  const json::Value *Token = P ? P->get("token") : nullptr;
  if (!Token || !isValidID(*Token))
    return Logger::error("window/workDoneProgress/cancel without a token");
  std::lock_guard<std::mutex> Lock(Mu);
  for (const std::unique_ptr<Job> &J : Jobs)
    if (J->St != Job::State::Done && J->Token && *J->Token == *Token)
      cancel(*J);
}

void Server::Impl::reapJobs() {
  llvm::erase_if(Jobs, [](const std::unique_ptr<Job> &J) {
    if (J->St != Job::State::Done)
      return false;
    J->Finished.wait(); // It has nothing left to do but return.
    return true;
  });
}

Job *Server::Impl::findJob(uint64_t Number) {
  for (const std::unique_ptr<Job> &J : Jobs)
    if (J->Number == Number)
      return J.get();
  return nullptr;
}

void Server::Impl::waitQuiet() {
  std::unique_lock<std::mutex> Lock(Mu);
  QuietCV.wait(Lock, [&] { return BusyJobs == 0; });
}

void Server::Impl::stopJobs() {
  std::unique_lock<std::mutex> Lock(Mu);
  Stopping = true;
  for (const std::unique_ptr<Job> &J : Jobs)
    if (J->St != Job::State::Done)
      cancel(*J);
  QuietCV.wait(Lock, [&] {
    return llvm::all_of(Jobs, [](const std::unique_ptr<Job> &J) {
      return J->St == Job::State::Done;
    });
  });
  reapJobs();
  Stopping = false;
}
