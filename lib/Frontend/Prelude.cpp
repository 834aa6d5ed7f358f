//===-- Prelude.cpp - A CUDA parse's shared, precompiled prelude ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Prelude.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Support/Debug.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include <mutex>

#define DEBUG_TYPE "maxcode-frontend"

using namespace maxcode;
using namespace clang;

/// True when \p Arg names \p File, the main file (as written, or relative
/// to \p Directory).
static bool namesMainFile(llvm::StringRef Arg, llvm::StringRef File,
                          llvm::StringRef Directory) {
  if (Arg == File)
    return true;
  llvm::SmallString<256> Abs(Arg);
  if (!llvm::sys::path::is_absolute(Abs)) {
    Abs = Directory;
    llvm::sys::path::append(Abs, Arg);
  }
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> F(File);
  llvm::sys::path::remove_dots(F, /*remove_dot_dot=*/true);
  return Abs == F;
}

std::vector<std::string>
maxcode::preludeFamily(llvm::ArrayRef<std::string> ParseArgs,
                       llvm::StringRef File, llvm::StringRef Directory) {
  if (!llvm::is_contained(ParseArgs, "--cuda-host-only"))
    return {};
  std::vector<std::string> Out;
  for (size_t I = 0; I < ParseArgs.size(); ++I) {
    llvm::StringRef A = ParseArgs[I];
    if (I > 0 && (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ")) {
      ++I;
      continue;
    }
    if (I > 0 && (A == "-c" || A == "--" || A.starts_with("-o") || A == "-MD" ||
                  A == "-MMD" || namesMainFile(A, File, Directory)))
      continue;
    Out.push_back(A.str());
  }
  return Out;
}

namespace {
/// Clang's GeneratePCHAction, writing where we say.
class BuildPCH : public tooling::FrontendActionFactory {
public:
  explicit BuildPCH(std::string Out) : Out(std::move(Out)) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<GeneratePCHAction>();
  }
  bool runInvocation(std::shared_ptr<CompilerInvocation> Inv,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> Ops,
                     DiagnosticConsumer *Diags) override {
    Inv->getFrontendOpts().OutputFile = Out;
    Inv->getFrontendOpts().ProgramAction = frontend::GeneratePCH;
    return FrontendActionFactory::runInvocation(std::move(Inv), Files,
                                                std::move(Ops), Diags);
  }

private:
  std::string Out;
};

/// Counts the errors of a PCH build; prints nothing (a prelude that does
/// not build is no error of the file's: its parse goes without).
class CountErrors : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level >= DiagnosticsEngine::Error) {
      llvm::SmallString<128> M;
      Info.FormatDiagnostic(M);
      if (First.empty())
        First = std::string(M);
    }
  }
  std::string First;
};

/// Builds the PCH of an empty file of \p Extension with \p Family into
/// \p Path: written beside it under a unique name, then renamed, so that a
/// reader never sees half of one and two builders do not collide.
bool buildPrelude(llvm::ArrayRef<std::string> Family, llvm::StringRef Directory,
                  llvm::StringRef Extension, llvm::StringRef Path) {
  // The PCH records its input; a real, empty file that stays.
  std::string Header = (Path + Extension).str();
  if (!llvm::sys::fs::exists(Header)) {
    std::error_code EC;
    llvm::raw_fd_ostream(Header, EC);
    if (EC)
      return false;
  }
  llvm::SmallString<256> Temp;
  llvm::sys::fs::createUniquePath(Path + "-%%%%%%%%.tmp", Temp,
                                  /*MakeAbsolute=*/false);
  std::vector<std::string> Args = Family.vec();
  Args.push_back("-fsyntax-only");
  Args.push_back(Header);
  // A file system of its own: the shared real one's working folder is the
  // process's, and setting it would move every other thread's relative
  // paths.
  auto FS = privateFileSystem();
  if (!Directory.empty())
    (void)FS->setCurrentWorkingDirectory(Directory);
  auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), FS);
  BuildPCH Action{std::string(Temp)};
  tooling::ToolInvocation Invocation(
      std::move(Args), &Action, Files.get(),
      std::make_shared<PCHContainerOperations>());
  CountErrors Errors;
  Invocation.setDiagnosticConsumer(&Errors);
  bool Ok = Invocation.run() && !Errors.getNumErrors();
  if (Ok && !llvm::sys::fs::rename(Temp, Path))
    return true;
  MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": no precompiled prelude '"
                             << Path << "': " << Errors.First << "\n");
  llvm::sys::fs::remove(Temp);
  return false;
}
/// The most preludes the cache keeps (about 10 MB each): a new one makes the
/// least recently built ones beyond it go.
constexpr size_t MaxPreludes = 32;

