//===-- NvccAdjuster.cpp - nvcc commands translated for Clang -------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/NvccAdjuster.h"
#include "NvccFlags.h"
#include "maxcode/Frontend/Prelude.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Process.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"
#include <mutex>

#define DEBUG_TYPE "maxcode-frontend"

using namespace maxcode;
using namespace maxcode::nvcc;

bool maxcode::isCudaFileName(llvm::StringRef File) {
  llvm::StringRef Ext = llvm::sys::path::extension(File);
  return Ext.equals_insensitive(".cu") || Ext.equals_insensitive(".cuh");
}

bool maxcode::compilesAsCuda(llvm::ArrayRef<std::string> Args,
                             llvm::StringRef File) {
  // A compiler cache in front of the compiler (`ccache nvcc ...`).
  while (!Args.empty() &&
         (llvm::sys::path::filename(Args.front()) == "ccache" ||
          llvm::sys::path::filename(Args.front()) == "sccache"))
    Args = Args.drop_front();
  // nvcc, or a wrapper that is nvcc to its project (Kokkos' nvcc_wrapper).
  if (isNvccCommand(Args) ||
      (!Args.empty() &&
       llvm::sys::path::filename(Args.front()).starts_with("nvcc")))
    return true;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    llvm::StringRef Language;
    if (A == "-x" && I + 1 < Args.size())
      Language = Args[I + 1];
    else if (A.starts_with("-x") && A.size() > 2)
      Language = A.drop_front(2);
    else
      continue;
    return Language == "cuda" || Language == "cu";
  }
  return isCudaFileName(File);
}

/// The folder of headers the host compiler has and Clang's resource folder
/// lacks (GCC's omp.h above all), searched after every other folder so that
/// Clang's own builtin headers still win: what nvcc's host compiler, or the
/// project's GCC, finds there, Clang then finds too.
static void addHostCompilerHeaders(llvm::StringRef Compiler,
                                   const ParseSettings &S,
                                   std::vector<std::string> &Out) {
  if (!S.HostCompilerIncludeDir)
    return;
  std::string Dir = S.HostCompilerIncludeDir(Compiler);
  if (Dir.empty())
    return;
  Out.push_back("-idirafter");
  Out.push_back(Dir);
}

std::string maxcode::clangGpuArchFor(llvm::StringRef A) {
  A = A.trim().trim("\"'");
  if (!(A.consume_front("sm_") || A.consume_front("compute_") ||
        A.consume_front("lto_")))
    return "";
  // A trailing letter (sm_90a, sm_100f) names a feature set of the same major
  // version.
  llvm::StringRef Digits = A.take_while(llvm::isDigit);
  unsigned Num = 0;
  if (Digits.empty() || Digits.getAsInteger(10, Num))
    return "";
  llvm::StringRef Suffix = A.drop_front(Digits.size());
  // Clang knows none older than sm_20 (CUDA 13's nvcc none older than
  // sm_75); a host-only parse does not depend on it.
  if (Num < 20)
    return OldestClangGpuArch;
  if (Num <= 90)
    return "sm_" + Digits.str() + (Num == 90 && Suffix == "a" ? "a" : "");
  // Clang 22's architectures past sm_90, each also with an "a" feature set;
  // an "f" family (sm_100f), or a number it does not know, is parsed as the
  // nearest one below it.
  static constexpr unsigned Known[] = {100, 101, 103, 110, 120, 121};
  unsigned Nearest = 90;
  for (unsigned K : Known)
    if (K <= Num)
      Nearest = K;
  if (Nearest == 90)
    return "sm_90";
  return "sm_" + std::to_string(Nearest) +
         (Nearest == Num && Suffix == "a" ? "a" : "");
}

bool maxcode::isGccCommand(llvm::ArrayRef<std::string> Argv) {
  if (Argv.empty())
    return false;
  llvm::StringRef Base = llvm::sys::path::filename(Argv.front());
  if (Base.contains("clang") || Base.contains("nvcc"))
    return false;
  // g++, gcc, g++-12, x86_64-linux-gnu-g++-12, and the c++/cc links Debian
  // points at GCC.
  return Base.contains("g++") || Base.contains("gcc") || Base == "c++" ||
         Base == "cc";
}

