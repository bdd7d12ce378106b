"""Dynamic shapes: models exported from PyTorch with dynamic axes (a
torchvision CNN with a dynamic batch, a transformer encoder with dynamic
batch and sequence length) run at several shapes in one process, each
checked against PyTorch's own output; the specializations are kept, bounded
and shared between threads; bad shapes are clean errors."""
import os
import threading

import numpy as np
import pytest

import jitrun

TOLERANCE = 1e-4


def close(y, ref):
    """jitrun's result within 1e-4 of the reference's scale."""
    assert y.shape == ref.shape, (y.shape, ref.shape)
    err = float(np.max(np.abs(y - ref)))
    assert err <= TOLERANCE * max(1.0, float(np.max(np.abs(ref)))), err


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    """A transformer encoder layer between two linear layers, with a mask
    input sharing its batch and sequence dims, exported with dynamic batch
    and sequence length; returns (path, torch module)."""
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Linear(32, 64)
            self.layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True,
                                                          dropout=0.0)
            self.head = torch.nn.Linear(64, 8)

        def forward(self, x, mask):
            return self.head(self.layer(self.embed(x))) * mask.unsqueeze(-1)

    torch.manual_seed(0)
    model = Encoder().eval()
    path = str(tmp_path_factory.mktemp("dyn") / "encoder.onnx")
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, (torch.randn(1, 16, 32), torch.ones(1, 16)), path,
                      input_names=["x", "mask"], output_names=["y"],
                      dynamic_axes={"x": axes, "mask": axes, "y": axes}, opset_version=13)
    return path, model


