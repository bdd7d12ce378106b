"""ONNX's quantized matmuls and convolutions: 8-bit operands with constant
zero points contract as int8 (the zero points corrected algebraically), and
must give exactly what subtracting the zero points first gives: NumPy's
integer sums, and the same model with its zero points fed at run time (which
takes the subtract-first path)."""
import os
import sys

import numpy as np
import pytest

import jitrun

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from onnx_quantize import quantize_dynamic  # noqa: E402  (ONNX Runtime's, rewritten)

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as oh  # noqa: E402
from onnx import numpy_helper as nh  # noqa: E402

ONNX_TYPE = {np.uint8: T.UINT8, np.int8: T.INT8, np.int32: T.INT32, np.float32: T.FLOAT}


def save(path, nodes, inputs, outputs, inits):
    graph = oh.make_graph(nodes, "q", inputs, outputs, inits)
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), path)
    return path


def host_has(flag):
    with open("/proc/cpuinfo") as f:
        return flag in f.read().split()


@pytest.mark.parametrize("a_type,b_type,per_column", [
    (np.uint8, np.int8, True),
    (np.int8, np.uint8, False),
    (np.uint8, np.uint8, True),
])
def test_matmul_integer_is_exact(a_type, b_type, per_column, tmp_path):
    rng = np.random.default_rng(1)
    m, k, n = 40, 96, 64
    info = np.iinfo
    a = rng.integers(info(a_type).min, info(a_type).max, (m, k), endpoint=True).astype(a_type)
    b = rng.integers(info(b_type).min, info(b_type).max, (k, n), endpoint=True).astype(b_type)
    za = np.array(info(a_type).max // 3, a_type)
    zb = (rng.integers(-5, 6, n) + (128 if b_type == np.uint8 else 0)).astype(b_type) \
        if per_column else np.array(7, b_type)
    path = save(str(tmp_path / "mmi.onnx"), [oh.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])],
                [oh.make_tensor_value_info("a", ONNX_TYPE[a_type], [m, k])],
                [oh.make_tensor_value_info("y", T.INT32, [m, n])],
                [nh.from_array(b, "b"), nh.from_array(za, "za"), nh.from_array(zb, "zb")])
    want = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb.astype(np.int64))
    got = jitrun.load(path, cache_dir=False)(a)
    assert got.dtype == np.int32 and np.array_equal(got, want)


def quantized_net(path, zero_points_as_inputs):
    """QuantizeLinear -> QLinearConv (3x3, pad 1, bias, per-channel scales)
    -> QLinearConv (3x3, stride 2) -> Reshape -> QLinearMatMul (per-column
    weight zero points) -> DequantizeLinear: ONNX Runtime's QOperator form.
    The zero points are initializers, or graph inputs (fed at run time)."""
    rng = np.random.default_rng(2)
    w1 = rng.integers(-127, 128, (16, 3, 3, 3)).astype(np.int8)
    w2 = rng.integers(-127, 128, (24, 16, 3, 3)).astype(np.int8)
    fc = rng.integers(-127, 128, (24 * 8 * 8, 32)).astype(np.int8)
    inits = [
        nh.from_array(np.array(0.02, np.float32), "xs"),
        nh.from_array(w1, "w1"), nh.from_array(rng.uniform(0.01, 0.02, 16).astype(np.float32), "w1s"),
        nh.from_array(np.array(0.4, np.float32), "y1s"),
        nh.from_array(rng.integers(-300, 300, 16).astype(np.int32), "b1"),
        nh.from_array(w2, "w2"), nh.from_array(np.array(0.015, np.float32), "w2s"),
        nh.from_array(np.array(6.0, np.float32), "y2s"),
        nh.from_array(np.array([1, 24 * 8 * 8], np.int64), "shape"),
        nh.from_array(fc, "fc"), nh.from_array(np.array(0.01, np.float32), "fcs"),
        nh.from_array(np.array(100.0, np.float32), "ys"),
    ]
    zero_points = {
        "xz": np.array(128, np.uint8), "w1z": np.zeros(16, np.int8), "y1z": np.array(20, np.uint8),
        "w2z": np.array(0, np.int8), "y2z": np.array(100, np.uint8),
        "fcz": rng.integers(-3, 4, 32).astype(np.int8), "yz": np.array(131, np.uint8),
    }
    inputs = [oh.make_tensor_value_info("x", T.FLOAT, [1, 3, 16, 16])]
    for name, v in zero_points.items():
        if zero_points_as_inputs:
            inputs.append(oh.make_tensor_value_info(name, ONNX_TYPE[v.dtype.type], list(v.shape)))
        else:
            inits.append(nh.from_array(v, name))
    nodes = [
        oh.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        oh.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "y1s", "y1z", "b1"],
                     ["c1"], pads=[1, 1, 1, 1]),
        oh.make_node("QLinearConv", ["c1", "y1s", "y1z", "w2", "w2s", "w2z", "y2s", "y2z"],
                     ["c2"], strides=[2, 2], pads=[1, 1, 1, 1]),
        oh.make_node("Reshape", ["c2", "shape"], ["flat"]),
        oh.make_node("QLinearMatMul", ["flat", "y2s", "y2z", "fc", "fcs", "fcz", "ys", "yz"], ["yq"]),
        oh.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    save(path, nodes, inputs, [oh.make_tensor_value_info("y", T.FLOAT, [1, 32])], inits)
    return [v for v in zero_points.values()] if zero_points_as_inputs else []


