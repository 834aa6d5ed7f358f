//===-- CompilationDatabase.cpp - Finding compile commands ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Support/FindUpward.h"
#include "clang/Basic/TokenKinds.h"
#include "clang/Lex/DependencyDirectivesScanner.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace clang::tooling;

std::string maxcode::makeAbsolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

namespace {
/// A database that shares one its owner keeps using (the flags after `--`,
/// made once per process).
class SharedDatabase : public CompilationDatabase {
public:
  explicit SharedDatabase(std::shared_ptr<CompilationDatabase> DB)
      : DB(std::move(DB)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef File) const override {
    return DB->getCompileCommands(File);
  }
  std::vector<std::string> getAllFiles() const override {
    return DB->getAllFiles();
  }
  std::vector<clang::tooling::CompileCommand>
  getAllCompileCommands() const override {
    return DB->getAllCompileCommands();
  }

private:
  std::shared_ptr<CompilationDatabase> DB;
};
} // namespace

static LoadedDatabase wrap(std::unique_ptr<CompilationDatabase> DB,
                           std::string Origin) {
  LoadedDatabase L;
  L.Raw = DB.get();
  // Response files (@file) expanded, then clangd's interpolation for files
  // the database does not list. The driver mode is left to argv[0]: these
  // commands also build variants with the project's own compiler.
  L.Database = inferMissingCompileCommands(
      expandResponseFiles(std::move(DB), llvm::vfs::getRealFileSystem()));
  L.Origin = std::move(Origin);
  return L;
}

static llvm::Expected<LoadedDatabase> loadFromDirectory(llvm::StringRef Dir) {
  llvm::SmallString<256> Json(Dir);
  llvm::sys::path::append(Json, "compile_commands.json");
  std::string Error;
  if (llvm::sys::fs::exists(Json)) {
    // Read as JSON first: Clang's loader reads it as YAML, which prints a
    // syntax error with the whole offending line (thousands of columns in
    // a real database) and goes on with the entries before it.
    auto Buf = llvm::MemoryBuffer::getFile(Json);
    if (!Buf)
      return llvm::createStringError("cannot read '" + Json.str() +
                                     "': " + Buf.getError().message());
    if (llvm::Expected<llvm::json::Value> V =
            llvm::json::parse((*Buf)->getBuffer());
        !V)
      return llvm::createStringError("malformed compile database '" +
                                     Json.str() +
                                     "': " + llvm::toString(V.takeError()));
    std::unique_ptr<CompilationDatabase> DB =
        JSONCompilationDatabase::loadFromFile(
            Json, Error, JSONCommandLineSyntax::AutoDetect);
    if (!DB)
      return llvm::createStringError("malformed compile database '" +
                                     Json.str() + "': " + Error);
    return wrap(std::move(DB), std::string(Json));
  }
  llvm::SmallString<256> Flags(Dir);
  llvm::sys::path::append(Flags, "compile_flags.txt");
  if (llvm::sys::fs::exists(Flags)) {
    std::unique_ptr<CompilationDatabase> DB =
        FixedCompilationDatabase::loadFromFile(Flags, Error);
    if (!DB)
      return llvm::createStringError("cannot read '" + Flags.str() +
                                     "': " + Error);
    return wrap(std::move(DB), std::string(Flags));
  }
  return llvm::createStringError("no compile_commands.json in '" + Dir.str() +
                                 "'");
}

namespace {
/// The flags after "--" for a CUDA file, as nvcc's command: the parse
/// translates them with nvcc's table, the build runs nvcc with them.
class NvccFlagsDatabase : public CompilationDatabase {
public:
  explicit NvccFlagsDatabase(std::vector<std::string> Flags)
      : Fixed(".", Flags) {}
  std::vector<CompileCommand>
  getCompileCommands(llvm::StringRef File) const override {
    std::vector<CompileCommand> Out = Fixed.getCompileCommands(File);
    for (CompileCommand &C : Out)
      if (compilesAsCuda(C.CommandLine, C.Filename) && !C.CommandLine.empty())
        C.CommandLine.front() = "nvcc";
    return Out;
  }

private:
  FixedCompilationDatabase Fixed;
};
} // namespace