bool maxcode::isNvccCommand(llvm::ArrayRef<std::string> Args) {
  if (Args.empty())
    return false;
  llvm::StringRef Base = llvm::sys::path::filename(Args.front());
  return Base == "nvcc" || Base.starts_with("nvcc-") || Base == "nvcc.exe";
}

/// Inlines an options file; a file that cannot be read is passed on for
/// clang to report.
static void inlineOptionsFile(llvm::StringRef Path, llvm::StringRef Directory,
                              std::vector<std::string> &Out) {
  llvm::SmallString<256> Full(Path);
  if (!llvm::sys::path::is_absolute(Full) && !Directory.empty()) {
    Full = Directory;
    llvm::sys::path::append(Full, Path);
  }
  auto Buf = llvm::MemoryBuffer::getFile(Full);
  if (!Buf) {
    Out.push_back("@" + std::string(Full));
    return;
  }
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 32> Tokens;
  llvm::cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Tokens);
  for (const char *T : Tokens)
    if (T)
      Out.emplace_back(T);
}

/// \p Args with the options files they name (--options-file F, @F)
/// inlined.
static std::vector<std::string>
expandOptionsFiles(llvm::ArrayRef<std::string> Args,
                   llvm::StringRef Directory) {
  std::vector<std::string> In;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    std::string Value;
    bool Joined;
    const NvccFlag *F = I ? lookupNvccFlag(A, Value, Joined) : nullptr;
    if (F && F->Action == NvccAction::OptionsFile) {
      if (!Joined && I + 1 < Args.size())
        Value = Args[++I];
      inlineOptionsFile(Value, Directory, In);
    } else if (I && A.starts_with("@")) {
      inlineOptionsFile(A.drop_front(), Directory, In);
    } else {
      In.push_back(A.str());
    }
  }
  return In;
}

/// The GPU architectures named in \p Value, a comma-separated -arch list,
/// appended to \p Arches.
static void addArchList(llvm::StringRef Value,
                        std::vector<std::string> &Arches) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Value.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    std::string Arch = clangGpuArchFor(P);
    if (!Arch.empty())
      Arches.push_back(Arch);
  }
}

/// The GPU architectures named in \p Value, a -gencode
/// "arch=...,code=..." (brackets and braces allowed), appended to \p Arches.
static void addGencodeArches(const std::string &Value,
                             std::vector<std::string> &Arches) {
  std::string V = Value;
  for (char &C : V)
    if (C == '[' || C == ']' || C == '"' || C == '{' || C == '}')
      C = ',';
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::StringRef(V).split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    P.consume_front("arch=");
    P.consume_front("code=");
    std::string Arch = clangGpuArchFor(P);
    if (!Arch.empty())
      Arches.push_back(Arch);
  }
}

/// The host compiler flags of an -Xcompiler \p Value, appended to \p Out.
static void addHostFlags(llvm::StringRef Value, std::vector<std::string> &Out) {
  // nvcc splits the value on commas and hands it to the host compiler
  // through a shell, so "-Xcompiler '-fopenmp -O3'" is two flags.
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Value.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    llvm::SmallVector<llvm::StringRef, 2> Words;
    llvm::SplitString(P, Words);
    for (llvm::StringRef W : Words)
      Out.push_back(W.str());
  }
}

namespace {
/// One translation of an nvcc command (translateNvccArguments): the clang
/// arguments so far and what the flags said that is added at the end.
struct NvccTranslation {
  explicit NvccTranslation(std::vector<std::string> *Dropped)
      : Dropped(Dropped) {}

  /// Records \p A, a flag (and its value) left out.
  void drop(llvm::StringRef A) {
    if (Dropped)
      Dropped->push_back(A.str());
  }
  /// Translates \p A, a flag of the table, with its \p Value (joined to it
  /// by '=' when \p Joined).
  void apply(const NvccFlag &F, llvm::StringRef A, const std::string &Value,
             bool Joined);

