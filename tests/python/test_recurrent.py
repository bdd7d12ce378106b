"""ONNX's LSTM, GRU and RNN: PyTorch's own exports against PyTorch's outputs,
and sequence_lens (which PyTorch never exports) against a NumPy reference of
ONNX's definition, both directions."""
import re
import subprocess

import numpy as np
import pytest

import jitrun


class Recurrent:
    """torch.nn.LSTM / GRU / RNN returning the sequence and the final states."""

    def __new__(cls, kind, **kw):
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = getattr(torch.nn, kind)(**kw)

            def forward(self, x):
                y, h = self.rnn(x)
                return (y,) + (tuple(h) if isinstance(h, tuple) else (h,))
        return M().eval()


CASES = {
    # two stacked bidirectional layers, batch first
    "lstm": ("LSTM", dict(input_size=16, hidden_size=24, num_layers=2, bidirectional=True,
                          batch_first=True), (3, 7, 16)),
    # PyTorch's GRU is ONNX's linear_before_reset=1
    "gru": ("GRU", dict(input_size=16, hidden_size=20, num_layers=2), (9, 2, 16)),
    "gru_bidirectional": ("GRU", dict(input_size=8, hidden_size=12, bidirectional=True,
                                      batch_first=True), (2, 5, 8)),
    "rnn_relu": ("RNN", dict(input_size=8, hidden_size=10, nonlinearity="relu", num_layers=2),
                 (6, 3, 8)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_exports_match_pytorch(name, tmp_path):
    import torch
    torch.manual_seed(0)
    kind, kw, shape = CASES[name]
    model = Recurrent(kind, **kw)
    x = torch.randn(*shape)
    path = str(tmp_path / (name + ".onnx"))
    torch.onnx.export(model, x, path, opset_version=14)
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
    m = jitrun.load(path, cache_dir=False)
    got = m(x.numpy())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm_reference(x, w, r, b, lens, h0, c0, reverse):
    """ONNX's LSTM (gates i, o, f, c) of one direction, in float64, each
    batch entry run over its own length alone."""
    steps, batch, _ = x.shape
    hidden = r.shape[-1]
    y = np.zeros((steps, batch, hidden))
    hn, cn = np.zeros((batch, hidden)), np.zeros((batch, hidden))
    for e in range(batch):
        h, c = h0[e].astype(np.float64), c0[e].astype(np.float64)
        order = range(lens[e] - 1, -1, -1) if reverse else range(lens[e])
        for t in order:
            g = x[t, e] @ w.T + h @ r.T + b[:4 * hidden] + b[4 * hidden:]
            i, o, f, cc = np.split(g, 4)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
            h = sigmoid(o) * np.tanh(c)
            y[t, e] = h
        hn[e], cn[e] = h, c
    return y, hn, cn


def test_sequence_lens_mask_each_entry_in_both_directions(tmp_path):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as oh
    from onnx import numpy_helper as nh
    rng = np.random.default_rng(0)
    steps, batch, inp, hidden = 6, 3, 5, 4
    w = rng.standard_normal((2, 4 * hidden, inp)).astype(np.float32) * 0.5
    r = rng.standard_normal((2, 4 * hidden, hidden)).astype(np.float32) * 0.5
    b = rng.standard_normal((2, 8 * hidden)).astype(np.float32) * 0.1
    node = oh.make_node("LSTM", ["x", "w", "r", "b", "lens", "h0", "c0"], ["y", "yh", "yc"],
                        hidden_size=hidden, direction="bidirectional")
    state = [2, batch, hidden]
    graph = oh.make_graph(
        [node], "lstm_lens",
        [oh.make_tensor_value_info("x", T.FLOAT, [steps, batch, inp]),
         oh.make_tensor_value_info("lens", T.INT32, [batch]),
         oh.make_tensor_value_info("h0", T.FLOAT, state),
         oh.make_tensor_value_info("c0", T.FLOAT, state)],
        [oh.make_tensor_value_info("y", T.FLOAT, [steps, 2, batch, hidden]),
         oh.make_tensor_value_info("yh", T.FLOAT, state),
         oh.make_tensor_value_info("yc", T.FLOAT, state)],
        [nh.from_array(w, "w"), nh.from_array(r, "r"), nh.from_array(b, "b")])
    path = str(tmp_path / "lstm_lens.onnx")
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 14)]), path)
    x = rng.standard_normal((steps, batch, inp)).astype(np.float32)
    lens = np.array([6, 2, 4], np.int32)
    h0 = rng.standard_normal(state).astype(np.float32)
    c0 = rng.standard_normal(state).astype(np.float32)
    y, yh, yc = jitrun.load(path, cache_dir=False)(x, lens, h0, c0)
    for d in range(2):
        ry, rh, rc = lstm_reference(x, w[d], r[d], b[d], lens, h0[d], c0[d], reverse=d == 1)
        np.testing.assert_allclose(y[:, d], ry, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(yh[d], rh, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(yc[d], rc, rtol=1e-4, atol=1e-5)
    # Past each entry's length Y holds zeros (entry 1 has 2 steps).
    assert not y[2:, :, 1].any() and y[:2, :, 1].all()


def test_bad_recurrent_nodes_are_clean_errors(jitrun_cli, tmp_path):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as oh
    from onnx import numpy_helper as nh
    w = np.zeros((1, 9, 2), np.float32)
    bad = {
        "activation": (dict(hidden_size=3, activations=["Sigmoid", "Gelu"]),
                       np.zeros((1, 9, 3), np.float32), "GRU: activation 'gelu' is not supported"),
        "shape": (dict(hidden_size=3), np.zeros((1, 9, 4), np.float32),
                  "GRU: W must be [1, 9, 2] and R [1, 9, 3]"),
    }
    for name, (attrs, r, message) in bad.items():
        node = oh.make_node("GRU", ["x", "w", "r"], ["y"], **attrs)
        graph = oh.make_graph([node], name, [oh.make_tensor_value_info("x", T.FLOAT, [4, 1, 2])],
                              [oh.make_tensor_value_info("y", T.FLOAT, None)],
                              [nh.from_array(w, "w"), nh.from_array(r, "r")])
        path = str(tmp_path / (name + ".onnx"))
        onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 14)]), path)
        p = subprocess.run([jitrun_cli, path, "--input=4x1x2xf32"], capture_output=True,
                           text=True)
        assert p.returncode == 1, p.stderr
        assert message in p.stderr, p.stderr
        with pytest.raises(jitrun.CompileError, match=re.escape(message)):
            jitrun.load(path, cache_dir=False)
