//===-- maxcode/Frontend/Prelude.h - A CUDA parse's shared prelude -*- C++ -*-//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every CUDA parse of one command family reads before the file's own
/// first line: Clang's CUDA runtime wrapper (the CUDA headers), the
/// compatibility header and the command's own -include files. It is the
/// same for every file built with the same flags, and half the parse of a
/// typical kernel file, so it is precompiled once (a PCH of an empty file
/// parsed with the family's command line) and kept in a cache folder across
/// files and runs, as clangd keeps preambles. Clang checks the PCH against
/// the command line and the headers it was built from when it loads it; one
/// it refuses is built again.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_PRELUDE_H
#define MAXCODE_FRONTEND_PRELUDE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace maxcode {

/// The family of a parse: \p ParseArgs (an adjusted command line, as
/// adjustForParsing writes it) without \p File, the outputs and -c.
/// Empty for a parse that is not CUDA's (a C++ parse has no prelude worth
/// keeping).
std::vector<std::string> preludeFamily(llvm::ArrayRef<std::string> ParseArgs,
                                       llvm::StringRef File,
                                       llvm::StringRef Directory);

/// The path of the precompiled prelude of \p Family (preludeFamily) run in
/// \p Directory, built into \p CacheDir if it is not there yet; empty when
/// it cannot be built (the parse then goes without, as before).
std::string precompiledPrelude(llvm::ArrayRef<std::string> Family,
                               llvm::StringRef Directory,
                               llvm::StringRef Extension,
                               llvm::StringRef CacheDir);

/// \p ParseArgs with `-include-pch PCH` before the file.
std::vector<std::string> withPrelude(llvm::ArrayRef<std::string> ParseArgs,
                                     llvm::StringRef PCH);

/// \p ParseArgs without the `-include-pch` withPrelude added.
std::vector<std::string> withoutPrelude(llvm::ArrayRef<std::string> ParseArgs);

/// True when \p Message, an error of a parse, is Clang refusing a
/// precompiled header (built for other flags or headers, or damaged).
bool isPreludeError(llvm::StringRef Message);

/// The default cache folder of precompiled preludes: MAXCODE_PCH_DIR, or
/// clang-maxcode/pch in the user's cache folder; empty (no PCH at all) when
/// MAXCODE_PCH_DIR is "off".
std::string defaultPreludeCacheDir();

} // namespace maxcode

#endif // MAXCODE_FRONTEND_PRELUDE_H
