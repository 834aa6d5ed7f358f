# -*- Python -*-
# lit configuration for clang-maxcode's tool tests. Run through check-maxcode,
# or: /usr/lib/llvm-22/bin/lit -sv build/test
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "clang-maxcode"
# RUN lines run in bash: tests start servers, kill runs and use $(...).
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".c", ".cpp", ".cu", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.maxcode_obj_root, "test")

# FileCheck, not, count and split-file come from LLVM's tool folder, which is
# put first on PATH so they resolve anywhere in a RUN line.
llvm_config.with_system_environment(["HOME", "TMPDIR", "USER"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("CLANG_NO_DEFAULT_CONFIG", "1")
# The precompiled CUDA preludes of this build's tests, in the build folder
# (docs/CUDA.md): not the user's cache, which a clone per CI run would fill.
config.environment["MAXCODE_PCH_DIR"] = os.path.join(
    config.maxcode_obj_root, "test", "pch-cache")
# The per-user cache (rollout stores of runs without --store or a separate
# build folder): one per lit run, in the build folder, so that no run reads
# an earlier run's evaluations and the user's ~/.cache is left alone.
_cache_home = os.path.join(config.maxcode_obj_root, "test", "cache-home")
shutil.rmtree(_cache_home, ignore_errors=True)
os.makedirs(_cache_home, exist_ok=True)
config.environment["XDG_CACHE_HOME"] = _cache_home
llvm_config.use_default_substitutions()

config.substitutions.append(
    ("%clang-maxcode", os.path.join(config.maxcode_tools_dir, "clang-maxcode")))
config.substitutions.append(("%maxcode_bin", config.maxcode_tools_dir))
# The language server beside it (docs/Editors.md); its tests are transcripts.
config.substitutions.append(
    ("%maxcode-lsp", os.path.join(config.maxcode_tools_dir, "maxcode-lsp")))
config.substitutions.append(("%python", config.python_executable))
# The project's LLVM version's, never /usr/bin's (docs/Output.md).
config.substitutions.append(
    ("%clang-apply-replacements",
     os.path.join(config.llvm_tools_dir, "clang-apply-replacements")))
config.substitutions.append(
    ("%maxcode_src", config.maxcode_src_root))
config.substitutions.append(
    ("%cuda_path", config.maxcode_cuda_path))
# The build's library folder, holding libmaxcode-cupti.so, and the reader of
# its reports (docs/CUDA.md).
config.substitutions.append(
    ("%maxcode_lib_dir", os.path.join(config.maxcode_obj_root, "lib")))
config.substitutions.append(
    ("%maxcode-cupti-report",
     os.path.join(config.maxcode_tools_dir, "maxcode-cupti-report")))
# The scripted OpenAI-compatible server for LLM tests (docs/LLM.md):
# %llm-server start --script S.json --state DIR / %llm-server stop --state DIR
config.substitutions.append(
    ("%llm-server", "%s %s" % (config.python_executable,
                               os.path.join(config.maxcode_src_root, "utils",
                                            "scripted-llm-server.py"))))

# Benchmark data shared beside the checkout (never edited, see shared/README).
pie = os.path.normpath(
    os.path.join(config.maxcode_src_root, "..", "shared", "data", "pie"))
config.substitutions.append(("%pie", pie))
if os.path.isdir(pie):
    config.available_features.add("pie-data")

if shutil.which("valgrind"):
    config.available_features.add("valgrind")
if shutil.which("bwrap"):
    config.available_features.add("bwrap")
# Builds and runs then happen as an unprivileged user of the sandbox's.
if os.geteuid() == 0:
    config.available_features.add("root")
    # What makes a folder that user cannot enter reachable (a container's
    # root may lack it).
    if shutil.which("unshare") and subprocess.run(
            ["unshare", "--mount", "true"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("mount-namespace")
if os.path.exists(os.path.join(config.maxcode_cuda_path, "bin", "nvcc")):
    config.available_features.add("nvcc")


def has_cuda_gpu():
    """True only when a GPU is really there: nvidia-smi lists one."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU " in out.stdout


if has_cuda_gpu():
    config.available_features.add("cuda-gpu")


def clang_maxcode_help_mentions(flag):
    """True when the built clang-maxcode's --help lists the flag."""
    tool = os.path.join(config.maxcode_tools_dir, "clang-maxcode")
    try:
        out = subprocess.run([tool, "--help"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return flag in out.stdout


# maxcode-lsp runs whole searches through clang-maxcode once it has the
# command-line contract the server relies on (docs/Editors.md).
if clang_maxcode_help_mentions("--progress-file"):
    config.available_features.add("maxcode-search")
# An editor that no one here wrote, driven headless through a code action.
if shutil.which("nvim"):
    config.available_features.add("nvim")


def slurm_answers():
    """True when SLURM_CONF names a cluster whose controller answers, as the
    one utils/slurm-cluster.sh brings up (and .ci/run does)."""
    conf = os.environ.get("SLURM_CONF")
    scontrol = shutil.which("scontrol")
    sinfo = shutil.which("sinfo")
    if not conf or not scontrol or not sinfo:
        return False
    try:
        # ping answers at once when the controller is down, where sinfo
        # retries for seconds.
        ping = subprocess.run([scontrol, "ping"], capture_output=True,
                              text=True, timeout=5)
        if ping.returncode != 0 or "is UP" not in ping.stdout:
            return False
        out = subprocess.run([sinfo, "-h"], capture_output=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


# Every Slurm command in a test must reach the same cluster.
if "SLURM_CONF" in os.environ:
    config.environment["SLURM_CONF"] = os.environ["SLURM_CONF"]
if slurm_answers():
    config.available_features.add("slurm")

# The tests that use the Slurm cluster take turns: one of them takes the
# node down, which would end the jobs of any other running beside it.
lit_config.parallelism_groups["slurm-cluster"] = 1
