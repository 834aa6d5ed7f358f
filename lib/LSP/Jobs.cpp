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

/// Reads the command and the argument of a workspace/executeCommand
/// request; the error says what is wrong with them.
static llvm::Expected<OptimizeArgs> optimizeArgsFrom(const json &Params) {
  std::optional<std::string> Command = getString(Params, "command");
  if (Command != OptimizeCommand)
    return llvm::createStringError("unknown command '" + Command.value_or("") +
                                   "'");
  const json *Args = member(Params, "arguments");
  const json *Arg =
      Args && Args->is_array() && Args->size() == 1 ? &Args->front() : nullptr;
  std::optional<std::string> URI = Arg ? getString(*Arg, "uri") : std::nullopt;
  std::optional<std::string> Name =
      Arg ? getString(*Arg, "target") : std::nullopt;
  std::optional<int64_t> Version =
      Arg ? getInteger(*Arg, "version") : std::nullopt;
  if (!URI || !Name || !Version)
    return llvm::createStringError(
        std::string(OptimizeCommand) +
        " takes one argument: {uri, target, version}");
  const json *Token = member(Params, "workDoneToken");
  if (Token && !isValidID(*Token))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "workDoneToken must be an integer or a string");
  return OptimizeArgs{std::move(*URI), std::move(*Name), *Version, Token};
}

void Server::Impl::onExecuteCommand(const json &ID, const json &Params) {
  llvm::Expected<OptimizeArgs> A = optimizeArgsFrom(Params);
  if (!A)
    return replyError(ID, InvalidParams, llvm::toString(A.takeError()));
  std::optional<OptimizeFile> F = checkDocument(ID, *A);
  if (!F || !checkTarget(ID, *A, *F))
    return;
  std::optional<JobSettings> Settings = jobSettings(ID, F->Path);
  if (!Settings)
    return;

  auto NewJob = std::make_unique<Job>();
  Job &J = *NewJob;
  J.RequestID = ID;
  J.URI = A->URI;
  J.Name = F->FileName;
  J.Version = A->Version;
  J.OriginalText = std::move(F->Text);
  J.Request.File = F->Path;
  J.Request.Target = A->Target;
  J.Request.BuildPath = loadDatabase(F->Path).BuildPath;
  J.Request.WorkingDir = Settings->WorkingDir;
  J.Request.Options = std::move(Settings->Options);
  startJob(std::move(NewJob), A->Token);
}

// Everything the user can fix is said with showMessage; the request then
// succeeds, having done nothing.
void Server::Impl::refuse(const json &ID, MessageType Type,
                          const llvm::Twine &Message) {
  showMessage(Type, ("MaxCode: " + Message).str());
  reply(ID, nullptr);
}

std::optional<OptimizeFile> Server::Impl::checkDocument(const json &ID,
                                                        const OptimizeArgs &A) {
  OptimizeFile F;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    reapJobs();
    auto It = Documents.find(A.URI);
    if (It == Documents.end()) {
      refuse(ID, MessageWarning,
             "open the file to optimise " + quoteName(A.Target) + " in it");
      return std::nullopt;
    }
    const Document &Doc = It->second;
    F.FileName = llvm::sys::path::filename(Doc.Path).str();
    if (Doc.Version != A.Version) {
      refuse(ID, MessageWarning,
             quoteName(F.FileName) +
                 " changed since the action was offered (version " +
                 std::to_string(A.Version) + ", now " +
                 std::to_string(Doc.Version) +
                 "); ask for the code action again");
      return std::nullopt;
    }
    for (const std::unique_ptr<Job> &J : Jobs)
      if (J->URI == A.URI && J->St != Job::State::Done) {
        refuse(ID, MessageWarning,
               "a search is already running on " + quoteName(F.FileName));
        return std::nullopt;
      }
    if (Doc.Path.empty()) {
      refuse(ID, MessageError, quoteName(A.URI) + " is not a local file");
      return std::nullopt;
    }
    F.Path = Doc.Path;
    F.Text = Doc.Text;
  }
  std::optional<std::string> Saved = readFile(F.Path);
  if (!Saved || *Saved != F.Text) {
    refuse(ID, MessageWarning,
           "save " + quoteName(F.FileName) +
               " first: the search builds and runs the saved file");
    return std::nullopt;
  }
  return F;
}