  std::vector<std::string> Out;
  std::vector<std::string> Arches;
  bool Rdc = false;
  // nvcc's default host compiler on Linux.
  std::string HostCompiler = "g++";
  std::vector<std::string> *Dropped;
};

void NvccTranslation::apply(const NvccFlag &F, llvm::StringRef A,
                            const std::string &Value, bool Joined) {
  switch (F.Action) {
  case NvccAction::Drop:
  case NvccAction::OptionsFile:
    drop(Joined || !F.TakesValue ? A.str() : A.str() + " " + Value);
    break;
  case NvccAction::LinkOnly:
    drop(A);
    break;
  case NvccAction::WarningKinds: // Handled before the value is taken.
    break;
  case NvccAction::Translate:
    Out.push_back(std::string(F.Replacement) + (F.TakesValue ? Value : ""));
    break;
  case NvccAction::Arch:
    addArchList(Value, Arches);
    break;
  case NvccAction::Gencode:
    addGencodeArches(Value, Arches);
    break;
  case NvccAction::HostFlags:
    addHostFlags(Value, Out);
    break;
  case NvccAction::HostCompiler:
    HostCompiler = Value;
    drop(Joined ? A.str() : A.str() + " " + Value);
    break;
  case NvccAction::IncludePath:
    Out.push_back("-I" + Value);
    break;
  case NvccAction::SystemInclude:
    Out.push_back("-isystem");
    Out.push_back(Value);
    break;
  case NvccAction::PreInclude:
    Out.push_back("-include");
    Out.push_back(Value);
    break;
  case NvccAction::DefineMacro:
    Out.push_back("-D" + Value);
    break;
  case NvccAction::UndefineMacro:
    Out.push_back("-U" + Value);
    break;
  case NvccAction::Compile:
    Out.push_back("-c");
    break;
  case NvccAction::FastMath:
    Out.push_back("-ffast-math");
    break;
  case NvccAction::Rdc:
    Rdc = llvm::StringRef(Value).equals_insensitive("true");
    break;
  case NvccAction::DeviceC:
    Rdc = true;
    Out.push_back("-c");
    break;
  case NvccAction::Std:
    Out.push_back("-std=" + Value);
    break;
  case NvccAction::DefaultStream:
    if (Value == "per-thread")
      Out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
    break;
  case NvccAction::Language:
    Out.push_back("-x");
    Out.push_back(Value == "cu" ? "cuda" : Value);
    break;
  }
}
} // namespace

std::vector<std::string> maxcode::translateNvccArguments(
    llvm::ArrayRef<std::string> Args, llvm::StringRef Directory,
    const ParseSettings &S, std::vector<std::string> *Dropped) {
  // Options files first: the clang driver library does not expand them.
  std::vector<std::string> In = expandOptionsFiles(Args, Directory);

  NvccTranslation T(Dropped);
  T.Out.push_back(S.ClangPath.empty() ? std::string("clang++") : S.ClangPath);
  for (size_t I = 1; I < In.size(); ++I) {
    llvm::StringRef A = In[I];
    std::string Value;
    bool Joined;
    const NvccFlag *F = lookupNvccFlag(A, Value, Joined);
    if (!F) {
      T.Out.push_back(A.str());
      continue;
    }
    // nvcc's -Werror takes a list of its own warning kinds; without one it
    // is the host compiler's -Werror (-Werror=foo: one of its warnings).
    if (F->Action == NvccAction::WarningKinds) {
      std::string Kinds =
          Joined ? Value : (I + 1 < In.size() ? In[I + 1] : std::string());
      if (!isNvccWarningKindList(Kinds)) {
        T.Out.push_back(A.str());
        continue;
      }
      if (!Joined)
        ++I;
      T.drop(Joined ? A.str() : A.str() + " " + Kinds);
      continue;
    }
    if (F->TakesValue && !Joined) {
      if (I + 1 >= In.size()) {
        T.drop(A);
        continue;
      }
      Value = In[++I];
    }
    T.apply(*F, A, Value, Joined);
  }
  std::vector<std::string> Added;
  if (T.Rdc)
    Added.push_back("-fgpu-rdc");
  // Exactly one architecture: several would make several device ASTs, of
  // which tooling uses one anyway. The last one named is the newest in the
  // usual CMake order.
  Added.push_back("--cuda-gpu-arch=" + (T.Arches.empty()
                                            ? std::string(NewestClangGpuArch)
                                            : T.Arches.back()));
  addHostCompilerHeaders(T.HostCompiler, S, Added);
  // Before the "--" that an inferred command (a header's) puts before its
  // file: what follows it is read as file names.
  auto Pos = std::find(T.Out.begin() + 1, T.Out.end(), "--");
  T.Out.insert(Pos, Added.begin(), Added.end());
  return std::move(T.Out);
}

