//===-- LLMRoles.cpp - The LLM side of a run ------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/LLMRoles.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Search/RolloutStore.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

bool maxcode::usesLLM(const RunOptions &Opts) {
  return Opts.Settings.Policy == PolicyKind::LLM ||
         Opts.Settings.Critic == CriticKind::LLM ||
         Opts.Settings.RTG == RTGKind::LLM;
}

void LLMLedger::add(const LLMCallEvent &E) {
  std::lock_guard<std::mutex> L(Mutex);
  for (Counts *C : {&Total, &ByRole[E.Role]}) {
    ++C->Calls;
    if (!E.Error.empty())
      ++C->Failed;
    C->Usage += E.Usage;
  }
  if (!E.Error.empty()) {
    Errors.push_back(E.Role + ": " + E.Error);
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "LLM " << E.Role << " call failed: " << E.Error << "\n";
  }
  if (!Store)
    return;
  llvm::json::Array Notes;
  for (const std::string &N : E.Notes)
    Notes.push_back(N);
  std::string NotesText;
  llvm::raw_string_ostream OS(NotesText);
  OS << llvm::json::Value(std::move(Notes));
  LLMCallRow Row;
  Row.Role = E.Role;
  Row.Model = E.Model;
  Row.RequestHash = E.RequestHash;
  Row.PromptTokens = E.Usage.PromptTokens;
  Row.CompletionTokens = E.Usage.CompletionTokens;
  Row.Attempts = E.Attempts;
  Row.Replayed = E.Replayed;
  Row.Error = E.Error;
  Row.NotesJSON = OS.str();
  if (llvm::Error SE = Store->recordLLMCall(Row)) {
    std::string M = llvm::toString(std::move(SE));
    if (!StoreError)
      StoreError = M;
  }
}

uint64_t LLMLedger::totalTokens() const {
  std::lock_guard<std::mutex> L(Mutex);
  return Total.Usage.total();
}

uint64_t LLMLedger::calls() const {
  std::lock_guard<std::mutex> L(Mutex);
  return Total.Calls;
}

TokenUsage LLMLedger::usage() const {
  std::lock_guard<std::mutex> L(Mutex);
  return Total.Usage;
}

static llvm::json::Object countsJSON(uint64_t Calls, uint64_t Failed,
                                     const TokenUsage &U) {
  return llvm::json::Object{{"calls", int64_t(Calls)},
                            {"failed_calls", int64_t(Failed)},
                            {"prompt_tokens", int64_t(U.PromptTokens)},
                            {"completion_tokens", int64_t(U.CompletionTokens)},
                            {"total_tokens", int64_t(U.total())}};
}

llvm::json::Object LLMLedger::toJSON() const {
  std::lock_guard<std::mutex> L(Mutex);
  llvm::json::Object O = countsJSON(Total.Calls, Total.Failed, Total.Usage);
  llvm::json::Object Roles;
  for (const auto &[Role, C] : ByRole)
    Roles[Role] = countsJSON(C.Calls, C.Failed, C.Usage);
  O["by_role"] = std::move(Roles);
  llvm::json::Array Errs;
  for (const std::string &E : Errors)
    Errs.push_back(E);
  O["errors"] = std::move(Errs);
  return O;
}

llvm::Error LLMLedger::takeStoreError() {
  std::lock_guard<std::mutex> L(Mutex);
  if (!StoreError)
    return llvm::Error::success();
  std::string M = *StoreError;
  StoreError.reset();
  return llvm::createStringError(M);
}

