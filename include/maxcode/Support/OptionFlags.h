//===-- maxcode/Support/OptionFlags.h - Options as flags --------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The command-line flags of the options model: one llvm::cl option per row
/// of Options.def, with the row's flag, help and value names, read back as a
/// MaxcodeOptions holding what the command line set.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_OPTIONFLAGS_H
#define MAXCODE_SUPPORT_OPTIONFLAGS_H

#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include <memory>
#include <vector>

namespace maxcode {

class OptionFlags {
public:
  /// Registers a flag for every option, in \p Category. A flag already
  /// registered as a string option by a library this tool links (libclang-cpp
  /// registers --executor) and named in \p Adopt is taken over instead.
  explicit OptionFlags(llvm::cl::OptionCategory &Category,
                       llvm::ArrayRef<llvm::cl::opt<std::string> *> Adopt = {});
  ~OptionFlags();
  OptionFlags(const OptionFlags &) = delete;
  OptionFlags &operator=(const OptionFlags &) = delete;

  /// What the parsed command line set. An OptionError naming the key when a
  /// value is not of the option's type.
  llvm::Expected<MaxcodeOptions> collect() const;

private:
  struct Binding;
  std::vector<std::unique_ptr<Binding>> Bindings;
};

} // namespace maxcode

#endif // MAXCODE_SUPPORT_OPTIONFLAGS_H
