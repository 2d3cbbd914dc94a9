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
config.substitutions.append(("%PYTHON", config.host_python))
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
