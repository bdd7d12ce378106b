"""The jitrun Python package against real data: ONNX's conformance tests for
every dtype, a torchvision model exported by PyTorch, the CLI's own output;
plus what a Python user relies on: names, errors as exceptions, zero copy,
DLPack, threads with the GIL released, and no leaks."""
import gc
import json
import os
import shutil
import resource
import subprocess
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest

import jitrun
from conftest import ONNX_NODE, cli_json, onnx_case

# An elementwise model big enough for allocation to show (16 MiB per tensor).
BIG = 4096 * 1024
ADD_BIG = """
func.func @main(%a: tensor<4096x1024xf32>, %b: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %e = tensor.empty() : tensor<4096x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4096x1024xf32>, tensor<4096x1024xf32>) outs(%e : tensor<4096x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4096x1024xf32>
  return %r : tensor<4096x1024xf32>
}
"""

# The 1-element model of the call-overhead figure.
ONE = """
func.func @main(%a: tensor<1xf32> {jitrun.name = "a"}) -> (tensor<1xf32> {jitrun.name = "twice"}) {
  %e = tensor.empty() : tensor<1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<1xf32>) outs(%e : tensor<1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
"""


def test_version_matches_the_cli(jitrun_cli):
    out = subprocess.run([jitrun_cli, "--version"], capture_output=True, text=True).stdout
    assert out.split()[:2] == ["jitrun", jitrun.__version__]
    assert jitrun.version() == jitrun.__version__


def test_signature_and_sources(tiny_cnn, tmp_path):
    """A model loads from a path (str or PathLike), from bytes, from text."""
    import pathlib
    path, _, _ = onnx_case("test_add_bcast")
    m = jitrun.load(path)
    assert m.inputs == [jitrun.TensorInfo("x", (3, 4, 5), "float32"),
                        jitrun.TensorInfo("y", (5,), "float32")]
    assert m.outputs == [jitrun.TensorInfo("sum", (3, 4, 5), "float32")]
    with open(path, "rb") as f:
        from_bytes = jitrun.load(f.read())
    assert from_bytes.inputs == m.inputs
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    y = np.arange(5, dtype=np.float32)
    assert np.array_equal(m(x, y), x + y)
    assert np.array_equal(from_bytes(x, y), x + y)
    assert np.array_equal(jitrun.load(pathlib.Path(tiny_cnn))(np.ones((1, 32, 32, 3), np.float32)),
                          jitrun.load(tiny_cnn)(np.ones((1, 32, 32, 3), np.float32)))
    text = jitrun.load(ONE.encode())
    assert text(np.array([2.5], np.float32)).tolist() == [5.0]
    # bytearray and memoryviews, strided and reversed ones too (copied first:
    # their pointer and size alone do not describe their bytes).
    data = open(path, "rb").read()
    doubled = np.repeat(np.frombuffer(data, np.uint8), 2).tobytes()  # every byte twice
    for source in (bytearray(data), memoryview(data), memoryview(doubled)[::2],
                   memoryview(data[::-1])[::-1]):
        assert jitrun.load(source).inputs == m.inputs


