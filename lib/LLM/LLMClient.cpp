//===-- LLMClient.cpp - OpenAI-compatible chat client ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/LLMClient.h"
#include "HTTPTransport.h"
#include "Transcript.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

using namespace maxcode;
using nlohmann::json;

//===----------------------------------------------------------------------===//
// The request
//===----------------------------------------------------------------------===//

static json requestBody(const ChatRequest &R, const LLMOptions &Opts) {
  // nlohmann::json keeps object keys sorted, so dump() is canonical.
  json Body = json::object();
  std::string Model = R.Model ? *R.Model : Opts.Model;
  if (!Model.empty())
    Body["model"] = Model;
  json Messages = json::array();
  for (const ChatMessage &M : R.Messages)
    Messages.push_back({{"role", M.Role}, {"content", M.Content}});
  Body["messages"] = std::move(Messages);
  Body["temperature"] = R.Temperature ? *R.Temperature : Opts.Temperature;
  Body["max_tokens"] = R.MaxTokens ? *R.MaxTokens : Opts.MaxTokens;
  // Sent only when they say something, for servers that reject them.
  if (R.N != 1)
    Body["n"] = R.N;
  if (R.Seed)
    Body["seed"] = *R.Seed;
  if (!R.Stop.empty())
    Body["stop"] = R.Stop;
  return Body;
}

