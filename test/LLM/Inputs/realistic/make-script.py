#!/usr/bin/env python3
"""Writes the scripted server's script for search-llm-realistic.test.

Replies as a strong model writes them under search pressure, long and in
prose: several helpers per reply, a type-generic template, includes for code
it then does not use, a helper that is a copy of another, one with a subtle
bug, one cut off at the token limit, one that repeats a helper the prompt
showed it. Then, asked for a plainer winner, the ten-line version of the same
idea. The target is Image::readRle of test/LLM/Inputs/context.
"""
import json

PROPOSER = "Make `Image::readRle`"
SIMPLIFY = "# The change"

READ_VALUE_FAST = r"""// Parses one decimal integer, as fscanf("%d") does for these inputs, with
// getc: no format string to interpret on every call.
static int readValueFast(FILE *In, int *Out) {
  int C = getc(In);
  while (C == ' ' || C == '\n' || C == '\r' || C == '\t')
    C = getc(In);
  int Sign = 1;
  if (C == '-') {
    Sign = -1;
    C = getc(In);
  }
  if (!isdigit(C))
    return 0;
  int V = 0;
  while (isdigit(C)) {
    V = V * 10 + (C - '0');
    C = getc(In);
  }
  if (C != EOF)
    ungetc(C, In);
  *Out = Sign * V;
  return 1;
}
"""

HELPERS = r"""// Statistics about the packets decoded (handy when debugging).
struct PacketStats {
  long Raw;
  long Runs;
};

// Clamps a value to [Lo, Hi], for any ordered type.
template <typename T> static inline T clampValue(T Value, T Lo, T Hi) {
  return Value < Lo ? Lo : (Hi < Value ? Hi : Value);
}

// Copies one pixel's bytes.
static inline void copyPixel(unsigned char *Dst, const unsigned char *Src,
                             int N) {
  for (int I = 0; I < N; ++I)
    Dst[I] = Src[I];
}

// Copies the bytes of a pixel of a run.
static inline void copyPixelBytes(unsigned char *To, const unsigned char *From,
                                  int Count) {
  for (int J = 0; J < Count; ++J)
    To[J] = From[J];
}

// How many pixels an image of W by H has.
static long countPixels(long W, long H) { return W * H; }
"""

def packets(run_count, copy_raw, copy_run, clamp):
    return r"""bool Image::readRle(FILE *In) {
  const long Total = (long)Width * Height;
  long Done = 0;
  Color C;
  C.Bytes = Bpp < CHANNELS ? Bpp : CHANNELS;
  while (Done < Total) {
    int Header;
    if (!readValueFast(In, &Header))
      return false;
    if (Header < 128) {
      const int Count = Header + 1;
      for (int I = 0; I < Count; ++I) {
        for (int K = 0; K < Bpp; ++K) {
          int V;
          if (!readValueFast(In, &V))
            return false;
          C.Bgra[K] = (unsigned char)%(clamp)s(V, 0, 255);
        }
        if (Done >= Total)
          return false;
        %(copy_raw)s;
        ++Done;
      }
    } else {
      const int Count = %(run_count)s;
      for (int K = 0; K < Bpp; ++K) {
        int V;
        if (!readValueFast(In, &V))
          return false;
        C.Bgra[K] = (unsigned char)%(clamp)s(V, 0, 255);
      }
      for (int I = 0; I < Count; ++I) {
        if (Done >= Total)
          return false;
        %(copy_run)s;
        ++Done;
      }
    }
  }
  return countRuns(width()) >= 0;
}
""" % {"run_count": run_count, "copy_raw": copy_raw, "copy_run": copy_run,
       "clamp": clamp}

def block(code):
    return "```cpp\n" + code.rstrip("\n") + "\n```\n"

FIRST = packets("Header - 127", "copyPixel(Data + Done * Bpp, C.Bgra, Bpp)",
                "copyPixelBytes(Data + Done * Bpp, C.Bgra, Bpp)", "clampValue")
# A run of N pixels is written N - 1 times: right on no input with runs.
BUGGY = packets("Header - 128", "copyPixel(Data + Done * Bpp, C.Bgra, Bpp)",
                "copyPixel(Data + Done * Bpp, C.Bgra, Bpp)", "clampValue")
LATER = packets("Header - 127", "memcpy(Data + Done * Bpp, C.Bgra, Bpp)",
                "memcpy(Data + Done * Bpp, C.Bgra, Bpp)", "clampValue")
PLAIN = packets("Header - 127", "memcpy(Data + Done * Bpp, C.Bgra, Bpp)",
                "memcpy(Data + Done * Bpp, C.Bgra, Bpp)", "clampTo")

INTRO = ("Looking at the profile, almost all of `readRle`'s own time is spent "
         "in `fscanf`, which interprets its format string and takes the "
         "stream's lock on every call. The packets themselves are trivial.\n\n")

replies = [
    # Expansion 1, two samples (in whichever order the requests arrive).
    {"content": INTRO +
     "Idea: parse the integers with getc and decode raw and run packets "
     "separately\n\nI kept every error path as it was.\n\n" +
     block("#include <cctype>\n#include <vector>\n#include <algorithm>\n\n" +
           HELPERS + "\n" + READ_VALUE_FAST + "\n" + FIRST) +
     "\nThis should cut the instruction count roughly in half.\n"},
    {"content": INTRO +
     "Idea: a getc parser, and a run packet's pixel read once\n\n" +
     block("#include <cctype>\n\n" + HELPERS + "\n" + READ_VALUE_FAST + "\n" +
           BUGGY)},
    # Expansion 2 (of the best so far): cut off at the token limit...
    {"finish_reason": "length", "content":
     "Idea: read a whole packet's values in one pass\n\n```cpp\n" +
     READ_VALUE_FAST[:400]},
    # ...and a reply that repeats the helper the prompt showed it.
    {"content": "Idea: memcpy each pixel instead of the byte loops\n\n"
     "The helper stays as it is:\n\n" +
     block(READ_VALUE_FAST + "\n" + LATER)},
]
for r in replies:
    r["match"] = PROPOSER
replies.append({"match": SIMPLIFY, "content":
                "Idea: the getc parser is the whole speedup\n\n" +
                block("#include <cctype>\n\n" + READ_VALUE_FAST + "\n" +
                      PLAIN)})
print(json.dumps({"replies": replies}, indent=1))
