//===-- ServerImpl.h - The language server's state and parts ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/LSP: the server's state (Server::Impl) and what its three
/// files share. Server.cpp reads and answers messages and keeps the
/// documents; CodeActions.cpp lists targets and offers the actions; Jobs.cpp
/// runs the searches the actions start.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_LSP_SERVERIMPL_H
#define MAXCODE_LIB_LSP_SERVERIMPL_H

#include "JSONUtil.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/LSP/Logger.h"
#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Protocol.h"
#include "maxcode/LSP/Server.h"
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

namespace maxcode {
namespace lsp {
namespace impl {

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
  MaxcodeOptions Options;
  std::string WorkingDir;
};

/// `a.cpp` for messages.
std::string quoteName(llvm::StringRef Name);
std::string formatSpeedup(double X);
json toJSON(const Position &P);
json toJSON(const Range &R);
std::optional<Position> positionFrom(const json *J);
std::optional<Range> rangeFrom(const json *J);
bool isValidID(const json &ID);
/// True when a client asking only for \p Only kinds wants refactor.rewrite.
bool wantsRewrite(const json *Only);
std::optional<std::string> readFile(llvm::StringRef Path);

} // namespace impl

using namespace impl;

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
  MaxcodeOptions EditorOptions;

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

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LIB_LSP_SERVERIMPL_H