std::unique_ptr<CompilationDatabase>
maxcode::loadFlagsAfterDashDash(int &Argc, const char *const *Argv,
                                std::string &Error) {
  int DashDash = 0;
  while (DashDash < Argc && llvm::StringRef(Argv[DashDash]) != "--")
    ++DashDash;
  if (DashDash == Argc)
    return nullptr;
  std::vector<std::string> Flags(Argv + DashDash + 1, Argv + Argc);
  if (isSpelledForNvcc(Flags)) {
    Argc = DashDash;
    return std::make_unique<NvccFlagsDatabase>(std::move(Flags));
  }
  std::unique_ptr<CompilationDatabase> DB =
      FixedCompilationDatabase::loadFromCommandLine(Argc, Argv, Error);
  // The driver's own words begin "error: ": said once, naming the input.
  llvm::StringRef Said = llvm::StringRef(Error).trim();
  Said.consume_front("error: ");
  if (!Said.empty())
    Error = "the flags after --: " + Said.str();
  return DB;
}

llvm::Expected<LoadedDatabase> maxcode::loadCompilationDatabase(
    llvm::StringRef BuildPath,
    std::shared_ptr<CompilationDatabase> FlagsAfterDashDash,
    llvm::ArrayRef<std::string> Sources) {
  if (FlagsAfterDashDash)
    return wrap(std::make_unique<SharedDatabase>(std::move(FlagsAfterDashDash)),
                "the flags after --");
  if (!BuildPath.empty()) {
    if (!llvm::sys::fs::is_directory(BuildPath))
      return llvm::createStringError("build folder '" + BuildPath.str() +
                                     "' (given with -p) does not exist");
    return loadFromDirectory(BuildPath);
  }
  // As clangd: each ancestor of the source, and its build/ subfolder.
  for (const std::string &Source : Sources)
    if (std::optional<std::string> Found = findUpward(
            llvm::sys::path::parent_path(makeAbsolutePath(Source)),
            {"compile_commands.json", "compile_flags.txt",
             "build/compile_commands.json", "build/compile_flags.txt"}))
      return loadFromDirectory(llvm::sys::path::parent_path(*Found));
  std::string First = Sources.empty() ? std::string("the sources")
                                      : "'" + Sources.front() + "'";
  return llvm::createStringError(
      "no compile database found for " + First +
      ": give the build folder holding compile_commands.json with -p <dir>, "
      "or the compiler flags after -- (e.g. '-- -std=c++17')");
}

/// True when \p C compiles CUDA.
static bool isCudaCommand(const CompileCommand &C) {
  return compilesAsCuda(C.CommandLine, C.Filename);
}

/// The folders a compile command reads besides the system's: include and
/// library folders, forced includes, response files, the compiler's own
/// installation when it is not under /usr. Relative paths are the
/// command's directory's.
std::vector<std::string> maxcode::commandFolders(const CompileCommand &C) {
  std::vector<std::string> Out;
  auto Add = [&](llvm::StringRef P, bool IsFile) {
    if (P.empty())
      return;
    llvm::SmallString<256> Abs(P);
    if (!llvm::sys::path::is_absolute(Abs)) {
      Abs = C.Directory;
      llvm::sys::path::append(Abs, P);
    }
    llvm::sys::path::remove_dots(Abs, true);
    Out.push_back(IsFile ? llvm::sys::path::parent_path(Abs).str()
                         : Abs.str().str());
  };
  static constexpr llvm::StringLiteral DirFlags[] = {"-I",
                                                     "-isystem",
                                                     "-iquote",
                                                     "-idirafter",
                                                     "-L",
                                                     "-B",
                                                     "--sysroot",
                                                     "-isysroot",
                                                     "--include-path",
                                                     "--library-path",
                                                     "--compiler-bindir",
                                                     "-ccbin",
                                                     "-cudart-dir",
                                                     "--cuda-path"};
  static constexpr llvm::StringLiteral FileFlags[] = {
      "-include", "-imacros", "--options-file", "-optf", "--pre-include"};
  const std::vector<std::string> &A = C.CommandLine;
  for (size_t I = 0; I < A.size(); ++I) {
    llvm::StringRef W = A[I];
    if (W.consume_front("@")) {
      Add(W, true);
      continue;
    }
    for (bool File : {false, true}) {
      for (llvm::StringRef F :
           File ? llvm::ArrayRef(FileFlags) : llvm::ArrayRef(DirFlags)) {
        if (W == F && I + 1 < A.size()) {
          Add(A[++I], File);
        } else if (W.starts_with(F) && W.size() > F.size()) {
          llvm::StringRef V = W.drop_front(F.size());
          V.consume_front("=");
          if (F.starts_with("--") && !W.drop_front(F.size()).starts_with("="))
            continue; // "--include-pathx" is another flag.
          Add(V, File);
        }
      }
    }
  }
  // The compiler's own installation (a toolchain in /opt, a CUDA outside
  // /usr): bin/.. of the resolved program.
  if (!A.empty()) {
    std::string Program = A.front();
    if (Program.find('/') == std::string::npos)
      if (auto Found = llvm::sys::findProgramByName(Program))
        Program = *Found;
    llvm::SmallString<256> Real;
    if (!llvm::sys::fs::real_path(Program, Real))
      Out.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real))
              .str());
  }
  Add(C.Directory, false);
  return Out;
}

