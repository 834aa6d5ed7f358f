//===-- Hotness.cpp - Running a command under callgrind -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Profile.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace maxcode;

llvm::Expected<CallgrindProfile>
maxcode::runUnderCallgrind(llvm::StringRef Command,
                           const CommandPlacement &Place,
                           double TimeoutSeconds) {
  llvm::Expected<TempFolder> Folder = TempFolder::create("maxcode-profile");
  if (!Folder)
    return Folder.takeError();
  llvm::StringRef Dir = Folder->path();
  llvm::SmallString<128> OutPattern(Dir);
  llvm::sys::path::append(OutPattern, "callgrind.out.%p");

  if (llvm::Error E = runUserCommand(
          Command,
          {"valgrind", "--tool=callgrind", "--trace-children=yes",
           "--demangle=no", "--callgrind-out-file=" + std::string(OutPattern)},
          {}, Place, Dir, TimeoutSeconds))
    return E;
  CallgrindProfile Merged;
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    auto Buf = llvm::MemoryBuffer::getFile(It->path());
    if (!Buf)
      continue;
    auto P = parseCallgrind((*Buf)->getBuffer());
    if (!P)
      return llvm::createStringError("cannot read '" + It->path() +
                                     "': " + llvm::toString(P.takeError()));
    Merged.merge(*P);
    ++Files;
  }
  if (!Files)
    return llvm::createStringError("callgrind wrote no profile for '" +
                                   Command.str() + "'");
  return Merged;
}
