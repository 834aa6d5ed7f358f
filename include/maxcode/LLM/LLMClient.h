//===-- maxcode/LLM/LLMClient.h - OpenAI-compatible chat client -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A client for the OpenAI chat-completions protocol, which vLLM, llama.cpp's
/// server, Ollama and the hosted APIs all speak. It retries transient
/// failures (connection errors, HTTP 429 and 5xx) with exponential backoff
/// and jitter, honouring Retry-After; caps the requests in flight; counts
/// tokens; and can record every exchange to a directory or answer from one
/// with no network at all (record/replay).
///
/// The API key is read from an environment variable whose *name* is an
/// option; the key itself is held only inside the client and never appears
/// in an error, a recorded file or anything the client returns.
///
/// LLMClient is thread-safe: any number of threads may call complete().
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LLM_LLMCLIENT_H
#define MAXCODE_LLM_LLMCLIENT_H

#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// Everything that configures the client: the settings' LLM rows
/// (llmOptionsOf) and the client's own limits.
struct LLMOptions {
  /// Base URL of the API, e.g. "http://127.0.0.1:8000/v1" (vLLM) or
  /// "https://api.openai.com/v1"; requests go to {Endpoint}/chat/completions
  /// (an endpoint already ending in /chat/completions is used as is). Not
  /// needed when replaying.
  std::string Endpoint;
  /// Model name sent with each request; local servers often ignore it.
  std::string Model;
  /// Name of the environment variable holding the API key. When the
  /// variable is unset or empty no Authorization header is sent, which is
  /// what local servers expect.
  std::string ApiKeyEnv = optdefault::LLMApiKeyEnv;
  double Temperature = 0.7;
  unsigned MaxTokens = 4096;
  double ConnectTimeoutSeconds = 10;
  /// Whole request, from connecting to the last byte of the reply.
  double TimeoutSeconds = optdefault::LLMTimeout;
  /// Retries after the first attempt, for transient failures only.
  unsigned MaxRetries = optdefault::LLMRetries;
  /// Backoff before retry k (k = 0, 1, ...) is RetryBaseDelaySeconds * 2^k,
  /// at most RetryMaxDelaySeconds, times a random factor in [0.5, 1].
  double RetryBaseDelaySeconds = optdefault::LLMRetryDelay;
  double RetryMaxDelaySeconds = 30;
  /// A Retry-After (seconds) longer than this is not waited for: the call
  /// fails instead, saying what the server asked.
  double MaxRetryAfterSeconds = 120;
  /// Requests on the wire at once, over all threads.
  unsigned MaxInFlight = 4;
  /// When set, every exchange is saved in this directory (created).
  std::string RecordDir;
  /// When set, replies come from this directory (written by RecordDir) and
  /// the network is never used. Exclusive with RecordDir.
  std::string ReplayDir;
};

/// The client's options from the settings' LLM rows (--llm-endpoint,
/// --llm-model, --llm-api-key-env, --llm-record, --llm-replay,
/// --llm-timeout, --llm-retries, --llm-retry-delay).
LLMOptions llmOptionsOf(const EffectiveOptions &Settings);

struct ChatMessage {
  std::string Role; ///< "system", "user" or "assistant".
  std::string Content;
};

/// One chat-completions request. The optional fields override LLMOptions
/// for this request only.
struct ChatRequest {
  std::vector<ChatMessage> Messages;
  std::optional<std::string> Model;
  std::optional<double> Temperature;
  std::optional<unsigned> MaxTokens;
  /// Completions asked for; servers that do not support n return fewer
  /// choices, which is not an error.
  unsigned N = 1;
  std::optional<uint64_t> Seed;
  std::vector<std::string> Stop;
};

struct TokenUsage {
  uint64_t PromptTokens = 0;
  uint64_t CompletionTokens = 0;

  uint64_t total() const { return PromptTokens + CompletionTokens; }
  TokenUsage &operator+=(const TokenUsage &O) {
    PromptTokens += O.PromptTokens;
    CompletionTokens += O.CompletionTokens;
    return *this;
  }
};

struct ChatChoice {
  std::string Content;
  /// "stop", "length" (cut off at max_tokens), ...; empty if not reported.
  std::string FinishReason;
};

struct ChatResponse {
  /// At least one choice.
  std::vector<ChatChoice> Choices;
  /// Tokens of this call, as the server reported them (zero if it did not).
  TokenUsage Usage;
  /// The model that answered, as the server names it.
  std::string Model;
  /// SHA-256 (hex) of the canonical request: the record/replay key.
  std::string RequestHash;
  /// HTTP attempts made (1 when the first succeeded; 0 when replayed).
  unsigned Attempts = 0;
  bool Replayed = false;
  double Seconds = 0;
};

/// The request body the client sends for \p R under \p Opts (defaults
/// filled in), as canonical JSON: keys sorted, no spaces. It holds the
/// model, messages and parameters, never the API key.
std::string canonicalRequestJSON(const ChatRequest &R, const LLMOptions &Opts);

/// SHA-256, in lower-case hex, of canonicalRequestJSON(R, Opts).
std::string requestHash(const ChatRequest &R, const LLMOptions &Opts);

/// Reads the API key from the environment variable \p Name once, and
/// removes the variable from this process's environment, so that no child
/// process (a build, a run, a project command, a Slurm job) can inherit it
/// (DESIGN section 7). Later calls with the same name return the same key.
std::optional<std::string> takeApiKey(llvm::StringRef Name);

/// Fails unless \p Endpoint is an https:// URL, or an http:// one to this
/// machine (127.0.0.0/8, ::1, localhost): a key never crosses a network in
/// the clear.
llvm::Error checkEndpointURL(llvm::StringRef Endpoint);

class LLMClient {
public:
  /// Checks \p Opts, reads the API key from the environment and prepares
  /// the record or replay directory.
  static llvm::Expected<std::unique_ptr<LLMClient>> create(LLMOptions Opts);
  ~LLMClient();

  /// Sends \p R and waits for the reply, retrying transient failures.
  /// Errors name the endpoint and what went wrong.
  llvm::Expected<ChatResponse> complete(const ChatRequest &R);

  /// Tokens of every successful call so far, replayed ones included.
  TokenUsage totalUsage() const;
  /// Calls that returned a response so far.
  uint64_t completedCalls() const;
  /// Most requests that were on the wire at once so far.
  unsigned peakInFlight() const;
  const LLMOptions &options() const;
  /// The URL requests are posted to.
  const std::string &completionsURL() const;

  class Impl;

private:
  explicit LLMClient(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace maxcode

#endif // MAXCODE_LLM_LLMCLIENT_H