/// The files \p Text (the text of \p File) includes that exist: a quoted
/// name from \p File's own folder first, any name from \p Folders (the
/// command's, commandFolders). Read with
/// Clang's dependency-directive scanner, as clang-scan-deps reads includes.
static std::vector<std::string>
includedFiles(llvm::StringRef File, llvm::StringRef Text,
              llvm::ArrayRef<std::string> Folders) {
  namespace scan = clang::dependency_directives_scan;
  llvm::SmallVector<scan::Token, 64> Tokens;
  llvm::SmallVector<scan::Directive, 32> Directives;
  std::vector<std::string> Out;
  if (clang::scanSourceForDependencyDirectives(Text, Tokens, Directives))
    return Out;
  for (const scan::Directive &D : Directives) {
    if (D.Kind != scan::pp_include && D.Kind != scan::pp_include_next &&
        D.Kind != scan::pp_import)
      continue;
    // `#`, `include`, then the header name, quotes or angles included (a
    // macro naming the file is not followed).
    if (D.Tokens.size() < 3 || !D.Tokens[2].is(clang::tok::header_name))
      continue;
    llvm::StringRef Spelled =
        Text.substr(D.Tokens[2].Offset, D.Tokens[2].Length);
    bool Quoted = Spelled.starts_with("\"");
    llvm::StringRef Name = Spelled.drop_front().drop_back();
    if (Name.empty())
      continue;
    auto Found = [&](llvm::StringRef Dir) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, Name);
      llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
      if (!llvm::sys::fs::is_regular_file(P))
        return false;
      Out.push_back(std::string(P));
      return true;
    };
    if (Quoted && Found(llvm::sys::path::parent_path(File)))
      continue;
    llvm::any_of(Folders, Found);
  }
  return Out;
}

/// The file that holds CUDA code (what only nvcc's, or Clang's CUDA, front
/// end accepts): \p File itself or one it includes, found in its own folder
/// and \p Folders; none when neither does. A header that writes its kernels
/// with a library's macros (`MGPU_DEVICE`, `HOST_DEVICE`) holds CUDA code as
/// much as one that spells `__device__`.
static std::optional<std::string>
holdsCudaCode(llvm::StringRef File, llvm::ArrayRef<std::string> Folders) {
  // CUDA's qualifiers and launches, its built-in variables, and its
  // runtime's types and headers.
  static constexpr llvm::StringLiteral Words[] = {
      "__global__",   "__device__",   "__shared__", "__host__",
      "<<<",          "threadIdx",    "blockIdx",   "cudaError_t",
      "cudaStream_t", "cuda_runtime", "<cuda.h>"};
  // A bound on the files read: enough for a library's own headers.
  constexpr size_t MaxFiles = 256;
  std::vector<std::string> Queue = {File.str()};
  llvm::StringSet<> Seen;
  Seen.insert(File);
  for (size_t I = 0; I < Queue.size() && I < MaxFiles; ++I) {
    if (I > 0 && isCudaFileName(Queue[I]))
      return Queue[I];
    auto Buf = llvm::MemoryBuffer::getFile(Queue[I]);
    if (!Buf)
      continue;
    llvm::StringRef Text = (*Buf)->getBuffer();
    if (llvm::any_of(Words,
                     [&](llvm::StringRef W) { return Text.contains(W); }))
      return Queue[I];
    for (std::string &Inc : includedFiles(Queue[I], Text, Folders))
      if (Seen.insert(Inc).second)
        Queue.push_back(std::move(Inc));
  }
  return std::nullopt;
}

