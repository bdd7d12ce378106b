"""Prints a function of N chained elementwise ops on tensor<16xf32>:
alternately x + 1 and x * 1 (long_elementwise_chain.mlir)."""
import sys

n = int(sys.argv[1])
lines = ["func.func @main(%a: tensor<16xf32>) -> tensor<16xf32> {",
         "  %one = arith.constant dense<1.0> : tensor<16xf32>",
         "  %e = tensor.empty() : tensor<16xf32>"]
prev = "%a"
for i in range(n):
    op = "linalg.add" if i % 2 == 0 else "linalg.mul"
    lines.append("  %%v%d = %s ins(%s, %%one : tensor<16xf32>, tensor<16xf32>) "
                 "outs(%%e : tensor<16xf32>) -> tensor<16xf32>" % (i, op, prev))
    prev = "%%v%d" % i
lines.append("  return %s : tensor<16xf32>" % prev)
lines.append("}")
print("\n".join(lines))