static std::string dumpJSON(const json &J) {
  // Prompts hold source code, which need not be valid UTF-8: replace bad
  // bytes instead of letting dump() throw.
  return J.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string maxcode::canonicalRequestJSON(const ChatRequest &R,
                                          const LLMOptions &Opts) {
  return dumpJSON(requestBody(R, Opts));
}

static std::string sha256Hex(llvm::StringRef Text) {
  auto Digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(Text));
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

std::string maxcode::requestHash(const ChatRequest &R, const LLMOptions &Opts) {
  return sha256Hex(canonicalRequestJSON(R, Opts));
}

//===----------------------------------------------------------------------===//
// The reply
//===----------------------------------------------------------------------===//

/// Reads a token count; anything but a non-negative integer counts as 0.
static uint64_t tokenCount(const json &Usage, const char *Key) {
  auto It = Usage.find(Key);
  if (It == Usage.end() || !It->is_number_integer())
    return 0;
  if (It->is_number_unsigned())
    return It->get<uint64_t>();
  int64_t V = It->get<int64_t>();
  return V > 0 ? static_cast<uint64_t>(V) : 0;
}

/// Seconds as a person writes them: "1", "0.5", "120".
static std::string seconds(double S) {
  return llvm::formatv("{0}", llvm::format("%g", S)).str();
}

/// A short, single-line view of a reply body for error messages.
static std::string excerpt(llvm::StringRef Body, size_t Max = 200) {
  std::string Out;
  for (char C : Body.take_front(Max))
    Out += (static_cast<unsigned char>(C) < 0x20) ? ' ' : C;
  if (Body.size() > Max)
    Out += "...";
  return Out;
}

/// What an error body says, when it is the usual {"error": {"message"}}.
static std::string errorMessageOf(const json &J) {
  auto It = J.find("error");
  if (It == J.end())
    return "";
  if (It->is_string())
    return It->get<std::string>();
  if (It->is_object()) {
    auto Msg = It->find("message");
    if (Msg != It->end() && Msg->is_string())
      return Msg->get<std::string>();
  }
  return dumpJSON(*It);
}

/// Turns a 2xx body into a response; the error says what is wrong with it.
static llvm::Expected<ChatResponse> decodeReply(llvm::StringRef Body) {
  json J = json::parse(Body.begin(), Body.end(), nullptr,
                       /*allow_exceptions=*/false);
  if (J.is_discarded())
    return llvm::createStringError("malformed JSON in the reply: %s",
                                   excerpt(Body).c_str());
  if (!J.is_object())
    return llvm::createStringError("the reply is not a JSON object: %s",
                                   excerpt(Body).c_str());
  std::string ServerError = errorMessageOf(J);
  if (!ServerError.empty())
    return llvm::createStringError("the server reported an error: %s",
                                   excerpt(ServerError).c_str());
  auto Choices = J.find("choices");
  if (Choices == J.end() || !Choices->is_array())
    return llvm::createStringError("the reply has no \"choices\" array: %s",
                                   excerpt(Body).c_str());
  if (Choices->empty())
    return llvm::createStringError("the reply has empty choices");

  ChatResponse Response;
  for (const json &Choice : *Choices) {
    auto Message = Choice.is_object() ? Choice.find("message") : Choice.end();
    if (!Choice.is_object() || Message == Choice.end() || !Message->is_object())
      return llvm::createStringError(
          "choice %zu of the reply has no \"message\" object: %s",
          Response.Choices.size(), excerpt(Body).c_str());
    ChatChoice C;
    // A null content (a refusal, a tool call) is an empty reply, which the
    // caller reports as unusable, rather than a protocol error.
    auto Content = Message->find("content");
    if (Content != Message->end() && Content->is_string())
      C.Content = Content->get<std::string>();
    auto Finish = Choice.find("finish_reason");
    if (Finish != Choice.end() && Finish->is_string())
      C.FinishReason = Finish->get<std::string>();
    Response.Choices.push_back(std::move(C));
  }
  auto Usage = J.find("usage");
  if (Usage != J.end() && Usage->is_object()) {
    Response.Usage.PromptTokens = tokenCount(*Usage, "prompt_tokens");
    Response.Usage.CompletionTokens = tokenCount(*Usage, "completion_tokens");
  }
  auto Model = J.find("model");
  if (Model != J.end() && Model->is_string())
    Response.Model = Model->get<std::string>();
  return Response;
}

/// decodeReply, with a last guard: nlohmann_json throws on misuse, and no
/// exception may leave this library.
static llvm::Expected<ChatResponse> decodeReplySafely(llvm::StringRef Body) {
  try {
    return decodeReply(Body);
  } catch (const std::exception &E) {
    return llvm::createStringError("unreadable reply (%s): %s", E.what(),
                                   excerpt(Body).c_str());
  }
}

//===----------------------------------------------------------------------===//
// The client
//===----------------------------------------------------------------------===//

class LLMClient::Impl {
public:
  LLMOptions Opts;
  std::string URL;
  std::string ApiKey; // Never leaves this class: see redact().
  HTTPTransport Transport;
  std::unique_ptr<Transcript> Record, Replay;

  mutable std::mutex StatsMutex;
  TokenUsage Total;
  uint64_t Calls = 0;

  std::mutex SlotMutex;
  std::condition_variable SlotFree;
  unsigned InFlight = 0;
  unsigned Peak = 0;

  std::mutex RandomMutex;
  std::mt19937_64 Random{std::random_device{}()};

  /// Removes the API key from any text that may leave the client: a server
  /// may echo it (hosted APIs quote a wrong key in their 401 body).
  std::string redact(std::string Text) const {
    if (ApiKey.empty())
      return Text;
    size_t Pos;
    while ((Pos = Text.find(ApiKey)) != std::string::npos)
      Text.replace(Pos, ApiKey.size(), "<redacted>");
    return Text;
  }

  llvm::Error failure(const llvm::Twine &What, unsigned Attempts) const {
    std::string Msg = ("LLM request to " + URL + " failed: " + What).str();
    if (Attempts > 1)
      Msg += llvm::formatv(" (after {0} attempts)", Attempts).str();
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   redact(std::move(Msg)));
  }

  double backoff(unsigned Retry) {
    double Delay =
        std::min(Opts.RetryMaxDelaySeconds,
                 Opts.RetryBaseDelaySeconds * std::ldexp(1.0, Retry));
    std::lock_guard<std::mutex> Lock(RandomMutex);
    // Jitter spreads out clients that failed together.
    return Delay * std::uniform_real_distribution<double>(0.5, 1.0)(Random);
  }

  HTTPOutcome post(const std::string &Body) {
    std::vector<std::string> Headers = {"Content-Type: application/json",
                                        "Accept: application/json",
                                        // No "100 Continue" round trip.
                                        "Expect:"};
    if (!ApiKey.empty())
      Headers.push_back("Authorization: Bearer " + ApiKey);
    {
      std::unique_lock<std::mutex> Lock(SlotMutex);
      SlotFree.wait(Lock, [&] { return InFlight < Opts.MaxInFlight; });
      ++InFlight;
      Peak = std::max(Peak, InFlight);
    }
    HTTPOutcome Out = Transport.post(
        URL, Body, Headers, Opts.ConnectTimeoutSeconds, Opts.TimeoutSeconds);
    {
      std::lock_guard<std::mutex> Lock(SlotMutex);
      --InFlight;
    }
    SlotFree.notify_one();
    return Out;
  }

  void count(const ChatResponse &R) {
    std::lock_guard<std::mutex> Lock(StatsMutex);
    Total += R.Usage;
    ++Calls;
  }

  llvm::Expected<ChatResponse> replay(const std::string &Hash) {
    auto E = Replay->replay(Hash);
    if (!E)
      return E.takeError();
    if (E->IsError)
      return llvm::createStringError("%s (replayed from '%s')", E->Text.c_str(),
                                     Replay->directory().c_str());
    auto R = decodeReplySafely(E->Text);
    if (!R)
      return llvm::createStringError(
          "recorded LLM reply %s in '%s' is unusable: %s", Hash.c_str(),
          Replay->directory().c_str(), llvm::toString(R.takeError()).c_str());
    R->Replayed = true;
    return R;
  }

  llvm::Expected<ChatResponse> send(const std::string &Body,
                                    std::string &ReplyBody);

  /// send(), recording the outcome when asked to.
  llvm::Expected<ChatResponse> sendAndRecord(const std::string &Body,
                                             const std::string &Hash) {
    std::string ReplyBody;
    auto R = send(Body, ReplyBody);
    if (!Record)
      return R;
    RecordedExchange E;
    std::optional<ChatResponse> Response;
    if (R) {
      E.Text = redact(ReplyBody);
      Response = std::move(*R);
    } else {
      E.IsError = true;
      E.Text = llvm::toString(R.takeError()); // Already redacted.
    }
    llvm::Error RecordErr = Record->record(Hash, Body, E);
    if (E.IsError)
      return llvm::joinErrors(
          llvm::createStringError(llvm::inconvertibleErrorCode(), E.Text),
          std::move(RecordErr));
    if (RecordErr)
      return RecordErr;
    return std::move(*Response);
  }
};

