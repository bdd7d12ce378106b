"""jitrun: compile an ML model for this CPU and run it from Python.

    import jitrun, numpy as np
    m = jitrun.load("resnet18.onnx")          # .onnx, .mlir, .mlirbc or bytes
    print(m.inputs)                           # [TensorInfo(name='input', shape=(1, 3, 224, 224), dtype='float32')]
    y = m(np.zeros((1, 3, 224, 224), np.float32))

Inputs are NumPy arrays, Python lists or DLPack tensors (torch tensors);
results are NumPy arrays (torch.from_dlpack(y) shares their memory). A
C-contiguous input of the model's dtype is read in place and results are
written in place; the GIL is released while the model runs, so threads may
run one model at once. Errors are jitrun.Error subclasses carrying the
library's message.
"""

import collections as _collections
import os as _os
import sys as _sys

from . import _jitrun

__version__ = _jitrun.version()
__all__ = ["load", "Model", "Runtime", "TensorInfo", "ProfileRow", "Error", "CompileError",
           "ShapeError", "InvalidArgumentError", "NotFoundError", "ResourceExhaustedError", "RunError",
           "version"]


class Error(Exception):
    """A failed jitrun call: `message` and the C API's status `code`."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidArgumentError(Error, ValueError):
    """A bad option value or argument."""


class CompileError(Error):
    """The model does not parse, verify or compile; the message has MLIR's
    file:line:col diagnostics."""


class ShapeError(Error, ValueError):
    """Inputs or outputs of the wrong count, shape or dtype."""


class ResourceExhaustedError(Error, MemoryError):
    """Over the memory limit, or out of memory."""


class RunError(Error, RuntimeError):
    """A failure while running."""


class NotFoundError(Error, FileNotFoundError):
    """A model file that cannot be read."""


_jitrun._set_error_classes({1: InvalidArgumentError, 2: NotFoundError, 3: CompileError,
                            4: ShapeError, 5: ResourceExhaustedError, 6: RunError})

TensorInfo = _collections.namedtuple("TensorInfo", "name shape dtype")
TensorInfo.__doc__ = ("An input or output: its name ('' if none), shape tuple (None for a "
                      "dynamic dim) and dtype name.")
ProfileRow = _collections.namedtuple("ProfileRow", "name op location ms flops bytes")
ProfileRow.__doc__ = ("One command of a profiled run: dispatch (or fill/copy) name, root op, "
                      "source position, mean ms per run, FLOPs and bytes of one run.")


def version():
    """The loaded library's version, 'MAJOR.MINOR.PATCH'."""
    return _jitrun.version()


class Runtime:
    """Worker threads shared by the models loaded on it (threads=0: one per core)."""

    def __init__(self, threads=0):
        self._rt = _jitrun.Runtime(threads)

    @property
    def threads(self):
        return self._rt.threads


_runtimes = {}


def _default_runtime(threads):
    # One pool per thread count for the whole process: N models never start N pools.
    if threads not in _runtimes:
        _runtimes[threads] = Runtime(threads)
    return _runtimes[threads]


def _print_progress(phase, done, total):
    text = {"read": "reading the model", "fuse": "fusing"}.get(
        phase, "compiling kernels %d/%d" % (done, total))
    end = "\n" if phase == "compile" and done == total else ""
    _sys.stderr.write("\r\x1b[Kjitrun: " + text + end)
    _sys.stderr.flush()


