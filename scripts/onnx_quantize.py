"""ONNX Runtime's two quantizers, rewritten on the ONNX graph (ONNX Runtime is
not packaged in Debian): enough of quantize_dynamic and quantize_static to
make the models they make, for jitrun's tests and quant_bench.py.

    quantize_dynamic(model)            # MatMulInteger form
    quantize_static(model, ranges)     # QDQ form (quantize_static's default)

Weights are int8, symmetric (zero point 0): per tensor for quantize_dynamic,
per output channel for quantize_static; activations uint8, their scale and
zero point computed per call (dynamic) or from calibrated ranges (static).
"""
import numpy as np
from onnx import TensorProto as T
from onnx import helper as oh
from onnx import numpy_helper as nh


def _initializers(graph):
    return {i.name: i for i in graph.initializer}


def _drop_unused(graph):
    used = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def quantize_dynamic(model):
    """Each MatMul whose right operand is a 2-D float initializer becomes
    DynamicQuantizeLinear of its left operand, MatMulInteger with the
    weights in int8 (symmetric, per tensor), Cast to float and a Mul by both
    scales. Returns the model, changed in place."""
    g = model.graph
    inits = _initializers(g)
    nodes = []
    for n in g.node:
        w = nh.to_array(inits[n.input[1]]) if n.op_type == "MatMul" and n.input[1] in inits else None
        if w is None or w.ndim != 2 or w.dtype != np.float32:
            nodes.append(n)
            continue
        s = float(np.abs(w).max()) / 127 or 1.0
        q = np.clip(np.round(w / s), -127, 127).astype(np.int8)
        p = n.output[0] + "_q"
        g.initializer.extend([nh.from_array(q, p + "_w"), nh.from_array(np.array(s, np.float32), p + "_ws"),
                              nh.from_array(np.array(0, np.int8), p + "_wz")])
        nodes += [oh.make_node("DynamicQuantizeLinear", [n.input[0]], [p + "_x", p + "_xs", p + "_xz"]),
                  oh.make_node("MatMulInteger", [p + "_x", p + "_w", p + "_xz", p + "_wz"], [p + "_acc"]),
                  oh.make_node("Cast", [p + "_acc"], [p + "_f"], to=T.FLOAT),
                  oh.make_node("Mul", [p + "_xs", p + "_ws"], [p + "_s"]),
                  oh.make_node("Mul", [p + "_f", p + "_s"], [n.output[0]])]
    del g.node[:]
    g.node.extend(nodes)
    _drop_unused(g)
    return model


def calibration_inputs(model):
    """The activations quantize_static quantizes: the first input of every
    Conv, Gemm and MatMul whose weights are an initializer."""
    inits = _initializers(model.graph)
    names = [n.input[0] for n in model.graph.node
             if n.op_type in ("Conv", "Gemm", "MatMul") and n.input[1] in inits]
    return list(dict.fromkeys(names))


def quantize_static(model, ranges):
    """QDQ: every Conv, Gemm and MatMul with an initializer as weights reads
    its activation through QuantizeLinear and DequantizeLinear (uint8,
    asymmetric, from `ranges`: name -> (min, max) of calibration) and its
    weights through DequantizeLinear of int8 per output channel, symmetric.
    Returns the model, changed in place."""
    g = model.graph
    inits = _initializers(g)
    nodes, done = [], {}
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul") or n.input[1] not in inits:
            nodes.append(n)
            continue
        a = n.input[0]
        if a not in done:
            lo, hi = min(0.0, float(ranges[a][0])), max(0.0, float(ranges[a][1]))
            s = (hi - lo) / 255 or 1.0
            z = int(np.clip(round(-lo / s), 0, 255))
            p = a + "_qdq"
            g.initializer.extend([nh.from_array(np.array(s, np.float32), p + "_s"),
                                  nh.from_array(np.array(z, np.uint8), p + "_z")])
            nodes += [oh.make_node("QuantizeLinear", [a, p + "_s", p + "_z"], [p + "_q"]),
                      oh.make_node("DequantizeLinear", [p + "_q", p + "_s", p + "_z"], [p])]
            done[a] = p
        w = nh.to_array(inits[n.input[1]])
        transposed = n.op_type == "Gemm" and any(at.name == "transB" and at.i for at in n.attribute)
        axis = 0 if n.op_type == "Conv" or transposed else w.ndim - 1
        reduced = tuple(d for d in range(w.ndim) if d != axis)
        s = (np.abs(w).max(axis=reduced) / 127).astype(np.float32)
        s[s == 0] = 1
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / s.reshape(shape)), -127, 127).astype(np.int8)
        wp = n.input[1] + "_dq"
        g.initializer.extend([nh.from_array(q, wp + "_q"), nh.from_array(s, wp + "_s"),
                              nh.from_array(np.zeros(len(s), np.int8), wp + "_z")])
        nodes.append(oh.make_node("DequantizeLinear", [wp + "_q", wp + "_s", wp + "_z"], [wp], axis=axis))
        n.input[0] = done[a]
        n.input[1] = wp
        nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    _drop_unused(g)
    return model
