//===-- DerivedInputs.cpp - Inputs derived from the user's tests ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// EvalPlus strengthens weak benchmark tests by mutating their inputs and
// taking the reference solution's answers as the oracle; this does it for a
// program that reads stdin, whose format nobody wrote down. What a mutation
// may not break is read off the input itself: counts, and the order of its
// numbers. The evaluator keeps only what the unmodified program accepts
// (ProgramHarness.cpp), so a guess that breaks the format costs a run, not
// a wrong verdict.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/DerivedInputs.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <random>
#include <set>

using namespace maxcode;

namespace {

/// A token of an input: where it is, and its value when it is an integer
/// written plainly (no leading zero, no sign but a minus).
struct Token {
  size_t Begin = 0, End = 0;
  unsigned Line = 0, Column = 0;
  bool Integer = false;
  int64_t Value = 0;
};

struct Parsed {
  std::string Text;
  std::vector<Token> Tokens;
  /// Tokens per line.
  std::vector<unsigned> Counts;
  /// The lengths of the words (not integers) on each line.
  std::vector<std::vector<size_t>> WordLengths;
};

bool plainInteger(llvm::StringRef T, int64_t &V) {
  llvm::StringRef Digits = T;
  Digits.consume_front("-");
  if (Digits.empty() || !llvm::all_of(Digits, llvm::isDigit) ||
      (Digits.size() > 1 && Digits.front() == '0') || Digits.size() > 17)
    return false;
  return !T.getAsInteger(10, V);
}

Parsed parse(llvm::StringRef Text) {
  Parsed P;
  P.Text = Text.str();
  unsigned Line = 0, Column = 0;
  P.Counts.push_back(0);
  P.WordLengths.emplace_back();
  for (size_t I = 0; I < Text.size();) {
    char C = Text[I];
    if (C == '\n') {
      ++Line;
      Column = 0;
      P.Counts.push_back(0);
      P.WordLengths.emplace_back();
      ++I;
      continue;
    }
    if (llvm::isSpace(C)) {
      ++I;
      continue;
    }
    Token T;
    T.Begin = I;
    while (I < Text.size() && !llvm::isSpace(Text[I]))
      ++I;
    T.End = I;
    T.Line = Line;
    T.Column = Column++;
    T.Integer = plainInteger(Text.slice(T.Begin, T.End), T.Value);
    if (!T.Integer)
      P.WordLengths[Line].push_back(T.End - T.Begin);
    ++P.Counts[Line];
    P.Tokens.push_back(T);
  }
  return P;
}

/// The values in \p P that count what follows them: on a line, a value
/// equal to the next line's number of tokens or the length of a word on
/// it, to the number of lines of that next line's shape in a row, or to
/// the lines left. They, and -1, 0 and 1 (terminators, flags, the first
/// index), are never changed.
std::set<int64_t> countsIn(const Parsed &P) {
  std::set<int64_t> Out = {-1, 0, 1};
  size_t N = P.Counts.size();
  while (N > 0 && P.Counts[N - 1] == 0)
    --N; // Trailing empty lines.
  for (size_t L = 0; L + 1 < N; ++L) {
    std::set<int64_t> Counted = {int64_t(P.Counts[L + 1]), int64_t(N - 1 - L)};
    size_t Run = 0;
    while (L + 1 + Run < N && P.Counts[L + 1 + Run] == P.Counts[L + 1])
      ++Run;
    Counted.insert(int64_t(Run));
    for (size_t W : P.WordLengths[L + 1])
      Counted.insert(int64_t(W));
    for (const Token &T : P.Tokens)
      if (T.Line == L && T.Integer && Counted.count(T.Value))
        Out.insert(T.Value);
  }
  return Out;
}

/// The range of values the tests use at each place (line, column).
using PlaceRanges =
    std::map<std::pair<unsigned, unsigned>, std::pair<int64_t, int64_t>>;

PlaceRanges placeRanges(llvm::ArrayRef<Parsed> All) {
  PlaceRanges Range;
  for (const Parsed &P : All)
    for (const Token &T : P.Tokens) {
      if (!T.Integer)
        continue;
      auto [It, New] = Range.try_emplace({T.Line, T.Column}, T.Value, T.Value);
      if (!New) {
        It->second.first = std::min(It->second.first, T.Value);
        It->second.second = std::max(It->second.second, T.Value);
      }
    }
  return Range;
}

/// The bounds of each of \p P's values where the tests disagree at a place
/// of it: a value there stays within what they use (the order of the
/// template's values alone let a loop bound take the size of an array's
/// length on its line, thousands of times the work of any test). A place
/// only one test has (the tail of a longer list), or where all agree, is
/// free within the order, and has none.
std::map<int64_t, std::pair<int64_t, int64_t>>
boundsByValue(const Parsed &P, const PlaceRanges &Range) {
  std::map<int64_t, std::pair<int64_t, int64_t>> Place;
  for (const Token &T : P.Tokens) {
    if (!T.Integer)
      continue;
    auto R = Range.at({T.Line, T.Column});
    if (R.first == R.second)
      continue;
    auto [It, Added] = Place.try_emplace(T.Value, R);
    if (!Added) {
      It->second.first = std::max(It->second.first, R.first);
      It->second.second = std::min(It->second.second, R.second);
    }
  }
  return Place;
}

/// \p P's text with each integer V written as \p New[V].
std::string withValues(const Parsed &P, const std::map<int64_t, int64_t> &New) {
  std::string Text;
  size_t At = 0;
  for (const Token &T : P.Tokens) {
    Text.append(P.Text, At, T.Begin - At);
    if (T.Integer)
      Text += std::to_string(New.at(T.Value));
    else
      Text.append(P.Text, T.Begin, T.End - T.Begin);
    At = T.End;
  }
  Text.append(P.Text, At, std::string::npos);
  return Text;
}

} // namespace