def load(model, *, threads=0, fusion="default", function=None, cache_dir=None,
         cache_max_bytes=None, input_shapes=None, memory_limit=0, compile_threads=0, force_avx2=False,
         stack_limit=None, fail_on_stack_limit=True, progress=None, runtime=None,
         max_specializations=8, shape_policy="tiered", weights="f32", amx=True):
    """Compiles a model for this CPU and returns a callable Model.

    model: a path (.onnx, .mlir, .mlirbc) or the file's bytes.
    threads: worker threads that run each kernel (0: one per core); ignored
        when `runtime` (a jitrun.Runtime shared by several models) is given.
    fusion: "default", "aggressive" or "none".
    function: the entry point (default: the only public function, else main).
    cache_dir: the cache folder (compiled kernels and fused programs: a
        second load skips import, fusion and codegen). None: the default
        ($JITRUN_CACHE_DIR, else $XDG_CACHE_HOME/jitrun, else
        ~/.cache/jitrun); False: no cache.
    cache_max_bytes: the cache folder's size cap (default 1 GiB; 0: none).
    input_shapes: {"input name": (1, 3, 224, 224)} fixes an ONNX input's
        symbolic dims at load time. Without it, a model with dynamic dims
        (symbolic ONNX dims, `?` in MLIR) runs at any shape: the first run
        at new shapes compiles the model for them, and later runs at those
        shapes start at once.
    weights: "bf16" stores f32 matmul weights as bf16 (their inputs rounded
        to bf16, f32 accumulation): half the weight bytes, results as
        accurate as bf16 inputs allow. Matmuls of many rows run in AMX tiles
        on Intel hosts with AMX (2.4-3.2x f32's speed on BERT-size
        encoders), as AVX512_BF16 dot products on AMD ones (twice f32's
        rate), widened to f32 elsewhere. On AMX hosts the convolutions
        with channels in 32s take bf16 tiles too (ResNet-50 about 3x);
        on other AVX512_BF16 hosts the 1x1 ones (ResNet-50 about 1.3x).
    amx: False keeps bf16 matmuls off the AMX tiles (AVX-512 dot products).
    max_specializations: how many shape specializations of a dynamic model
        stay in memory (least recently used go first; the cache folder
        keeps them on disk).
    shape_policy: what a call at shapes not compiled yet waits for.
        "specialize": the model is compiled for them first. "tiered" (the
        default): along a dim the model computes index by index (the batch of most models;
        jitrun checks), the call runs at once as pieces at sizes already
        compiled (batch 5 as 4 + 1) while the new shapes compile in the
        background for later calls. "split": pieces always, no compile
        for a new batch. "buckets": as "tiered", but only powers of two
        compile (37 runs as 32 + 4 + 1 once those are in): a bounded set
        of programs for every batch size. A new sequence length (a dim
        that cannot be split) runs at once under "tiered" on kernels
        generic in it (kept in memory) while its own program compiles;
        "generic" stays on those kernels and never compiles a new size's
        own program.
    memory_limit: the most bytes the model may allocate (0: no limit).
    progress: True prints progress on stderr; a callable gets
        (phase, done, total) with phase "read", "fuse" or "compile".
    """
    options = _jitrun.LoadOptions()
    options.fusion = fusion
    options.function = function or ""
    if cache_dir is False or cache_dir == "":
        options.cache_dir = ""
    elif cache_dir is not None:
        options.cache_dir = _os.fspath(cache_dir)
    if cache_max_bytes is not None:
        options.cache_max_bytes = cache_max_bytes
    options.memory_limit = memory_limit
    options.compile_threads = compile_threads
    options.force_avx2 = force_avx2
    if stack_limit is not None:
        options.stack_limit = stack_limit
        options.fail_on_stack_limit = fail_on_stack_limit
    if input_shapes:
        options.input_shapes = {str(k): [int(d) for d in v] for k, v in input_shapes.items()}
    options.max_specializations = max_specializations
    options.shape_policy = shape_policy
    options.weights = weights
    options.amx = bool(amx)
    if progress is True:
        options.progress = _print_progress
    elif progress:
        options.progress = progress
    rt = runtime if runtime is not None else _default_runtime(threads)
    return Model(_jitrun.Model(rt._rt, model, options), rt)


class Model:
    """A model compiled for this CPU (from jitrun.load). Thread-safe."""

    def __init__(self, impl, runtime):
        self._m = impl
        self._runtime = runtime
        self.inputs = [TensorInfo(*d) for d in impl.describe(True)]
        self.outputs = [TensorInfo(*d) for d in impl.describe(False)]

    def __call__(self, *inputs, out=None):
        """Runs on positional inputs; one result is returned as an array,
        several as a tuple. out= takes arrays to write the results into."""
        results = self._m.run(inputs, out)
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, inputs, out=None):
        """Runs on {name: array} (or a list in input order); returns the list
        of results in output order."""
        return self._m.run(inputs, out)

    @property
    def function(self):
        return self._m.function

    @property
    def dynamic(self):
        """True when some input has a dynamic dim (None in its shape)."""
        return self._m.dynamic

    @property
    def specializations(self):
        """How many shape specializations of a dynamic model are in memory."""
        return self._m.specializations

    def output_shapes(self, *shapes):
        """The results' shapes for inputs of these shapes (a dynamic model
        compiles for them now if they are new, so the next run starts at once)."""
        return [tuple(s) for s in self._m.output_shapes([list(map(int, s)) for s in shapes])]

    @property
    def threads(self):
        return self._m.threads

    @property
    def statistics(self):
        """What the compile did: dispatches, fused ops, kernels, bytes, seconds."""
        return self._m.statistics()

    def profile(self, *inputs, runs=10, sort="run"):
        """Runs `runs` times with every command timed; returns ProfileRow
        tuples in run order (sort="time": slowest first)."""
        if sort not in ("run", "time"):
            raise InvalidArgumentError("jitrun: sort must be 'run' or 'time', not %r" % (sort,), 1)
        self._m.set_profiling(True)
        try:
            for _ in range(runs):
                self._m.run(inputs, None)
            count, rows = self._m.profile()
        finally:
            self._m.set_profiling(False)
        rows = [ProfileRow(n, op, loc, s * 1e3, f, b) for n, op, loc, s, f, b in rows]
        if sort == "time":
            rows.sort(key=lambda r: -r.ms)
        return rows

    def __repr__(self):
        return "<jitrun.Model @%s: %d inputs, %d outputs, %d dispatches>" % (
            self.function, len(self.inputs), len(self.outputs),
            self.statistics["dispatches"])
