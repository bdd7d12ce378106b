// --dump-dispatch-graph=FILE.dot writes the host program after fusion as a
// Graphviz graph: a node per dispatch (name, root op, linalg op count, result
// shapes, bytes in/out), per fill and copy command, per argument and one for
// the results; edges follow def-use through reshapes, labelled with the type.
// Weights (constants) and tensor.empty get no nodes. dot must accept the file.
//
// RUN: %jitrun %s --input=4x6xf32=1 --dump-dispatch-graph=%t.dot | FileCheck %s --check-prefix=RESULT
// RUN: FileCheck %s < %t.dot
// RUN: FileCheck %s --check-prefix=NOCONST < %t.dot
// RUN: dot -Tsvg %t.dot -o %t.svg
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
//
// Quotes, braces, angle brackets, a backslash and a bar in names are escaped.
// RUN: %jitrun %s --function='net<v1>{"x"} \N|a' --input=4xf32=-1 --dump-dispatch-graph=%t.esc.dot
// RUN: FileCheck %s --check-prefix=ESC < %t.esc.dot
// RUN: dot -Tsvg %t.esc.dot -o %t.esc.svg
// RUN: FileCheck %s --check-prefix=ESCSVG < %t.esc.svg
//
// A bundled model: one dispatch node per dispatch the statistics count.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --dump-dispatch-graph=%t.cnn.dot --dump-statistics=json --dump-statistics-file=%t.cnn.json
// RUN: python3 -c "import json, re, sys; n = len(re.findall(r'^  d[0-9]+ \[label=', open(sys.argv[1]).read(), re.M)); s = json.load(open(sys.argv[2]))['dispatches']; print('dispatch nodes', n, 'statistics', s); sys.exit(n == 0 or n != s)" %t.cnn.dot %t.cnn.json | FileCheck %s --check-prefix=CNN
// RUN: dot -Tsvg %t.cnn.dot -o %t.cnn.svg
// RUN: FileCheck %s --check-prefix=CNNSVG < %t.cnn.svg
//
// An unwritable path or an empty value: a message and exit status 1.
// RUN: not %jitrun %s --input=4x6xf32=1 --dump-dispatch-graph=/nonexistent/dir/x.dot 2>&1 | FileCheck %s --check-prefix=BADPATH
// RUN: sh -c '%jitrun %s --input=4x6xf32=1 --dump-dispatch-graph=/nonexistent/dir/x.dot 2>/dev/null; test $? -eq 1'
// RUN: sh -c '%jitrun %s --input=4x6xf32=1 --dump-dispatch-graph= 2>%t.empty.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=EMPTY < %t.empty.err

// relu(pad(x) @ 0.25 + b) reshaped to 4x4x4 and summed over the last axis;
// x = 1 gives 6 * 0.25 + b = 1.5 + b, four of them per sum: 6 + 4 * 0.05.
// RESULT: result[0]: 4x4xf32=[6.2 6.2 6.2 6.2][6.2 6.2 6.2 6.2][6.2 6.2 6.2 6.2][6.2 6.2 6.2 6.2]

// CHECK: // jitrun dispatch graph of @main: 2 dispatches, 1 fills, 1 copies
// CHECK: digraph dispatches {
// CHECK-DAG: in0 [label="input 0\n4x6xf32\n96 bytes", shape=ellipse
// The pad: a fill of the padded tensor and an insert_slice copy into it.
// CHECK-DAG: fill0 [label="fill = 0\n4x8xf32\nbytes out 128", shape=parallelogram
// CHECK-DAG: copy0 [label="copy (tensor.insert_slice)\n4x6xf32 -> 4x8xf32\nbytes 96", shape=hexagon
// matmul + bias + relu: fill, matmul and generic; in = 4x8 + the 16xf32 bias.
// CHECK-DAG: d0 [label="main_dispatch_0\nlinalg.matmul\n3 linalg ops\n-> 4x16xf32\nbytes in 192, out 256", shape=box
// CHECK-DAG: d1 [label="main_dispatch_1\nlinalg.generic\n2 linalg ops\n-> 4x4xf32\nbytes in 256, out 64", shape=box
// CHECK-DAG: out [label="results\n4x4xf32\n64 bytes"
// CHECK-DAG: in0 -> copy0 [label="tensor<4x6xf32>"];
// CHECK-DAG: fill0 -> copy0 [label="tensor<4x8xf32>"];
// CHECK-DAG: copy0 -> d0 [label="tensor<4x8xf32>"];
// The edge goes through the tensor.expand_shape from the real producer.
// CHECK-DAG: d0 -> d1 [label="tensor<4x4x4xf32>"];
// CHECK-DAG: d1 -> out [label="tensor<4x4xf32>"];
// CHECK: }

// NOCONST-NOT: constant
// NOCONST-NOT: tensor.empty
// NOCONST-NOT: expand_shape
// NOCONST-NOT: tensor<16xf32>

// SVG: <svg
// SVG-DAG: main_dispatch_0
// SVG-DAG: main_dispatch_1
// SVG-DAG: linalg.matmul
// SVG-DAG: tensor&lt;4x4x4xf32&gt;

// ESC: // jitrun dispatch graph of @net<v1>{\"x\"} \\N|a: 1 dispatches
// ESC: label="@net<v1>{\"x\"} \\N|a"
// ESC: d0 [label="net<v1>{\"x\"} \\N|a_dispatch_0\nlinalg.generic\n1 linalg op\n-> 4xf32\nbytes in 16, out 16"
// ESC: in0 -> d0 [label="tensor<4xf32>"];
// ESC: d0 -> out [label="tensor<4xf32>"];
// ESCSVG: <svg
// ESCSVG: net&lt;v1&gt;{&quot;x&quot;} \N|a_dispatch_0

// CNN: dispatch nodes [[N:[1-9][0-9]*]] statistics [[N]]
// CNNSVG: <svg
// CNNSVG: main_dispatch_0

// BADPATH: jitrun: error: cannot write the dispatch graph: cannot write '/nonexistent/dir/x.dot': cannot create a temporary file next to it: No such file or directory
// EMPTY: jitrun: error: --dump-dispatch-graph needs a file name

func.func @main(%x: tensor<4x6xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.25> : tensor<8x16xf32>
  %b = arith.constant dense<[0.0, 0.1, -0.1, 0.2, -0.2, 0.3, -0.3, 0.4, -0.4, 0.5, -0.5, 0.6, -0.6, 0.7, -0.7, 0.8]> : tensor<16xf32>
  %padded = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x6xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%padded, %w : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %act = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                          affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %r3 = tensor.expand_shape %act [[0], [1, 2]] output_shape [4, 4, 4]
      : tensor<4x16xf32> into tensor<4x4x4xf32>
  %se = tensor.empty() : tensor<4x4xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>,
                                          affine_map<(i, j, k) -> (i, j)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%r3 : tensor<4x4x4xf32>) outs(%sf : tensor<4x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %sum : tensor<4x4xf32>
}

func.func @"net<v1>{\22x\22} \\N|a"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
