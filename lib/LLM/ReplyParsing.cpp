//===-- ReplyParsing.cpp - Code in a model's reply ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/ReplyParsing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace maxcode;

namespace {
struct Fence {
  char Char = 0;
  size_t Length = 0;
  size_t Indent = 0;
  llvm::StringRef Info;
};
} // namespace

/// Reads a fence line. Models indent fences inside list items, so any
/// indentation is accepted, not only CommonMark's three spaces.
static bool parseFence(llvm::StringRef Line, Fence &F) {
  llvm::StringRef Rest = Line.ltrim(" \t");
  if (Rest.size() < 3 || (Rest[0] != '`' && Rest[0] != '~'))
    return false;
  F.Char = Rest[0];
  F.Indent = Line.size() - Rest.size();
  F.Length = Rest.find_first_not_of(F.Char);
  if (F.Length == llvm::StringRef::npos)
    F.Length = Rest.size();
  if (F.Length < 3)
    return false;
  F.Info = Rest.drop_front(F.Length).trim();
  // A backtick fence's info string cannot hold a backtick (CommonMark):
  // "```x```" is inline code, not a fence.
  return F.Char != '`' || !F.Info.contains('`');
}

std::vector<CodeBlock> maxcode::extractCodeBlocks(llvm::StringRef Reply) {
  std::vector<CodeBlock> Blocks;
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Reply.split(Lines, '\n');
  bool Inside = false;
  Fence Open;
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef Line = Lines[I].rtrim('\r');
    Fence F;
    if (!Inside) {
      if (!parseFence(Line, F))
        continue;
      Inside = true;
      Open = F;
      CodeBlock B;
      B.Language = F.Info.split(' ').first.split('\t').first.lower();
      B.Line = I + 1;
      B.Closed = false;
      Blocks.push_back(std::move(B));
      continue;
    }
    if (parseFence(Line, F) && F.Char == Open.Char && F.Length >= Open.Length &&
        F.Info.empty()) {
      Inside = false;
      Blocks.back().Closed = true;
      continue;
    }
    // Drop the opening fence's indentation from the code, as CommonMark.
    size_t Strip = 0;
    while (Strip < Open.Indent && Strip < Line.size() && Line[Strip] == ' ')
      ++Strip;
    Blocks.back().Code += Line.drop_front(Strip).str();
    Blocks.back().Code += '\n';
  }
  return Blocks;
}

bool maxcode::isSourceLanguage(llvm::StringRef Language) {
  static const char *const Known[] = {"",   "cpp", "c++",  "cxx",
                                      "cc", "c",   "cuda", "cu",
                                      "h",  "hpp", "cuh",  "hxx"};
  return llvm::is_contained(Known, Language.lower());
}

/// Whether \p Code mentions \p Name as a whole identifier.
static bool mentions(llvm::StringRef Code, llvm::StringRef Name) {
  auto IsIdent = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  for (size_t Pos = Code.find(Name); Pos != llvm::StringRef::npos;
       Pos = Code.find(Name, Pos + 1)) {
    bool Before = Pos > 0 && IsIdent(Code[Pos - 1]);
    size_t End = Pos + Name.size();
    bool After = End < Code.size() && IsIdent(Code[End]);
    if (!Before && !After)
      return true;
  }
  return false;
}

llvm::Expected<CodeBlock> maxcode::chooseCodeBlock(llvm::StringRef Reply,
                                                   llvm::StringRef TargetName) {
  // "ns::S::f" is written "f" in its definition, or "S::f" out of line.
  llvm::StringRef Ident = TargetName.rsplit("::").second;
  if (Ident.empty())
    Ident = TargetName;

  std::vector<CodeBlock> Blocks = extractCodeBlocks(Reply);
  if (Blocks.empty())
    return llvm::createStringError(
        "the reply has no fenced code block (```cpp ... ```)");

  bool SawSource = false, SawUnterminated = false;
  llvm::StringSet<> OtherLanguages;
  const CodeBlock *Chosen = nullptr;
  for (const CodeBlock &B : Blocks) {
    if (!isSourceLanguage(B.Language)) {
      OtherLanguages.insert(B.Language);
      continue;
    }
    if (!B.Closed) {
      SawUnterminated = true;
      continue;
    }
    if (llvm::StringRef(B.Code).trim().empty())
      continue;
    SawSource = true;
    if (Ident.empty() || mentions(B.Code, Ident))
      Chosen = &B;
  }
  if (Chosen)
    return *Chosen;
  if (SawSource)
    return llvm::createStringError(
        "no code block in the reply mentions '%s'; the reply must hold the "
        "full new definition of '%s'",
        Ident.str().c_str(), TargetName.str().c_str());
  if (SawUnterminated)
    return llvm::createStringError(
        "the reply's code block is not closed with ``` (the reply was "
        "probably cut off at the token limit)");
  if (!OtherLanguages.empty()) {
    std::vector<std::string> Names;
    for (const auto &L : OtherLanguages)
      Names.push_back(L.getKey().str());
    llvm::sort(Names);
    return llvm::createStringError(
        "the reply has code blocks only in other languages (%s), none in "
        "C++ or CUDA",
        llvm::join(Names, ", ").c_str());
  }
  return llvm::createStringError("the reply's code blocks are empty");
}

std::string maxcode::replyIdea(llvm::StringRef Reply) {
  // The lines inside fenced blocks are code, not the idea.
  std::vector<CodeBlock> Blocks = extractCodeBlocks(Reply);
  unsigned LineNo = 0;
  size_t Block = 0;
  unsigned SkipUntil = 0;
  for (llvm::StringRef Line : llvm::split(Reply, '\n')) {
    ++LineNo;
    if (LineNo <= SkipUntil)
      continue;
    if (Block < Blocks.size() && LineNo == Blocks[Block].Line) {
      SkipUntil = LineNo + llvm::StringRef(Blocks[Block].Code).count('\n') + 1;
      ++Block;
      continue;
    }
    llvm::StringRef L = Line.trim().ltrim("#*>-_ ").trim();
    if (!L.consume_front_insensitive("idea"))
      continue;
    L = L.ltrim("*_ ");
    if (!L.consume_front(":"))
      continue;
    L = L.trim().trim("*_").trim();
    if (L.empty())
      continue;
    std::string Idea = L.str();
    if (Idea.size() > 120)
      Idea = Idea.substr(0, 117) + "...";
    return Idea;
  }
  return "";
}
