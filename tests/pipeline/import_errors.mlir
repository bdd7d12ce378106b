// Models that do not parse or do not verify: each is an error at the
// offending location, reported by jit-opt's parser (the same parser jitrun
// uses). The import pipeline does not change what is reported, since nothing
// runs before the module parses and verifies.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(jitrun-import-pipeline)'

// A custom-syntax op of a dialect nobody registered.
func.func @unknown_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{Dialect `mystery' not found for custom op 'mystery.transmogrify'}}
  // expected-note @below {{Available dialects: }}
  %r = mystery.transmogrify %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A generic-form op of an unregistered dialect.
func.func @unknown_dialect_generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{operation being parsed with an unregistered dialect}}
  "foo.bar"() : () -> ()
  return %a : tensor<4xf32>
}

// -----

// An op name that does not exist in a loaded dialect (generic form).
func.func @unknown_op_known_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{unregistered operation 'linalg.frobnicate' found in dialect ('linalg') that does not allow unknown operations}}
  %r = "linalg.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An op name that does not exist in a loaded dialect (custom form).
func.func @unknown_tosa_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{custom op 'tosa.frobnicate' is unknown}}
  %r = tosa.frobnicate %a : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @undefined_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{use of undeclared SSA value name}}
  return %b : tensor<4xf32>
}

// -----

func.func @redefined_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{previously defined here}}
  %r = arith.addf %a, %a : tensor<4xf32>
  // expected-error @below {{redefinition of SSA value '%r'}}
  %r = arith.mulf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-note @below {{prior use here}}
func.func @operand_type_mismatch(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{use of value '%a' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<4xf32>'}}
  %r = arith.addf %a, %a : tensor<8xf32>
  return %r : tensor<4xf32>
}

// -----

// An element type that does not exist.
// expected-error @below {{expected non-function type}}
func.func @bad_element_type(%a: tensor<4xq7>) {
  return
}

// -----

// A malformed float literal.
func.func @bad_literal() {
  // expected-error @below {{expected three consecutive dots for an ellipsis}}
  %c = arith.constant 1.0.0 : f32
  return
}

// -----

// A dense literal with the wrong number of elements.
func.func @bad_dense_literal() {
  // expected-error @below {{inferred shape of elements literal ([2]) does not match type ([3])}}
  %c = arith.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return
}

// -----

// Two functions with the same name.
// expected-note @below {{see existing symbol definition here}}
func.func @dup(%a: tensor<4xf32>) { return }
// expected-error @below {{redefinition of symbol named 'dup'}}
func.func @dup(%a: tensor<4xf32>) { return }

// -----

// Parses, but does not verify: the returned type is not the declared one.
func.func @return_mismatch(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @below {{type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<8xf32>') in function @return_mismatch}}
  return %a : tensor<4xf32>
}

// -----

// A TOSA op that parses but fails its verifier.
func.func @tosa_not_broadcastable(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tosa.add' op operands don't have broadcast-compatible shapes}}
  %r = tosa.add %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A function body cut off before its closing brace: the error is at the end
// of the input, which is the end of the last line of this case.
func.func @missing_brace(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
// expected-error {{expected operation name in quotes}}
