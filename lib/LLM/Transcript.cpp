//===-- Transcript.cpp - Recorded LLM exchanges on disk -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Transcript.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace maxcode;
using nlohmann::json;

static constexpr int TranscriptVersion = 1;

llvm::Expected<std::unique_ptr<Transcript>>
Transcript::open(llvm::StringRef Dir, bool ForReplay) {
  if (ForReplay) {
    if (!llvm::sys::fs::is_directory(Dir))
      return llvm::createStringError("LLM replay directory '%s' does not exist",
                                     Dir.str().c_str());
  } else if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
    return llvm::createStringError(
        EC, "cannot create LLM record directory '%s': %s", Dir.str().c_str(),
        EC.message().c_str());
  }
  return std::unique_ptr<Transcript>(new Transcript(Dir.str()));
}

std::string Transcript::pathFor(llvm::StringRef Hash) const {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Hash + ".json");
  return std::string(Path);
}

/// Reads and checks a transcript file; a missing file is an empty json.
static llvm::Expected<json> readFile(const std::string &Path) {
  if (!llvm::sys::fs::exists(Path))
    return json();
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read '%s': %s",
                                   Path.c_str(),
                                   Buffer.getError().message().c_str());
  llvm::StringRef Text = (*Buffer)->getBuffer();
  json J = json::parse(Text.begin(), Text.end(), nullptr,
                       /*allow_exceptions=*/false);
  auto Exchanges = J.is_object() ? J.find("exchanges") : J.end();
  if (J.is_discarded() || !J.is_object() || Exchanges == J.end() ||
      !Exchanges->is_array())
    return llvm::createStringError("'%s' is not an LLM transcript file",
                                   Path.c_str());
  return J;
}

static std::string dumpJSON(const json &J, int Indent) {
  return J.dump(Indent, ' ', false, json::error_handler_t::replace);
}

llvm::Error Transcript::record(llvm::StringRef Hash,
                               llvm::StringRef CanonicalRequest,
                               const RecordedExchange &E) {
  json Entry = json::object();
  if (E.IsError) {
    Entry["error"] = E.Text;
  } else {
    json Response = json::parse(E.Text, nullptr, /*allow_exceptions=*/false);
    if (Response.is_discarded())
      Entry["response_text"] = E.Text;
    else
      Entry["response"] = std::move(Response);
  }

  std::lock_guard<std::mutex> Lock(Mutex);
  std::string Path = pathFor(Hash);
  auto Existing = readFile(Path);
  if (!Existing)
    return Existing.takeError();
  json File = std::move(*Existing);
  if (File.is_null()) {
    File = json::object();
    File["version"] = TranscriptVersion;
    File["hash"] = Hash.str();
    json Request = json::parse(CanonicalRequest.begin(), CanonicalRequest.end(),
                               nullptr, /*allow_exceptions=*/false);
    File["request"] = Request.is_discarded() ? json(CanonicalRequest.str())
                                             : std::move(Request);
    File["exchanges"] = json::array();
  }
  File["exchanges"].push_back(std::move(Entry));
  // writeToOutput goes through a temporary file and a rename, so a reader
  // (or a run killed mid-write) never sees half a file.
  std::string Text = dumpJSON(File, 2) + "\n";
  if (llvm::Error Err =
          llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) -> llvm::Error {
            OS << Text;
            return llvm::Error::success();
          }))
    return llvm::createStringError("cannot write LLM record '%s': %s",
                                   Path.c_str(),
                                   llvm::toString(std::move(Err)).c_str());
  return llvm::Error::success();
}

llvm::Expected<RecordedExchange> Transcript::replay(llvm::StringRef Hash) {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::string Path = pathFor(Hash);
  auto File = readFile(Path);
  if (!File)
    return File.takeError();
  if (File->is_null() || (*File)["exchanges"].empty())
    return llvm::createStringError(
        "no recorded LLM reply for request %s in '%s' (the replayed run "
        "must send the same model, messages and parameters)",
        Hash.str().c_str(), Dir.c_str());
  const json &Exchanges = (*File)["exchanges"];
  unsigned &Count = Served[Hash];
  size_t Index = std::min<size_t>(Count, Exchanges.size() - 1);
  ++Count;
  const json &Entry = Exchanges[Index];
  RecordedExchange E;
  if (!Entry.is_object())
    return llvm::createStringError("'%s': exchange %zu is not an object",
                                   Path.c_str(), Index);
  if (auto It = Entry.find("error"); It != Entry.end() && It->is_string()) {
    E.IsError = true;
    E.Text = It->get<std::string>();
  } else if (auto It = Entry.find("response"); It != Entry.end()) {
    E.Text = dumpJSON(*It, -1);
  } else if (auto It = Entry.find("response_text");
             It != Entry.end() && It->is_string()) {
    E.Text = It->get<std::string>();
  } else {
    return llvm::createStringError("'%s': exchange %zu has no response",
                                   Path.c_str(), Index);
  }
  return E;
}
