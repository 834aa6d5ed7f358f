//===-- RulesPolicy.cpp - The built-in proposer ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesPolicy.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Policy/RulesProposer.h"
#include "maxcode/Policy/VariantCheck.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

llvm::Expected<std::vector<Variant>>
RulesProposer::propose(const Observation &Obs, unsigned K) {
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  // Errors elsewhere in the file block only their own targets.
  auto Parsed = parseTargets(Command, File, Settings, DOS,
                             llvm::StringRef(Obs.CurrentText));
  if (!Parsed)
    return llvm::createStringError("the rules cannot read this node: " +
                                   llvm::toString(Parsed.takeError()));
  const Target *T = Parsed->find(Obs.OriginalTarget);
  if (!T)
    return llvm::createStringError("target '" + Obs.OriginalTarget.Name +
                                   "' is not in this node's text");
  llvm::StringSet<> Seen;
  for (const std::string &H : Obs.SeenTextHashes)
    Seen.insert(H);
  RuleRequest R;
  R.Parsed = &Parsed->parseOf(*T);
  R.T = T;
  R.OriginalText = Obs.OriginalText;
  R.Selection = Selection;
  R.Options = Options;
  R.Critiques = Obs.Critiques;
  // At the root, before any critique, the evidence says which rules suit
  // the original's hot lines.
  std::vector<Critique> FromEvidence;
  if (Obs.Critiques.empty() && Obs.Evidence && !Obs.Evidence->empty()) {
    FromEvidence.push_back(critiqueOfEvidence(*Obs.Evidence, Obs.OriginalText));
    R.Critiques = FromEvidence;
  }
  // Ask for enough that K remain once what the tree has seen is dropped.
  R.MaxCount = K + std::min<unsigned>(Obs.SeenTextHashes.size(), 64);
  R.Seed = Seed + Obs.Depth;
  std::vector<Variant> Proposed = proposeWithRules(R);
  // What the build compiler rejects, or builds to the current text's own
  // code, is neither evaluated nor counted.
  std::vector<RejectedVariant> Rejected;
  dropVariantsTheCompilerRejects(*R.Parsed, Proposed, Rejected, llvm::errs());
  std::vector<Variant> Out;
  for (Variant &V : Proposed) {
    if (Seen.count(variantHash(V.Text)))
      continue;
    Out.push_back(std::move(V));
    if (Out.size() == K)
      break;
  }
  return Out;
}
