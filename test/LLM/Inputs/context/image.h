#ifndef IMAGE_H
#define IMAGE_H

#include "color.h"
#include <cstdio>

class Image {
public:
  Image(int W, int H, int Bpp);
  ~Image();
  bool set(int X, int Y, const Color &C);
  Color get(int X, int Y) const;
  int width() const { return Width; }
  int height() const { return Height; }
  void flipVertically();
  void flipHorizontally();
  bool readRle(FILE *In);
  long checksum() const;

protected:
  unsigned char *Data;
  int Width, Height;
  int Bpp;
};

#endif
