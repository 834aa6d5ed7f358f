//===-- PromptLibrary.cpp - Prompt templates ------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/PromptLibrary.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace maxcode;

static bool isNameStart(char C) { return llvm::isAlpha(C) || C == '_'; }
static bool isNameChar(char C) { return llvm::isAlnum(C) || C == '_'; }

/// If \p Text starts with a placeholder, returns its length and sets
/// \p Name; else returns 0.
static size_t matchPlaceholder(llvm::StringRef Text, std::string &Name) {
  if (!Text.starts_with("{{"))
    return 0;
  size_t I = 2;
  while (I < Text.size() && Text[I] == ' ')
    ++I;
  size_t Begin = I;
  if (I == Text.size() || !isNameStart(Text[I]))
    return 0;
  while (I < Text.size() && isNameChar(Text[I]))
    ++I;
  size_t End = I;
  while (I < Text.size() && Text[I] == ' ')
    ++I;
  if (!Text.substr(I).starts_with("}}"))
    return 0;
  Name = Text.slice(Begin, End).str();
  return I + 2;
}

/// The role a `<!-- role: X -->` comment names, or "" for a plain comment.
static llvm::StringRef roleOf(llvm::StringRef Comment) {
  Comment = Comment.trim();
  if (!Comment.consume_front("role:"))
    return "";
  Comment = Comment.trim();
  if (Comment == "system" || Comment == "user" || Comment == "assistant")
    return Comment;
  return "";
}

llvm::Expected<PromptTemplate> PromptTemplate::parse(llvm::StringRef Name,
                                                     llvm::StringRef Text,
                                                     llvm::StringRef Path) {
  PromptTemplate T;
  T.Name = Name.str();
  T.Path = Path.str();
  auto Where = [&] {
    return T.Path.empty() ? "'" + T.Name + "'"
                          : "'" + T.Name + "' (" + T.Path + ")";
  };

  // First cut the text into sections at role markers, dropping comments.
  // A comment alone on its line takes the line with it.
  struct RawSection {
    std::string Role;
    std::string Text;
  };
  std::vector<RawSection> Raw(1, RawSection{"user", ""});
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t Open = Text.find("<!--", Pos);
    if (Open == llvm::StringRef::npos) {
      Raw.back().Text += Text.substr(Pos).str();
      break;
    }
    size_t Close = Text.find("-->", Open + 4);
    if (Close == llvm::StringRef::npos) {
      size_t Line = 1 + Text.take_front(Open).count('\n');
      return llvm::createStringError(
          "prompt template %s: comment on line %zu is not closed with -->",
          Where().c_str(), Line);
    }
    size_t LineStart = Text.rfind('\n', Open);
    LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
    size_t LineEnd = Text.find('\n', Close + 3);
    LineEnd = LineEnd == llvm::StringRef::npos ? Text.size() : LineEnd;
    bool OwnLine = LineStart >= Pos &&
                   Text.slice(LineStart, Open).trim().empty() &&
                   Text.slice(Close + 3, LineEnd).trim().empty();
    size_t TextEnd = OwnLine ? LineStart : Open;
    Raw.back().Text += Text.slice(Pos, TextEnd).str();
    llvm::StringRef Role = roleOf(Text.slice(Open + 4, Close));
    if (!Role.empty())
      Raw.push_back(RawSection{Role.str(), ""});
    Pos = OwnLine ? std::min(LineEnd + 1, Text.size()) : Close + 3;
  }

  for (const RawSection &R : Raw) {
    llvm::StringRef S = llvm::StringRef(R.Text).trim();
    if (S.empty())
      continue;
    Section Sec;
    Sec.Role = R.Role;
    std::string Literal;
    for (size_t I = 0; I < S.size();) {
      std::string Placeholder;
      if (size_t Len = matchPlaceholder(S.substr(I), Placeholder)) {
        if (!Literal.empty())
          Sec.Pieces.push_back(Piece{false, std::move(Literal)});
        Literal.clear();
        Sec.Pieces.push_back(Piece{true, std::move(Placeholder)});
        I += Len;
        continue;
      }
      Literal += S[I++];
    }
    if (!Literal.empty())
      Sec.Pieces.push_back(Piece{false, std::move(Literal)});
    T.Sections.push_back(std::move(Sec));
  }
  if (T.Sections.empty())
    return llvm::createStringError("prompt template %s is empty",
                                   Where().c_str());
  return T;
}

std::vector<std::string> PromptTemplate::placeholders() const {
  std::set<std::string> Names;
  for (const Section &S : Sections)
    for (const Piece &P : S.Pieces)
      if (P.IsPlaceholder)
        Names.insert(P.Text);
  return std::vector<std::string>(Names.begin(), Names.end());
}