std::vector<DerivedInput>
maxcode::deriveInputs(llvm::ArrayRef<std::string> Inputs,
                      llvm::ArrayRef<size_t> Order, unsigned Count,
                      uint64_t Seed) {
  std::vector<Parsed> All;
  for (const std::string &I : Inputs)
    All.push_back(parse(I));
  PlaceRanges Range = placeRanges(All);

  std::vector<DerivedInput> Out;
  llvm::StringSet<> Seen;
  for (const std::string &I : Inputs)
    Seen.insert(I);
  std::mt19937_64 Rng(Seed ^ 0x6d6178636f6465ull);
  // Templates in turn; a template that yields nothing new is dropped.
  std::vector<size_t> Templates(Order.begin(), Order.end());
  std::vector<unsigned> Misses(Inputs.size(), 0);
  for (size_t Turn = 0; Out.size() < Count && !Templates.empty(); ++Turn) {
    size_t Pick = Turn % Templates.size();
    size_t TI = Templates[Pick];
    const Parsed &P = All[TI];
    std::set<int64_t> Fixed = countsIn(P);
    // Distinct values, and how far the smallest and largest may move.
    std::set<int64_t> Values;
    int64_t Low = INT64_MAX, High = INT64_MIN;
    for (const Token &T : P.Tokens) {
      if (!T.Integer)
        continue;
      Values.insert(T.Value);
      auto R = Range[{T.Line, T.Column}];
      Low = std::min(Low, R.first);
      High = std::max(High, R.second);
    }
    std::map<int64_t, std::pair<int64_t, int64_t>> Place =
        boundsByValue(P, Range);
    std::map<int64_t, int64_t> New;
    int64_t Previous = INT64_MIN;
    for (auto It = Values.begin(); It != Values.end(); ++It) {
      int64_t V = *It;
      if (Fixed.count(V)) {
        New[V] = Previous = V;
        continue;
      }
      auto Next = std::next(It);
      int64_t Lo = Previous == INT64_MIN ? std::min(Low, V) : Previous + 1;
      int64_t Hi = Next == Values.end() ? std::max(High, V) : *Next - 1;
      // A value beside a fixed one keeps clear of it on that side.
      if (Previous != INT64_MIN && Fixed.count(Previous))
        Lo = std::max(Lo, Previous + 1);
      if (auto It = Place.find(V); It != Place.end()) {
        Lo = std::max(Lo, It->second.first);
        Hi = std::min(Hi, It->second.second);
      }
      if (Lo > Hi)
        Lo = Hi = V;
      int64_t Drawn =
          Lo == Hi ? Lo : Lo + int64_t(Rng() % uint64_t(Hi - Lo + 1));
      New[V] = Previous = Drawn;
    }
    std::string Text = withValues(P, New);
    if (Seen.insert(Text).second) {
      Out.push_back({std::move(Text), TI});
      continue;
    }
    // Nothing new from this template in a few tries: it has nothing left
    // to draw.
    if (++Misses[TI] >= 8)
      Templates.erase(Templates.begin() + Pick);
  }
  return Out;
}
