//===-- maxcode/Report/TargetList.h - Printing targets ----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The output of --list-targets and --print-parse-command: a table or shell
/// lines for people, versioned JSON for programs (docs/JSONOutput.md).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_TARGETLIST_H
#define MAXCODE_REPORT_TARGETLIST_H

#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Target.h"
#include "clang/Tooling/CompilationDatabase.h"
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

/// The command lines Clang is given to parse each source: one shell line
/// each (`cd DIR && ARGS...`), or compile_commands.json entries under
/// "commands".
void printParseCommandsText(llvm::ArrayRef<clang::tooling::CompileCommand> Cs,
                            llvm::raw_ostream &OS);
void printParseCommandsJSON(llvm::ArrayRef<clang::tooling::CompileCommand> Cs,
                            llvm::raw_ostream &OS);

} // namespace maxcode

#endif // MAXCODE_REPORT_TARGETLIST_H