llvm::Error maxcode::checkLLMOptions(const RunOptions &Opts) {
  if (!usesLLM(Opts))
    return llvm::Error::success();
  std::vector<std::string> Who;
  if (Opts.Settings.Policy == PolicyKind::LLM)
    Who.push_back(Opts.Names("Policy") + "=llm");
  if (Opts.Settings.Critic == CriticKind::LLM)
    Who.push_back(Opts.Names("Critic") + "=llm");
  if (Opts.Settings.RTG == RTGKind::LLM)
    Who.push_back(Opts.Names("RTG") + "=llm");
  LLMOptions L = llmOptionsOf(Opts.Settings);
  if (L.Endpoint.empty() && L.ReplayDir.empty())
    return llvm::createStringError(
        llvm::join(Who, ", ") + " needs an LLM: give " +
        Opts.Names("LLMEndpoint") +
        "=<url> (an OpenAI-compatible "
        "server, e.g. http://127.0.0.1:8000/v1) or " +
        Opts.Names("LLMReplay") +
        "=<dir> (a "
        "run recorded with " +
        Opts.Names("LLMRecord") + ")");
  if (!L.ReplayDir.empty() && !llvm::sys::fs::is_directory(L.ReplayDir))
    return llvm::createStringError(Opts.Names("LLMReplay") + " '" +
                                   L.ReplayDir + "' is not a directory");
  // Before anything is built or sent: a key never crosses a network in the
  // clear.
  if (L.ReplayDir.empty())
    if (llvm::Error E = checkEndpointURL(L.Endpoint))
      return E;
  if (!L.RecordDir.empty() && !L.ReplayDir.empty())
    return llvm::createStringError(Opts.Names("LLMRecord") + " and " +
                                   Opts.Names("LLMReplay") +
                                   " cannot be given together");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<PromptLibrary>>
maxcode::openPromptLibrary(const RunOptions &Opts) {
  if (Opts.Settings.PromptsDir.empty()) {
    // The installed templates beside the binary, else the source tree's.
    llvm::SmallString<256> Exe(Opts.ToolDir);
    llvm::sys::path::append(Exe, "clang-maxcode");
    std::string Argv0(Exe);
    return std::make_unique<PromptLibrary>(PromptLibrary::defaultSearchPath(
        Argv0.c_str(), reinterpret_cast<void *>(&usesLLM)));
  }
  if (!llvm::sys::fs::is_directory(Opts.Settings.PromptsDir))
    return llvm::createStringError(Opts.Names("PromptsDir") + " '" +
                                   Opts.Settings.PromptsDir +
                                   "' is not a directory");
  return std::make_unique<PromptLibrary>(
      std::vector<std::string>{Opts.Settings.PromptsDir});
}

llvm::Expected<LLMRoles> maxcode::createLLMRoles(const RunOptions &Opts,
                                                 const LLMProposerContext &Ctx,
                                                 RolloutStore *Store,
                                                 llvm::raw_ostream &Err) {
  if (llvm::Error E = checkLLMOptions(Opts))
    return E;
  LLMRoles R;
  // Replaying needs no endpoint: the recorded run answers.
  LLMOptions LO = llmOptionsOf(Opts.Settings);
  if (!LO.ReplayDir.empty())
    LO.Endpoint.clear();
  auto Client = LLMClient::create(std::move(LO));
  if (!Client)
    return Client.takeError();
  R.Client = std::move(*Client);
  auto Prompts = openPromptLibrary(Opts);
  if (!Prompts)
    return Prompts.takeError();
  R.Prompts = std::move(*Prompts);
  R.Ledger = std::make_unique<LLMLedger>(Store, Err);

  // Templates are checked now, not at the first call halfway through.
  std::vector<std::string> Needed;
  if (Opts.Settings.Policy == PolicyKind::LLM)
    Needed = {"proposer-cpp", "proposer-cuda", "simplify"};
  if (Opts.Settings.Critic == CriticKind::LLM)
    Needed.push_back("critic");
  if (Opts.Settings.RTG == RTGKind::LLM)
    Needed.push_back("rtg");
  for (const std::string &N : Needed) {
    auto T = R.Prompts->get(N);
    if (!T)
      return T.takeError();
  }

  if (Opts.Settings.Policy == PolicyKind::LLM)
    R.Proposer = std::make_unique<LLMProposer>(
        *R.Client, *R.Prompts, Ctx.Command, Ctx.File, Opts.Parse, Ctx.Scope,
        Opts.Settings.Seed, Ctx.Facts, R.Ledger->sink());
  if (Opts.Settings.Critic == CriticKind::LLM)
    R.Critic = std::make_unique<LLMCritic>(
        *R.Client, *R.Prompts, Ctx.FallbackCritic, Ctx.Facts, R.Ledger->sink());
  if (Opts.Settings.RTG == RTGKind::LLM) {
    std::vector<RTGShot> Shots;
    if (Store) {
      auto S = Store->rtgShots(Ctx.TargetName, 12);
      if (!S)
        return S.takeError();
      Shots = std::move(*S);
    }
    R.RTG = std::make_unique<LLMRTG>(*R.Client, *R.Prompts, std::move(Shots),
                                     R.Ledger->sink());
  }
  return R;
}
