// TOSA that parses and verifies but that the import pipeline cannot lower to
// linalg: the conversion fails at the op.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(jitrun-import-pipeline)'

func.func @tosa_custom(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{failed to legalize operation 'tosa.custom'}}
  %r = tosa.custom %a {domain_name = "jitrun", operator_name = "mystery", implementation_attrs = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
