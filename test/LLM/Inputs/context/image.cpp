// An image decoder written the way real code often is: a run-length decoder
// that reads one value per call, a member function whose fields are declared
// in the project's header.
#include "image.h"
#include <cstdlib>
#include <cstring>

#define LOOP(I, N) for (int I = 0; I < (N); ++I)

template <class T> static T clampTo(T V, T Lo, T Hi) {
  return V < Lo ? Lo : V > Hi ? Hi : V;
}

static int countRuns(int W);

static int unusedHelper(int X) { return X * 3; }

Image::Image(int W, int H, int B) : Width(W), Height(H), Bpp(B) {
  Data = (unsigned char *)calloc((size_t)W * H * B, 1);
}

Image::~Image() { free(Data); }

bool Image::set(int X, int Y, const Color &C) {
  memcpy(Data + ((size_t)Y * Width + X) * Bpp, C.Bgra, Bpp);
  return true;
}

Color Image::get(int X, int Y) const {
  Color C;
  C.Bytes = Bpp;
  memcpy(C.Bgra, Data + ((size_t)Y * Width + X) * Bpp, Bpp);
  return C;
}

void Image::flipVertically() {
  LOOP(Y, Height / 2) LOOP(X, Width) {
    Color A = get(X, Y), B = get(X, Height - 1 - Y);
    set(X, Y, B);
    set(X, Height - 1 - Y, A);
  }
}

void Image::flipHorizontally() {
  LOOP(Y, Height) LOOP(X, Width / 2) {
    Color A = get(X, Y), B = get(Width - 1 - X, Y);
    set(X, Y, B);
    set(Width - 1 - X, Y, A);
  }
}

long Image::checksum() const {
  long Sum = 0;
  LOOP(I, Width * Height * Bpp) Sum = (Sum * 31 + Data[I]) % 1000000007;
  return Sum;
}

bool Image::readRle(FILE *In) {
  long Total = (long)Width * Height;
  long Done = 0;
  Color C;
  C.Bytes = Bpp < CHANNELS ? Bpp : CHANNELS;
  while (Done < Total) {
    int Header;
    if (fscanf(In, "%d", &Header) != 1)
      return false;
    int Count = Header < 128 ? Header + 1 : Header - 127;
    LOOP(I, Count) {
      if (Header < 128 || I == 0)
        LOOP(K, Bpp) {
          int V;
          if (fscanf(In, "%d", &V) != 1)
            return false;
          C.Bgra[K] = (unsigned char)clampTo(V, 0, 255);
        }
      if (Done >= Total)
        return false;
      memcpy(Data + Done * Bpp, C.Bgra, Bpp);
      ++Done;
    }
  }
  return countRuns(width()) >= 0;
}

static int countRuns(int W) { return W > 0 ? 1 : 0; }

int main() {
  int W, H, Bpp, Frames;
  if (scanf("%d %d %d %d", &W, &H, &Bpp, &Frames) != 4)
    return 1;
  Image Img(W, H, Bpp);
  for (int Frame = 0; Frame < Frames; ++Frame) {
    if (!Img.readRle(stdin))
      return 1;
    printf("%ld\n", Img.checksum());
  }
  Img.flipVertically();
  printf("%ld\n", Img.checksum());
  return 0;
}