bool Server::Impl::checkTarget(const json &ID, const OptimizeArgs &A,
                               const OptimizeFile &F) {
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
    refuse(ID, MessageError,
           "no function or kernel " + quoteName(A.Target) + " in " +
               quoteName(F.FileName) +
               (NoTargets.empty() ? "" : ": " + NoTargets));
  return Found;
}

std::optional<JobSettings> Server::Impl::jobSettings(const json &ID,
                                                     const std::string &Path) {
  // The user's configuration, then the repository's (which may not say
  // where code, data or secrets go), then the editor's settings.
  std::vector<std::string> ConfigWarnings;
  std::string ConfigFile;
  auto FromFiles = loadConfiguration(Path, ConfigWarnings, &ConfigFile);
  if (!FromFiles) {
    refuse(ID, MessageError, llvm::toString(FromFiles.takeError()));
    return std::nullopt;
  }
  for (const std::string &W : ConfigWarnings) {
    Log.info(W);
    notify("window/showMessage", {{"type", MessageWarning}, {"message", W}});
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

void Server::Impl::startJob(std::unique_ptr<Job> NewJob, const json *Token) {
  Job &J = *NewJob;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    J.Number = NextJobNumber++;
    if (Token) {
      // The client made the token: progress can start now.
      J.Token = *Token;
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
    call("window/workDoneProgress/create", {{"token", *J.Token}},
         [this, Number = J.Number](const json *, const json *Error) {
           onProgressToken(Number, Error);
         });
  }
  J.Finished = JobPool.async([this, &J] { runJob(J); });
}

void Server::Impl::onProgressToken(uint64_t Number, const json *Error) {
  std::lock_guard<std::mutex> Lock(Mu);
  Job *JP = findJob(Number);
  if (!JP || JP->St == Job::State::Done)
    return;
  JP->TokenPending = false;
  if (Error) {
    Log.info("the client refused a progress token: " + dumpJSON(*Error, false));
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
  notify("$/progress",
         {{"token", *J.Token},
          {"value",
           {{"kind", "begin"},
            {"title", "MaxCode: optimising " + quoteName(J.Request.Target)},
            {"cancellable", true},
            {"message", "starting the search"},
            {"percentage", 0}}}});
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
  json Value = {{"kind", "report"}, {"message", Message}};
  if (P.Budget)
    Value["percentage"] =
        std::min<unsigned>(100, P.Evaluations * 100 / P.Budget);
  notify("$/progress", {{"token", *J.Token}, {"value", Value}});
}

void Server::Impl::endProgress(Job &J, llvm::StringRef Message) {
  std::lock_guard<std::mutex> Lock(Mu);
  if (!J.Begun)
    return;
  J.Begun = false;
  notify("$/progress",
         {{"token", *J.Token},
          {"value", {{"kind", "end"}, {"message", Message.str()}}}});
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
  replyError(J.RequestID, RequestCancelled, "the search was cancelled");
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
  reply(J.RequestID, nullptr);
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
    return finishWith(J, "not started", MessageWarning,
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
      Log.verbose("cancelled search of " + quoteName(J.Request.Target) +
                  " ended with: " + llvm::toString(Result.takeError()));
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
      finishWith(J, "failed", MessageError,
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
    finishWith(J, "no verified improvement", MessageInfo,
               "MaxCode: no verified improvement found for " + Target + " (" +
                   evaluationCount(Result.Evaluations) + ")");
    return std::nullopt;
  }
  std::string Speedup = formatSpeedup(Result.Speedup);
  if (Result.BelowMinSpeedup) {
    finishWith(J, "below the minimum speedup", MessageInfo,
               "MaxCode: found a " + Speedup + " faster " + Target +
                   ", below the minimum speedup worth a review (" +
                   formatSpeedup(Result.MinSpeedup) + ", the setting " +
                   findOption("MinSpeedup")->setting() + "); nothing applied");
    return std::nullopt;
  }
  if (std::optional<std::string> Why = changedSince(J)) {
    finishWith(J, "not applied", MessageWarning,
               "MaxCode: found a " + Speedup + " faster " + Target + ", but " +
                   *Why +
                   " during the search, so the edit was not "
                   "sent; run the action again");
    return std::nullopt;
  }
  endProgress(J, Speedup + " faster");
  if (!ClientApplyEdit) {
    showMessage(MessageWarning,
                "MaxCode: found a " + Speedup + " faster " + Target +
                    ", but this editor cannot apply edits a server sends "
                    "(workspace/applyEdit); run clang-maxcode --apply");
    reply(J.RequestID, nullptr);
    finish(J);
    return std::nullopt;
  }
  return Edit;
}

json Server::Impl::workspaceEdit(const Job &J, const TextEdit &Edit) const {
  json TextEditJSON = {{"range", toJSON(Edit.Replaced)},
                       {"newText", Edit.NewText}};
  if (ClientDocumentChanges)
    return {{"documentChanges",
             {{{"textDocument", {{"uri", J.URI}, {"version", J.Version}}},
               {"edits", {TextEditJSON}}}}}};
  return {{"changes", {{J.URI, {TextEditJSON}}}}};
}

void Server::Impl::onApplyAnswer(uint64_t Number, const json *Result,
                                 const json *Error) {
  std::lock_guard<std::mutex> Lock(Mu);
  Job *JP = findJob(Number);
  if (!JP || JP->St == Job::State::Done)
    return;
  JP->ApplyAnswered = true;
  if (Result)
    JP->ApplyResult = *Result;
  else
    JP->ApplyResult =
        json{{"applied", false},
             {"failureReason", Error ? getString(*Error, "message").value_or("")
                                     : std::string()}};
  if (JP->St == Job::State::WaitingForClient)
    setState(*JP, Job::State::Busy);
  JP->CV.notify_all();
}

void Server::Impl::applyEdit(Job &J, const OptimizeResult &Result,
                             const TextEdit &Edit) {
  const std::string Target = quoteName(J.Request.Target);
  std::string Speedup = formatSpeedup(Result.Speedup);
  auto OnAnswer = [this, Number = J.Number](const json *Answer,
                                            const json *Error) {
    onApplyAnswer(Number, Answer, Error);
  };
  call("workspace/applyEdit",
       {{"label", "MaxCode: optimise " + Target + " (" + Speedup + " faster)"},
        {"edit", workspaceEdit(J, Edit)}},
       std::move(OnAnswer), &J);
  json Answer;
  {
    std::unique_lock<std::mutex> Lock(Mu);
    J.CV.wait(Lock, [&] { return J.ApplyAnswered || Stopping; });
    if (J.ApplyAnswered)
      Answer = *J.ApplyResult;
  }
  if (getBool(Answer, "applied") == true) {
    std::string Summary = "MaxCode: " + Target + " is " + Speedup +
                          " faster (noise " +
                          llvm::formatv("{0:f2}", Result.Noise).str() + ", " +
                          evaluationCount(Result.Evaluations) + ")";
    if (!Result.Description.empty())
      Summary += ": " + Result.Description;
    showMessage(MessageInfo, Summary);
  } else {
    std::string Reason = getString(Answer, "failureReason").value_or("");
    showMessage(MessageWarning,
                "MaxCode: the editor did not apply the " + Speedup +
                    " faster " + Target +
                    (Reason.empty() ? std::string() : ": " + Reason));
  }
  reply(J.RequestID, nullptr);
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

void Server::Impl::onCancelRequest(const json &Params) {
  const json *ID = member(Params, "id");
  if (!ID || !isValidID(*ID))
    return Log.error("$/cancelRequest without an id");
  std::lock_guard<std::mutex> Lock(Mu);
  for (const std::unique_ptr<Job> &J : Jobs)
    if (J->St != Job::State::Done && J->RequestID == *ID)
      cancel(*J);
}

void Server::Impl::onProgressCancel(const json &Params) {
  const json *Token = member(Params, "token");
  if (!Token || !isValidID(*Token))
    return Log.error("window/workDoneProgress/cancel without a token");
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
