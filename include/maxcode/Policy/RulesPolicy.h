//===-- maxcode/Policy/RulesPolicy.h - The built-in proposer ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The `rules` policy as a Proposer: the observed node's text is parsed, the
/// target found in it again, and the rule catalogue (RulesProposer.h)
/// proposes variants of it, steered by the critiques on the path.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULESPOLICY_H
#define MAXCODE_POLICY_RULESPOLICY_H

#include "maxcode/Policy/Policy.h"
#include "maxcode/Rules/Rule.h"
#include "clang/Tooling/CompilationDatabase.h"

namespace maxcode {

class RulesProposer : public Proposer {
public:
  RulesProposer(clang::tooling::CompileCommand Command, std::string File,
                ParseSettings Settings, RuleSelection Selection,
                RuleOptions Options, uint64_t Seed)
      : Command(std::move(Command)), File(std::move(File)),
        Settings(std::move(Settings)), Selection(std::move(Selection)),
        Options(std::move(Options)), Seed(Seed) {}
  llvm::StringRef name() const override { return "rules"; }
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned K) override;

private:
  clang::tooling::CompileCommand Command;
  std::string File;
  ParseSettings Settings;
  RuleSelection Selection;
  RuleOptions Options;
  uint64_t Seed;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_RULESPOLICY_H
