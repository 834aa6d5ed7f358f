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
#include "maxcode/Support/Process.h"

using namespace maxcode;
using namespace maxcode::lsp;
using namespace maxcode::lsp::impl;

std::string impl::quoteName(llvm::StringRef Name) {
  return "`" + Name.str() + "`";
}

std::string impl::formatSpeedup(double X) {
  return llvm::formatv("{0:f2}x", X).str();
}

bool impl::isValidID(const json::Value &ID) {
  return ID.getAsString() ||
         (ID.kind() == json::Value::Number && ID.getAsInteger());
}

bool impl::wantsRewrite(llvm::ArrayRef<std::string> Only) {
  if (Only.empty())
    return true;
  llvm::StringRef Kind = RewriteKind;
  for (llvm::StringRef Want : Only)
    if (Kind == Want || (Kind.starts_with(Want) && Kind[Want.size()] == '.'))
      return true;
  return false;
}

std::optional<std::string> impl::readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return (*Buffer)->getBuffer().str();
}

bool impl::fromJSON(const json::Value &E, InternalAnswer &Out, json::Path P) {
  const json::Object *O = E.getAsObject();
  if (!O) {
    P.report("expected object");
    return false;
  }
  if (const json::Value *R = O->get("result")) {
    Out.Result = *R;
    return true;
  }
  Out.Code = O->getInteger("code").value_or(0);
  Out.Message = O->getString("message").value_or("").str();
  return true;
}

