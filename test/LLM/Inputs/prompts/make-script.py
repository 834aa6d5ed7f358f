#!/usr/bin/env python3
"""Writes the scripted server's script for search-llm-prompts.test.

The proposer's replies, in the order the search asks: a correct rewrite whose
#include comes in a block of its own, a reply that does not compile, a
correct one for the same code, and one more; the critic and the reward-to-go
model are the rules' and nobody's.
"""
import json

PROPOSER = "Make `Image::readRle`"

READ_VALUE = r"""static int readValue(FILE *In, int *Out) {
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

def read_rle(extra=""):
    return r"""bool Image::readRle(FILE *In) {
  long Total = (long)Width * Height;
  long Done = 0;
  Color C;
  C.Bytes = Bpp < CHANNELS ? Bpp : CHANNELS;
  while (Done < Total) {
    int Header;
    if (!readValue(In, &Header))
      return false;
    int Count = Header < 128 ? Header + 1 : Header - 127;
    LOOP(I, Count) {
      if (Header < 128 || I == 0)
        LOOP(K, Bpp) {
          int V;
          if (!readValue(In, &V))
            return false;
          C.Bgra[K] = (unsigned char)clampTo(V, 0, 255);
        }
      if (Done >= Total)
        return false;
      memcpy(Data + Done * Bpp, C.Bgra, Bpp);
      ++Done;
    }
  }%s
  return countRuns(width()) >= 0;
}
""" % extra

def block(code):
    return "```cpp\n" + code.rstrip("\n") + "\n```\n"

replies = [
    # The root: a correct rewrite, its #include in a block of its own.
    {"content": "Idea: parse the integers with getc instead of fscanf\n\n"
                "This needs one header:\n\n" + block("#include <cctype>") +
                "\nThe new code:\n\n" + block(READ_VALUE + "\n" + read_rle())},
    # Its first expansion: a reply that does not compile...
    {"content": "Idea: skip the clamp\n\n" +
                block(read_rle("\n  undeclaredThing(Done);"))},
    # ...and, asked again with the reason, one that does.
    {"content": "Idea: count the pixels down instead of up\n\n" +
                block(read_rle("\n  Done = Total - Done;"))},
    # The same code asked again: the reason above is history now.
    {"content": "Idea: test the header once per packet\n\n" +
                block(read_rle("\n  Total = Done;"))},
]
for r in replies:
    r["match"] = PROPOSER
# Asked for a plainer winner: the same code again, which is not plainer.
replies.append({"match": "# The change", "content":
                "Idea: nothing to remove\n\n" +
                block(READ_VALUE + "\n" + read_rle())})
print(json.dumps({"replies": replies}, indent=1))
