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

#include "maxcode/LSP/Server.h"
#include "JSONUtil.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/LSP/Logger.h"
#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Protocol.h"
#include "maxcode/LSP/Transport.h"
#include "maxcode/Support/Config.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;

namespace {

// JSON-RPC and LSP error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
};

// window/showMessage types.
enum MessageType { MessageError = 1, MessageWarning = 2, MessageInfo = 3 };

constexpr const char *OptimizeCommand = "maxcode.optimize";
constexpr const char *RewriteKind = "refactor.rewrite";

struct Document {
  std::string URI;
  std::string Path; ///< Empty when the URI names no local file.
  std::string Text;
  int64_t Version = 0;
  /// Targets listed for TargetsVersion, or why none could be.
  std::optional<int64_t> TargetsVersion;
  std::vector<Target> Targets;
  std::string TargetsError;
};

struct Job {
  enum class State { Busy, WaitingForClient, Done };

  uint64_t Number = 0;
  json RequestID;
  std::string URI;
  std::string Name; ///< The file's name, for messages.
  int64_t Version = 0;
  std::string OriginalText; ///< The saved file the search reads.
  OptimizeRequest Request;

  std::optional<json> Token; ///< The $/progress token, if any.
  bool TokenPending = false; ///< window/workDoneProgress/create unanswered.
  bool Begun = false;        ///< "begin" sent, "end" not yet.
  std::atomic<bool> Cancel{false};
  State St = State::Busy;
  std::optional<json> ApplyResult; ///< The answer to workspace/applyEdit.
  bool ApplyAnswered = false;
  std::condition_variable CV;
  std::shared_future<void> Finished; ///< runJob's task in the job pool.
};

/// The argument of a maxcode.optimize request, and its progress token.
struct OptimizeArgs {
  std::string URI;
  std::string Target;
  int64_t Version = 0;
  const json *Token = nullptr; ///< The workDoneToken, if the client gave one.
};

/// The document a maxcode.optimize request searches, as checked.
struct OptimizeFile {
  std::string Path;
  std::string Text;
  std::string FileName; ///< For messages.
};

/// Where and how a search runs.
struct JobSettings {
  SearchOptions Options;
  std::string WorkingDir;
};

} // namespace

/// `a.cpp` for messages.
static std::string quoteName(llvm::StringRef Name) {
  return "`" + Name.str() + "`";
}

static std::string formatSpeedup(double X) {
  return llvm::formatv("{0:f2}x", X).str();
}

static json toJSON(const Position &P) {
  return json{{"line", P.Line}, {"character", P.Character}};
}

static json toJSON(const Range &R) {
  return json{{"start", toJSON(R.Start)}, {"end", toJSON(R.End)}};
}

static std::optional<Position> positionFrom(const json *J) {
  if (!J)
    return std::nullopt;
  std::optional<int64_t> Line = getInteger(*J, "line");
  std::optional<int64_t> Char = getInteger(*J, "character");
  if (!Line || !Char || *Line < 0 || *Char < 0 || *Line > INT32_MAX ||
      *Char > INT32_MAX)
    return std::nullopt;
  return Position{static_cast<int>(*Line), static_cast<int>(*Char)};
}

static std::optional<Range> rangeFrom(const json *J) {
  if (!J)
    return std::nullopt;
  std::optional<Position> Start = positionFrom(member(*J, "start"));
  std::optional<Position> End = positionFrom(member(*J, "end"));
  if (!Start || !End)
    return std::nullopt;
  return Range{*Start, *End};
}

static bool isValidID(const json &ID) {
  return ID.is_string() || ID.is_number_integer();
}

/// True when a client asking only for \p Only kinds wants refactor.rewrite.
static bool wantsRewrite(const json *Only) {
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

static std::optional<std::string> readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return (*Buffer)->getBuffer().str();
}

class Server::Impl {
public:
  Impl(ServerOptions Opts, OptimizeRunner &Runner, Logger &Log,
       llvm::raw_ostream &Out)
      : Opts(std::move(Opts)), Runner(Runner), Log(Log), Out(Out) {}

  int run(MessageParser &Parser, int InputFD);

private:
  using ReplyHandler =
      std::function<void(const json *Result, const json *Error)>;