llvm::Expected<ChatResponse> LLMClient::Impl::send(const std::string &Body,
                                                   std::string &ReplyBody) {
  unsigned Attempts = 0;
  while (true) {
    ++Attempts;
    HTTPOutcome Out = post(Body);
    bool MayRetry = Attempts <= Opts.MaxRetries;
    std::optional<double> Wait;

    if (Out.Failure != TransportFailure::None) {
      std::string What;
      switch (Out.Failure) {
      case TransportFailure::Connect:
        What = "cannot connect: " + Out.FailureMessage;
        break;
      case TransportFailure::Timeout:
        What = llvm::formatv("timed out (connect {0} s, total {1} s): {2}",
                             seconds(Opts.ConnectTimeoutSeconds),
                             seconds(Opts.TimeoutSeconds), Out.FailureMessage)
                   .str();
        break;
      case TransportFailure::Truncated:
        What = "truncated reply body: " + Out.FailureMessage;
        break;
      case TransportFailure::Dropped:
        What = "connection dropped without a complete reply: " +
               Out.FailureMessage;
        break;
      case TransportFailure::TooLarge:
        What = llvm::formatv("reply larger than {0} bytes",
                             HTTPTransport::MaxReplyBytes)
                   .str();
        break;
      case TransportFailure::Other:
      case TransportFailure::None:
        What = Out.FailureMessage;
        break;
      }
      if (!isTransient(Out.Failure) || !MayRetry)
        return failure(What, Attempts);
    } else if (Out.Status >= 200 && Out.Status < 300) {
      auto R = decodeReplySafely(Out.Body);
      if (!R)
        return failure(llvm::toString(R.takeError()), Attempts);
      R->Attempts = Attempts;
      // A server could echo the key anywhere; nothing returned may hold it.
      for (ChatChoice &C : R->Choices)
        C.Content = redact(std::move(C.Content));
      ReplyBody = std::move(Out.Body);
      return R;
    } else {
      std::string What = llvm::formatv("HTTP {0}", Out.Status).str();
      if (!Out.Reason.empty())
        What += " " + Out.Reason;
      json J = json::parse(Out.Body.begin(), Out.Body.end(), nullptr,
                           /*allow_exceptions=*/false);
      std::string Said = J.is_object() ? errorMessageOf(J) : "";
      What += ": " + excerpt(Said.empty() ? Out.Body : Said);
      bool Transient = Out.Status == 429 || Out.Status >= 500;
      if (!Transient || !MayRetry)
        return failure(What, Attempts);
      if (Out.RetryAfterSeconds) {
        if (*Out.RetryAfterSeconds > Opts.MaxRetryAfterSeconds)
          return failure(
              llvm::formatv("{0}; the server asks to retry after {1} s, "
                            "longer than the {2} s allowed",
                            What, seconds(*Out.RetryAfterSeconds),
                            seconds(Opts.MaxRetryAfterSeconds))
                  .str(),
              Attempts);
        Wait = *Out.RetryAfterSeconds;
      }
    }

    double Delay = backoff(Attempts - 1);
    if (Wait)
      Delay = std::max(Delay, *Wait);
    std::this_thread::sleep_for(std::chrono::duration<double>(Delay));
  }
}

