"""Writes a CUDA file with N small kernels, each launched from main, so that
the CUDA rules propose many variants of it.

  many-kernels.py FILE N
"""
import sys

path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("#include <cuda_runtime.h>\n")
    for k in range(n):
        f.write(
            "__global__ void k%d(float *y, float *x, float s, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) y[i] = expf(x[i]) / s + y[i];\n"
            "}\n" % k)
    f.write("int main() {\n  float *x, *y;\n"
            "  cudaMalloc(&x, 4096);\n  cudaMalloc(&y, 4096);\n")
    for k in range(n):
        f.write("  k%d<<<(1024 + 255) / 256, 256>>>(y, x, 2.0f, 1024);\n" % k)
    f.write("  return 0;\n}\n")