  // Output.
  void send(const json &Message);
  void reply(const json &ID, json Result);
  void replyError(const json &ID, int Code, llvm::StringRef Message);
  void notify(llvm::StringRef Method, json Params);
  void showMessage(MessageType Type, llvm::StringRef Message);
  /// Sends a request to the client; \p OnReply gets its answer. \p Waiting,
  /// if given, is the job that now waits for that answer: it stops counting
  /// as busy only once the answer can be taken, so that -sync cannot read the
  /// answer before the request exists.
  void call(llvm::StringRef Method, json Params, ReplyHandler OnReply,
            Job *Waiting = nullptr);

  // Input.
  void handleMessage(const std::string &Body, MessageParser &Parser);
  void dispatch(const json &Message);
  void handleRequest(const json &ID, llvm::StringRef Method,
                     const json &Params);
  void handleNotification(llvm::StringRef Method, const json &Params);
  void handleResponse(const json &ID, const json *Result, const json *Error);

  // Methods.
  void onInitialize(const json &ID, const json &Params);
  void onShutdown(const json &ID);
  void onDidOpen(const json &Params);
  void onDidChange(const json &Params);
  void onDidClose(const json &Params);
  void onCodeAction(const json &ID, const json &Params);
  void onExecuteCommand(const json &ID, const json &Params);
  void onCancelRequest(const json &Params);
  void onProgressCancel(const json &Params);

  // Targets and databases.
  struct Database {
    LoadedDatabase DB;
    std::string BuildPath; ///< For clang-maxcode -p; empty for none.
  };
  Database loadDatabase(llvm::StringRef Path);
  /// Lists the targets of \p URI's current text, once per version.
  const Document *updateTargets(const std::string &URI);

  // Searches.
  /// Says with showMessage what the user can fix, and answers \p ID with
  /// success, having done nothing.
  void refuse(const json &ID, MessageType Type, const llvm::Twine &Message);
  /// Copies the document \p A names, or refuses: it must be open, of the
  /// version the action was offered for, not being searched, and saved.
  std::optional<OptimizeFile> checkDocument(const json &ID,
                                            const OptimizeArgs &A);
  /// True when \p A's target is in \p F; refuses otherwise.
  bool checkTarget(const json &ID, const OptimizeArgs &A,
                   const OptimizeFile &F);
  /// The settings of a search of \p Path, or none when the configuration
  /// cannot be read (refused).
  std::optional<JobSettings> jobSettings(const json &ID,
                                         const std::string &Path);
  /// Registers \p NewJob, asks for its progress token when the client gave
  /// none (\p Token), and starts it in the job pool.
  void startJob(std::unique_ptr<Job> NewJob, const json *Token);
  /// The client's answer to window/workDoneProgress/create for a job.
  void onProgressToken(uint64_t Number, const json *Error);
  void runJob(Job &J);
  /// Runs \p J's search; when it was cancelled or failed, finishes the job
  /// and returns none.
  std::optional<OptimizeResult> search(Job &J);
  /// The edit of \p Result that can be sent; else says why there is none,
  /// finishes the job and returns none.
  std::optional<TextEdit> editToSend(Job &J, const OptimizeResult &Result);
  /// Sends \p Edit, waits for the client's answer, says what came of it
  /// and finishes the job.
  void applyEdit(Job &J, const OptimizeResult &Result, const TextEdit &Edit);
  /// The workspace/applyEdit argument for \p Edit of \p J's document.
  json workspaceEdit(const Job &J, const TextEdit &Edit) const;
  /// The client's answer to workspace/applyEdit for a job.
  void onApplyAnswer(uint64_t Number, const json *Result, const json *Error);
  /// Ends \p J's progress with \p Progress, shows \p Message, answers the
  /// request and finishes the job.
  void finishWith(Job &J, llvm::StringRef Progress, MessageType Type,
                  llvm::StringRef Message);
  void setState(Job &J, Job::State S); // Mu held.
  std::optional<std::string> changedSince(const Job &J);
  void beginProgress(Job &J); // Mu held.
  void endProgress(Job &J, llvm::StringRef Message);
  void reportProgress(Job &J, const OptimizeProgress &P);
  void cancel(Job &J); // Mu held.
  void finishCancelled(Job &J);
  void finish(Job &J);
  void reapJobs(); // Mu held.
  /// The job numbered \p Number, if it has not been reaped. Answers from the
  /// client find their job this way: it may be gone by then. Mu held.
  Job *findJob(uint64_t Number);
  void waitQuiet();
  void stopJobs();

