// Flag values jitrun cannot use: a non-numeric thread count, an unknown fusion
// mode, --input without a value, an unknown flag, an unknown entry function.
// RUN: sh -c '%jitrun %s --input=4xf32=1 --threads=abc 2>%t.threads.err; test $? -eq 1'
// RUN: FileCheck %s < %t.threads.err --check-prefix=THREADS
// RUN: sh -c '%jitrun %s --input=4xf32=1 --fusion=bogus 2>%t.fusion.err; test $? -eq 1'
// RUN: FileCheck %s < %t.fusion.err --check-prefix=FUSION
// RUN: sh -c '%jitrun %s --input 2>%t.input.err; test $? -eq 1'
// RUN: FileCheck %s < %t.input.err --check-prefix=INPUT
// RUN: sh -c '%jitrun %s --input=4xf32=1 --no-such-flag 2>%t.unknown.err; test $? -eq 1'
// RUN: FileCheck %s < %t.unknown.err --check-prefix=UNKNOWN
// RUN: sh -c '%jitrun %s --input=4xf32=1 --function=nope 2>%t.func.err; test $? -eq 1'
// RUN: FileCheck %s < %t.func.err --check-prefix=FUNC
// LLVM's command-line parser words these as "for the --threads option: ...".
// THREADS: threads
// THREADS-SAME: abc
// FUSION: fusion
// FUSION-SAME: bogus
// INPUT: input
// UNKNOWN: no-such-flag
// FUNC: error:
// FUNC-SAME: nope
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
