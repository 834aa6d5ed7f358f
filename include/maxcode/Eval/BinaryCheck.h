//===-- maxcode/Eval/BinaryCheck.h - The linked program's check -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The check behind the static screen (DESIGN section 4, rule 7): what the
/// linked program of a variant imports and which instructions it holds,
/// against the original's. The screen reads spellings; this reads what the
/// compiler and the linker made of them, so no spelling dodges it: a clock
/// reached through a template argument still imports the clock, bytes of
/// `rdtsc` placed in an executable section still disassemble as `rdtsc`.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_BINARYCHECK_H
#define MAXCODE_EVAL_BINARYCHECK_H

#include "maxcode/Support/Options.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <set>
#include <string>

namespace maxcode {

/// What a linked program holds that the check compares.
struct BinaryFacts {
  /// The library symbols it imports or copies in (its dynamic symbols; for
  /// a statically linked program, its symbol table) that the screen
  /// watches: name (demangled) -> --allow-api category key.
  std::map<std::string, std::string> WatchedSymbols;
  /// Instructions that read a clock, the processor or the kernel directly,
  /// or talk to valgrind ("rdtsc", "cpuid", "syscall", "valgrind client
  /// request"), counted in its executable sections.
  std::map<std::string, unsigned> Instructions;
  /// False where the instructions could not be read (not x86).
  bool InstructionsRead = false;
};

/// Reads \p Path, an ELF executable or shared object.
llvm::Expected<BinaryFacts> readBinaryFacts(llvm::StringRef Path);

/// Why \p Variant is refused beside \p Original ("the linked program
/// imports clock_gettime (clock), which the original's does not"), or
/// nothing. \p AllowApis are --allow-api's names or category keys; an
/// instruction's name is its key ("rdtsc") and its category's ("clock").
/// \p Names name --allow-api in the reason.
std::optional<std::string> judgeBinary(const BinaryFacts &Original,
                                       const BinaryFacts &Variant,
                                       llvm::ArrayRef<std::string> AllowApis,
                                       OptionNames Names);

} // namespace maxcode

#endif // MAXCODE_EVAL_BINARYCHECK_H
