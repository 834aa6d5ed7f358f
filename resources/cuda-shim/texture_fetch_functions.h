//===-- texture_fetch_functions.h - CUDA 13 stand-in for Clang 19 -*- C++ -*-===//
//
/// \file
/// Clang 19's CUDA wrapper includes this header, which CUDA 13 removed. The
/// texture fetch functions it declared are gone from CUDA 13 as well, so an
/// empty stand-in is exact. clang-maxcode adds this folder with -isystem when
/// it parses CUDA sources (DESIGN section 8).
//
//===----------------------------------------------------------------------===//
