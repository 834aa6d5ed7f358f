//===-- maxcode/Frontend/Discovery.h - Step 1 of a run ----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Discovery (DESIGN section 1, step 1): resolve each source's command, parse
/// it, list its targets, and rank them by a profile when one is given.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_DISCOVERY_H
#define MAXCODE_FRONTEND_DISCOVERY_H

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Target.h"

namespace maxcode {

struct DiscoveryOptions {
  ParseSettings Settings;
  /// Measure hotness by running this command under callgrind; empty for the
  /// static estimate.
  std::string ProfileCommand;
  /// Folder the profile command runs in; empty for the current one.
  std::string ProfileDirectory;
  double ProfileTimeoutSeconds = 600;
};

/// What discovery left out, over every source.
struct DiscoveryReport {
  /// Errors Clang reported; each blocks only the targets it touches.
  unsigned ParseErrors = 0;
  /// Targets left out because of an error, with the reason.
  std::vector<BlockedTarget> Blocked;
  /// A flag of a source's command that Clang does not know, left out of the
  /// parse (the build still uses it).
  struct UnknownFlag {
    std::string File;
    std::string Flag;
  };
  std::vector<UnknownFlag> UnknownFlags;
};

/// Targets of every source, ranked. Warnings (a source not in the database,
/// each flag Clang does not know, once per file) and clang's diagnostics go
/// to \p Diags. Errors block only the targets they
/// touch (ParseErrors::BlockTheirTargets); \p Report, when given, receives the
/// error count and the targets blocked.
llvm::Expected<std::vector<Target>>
discoverAndRank(const LoadedDatabase &DB, llvm::ArrayRef<std::string> Sources,
                const DiscoveryOptions &Opts, llvm::raw_ostream &Diags,
                DiscoveryReport *Report = nullptr);

} // namespace maxcode

#endif // MAXCODE_FRONTEND_DISCOVERY_H
