//===-- Scope.cpp - What a variant may edit -------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Support/Debug.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#define DEBUG_TYPE "maxcode-rewrite"

using namespace maxcode;

llvm::StringRef maxcode::editScopeName(EditScope S) {
  return S == EditScope::Target ? "target" : "file";
}

EditScope maxcode::scopeOf(ScopeSetting Setting, bool ProgramMode, bool Cuda) {
  if (Setting != ScopeSetting::Default)
    return Setting == ScopeSetting::File ? EditScope::File : EditScope::Target;
  return ProgramMode && !Cuda ? EditScope::File : EditScope::Target;
}

int maxcode::pragmaScopeKind(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 8> Words;
  llvm::SplitString(Text, Words, " \t()\"',");
  for (llvm::StringRef W : Words) {
    if (W == "push" || W == "push_options")
      return 1;
    if (W == "pop" || W == "pop_options")
      return 2;
  }
  return 0;
}

namespace {
/// The first `#pragma` of \p NewPart (what a variant puts before and in
/// place of the target) that would apply to the code after it: outside
/// every brace and not undone by a pop (DESIGN section 2; the screen says
/// the same of every variant, this says it before one is proposed). Its
/// line in \p NewPart, counted from 0; or what is wrong with the pushes.
std::optional<std::string> leakingPragma(llvm::StringRef Part,
                                         unsigned FirstLine) {
  // The raw lexer reads up to a NUL at the buffer's end.
  std::string Copy = Part.str();
  llvm::StringRef NewPart(Copy.c_str(), Copy.size());
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus17 = true;
  clang::Lexer L(clang::SourceLocation(), LO, NewPart.begin(), NewPart.begin(),
                 NewPart.end());
  int Depth = 0, Pushed = 0;
  clang::Token Tok;
  auto LineOf = [&](const char *At) {
    return FirstLine +
           unsigned(llvm::StringRef(NewPart.begin(), At - NewPart.begin())
                        .count('\n'));
  };
  while (true) {
    L.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::eof))
      break;
    if (Tok.is(clang::tok::l_brace))
      ++Depth;
    else if (Tok.is(clang::tok::r_brace))
      --Depth;
    if (!Tok.is(clang::tok::hash) || !Tok.isAtStartOfLine())
      continue;
    const char *Hash = NewPart.begin() + L.getCurrentBufferOffset() - 1;
    clang::Token Name;
    L.LexFromRawLexer(Name);
    if (!Name.is(clang::tok::raw_identifier) ||
        Name.getRawIdentifier() != "pragma") {
      L.ReadToEndOfLine();
      continue;
    }
    llvm::SmallString<64> Rest;
    L.ReadToEndOfLine(&Rest);
    if (Depth > 0)
      continue;
    int Kind = pragmaScopeKind(Rest);
    if (Kind == 1)
      ++Pushed;
    else if (Kind == 2 && Pushed > 0)
      --Pushed;
    else if (Pushed == 0)
      return "a #pragma at line " + std::to_string(LineOf(Hash)) +
             " of the variant, outside the target's body, would apply to the "
             "code after it";
  }
  if (Pushed > 0)
    return std::string("a #pragma push before the target is never popped, so "
                       "it would apply to the code after it");
  return std::nullopt;
}

bool isIncludeLine(llvm::StringRef Line) {
  Line = Line.ltrim();
  if (!Line.consume_front("#"))
    return false;
  Line = Line.ltrim();
  return Line.starts_with("include") || Line.starts_with("import");
}

bool isMacroDirective(llvm::StringRef Line) {
  Line = Line.ltrim();
  if (!Line.consume_front("#"))
    return false;
  Line = Line.ltrim();
  return Line.starts_with("define") || Line.starts_with("undef");
}

/// Lines of \p Text with their starting offsets; the last line may lack a
/// newline.
struct Lines {
  llvm::SmallVector<llvm::StringRef, 0> Text;
  llvm::SmallVector<size_t, 0> Offset;
};

Lines splitLines(llvm::StringRef Text) {
  Lines L;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t NL = Text.find('\n', Pos);
    size_t End = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
    L.Text.push_back(Text.slice(Pos, End));
    L.Offset.push_back(Pos);
    Pos = End;
  }
  return L;
}

