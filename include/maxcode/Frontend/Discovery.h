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
  /// The longest a --profile-cmd may run (the search's driver runs it).
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

/// One file's targets and the parses that see them: the host parse (the only
/// one of a C++ file) and, for a CUDA file whose text tests `__CUDA_ARCH__`,
/// the device-side parse, for the kernels and device functions only it sees.
/// Whatever reads or edits a target (the rules, the prompts, the editor) reads
/// it through the parse that saw it.
struct FileTargets {
  ParsedFile Host;
  std::optional<ParsedFile> Device;
  std::vector<Target> Targets; ///< In source order.
  std::vector<BlockedTarget> Blocked;

  /// The parse that saw \p T.
  ParsedFile &parseOf(const Target &T) {
    return T.DevicePass && Device ? *Device : Host;
  }
  /// The target named \p Name (qualified), or null.
  const Target *find(llvm::StringRef Name) const;
  /// The target that is \p Like in this text (a variant of the one \p Like
  /// was found in): the one of its name, and among several (overloads) the
  /// one with its USR, else the one nearest its line; null when none has
  /// its name.
  const Target *find(const Target &Like) const;
};

/// The one pipeline from a file's command to its targets: parses \p File
/// (with \p Contents in place of its text when given) as \p Command builds
/// it, lists its targets, and adds what only the device pass sees. \p Errors
/// is the host parse's policy; the device pass always blocks only the
/// targets its errors touch (it reads host code as errors), and one that
/// fails leaves the host's targets, with a warning to \p Diags.
llvm::Expected<FileTargets>
parseTargets(const clang::tooling::CompileCommand &Command,
             llvm::StringRef File, const ParseSettings &Settings,
             llvm::raw_ostream &Diags,
             std::optional<llvm::StringRef> Contents = std::nullopt,
             ParseErrors Errors = ParseErrors::BlockTheirTargets);

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