llvm::Expected<std::vector<ChatMessage>> PromptTemplate::renderMessages(
    const std::map<std::string, std::string> &Values) const {
  std::vector<std::string> Missing;
  for (const std::string &P : placeholders())
    if (!Values.count(P))
      Missing.push_back("'" + P + "'");
  if (!Missing.empty()) {
    std::string Where = "'" + Name + "'";
    if (!Path.empty())
      Where += " (" + Path + ")";
    return llvm::createStringError(
        "prompt template %s has no value for placeholder%s %s", Where.c_str(),
        Missing.size() > 1 ? "s" : "", llvm::join(Missing, ", ").c_str());
  }

  std::vector<ChatMessage> Messages;
  for (const Section &S : Sections) {
    std::string Text;
    for (const Piece &P : S.Pieces)
      Text += P.IsPlaceholder ? Values.find(P.Text)->second : P.Text;
    // Consecutive sections of one role (a plain comment between them, say)
    // are one message.
    if (!Messages.empty() && Messages.back().Role == S.Role)
      Messages.back().Content += "\n\n" + Text;
    else
      Messages.push_back(ChatMessage{S.Role, std::move(Text)});
  }
  return Messages;
}

llvm::Expected<std::string>
PromptTemplate::render(const std::map<std::string, std::string> &Values) const {
  auto Messages = renderMessages(Values);
  if (!Messages)
    return Messages.takeError();
  std::string Out;
  for (const ChatMessage &M : *Messages) {
    if (!Out.empty())
      Out += "\n\n";
    Out += M.Content;
  }
  return Out + "\n";
}

//===----------------------------------------------------------------------===//
// PromptLibrary
//===----------------------------------------------------------------------===//

PromptLibrary::PromptLibrary(std::vector<std::string> SearchPath)
    : SearchPath(std::move(SearchPath)) {}

PromptLibrary::PromptLibrary(llvm::StringRef Dir, const char *Argv0,
                             void *MainAddr)
    : SearchPath(Dir.empty() ? defaultSearchPath(Argv0, MainAddr)
                             : std::vector<std::string>{Dir.str()}) {}

std::vector<std::string> PromptLibrary::defaultSearchPath(const char *Argv0,
                                                          void *MainAddr) {
  std::vector<std::string> Path;
  if (Argv0) {
    std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, MainAddr);
    if (!Exe.empty()) {
      llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
      llvm::sys::path::append(Dir, "..", MAXCODE_PROMPTS_SUBDIR);
      llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
      Path.push_back(std::string(Dir));
    }
  }
  // A binary run from a build tree that was never configured with the
  // templates copied (or an installed one missing them) still finds the
  // source tree's.
  Path.push_back(MAXCODE_PROMPTS_SOURCE_DIR);
  return Path;
}

llvm::Expected<const PromptTemplate &>
PromptLibrary::get(llvm::StringRef Name) {
  Name.consume_back(".md");
  if (Name.empty() || Name.contains('/') || Name.starts_with("."))
    return llvm::createStringError("invalid prompt template name '%s'",
                                   Name.str().c_str());
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Cache.find(Name);
  if (It != Cache.end())
    return It->second;
  std::string FileName = (Name + ".md").str();
  for (const std::string &Dir : SearchPath) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, FileName);
    if (!llvm::sys::fs::exists(Path))
      continue;
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer)
      return llvm::createStringError(
          Buffer.getError(), "cannot read prompt template '%s': %s",
          Path.c_str(), Buffer.getError().message().c_str());
    auto T = PromptTemplate::parse(Name, (*Buffer)->getBuffer(), Path);
    if (!T)
      return T.takeError();
    return Cache.emplace(Name.str(), std::move(*T)).first->second;
  }
  return llvm::createStringError("no prompt template '%s' (%s) in %s",
                                 Name.str().c_str(), FileName.c_str(),
                                 SearchPath.empty()
                                     ? "(no directories)"
                                     : llvm::join(SearchPath, ", ").c_str());
}

llvm::Expected<std::string>
PromptLibrary::render(llvm::StringRef Name,
                      const std::map<std::string, std::string> &Values) {
  auto T = get(Name);
  if (!T)
    return T.takeError();
  return T->render(Values);
}

llvm::Expected<std::vector<ChatMessage>> PromptLibrary::renderMessages(
    llvm::StringRef Name, const std::map<std::string, std::string> &Values) {
  auto T = get(Name);
  if (!T)
    return T.takeError();
  return T->renderMessages(Values);
}