/// Matches the original text before the target against the start of the
/// variant, skipping #include lines on both sides. Returns the offset in the
/// variant where the kept prefix ends, or an error naming the first line that
/// differs.
llvm::Expected<size_t> matchPrefix(llvm::StringRef OrigPrefix,
                                   llvm::StringRef Variant) {
  Lines O = splitLines(OrigPrefix), V = splitLines(Variant);
  size_t VI = 0;
  for (size_t OI = 0; OI < O.Text.size(); ++OI) {
    llvm::StringRef OL = O.Text[OI];
    if (isIncludeLine(OL))
      continue;
    while (VI < V.Text.size() && isIncludeLine(V.Text[VI]))
      ++VI;
    bool LastPartial = OI + 1 == O.Text.size() && !OL.ends_with("\n");
    // The target's indentation is the start of its own line, and lines put
    // before the target (a pushed pragma) go in before it.
    if (LastPartial && OL.trim().empty() && VI < V.Text.size())
      return V.Offset[VI];
    if (VI >= V.Text.size() ||
        (LastPartial ? !V.Text[VI].starts_with(OL) : V.Text[VI] != OL))
      return llvm::createStringError(
          "line " + std::to_string(OI + 1) +
          " (before the target) was changed or removed: '" + OL.trim().str() +
          "'");
    if (LastPartial)
      return V.Offset[VI] + OL.size();
    ++VI;
  }
  // Include lines added right after the kept prefix belong to it.
  while (VI < V.Text.size() && isIncludeLine(V.Text[VI]))
    ++VI;
  return VI < V.Text.size() ? V.Offset[VI] : Variant.size();
}
} // namespace

llvm::Error maxcode::checkScope(llvm::StringRef Original,
                                llvm::StringRef VariantText, const Target &T,
                                EditScope Scope) {
  if (Scope == EditScope::File)
    return llvm::Error::success();
  if (T.EndOffset > Original.size() || T.BeginOffset > T.EndOffset)
    return llvm::createStringError("the target's range is outside the file");
  llvm::StringRef Suffix = Original.drop_front(T.EndOffset);
  if (!VariantText.ends_with(Suffix)) {
    // Name the first line after the target that differs.
    unsigned Line = T.EndLine;
    llvm::StringRef V = VariantText;
    for (llvm::StringRef S = Suffix; !S.empty();) {
      auto [OL, ORest] = S.split('\n');
      size_t At = V.rfind(OL);
      if (At == llvm::StringRef::npos)
        return llvm::createStringError(
            "line " + std::to_string(Line) +
            " (after the target) was changed or removed: '" + OL.trim().str() +
            "'");
      S = ORest;
      ++Line;
    }
    return llvm::createStringError("the text after the target (from line " +
                                   std::to_string(T.EndLine) + ") was changed");
  }
  llvm::StringRef Head = VariantText.drop_back(Suffix.size());
  auto Kept = matchPrefix(Original.take_front(T.BeginOffset), Head);
  if (!Kept)
    return Kept.takeError();
  // The new part (declarations before the target and its new definition)
  // must not define macros: they would change the code after the target.
  for (llvm::StringRef L : splitLines(Head.drop_front(*Kept)).Text)
    if (isMacroDirective(L))
      return llvm::createStringError(
          "a macro directive in the target's scope ('" + L.trim().str() +
          "') would change code outside it");
  if (Head.drop_front(*Kept).trim().empty())
    return llvm::createStringError("the target's definition was removed");
  if (auto Why =
          leakingPragma(Head.drop_front(*Kept),
                        1 + unsigned(Head.take_front(*Kept).count('\n'))))
    return llvm::createStringError(*Why);
  return llvm::Error::success();
}

std::pair<size_t, size_t>
maxcode::locateTargetInVariant(llvm::StringRef Original,
                               llvm::StringRef VariantText, const Target &T) {
  llvm::StringRef Suffix = Original.drop_front(T.EndOffset);
  size_t End = VariantText.size() - Suffix.size();
  auto Kept = matchPrefix(Original.take_front(T.BeginOffset),
                          VariantText.take_front(End));
  if (!Kept) {
    // A variant checkScope refuses: all that comes before the suffix.
    llvm::Error E = Kept.takeError();
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": target '" << T.Name
                               << "' located from the start of the variant: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
    return {0, End};
  }
  return {*Kept, End};
}
