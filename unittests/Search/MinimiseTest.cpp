//===-- MinimiseTest.cpp - The smallest winning diff ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The minimiser over a winner of three edits, measured by a backend whose
// speedup comes from the edits named FAST alone: the edit that changes
// nothing is dropped, the ones that matter are kept, a warning's edit goes
// first, the budget and the final verification are honoured.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Minimise.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Search/Engine.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

/// Each line "FAST" in a variant's text is worth a factor; nothing else
/// changes its speed.
class EditBackend : public EvaluationBackend {
public:
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                   const Target &) override {
    std::vector<EvalResult> Out;
    for (const Variant &V : Vs) {
      Evaluated.push_back(V.Text);
      Out.push_back(measure(V.Text));
    }
    return Out;
  }
  EvalResult verify(const Variant &V, const Target &, unsigned) override {
    Verified.push_back(V.Text);
    EvalResult R = measure(V.Text);
    if (VerifySlower)
      R.Ratio = R.RawRatio = 1.0;
    return R;
  }
  bool noisy() const override { return false; }

  static EvalResult measure(llvm::StringRef Text) {
    EvalResult R;
    R.Status = EvalStatus::Ok;
    R.Ratio = 1;
    size_t At = 0;
    while ((At = Text.find("FAST", At)) != llvm::StringRef::npos) {
      R.Ratio *= 1.5;
      At += 4;
    }
    R.RawRatio = R.Ratio;
    R.Noise = 0.01;
    return R;
  }

  std::vector<std::string> Evaluated, Verified;
  bool VerifySlower = false;
};

const char *Original = "a\nb\nc\nd\ne\nf\ng\n";
// Edits: line 2 (FAST), line 4 (a rename that changes nothing), line 6
// (FAST); each spells names of its own (a name two edits share binds
// them).
const char *Winner = "a\nFAST1 b\nc\nD\ne\nFAST2 f\ng\n";

struct Minimised {
  EditBackend Backend;
  Variant W;
  EvalResult Searched, Verified;
  MinimiseOutcome Out;

  explicit Minimised(unsigned Budget = 16, bool VerifySlower = false,
                     unsigned WarningLine = 0, llvm::StringRef Text = Winner) {
    Backend.VerifySlower = VerifySlower;
    W.Text = Text.str();
    W.Description = "the winner";
    Searched = EditBackend::measure(W.Text);
    Verified = Searched;
    if (WarningLine)
      Verified.Diagnostics.push_back(
          {WarningLine, 1, "warning", "unused variable 'D'"});
    MinimiseInput In;
    In.Original = Original;
    In.WinnerText = W.Text;
    In.Winner = &W;
    In.Searched = &Searched;
    In.Verified = &Verified;
    In.Budget = Budget;
    Target T;
    T.Name = "work";
    Out = minimiseWinner(Backend, T, In);
  }
};

TEST(MinimiseTest, DropsTheEditTheSpeedupDoesNotNeed) {
  Minimised M;
  EXPECT_EQ(M.Out.M.Outcome, "1 of 3 edits dropped");
  EXPECT_EQ(M.Out.Text, "a\nFAST1 b\nc\nd\ne\nFAST2 f\ng\n");
  ASSERT_EQ(M.Out.M.Edits.size(), 3u);
  EXPECT_FALSE(M.Out.M.Edits[0].Dropped);
  EXPECT_TRUE(M.Out.M.Edits[1].Dropped);
  EXPECT_EQ(M.Out.M.Edits[1].Line, 4u);
  EXPECT_FALSE(M.Out.M.Edits[2].Dropped);
  // One evaluation per edit, and the smaller winner verified once.
  EXPECT_EQ(M.Out.M.Evaluations, 3u);
  EXPECT_EQ(M.Backend.Verified.size(), 1u);
  ASSERT_TRUE(M.Out.Verification);
  EXPECT_DOUBLE_EQ(M.Out.Verification->Ratio, 2.25);
  EXPECT_EQ(M.Out.M.UnminimisedText, Winner);
}