def test_int8_contractions_equal_zero_points_subtracted_first(tmp_path, jitrun_cli):
    x = np.random.default_rng(3).uniform(-2.5, 2.5, (1, 3, 16, 16)).astype(np.float32)
    fast_path, slow_path = str(tmp_path / "fast.onnx"), str(tmp_path / "slow.onnx")
    quantized_net(fast_path, False)
    zero_points = quantized_net(slow_path, True)
    fast = jitrun.load(fast_path, cache_dir=False)
    slow = jitrun.load(slow_path, cache_dir=False)
    got, want = fast(x), slow(x, *zero_points)
    assert np.array_equal(got, want)
    assert len(np.unique(want)) > 8  # not saturated to a constant
    if host_has("avx512_vnni"):
        # The constant zero points' convolutions are int8 ones (VNNI's
        # vpdpbusd); with the zero points subtracted first, i32 ones.
        assert fast.statistics["vnni_kernels"] >= 2
        assert slow.statistics["vnni_kernels"] == 0


def dynamic_linear(path, m, k, n, seed=4):
    """ONNX Runtime's dynamic quantization of a linear layer (quantize_dynamic):
    DynamicQuantizeLinear of the activations (scale and zero point computed
    at run time), MatMulInteger with int8 weights, Cast, Mul by both scales,
    Add of the bias. Returns the weights, their scale and the bias."""
    rng = np.random.default_rng(seed)
    w = rng.integers(-127, 128, (k, n)).astype(np.int8)
    ws = np.array(0.004, np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    nodes = [
        oh.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        oh.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
        oh.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        oh.make_node("Mul", ["xs", "ws"], ["scale"]),
        oh.make_node("Mul", ["accf", "scale"], ["yf"]),
        oh.make_node("Add", ["yf", "bias"], ["y"]),
    ]
    save(path, nodes, [oh.make_tensor_value_info("x", T.FLOAT, [m, k])],
         [oh.make_tensor_value_info("y", T.FLOAT, [m, n])],
         [nh.from_array(w, "w"), nh.from_array(np.array(0, np.int8), "wz"),
          nh.from_array(ws, "ws"), nh.from_array(bias, "bias")])
    return w, ws, bias


def test_dynamically_quantized_linear_layer(tmp_path):
    m, k, n = 24, 128, 96
    path = str(tmp_path / "dyn.onnx")
    w, ws, bias = dynamic_linear(path, m, k, n)
    x = np.random.default_rng(5).standard_normal((m, k)).astype(np.float32) * 3
    # ONNX's DynamicQuantizeLinear, then the integer sums, in NumPy.
    lo, hi = min(0.0, x.min()), max(0.0, x.max())
    xs = np.float32((hi - lo) / 255)
    xz = np.clip(np.round(-np.float32(lo) / xs), 0, 255)
    xq = np.clip(np.round(x / xs) + xz, 0, 255)
    acc = (xq.astype(np.int64) - int(xz)) @ w.astype(np.int64)
    want = acc.astype(np.float32) * (xs * ws) + bias
    got = jitrun.load(path, cache_dir=False)(x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def test_dynamically_quantized_pytorch_encoder(tmp_path):
    """A PyTorch transformer encoder exported to ONNX and quantized as ONNX
    Runtime's quantize_dynamic writes it: its [1, L, d] activations
    quantized per call, its projections int8 matmuls (AMX tiles or VNNI),
    within the quantization's error of the float model."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, dropout=0.0)
    enc = torch.nn.TransformerEncoder(layer, 2).eval()
    with torch.no_grad():
        for p in enc.parameters():  # distinct weights per layer
            p.copy_(torch.randn_like(p) * (0.1 if p.dim() > 1 else 0.02))
    x = torch.randn(1, 24, 64)
    f32_path, q_path = str(tmp_path / "enc.onnx"), str(tmp_path / "enc_q.onnx")
    torch.onnx.export(enc, x, f32_path, opset_version=14)
    quantized = quantize_dynamic(onnx.load(f32_path))
    assert sum(n.op_type == "MatMulInteger" for n in quantized.graph.node) == 6
    onnx.save(quantized, q_path)
    with torch.no_grad():
        want = enc(x).numpy()
    m = jitrun.load(q_path, cache_dir=False)
    got = m(x.numpy())
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 0.05, err  # int8 weights and activations: about 1 %
    assert not np.array_equal(got, jitrun.load(f32_path, cache_dir=False)(x.numpy()))
    if host_has("avx512_vnni"):
        assert m.statistics["vnni_kernels"] + m.statistics["amx_kernels"] >= 1


def qdq_net(path, zero_points_as_inputs):
    """A QDQ model (ONNX Runtime's quantize_static default): QuantizeLinear
    and DequantizeLinear around a float Conv (3x3, pad 1, bias, per-channel
    int8 weights) and a float Gemm (transB, bias, per-row int8 weights), in
    shapes whose int8 kernels beat f32 (so both take the int8 path)."""
    rng = np.random.default_rng(6)
    wq = rng.integers(-127, 128, (16, 8, 3, 3)).astype(np.int8)
    fq = rng.integers(-127, 128, (32, 64)).astype(np.int8)
    consts = {
        "xs": np.array(0.03, np.float32), "ws": rng.uniform(0.005, 0.02, 16).astype(np.float32),
        "b": rng.standard_normal(16).astype(np.float32),
        "zs": np.array(0.02, np.float32), "fs": rng.uniform(0.01, 0.03, 32).astype(np.float32),
        "c": rng.standard_normal(32).astype(np.float32),
    }
    zero_points = {"xz": np.array(131, np.uint8), "wz": np.zeros(16, np.int8),
                   "zz": np.array(-3, np.int8), "fz": np.zeros(32, np.int8)}
    inits = [nh.from_array(wq, "wq"), nh.from_array(fq, "fq")]
    inits += [nh.from_array(v, k) for k, v in consts.items()]
    inputs = [oh.make_tensor_value_info("x", T.FLOAT, [1, 8, 12, 12]),
              oh.make_tensor_value_info("z", T.FLOAT, [12, 64])]
    for k, v in zero_points.items():
        if zero_points_as_inputs:
            inputs.append(oh.make_tensor_value_info(k, ONNX_TYPE[v.dtype.type], list(v.shape)))
        else:
            inits.append(nh.from_array(v, k))
    nodes = [
        oh.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        oh.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        oh.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=0),
        oh.make_node("Conv", ["xd", "wd", "b"], ["y"], pads=[1, 1, 1, 1]),
        oh.make_node("QuantizeLinear", ["z", "zs", "zz"], ["zq"]),
        oh.make_node("DequantizeLinear", ["zq", "zs", "zz"], ["zd"]),
        oh.make_node("DequantizeLinear", ["fq", "fs", "fz"], ["fd"], axis=0),
        oh.make_node("Gemm", ["zd", "fd", "c"], ["g"], transB=1),
    ]
    save(path, nodes, inputs, [oh.make_tensor_value_info("y", T.FLOAT, [1, 16, 12, 12]),
                               oh.make_tensor_value_info("g", T.FLOAT, [12, 32])], inits)
    return wq, fq, consts, zero_points


def test_qdq_conv_and_gemm_contract_in_int8(tmp_path):
    rng = np.random.default_rng(7)
    x = rng.uniform(-3, 3, (1, 8, 12, 12)).astype(np.float32)
    z = rng.uniform(-2, 2, (12, 64)).astype(np.float32)
    fast_path, slow_path = str(tmp_path / "qdq.onnx"), str(tmp_path / "qdq_inputs.onnx")
    wq, fq, c, zp = qdq_net(fast_path, False)
    qdq_net(slow_path, True)
    fast = jitrun.load(fast_path, cache_dir=False)
    y, g = fast(x, z)
    # NumPy: the quantized values, their exact integer sums, then the float
    # scale and bias as jitrun applies them.
    xq = np.clip(np.round(x / c["xs"]) + 131, 0, 255).astype(np.int64) - 131
    win = np.lib.stride_tricks.sliding_window_view(np.pad(xq, ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                   (3, 3), axis=(2, 3))
    acc = np.einsum("nchwij,fcij->nfhw", win, wq.astype(np.int64))
    want_y = acc.astype(np.float32) * (c["xs"] * c["ws"]).reshape(16, 1, 1) + c["b"].reshape(16, 1, 1)
    np.testing.assert_allclose(y, want_y, rtol=1e-6, atol=1e-6)
    zq = np.clip(np.round(z / c["zs"]) - 3, -128, 127).astype(np.int64) + 3
    gacc = zq @ fq.astype(np.int64).T
    want_g = gacc.astype(np.float32) * (c["zs"] * c["fs"]) + c["c"]
    np.testing.assert_allclose(g, want_g, rtol=1e-6, atol=1e-6)
    # The float path (zero points fed at run time) computes the same sums.
    slow = jitrun.load(slow_path, cache_dir=False)
    ys, gs = slow(x, z, *zp.values())
    np.testing.assert_allclose(ys, y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gs, g, rtol=1e-4, atol=1e-4)
    if host_has("avx512_vnni"):
        assert fast.statistics["vnni_kernels"] + fast.statistics["amx_kernels"] >= 1
        assert slow.statistics["vnni_kernels"] + slow.statistics["amx_kernels"] == 0


def test_grouped_and_depthwise_integer_convolutions(tmp_path):
    """ConvInteger with groups and a depthwise QLinearConv (a quantized
    MobileNet's): exact integer sums (computed in f32, exact while they stay
    under 2^24), the requantized outputs as NumPy rounds them."""
    rng = np.random.default_rng(8)
    x = rng.integers(0, 256, (1, 8, 9, 9)).astype(np.uint8)
    w = rng.integers(-128, 128, (8, 2, 3, 3)).astype(np.int8)
    wz = rng.integers(-4, 5, 8).astype(np.int8)
    path = save(str(tmp_path / "grouped.onnx"),
                [oh.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], group=4, pads=[1, 1, 1, 1])],
                [oh.make_tensor_value_info("x", T.UINT8, [1, 8, 9, 9])],
                [oh.make_tensor_value_info("y", T.INT32, [1, 8, 9, 9])],
                [nh.from_array(w, "w"), nh.from_array(np.array(7, np.uint8), "xz"), nh.from_array(wz, "wz")])
    xd = np.pad(x.astype(np.int64) - 7, ((0, 0), (0, 0), (1, 1), (1, 1)))
    wd = w.astype(np.int64) - wz.astype(np.int64).reshape(8, 1, 1, 1)
    win = np.lib.stride_tricks.sliding_window_view(xd, (3, 3), axis=(2, 3))  # n c h w i j
    want = np.concatenate([np.einsum("nchwij,fcij->nfhw", win[:, 2 * g:2 * g + 2], wd[2 * g:2 * g + 2])
                           for g in range(4)], axis=1)
    got = jitrun.load(path, cache_dir=False)(x)
    assert got.dtype == np.int32 and np.array_equal(got, want)

    c = 16
    x = rng.integers(0, 256, (1, c, 10, 10)).astype(np.uint8)
    w = rng.integers(-127, 128, (c, 1, 3, 3)).astype(np.int8)
    ws = rng.uniform(0.005, 0.02, c).astype(np.float32)
    b = rng.integers(-500, 500, c).astype(np.int32)
    xs, ys = np.float32(0.02), np.float32(0.05)
    path = save(str(tmp_path / "depthwise.onnx"),
                [oh.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                              group=c, pads=[1, 1, 1, 1], strides=[2, 2])],
                [oh.make_tensor_value_info("x", T.UINT8, [1, c, 10, 10])],
                [oh.make_tensor_value_info("y", T.UINT8, [1, c, 5, 5])],
                [nh.from_array(w, "w"), nh.from_array(xs, "xs"), nh.from_array(np.array(120, np.uint8), "xz"),
                 nh.from_array(ws, "ws"), nh.from_array(np.zeros(c, np.int8), "wz"),
                 nh.from_array(ys, "ys"), nh.from_array(np.array(128, np.uint8), "yz"),
                 nh.from_array(b, "b")])
    xd = np.pad(x.astype(np.int64) - 120, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xd, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    acc = np.einsum("nchwij,cij->nchw", win, w[:, 0].astype(np.int64)) + b.reshape(c, 1, 1)
    scale = (xs * ws / ys).astype(np.float32).reshape(c, 1, 1)
    want = np.clip(np.round(acc.astype(np.float32) * scale) + 128, 0, 255)
    got = jitrun.load(path, cache_dir=False)(x)
    assert got.dtype == np.uint8
    assert np.abs(got.astype(np.int64) - want).max() <= 1
    assert (got == want).mean() > 0.99


def test_bad_quantized_nodes_are_clean_errors(jitrun_cli, tmp_path):
    import subprocess
    f = np.float32
    scalars = [nh.from_array(np.array(0.1, f), "xs"), nh.from_array(np.array(0, np.uint8), "xz"),
               nh.from_array(np.array(0.1, f), "ws"), nh.from_array(np.array(0, np.int8), "wz"),
               nh.from_array(np.array(0.1, f), "ys"), nh.from_array(np.array(0, np.uint8), "yz")]
    qconv = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
    cases = {
        # 512 channels per group x 9 taps x 255 x 128 could pass 2^24 in f32.
        "big_groups": ([oh.make_node("QLinearConv", qconv, ["y"], group=2)], T.UINT8, [1, 1024, 5, 5],
                       [nh.from_array(np.zeros((4, 512, 3, 3), np.int8), "w")] + scalars,
                       "QLinearConv: groups of this many channels are not supported"),
        "per_row_batched": ([oh.make_node("MatMulInteger", ["x", "b", "az"], ["y"])], T.UINT8, [2, 3, 4],
                            [nh.from_array(np.zeros((4, 5), np.int8), "b"),
                             nh.from_array(np.zeros(3, np.uint8), "az")],
                            "MatMulInteger: a per-row zero point of a batched left operand is not supported"),
        "dynamic_int": ([oh.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])], T.INT32, [4, 2], [],
                        "DynamicQuantizeLinear: x must be float32"),
    }
    for name, (nodes, dtype, shape, inits, message) in cases.items():
        path = save(str(tmp_path / (name + ".onnx")), nodes, [oh.make_tensor_value_info("x", dtype, shape)],
                    [oh.make_tensor_value_info("y", T.UINT8 if name != "per_row_batched" else T.INT32, None)],
                    inits)
        spec = "x".join(map(str, shape)) + {T.UINT8: "xui8", T.INT32: "xi32"}[dtype]
        p = subprocess.run([jitrun_cli, path, "--input=" + spec], capture_output=True, text=True)
        assert p.returncode == 1 and message in p.stderr, (name, p.returncode, p.stderr)


@pytest.mark.parametrize("zero_point", [None, 7])
def test_dequantized_constant_weights_fold_at_import(zero_point, tmp_path):
    """DequantizeLinear of constant 8-bit weights (per column here, with or
    without a zero point) is a float constant after import: the matmul that
    reads it is the only dispatch, and reads (w - zp) * scale."""
    rng = np.random.default_rng(3)
    w = rng.integers(0, 256, (6, 5)).astype(np.uint8)
    s = rng.uniform(0.01, 0.1, 5).astype(np.float32)
    inits = [nh.from_array(w, "w"), nh.from_array(s, "s")]
    dq_inputs = ["w", "s"]
    if zero_point is not None:
        inits.append(nh.from_array(np.array(zero_point, np.uint8), "z"))
        dq_inputs.append("z")
    path = save(str(tmp_path / "dq.onnx"),
                [oh.make_node("DequantizeLinear", dq_inputs, ["wd"], axis=1),
                 oh.make_node("MatMul", ["x", "wd"], ["y"])],
                [oh.make_tensor_value_info("x", T.FLOAT, [3, 6])],
                [oh.make_tensor_value_info("y", T.FLOAT, [3, 5])], inits)
    x = rng.standard_normal((3, 6)).astype(np.float32)
    m = jitrun.load(path, cache_dir=False)
    want = x @ ((w.astype(np.float32) - (zero_point or 0)) * s)
    np.testing.assert_allclose(m(x), want, rtol=1e-5, atol=1e-5)
    assert m.statistics["dispatches"] == 1
