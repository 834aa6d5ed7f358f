// The "template-keyword" entry of the parse's adjustments (docs/CUDA.md):
// `obj.template f(x)`, the template keyword before a member called with no
// template argument list, as templated library code writes it. nvcc's front
// end accepts it (a warning) and so does GCC; Clang makes it an error by
// default, which blocked every target using the template. Where `f` is not
// a template at all, Clang still rejects the instantiation (nvcc does not):
// that error blocks only that template and the functions that use it.
// REQUIRES: nvcc
// nvcc's front end accepts the reproduction as it is:
// RUN: %cuda_path/bin/nvcc -cuda -std=c++17 %s -o %t.ii
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 > %t.json
// RUN: FileCheck %s < %t.json

// CHECK:      "name": "scaleAll",
// CHECK-NEXT: "kind": "cuda-kernel",
// CHECK:      "name": "Holder::get",
// CHECK:      "name": "callGet",
// CHECK-NEXT: "kind": "cpu-function",
// CHECK:      "name": "useTemplate",
// CHECK:      "parse_errors": 1,
// CHECK-NEXT: "blocked": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "name": "callSet",
// CHECK-NEXT:     "kind": "cpu-function",
// CHECK:          "reason": "an error in its definition: {{.*}}'set' following the 'template' keyword does not refer to a template"
// CHECK:          "name": "useNonTemplate",
// CHECK:          "reason": "it uses 'callSet', whose declaration has an error: {{.*}}compat-template-keyword.cu:36:59: 'set' following the 'template' keyword does not refer to a template"

struct Holder {
  template <typename T = int> T get() const { return T(); }
  void set(int) {}
};

template <typename Obj> int callGet(const Obj &O) { return O.template get(); }

template <typename Obj> void callSet(Obj &O) { O.template set(1); }

__global__ void scaleAll(float *X, float S) { X[threadIdx.x] *= S; }

int useTemplate() { return callGet(Holder()); }

void useNonTemplate() {
  Holder H;
  callSet(H);
}
