//===-- Hints.cpp - Variants that only hint the compiler
//-------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Hints.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

using namespace clang;

namespace {

/// Pragmas that steer code generation, by their first word: loop
/// unrolling and vectorisation, optimisation levels and targets
/// (`GCC`, `clang`), OpenMP's. `#pragma pack`, `once` or `weak` change what
/// the program is and are compared as code.
bool isHintPragma(llvm::StringRef FirstWord) {
  static const llvm::StringSet<> Words = {"GCC",        "clang", "unroll",
                                          "nounroll",   "ivdep", "vector",
                                          "loop_count", "omp",   "simd"};
  return Words.contains(FirstWord);
}

/// Attributes that steer inlining, layout of hot code and branch weights.
bool isHintAttribute(llvm::StringRef Name) {
  static const llvm::StringSet<> Names = {"hot",
                                          "cold",
                                          "flatten",
                                          "always_inline",
                                          "noinline",
                                          "optimize",
                                          "target",
                                          "likely",
                                          "unlikely",
                                          "__hot__",
                                          "__cold__",
                                          "__flatten__",
                                          "__always_inline__",
                                          "__noinline__",
                                          "__optimize__",
                                          "__target__"};
  return Names.contains(Name);
}

/// The tokens of a file in order, hints left out.
class HintlessTokens {
public:
  explicit HintlessTokens(llvm::StringRef Text) : Copy(Text.str()) {
    LangOptions LO;
    LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
    LO.CPlusPlus20 = LO.Digraphs = true;
    Lexer L(SourceLocation(), LO, Copy.data(), Copy.data(),
            Copy.data() + Copy.size());
    Token Tok;
    for (bool AtEnd = false; !AtEnd;) {
      AtEnd = L.LexFromRawLexer(Tok);
      if (Tok.is(tok::eof))
        break;
      Toks.push_back({spelling(Tok), Tok.isAtStartOfLine(), Tok.getKind(),
                      Tok.getLocation().getRawEncoding(), Tok.getLength()});
    }
    drop();
  }

  /// A hint left out: where it is in the text (a pragma's line with its
  /// line break) and its tokens, as a key that ignores layout.
  struct Hint {
    unsigned Begin, End;
    std::string Key;
  };

  std::vector<std::string> Kept;
  std::vector<Hint> Hints;
  bool Dropped = false;

private:
  struct Lexed {
    std::string Text;
    bool StartOfLine;
    tok::TokenKind Kind;
    unsigned Offset; ///< Into Copy (the raw lexer's locations are offsets).
    unsigned Length;
  };

  void record(size_t First, size_t Next, bool Directive) {
    Hint H;
    H.Begin = Toks[First].Offset;
    H.End = Toks[Next - 1].Offset + Toks[Next - 1].Length;
    if (Directive) {
      // The line break that ends the directive goes with it.
      size_t Eol = llvm::StringRef(Copy).find('\n', H.End);
      H.End = Eol == llvm::StringRef::npos ? Copy.size() : Eol + 1;
    }
    for (size_t I = First; I < Next; ++I)
      H.Key += Toks[I].Text + " ";
    Hints.push_back(std::move(H));
  }

  std::string spelling(const Token &Tok) const {
    return std::string(Copy.data() + Tok.getLocation().getRawEncoding(),
                       Tok.getLength());
  }

  bool is(size_t I, llvm::StringRef Text) const {
    return I < Toks.size() && Toks[I].Text == Text;
  }

  /// The index after the bracket that closes the one at \p I.
  size_t pastBalanced(size_t I) const {
    int Depth = 0;
    for (; I < Toks.size(); ++I) {
      tok::TokenKind K = Toks[I].Kind;
      if (K == tok::l_paren || K == tok::l_square || K == tok::l_brace)
        ++Depth;
      else if ((K == tok::r_paren || K == tok::r_square || K == tok::r_brace) &&
               --Depth == 0)
        return I + 1;
    }
    return I;
  }