/// True when \p Word, a word after a flag, names an existing file (relative
/// to \p Directory): an input of the command, never a flag's value.
static bool namesFile(llvm::StringRef Word, llvm::StringRef Directory) {
  llvm::SmallString<256> Path(Word);
  if (!llvm::sys::path::is_absolute(Path) && !Directory.empty()) {
    Path = Directory;
    llvm::sys::path::append(Path, Word);
  }
  return llvm::sys::fs::exists(Path);
}

/// Removes from \p Out (a Clang command line, argv[0] first) every option
/// Clang's driver does not know or does not support, appending each (with
/// its value) to \p Unknown. A flag newer than the nvcc table, or a host
/// compiler's flag Clang lacks, would otherwise stop the driver before the
/// file is read ("unknown argument"), so that nothing is listed; the build
/// still uses it. An unknown flag without "=" takes the next word with it
/// when that word is not an option and names no file: nvcc's and GCC's
/// flags take their value either way.
static void dropUnknownOptions(std::vector<std::string> &Out,
                               llvm::StringRef Directory,
                               std::vector<std::string> *Unknown) {
  std::vector<const char *> Argv;
  for (size_t I = 1; I < Out.size(); ++I)
    Argv.push_back(Out[I].c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Parsed = clang::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(clang::options::ClangOption));
  std::vector<bool> Remove(Out.size(), false);
  for (const llvm::opt::Arg *A : Parsed) {
    const llvm::opt::Option &O = A->getOption();
    if (O.getKind() != llvm::opt::Option::UnknownClass &&
        !O.hasFlag(clang::options::Unsupported))
      continue;
    size_t I = A->getIndex() + 1;
    if (I >= Out.size() || Remove[I])
      continue;
    Remove[I] = true;
    std::string Flag = Out[I];
    llvm::StringRef Next;
    if (I + 1 < Out.size())
      Next = Out[I + 1];
    if (O.getKind() == llvm::opt::Option::UnknownClass &&
        !llvm::StringRef(Flag).contains('=') && !Next.empty() &&
        !Next.starts_with("-") && !namesFile(Next, Directory)) {
      Remove[I + 1] = true;
      Flag += " " + Next.str();
    }
    if (Unknown)
      Unknown->push_back(std::move(Flag));
  }
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Out.size(); ++I)
    if (!Remove[I])
      Kept.push_back(std::move(Out[I]));
  Out = std::move(Kept);
}

bool maxcode::isSpelledForNvcc(llvm::ArrayRef<std::string> Flags) {
  std::vector<const char *> Argv;
  for (const std::string &F : Flags)
    Argv.push_back(F.c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Parsed = clang::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(clang::options::ClangOption));
  for (const llvm::opt::Arg *A : Parsed) {
    llvm::StringRef Spelling = Flags[A->getIndex()];
    std::string Value;
    bool Joined = false;
    const nvcc::NvccFlag *Row = nvcc::lookupNvccFlag(Spelling, Value, Joined);
    if (!Row)
      continue;
    // Unknown to Clang, or nvcc's host-compiler pass-through (Clang's
    // driver lists a hidden `-Xcompiler` flag that takes no value).
    if (A->getOption().getKind() == llvm::opt::Option::UnknownClass ||
        Row->Action == nvcc::NvccAction::HostFlags)
      return true;
    if (Spelling == "-arch" && A->getNumValues() == 1 &&
        !clangGpuArchFor(A->getValue()).empty())
      return true;
  }
  return false;
}