  ServerOptions Opts;
  OptimizeRunner &Runner;
  Logger &Log;
  llvm::raw_ostream &Out;
  std::mutex OutMu;

  // Touched by the reading thread only.
  bool Initialized = false;
  bool ShutdownRequested = false;
  bool ExitRequested = false;
  bool ClientProgress = false;
  bool ClientDocumentChanges = false;
  bool ClientApplyEdit = false;
  bool ClientCodeActionLiterals = false;
  std::string WorkspaceRoot;
  std::optional<std::string> DatabasePath;
  SearchOptions EditorOptions;

  // Guarded by Mu.
  std::mutex Mu;
  std::condition_variable QuietCV;
  std::map<std::string, Document> Documents;
  std::vector<std::unique_ptr<Job>> Jobs;
  unsigned BusyJobs = 0;
  bool Stopping = false;
  int64_t NextRequestID = 0;
  uint64_t NextJobNumber = 1;
  std::map<int64_t, ReplyHandler> PendingCalls;

  // Last, so that it is destroyed first: its destructor waits for the jobs,
  // which use everything above. A job waits on its child process and on the
  // client, not on the CPU, so jobs are not limited to the cores: every one
  // an editor starts runs at once.
  llvm::DefaultThreadPool JobPool{llvm::hardware_concurrency(64)};
};

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

/// Reads the search options of `initializationOptions` (the keys of the
/// `.clang-maxcode` file in camelCase); relative paths are taken against
/// \p Root.
static llvm::Expected<SearchOptions> searchOptionsFrom(const json &Init,
                                                       llvm::StringRef Root) {
  SearchOptions O;
  std::string Bad;
  auto String = [&](const char *Key, std::optional<std::string> &To) {
    if (const json *V = member(Init, Key)) {
      if (V->is_string())
        To = V->get<std::string>();
      else if (Bad.empty())
        Bad = Key + std::string(" must be a string");
    }
  };
  String("policy", O.Policy);
  String("measure", O.Measure);
  String("scope", O.Scope);
  String("strategy", O.Strategy);
  String("tests", O.Tests);
  String("buildCommand", O.BuildCommand);
  String("testCommand", O.TestCommand);
  String("benchCommand", O.BenchCommand);
  String("llmEndpoint", O.LLMEndpoint);
  String("llmModel", O.LLMModel);
  String("llmApiKeyEnv", O.LLMApiKeyEnv);
  if (member(Init, "budget")) {
    std::optional<int64_t> N = getInteger(Init, "budget");
    if (N && *N >= 0 && *N <= UINT32_MAX)
      O.Budget = static_cast<unsigned>(*N);
    else if (Bad.empty())
      Bad = "budget must be a non-negative integer";
  }
  if (member(Init, "timeout")) {
    std::optional<double> T = getNumber(Init, "timeout");
    if (T && *T > 0)
      O.Timeout = *T;
    else if (Bad.empty())
      Bad = "timeout must be a positive number of seconds";
  }
  if (!Bad.empty())
    return llvm::createStringError("initializationOptions: " + Bad);
  if (O.Tests && !O.Tests->empty() && !llvm::sys::path::is_absolute(*O.Tests) &&
      !Root.empty()) {
    llvm::SmallString<256> Abs(Root);
    llvm::sys::path::append(Abs, *O.Tests);
    O.Tests = std::string(Abs);
  }
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

//===----------------------------------------------------------------------===//
// Targets and code actions
//===----------------------------------------------------------------------===//

Server::Impl::Database Server::Impl::loadDatabase(llvm::StringRef Path) {
  Database D;
  auto Loaded =
      loadCompilationDatabase(DatabasePath.value_or(""), nullptr, {Path.str()});
  if (Loaded) {
    D.DB = std::move(*Loaded);
    D.BuildPath = DatabasePath
                      ? *DatabasePath
                      : std::string(llvm::sys::path::parent_path(D.DB.Origin));
    return D;
  }
  // As clangd: without a database a file is still parsed, with the default
  // command for its language.
  Log.info("using the default command for " + Path + ": " +
           llvm::toString(Loaded.takeError()));
  auto Fixed = std::make_unique<clang::tooling::FixedCompilationDatabase>(
      llvm::sys::path::parent_path(Path), std::vector<std::string>());
  D.DB.Raw = Fixed.get();
  D.DB.Database = std::move(Fixed);
  D.DB.Origin = "the default command";
  if (DatabasePath)
    D.BuildPath = *DatabasePath; // Let clang-maxcode say what is wrong.
  return D;
}

const Document *Server::Impl::updateTargets(const std::string &URI) {
  // Only this thread changes documents, so the copy stays current while
  // Clang parses without the lock.
  std::string Path, Text;
  int64_t Version;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    auto It = Documents.find(URI);
    if (It == Documents.end())
      return nullptr;
    if (It->second.TargetsVersion == It->second.Version)
      return &It->second;
    Path = It->second.Path;
    Text = It->second.Text;
    Version = It->second.Version;
  }
  std::vector<Target> Targets;
  std::string Error;
  if (Path.empty()) {
    Error = "the URI names no local file";
  } else {
    Database D = loadDatabase(Path);
    ResolvedCommand RC = resolveCompileCommand(D.DB, Path);
    if (!RC.Fallback.empty())
      Log.verbose(Path + " is not in " + D.DB.Origin + "; using " +
                  RC.Fallback);
    std::string Diags;
    llvm::raw_string_ostream DiagOS(Diags);
    auto Parsed = parseTargets(RC.Command, Path, Opts.Parse, DiagOS,
                               llvm::StringRef(Text), ParseErrors::Fail);
    if (Parsed) {
      Targets = std::move(Parsed->Targets);
    } else {
      Error = llvm::toString(Parsed.takeError());
      Log.info("no targets in " + Path + ": " + Error);
    }
    if (!Diags.empty())
      Log.verbose(Diags);
  }
  std::lock_guard<std::mutex> Lock(Mu);
  Document &Doc = Documents[URI];
  Doc.TargetsVersion = Version;
  Doc.Targets = std::move(Targets);
  Doc.TargetsError = std::move(Error);
  return &Doc;
}

