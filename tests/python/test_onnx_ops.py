"""ONNX ops beyond what the conformance data checks: ArgMax over NaNs
(NumPy's first NaN), integer Mod's two remainders with negative operands and
a zero divisor."""
import numpy as np
import pytest

import jitrun

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as oh  # noqa: E402


def model(path, node, inputs, output):
    graph = oh.make_graph([node], "ops", inputs, [output])
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), path)
    return jitrun.load(path, cache_dir=False)


def test_argmax_argmin_and_nan(tmp_path):
    x = np.array([[1, 5, 5, 2], [3, np.nan, 7, np.nan], [-1, -1, -4, -4]], np.float32)
    for op, numpy_fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
        m = model(str(tmp_path / (op + ".onnx")), oh.make_node(op, ["x"], ["y"], axis=1, keepdims=0),
                  [oh.make_tensor_value_info("x", T.FLOAT, [3, 4])],
                  oh.make_tensor_value_info("y", T.INT64, [3]))
        got = m(x)
        assert got.dtype == np.int64 and np.array_equal(got, numpy_fn(x, axis=1)), (op, got)
        # The last of equal extremes (rows without NaN).
        last = model(str(tmp_path / (op + "_last.onnx")),
                     oh.make_node(op, ["x"], ["y"], axis=1, select_last_index=1),
                     [oh.make_tensor_value_info("x", T.FLOAT, [2, 4])],
                     oh.make_tensor_value_info("y", T.INT64, [2, 1]))(x[[0, 2]])
        flipped = 3 - numpy_fn(x[[0, 2], ::-1], axis=1)
        assert np.array_equal(last[:, 0], flipped), (op, last)


def test_integer_mod_signs_and_zero(tmp_path):
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([3, 3, -3, -3, 2, 0], np.int32)
    for fmod, want in ((0, [1, 2, -2, -1, 0, 0]), (1, [1, -1, 1, -1, 0, 0])):
        m = model(str(tmp_path / ("mod%d.onnx" % fmod)), oh.make_node("Mod", ["a", "b"], ["y"], fmod=fmod),
                  [oh.make_tensor_value_info("a", T.INT32, [6]), oh.make_tensor_value_info("b", T.INT32, [6])],
                  oh.make_tensor_value_info("y", T.INT32, [6]))
        assert np.array_equal(m(a, b), np.array(want, np.int32)), fmod
