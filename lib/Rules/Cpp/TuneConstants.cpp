//===-- TuneConstants.cpp - One variant per value of each knob ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Knob tuning (Knobs.h): one variant per value of each tile size, block
// size, unroll factor and marked literal, nearest values first; never
// folded into the variant that combines the other rules.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "maxcode/Rules/Knobs.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace maxcode;
using namespace clang;

namespace {

class TuneConstantsRule : public Rule {
public:
  TuneConstantsRule()
      : Rule("tune-constants",
             "one variant per value of each knob: tile and block sizes, "
             "unroll factors, literals marked `// maxcode: tune(...)`",
             "tuned constant") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    for (const Knob &K : findKnobs(Ctx)) {
      // Only the user's constants: an unroll count or a buffer size the
      // search itself wrote is not a knob of theirs (it tuned the count of
      // an unroll pragma it had just added, which GCC ignores).
      if (!Ctx.isUserCode(K.Loc))
        continue;
      auto R = Ctx.getEditRange(SourceRange(K.Loc));
      if (!R)
        continue;
      for (int64_t V : K.Values) {
        double Score =
            20 - (K.Current > 0 && V > 0
                      ? std::abs(std::log2((double)V / (double)K.Current))
                      : 1.0);
        if (K.Kind == KnobKind::Marked)
          Score += 2; // The user asked for this one.
        RuleEdit E = makeEdit(
            llvm::formatv("{0} = {1} (was {2})", K.Name, V, K.Current).str(),
            Score);
        E.Group = llvm::formatv("knob:{0}@{1}", K.Name, K.Line).str();
        E.Combinable = false;
        if (addReplacement(E, Ctx, *R, std::to_string(V)))
          Out.push_back(std::move(E));
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createTuneConstantsRule() {
  return std::make_unique<TuneConstantsRule>();
}