  /// Whether every attribute named in [Begin, End) is a hint: the
  /// identifiers at the list's top level, `gnu::` and `clang::` scopes
  /// aside; their arguments are not names.
  bool onlyHintAttributes(size_t Begin, size_t End) const {
    bool Any = false;
    int Depth = 0;
    for (size_t I = Begin; I < End; ++I) {
      tok::TokenKind K = Toks[I].Kind;
      if (K == tok::l_paren)
        ++Depth;
      else if (K == tok::r_paren)
        --Depth;
      if (Depth != 0 || K != tok::raw_identifier)
        continue;
      if (is(I + 1, "::"))
        continue; // A scope: gnu::, clang::, __gnu__::.
      if (!isHintAttribute(Toks[I].Text))
        return false;
      Any = true;
    }
    return Any;
  }

  void drop() {
    for (size_t I = 0; I < Toks.size();) {
      size_t Next = I;
      const Lexed &T = Toks[I];
      if (T.Kind == tok::hash && T.StartOfLine && is(I + 1, "pragma") &&
          I + 2 < Toks.size() && !Toks[I + 2].StartOfLine &&
          isHintPragma(Toks[I + 2].Text)) {
        // The directive ends where the next line's first token begins.
        Next = I + 1;
        while (Next < Toks.size() && !Toks[Next].StartOfLine)
          ++Next;
      } else if ((T.Text == "_Pragma" || T.Text == "__pragma") &&
                 is(I + 1, "(")) {
        // Its string names the pragma: a hint only if its first word is.
        size_t End = pastBalanced(I + 1);
        llvm::StringRef Str =
            I + 2 < End ? llvm::StringRef(Toks[I + 2].Text) : llvm::StringRef();
        Str = Str.trim('"').ltrim();
        if (isHintPragma(Str.take_until(
                [](char C) { return C == ' ' || C == '\t' || C == '('; })))
          Next = End;
      } else if ((T.Text == "__attribute__" || T.Text == "__attribute") &&
                 is(I + 1, "(") && is(I + 2, "(")) {
        size_t End = pastBalanced(I + 1);
        if (onlyHintAttributes(I + 3, End - 2))
          Next = End;
      } else if (T.Kind == tok::l_square && is(I + 1, "[")) {
        size_t End = pastBalanced(I);
        if (onlyHintAttributes(I + 2, End - 2))
          Next = End;
      }
      if (Next == I) {
        Kept.push_back(T.Text);
        ++I;
        continue;
      }
      Dropped = true;
      record(I, Next, T.Kind == tok::hash);
      I = Next;
    }
  }

  std::string Copy;
  std::vector<Lexed> Toks;
};

} // namespace

bool maxcode::changesOnlyCompilerHints(llvm::StringRef Original,
                                       llvm::StringRef Edited) {
  if (Original == Edited)
    return false;
  HintlessTokens O(Original), E(Edited);
  // Something was hinted, and nothing else differs.
  return (O.Dropped || E.Dropped) && O.Kept == E.Kept;
}

std::optional<std::string> maxcode::withoutAddedHints(llvm::StringRef Original,
                                                      llvm::StringRef Edited) {
  HintlessTokens O(Original), E(Edited);
  llvm::StringMap<unsigned> Had;
  for (const HintlessTokens::Hint &H : O.Hints)
    ++Had[H.Key];
  clang::tooling::Replacements Out;
  for (const HintlessTokens::Hint &H : E.Hints) {
    unsigned &Left = Had[H.Key];
    if (Left > 0) {
      --Left; // The original's own hint stays.
      continue;
    }
    if (llvm::Error Err = Out.add(
            clang::tooling::Replacement("", H.Begin, H.End - H.Begin, ""))) {
      // Hints are lexed apart and never overlap; were they to, no text
      // could be trusted as the code alone.
      llvm::consumeError(std::move(Err));
      return std::nullopt;
    }
  }
  if (Out.empty())
    return std::nullopt;
  llvm::Expected<std::string> Code =
      clang::tooling::applyAllReplacements(Edited, Out);
  if (!Code) {
    llvm::consumeError(Code.takeError());
    return std::nullopt;
  }
  return *Code;
}
