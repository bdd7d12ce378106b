"""Writes the deeply nested models of deep_nesting.mlir next to PREFIX."""
import sys

prefix = sys.argv[1]


def write(suffix, text):
    with open(prefix + suffix, "w") as f:
        f.write(text)


def regions(n, op):
    inner = "scf.yield %a : tensor<4xf32>"
    for i in range(n):
        if op == "for":
            inner = ("%%x%d = scf.for %%i = %%c0 to %%c1 step %%c1 iter_args(%%a = %%a) "
                     "-> (tensor<4xf32>) {\n%s\n}\nscf.yield %%x%d : tensor<4xf32>" % (i, inner, i))
        else:
            inner = ("%%x%d = scf.execute_region -> tensor<4xf32> {\n%s\n}\n"
                     "scf.yield %%x%d : tensor<4xf32>" % (i, inner, i))
    last = "scf.yield %%x%d" % (n - 1)
    return ("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
            + inner.replace(last, "return %%x%d" % (n - 1)) + "\n}\n")


write(".dense.mlir", "func.func @main() -> tensor<1xf32> {\n %c = arith.constant dense<"
      + "[" * 20000 + "1.0" + "]" * 20000 + "> : tensor<1xf32>\n return %c : tensor<1xf32>\n}\n")
write(".tuple.mlir", "func.func @main(%a: " + "tuple<" * 100000 + "f32" + ">" * 100000
      + ") {\n return\n}\n")
write(".paren.mlir", "(" * 1000000)
write(".region.mlir", regions(5000, "region"))
write(".for.mlir", regions(5000, "for"))
write(".ok.mlir", regions(900, "region"))