TEST(MinimiseTest, EditsANewNameBindsGoTogether) {
  // The speed is in the edit that declares W2 (an array hoisted under a
  // new name); the edit that reads it by that name changes no speed. Left
  // out alone, it would leave W2 declared and the old name read: the two
  // go together or not at all.
  Minimised M(16, false, 0, "a\nFAST int W2;\nc\nd\ne\nf W2\ng\n");
  EXPECT_EQ(M.Out.M.Outcome, "every edit is needed");
  for (const std::string &Text : M.Backend.Evaluated)
    EXPECT_EQ(Text.find("W2") == std::string::npos,
              Text.find("f W2") == std::string::npos)
        << Text;
  // A name the original spells binds nothing.
  Minimised Old(16, false, 0, "a\nFAST b\nc\nd\ne\nf b\ng\n");
  EXPECT_EQ(Old.Out.M.Outcome, "1 of 2 edits dropped");
  EXPECT_EQ(Old.Out.Text, "a\nFAST b\nc\nd\ne\nf\ng\n");
}

TEST(MinimiseTest, KeepsEveryEditThatMatters) {
  Minimised M(16, false, 0, "a\nFAST1 b\nc\nFAST2 d\ne\nFAST3 f\ng\n");
  EXPECT_EQ(M.Out.M.Outcome, "every edit is needed");
  EXPECT_TRUE(M.Out.Text.empty());
  EXPECT_FALSE(M.Out.Verification);
  EXPECT_EQ(M.Out.M.dropped(), 0u);
}

TEST(MinimiseTest, ASmallerWinnerThatDoesNotHoldUpIsNotReported) {
  Minimised M(16, /*VerifySlower=*/true);
  EXPECT_NE(M.Out.M.Outcome.find("did not hold up on verification"),
            std::string::npos)
      << M.Out.M.Outcome;
  EXPECT_TRUE(M.Out.Text.empty());
  EXPECT_FALSE(M.Out.Verification);
}

TEST(MinimiseTest, TheBudgetIsRespected) {
  Minimised M(/*Budget=*/1);
  EXPECT_LE(M.Backend.Evaluated.size(), 1u);
  EXPECT_EQ(M.Out.M.Evaluations, M.Backend.Evaluated.size());
  // The first edit left out loses the speedup; nothing else was tried.
  EXPECT_EQ(M.Out.M.Outcome,
            "no edit dropped within the budget of evaluations");
}

TEST(MinimiseTest, AnEditWithAWarningGoesFirst) {
  // The verified winner warns on line 4, the edit that changes nothing.
  Minimised M(16, false, /*WarningLine=*/4);
  ASSERT_EQ(M.Out.M.Edits.size(), 3u);
  EXPECT_EQ(M.Out.M.Edits[1].Warning, "unused variable 'D'");
  EXPECT_TRUE(M.Out.M.Edits[1].Dropped);
  EXPECT_NE(M.Out.M.Edits[1].Why.find("adds a compiler warning"),
            std::string::npos)
      << M.Out.M.Edits[1].Why;
  // The first candidate is the winner without it.
  ASSERT_FALSE(M.Backend.Evaluated.empty());
  EXPECT_EQ(M.Backend.Evaluated.front(), "a\nFAST1 b\nc\nd\ne\nFAST2 f\ng\n");
}

TEST(MinimiseTest, OneEditHasNothingToDrop) {
  Minimised M(16, false, 0, "a\nFAST1 b\nc\nd\ne\nf\ng\n");
  EXPECT_EQ(M.Out.M.Outcome, "one edit: nothing to drop");
  EXPECT_TRUE(M.Backend.Evaluated.empty());
}

TEST(MinimiseTest, KeepsSpeedupWithinTheNoise) {
  EvalResult Ref = EditBackend::measure("FAST FAST"); // 2.25x
  EvalResult Close = Ref, Far = Ref, Suspect = Ref;
  Close.RawRatio = Close.Ratio = 2.24;
  Far.RawRatio = Far.Ratio = 1.5;
  Suspect.Suspect = true;
  EXPECT_TRUE(keepsSpeedup(Close, Ref));
  EXPECT_FALSE(keepsSpeedup(Far, Ref));
  EXPECT_FALSE(keepsSpeedup(Suspect, Ref));
}

} // namespace