@pytest.fixture(scope="module")
def cnn(tmp_path_factory):
    """torchvision's squeezenet1_1 exported with a dynamic batch."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.squeezenet1_1(weights=None).eval()
    path = str(tmp_path_factory.mktemp("dyn") / "squeezenet_batch.onnx")
    torch.onnx.export(model, torch.rand(1, 3, 64, 64), path, input_names=["image"],
                      output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                      opset_version=13)
    return path, model


@pytest.fixture(scope="module")
def segmenter(tmp_path_factory):
    """torchvision's DeepLabV3 (MobileNetV3-large backbone) exported with a
    dynamic image height and width: its bilinear upsampling to the input's
    size reads the size at run time. Its convolutions are re-initialized
    He-normal (torchvision's random init collapses the output to a constant
    per class, which would test nothing)."""
    import torch
    import torchvision
    torch.manual_seed(0)
    net = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False).eval()
    for mod in net.modules():
        if isinstance(mod, torch.nn.Conv2d):
            torch.nn.init.kaiming_normal_(mod.weight, mode="fan_in")

    class Logits(torch.nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x)["out"]

    model = Logits(net).eval()
    path = str(tmp_path_factory.mktemp("dyn") / "deeplab_hw.onnx")
    axes = {2: "height", 3: "width"}
    torch.onnx.export(model, torch.rand(1, 3, 96, 96), path, input_names=["image"],
                      output_names=["out"], dynamic_axes={"image": axes, "out": axes},
                      opset_version=13)
    return path, model


def torch_run(model, *inputs):
    import torch
    with torch.no_grad():
        return model(*[torch.from_numpy(x) for x in inputs]).numpy()


def test_sequence_length_and_batch_at_five_shapes(encoder):
    path, model = encoder
    m = jitrun.load(path, cache_dir=False)
    assert m.dynamic
    assert m.inputs[0].shape == (None, None, 32) and m.inputs[1].shape == (None, None)
    assert m.outputs[0].shape == (None, None, 8)
    rng = np.random.RandomState(0)
    shapes = [(1, 16), (2, 7), (1, 33), (3, 1), (2, 128)]
    for b, s in shapes:
        x = rng.randn(b, s, 32).astype(np.float32)
        mask = (rng.rand(b, s) > 0.2).astype(np.float32)
        close(m(x, mask), torch_run(model, x, mask))
    assert m.specializations == 5
    # A shape seen before runs its specialization again: nothing compiles.
    x = rng.randn(2, 7, 32).astype(np.float32)
    mask = np.ones((2, 7), np.float32)
    close(m(x, mask), torch_run(model, x, mask))
    assert m.specializations == 5


def test_batch_of_a_torchvision_cnn(cnn):
    path, model = cnn
    m = jitrun.load(path, cache_dir=False, threads=2)
    assert m.inputs[0].shape == (None, 3, 64, 64)
    rng = np.random.RandomState(1)
    for b in (1, 4, 2, 3, 8):
        x = rng.rand(b, 3, 64, 64).astype(np.float32)
        close(m(x), torch_run(model, x))
    # out= takes arrays of the shapes output_shapes gives.
    assert m.output_shapes((5, 3, 64, 64)) == [(5, 1000)]
    x = rng.rand(5, 3, 64, 64).astype(np.float32)
    out = np.empty((5, 1000), np.float32)
    assert m(x, out=out) is out
    close(out, torch_run(model, x))
    with pytest.raises(jitrun.ShapeError, match=r"has shape \(4, 1000\)"):
        m(x, out=np.empty((4, 1000), np.float32))


def test_image_size_of_a_torchvision_segmenter(segmenter):
    path, model = segmenter
    m = jitrun.load(path, cache_dir=False, threads=2)
    assert m.inputs[0].shape == (1, 3, None, None)
    rng = np.random.RandomState(4)
    for h, w in ((96, 96), (64, 80), (129, 97), (33, 47), (160, 128)):
        x = rng.rand(1, 3, h, w).astype(np.float32)
        y = m(x)
        assert y.shape == (1, 21, h, w)
        close(y, torch_run(model, x))
    assert m.specializations == 5


@pytest.mark.parametrize("name,shape,open_dim,sizes", [
    ("bert_encoder", (1, 16, 64), 1, (16, 1, 7, 33, 100)),
    ("mobilenet_v2", (1, 32, 32, 3), 0, (1, 4, 3, 9, 2)),
])
def test_zoo_dynamic_variants_at_five_shapes(zoo, name, shape, open_dim, sizes):
    """The zoo's dynamic variants (modelgen --dynamic) at five shapes, each
    against the same model compiled without fusion."""
    path = os.path.join(zoo, "dynamic", name + ".mlirbc")
    m = jitrun.load(path, cache_dir=False, threads=2, shape_policy="specialize")
    unfused = jitrun.load(path, cache_dir=False, fusion="none")
    assert m.inputs[0].shape[open_dim] is None
    rng = np.random.RandomState(5)
    for size in sizes:
        s = list(shape)
        s[open_dim] = size
        x = rng.uniform(-1, 1, s).astype(np.float32)
        y = m(x)
        assert y.shape[open_dim] == size
        close(y, unfused(x))
    assert m.specializations == 5


def test_split_runs_a_new_batch_in_pieces(encoder):
    """shape_policy="split": the encoder computes each batch row on its own
    (jitrun follows the batch through the program) but mixes the sequence
    in attention: a new batch runs as pieces of compiled ones, a new
    sequence length compiles."""
    path, model = encoder
    m = jitrun.load(path, cache_dir=False, shape_policy="split")
    rng = np.random.RandomState(6)

    def check(b, s):
        x = rng.randn(b, s, 32).astype(np.float32)
        mask = (rng.rand(b, s) > 0.2).astype(np.float32)
        close(m(x, mask), torch_run(model, x, mask))
    check(2, 7)
    for b in (5, 1, 3, 8):
        check(b, 7)
    assert m.specializations == 1
    check(2, 9)
    assert m.specializations == 2
    with pytest.raises(jitrun.InvalidArgumentError, match="specialize, tiered, split, buckets or generic"):
        jitrun.load(path, cache_dir=False, shape_policy="eager")


def test_tiered_answers_at_once_then_compiles(cnn):
    """shape_policy="tiered": a new batch of a torchvision CNN runs at once
    in pieces while its own program compiles in the background."""
    import time
    path, model = cnn
    m = jitrun.load(path, cache_dir=False, threads=2, shape_policy="tiered")
    rng = np.random.RandomState(7)
    x2 = rng.rand(2, 3, 64, 64).astype(np.float32)
    close(m(x2), torch_run(model, x2))
    x7 = rng.rand(7, 3, 64, 64).astype(np.float32)
    close(m(x7), torch_run(model, x7))  # 2 + 2 + 2 + 1 padded to 2
    for _ in range(1200):
        if m.specializations == 2:
            break
        time.sleep(0.1)
    assert m.specializations == 2
    close(m(x7), torch_run(model, x7))


def new_lengths_run_generic_kernels(m, model, seed):
    """Runs the encoder `m` at sequence length 16, then 23, 9 and 40 (batch
    2, random masks), each against PyTorch: the first on exact kernels, the
    others at once on kernels generic in the length. Returns the last inputs."""
    rng = np.random.RandomState(seed)
    for s in (16, 23, 9, 40):
        x = rng.randn(2, s, 32).astype(np.float32)
        mask = (rng.rand(2, s) > 0.2).astype(np.float32)
        close(m(x, mask), torch_run(model, x, mask))
        if s == 16:
            assert m.statistics["generic_kernels"] == 0  # the first size: exact
        else:
            assert m.statistics["generic_kernels"] >= 1, s
            # Its compile took the weights the first one packed (the
            # importer's, known by a hash of their bytes).
            assert m.statistics["reused_weight_bytes"] > 0, s
    return x, mask


def test_tiered_new_sequence_runs_generic_kernels_first(encoder, tmp_path):
    """shape_policy="tiered" at a sequence length it cannot split: the first
    call runs a program whose kernels are generic in the sequence length
    (compiled once, then served by the kernel cache) while the exact one
    compiles in the background and replaces it."""
    import time
    path, model = encoder
    m = jitrun.load(path, cache_dir=str(tmp_path), threads=2, shape_policy="tiered")
    # Read at once: the exact program takes a compile to replace it.
    x, mask = new_lengths_run_generic_kernels(m, model, 8)
    for _ in range(1200):
        if m.specializations == 4 and m.statistics["generic_kernels"] == 0:
            break
        time.sleep(0.1)
    assert m.specializations == 4
    close(m(x, mask), torch_run(model, x, mask))


def test_generic_policy_keeps_the_generic_program(encoder, tmp_path):
    """shape_policy="generic": a new sequence length runs on the kernels
    generic in it and nothing compiles the exact program, not even in the
    background: the calls after it still run the generic kernels."""
    import time
    path, model = encoder
    m = jitrun.load(path, cache_dir=str(tmp_path), threads=2, shape_policy="generic")
    x, mask = new_lengths_run_generic_kernels(m, model, 9)
    # Time enough for the tiered policy's background compile (the test above
    # waits for it the same way).
    time.sleep(3)
    close(m(x, mask), torch_run(model, x, mask))
    assert m.statistics["generic_kernels"] >= 1
    assert m.specializations == 4


def test_torch_tensors_in_at_any_batch(cnn):
    import torch
    path, model = cnn
    m = jitrun.load(path, cache_dir=False)
    for b in (2, 3):
        x = torch.rand(b, 3, 64, 64)
        close(m(x), torch_run(model, x.numpy()))


def test_bad_shapes_name_what_is_wrong(encoder):
    path, _ = encoder
    m = jitrun.load(path, cache_dir=False)
    x = np.zeros((2, 5, 32), np.float32)
    with pytest.raises(jitrun.ShapeError,
                       match=r"input 1 \('mask'\) dim 1 is 6 but input 0 \('x'\) dim 1 is 5; "
                             r"the model needs them equal \(dynamic dim 'sequence'\)"):
        m(x, np.zeros((2, 6), np.float32))
    with pytest.raises(jitrun.ShapeError, match=r"input 0 \('x'\) has shape \(2, 5, 31\), "
                                                r"the model takes \(None, None, 32\)"):
        m(np.zeros((2, 5, 31), np.float32), np.zeros((2, 5), np.float32))
    with pytest.raises(jitrun.ShapeError, match="dim 0 is 3 but"):
        m.output_shapes((2, 5, 32), (3, 5))
    assert m.specializations == 0  # nothing was compiled for bad shapes


def test_specializations_are_bounded_and_reused(cnn, tmp_path):
    path, model = cnn
    m = jitrun.load(path, cache_dir=str(tmp_path), max_specializations=2,
                    shape_policy="specialize")
    rng = np.random.RandomState(2)
    xs = {b: rng.rand(b, 3, 64, 64).astype(np.float32) for b in (1, 2, 3)}
    refs = {b: torch_run(model, x) for b, x in xs.items()}
    for b in (1, 2, 3):
        close(m(xs[b]), refs[b])
    assert m.specializations == 2  # batch 1 went first
    # Batch 1 again: compiled again in memory, but from the cache folder
    # (fused program and kernels), and still right.
    close(m(xs[1]), refs[1])
    stats = m.statistics
    assert stats["cached_program"] == 1 and stats["cached_kernels"] == stats["executables"]
    # A second load finds every shape's program and kernels on disk.
    m2 = jitrun.load(path, cache_dir=str(tmp_path))
    close(m2(xs[2]), refs[2])
    assert m2.statistics["cached_program"] == 1


def test_specializations_share_their_weights(cnn, tmp_path):
    """The programs of a model's shapes read one set of weight files in the
    cache folder, written by the first and mapped once in the process."""
    import torchvision
    path, model = cnn
    cache = str(tmp_path)
    m = jitrun.load(path, cache_dir=cache, shape_policy="specialize")
    rng = np.random.RandomState(4)
    for b in (1, 2, 3):
        x = rng.rand(b, 3, 64, 64).astype(np.float32)
        close(m(x), torch_run(model, x))
    assert m.specializations == 3
    assert len([f for f in os.listdir(cache) if f.endswith(".jrp")]) == 3
    weights = [f for f in os.listdir(cache) if f.endswith(".jrw")]
    stored = sum(os.path.getsize(os.path.join(cache, f)) - 4096 for f in weights)
    params = 4 * sum(p.numel() for p in torchvision.models.squeezenet1_1().parameters())
    assert 0.8 * params < stored < 1.2 * params, (stored, params)
    mapped = [line.split()[-1] for line in open("/proc/self/maps")
              if line.rstrip().endswith(".jrw")]
    assert mapped and len(mapped) == len(set(mapped)), mapped


def test_threads_at_different_shapes(cnn):
    path, model = cnn
    m = jitrun.load(path, cache_dir=False, threads=2)
    rng = np.random.RandomState(3)
    xs = [rng.rand(b, 3, 64, 64).astype(np.float32) for b in (1, 2, 1, 3, 2, 1, 3, 2)]
    refs = [torch_run(model, x) for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                close(m(xs[i]), refs[i])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert m.specializations == 3  # one compile per distinct shape
