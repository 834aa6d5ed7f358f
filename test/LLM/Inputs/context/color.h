#ifndef COLOR_H
#define COLOR_H

// A pixel as the image stores it: up to four channels, Bytes of them used.
struct Color {
  unsigned char Bgra[4];
  int Bytes;
};

#define CHANNELS 4

#endif
