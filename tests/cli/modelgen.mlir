// modelgen, the zoo generator: bad usage is exit 1 with a message; --list
// prints every model, sorted; -o FILE.mlir writes text, FILE.mlirbc bytecode.
//
// RUN: not %modelgen no_such_model --size=test -o %t.mlirbc 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: modelgen: error: unknown model 'no_such_model'; `modelgen --list` prints them
//
// RUN: not %modelgen fragment --size=huge -o %t.mlirbc 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: modelgen: error: --size must be test or full, got 'huge'
//
// RUN: not %modelgen fragment --size=test 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: modelgen: error: -o FILE is required
//
// RUN: not %modelgen 2>&1 | FileCheck %s --check-prefix=NONAME
// NONAME: modelgen: error: no model name; `modelgen --list` prints them
//
// RUN: not %modelgen fragment -o %t.missing/dir/fragment.mlirbc 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: modelgen: error: cannot write '{{.*}}fragment.mlirbc':
//
// RUN: %modelgen --list | FileCheck %s --check-prefix=LIST
// The linalg family (the TOSA family's names are interleaved, in order):
// LIST: {{^}}bert_encoder{{$}}
// LIST: {{^}}collatz{{$}}
// LIST: {{^}}fragment{{$}}
// LIST: {{^}}fullyconnected{{$}}
// LIST: {{^}}minilm{{$}}
// LIST: {{^}}mnist{{$}}
// LIST: {{^}}mobilebert{{$}}
// LIST: {{^}}resnet50{{$}}
// LIST: {{^}}unidirectional_lstm{{$}}
//
// The dynamic variants (build/zoo/dynamic/NAME.mlirbc, models/CMakeLists.txt)
// and the dim each leaves open; a model without one is refused.
// RUN: %modelgen --list --dynamic | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: {{^}}bert_encoder sequence{{$}}
// DYNAMIC-NEXT: {{^}}minilm sequence{{$}}
// DYNAMIC-NEXT: {{^}}mobilebert sequence{{$}}
// DYNAMIC-NEXT: {{^}}mobilenet_v2 batch{{$}}
// DYNAMIC-NEXT: {{^}}resnet50 batch{{$}}
// DYNAMIC-NOT: {{.}}
// RUN: not %modelgen mnist --dynamic -o %t.mlirbc 2>&1 | FileCheck %s --check-prefix=NODYN
// NODYN: modelgen: error: 'mnist' has no dynamic variant; `modelgen --list --dynamic` prints the models that have one
// RUN: %modelgen bert_encoder --dynamic -o %t.bert.mlir
// RUN: FileCheck %s --check-prefix=DYNTEXT < %t.bert.mlir
// DYNTEXT: func.func @main(%[[X:.*]]: tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
// DYNTEXT: tensor.dim %[[X]], %{{.*}} : tensor<1x?x64xf32>
//
// Text and bytecode of the same model are the same module.
// RUN: %modelgen fragment --size=test -o %t.fragment.mlir
// RUN: %modelgen fragment --size=test -o %t.fragment.mlirbc
// RUN: FileCheck %s --check-prefix=TEXT < %t.fragment.mlir
// RUN: %jit-opt %t.fragment.mlirbc | FileCheck %s --check-prefix=TEXT
// TEXT: func.func @main(%{{.*}}: tensor<8x32xf32>) -> tensor<8x32xf32>
// TEXT: linalg.matmul