bool impl::fromJSON(const json::Value &E, ApplyEditAnswer &Out, json::Path P) {
  json::ObjectMapper O(E, P);
  if (!O || !O.map("applied", Out.Applied))
    return false;
  if (const json::Object *Obj = E.getAsObject())
    Out.FailureReason = Obj->getString("failureReason").value_or("").str();
  return true;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

void Server::Impl::showMessage(MessageType Type, llvm::StringRef Message) {
  // Messages quote file names and child processes; JSON strings are UTF-8.
  ShowMessage(llvm::lsp::ShowMessageParams(Type, json::fixUTF8(Message)));
}

void Server::Impl::notifyProgress(const json::Value &Token,
                                  json::Object Value) {
  Progress(json::Object{{"token", Token}, {"value", std::move(Value)}});
}

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

int Server::Impl::run(std::unique_ptr<MessageParser> Parser, int InputFD) {
  auto Input = std::make_unique<ClientInput>(
      std::move(Parser), InputFD, [this](std::string Body, MessageParser &P) {
        return vet(std::move(Body), P);
      });
  Transport = std::make_unique<llvm::lsp::JSONTransport>(std::move(Input), Out,
                                                         Opts.Pretty);
  Handler = std::make_unique<llvm::lsp::MessageHandler>(*Transport);
  registerHandlers();
  // The transport returns at exit, or with an error at the end of the input.
  if (llvm::Error E = Transport->run(*Handler)) {
    llvm::consumeError(std::move(E));
    if (!interrupted())
      Logger::error("the input ended before an exit notification");
  } else {
    ExitRequested = true;
  }
  if (interrupted())
    Logger::error("interrupted by signal {0}: stopping the searches",
                  interruptSignal());
  stopJobs();
  if (interrupted())
    return 128 + interruptSignal();
  return ExitRequested && ShutdownRequested ? 0 : 1;
}

void Server::Impl::registerHandlers() {
  if (Opts.TestRoot)
    llvm::lsp::URIForFile::registerSupportedScheme("test");
  ShowMessage = Handler->outgoingNotification<llvm::lsp::ShowMessageParams>(
      "window/showMessage");
  Progress = Handler->outgoingNotification<json::Value>("$/progress");
  Handler->method(AnswerMethod, this, &Impl::onAnswer);
  Handler->method("initialize", this, &Impl::onInitialize);
  Handler->method("shutdown", this, &Impl::onShutdown);
  Handler->method("textDocument/codeAction", this, &Impl::onCodeAction);
  Handler->method("workspace/executeCommand", this, &Impl::onExecuteCommand);
  auto Notification = [&](llvm::StringLiteral Method, auto Fn) {
    Handler->notification(Method, this, Fn);
    Notifications.insert(Method);
  };
  Notification("textDocument/didOpen", &Impl::onDidOpen);
  Notification("textDocument/didChange", &Impl::onDidChange);
  Notification("textDocument/didClose", &Impl::onDidClose);
  Notification("$/cancelRequest", &Impl::onCancelRequest);
  Notification("window/workDoneProgress/cancel", &Impl::onProgressCancel);
}

std::string Server::Impl::internalAnswer(const json::Value &ID,
                                         json::Object Answer) {
  return llvm::formatv("{0}",
                       json::Value(json::Object{{"jsonrpc", "2.0"},
                                                {"id", ID},
                                                {"method", AnswerMethod},
                                                {"params", std::move(Answer)}}))
      .str();
}

std::string Server::Impl::refusal(const json::Value &ID, ErrorCode Code,
                                  llvm::StringRef Message) {
  return internalAnswer(
      ID, json::Object{{"code", int64_t(Code)}, {"message", Message}});
}

void Server::Impl::onAnswer(const InternalAnswer &A,
                            Callback<json::Value> Reply) {
  if (A.Result)
    return Reply(*A.Result);
  Reply(llvm::make_error<LSPError>(A.Message, ErrorCode(A.Code)));
}

/// The methods whose params name a document by textDocument.uri.
static bool isDocumentMethod(llvm::StringRef Method) {
  return Method == "textDocument/didOpen" ||
         Method == "textDocument/didChange" ||
         Method == "textDocument/didClose" ||
         Method == "textDocument/codeAction";
}

bool Server::Impl::namesLocalFile(const json::Value &Params) {
  // A document that is no local file (an editor's `untitled:` buffer, a
  // file on another host) has nothing to offer: LLVM's protocol types would
  // refuse its URI, and with it the whole message.
  const json::Object *Doc =
      Params.getAsObject() ? Params.getAsObject()->getObject("textDocument")
                           : nullptr;
  std::optional<llvm::StringRef> URI =
      Doc ? Doc->getString("uri") : std::nullopt;
  if (!URI)
    return true; // The handler's own parsing says what is missing.
  std::optional<llvm::StringRef> TestRoot;
  if (Opts.TestRoot)
    TestRoot = *Opts.TestRoot;
  llvm::Expected<std::string> Path = uriToPath(*URI, TestRoot);
  if (Path)
    return true;
  Logger::info("nothing is offered for {0}: {1}", *URI,
               llvm::toString(Path.takeError()));
  return false;
}

std::optional<std::string> Server::Impl::vet(std::string Body,
                                             MessageParser &Parser) {
  llvm::Expected<json::Value> Message = json::parse(Body);
  const json::Object *O = Message ? Message->getAsObject() : nullptr;
  // Cancellations are handled as soon as they are read, even in sync mode:
  // that is what they are for.
  std::optional<llvm::StringRef> Method =
      O ? O->getString("method") : std::nullopt;
  bool IsCancel = O && !O->get("id") &&
                  (Method == "$/cancelRequest" ||
                   Method == "window/workDoneProgress/cancel");
  if (Opts.Sync && !IsCancel)
    waitQuiet();
  if (!Message) {
    llvm::consumeError(Message.takeError());
    // A frame whose length was too long swallowed the start of the next
    // frame; hand that back so the next message is not lost.
    size_t At = llvm::StringRef(Body).find_insensitive("content-length:");
    if (At != llvm::StringRef::npos && At > 0)
      Parser.unread(llvm::StringRef(Body).drop_front(At));
    return refusal(nullptr, ErrorCode::ParseError,
                   "the message is not valid JSON");
  }
  if (!O)
    return refusal(nullptr, ErrorCode::InvalidRequest,
                   "a message must be a JSON object");
  const json::Value *IDField = O->get("id");
  if (IDField && !isValidID(*IDField))
    return refusal(nullptr, ErrorCode::InvalidRequest,
                   "the id must be an integer or a string");
  json::Value ID = IDField ? *IDField : json::Value(nullptr);
  if (O->getString("jsonrpc") != "2.0")
    return refusal(ID, ErrorCode::InvalidRequest, "jsonrpc must be \"2.0\"");
  if (!O->get("method")) {
    if (IDField &&
        (O->get("result") != nullptr) != (O->get("error") != nullptr))
      return Body; // A response: the handler of our request takes it.
    return refusal(ID, ErrorCode::InvalidRequest,
                   "a message needs a method (a request or notification) "
                   "or an id with a result or an error (a response)");
  }
  if (!Method)
    return refusal(ID, ErrorCode::InvalidRequest,
                   "the method must be a string");
  const json::Value *Params = O->get("params");
  if (Params && !Params->getAsObject() && !Params->getAsArray())
    return refusal(ID, ErrorCode::InvalidRequest,
                   "params must be an object or an array");
  bool IsRequest = IDField != nullptr;
  if (*Method == AnswerMethod) {
    if (!IsRequest)
      return std::nullopt;
    return refusal(ID, ErrorCode::MethodNotFound,
                   ("method not found: " + *Method).str());
  }

  // The lifecycle: initialize first; after shutdown, only exit.
  if (IsRequest && *Method != "initialize") {
    if (!Initialized)
      return refusal(ID, ErrorCode::ServerNotInitialized,
                     "the server is not initialized: send initialize first");
    if (ShutdownRequested)
      return refusal(ID, ErrorCode::InvalidRequest,
                     "the server is shutting down: only exit is accepted");
  }
  if (!IsRequest && *Method != "exit") {
    if (!Initialized || ShutdownRequested) {
      Logger::info("dropped notification {0} {1}", *Method,
                   Initialized ? "after shutdown" : "before initialize");
      return std::nullopt;
    }
    // Notifications that may be ignored start with "$/"; others are logged.
    if (!Notifications.contains(*Method) && !Method->starts_with("$/") &&
        *Method != "initialized" && *Method != "textDocument/didSave")
      Logger::info("ignored notification {0}", *Method);
  }

  if (isDocumentMethod(*Method) && Params && !namesLocalFile(*Params)) {
    if (IsRequest)
      return internalAnswer(ID, json::Object{{"result", json::Array()}});
    return std::nullopt;
  }
  DispatchedID = std::move(ID);
  return Body;
}

//===----------------------------------------------------------------------===//
// Lifecycle and documents
//===----------------------------------------------------------------------===//

/// The search options of `initializationOptions`: the options model's
/// settings (the `.clang-maxcode` keys in camelCase), read by the model;
/// relative paths are taken against \p Root.
static llvm::Expected<MaxcodeOptions>
searchOptionsFrom(const json::Object &Init, llvm::StringRef Root) {
  auto Spelled = [](llvm::Error E) {
    return llvm::createStringError(
        "initializationOptions: " +
        llvm::toString(spellOptionErrors(std::move(E), OptionNames::Settings)));
  };
  auto O = optionsFromSettings(Init);
  if (!O)
    return Spelled(O.takeError());
  // The checks clang-maxcode makes, made now, when the editor can say so.
  if (llvm::Error E = validateOptions(resolveOptions(*O)))
    return Spelled(std::move(E));
  O->resolvePaths(Root);
  return O;
}

/// \p O's member at \p Keys, through nested objects; none where one lacks.
static const json::Object *
objectAt(const json::Object *O, std::initializer_list<llvm::StringRef> Keys) {
  for (llvm::StringRef K : Keys)
    if (!O || !(O = O->getObject(K)))
      return nullptr;
  return O;
}

void Server::Impl::onInitialize(const RawParams &Params,
                                Callback<json::Value> Reply) {
  auto Invalid = [&](const llvm::Twine &Message, ErrorCode Code) {
    Reply(llvm::make_error<LSPError>(Message.str(), Code));
  };
  if (Initialized)
    return Invalid("the server is already initialized",
                   ErrorCode::InvalidRequest);
  const json::Object *P = Params.V.getAsObject();
  if (!P)
    return Invalid("initialize takes an object", ErrorCode::InvalidParams);

  // What LLVM's protocol reads of the capabilities, then what it lacks.
  llvm::lsp::InitializeParams LSP;
  json::Path::Root Root;
  if (fromJSON(Params.V, LSP, Root)) {
    ClientProgress = LSP.capabilities.workDoneProgress;
    ClientCodeActionLiterals = LSP.capabilities.codeActionStructure;
  }
  if (const json::Object *Workspace =
          objectAt(P, {"capabilities", "workspace"})) {
    ClientApplyEdit = Workspace->getBoolean("applyEdit").value_or(false);
    if (const json::Object *Edit = Workspace->getObject("workspaceEdit"))
      ClientDocumentChanges =
          Edit->getBoolean("documentChanges").value_or(false);
  }

  std::optional<llvm::StringRef> TestRoot;
  if (Opts.TestRoot)
    TestRoot = *Opts.TestRoot;
  std::optional<llvm::StringRef> RootURI = P->getString("rootUri");
  if (!RootURI)
    if (const json::Array *Folders = P->getArray("workspaceFolders"))
      if (!Folders->empty() && Folders->front().getAsObject())
        RootURI = Folders->front().getAsObject()->getString("uri");
  if (RootURI) {
    auto RootPath = uriToPath(*RootURI, TestRoot);
    if (RootPath)
      WorkspaceRoot = *RootPath;
    else
      Logger::error("ignoring the workspace root: {0}",
                    llvm::toString(RootPath.takeError()));
  } else if (std::optional<llvm::StringRef> RootPath =
                 P->getString("rootPath")) {
    WorkspaceRoot = RootPath->str();
  }

  if (const json::Value *Init = P->get("initializationOptions")) {
    const json::Object *InitObject = Init->getAsObject();
    if (!InitObject && Init->kind() != json::Value::Null)
      return Invalid("initializationOptions must be an object",
                     ErrorCode::InvalidParams);
    if (InitObject) {
      auto Options = searchOptionsFrom(*InitObject, WorkspaceRoot);
      if (!Options)
        return Invalid(llvm::toString(Options.takeError()),
                       ErrorCode::InvalidParams);
      EditorOptions = std::move(*Options);
      if (const json::Value *DB = InitObject->get("compilationDatabasePath")) {
        if (!DB->getAsString())
          return Invalid("initializationOptions: compilationDatabasePath "
                         "must be a string",
                         ErrorCode::InvalidParams);
        llvm::SmallString<256> Path(*DB->getAsString());
        if (!llvm::sys::path::is_absolute(Path) && !WorkspaceRoot.empty())
          Path = (llvm::Twine(WorkspaceRoot) + "/" + Path).str();
        DatabasePath = std::string(Path);
      }
    }
  }

  Initialized = true;
  json::Value CodeActionProvider = true;
  if (ClientCodeActionLiterals)
    CodeActionProvider =
        json::Object{{"codeActionKinds", json::Array{RewriteKind}},
                     {"resolveProvider", false}};
  Reply(json::Object{
      {"capabilities",
       json::Object{
           {"positionEncoding", "utf-16"},
           {"textDocumentSync",
            json::Object{
                {"openClose", true},
                {"change", int(llvm::lsp::TextDocumentSyncKind::Incremental)}}},
           {"codeActionProvider", std::move(CodeActionProvider)},
           {"executeCommandProvider",
            json::Object{{"commands", json::Array{OptimizeCommand}},
                         {"workDoneProgress", true}}}}},
      {"serverInfo", json::Object{{"name", "maxcode-lsp"}, {"version", "1"}}}});
}

void Server::Impl::onShutdown(const llvm::lsp::NoParams &,
                              Callback<json::Value> Reply) {
  ShutdownRequested = true;
  stopJobs();
  Reply(nullptr);
}

void Server::Impl::onDidOpen(const llvm::lsp::DidOpenTextDocumentParams &P) {
  Document D;
  D.URI = P.textDocument.uri.uri().str();
  D.Text = P.textDocument.text;
  D.Version = P.textDocument.version;
  std::optional<llvm::StringRef> TestRoot;
  if (Opts.TestRoot)
    TestRoot = *Opts.TestRoot;
  // The message was let through because the URI names a local file.
  auto Path = uriToPath(D.URI, TestRoot);
  if (Path)
    D.Path = std::move(*Path);
  else
    Logger::info("no targets will be offered for {0}: {1}", D.URI,
                 llvm::toString(Path.takeError()));
  std::lock_guard<std::mutex> Lock(Mu);
  Documents[D.URI] = std::move(D);
}

void Server::Impl::onDidChange(const RawParams &Params) {
  const json::Object *Doc = objectAt(Params.V.getAsObject(), {"textDocument"});
  std::optional<llvm::StringRef> URIField =
      Doc ? Doc->getString("uri") : std::nullopt;
  if (!URIField)
    return Logger::error("didChange without textDocument.uri");
  std::string URI = URIField->str();
  std::lock_guard<std::mutex> Lock(Mu);
  auto It = Documents.find(URI);
  if (It == Documents.end())
    return Logger::error("didChange for {0}, which is not open", URI);
  // Any change we cannot follow leaves our copy out of step with the
  // editor's; forget the document rather than offer actions on wrong text.
  auto Forget = [&](const llvm::Twine &Why) {
    Logger::error("closing {0} on the server: {1} (reopen it to get code "
                  "actions again)",
                  URI, Why.str());
    Documents.erase(It);
  };
  llvm::lsp::DidChangeTextDocumentParams P;
  json::Path::Root Root;
  if (!fromJSON(Params.V, P, Root))
    return Forget("a malformed didChange: " + llvm::toString(Root.getError()));
  std::string Text = It->second.Text;
  for (const llvm::lsp::TextDocumentContentChangeEvent &Change :
       P.contentChanges)
    if (llvm::Error E = applyContentChange(Text, Change.range, Change.text))
      return Forget(llvm::toString(std::move(E)));
  It->second.Text = std::move(Text);
  It->second.Version = P.textDocument.version;
}

void Server::Impl::onDidClose(const llvm::lsp::DidCloseTextDocumentParams &P) {
  std::lock_guard<std::mutex> Lock(Mu);
  Documents.erase(P.textDocument.uri.uri().str());
}

Server::Server(ServerOptions Opts, OptimizeRunner &Runner,
               llvm::raw_ostream &Out)
    : I(std::make_unique<Impl>(std::move(Opts), Runner, Out)) {}

Server::~Server() = default;

int Server::run(std::unique_ptr<MessageParser> Parser, int InputFD) {
  return I->run(std::move(Parser), InputFD);
}
