//===-- maxcode/Report/TargetList.h - Printing targets ----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The output of --list-targets: a table for people, versioned JSON for
/// programs (docs/JSONOutput.md).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_TARGETLIST_H
#define MAXCODE_REPORT_TARGETLIST_H

#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Target.h"
#include "llvm/Support/JSON.h"

namespace maxcode {

/// Version of every JSON document clang-maxcode writes.
constexpr int JSONOutputVersion = 1;

/// Writes one target as the object documented in docs/JSONOutput.md.
void writeTargetJSON(llvm::json::OStream &J, const Target &T);
/// The --list-targets output; \p Report adds the targets errors block and
/// the count of errors (docs/JSONOutput.md).
void printTargetsText(llvm::ArrayRef<Target> Targets, llvm::raw_ostream &OS,
                      const DiscoveryReport &Report = {});
void printTargetsJSON(llvm::ArrayRef<Target> Targets, llvm::raw_ostream &OS,
                      const DiscoveryReport &Report = {});

} // namespace maxcode

#endif // MAXCODE_REPORT_TARGETLIST_H