std::vector<std::string>
maxcode::adjustForParsing(llvm::ArrayRef<std::string> Args,
                          llvm::StringRef File, llvm::StringRef Directory,
                          const ParseSettings &S,
                          std::vector<std::string> *Unknown) {
  bool Nvcc = isNvccCommand(Args);
  std::vector<std::string> Out =
      Nvcc ? translateNvccArguments(Args, Directory, S) : Args.vec();
  // A database entry with an empty command still gets a driver name in front
  // of the options added below; Clang then says what is missing.
  if (Out.empty())
    Out.push_back("clang++");
  dropUnknownOptions(Out, Directory, Unknown);
  std::vector<std::string> Extra;
  // The include folder checked to be GCC's: c++ and cc may be Clang.
  if (isGccCommand(Args))
    addHostCompilerHeaders(Args.front(), S, Extra);
  bool Cuda = compilesAsCuda(Args, File);
  // Options go before the file name and any "--" that precedes it.
  auto Pos = Out.end();
  for (auto It = Out.begin() + 1; It != Out.end(); ++It)
    if (*It == "--") {
      Pos = It;
      break;
    }
  if (!llvm::any_of(Out, [](const std::string &A) {
        return llvm::StringRef(A).starts_with("-resource-dir");
      }))
    Extra.push_back("-resource-dir=" + S.ResourceDir);
  if (Cuda) {
    if (!llvm::any_of(Out, [](const std::string &A) {
          return llvm::StringRef(A).starts_with("--cuda-gpu-arch");
        }))
      Extra.push_back(std::string("--cuda-gpu-arch=") + NewestClangGpuArch);
    Extra.insert(Extra.end(), {"--cuda-path=" + S.CudaPath, "--cuda-host-only",
                               "-Wno-unknown-cuda-version", "-isystem",
                               S.CudaPath + "/include/cccl"});
  }
  // A header given as the main file (its targets listed) is no mistake, and
  // a warning is no error when the code is only read (-Werror may come from
  // the project, for its own compiler's warnings).
  // Every error is seen, however many come before it: a file with more
  // errors than Clang's default limit (20, then a fatal "too many errors")
  // would otherwise list nothing, and each error blocks only the targets it
  // touches.
  Extra.push_back("-ferror-limit=0");
  // `obj.template f(x)` with no template arguments: nvcc (a warning) and
  // GCC accept it, Clang makes it an error by default; where `f` turns out
  // not to be a template, Clang still rejects the instantiation, which then
  // blocks only its own targets (docs/CUDA.md, "template-keyword").
  Extra.push_back("-Wno-missing-template-arg-list-after-template-kw");
  Extra.push_back("-Wno-pragma-once-outside-header");
  Extra.push_back("-Wno-error");
  Extra.push_back("-Qunused-arguments");
  Out.insert(Pos, Extra.begin(), Extra.end());
  // The compatibility header goes first, before any -include of the
  // project's: it stands for what nvcc itself declares.
  if (Cuda && !S.CompatHeader.empty())
    Out.insert(Out.begin() + 1, {"-include", S.CompatHeader});
  return Out;
}

ParseSettings maxcode::getDefaultParseSettings(const char *Argv0,
                                               void *MainAddr) {
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  S.CudaPath = MAXCODE_CUDA_PATH;
  if (auto V = llvm::sys::Process::GetEnv("MAXCODE_CLANG_RESOURCE_DIR"))
    S.ResourceDir = *V;
  if (auto V = llvm::sys::Process::GetEnv("MAXCODE_CUDA_PATH"))
    S.CudaPath = *V;
  llvm::SmallString<256> ClangPath(S.ResourceDir);
  // <llvm>/lib/clang/22 -> <llvm>/bin/clang++
  llvm::sys::path::remove_filename(ClangPath);
  llvm::sys::path::remove_filename(ClangPath);
  llvm::sys::path::remove_filename(ClangPath);
  llvm::sys::path::append(ClangPath, "bin", "clang++");
  S.ClangPath = std::string(ClangPath);
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, MainAddr);
  llvm::SmallString<256> Compat(llvm::sys::path::parent_path(Exe));
  llvm::sys::path::append(Compat, "..", MAXCODE_RESOURCE_SUBDIR, "cuda-compat",
                          "maxcode_cuda_compat.h");
  llvm::sys::path::remove_dots(Compat, /*remove_dot_dot=*/true);
  S.CompatHeader = std::string(Compat);
  S.HostCompilerIncludeDir = findGccIncludeDir;
  S.PreludeCacheDir = defaultPreludeCacheDir();
  return S;
}

