//===-- ClangMaxcode.cpp - The clang-maxcode command line -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Options in, library calls out (DESIGN section 11 is the contract). Exit
/// codes: 0 success, 1 a user error, 2 an internal error.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Report/TargetList.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace llvm;

static cl::OptionCategory MaxcodeCategory("clang-maxcode options");

static cl::extrahelp CommonHelp(R"(
A compile database is taken from -p, found upward from the first source
(compile_commands.json in a folder or its build/ subfolder, as clangd does),
or made from the compiler flags given after --:

  clang-maxcode --list-targets -p build src/ops.cu
  clang-maxcode --list-targets prog.cpp -- -std=c++17
)");

static cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."),
                                     cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Build folder holding compile_commands.json"),
              cl::value_desc("dir"), cl::cat(MaxcodeCategory));
enum class OutputFormat { Text, JSON };
static cl::opt<OutputFormat> Format(
    "format", cl::desc("Output format"), cl::init(OutputFormat::Text),
    cl::values(clEnumValN(OutputFormat::Text, "text", "for people"),
               clEnumValN(OutputFormat::JSON, "json",
                          "versioned JSON (docs/JSONOutput.md)")),
    cl::cat(MaxcodeCategory));
static cl::opt<bool> ListTargets("list-targets",
                                 cl::desc("List the targets and exit"),
                                 cl::cat(MaxcodeCategory));
static cl::opt<std::string> ProfileCmd(
    "profile-cmd",
    cl::desc("Rank targets by running this command under callgrind"),
    cl::value_desc("cmd"), cl::cat(MaxcodeCategory));

static int userError(const Twine &Message) {
  WithColor::error(errs(), "clang-maxcode") << Message << "\n";
  return 1;
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Flags after "--" make a fixed database; strip them before parsing ours.
  std::string FixedError;
  std::unique_ptr<clang::tooling::CompilationDatabase> Fixed =
      clang::tooling::FixedCompilationDatabase::loadFromCommandLine(
          argc, argv, FixedError);
  cl::HideUnrelatedOptions(MaxcodeCategory);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "clang-maxcode: make C++ and CUDA code faster by measured search\n",
          &errs()))
    return 1;
  if (!FixedError.empty())
    return userError(FixedError);
  if (Sources.empty())
    return userError("no source file given (see --help)");
  if (!ListTargets)
    return userError("nothing to do: pass --list-targets");

  auto DB = loadCompilationDatabase(BuildPath, std::move(Fixed), Sources);
  if (!DB)
    return userError(toString(DB.takeError()));

  DiscoveryOptions Opts;
  Opts.Settings =
      getDefaultParseSettings(argv[0], reinterpret_cast<void *>(&userError));
  Opts.ProfileCommand = ProfileCmd;
  auto Targets = discoverAndRank(*DB, Sources, Opts, errs());
  if (!Targets)
    return userError(toString(Targets.takeError()));
  if (Format == OutputFormat::JSON)
    printTargetsJSON(*Targets, outs());
  else
    printTargetsText(*Targets, outs());
  return 0;
}
