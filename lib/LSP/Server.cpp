//===-- Server.cpp - The maxcode-lsp language server ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One thread reads and answers messages; each search runs in a thread of its
/// own, so the server keeps answering while it runs. Shared state (documents,
/// searches, requests sent to the client) is guarded by one mutex; output by
/// another, so that messages are written whole.
///
/// A search ("job") goes through these steps:
///   1. executeCommand checks the document (open, same version as when the
///      action was offered, saved) and finds the target, then the job starts.
///   2. Without a client token, it asks for one (window/workDoneProgress/
///      create) and waits for the answer: progress starts with it.
///   3. It runs the search through the OptimizeRunner, reporting progress.
///   4. On a verified improvement, if the document is still the text that
///      was searched, it sends workspace/applyEdit and waits for the answer;
///      otherwise it says why nothing was applied (window/showMessage).
///   5. It answers the executeCommand request: null, or RequestCancelled.
///
//===----------------------------------------------------------------------===//

#include "ServerImpl.h"

using namespace maxcode;
using namespace maxcode::lsp;

std::string impl::quoteName(llvm::StringRef Name) {
  return "`" + Name.str() + "`";
}

std::string impl::formatSpeedup(double X) {
  return llvm::formatv("{0:f2}x", X).str();
}

json impl::toJSON(const Position &P) {
  return json{{"line", P.Line}, {"character", P.Character}};
}

json impl::toJSON(const Range &R) {
  return json{{"start", toJSON(R.Start)}, {"end", toJSON(R.End)}};
}

std::optional<Position> impl::positionFrom(const json *J) {
  if (!J)
    return std::nullopt;
  std::optional<int64_t> Line = getInteger(*J, "line");
  std::optional<int64_t> Char = getInteger(*J, "character");
  if (!Line || !Char || *Line < 0 || *Char < 0 || *Line > INT32_MAX ||
      *Char > INT32_MAX)
    return std::nullopt;
  return Position{static_cast<int>(*Line), static_cast<int>(*Char)};
}

std::optional<Range> impl::rangeFrom(const json *J) {
  if (!J)
    return std::nullopt;
  std::optional<Position> Start = positionFrom(member(*J, "start"));
  std::optional<Position> End = positionFrom(member(*J, "end"));
  if (!Start || !End)
    return std::nullopt;
  return Range{*Start, *End};
}

bool impl::isValidID(const json &ID) {
  return ID.is_string() || ID.is_number_integer();
}

bool impl::wantsRewrite(const json *Only) {
  if (!Only || !Only->is_array())
    return true;
  llvm::StringRef Kind = RewriteKind;
  for (const json &K : *Only) {
    if (!K.is_string())
      continue;
    llvm::StringRef Want = K.get_ref<const std::string &>();
    if (Kind == Want || (Kind.starts_with(Want) && Kind[Want.size()] == '.'))
      return true;
  }
  return false;
}

std::optional<std::string> impl::readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return (*Buffer)->getBuffer().str();
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

void Server::Impl::send(const json &Message) {
  std::string Body = dumpJSON(Message, Opts.Pretty);
  // Pretty output is for people: end each message with a line end (JSON
  // allows trailing white space, so the frame stays valid).
  if (Opts.Pretty)
    Body += '\n';
  std::lock_guard<std::mutex> Lock(OutMu);
  Out << frameMessage(Body);
  Out.flush();
}

void Server::Impl::reply(const json &ID, json Result) {
  send(json{{"jsonrpc", "2.0"}, {"id", ID}, {"result", std::move(Result)}});
}

void Server::Impl::replyError(const json &ID, int Code,
                              llvm::StringRef Message) {
  Log.info("error reply " + std::to_string(Code) + ": " + Message);
  send(json{{"jsonrpc", "2.0"},
            {"id", ID},
            {"error", {{"code", Code}, {"message", Message.str()}}}});
}

void Server::Impl::notify(llvm::StringRef Method, json Params) {
  send(json{{"jsonrpc", "2.0"},
            {"method", Method.str()},
            {"params", std::move(Params)}});
}

void Server::Impl::showMessage(MessageType Type, llvm::StringRef Message) {
  notify("window/showMessage", {{"type", Type}, {"message", Message.str()}});
}

void Server::Impl::call(llvm::StringRef Method, json Params,
                        ReplyHandler OnReply, Job *Waiting) {
  int64_t ID;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    ID = NextRequestID++;
    PendingCalls[ID] = std::move(OnReply);
    if (Waiting)
      setState(*Waiting, Job::State::WaitingForClient);
  }
  send(json{{"jsonrpc", "2.0"},
            {"id", ID},
            {"method", Method.str()},
            {"params", std::move(Params)}});
}

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

