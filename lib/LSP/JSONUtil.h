//===-- JSONUtil.h - Reading nlohmann::json without exceptions --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// nlohmann::json throws on a missing key (at), a wrong type (get) and
/// invalid UTF-8 (dump). Everything that comes from a client or a child
/// process is read through these helpers, which check before they touch, so
/// no exception can start in this layer (private to lib/LSP).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_LSP_JSONUTIL_H
#define MAXCODE_LIB_LSP_JSONUTIL_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace maxcode {
namespace lsp {

using json = nlohmann::json;

/// Parses without throwing; none for text that is not one JSON value.
inline std::optional<json> parseJSON(llvm::StringRef Text) {
  json J = json::parse(Text.begin(), Text.end(), /*cb=*/nullptr,
                       /*allow_exceptions=*/false);
  if (J.is_discarded())
    return std::nullopt;
  return J;
}

/// Serialises; invalid UTF-8 (from a file or a child) becomes U+FFFD
/// instead of an exception.
inline std::string dumpJSON(const json &J, bool Pretty) {
  return J.dump(Pretty ? 2 : -1, ' ', /*ensure_ascii=*/false,
                json::error_handler_t::replace);
}

/// The member \p Key of \p J, or null when \p J is not an object or lacks it.
inline const json *member(const json &J, const char *Key) {
  if (!J.is_object())
    return nullptr;
  auto It = J.find(Key);
  return It == J.end() ? nullptr : &*It;
}

inline std::optional<std::string> getString(const json &J, const char *Key) {
  const json *V = member(J, Key);
  if (!V || !V->is_string())
    return std::nullopt;
  return V->get_ref<const std::string &>();
}

inline std::optional<int64_t> getInteger(const json &J, const char *Key) {
  const json *V = member(J, Key);
  if (!V)
    return std::nullopt;
  if (V->is_number_unsigned()) {
    uint64_t U = V->get<uint64_t>();
    if (U > uint64_t(INT64_MAX))
      return std::nullopt;
    return static_cast<int64_t>(U);
  }
  if (V->is_number_integer())
    return V->get<int64_t>();
  return std::nullopt;
}

inline std::optional<double> getNumber(const json &J, const char *Key) {
  const json *V = member(J, Key);
  if (!V || !V->is_number())
    return std::nullopt;
  return V->get<double>();
}

inline std::optional<bool> getBool(const json &J, const char *Key) {
  const json *V = member(J, Key);
  if (!V || !V->is_boolean())
    return std::nullopt;
  return V->get<bool>();
}

/// Follows a path of object keys; null where one is missing.
inline const json *path(const json &J,
                        std::initializer_list<const char *> Keys) {
  const json *Cur = &J;
  for (const char *K : Keys)
    if (!(Cur = member(*Cur, K)))
      return nullptr;
  return Cur;
}

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LIB_LSP_JSONUTIL_H
