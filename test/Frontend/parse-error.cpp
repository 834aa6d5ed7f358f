// Errors block only the targets they touch (DESIGN section 8): a definition
// holding one, and a definition using a declaration that holds one, are
// listed as blocked with the reason; the others are listed as usual, and the
// errors are counted. Naming a blocked target is an error saying why.
// RUN: %clang-maxcode --list-targets %s -- -std=c++17 > %t.out 2> %t.err; echo "exit=$?" >> %t.out
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: not %clang-maxcode --list-variants --target=broken %s -- -std=c++17 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: not %clang-maxcode --list-variants --target=usesBad %s -- -std=c++17 2>&1 | FileCheck %s --check-prefix=USES

int fine(int X) { return X; }
int broken(int X) { return X + undeclared_name; }
int callsBroken(int X) { return broken(X) + 1; }

struct Bad {
  UnknownType Field;
};
int usesBad(Bad &B) { return sizeof(B); }

// DIAG: parse-error.cpp:13:32: error: use of undeclared identifier 'undeclared_name'
// DIAG: parse-error.cpp:17:3: error: unknown type name 'UnknownType'

// CHECK:      NAME KIND                 LOCATION             LOOPS LAUNCHES  SHARE
// CHECK-NEXT: fine cpu-function         parse-error.cpp:12-12     0        0      -
// CHECK-NEXT: blocked: broken (cpu-function, parse-error.cpp:13-13): an error in its definition: {{.*}}parse-error.cpp:13:32: use of undeclared identifier 'undeclared_name'
// CHECK-NEXT: blocked: callsBroken (cpu-function, parse-error.cpp:14-14): it uses 'broken', which has an error: {{.*}}parse-error.cpp:13:32: use of undeclared identifier 'undeclared_name'
// CHECK-NEXT: blocked: usesBad (cpu-function, parse-error.cpp:19-19): it uses 'Bad', whose declaration has an error
// CHECK-NEXT: parse errors: 2 (each blocks only the targets it touches)
// CHECK-NEXT: exit=0

// JSON:      "targets": [
// JSON-NEXT:   {
// JSON-NEXT:     "name": "fine",
// JSON:      "parse_errors": 2,
// JSON-NEXT: "blocked": [
// JSON-NEXT:   {
// JSON-NEXT:     "name": "broken",
// JSON-NEXT:     "kind": "cpu-function",
// JSON-NEXT:     "file": "{{.*}}parse-error.cpp",
// JSON-NEXT:     "line": 13,
// JSON-NEXT:     "end_line": 13,
// JSON-NEXT:     "reason": "an error in its definition: {{.*}}parse-error.cpp:13:32: use of undeclared identifier 'undeclared_name'"
// JSON-NEXT:   },
// JSON:          "name": "callsBroken",
// JSON:          "name": "usesBad",

// NAMED: error: target 'broken' cannot be optimised: an error in its definition: {{.*}}parse-error.cpp:13:32: use of undeclared identifier 'undeclared_name'
// USES: error: target 'usesBad' cannot be optimised: it uses 'Bad', whose declaration has an error