int Server::Impl::run(MessageParser &Parser, int InputFD) {
  char Buf[65536];
  bool AtEnd = false;
  while (!ExitRequested) {
    std::optional<InputEvent> E = Parser.next();
    if (!E && AtEnd) {
      E = Parser.finish();
      if (!E)
        break;
    }
    if (!E) {
      ssize_t N = ::read(InputFD, Buf, sizeof(Buf));
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0) {
        if (N < 0)
          Log.error(llvm::Twine("cannot read the input: ") + strerror(errno));
        AtEnd = true;
        continue;
      }
      Parser.feed(llvm::StringRef(Buf, N));
      continue;
    }
    if (E->Kind == InputEvent::Skipped) {
      Log.error("skipped input that is not a message: " + E->Text);
      continue;
    }
    handleMessage(E->Text, Parser);
  }
  if (!ExitRequested)
    Log.error("the input ended before an exit notification");
  stopJobs();
  return ExitRequested && ShutdownRequested ? 0 : 1;
}

void Server::Impl::handleMessage(const std::string &Body,
                                 MessageParser &Parser) {
  std::optional<json> Message = parseJSON(Body);
  // Cancellations are handled as soon as they are read, even in sync mode:
  // that is what they are for.
  bool IsCancel = false;
  if (Message && !member(*Message, "id")) {
    std::optional<std::string> Method = getString(*Message, "method");
    IsCancel = Method == "$/cancelRequest" ||
               Method == "window/workDoneProgress/cancel";
  }
  if (Opts.Sync && !IsCancel)
    waitQuiet();
  if (!Message) {
    replyError(nullptr, ParseError, "the message is not valid JSON");
    // A frame whose length was too long swallowed the start of the next
    // frame; hand that back so the next message is not lost.
    size_t At = llvm::StringRef(Body).find_insensitive("content-length:");
    if (At != llvm::StringRef::npos && At > 0)
      Parser.unread(llvm::StringRef(Body).drop_front(At));
    return;
  }
#if defined(__cpp_exceptions)
  // JSONUtil.h reads messages without throwing; this is the backstop that
  // keeps one bad message from ending the server.
  try {
    dispatch(*Message);
  } catch (const json::exception &Ex) {
    Log.error(llvm::Twine("internal error: ") + Ex.what());
    const json *ID = member(*Message, "id");
    replyError(ID && isValidID(*ID) ? *ID : json(nullptr), InternalError,
               Ex.what());
  }
#else
  dispatch(*Message);
#endif
}

void Server::Impl::dispatch(const json &Message) {
  if (!Message.is_object())
    return replyError(nullptr, InvalidRequest,
                      "a message must be a JSON object");
  const json *IDField = member(Message, "id");
  if (IDField && !isValidID(*IDField))
    return replyError(nullptr, InvalidRequest,
                      "the id must be an integer or a string");
  json ID = IDField ? *IDField : json(nullptr);
  if (getString(Message, "jsonrpc") != "2.0")
    return replyError(ID, InvalidRequest, "jsonrpc must be \"2.0\"");
  const json *Method = member(Message, "method");
  if (!Method) {
    const json *Result = member(Message, "result");
    const json *Error = member(Message, "error");
    if (IDField && (Result != nullptr) != (Error != nullptr))
      return handleResponse(ID, Result, Error);
    return replyError(ID, InvalidRequest,
                      "a message needs a method (a request or notification) "
                      "or an id with a result or an error (a response)");
  }
  if (!Method->is_string())
    return replyError(ID, InvalidRequest, "the method must be a string");
  const json *Params = member(Message, "params");
  if (Params && !Params->is_object() && !Params->is_array())
    return replyError(ID, InvalidRequest,
                      "params must be an object or an array");
  static const json NoParams = json::object();
  const std::string &Name = Method->get_ref<const std::string &>();
  Log.verbose("<-- " + Name + (IDField ? "(" + dumpJSON(ID, false) + ")" : ""));
  if (IDField)
    handleRequest(ID, Name, Params ? *Params : NoParams);
  else
    handleNotification(Name, Params ? *Params : NoParams);
}

void Server::Impl::handleRequest(const json &ID, llvm::StringRef Method,
                                 const json &Params) {
  if (Method == "initialize")
    return onInitialize(ID, Params);
  if (!Initialized)
    return replyError(ID, ServerNotInitialized,
                      "the server is not initialized: send initialize first");
  if (ShutdownRequested)
    return replyError(ID, InvalidRequest,
                      "the server is shutting down: only exit is accepted");
  if (Method == "shutdown")
    return onShutdown(ID);
  if (Method == "textDocument/codeAction")
    return onCodeAction(ID, Params);
  if (Method == "workspace/executeCommand")
    return onExecuteCommand(ID, Params);
  replyError(ID, MethodNotFound, ("method not found: " + Method).str());
}

