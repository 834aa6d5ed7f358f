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

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Protocol.h"
#include "maxcode/LSP/Server.h"
#include "maxcode/LSP/Transport.h"
#include "maxcode/Support/Config.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>

namespace maxcode {
namespace lsp {
namespace impl {

namespace json = llvm::json;
using llvm::lsp::Callback;
using llvm::lsp::ErrorCode;
using llvm::lsp::Logger;
using llvm::lsp::LSPError;
using llvm::lsp::MessageType;

constexpr llvm::StringLiteral OptimizeCommand = "maxcode.optimize";
constexpr llvm::StringLiteral RewriteKind = "refactor.rewrite";
/// The request the reading side makes of a message the server answers
/// itself, before any handler (an invalid message, one out of the
/// lifecycle's order): its params are the answer (InternalAnswer). Clients
/// may not send it.
constexpr llvm::StringLiteral AnswerMethod = "$maxcode/answer";

/// Parameters a handler reads itself: LLVM's protocol has no type for them
/// (initialize's root and initializationOptions, executeCommand, the
/// cancellations), or reading them whole would lose what a malformed one
/// still says (didChange's document).
struct RawParams {
  json::Value V = nullptr;
};
inline bool fromJSON(const json::Value &E, RawParams &Out, json::Path) {
  Out.V = E;
  return true;
}

/// AnswerMethod's params: a result, or an error's code and message.
struct InternalAnswer {
  std::optional<json::Value> Result;
  int64_t Code = 0;
  std::string Message;
};
bool fromJSON(const json::Value &E, InternalAnswer &Out, json::Path P);

/// The client's answer to workspace/applyEdit (LSP's
/// ApplyWorkspaceEditResult, which LLVM's protocol lacks).
struct ApplyEditAnswer {
  bool Applied = false;
  std::string FailureReason;
};
bool fromJSON(const json::Value &E, ApplyEditAnswer &Out, json::Path P);

struct Document {
  std::string URI;
  std::string Path;
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
  json::Value RequestID = nullptr;
  /// Answers the workspace/executeCommand request, once.
  Callback<json::Value> Reply;
  std::string URI;
  std::string Name; ///< The file's name, for messages.
  int64_t Version = 0;
  std::string OriginalText; ///< The saved file the search reads.
  OptimizeRequest Request;

  std::optional<json::Value> Token; ///< The $/progress token, if any.
  bool TokenPending = false; ///< window/workDoneProgress/create unanswered.
  bool Begun = false;        ///< "begin" sent, "end" not yet.
  std::atomic<bool> Cancel{false};
  State St = State::Busy;
  /// The answer to workspace/applyEdit, once it came.
  std::optional<ApplyEditAnswer> Applied;
  std::condition_variable CV;
  std::shared_future<void> Finished; ///< runJob's task in the job pool.
};

/// The argument of a maxcode.optimize request, and its progress token.
struct OptimizeArgs {
  std::string URI;
  std::string Target;
  int64_t Version = 0;
  std::optional<json::Value> Token; ///< The workDoneToken, if given.
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
/// JSON-RPC ids (and progress tokens): an integer or a string.
bool isValidID(const json::Value &ID);
/// True when a client asking only for \p Only kinds wants refactor.rewrite
/// (an empty list asks for every kind).
bool wantsRewrite(llvm::ArrayRef<std::string> Only);
std::optional<std::string> readFile(llvm::StringRef Path);

} // namespace impl

class Server::Impl {
public:
  Impl(ServerOptions Opts, OptimizeRunner &Runner, llvm::raw_ostream &Out)
      : Opts(std::move(Opts)), Runner(Runner), Out(Out) {}

  int run(std::unique_ptr<MessageParser> Parser, int InputFD);

private:
  // Output, through LLVM's MessageHandler (which writes each message whole).
  void showMessage(llvm::lsp::MessageType Type, llvm::StringRef Message);
  void notifyProgress(const llvm::json::Value &Token, llvm::json::Object Value);
  /// Sends a request to the client; \p OnReply gets its answer. A job that
  /// waits for the answer stops counting as busy only after this returns,
  /// when the answer can be taken: -sync must not read it before.
  template <typename ResultT>
  void call(llvm::StringLiteral Method, llvm::json::Value Params,
            llvm::lsp::OutgoingRequestCallback<ResultT> OnReply) {
    int64_t ID;
    {
      std::lock_guard<std::mutex> Lock(Mu);
      ID = NextRequestID++;
    }
    Handler->outgoingRequest<llvm::json::Value, ResultT>(
        Method, std::move(OnReply))(Params, ID);
  }

  // Input: what the transport dispatches, decided on the reading thread.
  std::optional<std::string> vet(std::string Body, MessageParser &Parser);
  /// Whether the document \p Params names (textDocument.uri) is a local
  /// file, or names none; logs why not.
  bool namesLocalFile(const llvm::json::Value &Params);
  /// AnswerMethod with \p Answer for request \p ID.
  static std::string internalAnswer(const llvm::json::Value &ID,
                                    llvm::json::Object Answer);
  static std::string refusal(const llvm::json::Value &ID,
                             llvm::lsp::ErrorCode Code,
                             llvm::StringRef Message);
  void registerHandlers();

