//===-- CompileDatabaseFuzzer.cpp - Fuzzing compile database loading ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A repository may ship its own compile_commands.json, so its commands are
/// untrusted. The input is written as the database of a scratch folder and
/// loaded the way -p loads one; every file it lists, and one it does not,
/// gets its command resolved and adjusted for parsing (nvcc commands
/// translated), as discovery does before Clang parses.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/NvccAdjuster.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

static std::string Dir;

static void removeDir() { (void)llvm::sys::fs::remove_directories(Dir); }

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::SmallString<128> Path;
  if (llvm::sys::fs::createUniqueDirectory("maxcode-cdb-fuzz", Path))
    abort();
  Dir = std::string(Path);
  atexit(removeDir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Dir + "/compile_commands.json", EC);
    if (EC)
      abort();
    OS.write(reinterpret_cast<const char *>(Data), Size);
  }
  llvm::Expected<LoadedDatabase> DB = loadCompilationDatabase(Dir, nullptr, {});
  if (!DB) {
    llvm::consumeError(DB.takeError());
    return 0;
  }

  ParseSettings S;
  S.ClangPath = "/usr/lib/llvm-22/bin/clang++";
  S.ResourceDir = "/resource-dir";
  S.CudaPath = "/cuda";
  std::vector<std::string> Files = DB->Raw->getAllFiles();
  if (Files.size() > 16)
    Files.resize(16);
  Files.push_back(Dir + "/not-listed.cu");
  for (const std::string &File : Files) {
    ResolvedCommand RC = resolveCompileCommand(*DB, File);
    const clang::tooling::CompileCommand &C = RC.Command;
    if (isNvccCommand(C.CommandLine)) {
      std::vector<std::string> Dropped;
      std::vector<std::string> Clang =
          translateNvccArguments(C.CommandLine, C.Directory, S, &Dropped);
      if (Clang.empty() || Clang.front() != S.ClangPath)
        abort();
    }
    std::vector<std::string> Args =
        adjustForParsing(C.CommandLine, C.Filename, C.Directory, S);
    if (Args.empty())
      abort();
  }
  return 0;
}