void Server::Impl::handleNotification(llvm::StringRef Method,
                                      const json &Params) {
  if (Method == "exit") {
    ExitRequested = true;
    return;
  }
  if (!Initialized || ShutdownRequested) {
    Log.info(("dropped notification " + Method +
              (Initialized ? " after shutdown" : " before initialize"))
                 .str());
    return;
  }
  if (Method == "initialized")
    return;
  if (Method == "textDocument/didOpen")
    return onDidOpen(Params);
  if (Method == "textDocument/didChange")
    return onDidChange(Params);
  if (Method == "textDocument/didClose")
    return onDidClose(Params);
  if (Method == "$/cancelRequest")
    return onCancelRequest(Params);
  if (Method == "window/workDoneProgress/cancel")
    return onProgressCancel(Params);
  // Notifications that may be ignored start with "$/"; others are logged.
  if (!Method.starts_with("$/") && Method != "textDocument/didSave")
    Log.info(("ignored notification " + Method).str());
}

void Server::Impl::handleResponse(const json &ID, const json *Result,
                                  const json *Error) {
  ReplyHandler Handler;
  if (ID.is_number_integer()) {
    std::lock_guard<std::mutex> Lock(Mu);
    auto It = PendingCalls.find(ID.get<int64_t>());
    if (It != PendingCalls.end()) {
      Handler = std::move(It->second);
      PendingCalls.erase(It);
    }
  }
  if (!Handler) {
    Log.info("response to no request of ours: " + dumpJSON(ID, false));
    return;
  }
  Handler(Result, Error);
}

//===----------------------------------------------------------------------===//
// Lifecycle and documents
//===----------------------------------------------------------------------===//

/// The search options of `initializationOptions`: the options model's
/// settings (the `.clang-maxcode` keys in camelCase), read by the model;
/// relative paths are taken against \p Root.
static llvm::Expected<MaxcodeOptions> searchOptionsFrom(const json &Init,
                                                        llvm::StringRef Root) {
  // The model reads LLVM's JSON; this layer's messages are nlohmann's.
  llvm::Expected<llvm::json::Value> Settings = llvm::json::parse(Init.dump());
  if (!Settings)
    return Settings.takeError();
  auto Spelled = [](llvm::Error E) {
    return llvm::createStringError(
        "initializationOptions: " +
        llvm::toString(spellOptionErrors(
            std::move(E), [](const OptionInfo &I) { return I.setting(); })));
  };
  auto O = optionsFromSettings(*Settings->getAsObject());
  if (!O)
    return Spelled(O.takeError());
  // The checks clang-maxcode makes, made now, when the editor can say so.
  if (llvm::Error E = validateOptions(resolveOptions(*O)))
    return Spelled(std::move(E));
  O->resolvePaths(Root);
  return O;
}

void Server::Impl::onInitialize(const json &ID, const json &Params) {
  if (Initialized)
    return replyError(ID, InvalidRequest, "the server is already initialized");
  if (!Params.is_object())
    return replyError(ID, InvalidParams, "initialize takes an object");

  if (const json *Window = path(Params, {"capabilities", "window"}))
    ClientProgress = getBool(*Window, "workDoneProgress").value_or(false);
  if (const json *Workspace = path(Params, {"capabilities", "workspace"})) {
    ClientApplyEdit = getBool(*Workspace, "applyEdit").value_or(false);
    if (const json *Edit = member(*Workspace, "workspaceEdit"))
      ClientDocumentChanges = getBool(*Edit, "documentChanges").value_or(false);
  }
  ClientCodeActionLiterals =
      path(Params, {"capabilities", "textDocument", "codeAction",
                    "codeActionLiteralSupport"}) != nullptr;

  std::optional<llvm::StringRef> TestRoot;
  if (Opts.TestRoot)
    TestRoot = *Opts.TestRoot;
  std::optional<std::string> RootURI = getString(Params, "rootUri");
  if (!RootURI)
    if (const json *Folders = member(Params, "workspaceFolders"))
      if (Folders->is_array() && !Folders->empty())
        RootURI = getString(Folders->front(), "uri");
  if (RootURI) {
    auto Root = uriToPath(*RootURI, TestRoot);
    if (Root)
      WorkspaceRoot = *Root;
    else
      Log.error("ignoring the workspace root: " +
                llvm::toString(Root.takeError()));
  } else if (std::optional<std::string> RootPath =
                 getString(Params, "rootPath")) {
    WorkspaceRoot = *RootPath;
  }

  if (const json *Init = member(Params, "initializationOptions")) {
    if (!Init->is_object() && !Init->is_null())
      return replyError(ID, InvalidParams,
                        "initializationOptions must be an object");
    if (Init->is_object()) {
      auto Options = searchOptionsFrom(*Init, WorkspaceRoot);
      if (!Options)
        return replyError(ID, InvalidParams,
                          llvm::toString(Options.takeError()));
      EditorOptions = std::move(*Options);
      if (const json *DB = member(*Init, "compilationDatabasePath")) {
        if (!DB->is_string())
          return replyError(
              ID, InvalidParams,
              "initializationOptions: compilationDatabasePath must be a "
              "string");
        llvm::SmallString<256> Path(DB->get_ref<const std::string &>());
        if (!llvm::sys::path::is_absolute(Path) && !WorkspaceRoot.empty())
          Path = (llvm::Twine(WorkspaceRoot) + "/" + Path).str();
        DatabasePath = std::string(Path);
      }
    }
  }

  Initialized = true;
  json CodeActionProvider = true;
  if (ClientCodeActionLiterals)
    CodeActionProvider = {{"codeActionKinds", {RewriteKind}},
                          {"resolveProvider", false}};
  reply(ID,
        {{"capabilities",
          {{"positionEncoding", "utf-16"},
           {"textDocumentSync", {{"openClose", true}, {"change", 2}}},
           {"codeActionProvider", CodeActionProvider},
           {"executeCommandProvider",
            {{"commands", {OptimizeCommand}}, {"workDoneProgress", true}}}}},
         {"serverInfo", {{"name", "maxcode-lsp"}, {"version", "1"}}}});
}