  // Methods.
  void onAnswer(const impl::InternalAnswer &A,
                llvm::lsp::Callback<llvm::json::Value> Reply);
  void onInitialize(const impl::RawParams &Params,
                    llvm::lsp::Callback<llvm::json::Value> Reply);
  void onShutdown(const llvm::lsp::NoParams &,
                  llvm::lsp::Callback<llvm::json::Value> Reply);
  void onDidOpen(const llvm::lsp::DidOpenTextDocumentParams &Params);
  void onDidChange(const impl::RawParams &Params);
  void onDidClose(const llvm::lsp::DidCloseTextDocumentParams &Params);
  void onCodeAction(const llvm::lsp::CodeActionParams &Params,
                    llvm::lsp::Callback<llvm::json::Value> Reply);
  void onExecuteCommand(const impl::RawParams &Params,
                        llvm::lsp::Callback<llvm::json::Value> Reply);
  void onCancelRequest(const impl::RawParams &Params);
  void onProgressCancel(const impl::RawParams &Params);

  // Targets and databases.
  struct Database {
    LoadedDatabase DB;
    std::string BuildPath; ///< For clang-maxcode -p; empty for none.
  };
  Database loadDatabase(llvm::StringRef Path);
  /// Lists the targets of \p URI's current text, once per version.
  const impl::Document *updateTargets(const std::string &URI);

  // Searches.
  /// Says with showMessage what the user can fix, and answers \p Reply with
  /// success, having done nothing.
  void refuse(llvm::lsp::Callback<llvm::json::Value> &Reply,
              llvm::lsp::MessageType Type, const llvm::Twine &Message);
  /// Copies the document \p A names, or refuses: it must be open, of the
  /// version the action was offered for, not being searched, and saved.
  std::optional<impl::OptimizeFile>
  checkDocument(llvm::lsp::Callback<llvm::json::Value> &Reply,
                const impl::OptimizeArgs &A);
  /// True when \p A's target is in \p F; refuses otherwise.
  bool checkTarget(llvm::lsp::Callback<llvm::json::Value> &Reply,
                   const impl::OptimizeArgs &A, const impl::OptimizeFile &F);
  /// The settings of a search of \p Path, or none when the configuration
  /// cannot be read (refused).
  std::optional<impl::JobSettings>
  jobSettings(llvm::lsp::Callback<llvm::json::Value> &Reply,
              const std::string &Path);
  /// Registers \p NewJob, asks for its progress token when the client gave
  /// none, and starts it in the job pool.
  void startJob(std::unique_ptr<impl::Job> NewJob);
  /// The client's answer to window/workDoneProgress/create for a job.
  void onProgressToken(uint64_t Number, llvm::Error Refused);
  void runJob(impl::Job &J);
  /// Runs \p J's search; when it was cancelled or failed, finishes the job
  /// and returns none.
  std::optional<OptimizeResult> search(impl::Job &J);
  /// The edit of \p Result that can be sent; else says why there is none,
  /// finishes the job and returns none.
  std::optional<TextEdit> editToSend(impl::Job &J,
                                     const OptimizeResult &Result);
  /// Sends \p Edit, waits for the client's answer, says what came of it
  /// and finishes the job.
  void applyEdit(impl::Job &J, const OptimizeResult &Result,
                 const TextEdit &Edit);
  /// The workspace/applyEdit argument for \p Edit of \p J's document.
  llvm::json::Value workspaceEdit(const impl::Job &J,
                                  const TextEdit &Edit) const;
  /// The client's answer to workspace/applyEdit for a job.
  void onApplyAnswer(uint64_t Number,
                     llvm::Expected<impl::ApplyEditAnswer> Answer);
  /// Ends \p J's progress with \p Progress, shows \p Message, answers the
  /// request and finishes the job.
  void finishWith(impl::Job &J, llvm::StringRef Progress,
                  llvm::lsp::MessageType Type, llvm::StringRef Message);
  void setState(impl::Job &J, impl::Job::State S); // Mu held.
  std::optional<std::string> changedSince(const impl::Job &J);
  void beginProgress(impl::Job &J); // Mu held.
  void endProgress(impl::Job &J, llvm::StringRef Message);
  void reportProgress(impl::Job &J, const OptimizeProgress &P);
  void cancel(impl::Job &J); // Mu held.
  void finishCancelled(impl::Job &J);
  void finish(impl::Job &J);
  void reapJobs(); // Mu held.
  /// The job numbered \p Number, if it has not been reaped. Answers from the
  /// client find their job this way: it may be gone by then. Mu held.
  impl::Job *findJob(uint64_t Number);
  void waitQuiet();
  void stopJobs();

  ServerOptions Opts;
  OptimizeRunner &Runner;
  llvm::raw_ostream &Out;

  // Made by run(); they outlive every job (run stops them first).
  std::unique_ptr<llvm::lsp::JSONTransport> Transport;
  std::unique_ptr<llvm::lsp::MessageHandler> Handler;
  llvm::lsp::OutgoingNotification<llvm::lsp::ShowMessageParams> ShowMessage;
  llvm::lsp::OutgoingNotification<llvm::json::Value> Progress;
  /// The notifications a handler reads (the others are logged as ignored).
  llvm::StringSet<> Notifications;

  // Touched by the reading thread only.
  /// The id of the request being dispatched (MessageHandler gives a
  /// handler its reply, not the id, which a cancellation names).
  llvm::json::Value DispatchedID = nullptr;
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
  std::map<std::string, impl::Document> Documents;
  std::vector<std::unique_ptr<impl::Job>> Jobs;
  unsigned BusyJobs = 0;
  bool Stopping = false;
  int64_t NextRequestID = 0;
  uint64_t NextJobNumber = 1;

  // Last, so that it is destroyed first: its destructor waits for the jobs,
  // which use everything above. A job waits on its child process and on the
  // client, not on the CPU, so jobs are not limited to the cores: every one
  // an editor starts runs at once.
  llvm::DefaultThreadPool JobPool{llvm::hardware_concurrency(64)};
};

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LIB_LSP_SERVERIMPL_H