void Server::Impl::onCodeAction(const json &ID, const json &Params) {
  const json *URIField = path(Params, {"textDocument", "uri"});
  std::optional<Range> Selection = rangeFrom(member(Params, "range"));
  if (!URIField || !URIField->is_string() || !Selection)
    return replyError(ID, InvalidParams,
                      "codeAction needs textDocument.uri and a range");
  std::string URI = URIField->get<std::string>();
  json Actions = json::array();
  if (!wantsRewrite(path(Params, {"context", "only"})))
    return reply(ID, Actions);
  const Document *Doc = updateTargets(URI);
  if (!Doc) {
    Log.info("codeAction for " + URI + ", which is not open");
    return reply(ID, Actions);
  }
  std::lock_guard<std::mutex> Lock(Mu);
  auto [First, Last] = selectedLines(*Selection);
  for (size_t I : targetsOnLines(Doc->Targets, First, Last)) {
    const Target &T = Doc->Targets[I];
    std::string Title = "MaxCode: optimise " + quoteName(T.Name);
    json Command = {
        {"title", Title},
        {"command", OptimizeCommand},
        {"arguments",
         {{{"uri", URI}, {"target", T.Name}, {"version", Doc->Version}}}}};
    if (ClientCodeActionLiterals)
      Actions.push_back(
          {{"title", Title}, {"kind", RewriteKind}, {"command", Command}});
    else
      Actions.push_back(Command);
  }
  reply(ID, Actions);
}

//===----------------------------------------------------------------------===//
// Searches
//===----------------------------------------------------------------------===//

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
                   formatSpeedup(Result.MinSpeedup) +
                   ", --min-speedup); nothing applied");
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

Server::Server(ServerOptions Opts, OptimizeRunner &Runner, Logger &Log,
               llvm::raw_ostream &Out)
    : I(std::make_unique<Impl>(std::move(Opts), Runner, Log, Out)) {}

Server::~Server() = default;

int Server::run(MessageParser &Parser, int InputFD) {
  return I->run(Parser, InputFD);
}
