//===-- maxcode/Rewrite/Minimisation.h - A winner's edits -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the minimiser (docs/Search.md, "Minimising the winner") found out
/// about a winner's edits: which of its hunks the speedup needs, which it
/// dropped and why. Plain data the search fills and the reports print.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_MINIMISATION_H
#define MAXCODE_REWRITE_MINIMISATION_H

#include <string>
#include <vector>

namespace maxcode {

/// One edit of a winner: a hunk of its diff against the original.
struct WinnerEdit {
  unsigned Line = 0;  ///< Its first line in the winner as found.
  unsigned Lines = 0; ///< Lines it adds or changes there (0: deletes only).
  std::string Text;   ///< Its first changed line, trimmed.
  /// A compiler warning on its lines in the winner's build, if any.
  std::string Warning;
  bool Dropped = false;
  /// Why it was dropped ("the speedup holds without it: ..."); empty when
  /// kept.
  std::string Why;
};

struct Minimisation {
  std::vector<WinnerEdit> Edits;
  /// One line per candidate evaluated: the edits it kept, what it measured.
  std::vector<std::string> Log;
  unsigned Evaluations = 0;
  /// The winner as the search found it and its verified ratio, when edits
  /// were dropped (the reported winner is then the smaller one).
  std::string UnminimisedText;
  double UnminimisedRatio = 0;
  /// One line: what became of it ("2 of 4 edits dropped", "every edit is
  /// needed", "the smaller winner did not hold up on verification: ...").
  std::string Outcome;

  unsigned dropped() const {
    unsigned N = 0;
    for (const WinnerEdit &E : Edits)
      N += E.Dropped;
    return N;
  }
};

/// A winner with the declarations it added that nothing needs taken out
/// (simplifyDeclarations, Simplify.h): plain data.
struct DeclSimplification {
  std::string Text;
  /// One line per change ("helper `copyBytes2` (line 40): nothing uses
  /// it"), in the order of the text.
  std::vector<std::string> Changes;
};

/// The size of a winner's diff as a reviewer reads it.
struct DiffSize {
  unsigned Added = 0;   ///< Lines added.
  unsigned Removed = 0; ///< Lines removed.
  /// Functions, types and variables it declares that the original does not.
  unsigned Helpers = 0;
  /// #include lines it adds.
  unsigned Includes = 0;
};

/// What made the verified winner smaller after the search, beside the
/// minimiser's hunks (docs/Search.md, "A winner a reviewer merges").
struct WinnerTidying {
  /// The declarations and includes taken out, and whether that held up.
  std::vector<std::string> Removed;
  std::string DeclOutcome;
  /// What became of the compiler hints the winner adds beside code whose
  /// share wall time did not confirm; empty when there were none.
  std::string HintsOutcome;
  /// The hints were taken out: the winner is no longer the text its node's
  /// search evaluation measured.
  bool HintsDropped = false;
  /// What became of asking the model for a plainer winner; empty when no
  /// model was asked.
  std::string ModelOutcome;
  /// The plainer winner's diff size against the one it replaced, when it
  /// was kept.
  bool ModelKept = false;
};

} // namespace maxcode

#endif // MAXCODE_REWRITE_MINIMISATION_H
