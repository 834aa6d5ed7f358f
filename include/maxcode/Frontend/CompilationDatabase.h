//===-- maxcode/Frontend/CompilationDatabase.h - Finding commands -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Loading the compile database (-p, found upward from the sources as clangd
/// does, or the flags after --), and resolving one compile command per source
/// with clangd's fallbacks when a file is not in the database.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_COMPILATIONDATABASE_H
#define MAXCODE_FRONTEND_COMPILATIONDATABASE_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// The database of the flags after "--" in \p Argv (\p Argc is cut to
/// what comes before), as clang-tidy's, or null when there is no "--".
/// Flags spelled for nvcc (`-arch=sm_90`, `-gencode ...`, `-Xcompiler`,
/// `--use_fast_math`, `-rdc=true`: nvcc's table knows them, Clang's driver
/// does not) make an nvcc command for CUDA files, translated for parsing
/// and built as a database's nvcc command is. \p Error says what is wrong
/// with them otherwise.
std::unique_ptr<clang::tooling::CompilationDatabase>
loadFlagsAfterDashDash(int &Argc, const char *const *Argv, std::string &Error);

/// A compile database and where it came from, for messages.
struct LoadedDatabase {
  /// The database with clangd's interpolation for files it does not list.
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// The database as loaded (owned by Database), to tell listed files apart.
  clang::tooling::CompilationDatabase *Raw = nullptr;
  /// "build/compile_commands.json", or "the flags after --".
  std::string Origin;
};

/// Loads the database for \p Sources. \p FlagsAfterDashDash is the database
/// made from the flags after `--` (null if there was no `--`), which the
/// caller may keep using; it wins over \p BuildPath. Without either,
/// compile_commands.json (or compile_flags.txt) is searched upward from each
/// source, in each folder and its build/ subfolder, as clangd does. Errors name
/// the missing or malformed input.
llvm::Expected<LoadedDatabase> loadCompilationDatabase(
    llvm::StringRef BuildPath,
    std::shared_ptr<clang::tooling::CompilationDatabase> FlagsAfterDashDash,
    llvm::ArrayRef<std::string> Sources);

/// The command used for one source, and how it was chosen.
struct ResolvedCommand {
  clang::tooling::CompileCommand Command;
  /// Empty when the file was in the database; otherwise a phrase saying what
  /// was used instead ("inferred from 'src/a.cpp'").
  std::string Fallback;
};

/// Resolves the command for \p File (made absolute): the database's own entry,
/// else one inferred from the nearest entry (clangd's interpolation), else a
/// default command for the file's language.
ResolvedCommand resolveCompileCommand(const LoadedDatabase &DB,
                                      llvm::StringRef File);

/// Warns on \p Diags when \p RC, the command resolved for \p Source, is not
/// \p DB's own entry, saying what was used instead.
void warnIfFallback(const ResolvedCommand &RC, llvm::StringRef Source,
                    const LoadedDatabase &DB, llvm::raw_ostream &Diags);

/// Makes \p Path absolute against the current directory, with dots removed.
std::string makeAbsolutePath(llvm::StringRef Path);

/// The folders a compile command reads besides the system's: include and
/// library folders, forced includes, response files, the compiler's own
/// installation when it is not under /usr, and the command's directory.
/// Relative paths are the command's directory's. What the sandbox shows a
/// build, and where a header's includes are looked for.
std::vector<std::string>
commandFolders(const clang::tooling::CompileCommand &C);

} // namespace maxcode

#endif // MAXCODE_FRONTEND_COMPILATIONDATABASE_H
