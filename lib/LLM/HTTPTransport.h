//===-- HTTPTransport.h - One HTTP POST through libcurl ---------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The only place that talks to libcurl. It performs one POST and sorts the
/// outcome into what the retry logic of LLMClient needs to know: an HTTP
/// status with its body, or a transport failure of a known kind. Private to
/// lib/LLM.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LLM_HTTPTRANSPORT_H
#define MAXCODE_LLM_HTTPTRANSPORT_H

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

enum class TransportFailure {
  None,      ///< An HTTP reply came back (any status).
  Connect,   ///< Could not connect, resolve or send.
  Timeout,   ///< Connect or total timeout.
  Truncated, ///< Fewer body bytes than Content-Length, then closed.
  Dropped,   ///< Connection closed with no reply, or reset while reading.
  TooLarge,  ///< Reply larger than the cap.
  Other,     ///< Anything else (bad URL, TLS verification, ...).
};

/// Whether a failure of this kind may go away by trying again.
bool isTransient(TransportFailure F);

struct HTTPOutcome {
  TransportFailure Failure = TransportFailure::None;
  /// For a failure: what libcurl said (never holds request headers).
  std::string FailureMessage;
  long Status = 0;
  std::string Reason; ///< Reason phrase of the status line.
  std::string Body;
  /// Retry-After of the reply, when given in seconds.
  std::optional<double> RetryAfterSeconds;
};

class HTTPTransport {
public:
  HTTPTransport();
  ~HTTPTransport();
  HTTPTransport(const HTTPTransport &) = delete;
  HTTPTransport &operator=(const HTTPTransport &) = delete;

  /// POSTs \p Body to \p URL with \p Headers ("Name: value"). Thread-safe.
  HTTPOutcome post(const std::string &URL, const std::string &Body,
                   const std::vector<std::string> &Headers,
                   double ConnectTimeoutSeconds, double TimeoutSeconds);

  static constexpr size_t MaxReplyBytes = 64u << 20;

private:
  // Idle easy handles. Reusing them keeps connections (and TLS sessions)
  // alive between requests to the same server.
  std::mutex PoolMutex;
  std::vector<void *> Pool;
};

} // namespace maxcode

#endif // MAXCODE_LLM_HTTPTRANSPORT_H
