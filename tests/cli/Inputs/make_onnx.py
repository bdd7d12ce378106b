"""Writes small ONNX models for the importer's tests: make_onnx.py KIND OUT."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(nodes, inputs, outputs, initializers=(), opset=14):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


kind, out = sys.argv[1], sys.argv[2]
if kind == "unsupported":
    m = model([helper.make_node("Hardmax", ["x"], ["y"], name="upper")], [f32("x", [4, 4])],
              [f32("y", [4, 4])])
elif kind == "symbolic":
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    m = model([helper.make_node("MatMul", ["tokens", "w"], ["y"], name="proj")],
              [f32("tokens", ["batch", 3])], [f32("y", ["batch", 4])], [w])
elif kind == "bad_initializer":
    # helper.make_tensor checks the size; a hand-made TensorProto does not.
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3, 4], raw_data=b"\0" * 7)
    m = model([helper.make_node("Add", ["x", "w"], ["y"])], [f32("x", [3, 4])],
              [f32("y", [3, 4])], [w])
elif kind == "wide_matmul":
    # A projection whose weights (512 x 640 f32, 1.3 MB) fusion packs in
    # panels on two threads; its input (OUT.x.npy) and NumPy's output
    # (OUT.y.npy) beside it.
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((512, 640)) * 0.05).astype(np.float32)
    x = rng.standard_normal((4, 512)).astype(np.float32)
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"])], [f32("x", [4, 512])],
              [f32("y", [4, 640])], [numpy_helper.from_array(w, "w")])
    np.save(out + ".x.npy", x)
    np.save(out + ".y.npy", (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32))
elif kind == "bad_perm":
    # A Transpose whose perm names dim 0 twice, of a constant (permuted at
    # import) and of an input.
    w = numpy_helper.from_array(np.ones((300, 300), np.float32), "w")
    m = model([helper.make_node("Transpose", ["w"], ["wt"], perm=[0, 0]),
               helper.make_node("Add", ["x", "wt"], ["y"])], [f32("x", [300, 300])],
              [f32("y", [300, 300])], [w])
elif kind == "bad_large_initializer":
    # As bad_initializer, with more elements than the importer folds.
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[300, 300], raw_data=b"\0" * 7)
    m = model([helper.make_node("Add", ["x", "w"], ["y"])], [f32("x", [300, 300])],
              [f32("y", [300, 300])], [w])
elif kind == "large_splat":
    # An initializer of 90000 elements all 0.5 (imported as a splat, not a
    # blob) and one of 90000 that differ only in the last (a blob).
    same = numpy_helper.from_array(np.full((300, 300), 0.5, np.float32), "same")
    last = np.full((300, 300), 0.5, np.float32)
    last[-1, -1] = 2.0
    m = model([helper.make_node("Add", ["x", "same"], ["s"]),
               helper.make_node("Mul", ["s", "last"], ["y"])], [f32("x", [300, 300])],
              [f32("y", [300, 300])], [same, numpy_helper.from_array(last, "last")])
    x = np.random.default_rng(4).standard_normal((300, 300)).astype(np.float32)
    np.save(out + ".x.npy", x)
    np.save(out + ".y.npy", (x + np.float32(0.5)) * last)
elif kind == "undefined_input":
    m = model([helper.make_node("Relu", ["nowhere"], ["y"], name="r")], [f32("x", [2])],
              [f32("y", [2])])
elif kind == "shape_subgraph":
    # What exporters write for x.view(x.size(0), -1): Shape, Gather, Unsqueeze,
    # Concat, Reshape; folded at import to a static reshape.
    c0 = numpy_helper.from_array(np.array(0, dtype=np.int64), "zero")
    cm1 = numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one")
    ax = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes")
    m = model([
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["flat"]),
        helper.make_node("Relu", ["flat"], ["y"]),
    ], [f32("x", [2, 3, 4])], [f32("y", [2, 12])], [c0, cm1, ax])
elif kind in ("external", "external_escape", "external_nolength"):
    # Weights in a separate file beside the model (ONNX external data).
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="proj")],
              [f32("x", [2, 3])], [f32("y", [2, 4])], [w])
    onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    if kind == "external_escape":
        m = onnx.load(out, load_external_data=False)
        for e in m.graph.initializer[0].external_data:
            if e.key == "location":
                e.value = "../weights.bin"
        onnx.save(m, out)
    if kind == "external_nolength":
        # No length: the tensor's bytes run to the end of the file.
        m = onnx.load(out, load_external_data=False)
        entries = m.graph.initializer[0].external_data
        keep = [(e.key, e.value) for e in entries if e.key != "length"]
        del entries[:]
        for k, v in keep:
            entries.add(key=k, value=v)
        onnx.save(m, out)
    raise SystemExit(0)
elif kind == "half_cnn":
    # An f16 model (Conv + bias, Relu, MatMul), its input beside it
    # (OUT.x.npy) and what an f16 model computes (OUT.y.npy): each op's
    # products summed in f32 (NumPy, on the exact f16 values) and rounded to
    # f16 once, as PyTorch and oneDNN compute f16 ops.
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float16)
    b = (rng.standard_normal(16) * 0.1).astype(np.float16)
    mm = (rng.standard_normal((16 * 6 * 6, 10)) * 0.05).astype(np.float16)
    x = rng.standard_normal((1, 8, 8, 8)).astype(np.float16)
    half = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT16, shape)
    m = model([
        helper.make_node("Conv", ["x", "w", "b"], ["c"]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"]),
        helper.make_node("MatMul", ["f", "mm"], ["y"]),
    ], [half("x", [1, 8, 8, 8])], [half("y", [1, 10])],
        [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (b, "b"), (mm, "mm"))])
    windows = np.lib.stride_tricks.sliding_window_view(x.astype(np.float32)[0], (3, 3), (1, 2))
    c = np.einsum("ihwkl,oikl->ohw", windows, w.astype(np.float32))
    c = (c + b.astype(np.float32)[:, None, None]).astype(np.float16)
    r = np.maximum(c, 0).reshape(1, -1).astype(np.float32)
    np.save(out + ".x.npy", x)
    np.save(out + ".y.npy", (r @ mm.astype(np.float32)).astype(np.float16))
elif kind == "grouped_conv":
    # RegNet's block: grouped 3x3 convolutions (8 channels a group), with a
    # bias, ReLU between, the second one strided; its input beside it
    # (OUT.x.npy) and PyTorch's output (OUT.y.npy).
    import torch
    torch.manual_seed(0)
    c, g = 48, 6
    conv1 = torch.nn.Conv2d(c, c, 3, padding=1, groups=g)
    conv2 = torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1, groups=g)
    net = torch.nn.Sequential(conv1, torch.nn.ReLU(), conv2).eval()
    x = torch.randn(1, c, 15, 14)
    torch.onnx.export(net, x, out, opset_version=14)
    np.save(out + ".x.npy", x.numpy())
    with torch.no_grad():
        np.save(out + ".y.npy", net(x).numpy())
    raise SystemExit(0)
elif kind in ("large_weights", "large_weights_external"):
    # Weights of more than 65536 elements (the importer keeps them as blobs,
    # not dense attributes) through every path that rearranges a constant:
    # a Gemm's transB, a Reshape, a 3-D Transpose, a ConvTranspose's flip;
    # its inputs (OUT.x0.npy, OUT.x1.npy) and NumPy's outputs (OUT.y0.npy,
    # OUT.y1.npy) beside it.
    rng = np.random.default_rng(2)
    w = lambda *shape: (rng.standard_normal(shape) * 0.05).astype(np.float32)
    gw, gb, flat, w3, wt = w(300, 260), w(300), w(300 * 280), w(60, 280, 5), w(64, 80, 4, 4)
    x = rng.standard_normal((2, 260)).astype(np.float32)
    xi = rng.standard_normal((1, 64, 5, 5)).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in (
        (gw, "gw"), (gb, "gb"), (flat, "flat"), (w3, "w3"), (wt, "wt"),
        (np.array([300, 280], np.int64), "s2"), (np.array([280, 300], np.int64), "s3"))]
    m = model([
        helper.make_node("Gemm", ["x", "gw", "gb"], ["g"], transB=1),
        helper.make_node("Reshape", ["flat", "s2"], ["w2"]),
        helper.make_node("MatMul", ["g", "w2"], ["h"]),
        helper.make_node("Transpose", ["w3"], ["w3t"], perm=[1, 2, 0]),
        helper.make_node("Reshape", ["w3t", "s3"], ["w3r"]),
        helper.make_node("MatMul", ["h", "w3r"], ["y"]),
        helper.make_node("ConvTranspose", ["xi", "wt"], ["z"], strides=[2, 2]),
    ], [f32("x", [2, 260]), f32("xi", [1, 64, 5, 5])], [f32("y", [2, 300]),
                                                        f32("z", [1, 80, 12, 12])], inits)
    x64 = x.astype(np.float64)
    h = (x64 @ gw.T.astype(np.float64) + gb) @ flat.astype(np.float64).reshape(300, 280)
    y = h @ w3.astype(np.float64).transpose(1, 2, 0).reshape(280, 300)
    z = np.zeros((1, 80, 12, 12))
    for i in range(5):
        for j in range(5):
            z[0, :, 2 * i:2 * i + 4, 2 * j:2 * j + 4] += np.einsum(
                "c,cmkl->mkl", xi[0, :, i, j].astype(np.float64), wt.astype(np.float64))
    for name, a in (("x0", x), ("x1", xi), ("y0", y.astype(np.float32)),
                    ("y1", z.astype(np.float32))):
        np.save(out + "." + name + ".npy", a)
    if kind == "large_weights_external":
        onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="large.bin", size_threshold=0)
        raise SystemExit(0)
else:
    raise SystemExit("unknown kind " + kind)
onnx.save(m, out)
