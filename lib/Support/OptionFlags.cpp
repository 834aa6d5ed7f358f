//===-- OptionFlags.cpp - Options as flags --------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/OptionFlags.h"
#include "llvm/ADT/StringExtras.h"

using namespace maxcode;
namespace cl = llvm::cl;

/// One option's flag. Every value is read as text and parsed by the model,
/// so that a flag, a file and a setting are parsed alike and their errors
/// name the key; only switches and lists take cl's own shapes.
struct OptionFlags::Binding {
  const OptionInfo &Info;
  std::unique_ptr<cl::Option> Owned;
  cl::Option *Opt = nullptr;
  // cl keeps StringRefs to these.
  std::string ValueName, Help;

  explicit Binding(const OptionInfo &I) : Info(I) {}
  ~Binding() {
    // A registered option that is gone would be left in cl's registry.
    if (Owned)
      Owned->removeArgument();
  }

  std::vector<std::string> values() const {
    switch (Info.Type) {
    case OptionType::Bool:
      return {static_cast<cl::opt<bool> *>(Opt)->getValue() ? "true" : "false"};
    case OptionType::List:
    case OptionType::RuleOptions: {
      auto *L = static_cast<cl::list<std::string> *>(Opt);
      return std::vector<std::string>(L->begin(), L->end());
    }
    default:
      return {static_cast<cl::opt<std::string> *>(Opt)->getValue()};
    }
  }
};

OptionFlags::OptionFlags(cl::OptionCategory &Category,
                         llvm::ArrayRef<cl::opt<std::string> *> Adopt) {
  for (const OptionInfo &I : optionTable()) {
    auto B = std::make_unique<Binding>(I);
    std::vector<llvm::StringRef> Names = I.valueNames();
    B->ValueName = Names.empty() ? I.ValueName.str() : llvm::join(Names, "|");
    std::string Default = I.defaultText();
    std::string Help = I.Help.str();
    // A switch is off unless given; "default" says nothing more.
    if (!Default.empty() && Default != "default" && I.Type != OptionType::Bool)
      Help += " (default " + Default + ")";
    auto Adopted = llvm::find_if(
        Adopt, [&](cl::opt<std::string> *O) { return O->ArgStr == I.Flag; });
    if (Adopted != Adopt.end()) {
      B->Opt = *Adopted;
      (*Adopted)->setInitialValue(Default);
    } else if (I.Type == OptionType::Bool) {
      B->Owned = std::make_unique<cl::opt<bool>>(llvm::StringRef(I.Flag));
    } else if (I.Type == OptionType::List) {
      B->Owned = std::make_unique<cl::list<std::string>>(
          llvm::StringRef(I.Flag), cl::CommaSeparated);
    } else if (I.Type == OptionType::RuleOptions) {
      B->Owned =
          std::make_unique<cl::list<std::string>>(llvm::StringRef(I.Flag));
    } else {
      B->Owned =
          std::make_unique<cl::opt<std::string>>(llvm::StringRef(I.Flag));
    }
    if (B->Owned)
      B->Opt = B->Owned.get();
    B->Opt->setDescription(B->Help = Help);
    if (!B->ValueName.empty())
      B->Opt->setValueStr(B->ValueName);
    B->Opt->addCategory(Category);
    Bindings.push_back(std::move(B));
  }
}

OptionFlags::~OptionFlags() = default;

llvm::Expected<MaxcodeOptions> OptionFlags::collect() const {
  MaxcodeOptions O;
  for (const auto &B : Bindings) {
    if (!B->Opt->getNumOccurrences())
      continue;
    if (llvm::Error E = O.setFromStrings(B->Info.Key, B->values()))
      return E;
  }
  return O;
}
