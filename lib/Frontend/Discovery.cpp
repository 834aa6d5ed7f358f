//===-- Discovery.cpp - Step 1 of a run -----------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Profile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

llvm::Expected<std::vector<Target>>
maxcode::discoverAndRank(const LoadedDatabase &DB,
                         llvm::ArrayRef<std::string> Sources,
                         const DiscoveryOptions &Opts, llvm::raw_ostream &Diags,
                         DiscoveryReport *Report) {
  std::vector<Target> All;
  for (const std::string &Source : Sources) {
    std::string File = makeAbsolutePath(Source);
    if (!llvm::sys::fs::exists(File))
      return llvm::createStringError("source file '" + Source +
                                     "' does not exist");
    ResolvedCommand RC = resolveCompileCommand(DB, File);
    warnIfFallback(RC, Source, DB, Diags);
    auto Parsed =
        parseFile(RC.Command, File, Opts.Settings, Diags, std::nullopt, nullptr,
                  ParseErrors::BlockTheirTargets);
    if (!Parsed)
      return Parsed.takeError();
    std::vector<BlockedTarget> Blocked;
    std::vector<Target> Targets = discoverTargets(*Parsed, &Blocked);
    if (Report) {
      Report->ParseErrors += Parsed->Errors.size();
      std::move(Blocked.begin(), Blocked.end(),
                std::back_inserter(Report->Blocked));
    }
    std::move(Targets.begin(), Targets.end(), std::back_inserter(All));
  }
  if (!Opts.ProfileCommand.empty()) {
    auto Profile = runUnderCallgrind(Opts.ProfileCommand, Opts.ProfileDirectory,
                                     Opts.ProfileTimeoutSeconds);
    if (!Profile)
      return Profile.takeError();
    attributeProfile(*Profile, All);
  }
  rankTargets(All);
  return All;
}