/// The CUDA command of \p DB whose file shares the longest folder path with
/// \p File, made \p File's (the language forced to CUDA); none when the
/// database has no CUDA command. \p Holder is the file that holds CUDA code
/// (\p File or one it includes).
static std::optional<CompileCommand>
nearestCudaCommand(const CompilationDatabase &DB, llvm::StringRef File,
                   llvm::StringRef Holder) {
  std::optional<CompileCommand> Best;
  size_t BestShared = 0;
  for (CompileCommand &C : DB.getAllCompileCommands()) {
    if (!isCudaCommand(C))
      continue;
    size_t Shared = 0;
    for (auto A = llvm::sys::path::begin(File),
              B = llvm::sys::path::begin(C.Filename),
              AE = llvm::sys::path::end(File),
              BE = llvm::sys::path::end(C.Filename);
         A != AE && B != BE && *A == *B; ++A, ++B)
      ++Shared;
    if (!Best || Shared > BestShared) {
      Best = std::move(C);
      BestShared = Shared;
    }
  }
  if (!Best)
    return std::nullopt;
  std::string From = Best->Filename;
  CompileCommand T = transferCompileCommand(std::move(*Best), File);
  // transferCompileCommand gives a header its own language (c++-header):
  // the file is read as the CUDA it holds.
  std::vector<std::string> Args;
  for (size_t I = 0; I < T.CommandLine.size(); ++I) {
    llvm::StringRef A = T.CommandLine[I];
    if (I > 0 && A == "-x" && I + 1 < T.CommandLine.size()) {
      ++I;
      continue;
    }
    if (I > 0 && A.starts_with("-x") && A.size() > 2)
      continue;
    if (A == "--")
      Args.insert(Args.end(),
                  {"-x", isNvccCommand(T.CommandLine) ? "cu" : "cuda"});
    Args.push_back(A.str());
  }
  T.CommandLine = std::move(Args);
  T.Heuristic =
      "inferred from the CUDA file '" + From + "' (" +
      (Holder == File ? std::string("the file")
                      : "'" + Holder.str() + "', which it includes,") +
      " holds CUDA code)";
  return T;
}

ResolvedCommand maxcode::resolveCompileCommand(const LoadedDatabase &DB,
                                               llvm::StringRef File) {
  std::string Abs = makeAbsolutePath(File);
  ResolvedCommand R;
  std::vector<CompileCommand> Own = DB.Raw->getCompileCommands(Abs);
  if (!Own.empty()) {
    R.Command = Own.front();
    return R;
  }
  std::vector<CompileCommand> Inferred = DB.Database->getCompileCommands(Abs);
  if (!Inferred.empty()) {
    R.Command = Inferred.front();
    // A header of CUDA code inferred from a C++ neighbour would be read as
    // C++ (no CUDA types, no kernels): the nearest CUDA command is its own.
    if (!isCudaCommand(R.Command))
      if (auto Holder = holdsCudaCode(Abs, commandFolders(R.Command)))
        if (auto C = nearestCudaCommand(*DB.Raw, Abs, *Holder))
          R.Command = std::move(*C);
    R.Fallback = R.Command.Heuristic.empty()
                     ? std::string("an inferred command")
                     : R.Command.Heuristic;
    return R;
  }
  // An empty database: the default command for the file's language.
  bool Cuda = isCudaFileName(Abs);
  R.Command.Directory = std::string(llvm::sys::path::parent_path(Abs));
  R.Command.Filename = Abs;
  R.Command.CommandLine = {"clang++", "-x", Cuda ? "cuda" : "c++", "-std=c++17",
                           Abs};
  R.Fallback = "the default command 'clang++ -x " +
               std::string(Cuda ? "cuda" : "c++") + " -std=c++17'";
  return R;
}

void maxcode::warnIfFallback(const ResolvedCommand &RC, llvm::StringRef Source,
                             const LoadedDatabase &DB,
                             llvm::raw_ostream &Diags) {
  if (!RC.Fallback.empty())
    llvm::WithColor::warning(Diags, "clang-maxcode")
        << "'" << Source << "' is not in " << DB.Origin << "; using "
        << RC.Fallback << "\n";
}
