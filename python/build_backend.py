"""The PEP 517 build backend of `pip install .`: offline, no setuptools.

It builds the C++ project with CMake (in $JITRUN_BUILD_DIR, default the
source tree's build/, configured there if it is not yet), installs it into a
scratch prefix, and packs the `jitrun` package with libjitrun.so next to the
extension (found through its $ORIGIN rpath) into a wheel. LLVM, MLIR and
oneDNN stay the system's (Debian's packages).

    make build && pip install --no-build-isolation .
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        return re.search(r"project\(jitrun VERSION ([0-9.]+)", f.read()).group(1)


def _metadata():
    return ("Metadata-Version: 2.1\nName: jitrun\nVersion: %s\n"
            "Summary: A JIT CPU runtime for ML inference (MLIR and ONNX models)\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n" % _version())


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, plat)


def _dist_info():
    return "jitrun-%s.dist-info" % _version()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = os.path.join(metadata_directory, _dist_info())
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "METADATA"), "w") as f:
        f.write(_metadata())
    return _dist_info()


def _run(cmd):
    print("jitrun build:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build_and_install(prefix):
    build = os.environ.get("JITRUN_BUILD_DIR") or os.path.join(SOURCE, "build")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        _run(["cmake", "-S", SOURCE, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
              "-DPython_EXECUTABLE=" + sys.executable])
    _run(["cmake", "--build", build, "--target", "jitrun_python", "jitrun_api"])
    _run(["cmake", "--install", build, "--prefix", prefix])
    pkg = None
    for root, dirs, _ in os.walk(prefix):
        if "jitrun" in dirs and os.path.exists(os.path.join(root, "jitrun", "__init__.py")):
            pkg = os.path.join(root, "jitrun")
    if not pkg:
        sys.exit("jitrun build: the install put no jitrun package under " + prefix)
    libdir = os.path.join(prefix, "lib")
    libs = [f for f in os.listdir(libdir) if f.startswith("libjitrun.so.")]
    soname = min(libs, key=len)  # libjitrun.so.0, the name the extension asks for
    return pkg, os.path.realpath(os.path.join(libdir, soname)), soname


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "jitrun-%s-%s.whl" % (_version(), _tag())
    with tempfile.TemporaryDirectory() as prefix:
        pkg, lib, soname = _build_and_install(prefix)
        files = [(os.path.join(pkg, f), "jitrun/" + f) for f in sorted(os.listdir(pkg))
                 if f.endswith((".py", ".so"))]
        files.append((lib, "jitrun/" + soname))
        dist = _dist_info()
        generated = {
            dist + "/METADATA": _metadata(),
            dist + "/WHEEL": "Wheel-Version: 1.0\nGenerator: jitrun build_backend\n"
                             "Root-Is-Purelib: false\nTag: %s\n" % _tag(),
            dist + "/top_level.txt": "jitrun\n",
        }
        record = []
        path = os.path.join(wheel_directory, name)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as whl:
            def add(arcname, data):
                whl.writestr(zipfile.ZipInfo(arcname, (2026, 1, 1, 0, 0, 0)), data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                record.append("%s,sha256=%s,%d" % (arcname, digest.decode(), len(data)))
            for src, arcname in files:
                with open(src, "rb") as f:
                    add(arcname, f.read())
            for arcname, text in generated.items():
                add(arcname, text.encode())
            record.append(dist + "/RECORD,,")
            whl.writestr(dist + "/RECORD", "\n".join(record) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "jitrun-%s" % _version()
    name = base + ".tar.gz"
    tracked = subprocess.run(["git", "-C", SOURCE, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for f in tracked:
            tar.add(os.path.join(SOURCE, f), arcname=os.path.join(base, f))
        info = tarfile.TarInfo(os.path.join(base, "PKG-INFO"))
        data = _metadata().encode()
        info.size = len(data)
        import io
        tar.addfile(info, io.BytesIO(data))
    return name
