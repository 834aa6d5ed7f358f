//===-- maxcode/Eval/WorkerTrees.h - Project mode's built trees -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Project mode builds once, then incrementally (docs/Evaluation.md,
/// "Building"): each build worker keeps a copy of the project, built. A
/// variant's build takes a free copy, swaps its file in, runs the user's
/// build command (which recompiles that file and relinks), and gives the copy
/// back with the original file restored. The first copy is made from the
/// user's tree and built in full (the baseline's build); every later one is
/// a copy of that built copy, so nothing is ever built from scratch twice.
/// Under bubblewrap a copy is shown at the project's own path, so a build
/// folder that names the project by absolute path (CMake's, Ninja's) works.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_WORKERTREES_H
#define MAXCODE_EVAL_WORKERTREES_H

#include "maxcode/Eval/Sandbox.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

class WorkerTrees {
public:
  /// Copies of \p ProjectRoot (without \p Excluded) in folders under
  /// \p ScratchRoot.
  WorkerTrees(std::string ProjectRoot, std::string ScratchRoot,
              std::vector<std::string> Excluded);

  struct Tree {
    std::optional<ScratchDir> Dir;
    std::string Path;   ///< The copy of the project.
    bool Built = false; ///< A build has run in it.
  };

  /// A free copy; when every copy is in use, a new one, made of the built
  /// copy given to seed(), else of the project itself. There are as many
  /// copies as builds have run at once.
  llvm::Expected<Tree *> acquire();
  /// Gives \p T back.
  void release(Tree *T);
  /// New copies are made from \p BuiltTree from now on.
  void seed(std::string BuiltTree);

private:
  std::string ProjectRoot, ScratchRoot;
  std::vector<std::string> Excluded;
  std::mutex M;
  std::vector<std::unique_ptr<Tree>> Trees;
  std::vector<Tree *> Free;
  std::string Seed;
};

} // namespace maxcode

#endif // MAXCODE_EVAL_WORKERTREES_H