# One ONNX conformance test per dtype jitrun takes and returns.
DTYPE_CASES = [
    ("test_add_bcast", "float32"),
    ("test_cast_DOUBLE_to_FLOAT", "float64"),
    ("test_max_float16", "float16"),
    ("test_max_int8", "int8"),
    ("test_max_int16", "int16"),
    ("test_max_int32", "int32"),
    ("test_max_int64", "int64"),
    ("test_dequantizelinear", "uint8"),
    ("test_and_bcast3v1d", "bool"),
    ("test_cast_BFLOAT16_to_FLOAT", "bfloat16"),
    ("test_cast_FLOAT_to_BFLOAT16", "bfloat16"),
]


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("case,dtype", DTYPE_CASES)
def test_every_dtype_against_onnx_conformance_data(case, dtype):
    path, inputs, outputs = onnx_case(case)
    m = jitrun.load(path)
    assert dtype in [t.dtype for t in m.inputs + m.outputs]
    # ONNX's data holds bfloat16 as raw bits in uint16 tensors.
    args = [bf16_to_f32(a) if info.dtype == "bfloat16" else a
            for info, (_, a) in zip(m.inputs, inputs)]
    got = m(*args)
    got = got if isinstance(got, tuple) else (got,)
    for g, info, (_, want) in zip(got, m.outputs, outputs):
        if info.dtype == "bfloat16":
            # bfloat16 results come back as float32, exactly; ONNX's
            # reference truncates where jitrun rounds: one bf16 step apart.
            want = bf16_to_f32(want)
            assert g.dtype == np.float32
            np.testing.assert_allclose(g, want, rtol=2 ** -7, atol=0)
        elif want.dtype.kind == "f":
            assert g.dtype == want.dtype
            np.testing.assert_allclose(g, want, rtol=1e-3, atol=1e-7)
        else:
            assert g.dtype == want.dtype and np.array_equal(g, want), (g, want)


def test_named_inputs_outputs_and_out():
    path, _, _ = onnx_case("test_add_bcast")
    m = jitrun.load(path)
    x = np.random.default_rng(1).random((3, 4, 5), dtype=np.float32)
    y = np.random.default_rng(2).random(5, dtype=np.float32)
    by_name = m.run({"y": y, "x": x})
    assert len(by_name) == 1 and np.array_equal(by_name[0], x + y)
    out = np.empty((3, 4, 5), np.float32)
    assert m(x, y, out=out) is out and np.array_equal(out, x + y)
    out2 = np.zeros((3, 4, 5), np.float32)
    assert m.run({"x": x, "y": y}, out={"sum": out2})[0] is out2
    assert np.array_equal(out2, x + y)
    # Lists are converted to the model's dtype.
    assert np.array_equal(m(x.tolist(), [1, 2, 3, 4, 5]), x + np.arange(1, 6, dtype=np.float32))


def test_errors_are_exceptions_with_the_librarys_message(tiny_cnn, tmp_path):
    path, _, _ = onnx_case("test_add_bcast")
    m = jitrun.load(path)
    x = np.zeros((3, 4, 5), np.float32)
    y = np.zeros(5, np.float32)
    cases = [
        (lambda: m(x.astype(np.float64), y), jitrun.ShapeError,
         "input 0 ('x') is float64, the model takes float32"),
        (lambda: m(x[:2], y), jitrun.ShapeError,
         "input 0 ('x') has shape (2, 4, 5), the model takes (3, 4, 5)"),
        (lambda: m(x), jitrun.ShapeError,
         "expected 2 inputs (x: (3, 4, 5) float32, y: (5,) float32), got 1"),
        (lambda: m.run({"x": x, "z": y}), jitrun.ShapeError, "no value for input 1 ('y')"),
        (lambda: m.run({"x": x, "y": y, "w": y}), jitrun.ShapeError,
         "the model has no input named 'w'"),
        (lambda: m(x, y, out=np.empty((3, 4, 5), np.float64)), jitrun.ShapeError,
         "out= for output 0 ('sum') is float64, the result is float32"),
        (lambda: m(x, y, out=np.empty((3, 4, 4), np.float32)), jitrun.ShapeError,
         "output 0 ('sum') has shape (3, 4, 4)"),
        (lambda: m(x, y, out=np.empty((5, 4, 3), np.float32).T), jitrun.InvalidArgumentError,
         "must be a writeable C-contiguous array"),
        (lambda: jitrun.load(str(tmp_path / "missing.onnx")), jitrun.NotFoundError,
         "missing.onnx"),
        (lambda: jitrun.load(b"func.func @main( {"), jitrun.CompileError, "error:"),
        (lambda: jitrun.load(tiny_cnn, fusion="fast"), jitrun.InvalidArgumentError,
         "fusion mode must be default, aggressive or none, not 'fast'"),
        (lambda: jitrun.load(tiny_cnn, memory_limit=1000), jitrun.ResourceExhaustedError,
         "limit"),
    ]
    for call, cls, text in cases:
        with pytest.raises(cls) as info:
            call()
        assert text in str(info.value), (str(info.value), text)
        assert isinstance(info.value, jitrun.Error) and info.value.code > 0
    # The standard classes catch them too.
    with pytest.raises(ValueError):
        m(x[:1], y)
    with pytest.raises(FileNotFoundError):
        jitrun.load(str(tmp_path / "missing.mlir"))


