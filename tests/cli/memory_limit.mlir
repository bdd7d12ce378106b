// Buffer planning and the memory limit. With one op per dispatch, the chain
// a -> b -> c -> d -> result has three 4 KiB intermediates; b (commands 0-1)
// and d (commands 2-3) never live at once, so they share bytes: 8 KiB of
// arena for 12 KiB of intermediates. The model needs its 8 KiB arena plus
// its 4 KiB result: 12288 bytes fit a limit of 12288 and not one of 12287.
// RUN: %jitrun %s --fusion=none --input=1024xf32=1 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %s --fusion=none --input=1024xf32=1 --memory-limit=12288 | FileCheck %s --check-prefix=RESULT
// RUN: sh -c '%jitrun %s --fusion=none --input=1024xf32=1 --memory-limit=12287 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=LIMIT < %t.err
// STATS: "transient_bytes":8192,"intermediate_bytes":12288
// RESULT-LABEL: result[0]: 1024xf32=
// RESULT-SAME: 16 16 16
// LIMIT: jitrun: error: model 'main' needs 12288 bytes of host memory (constants 0, intermediates of one run 8192, results 4096, counted up to the host program), over the memory limit of 12287 bytes
#map = affine_map<(i) -> (i)>
func.func @main(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %b = linalg.add ins(%a, %a : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %c = linalg.add ins(%b, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %d = linalg.add ins(%c, %c : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.add ins(%d, %d : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
