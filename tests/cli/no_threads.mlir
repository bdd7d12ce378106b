// With no thread to be had (pthread_create fails: a process at its thread
// limit), jitrun compiles and runs on the thread it has: the right result,
// never an abort. The kernel compiler's threads used to throw out of the
// compile (std::system_error, terminate: exit 134).
// UNSUPPORTED: asan, tsan
//
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --reference --output=@%t.ref.npy
// RUN: env LD_PRELOAD=%no-threads %jitrun %zoo/mnist.mlirbc --threads=2 --input=1x1x28x28xf32 --expected_output=@%t.ref.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
//
// A dynamic model at new lengths: no background compile (tiered), the
// calls still answered.
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --reference --input=1x16x64xf32 --input=1x7x64xf32 --output=@%t.b0.npy --output=@%t.b1.npy
// RUN: rm -rf %t.cache && env LD_PRELOAD=%no-threads %jitrun %zoo/dynamic/bert_encoder.mlirbc --threads=2 --cache-dir=%t.cache --shape-policy=tiered \
// RUN:   --input=1x16x64xf32 --input=1x7x64xf32 --expected_output=@%t.b0.npy --expected_output=@%t.b1.npy | FileCheck %s --check-prefix=TWO
// TWO: run[0] result[0]: matches the expected output
// TWO-NEXT: run[1] result[0]: matches the expected output
//
// Weights of 1 MiB and more are packed on two threads; without a second
// thread, on this one (a 512 x 640 projection, against NumPy).
// RUN: %debian-python %S/Inputs/make_onnx.py wide_matmul %t.wide.onnx
// RUN: env LD_PRELOAD=%no-threads %jitrun %t.wide.onnx --no-cache --input=@%t.wide.onnx.x.npy --expected_output=@%t.wide.onnx.y.npy | FileCheck %s
