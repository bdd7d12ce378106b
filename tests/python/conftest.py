"""Fixtures of the Python package's tests: the build tree (JITRUN_BUILD_DIR,
whose python/ holds the package under test), ONNX's conformance data and
real models exported from PyTorch."""
import os
import subprocess
import sys

import pytest

BUILD = os.environ.get("JITRUN_BUILD_DIR",
                       os.path.join(os.path.dirname(__file__), "..", "..", "build"))
BUILD = os.path.abspath(BUILD)
if os.path.join(BUILD, "python") not in sys.path:
    sys.path.insert(0, os.path.join(BUILD, "python"))

ONNX_NODE = "/usr/share/libonnx-testdata/data/node"


@pytest.fixture(scope="session")
def build_dir():
    return BUILD


@pytest.fixture(scope="session")
def jitrun_cli():
    return os.path.join(BUILD, "tools", "jitrun")


@pytest.fixture(scope="session")
def zoo():
    return os.path.join(BUILD, "zoo")


@pytest.fixture(scope="session")
def tiny_cnn():
    return os.path.join(BUILD, "models", "tiny_cnn.mlirbc")


def onnx_case(name):
    """(model path, [inputs], [expected outputs]) of an ONNX node test."""
    import onnx
    from onnx import numpy_helper
    folder = os.path.join(ONNX_NODE, name)
    data = os.path.join(folder, "test_data_set_0")

    def read(prefix):
        out = []
        for i in range(16):
            path = os.path.join(data, "%s_%d.pb" % (prefix, i))
            if not os.path.exists(path):
                break
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            out.append((t.data_type, numpy_helper.to_array(t)))
        return out
    return os.path.join(folder, "model.onnx"), read("input"), read("output")


@pytest.fixture(scope="session")
def squeezenet_onnx(tmp_path_factory):
    """torchvision's squeezenet1_1 (random weights, eval mode) exported by
    torch.onnx.export, with PyTorch's own output for a fixed input."""
    import numpy as np
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.squeezenet1_1(weights=None).eval()
    x = torch.rand(1, 3, 96, 96)
    path = str(tmp_path_factory.mktemp("onnx") / "squeezenet1_1.onnx")
    torch.onnx.export(model, x, path, input_names=["image"], output_names=["logits"],
                      opset_version=13)
    with torch.no_grad():
        ref = model(x).numpy()
    return path, x.numpy(), ref


def cli_json(jitrun_cli, *args):
    """The JSON the jitrun CLI writes on stderr for `args`."""
    import json
    res = subprocess.run([jitrun_cli, *args], capture_output=True, text=True, check=True)
    return json.loads([l for l in res.stderr.splitlines() if l.startswith("{")][-1])
