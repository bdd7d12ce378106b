// Input npy files that are not npy, have a broken header, hold too few
// bytes for their shape, or do not exist. Each error names the file.
// RUN: printf 'this is not an npy file\n' > %t.text.npy
// RUN: sh -c '%jitrun %s --input=@%t.text.npy 2>%t.text.err; test $? -eq 1'
// RUN: FileCheck %s < %t.text.err --check-prefix=TEXT
// RUN: sh -c '%jitrun %s --input=@%S/Inputs/bad_header.npy 2>%t.header.err; test $? -eq 1'
// RUN: FileCheck %s < %t.header.err --check-prefix=HEADER
// RUN: sh -c '%jitrun %s --input=@%S/Inputs/f32_2x3_truncated.npy 2>%t.trunc.err; test $? -eq 1'
// RUN: FileCheck %s < %t.trunc.err --check-prefix=TRUNC
// RUN: rm -f %t.missing.npy
// RUN: sh -c '%jitrun %s --input=@%t.missing.npy 2>%t.missing.err; test $? -eq 1'
// RUN: FileCheck %s < %t.missing.err --check-prefix=MISSING
// TEXT: error:
// TEXT-SAME: text.npy
// HEADER: error:
// HEADER-SAME: bad_header.npy
// TRUNC: error:
// TRUNC-SAME: f32_2x3_truncated.npy
// MISSING: error:
// MISSING-SAME: missing.npy
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