def test_onnx_symbolic_dims_are_dynamic_or_take_input_shapes(tmp_path):
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph([helper.make_node("Relu", ["tokens"], ["out"])], "g", [x], [y])
    path = str(tmp_path / "symbolic.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    # Without shapes the model is dynamic: any batch runs.
    d = jitrun.load(path)
    assert d.dynamic and d.inputs[0].shape == (None, 3) and d.outputs[0].shape == (None, 3)
    for n in (4, 1, 9):
        v = np.linspace(-1, 1, 3 * n, dtype=np.float32).reshape(n, 3)
        assert np.array_equal(d(v), np.maximum(v, 0))
    m = jitrun.load(path, input_shapes={"tokens": (4, 3)})
    assert not m.dynamic
    assert m.inputs[0].shape == (4, 3)
    v = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    assert np.array_equal(m(v), np.maximum(v, 0))
    with pytest.raises(jitrun.CompileError, match="no input of the model"):
        jitrun.load(path, input_shapes={"tokenz": (4, 3)})


def test_torchvision_model_matches_pytorch(squeezenet_onnx, jitrun_cli):
    path, x, ref = squeezenet_onnx
    m = jitrun.load(path, threads=2)
    assert [t.name for t in m.inputs] == ["image"] and m.outputs[0].name == "logits"
    y = m(x)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    # The same statistics as the CLI's JSON for the same model.
    cli = cli_json(jitrun_cli, path, "--input=1x3x96x96xf32", "--dump-statistics=json")
    stats = m.statistics
    for key in ("dispatches", "executables", "fills", "copies", "generic_before",
                "generic_after", "root_ops", "workgroups", "transient_bytes"):
        assert stats[key] == cli[key], key
    rows = m.profile(x, runs=3)
    assert len([r for r in rows if r.name.startswith("main_dispatch")]) == stats["dispatches"]
    assert all(r.ms >= 0 and r.bytes > 0 for r in rows)
    slowest = m.profile(x, runs=3, sort="time")
    assert [r.ms for r in slowest] == sorted((r.ms for r in slowest), reverse=True)


def test_non_contiguous_inputs_are_copied_once():
    path, _, _ = onnx_case("test_add_bcast")
    m = jitrun.load(path)
    base = np.random.default_rng(3).random((6, 4, 10), dtype=np.float32)
    x = base[::2, :, ::2]  # strided view
    assert not x.flags.c_contiguous
    y = np.random.default_rng(4).random(10, dtype=np.float32)[::2]
    assert np.array_equal(m(x, y), np.ascontiguousarray(x) + np.ascontiguousarray(y))
    xf = np.asfortranarray(np.ascontiguousarray(x))
    assert np.array_equal(m(xf, y), np.ascontiguousarray(x) + y)


def traced_peak(fn):
    """Bytes NumPy allocated (tracemalloc) at the peak of fn()."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_zero_copy_in_and_out_and_dlpack():
    import torch
    m = jitrun.load(ADD_BIG.encode(), threads=2)
    a = np.ones((4096, 1024), np.float32)
    b = np.full((4096, 1024), 2, np.float32)
    out = np.empty_like(a)
    m(a, b, out=out)
    # Contiguous inputs and an out= array: nothing of tensor size allocated.
    assert traced_peak(lambda: m(a, b, out=out)) < BIG * 4 // 16
    # A result is allocated once, by NumPy, and written in place.
    assert BIG * 4 <= traced_peak(lambda: m(a, b)) < BIG * 4 * 5 // 4
    # A non-contiguous input is copied: one more tensor's worth.
    at = np.ascontiguousarray(a.T).T
    assert traced_peak(lambda: m(at, b, out=out)) >= BIG * 4
    # torch tensors come in through DLPack without a copy...
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert traced_peak(lambda: m(ta, tb, out=out)) < BIG * 4 // 16
    assert np.all(out == 3)
    # ...also when not contiguous (copied then), and results go out to torch
    # through DLPack sharing memory.
    r = m(torch.from_numpy(b).t().contiguous().t(), ta)
    assert np.all(r == 3)
    t = torch.from_dlpack(r)
    assert t.data_ptr() == r.ctypes.data and float(t[5, 7]) == 3.0


def test_bfloat16_torch_tensors_through_dlpack():
    import torch
    path, _, _ = onnx_case("test_cast_BFLOAT16_to_FLOAT")
    m = jitrun.load(path)
    shape = m.inputs[0].shape
    x = torch.linspace(-3, 3, int(np.prod(shape))).reshape(shape).to(torch.bfloat16)
    got = m(x)
    assert np.array_equal(got, x.float().numpy())
    with pytest.raises(jitrun.ShapeError, match="DLPack tensor of float16"):
        m(x.to(torch.float16))


def test_threads_share_one_model_and_match_serial(squeezenet_onnx):
    path, _, _ = squeezenet_onnx
    m = jitrun.load(path, threads=2)
    rng = np.random.default_rng(5)
    inputs = [rng.random((1, 3, 96, 96), dtype=np.float32) for _ in range(8)]
    serial = [m(x) for x in inputs]
    results = [[] for _ in inputs]
    errors = []

    def worker(k):
        try:
            for _ in range(10):
                results[k].append(m(inputs[k]))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(8):
        assert len(results[k]) == 10
        for r in results[k]:
            assert np.array_equal(r, serial[k])


def test_the_gil_is_released_while_running():
    m = jitrun.load(ADD_BIG.encode(), threads=1)
    a = np.ones((4096, 1024), np.float32)
    out = np.empty_like(a)
    start = time.perf_counter()
    for _ in range(5):
        m(a, a, out=out)
    per_run = (time.perf_counter() - start) / 5
    done = threading.Event()
    ticks = 0

    def runner():
        for _ in range(20):
            m(a, a, out=out)
        done.set()
    t = threading.Thread(target=runner)
    t.start()
    while not done.is_set():
        ticks += 1
    t.join()
    # 20 runs long, the main thread kept running Python in between: far more
    # loop iterations than the few GIL switches a held GIL would allow.
    assert ticks > 1000, (ticks, per_run)


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_nothing_leaks_over_10000_calls():
    m = jitrun.load(ONE.encode(), threads=1)
    x = np.array([1.5], np.float32)
    out = np.empty(1, np.float32)
    for _ in range(200):
        m(x)
        m.run({"a": x}, out={"twice": out})
    gc.collect()
    objects = len(gc.get_objects())
    refs = sys.getrefcount(x), sys.getrefcount(out), sys.getrefcount(m)
    rss = rss_kib()
    for _ in range(5000):
        y = m(x)
        m.run({"a": x}, out={"twice": out})
    assert sys.getrefcount(y) == 2  # `y` and getrefcount's argument
    del y
    gc.collect()
    assert (sys.getrefcount(x), sys.getrefcount(out), sys.getrefcount(m)) == refs
    assert abs(len(gc.get_objects()) - objects) < 50
    assert rss_kib() - rss < 2048, "resident memory grew by %d KiB" % (rss_kib() - rss)
    # Failing calls leak nothing either.
    bad = np.zeros(2, np.float32)
    for _ in range(1000):
        with pytest.raises(jitrun.ShapeError):
            m(bad)
    gc.collect()
    assert sys.getrefcount(bad) == 2


def test_progress_callback(tiny_cnn):
    seen = []
    # A cold compile (a cached program skips the fuse phase).
    m = jitrun.load(tiny_cnn, cache_dir=False,
                    progress=lambda phase, done, total: seen.append((phase, done, total)))
    assert seen[0] == ("read", 0, 1) and seen[1] == ("fuse", 0, 1)
    compile_steps = [s for s in seen if s[0] == "compile"]
    assert compile_steps[0] == ("compile", 0, m.statistics["executables"])
    assert compile_steps[-1] == ("compile", m.statistics["executables"], m.statistics["executables"])

    def boom(*_):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        jitrun.load(tiny_cnn, progress=boom)


def test_a_shared_runtime(tiny_cnn):
    rt = jitrun.Runtime(2)
    a = jitrun.load(tiny_cnn, runtime=rt)
    b = jitrun.load(tiny_cnn, runtime=rt, fusion="none")
    x = np.random.default_rng(6).random((1, 32, 32, 3), dtype=np.float32)
    assert a.threads == b.threads == 2
    np.testing.assert_allclose(a(x), b(x), rtol=1e-5, atol=1e-6)
    assert b.statistics["dispatches"] > a.statistics["dispatches"]


def random_inputs(model, seed):
    rng = np.random.default_rng(seed)
    out = []
    for t in model.inputs:
        dtype = np.dtype("float32" if t.dtype == "bfloat16" else t.dtype)
        if dtype.kind == "f":
            out.append(rng.random(t.shape, dtype=np.float32).astype(dtype))
        elif dtype.kind == "b":
            out.append(rng.random(t.shape) < 0.5)
        else:
            out.append(rng.integers(0, 50, t.shape).astype(dtype))
    return out


def test_warm_start_equals_cold_on_every_zoo_model(zoo, squeezenet_onnx, tmp_path):
    """The program cache round-trips every model: a warm load (fused program
    and kernels from the cache) has the cold load's statistics and results,
    bit for bit."""
    models = sorted(os.path.join(zoo, f) for f in os.listdir(zoo) if f.endswith(".mlirbc"))
    models.append(squeezenet_onnx[0])
    assert len(models) >= 10
    cache = str(tmp_path / "cache")
    warms = []
    for path in models:
        cold = jitrun.load(path, cache_dir=cache, threads=2)
        warm = jitrun.load(path, cache_dir=cache, threads=2)
        cs, ws = cold.statistics, warm.statistics
        assert cs["cached_program"] == 0 and ws["cached_program"] == 1, path
        assert ws["cached_kernels"] == ws["executables"], path
        for key in cs:
            if key not in ("cached_program", "cached_kernels", "compile_seconds",
                           "mapped_constant_bytes"):
                assert cs[key] == ws[key], (path, key)
        # Both read their weights from the weight files the cold load wrote
        # (the warm one also small constants from the mapped entry).
        assert ws["mapped_constant_bytes"] >= cs["mapped_constant_bytes"], path
        if path.endswith(("resnet50.mlirbc", "mnist.mlirbc", ".onnx")):
            assert cs["mapped_constant_bytes"] > 100000, path
        assert warm.inputs == cold.inputs and warm.outputs == cold.outputs
        args = random_inputs(cold, 11)
        for a, b in zip(cold.run(args), warm.run(args)):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), path
        warms.append((path, warm, args, cold.run(args)))
    # A loaded model keeps the entry it maps: the folder emptied (by a
    # prune, by hand) changes none of its results.
    shutil.rmtree(cache)
    for path, warm, args, expected in warms:
        for a, b in zip(expected, warm.run(args)):
            assert a.tobytes() == b.tobytes(), path
    os.makedirs(cache)
    # cache_dir=False: nothing read, nothing written.
    before = sorted(os.listdir(cache))
    m = jitrun.load(models[0], cache_dir=False)
    assert m.statistics["cached_program"] == 0 and m.statistics["cached_kernels"] == 0
    assert sorted(os.listdir(cache)) == before


def test_cli_json_outputs_parse_for_every_zoo_model(zoo, jitrun_cli, tmp_path):
    """--print-signature=json, --dump-statistics=json, --benchmark-json and
    --profile-json of every zoo model parse with json.load and agree with
    each other and with the Python package."""
    for name in sorted(f for f in os.listdir(zoo) if f.endswith(".mlirbc")):
        path = os.path.join(zoo, name)
        sig = json.loads(subprocess.run([jitrun_cli, path, "--print-signature=json"],
                                        capture_output=True, text=True, check=True).stdout)
        flags = ["--input=" + "".join("%dx" % d for d in t["shape"]) + t["dtype"]
                 for t in sig["inputs"]]
        files = {k: str(tmp_path / (name + "." + k + ".json")) for k in ("stats", "bench", "prof")}
        res = subprocess.run([jitrun_cli, path, *flags, "--threads=2", "--benchmark=3",
                              "--dump-statistics=json", "--dump-statistics-file=" + files["stats"],
                              "--benchmark-json=" + files["bench"],
                              "--profile-json=" + files["prof"],
                              "--output=@" + str(tmp_path / "out.npy")],
                             capture_output=True, text=True)
        assert res.returncode == 0, (name, res.stderr)
        with open(files["stats"]) as f:
            stats = json.load(f)
        with open(files["bench"]) as f:
            bench = json.load(f)
        with open(files["prof"]) as f:
            prof = json.load(f)
        assert stats["function"] == sig["function"], name
        assert bench["runs"] == 3 and bench["threads"] == 2, name
        assert bench["min_ms"] <= bench["p50_ms"] <= bench["p90_ms"] <= bench["max_ms"], name
        dispatches = [c for c in prof["commands"] if c["name"].startswith(sig["function"] + "_dispatch")]
        assert len(dispatches) == stats["dispatches"], name
        assert prof["commands"][-1]["name"] == "total" and prof["runs"] == 3, name
        m = jitrun.load(path, cache_dir=False)
        assert [list(t.shape) for t in m.inputs] == [t["shape"] for t in sig["inputs"]], name
        assert m.statistics["dispatches"] == stats["dispatches"], name


def test_bf16_weights_round_inputs_and_weights():
    model = b"""func.func @main(%x: tensor<2x32xf32>) -> tensor<2x16xf32> {
  %w = arith.constant dense<1.0> : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  %r = linalg.matmul ins(%x, %w : tensor<2x32xf32>, tensor<32x16xf32>) outs(%f : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}"""
    x = np.full((2, 32), 1.00390625, np.float32)  # halfway between bf16 1 and 1 + 2**-7
    assert np.all(jitrun.load(model, cache_dir=False)(x) == 32.125)
    assert np.all(jitrun.load(model, cache_dir=False, weights="bf16")(x) == 32.0)
    with pytest.raises(jitrun.InvalidArgumentError, match="not \"f16\""):
        jitrun.load(model, cache_dir=False, weights="f16")


def test_bf16_weights_amx_and_dot_products_agree_with_numpy():
    # 48 rows x K 64 x N 64: on an AMX host the weights are packed for AMX
    # tiles (amx=True, the default), else (and with amx=False) for AVX-512
    # dot products. Integer inputs and halves as weights are exact in bf16
    # and every sum is exact in f32, so both paths give NumPy's result.
    rng = np.random.default_rng(7)
    w = rng.integers(-8, 9, (64, 64)).astype(np.float32) / 2
    x = rng.integers(-4, 5, (48, 64)).astype(np.float32)
    rows = ", ".join("[" + ", ".join("%.1f" % v for v in r) + "]" for r in w)
    model = ("""func.func @main(%x: tensor<48x64xf32>) -> tensor<48x64xf32> {
  %w = arith.constant dense<[""" + rows + """]> : tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<48x64xf32>, tensor<64x64xf32>) outs(%f : tensor<48x64xf32>) -> tensor<48x64xf32>
  return %r : tensor<48x64xf32>
}""").encode()
    want = x @ w
    for amx in (True, False):
        got = jitrun.load(model, cache_dir=False, weights="bf16", amx=amx)(x)
        assert np.array_equal(got, want), amx
