//===- InputSpec.h - Parse --input / --expected_output values -------------===//
//
// Turns the textual tensor values of the jitrun CLI (README.md, "The CLI";
// modelled on iree-run-module's --input) into HostTensors: literal values, a single fill
// value, seeded random data, or a .npy file. Every malformed spec is an
// llvm::Error quoting the spec.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_INPUTSPEC_H
#define JITRUN_SUPPORT_INPUTSPEC_H

#include "support/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace jitrun {

/// Largest tensor (in bytes) that a textual or random spec may create, so a
/// typo such as "100000x100000xf32" is an error, not an out-of-memory kill.
constexpr uint64_t kMaxInputSpecBytes = uint64_t(4) << 30;

/// Parses one --input / --expected_output value:
///  - "2x3xf32=1,2,3,4,5,6": all values, separated by commas and/or spaces;
///    brackets '[' ']' are ignored, so "[1 2 3][4 5 6]" works too;
///  - "2x3xf32=1": a single value fills the tensor;
///  - "2x3xf32": seeded random data, deterministic from `seed`: floats uniform
///    in [-1,1), signed ints uniform in [-8,8), ui8 uniform in [0,8), i1 0/1;
///  - "f32=3.5": rank 0;
///  - "@path.npy": the contents of a .npy file (see readNpy).
/// Floats accept decimal, exponent, "inf", "-inf" and "nan"; a finite value
/// that overflows the element type is an error. Booleans accept
/// true/false/0/1. Integers must be decimal and in range of the type.
llvm::Expected<HostTensor> parseInputSpec(llvm::StringRef spec, uint64_t seed);

} // namespace jitrun

#endif // JITRUN_SUPPORT_INPUTSPEC_H
