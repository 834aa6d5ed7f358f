//===-- EvalOutputTest.cpp - Printing an evaluation -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/EvalOutput.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

EvalResult heldOutResult() {
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.Ratio = 1.0;
  R.RawRatio = 1.04;
  R.Noise = 0.05;
  R.Repetitions = 5;
  R.CostUnit = "seconds";
  R.BaselineCost = 0.5;
  R.VariantCost = 0.48;
  R.TimedOn = TimingSet::HeldOut;
  R.FeedbackRatio = 150;
  R.ShownInputsOnly = true;
  R.Reason = "fast only on the inputs it was shown";
  return R;
}

Target target() {
  Target T;
  T.Name = "solve";
  return T;
}

std::string text(const EvalResult &R, llvm::StringRef Integrity) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  printEvaluationText(R, target(), "v.cpp", Integrity, OS);
  return Out;
}

TEST(EvalOutputTest, TextSaysInsideTheNoiseAndWhoseInputsTimedIt) {
  std::string Out = text(heldOutResult(), "full");
  EXPECT_NE(Out.find("ratio: 1.000x (measured 1.040x, inside the noise)"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("timed on: held-out inputs (on the feedback inputs: "
                     "150.000x); fast only on the inputs it was shown"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("cost: 0.5000 s -> 0.4800 s"), std::string::npos) << Out;
  // Full integrity says nothing; a weaker one says why it is weaker.
  EXPECT_EQ(Out.find("integrity:"), std::string::npos) << Out;
  EXPECT_NE(text(heldOutResult(), "weaker (sandbox none)")
                .find("integrity: weaker (sandbox none): runs shared"),
            std::string::npos);
}

TEST(EvalOutputTest, TextNamesTheFirstFailureAndTheVariantsLines) {
  EvalResult R;
  R.Status = EvalStatus::WrongOutput;
  R.Reason = "wrong output";
  R.TestsTotal = 3;
  R.TestsPassed = 2;
  R.FirstFailure = TestFailure{"input.2.txt", 4, "10", "11", ""};
  R.Diagnostics.push_back({12, 3, "warning", "unused variable 'x'"});
  std::string Out = text(R, "full");
  EXPECT_NE(Out.find("tests: 2/3 passed"), std::string::npos) << Out;
  EXPECT_NE(Out.find("failed test: input.2.txt, line 4: expected '10', got "
                     "'11'"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("  v.cpp:12:3: warning: unused variable 'x'"),
            std::string::npos)
      << Out;
  // No ratio for a result that is not ok.
  EXPECT_EQ(Out.find("ratio:"), std::string::npos) << Out;
}

TEST(EvalOutputTest, JSONKeepsTheRatiosAndNamesTheRun) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  printEvaluationJSON(heldOutResult(), target(), "v.cpp", "full", OS);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getString("target"), "solve");
  EXPECT_EQ(O->getString("variant"), "v.cpp");
  EXPECT_EQ(O->getString("status"), "ok");
  EXPECT_EQ(O->getString("timed_on"), "held-out");
  EXPECT_EQ(O->getNumber("feedback_ratio"), 150);
  EXPECT_EQ(O->getBoolean("shown_inputs_only"), true);
  EXPECT_TRUE(O->getInteger("version").has_value());
}

} // namespace
