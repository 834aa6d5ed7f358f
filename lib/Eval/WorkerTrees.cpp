//===-- WorkerTrees.cpp - Project mode's built trees ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/WorkerTrees.h"
#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace maxcode;

WorkerTrees::WorkerTrees(std::string ProjectRoot, std::string ScratchRoot,
                         std::vector<std::string> Excluded)
    : ProjectRoot(std::move(ProjectRoot)), ScratchRoot(std::move(ScratchRoot)),
      Excluded(std::move(Excluded)) {}

llvm::Expected<WorkerTrees::Tree *> WorkerTrees::acquire() {
  std::lock_guard<std::mutex> Lock(M);
  if (!Free.empty()) {
    Tree *T = Free.back();
    Free.pop_back();
    return T;
  }
  // A new copy, made under the lock: copies are made only while the first
  // builds start, and a second copy of the same seed would be no faster.
  auto Dir = ScratchDir::create("maxcode-worker", ScratchRoot);
  if (!Dir)
    return Dir.takeError();
  auto T = std::make_unique<Tree>();
  T->Dir.emplace(std::move(*Dir));
  llvm::SmallString<256> Path(T->Dir->path());
  llvm::sys::path::append(Path, "tree");
  T->Path = std::string(Path);
  bool FromSeed = !Seed.empty();
  auto Copied = copyTree(FromSeed ? Seed : ProjectRoot, T->Path,
                         FromSeed ? std::vector<std::string>() : Excluded);
  if (!Copied)
    return llvm::createStringError("cannot copy the project tree: " +
                                   llvm::toString(Copied.takeError()));
  if (int Uid = T->Dir->uid(); Uid >= 0)
    if (llvm::Error E = chownTree(T->Path, Uid, Uid))
      return E;
  T->Built = FromSeed;
  Trees.push_back(std::move(T));
  return Trees.back().get();
}

void WorkerTrees::release(Tree *T) {
  std::lock_guard<std::mutex> Lock(M);
  Free.push_back(T);
}

void WorkerTrees::seed(std::string BuiltTree) {
  std::lock_guard<std::mutex> Lock(M);
  Seed = std::move(BuiltTree);
}
