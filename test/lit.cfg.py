# lit configuration of the Decoda test suite.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Decoda"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "unittests",
                   "harness.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.decoda_obj_root, "test")

llvm_config.use_default_substitutions()
# Sanitizer builds (DECODA_SANITIZE, docs/Reliability.md): every error is fatal and leaks fail the
# tool that leaks, including memory of a compiled model it runs (no suppressions: a model frees
# what a failed call allocated, lib/Target/CPU/CallMemory.c). Processes that are not instrumented but load the instrumented
# libdecoda_runtime.so (Python through ctypes, C drivers) get the shared ASan runtime preloaded
# through %{preload_san}, with leak checking off (the interpreter's own allocations are not ours).
_python = config.host_python
config.substitutions.append(("%{preload_san}", ""))
if getattr(config, "decoda_sanitize", ""):
    config.available_features.add("decoda-sanitized")
    config.environment["ASAN_OPTIONS"] = ("detect_leaks=1:halt_on_error=1:detect_odr_violation=0:"
                                          "strict_string_checks=1:check_initialization_order=1")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    _preload = (f"env LD_PRELOAD={config.decoda_asan_runtime} "
                "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:detect_odr_violation=0")
    config.substitutions[-1] = ("%{preload_san}", _preload)
    _python = f"{_preload} {config.host_python}"
# The libFuzzer targets of fuzz/ (DECODA_FUZZ=ON): test/fuzz runs them on their regression inputs.
if getattr(config, "decoda_fuzz", "OFF") in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("decoda-fuzzers")
config.substitutions.append(("%PYTHON", _python))
config.substitutions.append(("%decoda_src", config.decoda_src_root))
config.substitutions.append(("%decoda_obj", config.decoda_obj_root))
config.environment["PYTHONPATH"] = os.path.join(config.decoda_src_root, "python")
config.environment["DECODA_BIN_DIR"] = config.decoda_tools_dir
config.environment["DECODA_RUNTIME_LIB"] = os.path.join(config.decoda_obj_root, "lib",
                                                        "libdecoda_runtime.so")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
# FileCheck, not, count live in the LLVM tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.decoda_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["decoda-opt", "decoda-compile", "decoda-run", "decoda-translate"], tool_dirs)
