//===-- maxcode/Frontend/Profile.h - Measured hotness of targets -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// CPU profiles from valgrind's callgrind: reading its output format, and
/// mapping the cost to targets by linker name (--profile-cmd).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_PROFILE_H
#define MAXCODE_FRONTEND_PROFILE_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace maxcode {

/// The first event (Ir: instructions executed) of one or more callgrind
/// output files, and by line every event and the calls made.
struct CallgrindProfile {
  struct Call {
    std::string Callee;
    uint64_t Inclusive = 0; ///< Cost of the call, callees included.
  };
  struct Function {
    uint64_t Self = 0;
    std::vector<Call> Calls;
    /// Where callgrind found it: the source file ("???" without debug
    /// information) and the object (the program, or a shared library).
    std::string File, Object;
  };
  uint64_t Total = 0;
  /// By the name callgrind writes (mangled with --demangle=no).
  llvm::StringMap<Function> Functions;
  /// Self cost by (source file, line), for the critic's hot lines.
  std::map<std::pair<std::string, unsigned>, uint64_t> Lines;
  /// The events of the file ("Ir", and with --cache-sim and --branch-sim
  /// "D1mr", "DLmr", "Bc", "Bcm", ...), in the order of their columns.
  std::vector<std::string> Events;
  /// Every event's self cost by (source file, line), in Events' order; kept
  /// only when there is more than one event.
  std::map<std::pair<std::string, unsigned>, std::vector<uint64_t>> LineEvents;
  /// Calls made from each (source file, line): how many times the line
  /// called anything.
  std::map<std::pair<std::string, unsigned>, uint64_t> LineCalls;
  /// The inclusive cost (the first event) of those calls.
  std::map<std::pair<std::string, unsigned>, uint64_t> LineCallCost;

  void merge(const CallgrindProfile &Other);
};

/// Parses the text of one callgrind output file.
llvm::Expected<CallgrindProfile> parseCallgrind(llvm::StringRef Text);

/// Callgrind names a function's recursion levels "f'2", "f'3", ...: strips
/// that suffix.
llvm::StringRef callgrindBaseName(llvm::StringRef Name);

/// Sets each target's Share, what ranks it: the cost of its own code plus
/// the calls it makes into library code (another object, or a system
/// header's functions such as the standard library's templates, or code
/// with no source file), over the total. Calls into the program's own
/// functions, targets or not (another file's loader), are theirs, so that
/// `main` does not take everything and the shares of a program sum to at
/// most one. InclusiveShare, shown beside it, counts every call.
void attributeProfile(const CallgrindProfile &Profile,
                      std::vector<Target> &Targets);

/// The GPU time of one kernel over a whole run (a GPU profile).
struct KernelTime {
  std::string Mangled; ///< As the binary names it.
  /// Qualified, without return type, template arguments and parameters
  /// ("ops::scale"): matched when no target has the mangled name.
  std::string Name;
  uint64_t Nanoseconds = 0;
};

/// Sets each target's Share from a GPU profile: a kernel's time over the
/// run's total kernel time, matched by linker name, else by qualified name
/// (every instantiation of a template counts). Host and device functions get a
/// share of 0: their cost is not kernel time (a device function's is inside its
/// callers'), so the kernels rank first, by GPU time.
void attributeKernelTimes(llvm::ArrayRef<KernelTime> Times,
                          std::vector<Target> &Targets);

/// Runs \p Command (through /bin/sh, placed by \p Place: never in the
/// user's tree, see inTreeCopy) under `valgrind --tool=callgrind`, children
/// traced, and returns the merged profile of every process. Fails with the
/// command's output when it fails.
llvm::Expected<CallgrindProfile>
runUnderCallgrind(llvm::StringRef Command, const CommandPlacement &Place,
                  double TimeoutSeconds);

} // namespace maxcode

#endif // MAXCODE_FRONTEND_PROFILE_H
