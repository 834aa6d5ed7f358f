//===-- maxcode/LSP/OptimizeRunner.h - Searches for editors -----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the server needs from a search: start it on one target of a saved
/// file, hear about its progress, stop it, and get the verified winner. The
/// server depends on this interface only; ClangMaxcodeRunner implements it by
/// running the clang-maxcode executable installed beside maxcode-lsp, so the
/// editor gets exactly what the command line gives (docs/Editors.md has the
/// command-line contract it relies on).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_OPTIMIZERUNNER_H
#define MAXCODE_LSP_OPTIMIZERUNNER_H

#include "maxcode/Support/Config.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {
namespace lsp {

struct OptimizeRequest {
  std::string File;   ///< Absolute path of the saved source file.
  std::string Target; ///< Qualified name, as discovery lists it.
  /// Folder holding the compile database; empty when none was found (the
  /// search then uses the default command, as code actions do).
  std::string BuildPath;
  std::string WorkingDir; ///< Where the search runs (relative commands).
  MaxcodeOptions Options;
};

/// One step of a running search.
struct OptimizeProgress {
  unsigned Evaluations = 0; ///< Done so far.
  unsigned Budget = 0;      ///< Total; 0 when unknown.
  double BestSpeedup = 1.0; ///< Best verified-so-far speedup.
  /// The search's estimate of the time its evaluations still take, in
  /// seconds; absent when it gave none.
  std::optional<double> SecondsLeft;
};

struct OptimizeResult {
  bool Improved = false; ///< A winner above the noise was verified.
  std::string Target;
  std::string File;
  double Speedup = 1.0;
  double Noise = 0;
  /// Verified, but below --min-speedup: never sent as an edit.
  bool BelowMinSpeedup = false;
  double MinSpeedup = 1.0;
  /// Verified, but it adds mutable static state the settings do not allow:
  /// never sent as an edit; the review note says where.
  std::string Refused;
  unsigned Evaluations = 0;
  /// How the verification's figure falls short of a confirmed speedup
  /// ("unconfirmed", "unverified", "suspect"; empty when it does not) and
  /// why, in the verification's words (docs/Evaluation.md, rules 9, 10).
  std::string Verdict, VerdictReason;
  /// The whole new text of the file (when Improved).
  std::string NewText;
  std::string Description;
  std::vector<std::string> Rules;
};

/// The error a run returns when it was stopped through its cancel flag.
class CancelledError : public llvm::ErrorInfo<CancelledError> {
public:
  static char ID;
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
};

using ProgressFn = llvm::function_ref<void(const OptimizeProgress &)>;

class OptimizeRunner {
public:
  virtual ~OptimizeRunner();
  /// Runs one search to its end. \p Progress is called (from any thread, one
  /// call at a time) as evaluations finish. Once \p Cancel reads true the
  /// search is stopped soon and a CancelledError returned. Other errors say
  /// why the search could not run or failed, in words for the user.
  virtual llvm::Expected<OptimizeResult>
  run(const OptimizeRequest &Request, ProgressFn Progress,
      const std::atomic<bool> &Cancel) = 0;
};

/// Runs `clang-maxcode <file> --target=NAME ... --format=json
/// --progress-file=F` as a child process, follows the progress file it
/// appends to, and reads the JSON document it prints.
class ClangMaxcodeRunner : public OptimizeRunner {
public:
  explicit ClangMaxcodeRunner(std::string Executable)
      : Executable(std::move(Executable)) {}
  llvm::Expected<OptimizeResult> run(const OptimizeRequest &Request,
                                     ProgressFn Progress,
                                     const std::atomic<bool> &Cancel) override;

private:
  std::string Executable;
};

/// The clang-maxcode command line for \p Request (argv, \p Executable first).
std::vector<std::string> buildOptimizeCommand(llvm::StringRef Executable,
                                              const OptimizeRequest &Request,
                                              llvm::StringRef ProgressFile);

/// Reads the document `clang-maxcode --format=json` prints after a search
/// (version 1).
llvm::Expected<OptimizeResult> parseOptimizeOutput(llvm::StringRef JSON);

/// Reads one line of the progress file; none for a line that is not one
/// (a partial or foreign line is skipped, never fatal).
std::optional<OptimizeProgress> parseProgressLine(llvm::StringRef Line);

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_OPTIMIZERUNNER_H
