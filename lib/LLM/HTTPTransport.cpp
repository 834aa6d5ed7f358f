//===-- HTTPTransport.cpp - One HTTP POST through libcurl -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "HTTPTransport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdlib>
#include <curl/curl.h>
#include <mutex>

using namespace maxcode;

bool maxcode::isTransient(TransportFailure F) {
  switch (F) {
  case TransportFailure::Connect:
  case TransportFailure::Timeout:
  case TransportFailure::Truncated:
  case TransportFailure::Dropped:
    return true;
  case TransportFailure::None:
  case TransportFailure::TooLarge:
  case TransportFailure::Other:
    return false;
  }
  return false;
}

namespace {
struct Transfer {
  HTTPOutcome *Out;
  bool Overflow = false;
};
} // namespace

static size_t onBody(char *Data, size_t Size, size_t N, void *User) {
  auto *T = static_cast<Transfer *>(User);
  size_t Bytes = Size * N;
  if (T->Out->Body.size() + Bytes > HTTPTransport::MaxReplyBytes) {
    T->Overflow = true;
    return 0; // Makes libcurl stop with CURLE_WRITE_ERROR.
  }
  T->Out->Body.append(Data, Bytes);
  return Bytes;
}

static size_t onHeader(char *Data, size_t Size, size_t N, void *User) {
  auto *T = static_cast<Transfer *>(User);
  size_t Bytes = Size * N;
  llvm::StringRef Line = llvm::StringRef(Data, Bytes).trim();
  if (Line.starts_with("HTTP/")) {
    // A new status line (after "100 Continue" or a redirect): forget the
    // headers of the previous response.
    T->Out->RetryAfterSeconds.reset();
    llvm::StringRef Rest = Line.split(' ').second; // "500 Internal Error"
    T->Out->Reason = Rest.split(' ').second.str();
    return Bytes;
  }
  auto [Name, Value] = Line.split(':');
  if (Name.trim().equals_insensitive("retry-after")) {
    // Seconds only; an HTTP-date is left to the exponential backoff.
    double Seconds;
    if (!Value.trim().getAsDouble(Seconds) && Seconds >= 0)
      T->Out->RetryAfterSeconds = Seconds;
  }
  return Bytes;
}

static TransportFailure classify(CURLcode Code) {
  switch (Code) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
  case CURLE_SEND_ERROR:
  case CURLE_SSL_CONNECT_ERROR:
    return TransportFailure::Connect;
  case CURLE_OPERATION_TIMEDOUT:
    return TransportFailure::Timeout;
  case CURLE_PARTIAL_FILE:
    return TransportFailure::Truncated;
  case CURLE_GOT_NOTHING:
  case CURLE_RECV_ERROR:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
    return TransportFailure::Dropped;
  default:
    return TransportFailure::Other;
  }
}

/// $no_proxy (or $NO_PROXY) plus loopback. Setting CURLOPT_NOPROXY replaces
/// the variable, so its hosts are carried over.
static const std::string &noProxyList() {
  static const std::string List = [] {
    std::string L = "localhost,127.0.0.1,::1";
    for (const char *Var : {"no_proxy", "NO_PROXY"})
      if (const char *V = std::getenv(Var); V && *V) {
        // "*" (no proxy at all) works only on its own.
        L = llvm::StringRef(V).trim() == "*" ? "*" : std::string(V) + "," + L;
        break;
      }
    return L;
  }();
  return List;
}

HTTPTransport::HTTPTransport() {
  // curl_global_init is not thread-safe in every libcurl; do it once, and
  // never clean up (handles may live until exit).
  static std::once_flag Once;
  std::call_once(Once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HTTPTransport::~HTTPTransport() {
  for (void *H : Pool)
    curl_easy_cleanup(static_cast<CURL *>(H));
}

HTTPOutcome HTTPTransport::post(const std::string &URL, const std::string &Body,
                                const std::vector<std::string> &Headers,
                                double ConnectTimeoutSeconds,
                                double TimeoutSeconds) {
  HTTPOutcome Out;
  CURL *H = nullptr;
  {
    std::lock_guard<std::mutex> Lock(PoolMutex);
    if (!Pool.empty()) {
      H = static_cast<CURL *>(Pool.back());
      Pool.pop_back();
    }
  }
  if (H)
    curl_easy_reset(H); // Keeps the connection cache, drops the options.
  else
    H = curl_easy_init();
  if (!H) {
    Out.Failure = TransportFailure::Other;
    Out.FailureMessage = "could not create a libcurl handle";
    return Out;
  }

  curl_slist *List = nullptr;
  for (const std::string &Header : Headers)
    List = curl_slist_append(List, Header.c_str());
  Transfer T{&Out};
  char ErrorBuffer[CURL_ERROR_SIZE] = {0};

  curl_easy_setopt(H, CURLOPT_URL, URL.c_str());
  curl_easy_setopt(H, CURLOPT_POST, 1L);
  curl_easy_setopt(H, CURLOPT_POSTFIELDS, Body.data());
  curl_easy_setopt(H, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(Body.size()));
  curl_easy_setopt(H, CURLOPT_HTTPHEADER, List);
  curl_easy_setopt(H, CURLOPT_USERAGENT, "clang-maxcode");
  curl_easy_setopt(H, CURLOPT_ACCEPT_ENCODING, ""); // Any curl can decode.
  // Signals cannot be used for timeouts when several threads call in.
  curl_easy_setopt(H, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(H, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(ConnectTimeoutSeconds * 1000));
  curl_easy_setopt(H, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(TimeoutSeconds * 1000));
  curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(H, CURLOPT_WRITEDATA, &T);
  curl_easy_setopt(H, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(H, CURLOPT_HEADERDATA, &T);
  curl_easy_setopt(H, CURLOPT_ERRORBUFFER, ErrorBuffer);
  // Proxies from the environment (https_proxy, ...) are used, but never for
  // a server on this machine.
  curl_easy_setopt(H, CURLOPT_NOPROXY, noProxyList().c_str());

  CURLcode Code = curl_easy_perform(H);
  if (Code == CURLE_OK) {
    curl_easy_getinfo(H, CURLINFO_RESPONSE_CODE, &Out.Status);
  } else {
    Out.Failure = T.Overflow ? TransportFailure::TooLarge : classify(Code);
    Out.FailureMessage =
        ErrorBuffer[0] ? ErrorBuffer : curl_easy_strerror(Code);
    Out.FailureMessage = llvm::StringRef(Out.FailureMessage).rtrim().str();
  }

  // The handle must not keep pointers into this frame.
  curl_easy_setopt(H, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(H, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(List);
  {
    std::lock_guard<std::mutex> Lock(PoolMutex);
    Pool.push_back(H);
  }
  return Out;
}