LLMOptions maxcode::llmOptionsOf(const EffectiveOptions &Settings) {
  LLMOptions O;
  O.Endpoint = Settings.LLMEndpoint;
  O.Model = Settings.LLMModel;
  O.ApiKeyEnv = Settings.LLMApiKeyEnv;
  O.RecordDir = Settings.LLMRecord;
  O.ReplayDir = Settings.LLMReplay;
  O.TimeoutSeconds = Settings.LLMTimeout;
  O.MaxRetries = Settings.LLMRetries;
  O.RetryBaseDelaySeconds = Settings.LLMRetryDelay;
  return O;
}

llvm::Expected<std::unique_ptr<LLMClient>> LLMClient::create(LLMOptions Opts) {
  auto I = std::make_unique<Impl>();
  if (!Opts.RecordDir.empty() && !Opts.ReplayDir.empty())
    return llvm::createStringError(
        "an LLM record directory and a replay directory cannot both be "
        "given");
  Opts.MaxInFlight = std::max(1u, Opts.MaxInFlight);

  if (!Opts.ReplayDir.empty()) {
    auto T = Transcript::open(Opts.ReplayDir, /*ForReplay=*/true);
    if (!T)
      return T.takeError();
    I->Replay = std::move(*T);
  } else {
    llvm::StringRef Endpoint = llvm::StringRef(Opts.Endpoint).trim();
    if (Endpoint.empty())
      return llvm::createStringError("no LLM endpoint given "
                                     "(e.g. http://127.0.0.1:8000/v1)");
    if (llvm::Error E = checkEndpointURL(Endpoint))
      return E;
    Endpoint = Endpoint.rtrim('/');
    I->URL = Endpoint.ends_with("/chat/completions")
                 ? Endpoint.str()
                 : (Endpoint + "/chat/completions").str();
  }

  if (!Opts.ApiKeyEnv.empty()) {
    if (std::optional<std::string> Key = takeApiKey(Opts.ApiKeyEnv)) {
      llvm::StringRef Trimmed = llvm::StringRef(*Key).trim();
      // The key goes into a header: a line break would inject others.
      if (llvm::any_of(Trimmed, [](char C) {
            return static_cast<unsigned char>(C) < 0x20 || C == 0x7f;
          }))
        return llvm::createStringError(
            "the API key in $%s contains a control character",
            Opts.ApiKeyEnv.c_str());
      I->ApiKey = Trimmed.str();
    }
  }

  if (!Opts.RecordDir.empty()) {
    auto T = Transcript::open(Opts.RecordDir, /*ForReplay=*/false);
    if (!T)
      return T.takeError();
    I->Record = std::move(*T);
  }
  I->Opts = std::move(Opts);
  return std::unique_ptr<LLMClient>(new LLMClient(std::move(I)));
}

