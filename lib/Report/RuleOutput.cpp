//===-- RuleOutput.cpp - What the rules modes print -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/RuleOutput.h"
#include "maxcode/Report/TargetList.h"
#include "maxcode/Support/Diff.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

void maxcode::printRuleList(const RuleSelection &Selection,
                            llvm::raw_ostream &OS) {
  size_t Width = 0;
  for (const std::unique_ptr<Rule> &R : getAllRules())
    Width = std::max(Width, R->getId().size());
  for (const std::unique_ptr<Rule> &R : getAllRules()) {
    OS << R->getId();
    OS.indent(Width - R->getId().size() + 2);
    OS << R->getSummary();
    if (!Selection.isEnabled(R->getId()))
      OS << (R->isOnByDefault()
                 ? " (off)"
                 : " (off: retired, in no verified winner; --rules naming "
                   "it turns it on)");
    OS << "\n";
  }
}

/// The variants in the order they are numbered: the target's, then the
/// rest of the file's.
static std::vector<const Variant *> numbered(const VariantListing &L) {
  std::vector<const Variant *> Out;
  for (const Variant &V : L.OfTarget)
    Out.push_back(&V);
  for (const Variant &V : L.Elsewhere)
    Out.push_back(&V);
  return Out;
}

void maxcode::printVariantListing(const VariantListing &L,
                                  llvm::StringRef ShownName,
                                  llvm::raw_ostream &OS) {
  auto Count = [](size_t K) {
    return std::to_string(K) + (K == 1 ? " variant" : " variants");
  };
  std::string Shown = ShownName.ltrim('/').str();
  unsigned N = 0;
  auto Print = [&](const Variant &V) {
    OS << "variant " << ++N << " [";
    for (size_t J = 0; J < V.Rules.size(); ++J)
      OS << (J ? "," : "") << V.Rules[J];
    OS << "]: " << V.Description << "\n";
    OS << unifiedDiff(L.Code, V.Text, "a/" + Shown, "b/" + Shown);
  };
  OS << "target " << L.T.Name << " (" << targetKindName(L.T.Kind) << ", "
     << llvm::sys::path::filename(L.File) << ":" << L.T.Line << "-"
     << L.T.EndLine << "): " << Count(L.OfTarget.size()) << "\n";
  for (const Variant &V : L.OfTarget)
    Print(V);
  if (!L.Elsewhere.empty()) {
    OS << "elsewhere in the file: " << Count(L.Elsewhere.size()) << "\n";
    for (const Variant &V : L.Elsewhere)
      Print(V);
  }
  // Not listed, not counted: the rules that made them are to blame.
  if (!L.Rejected.empty()) {
    OS << "rejected by the compiler: " << Count(L.Rejected.size()) << "\n";
    for (const RejectedVariant &R : L.Rejected)
      OS << "  [" << llvm::join(R.Rules, ",") << "] " << R.Description << ": "
         << R.Compiler << ": " << R.Error << "\n";
  }
  if (!L.Unchanged.empty()) {
    OS << "no new code (nothing to measure): " << Count(L.Unchanged.size())
       << "\n";
    for (const RejectedVariant &R : L.Unchanged)
      OS << "  [" << llvm::join(R.Rules, ",") << "] " << R.Description << ": "
         << R.Error << "\n";
  }
}

void maxcode::printVariantListingJSON(const VariantListing &L,
                                      llvm::StringRef ShownName,
                                      llvm::raw_ostream &OS) {
  std::string Shown = ShownName.ltrim('/').str();
  auto Strings = [](llvm::json::OStream &J, llvm::StringRef Name,
                    llvm::ArrayRef<std::string> Values) {
    J.attributeArray(Name, [&] {
      for (const std::string &V : Values)
        J.value(V);
    });
  };
  llvm::json::OStream J(OS, /*IndentSize=*/2);
  unsigned N = 0;
  auto Write = [&](const Variant &V, llvm::StringRef Changes) {
    J.object([&] {
      J.attribute("number", ++N);
      Strings(J, "rules", V.Rules);
      J.attribute("description", V.Description);
      J.attribute("changes", Changes);
      J.attributeArray("places", [&] {
        for (const VariantChange &C : V.Changes)
          J.object([&] {
            J.attribute("function", C.Where);
            J.attribute("what", C.What);
          });
      });
      J.attribute("diff",
                  unifiedDiff(L.Code, V.Text, "a/" + Shown, "b/" + Shown));
    });
  };
  J.object([&] {
    J.attribute("version", JSONOutputVersion);
    J.attributeBegin("target");
    writeTargetJSON(J, L.T);
    J.attributeEnd();
    J.attributeArray("variants", [&] {
      for (const Variant &V : L.OfTarget)
        Write(V, "target");
      for (const Variant &V : L.Elsewhere)
        Write(V, "file");
    });
    J.attributeArray("rejected", [&] {
      for (const RejectedVariant &R : L.Rejected)
        J.object([&] {
          Strings(J, "rules", R.Rules);
          J.attribute("description", R.Description);
          J.attribute("compiler", R.Compiler);
          J.attribute("error", R.Error);
        });
    });
    J.attributeArray("unchanged", [&] {
      for (const RejectedVariant &R : L.Unchanged)
        J.object([&] {
          Strings(J, "rules", R.Rules);
          J.attribute("description", R.Description);
          J.attribute("reason", R.Error);
        });
    });
  });
  OS << "\n";
}

llvm::Error maxcode::writeVariantFiles(const VariantListing &L,
                                       llvm::StringRef Dir) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError("cannot create '" + Dir +
                                   "': " + EC.message());
  unsigned N = 0;
  for (const Variant *V : numbered(L)) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, "variant-" + llvm::Twine(++N) +
                                      llvm::sys::path::extension(L.File));
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (!EC) {
      OS << V->Text;
      OS.close();
      EC = OS.error();
    }
    if (EC)
      return llvm::createStringError("cannot write '" + Path +
                                     "': " + EC.message());
  }
  return llvm::Error::success();
}

void maxcode::printCritique(const Critique &C, llvm::raw_ostream &OS) {
  OS << C.Text << "tags:";
  for (CritiqueTag T : C.Tags)
    OS << " " << critiqueTagName(T);
  OS << "\nblamed:";
  for (const std::string &Id : C.BlamedRules)
    OS << " " << Id;
  OS << "\n";
}
