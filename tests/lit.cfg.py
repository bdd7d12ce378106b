# lit configuration of jitrun's IR and CLI tests (tests/**/*.mlir) and of its
# scripts (tests/tools/*.test).
import os
import lit.formats

config.name = "jitrun"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.jitrun_obj_root, "tests")
config.excludes = ["Inputs", "unit", "e2e", "api", "package", "fuzz", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

tools = os.path.join(config.jitrun_obj_root, "tools")
config.substitutions.append(("%jitrun", os.path.join(tools, "jitrun")))
config.substitutions.append(("%jit-opt", os.path.join(tools, "jit-opt")))
config.substitutions.append(("%models", os.path.join(config.jitrun_obj_root, "models")))
config.substitutions.append(("%zoo", os.path.join(config.jitrun_obj_root, "zoo")))
config.substitutions.append(("%modelgen", os.path.join(tools, "modelgen")))
config.substitutions.append(("%no-threads", os.path.join(config.jitrun_obj_root, "tests", "libno_threads.so")))
config.substitutions.append(("%shared", config.shared_dir))
# Debian's python3, with python3-onnx, python3-numpy and python3-torch.
config.substitutions.append(("%debian-python", "/usr/bin/python3"))
config.substitutions.append(("%onnx-testdata", "/usr/share/libonnx-testdata/data"))
config.substitutions.append(("%scripts", os.path.join(os.path.dirname(config.test_source_root), "scripts")))
# jitrun's default cache folder stays off: a test of the cache names its own.
config.environment["JITRUN_CACHE_DIR"] = ""
config.environment["PATH"] = os.pathsep.join(
    [tools, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Sanitized builds: "asan" (ASan+UBSan) or "tsan".
if getattr(config, "jitrun_sanitize", ""):
    config.available_features.add({"address": "asan", "thread": "tsan"}.get(config.jitrun_sanitize, "sanitizer"))
if os.path.isdir(os.path.join(config.shared_dir, "corpus")):
    config.available_features.add("corpus")

# The host's CPU flags (Linux), for tests of ISA-specific code paths.
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
except OSError:
    flags = []
if "avx512f" in flags:
    config.available_features.add("avx512")
if "avx512f" in flags and "avx512_vnni" in flags:
    config.available_features.add("avx512vnni")
if "avx512f" in flags and "avx512_bf16" in flags:
    config.available_features.add("avx512bf16")


def _amx_granted():
    """Whether Linux grants a process the AMX tile state (as jitrun asks)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata = 158, 0x1023, 18
        return libc.syscall(sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0
    except (OSError, AttributeError):
        return False


if ("avx512f" in flags and "amx_bf16" in flags and "amx_tile" in flags
        and _amx_granted()):
    config.available_features.add("amx")