LLMClient::LLMClient(std::unique_ptr<Impl> I) : I(std::move(I)) {}
LLMClient::~LLMClient() = default;

llvm::Expected<ChatResponse> LLMClient::complete(const ChatRequest &R) {
  if (R.Messages.empty())
    return llvm::createStringError("an LLM request needs at least one message");
  if (R.N == 0)
    return llvm::createStringError("an LLM request must ask for n >= 1");
  auto Start = std::chrono::steady_clock::now();
  std::string Body = canonicalRequestJSON(R, I->Opts);
  std::string Hash = sha256Hex(Body);

  auto Response = I->Replay ? I->replay(Hash) : I->sendAndRecord(Body, Hash);
  if (!Response)
    return Response.takeError();
  Response->RequestHash = Hash;
  Response->Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  I->count(*Response);
  return Response;
}

TokenUsage LLMClient::totalUsage() const {
  std::lock_guard<std::mutex> Lock(I->StatsMutex);
  return I->Total;
}

uint64_t LLMClient::completedCalls() const {
  std::lock_guard<std::mutex> Lock(I->StatsMutex);
  return I->Calls;
}

unsigned LLMClient::peakInFlight() const {
  std::lock_guard<std::mutex> Lock(I->SlotMutex);
  return I->Peak;
}

const LLMOptions &LLMClient::options() const { return I->Opts; }

const std::string &LLMClient::completionsURL() const { return I->URL; }

std::optional<std::string> maxcode::takeApiKey(llvm::StringRef Name) {
  static std::mutex M;
  static llvm::StringMap<std::optional<std::string>> Taken;
  std::lock_guard<std::mutex> L(M);
  auto It = Taken.find(Name);
  if (It != Taken.end())
    return It->second;
  std::optional<std::string> Key = llvm::sys::Process::GetEnv(Name);
  ::unsetenv(Name.str().c_str());
  Taken[Name] = Key;
  return Key;
}

llvm::Error maxcode::checkEndpointURL(llvm::StringRef Endpoint) {
  Endpoint = Endpoint.trim();
  llvm::StringRef Rest = Endpoint;
  bool Https = Rest.consume_front_insensitive("https://");
  if (!Https && !Rest.consume_front_insensitive("http://"))
    return llvm::createStringError(
        "LLM endpoint '%s' is not an http:// or https:// URL",
        Endpoint.str().c_str());
  if (Https)
    return llvm::Error::success();
  // The host: up to the port, path or query; [v6] in brackets; no userinfo
  // trick ("http://127.0.0.1@evil.example/").
  llvm::StringRef Authority =
      Rest.take_until([](char C) { return C == '/' || C == '?' || C == '#'; });
  llvm::StringRef Host =
      Authority.contains('@') ? Authority.rsplit('@').second : Authority;
  if (Host.starts_with("["))
    Host = Host.drop_front().take_until([](char C) { return C == ']'; });
  else
    Host = Host.take_until([](char C) { return C == ':'; });
  bool Loopback = Host.equals_insensitive("localhost") || Host == "::1";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Host.split(Parts, '.');
  unsigned Octet;
  if (Parts.size() == 4 && Parts[0] == "127" &&
      llvm::all_of(Parts, [&](llvm::StringRef P) {
        return !P.getAsInteger(10, Octet) && Octet < 256;
      }))
    Loopback = true;
  if (!Loopback)
    return llvm::createStringError(
        "LLM endpoint '%s' is plain http to another machine: the key and the "
        "code would cross the network in the clear; use https:// (plain "
        "http is for a server on this machine)",
        Endpoint.str().c_str());
  return llvm::Error::success();
}
