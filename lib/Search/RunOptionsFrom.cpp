//===-- RunOptionsFrom.cpp - The options model into a run's options -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The settings become a run's: checked whole once, here. Each part reads
// the settings it acts on from RunOptions::Settings (or the EvalConfig and
// SearchConfig made from it) where it acts.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rules/Rule.h"
#include "maxcode/Search/Driver.h"

using namespace maxcode;

llvm::Error maxcode::applyOptions(const EffectiveOptions &Settings,
                                  RunOptions &Opts) {
  if (llvm::Error E = validateOptions(Settings))
    return E;
  // The rules' options are checked against the rules, which the options
  // model does not know.
  std::map<std::string, std::string> RuleOptions;
  for (const RuleOptionEntry &E : Settings.CheckOptions)
    if (llvm::Error Err =
            parseRuleOptionAssignment(E.Key + "=" + E.Value, RuleOptions))
      return Err;
  Opts.Settings = Settings;
  Opts.RuleCheckOptions = std::move(RuleOptions);
  Opts.Identity = runIdentity(Settings);
  return llvm::Error::success();
}
