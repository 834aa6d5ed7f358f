//===-- conv2d.cu - 2-D convolution, 3x3 kernel, no padding ---------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 63_conv_standard_2D__square_input__square_kernel,
// smaller): NCHW input 8 x 16 x 512 x 512, 64 output channels, 3 x 3
// weights, stride 1, no padding, plus a bias per output channel. The naive
// kernel computes one output per thread straight from global memory.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void conv2dKernel(const float *In, const float *Weight,
                             const float *Bias, float *Out, int Batch,
                             int InChannels, int Height, int Width,
                             int OutChannels, int KernelSize) {
  int OutH = Height - KernelSize + 1, OutW = Width - KernelSize + 1;
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  size_t Total = static_cast<size_t>(Batch) * OutChannels * OutH * OutW;
  if (I >= Total)
    return;
  int X = I % OutW;
  int Y = (I / OutW) % OutH;
  int O = (I / (static_cast<size_t>(OutW) * OutH)) % OutChannels;
  int N = I / (static_cast<size_t>(OutW) * OutH * OutChannels);
  float Sum = Bias[O];
  for (int C = 0; C < InChannels; ++C)
    for (int KY = 0; KY < KernelSize; ++KY)
      for (int KX = 0; KX < KernelSize; ++KX)
        Sum +=
            In[((static_cast<size_t>(N) * InChannels + C) * Height + Y + KY) *
                   Width +
               X + KX] *
            Weight[((O * InChannels + C) * KernelSize + KY) * KernelSize + KX];
  Out[I] = Sum;
}

void launchConv2d(const float *In, const float *Weight, const float *Bias,
                  float *Out, int Batch, int InChannels, int Height, int Width,
                  int OutChannels, int KernelSize) {
  size_t Total = size_t(Batch) * OutChannels * (Height - KernelSize + 1) *
                 (Width - KernelSize + 1);
  conv2dKernel<<<bench::ceilDiv(Total, 256), 256>>>(
      In, Weight, Bias, Out, Batch, InChannels, Height, Width, OutChannels,
      KernelSize);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Batch = 8, InChannels = 16, Height = 512, Width = 512;
  const int OutChannels = 64, KernelSize = 3;
  const int OutH = Height - KernelSize + 1, OutW = Width - KernelSize + 1;
  const size_t InSize = size_t(Batch) * InChannels * Height * Width;
  const size_t OutSize = size_t(Batch) * OutChannels * OutH * OutW;
  std::printf("conv2d: %dx%dx%dx%d, %d filters of %dx%d\n", Batch, InChannels,
              Height, Width, OutChannels, KernelSize, KernelSize);
  std::vector<float> In = bench::uniformVector(InSize, 22);
  std::vector<float> Weight = bench::uniformVector(
      size_t(OutChannels) * InChannels * KernelSize * KernelSize, 23, -0.25f,
      0.25f);
  std::vector<float> Bias = bench::uniformVector(OutChannels, 24);
  bench::DeviceArray<float> DIn(In), DWeight(Weight), DBias(Bias),
      DOut(OutSize);
  bench::timeLaunches(
      "conv2d", bench::timedLaunches(Argc, Argv), [] {},
      [&] {
        launchConv2d(DIn.get(), DWeight.get(), DBias.get(), DOut.get(), Batch,
                     InChannels, Height, Width, OutChannels, KernelSize);
      });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("conv2d", 1e-3, 1e-3);
  for (size_t I : bench::sampleIndices(OutSize, 1 << 16)) {
    size_t X = I % OutW, Y = (I / OutW) % OutH;
    size_t O = (I / (size_t(OutW) * OutH)) % OutChannels;
    size_t N = I / (size_t(OutW) * OutH * OutChannels);
    double Sum = Bias[O];
    for (int C = 0; C < InChannels; ++C)
      for (int KY = 0; KY < KernelSize; ++KY)
        for (int KX = 0; KX < KernelSize; ++KX)
          Sum += double(In[((N * InChannels + C) * Height + Y + KY) * Width +
                           X + KX]) *
                 Weight[((O * InChannels + C) * KernelSize + KY) * KernelSize +
                        KX];
    Check.check(I, Out[I], Sum);
  }
  return Check.finish();
}
