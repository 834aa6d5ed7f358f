//===-- CudaLaunchBounds.cpp - __launch_bounds__ from the launches --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `__launch_bounds__(N)` (and `(N, 2)`, `(N, 4)` as alternatives) on a
// kernel whose every launch in the file has a literal block size, N the
// largest: the compiler may then spend registers knowing the block size.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

class CudaLaunchBoundsRule : public Rule {
public:
  CudaLaunchBoundsRule()
      : Rule("cuda-launch-bounds",
             "__launch_bounds__ with the largest block size the file launches "
             "the kernel with",
             "__launch_bounds__", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    for (const FunctionDecl *K : deviceFunctions(Ctx, true)) {
      if (!isCudaKernel(K) || K->hasAttr<CUDALaunchBoundsAttr>())
        continue;
      std::vector<const CUDAKernelCallExpr *> Launches =
          findKernelLaunches(AST, K);
      if (Launches.empty())
        continue;
      int64_t Max = 0;
      bool Known = true;
      for (const CUDAKernelCallExpr *L : Launches) {
        std::optional<int64_t> B = launchBlockSize(L, AST);
        if (!B || *B <= 0 || *B > 1024) {
          Known = false;
          break;
        }
        Max = std::max(Max, *B);
      }
      if (!Known)
        continue;
      // Right before the name: `__global__ void __launch_bounds__(N) k(...)`.
      auto Name =
          Ctx.getEditRange(SourceRange(SM.getExpansionLoc(K->getLocation())));
      if (!Name)
        continue;
      for (unsigned MinBlocks : {0u, 2u, 4u}) {
        // More resident blocks than fit in the thread budget make no sense.
        if (MinBlocks * Max > 2048)
          continue;
        std::string Attr =
            MinBlocks
                ? llvm::formatv("__launch_bounds__({0}, {1}) ", Max, MinBlocks)
                      .str()
                : llvm::formatv("__launch_bounds__({0}) ", Max).str();
        RuleEdit E = makeEdit(llvm::StringRef(Attr).rtrim().str() + " on " +
                                  K->getNameAsString(),
                              MinBlocks ? 26 - MinBlocks / 2.0 : 30);
        E.Group = "cuda-launch-bounds:" + K->getNameAsString();
        if (insertText(E, Ctx, Name->getBegin(), Attr))
          Out.push_back(std::move(E));
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaLaunchBoundsRule() {
  return std::make_unique<CudaLaunchBoundsRule>();
}