std::string maxcode::findGccIncludeDir(llvm::StringRef Compiler) {
  static std::mutex Lock;
  static llvm::StringMap<std::string> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Cache.find(Compiler);
  if (It != Cache.end())
    return It->second;
  std::string &Dir = Cache[Compiler];
  // nvcc's -ccbin may name the folder holding the compiler.
  std::string Program = Compiler.str();
  if (llvm::sys::fs::is_directory(Program)) {
    llvm::SmallString<256> Gxx(Program);
    llvm::sys::path::append(Gxx, "g++");
    Program = std::string(Gxx);
  }
  ProcessSpec Spec;
  Spec.Argv = {Program, "-print-file-name=include"};
  Spec.Limits.WallSeconds = 30;
  auto R = runProcess(Spec);
  if (!R) {
    llvm::Error E = R.takeError();
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": no GCC include folder from '" << Program
                  << "': " << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
    return Dir;
  }
  if (!R->succeeded())
    return Dir;
  llvm::StringRef Printed = llvm::StringRef(R->Stdout).trim();
  // Only GCC's own folder (.../lib/gcc/<triple>/<version>/include): another
  // compiler's builtin headers would fight Clang's.
  if (llvm::sys::fs::is_directory(Printed) &&
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(Printed),
                                          llvm::sys::path::end(Printed)),
                         "gcc"))
    Dir = Printed.str();
  return Dir;
}

std::string maxcode::gccPredefinedMacros(llvm::ArrayRef<std::string> Argv,
                                         llvm::StringRef Directory) {
  if (Argv.empty())
    return "";
  // The command without its inputs, outputs, dependency files and forced
  // includes (whose guards would then hide them from the parse that reads
  // these macros): what decides the predefined macros.
  static constexpr llvm::StringLiteral Dropped[] = {
      "-o", "-MF", "-MT", "-MQ", "-x", "-include", "-imacros"};
  static constexpr llvm::StringLiteral Kept[] = {
      "-I",         "-D",        "-U",        "-isystem", "-iquote",
      "-idirafter", "-isysroot", "--sysroot", "-target",  "--target"};
  std::vector<std::string> Args = {Argv.front()};
  std::string Language = "c++";
  for (size_t I = 1; I < Argv.size(); ++I) {
    llvm::StringRef A = Argv[I];
    bool HasNext = I + 1 < Argv.size();
    if (llvm::is_contained(Dropped, A)) {
      if (A == "-x" && HasNext)
        Language = Argv[I + 1];
      ++I;
      continue;
    }
    if (llvm::is_contained(Kept, A)) {
      Args.push_back(A.str());
      if (HasNext)
        Args.push_back(Argv[++I]);
      continue;
    }
    if (!A.starts_with("-")) { // An input.
      if (llvm::sys::path::extension(A) == ".c")
        Language = "c";
      continue;
    }
    if (A == "-c" || A.starts_with("-M") || A.starts_with("-x") ||
        A.starts_with("-include") || A.starts_with("-imacros"))
      continue;
    Args.push_back(A.str());
  }
  Args.insert(Args.end(), {"-dM", "-E", "-x", Language, "/dev/null"});
  ProcessSpec Spec;
  Spec.Argv = std::move(Args);
  Spec.WorkingDir = Directory.str();
  Spec.Limits.WallSeconds = 30;
  auto R = runProcess(Spec);
  if (!R) {
    llvm::Error E = R.takeError();
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": no predefined macros from '"
                               << Argv.front() << "': "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
    return "";
  }
  return R->succeeded() ? R->Stdout : "";
}
