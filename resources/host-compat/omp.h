//===-- omp.h - GCC's omp.h, as Clang 19 can read it -------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// When clang-maxcode parses a command whose host compiler is GCC (nvcc's
/// default, or g++ itself), it puts GCC's include folder after every other
/// one, so that omp.h is found as that compiler finds it, and this folder
/// before them. GCC 11 and later declare omp_alloc and its kind with
/// __attribute__((__malloc__(omp_free))), the deallocator form of the
/// attribute, which Clang 19 rejects ("'__malloc__' attribute takes no
/// arguments") and Clang 22 accepts. For the one include of GCC's omp.h,
/// that form is expanded to nothing: it tells the optimiser which function
/// frees the memory, which parsing does not need. The plain __malloc__
/// attribute, not followed by an argument list, is untouched.
///
//===----------------------------------------------------------------------===//

#if defined(__clang__) && __clang_major__ < 22
#pragma push_macro("__malloc__")
#define __malloc__(...)
#include_next <omp.h>
#pragma pop_macro("__malloc__")
#else
#include_next <omp.h>
#endif
