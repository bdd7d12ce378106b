// --print-signature[=json]: a model's inputs and outputs (names, shapes,
// types) without compiling it; the JSON parses, whatever the names hold.
// RUN: %jitrun %s --print-signature | FileCheck %s --check-prefix=TEXT
// TEXT:      function @we"ird
// TEXT-NEXT: inputs:
// TEXT-NEXT:   image  1x3x8x8xf32
// TEXT-NEXT:   -  4xi8
// TEXT-NEXT: outputs:
// TEXT-NEXT:   a "quoted"\name  1x3x8x8xf32
// RUN: %jitrun %s --print-signature=json > %t.json
// RUN: %debian-python -c "import json; d = json.load(open('%t.json')); assert d['function'] == 'we\"ird', d; assert d['inputs'] == [{'name': 'image', 'shape': [1, 3, 8, 8], 'dtype': 'f32'}, {'name': '', 'shape': [4], 'dtype': 'i8'}], d; assert d['outputs'][0]['name'] == 'a \"quoted\"\\\\name', d; print('json ok')" | FileCheck %s --check-prefix=JSON
// JSON: json ok
// RUN: not %jitrun %s --print-signature=xml 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: jitrun: error: --print-signature takes =json or =text, not 'xml'
// The ONNX importer's names come through too.
// RUN: %jitrun %onnx-testdata/node/test_add_bcast/model.onnx --print-signature=json | FileCheck %s --check-prefix=ONNX
// ONNX: {"function":"main","inputs":[{"name":"x","shape":[3,4,5],"dtype":"f32"},{"name":"y","shape":[5],"dtype":"f32"}],"outputs":[{"name":"sum","shape":[3,4,5],"dtype":"f32"}]}
func.func @"we\"ird"(%x: tensor<1x3x8x8xf32> {jitrun.name = "image"}, %k: tensor<4xi8>)
    -> (tensor<1x3x8x8xf32> {jitrun.name = "a \"quoted\"\\name"}) {
  %e = tensor.empty() : tensor<1x3x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x3x8x8xf32>) outs(%e : tensor<1x3x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<1x3x8x8xf32>
  return %r : tensor<1x3x8x8xf32>
}