void Server::Impl::onShutdown(const json &ID) {
  ShutdownRequested = true;
  stopJobs();
  reply(ID, nullptr);
}

void Server::Impl::onDidOpen(const json &Params) {
  const json *Doc = member(Params, "textDocument");
  std::optional<std::string> URI = Doc ? getString(*Doc, "uri") : std::nullopt;
  std::optional<std::string> Text =
      Doc ? getString(*Doc, "text") : std::nullopt;
  std::optional<int64_t> Version =
      Doc ? getInteger(*Doc, "version") : std::nullopt;
  if (!URI || !Text)
    return Log.error("didOpen without textDocument.uri and text");
  Document D;
  D.URI = *URI;
  D.Text = std::move(*Text);
  D.Version = Version.value_or(0);
  std::optional<llvm::StringRef> TestRoot;
  if (Opts.TestRoot)
    TestRoot = *Opts.TestRoot;
  auto Path = uriToPath(*URI, TestRoot);
  if (Path)
    D.Path = std::move(*Path);
  else
    Log.info("no targets will be offered for " + *URI + ": " +
             llvm::toString(Path.takeError()));
  std::lock_guard<std::mutex> Lock(Mu);
  Documents[*URI] = std::move(D);
}

void Server::Impl::onDidChange(const json &Params) {
  const json *Doc = member(Params, "textDocument");
  std::optional<std::string> URI = Doc ? getString(*Doc, "uri") : std::nullopt;
  if (!URI)
    return Log.error("didChange without textDocument.uri");
  std::lock_guard<std::mutex> Lock(Mu);
  auto It = Documents.find(*URI);
  if (It == Documents.end())
    return Log.error("didChange for " + *URI + ", which is not open");
  // Any change we cannot follow leaves our copy out of step with the
  // editor's; forget the document rather than offer actions on wrong text.
  auto Forget = [&](const llvm::Twine &Why) {
    Log.error("closing " + *URI + " on the server: " + Why +
              " (reopen it to get code actions again)");
    Documents.erase(It);
  };
  std::optional<int64_t> Version = getInteger(*Doc, "version");
  const json *Changes = member(Params, "contentChanges");
  if (!Version || !Changes || !Changes->is_array())
    return Forget("didChange without a version and contentChanges");
  std::string Text = It->second.Text;
  for (const json &Change : *Changes) {
    std::optional<std::string> NewText = getString(Change, "text");
    if (!NewText)
      return Forget("a change without text");
    std::optional<Range> R;
    if (const json *RangeField = member(Change, "range")) {
      R = rangeFrom(RangeField);
      if (!R)
        return Forget("a change with a malformed range");
    }
    if (llvm::Error E = applyContentChange(Text, R, *NewText))
      return Forget(llvm::toString(std::move(E)));
  }
  It->second.Text = std::move(Text);
  It->second.Version = *Version;
}

void Server::Impl::onDidClose(const json &Params) {
  const json *Doc = member(Params, "textDocument");
  std::optional<std::string> URI = Doc ? getString(*Doc, "uri") : std::nullopt;
  if (!URI)
    return Log.error("didClose without textDocument.uri");
  std::lock_guard<std::mutex> Lock(Mu);
  Documents.erase(*URI);
}

Server::Server(ServerOptions Opts, OptimizeRunner &Runner, Logger &Log,
               llvm::raw_ostream &Out)
    : I(std::make_unique<Impl>(std::move(Opts), Runner, Log, Out)) {}

Server::~Server() = default;

int Server::run(MessageParser &Parser, int InputFD) {
  return I->run(Parser, InputFD);
}