/// Removes the oldest preludes of \p CacheDir (and their empty files) so
/// that one more fits under MaxPreludes.
void evictOldPreludes(llvm::StringRef CacheDir) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> PCHs;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(CacheDir, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != ".pch")
      continue;
    llvm::sys::fs::file_status St;
    if (!llvm::sys::fs::status(It->path(), St))
      PCHs.push_back({St.getLastModificationTime(), It->path()});
  }
  if (PCHs.size() < MaxPreludes)
    return;
  llvm::sort(PCHs);
  PCHs.resize(PCHs.size() + 1 - MaxPreludes);
  // Each prelude and the empty file it was built from (KEY.pch.EXT).
  // Another process reading one keeps its open copy.
  for (llvm::sys::fs::directory_iterator It(CacheDir, EC), End;
       It != End && !EC; It.increment(EC))
    for (const auto &P : PCHs)
      if (It->path() == P.second ||
          llvm::StringRef(It->path()).starts_with(P.second + "."))
        llvm::sys::fs::remove(It->path());
}
} // namespace

std::string maxcode::precompiledPrelude(llvm::ArrayRef<std::string> Family,
                                        llvm::StringRef Directory,
                                        llvm::StringRef Extension,
                                        llvm::StringRef CacheDir) {
  if (Family.empty() || CacheDir.empty())
    return "";
  // Everything that decides what the prelude holds: Clang itself, the
  // folder relative paths start from, and the command line.
  llvm::SHA256 Hash;
  Hash.update(getClangFullVersion());
  Hash.update(llvm::StringRef("\0", 1));
  Hash.update(Directory);
  Hash.update(Extension);
  for (const std::string &A : Family) {
    Hash.update(llvm::StringRef("\0", 1));
    Hash.update(A);
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  std::string Key = llvm::toHex(llvm::ArrayRef(Digest).take_front(16),
                                /*LowerCase=*/true);
  llvm::SmallString<256> Path(CacheDir);
  llvm::sys::path::append(Path, Key + ".pch");
  // One builder per prelude in this process; the others wait for it.
  static std::mutex MapLock;
  static llvm::StringMap<std::unique_ptr<std::mutex>> Building;
  std::mutex *Lock;
  {
    std::lock_guard<std::mutex> G(MapLock);
    auto &M = Building[Key];
    if (!M)
      M = std::make_unique<std::mutex>();
    Lock = M.get();
  }
  std::lock_guard<std::mutex> G(*Lock);
  if (llvm::sys::fs::exists(Path))
    return std::string(Path);
  if (llvm::sys::fs::create_directories(CacheDir))
    return "";
  evictOldPreludes(CacheDir);
  std::string PathString(Path);
  return buildPrelude(Family, Directory, Extension, PathString) ? PathString
                                                                : "";
}

std::vector<std::string>
maxcode::withPrelude(llvm::ArrayRef<std::string> ParseArgs,
                     llvm::StringRef PCH) {
  std::vector<std::string> Out = ParseArgs.vec();
  if (Out.empty() || PCH.empty())
    return Out;
  Out.insert(Out.begin() + 1, {"-include-pch", PCH.str()});
  return Out;
}

std::vector<std::string>
maxcode::withoutPrelude(llvm::ArrayRef<std::string> ParseArgs) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < ParseArgs.size(); ++I) {
    if (ParseArgs[I] == "-include-pch") {
      ++I;
      continue;
    }
    Out.push_back(ParseArgs[I]);
  }
  return Out;
}

bool maxcode::isPreludeError(llvm::StringRef Message) {
  return Message.contains("precompiled header") ||
         Message.contains("PCH file") || Message.contains("AST file");
}

std::string maxcode::defaultPreludeCacheDir() {
  if (auto V = llvm::sys::Process::GetEnv("MAXCODE_PCH_DIR"))
    return *V == "off" ? std::string() : *V;
  llvm::SmallString<256> P;
  if (!llvm::sys::path::cache_directory(P))
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, P);
  llvm::sys::path::append(P, "clang-maxcode", "pch");
  return std::string(P);
}
