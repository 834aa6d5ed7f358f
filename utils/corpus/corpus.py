"""Projects of the corpus: their recipes and their compile databases.

Shared by the scripts of utils/corpus/ (run-corpus.py; the rules check beside
it). A recipe (recipes/NAME.json) names a public repository, the commit it was
measured at and how its compile commands are made; the code itself is never
part of clang-maxcode. See docs/CUDA.md, "Real code: the corpus".

Recipe fields:
  name        the project's name (the recipe file is NAME.json)
  repo        owner/name on GitHub
  commit      the commit measured
  kind        "cuda" or "cpp": which figure the project counts in
  folder      the checkout's folder name under the corpus root (default: name)
  database    "cmake": configure with CMake (cmake_args) and use its
              compile_commands.json; "commands": commands from the groups
              below (the project's Makefile flags); "existing": the checkout's
              own compile_commands.json
  cmake_source  folder of the top CMakeLists.txt, relative (default ".")
  cmake_args  extra arguments for the CMake configure step
  groups      for "commands": a list of objects with
                directory  where the commands run, relative to the checkout
                compiler   argv[0] (default "nvcc" for cuda, "g++" for cpp)
                sources    globs relative to the checkout ("**" recurses)
                flags      the flags, before the source file; {checkout} is
                           the project's folder, {corpus} the folder holding
                           every checkout (also in cmake_args)
                file_flags {"relative/file": [extra flags]}
                exclude    globs of files the group leaves out
  sources     globs (relative) of the database entries to run on; default:
              every .cu file (cuda) or .cc/.cpp/.cxx file (cpp)
  exclude     globs of files left out (tests of a build system, ...)
  exclude_included  true: leave out sources another source #includes (they
              are part of that translation unit, not one of their own)
  headers     globs of headers that define kernels, run on as well (their
              commands are inferred from the database by clang-maxcode)
  notes       free text: why the recipe is as it is
"""

import fnmatch
import glob
import json
import os
import re
import shlex
import subprocess

RECIPE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "recipes")

CUDA_EXTENSIONS = (".cu",)
CPP_EXTENSIONS = (".cc", ".cpp", ".cxx", ".c++", ".C")


class RecipeError(Exception):
    """A recipe that cannot be used, with the reason."""


def load_recipe(path):
    """Reads one recipe; raises RecipeError naming the file when it is bad."""
    try:
        with open(path, encoding="utf-8") as f:
            recipe = json.load(f)
    except (OSError, ValueError) as e:
        raise RecipeError("cannot read recipe '%s': %s" % (path, e))
    for field in ("name", "repo", "commit", "kind", "database"):
        if field not in recipe:
            raise RecipeError("recipe '%s' has no '%s'" % (path, field))
    if recipe["kind"] not in ("cuda", "cpp"):
        raise RecipeError("recipe '%s': kind must be cuda or cpp" % path)
    if recipe["database"] not in ("cmake", "commands", "existing"):
        raise RecipeError("recipe '%s': database must be cmake, commands or "
                          "existing" % path)
    if recipe["database"] == "commands" and not recipe.get("groups"):
        raise RecipeError("recipe '%s': a 'commands' database needs groups"
                          % path)
    recipe.setdefault("folder", recipe["name"])
    recipe["path"] = path
    return recipe


def load_recipes(recipe_dir=RECIPE_DIR):
    """Every recipe of the folder, by name."""
    recipes = {}
    for path in sorted(glob.glob(os.path.join(recipe_dir, "*.json"))):
        r = load_recipe(path)
        recipes[r["name"]] = r
    return recipes


def recipe_for_folder(folder, recipes):
    """The recipe whose checkout folder is folder's name, or None."""
    base = os.path.basename(os.path.normpath(folder))
    for r in recipes.values():
        if r["folder"] == base or r["name"] == base:
            return r
    return None


def default_recipe(folder):
    """A recipe for a project without one: its compile_commands.json (at the
    top or in build/), else a CMake configure; CUDA when it has .cu files."""
    base = os.path.basename(os.path.normpath(folder))
    kind = "cpp"
    for _root, _dirs, files in os.walk(folder):
        if any(f.endswith(CUDA_EXTENSIONS) for f in files):
            kind = "cuda"
            break
    recipe = {"name": base, "repo": "", "commit": "", "kind": kind,
              "folder": base, "path": None}
    for sub in ("", "build"):
        if os.path.exists(os.path.join(folder, sub, "compile_commands.json")):
            recipe["database"] = "existing"
            recipe["existing_dir"] = sub
            return recipe
    if os.path.exists(os.path.join(folder, "CMakeLists.txt")):
        recipe["database"] = "cmake"
        return recipe
    raise RecipeError("'%s' has no recipe, no compile_commands.json and no "
                      "CMakeLists.txt: write utils/corpus/recipes/%s.json"
                      % (folder, base))


def checkout_commit(folder):
    """The commit checked out in folder, or "" when folder is not the top of
    a git checkout of its own."""
    try:
        out = subprocess.run(["git", "-C", folder, "rev-parse",
                              "--show-toplevel", "HEAD"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = out.stdout.split()
    if out.returncode != 0 or len(lines) != 2 or \
            os.path.realpath(lines[0]) != os.path.realpath(folder):
        return ""
    return lines[1]


_DEPENDENCY_FLAGS = ("-MF", "-MT", "-MQ")


def command_writing_nothing(entry):
    """A database entry's command (a list) without its -o and dependency
    flags: run in the entry's directory, it compiles the same way and writes
    no file of the project's."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o" or a in _DEPENDENCY_FLAGS:
            skip = True
            continue
        if a in ("-MD", "-MMD"):
            continue
        out.append(a)
    return out


def _glob(folder, pattern):
    return sorted(p for p in glob.glob(os.path.join(folder, pattern),
                                       recursive=True) if os.path.isfile(p))


def _matches(rel, patterns):
    return any(fnmatch.fnmatch(rel, p) or
               fnmatch.fnmatch(rel, p.replace("**/", "")) for p in patterns)


def _default_compiler(recipe):
    return "nvcc" if recipe["kind"] == "cuda" else "g++"


def _commands_database(recipe, folder):
    """Entries made from the recipe's groups (the project's Makefile flags)."""
    entries = []
    for group in recipe["groups"]:
        directory = os.path.join(folder, group.get("directory", "."))
        compiler = group.get("compiler", _default_compiler(recipe))
        file_flags = group.get("file_flags", {})
        for pattern in group["sources"]:
            for path in _glob(folder, pattern):
                rel = os.path.relpath(path, folder)
                if _matches(rel, group.get("exclude", [])):
                    continue
                args = [compiler] + list(group.get("flags", []))
                args += list(file_flags.get(rel, []))
                args += ["-c", path]
                entries.append({"directory": os.path.normpath(directory),
                                "file": path, "arguments": args})
    return entries


def _cmake_database(recipe, folder, build_dir, log):
    """Configures the project with CMake (no build) for its database."""
    source = os.path.join(folder, recipe.get("cmake_source", "."))
    cmd = ["cmake", "-S", source, "-B", build_dir, "-G", "Ninja",
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"] + list(
               recipe.get("cmake_args", []))
    with open(log, "w", encoding="utf-8") as out:
        out.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        out.flush()
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=3600)
    path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.exists(path):
        raise RecipeError("CMake wrote no compile_commands.json for '%s' "
                          "(see %s)" % (recipe["name"], log))
    with open(path, encoding="utf-8") as f:
        return json.load(f)


_INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]', re.M)


def _included_sources(paths):
    """Sources that another of paths #includes by a relative name."""
    wanted = set(os.path.realpath(p) for p in paths)
    included = set()
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for name in _INCLUDE.findall(text):
            target = os.path.realpath(os.path.join(os.path.dirname(p), name))
            if target in wanted and target != os.path.realpath(p):
                included.add(target)
    return included


def _expand(flags, folder, corpus_root):
    """Flags with {checkout} (the project's folder) and {corpus} (the folder
    holding every checkout) replaced."""
    root = corpus_root or os.path.dirname(os.path.normpath(folder))
    return [f.replace("{checkout}", folder).replace("{corpus}", root)
            for f in flags]


# nvcc's flags that choose GPU architectures, with and without their value
# in the same argument.
_ARCH_FLAGS = ("--generate-code", "-gencode", "--gpu-architecture", "-arch",
               "--gpu-code", "-code")


def _arch_flag(arg):
    """(flag, value or None) when arg is one of _ARCH_FLAGS, else None."""
    for f in _ARCH_FLAGS:
        if arg == f:
            return f, None
        if arg.startswith(f + "="):
            return f, arg[len(f) + 1:]
    return None


def one_architecture(argv, arch):
    """argv (a list) building GPU code for arch (90, say) alone, as an
    engineer tuning for one card builds: where the command already builds
    for arch (or its arch-specific 90a / 90f) with a --generate-code of its
    own, only that one is kept; otherwise every architecture flag gives way
    to arch's. Commands with no architecture flag get arch's too.

    cuda-samples' CMake sets nine architectures in every sample, over any
    -DCMAKE_CUDA_ARCHITECTURES, so that each compile is nine; moderngpu's
    and Rodinia's name architectures CUDA 13 no longer builds (60, 20)."""
    if not any(os.path.basename(argv[0]).startswith(n) for n in ("nvcc",)):
        return argv
    specs = []  # (first index, argument count, flag, value)
    i = 0
    while i < len(argv):
        hit = _arch_flag(argv[i])
        if hit and hit[1] is None and i + 1 < len(argv):
            specs.append((i, 2, hit[0], argv[i + 1]))
            i += 2
            continue
        if hit:
            specs.append((i, 1, hit[0], hit[1]))
        i += 1
    own = re.compile(r"compute_%s[af]?(,|$)" % re.escape(str(arch)))
    keep = [sp for sp in specs if sp[2] in ("--generate-code", "-gencode")
            and own.search(sp[3])]
    drop = set()
    for sp in specs:
        if not keep or sp is not keep[0]:
            drop.update(range(sp[0], sp[0] + sp[1]))
    out = [a for j, a in enumerate(argv) if j not in drop]
    if not keep:
        out[1:1] = ["--generate-code=arch=compute_%s,code=[compute_%s,sm_%s]"
                    % (arch, arch, arch)]
    return out


def make_database(recipe, folder, work_dir, corpus_root=None,
                  cuda_arch=None):
    """Writes the project's compile_commands.json into a folder of its own
    under work_dir and returns (that folder, the sources to run on, the
    headers to run on).

    The database keeps every entry (clang-maxcode reads commands of files it
    is not run on, for headers); the sources returned are the recipe's, each
    file once. With cuda_arch, nvcc commands build GPU code for that
    architecture alone (one_architecture)."""
    db_dir = os.path.join(work_dir, recipe["name"])
    os.makedirs(db_dir, exist_ok=True)
    kind = recipe["database"]
    if kind == "commands":
        entries = _commands_database(recipe, folder)
        for e in entries:
            e["arguments"] = _expand(e["arguments"], folder, corpus_root)
    elif kind == "cmake":
        recipe = dict(recipe, cmake_args=_expand(
            recipe.get("cmake_args", []), folder, corpus_root))
        entries = _cmake_database(recipe, folder,
                                  os.path.join(db_dir, "cmake-build"),
                                  os.path.join(db_dir, "cmake.log"))
    else:
        path = os.path.join(folder, recipe.get("existing_dir", ""),
                            "compile_commands.json")
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)
    if cuda_arch:
        for e in entries:
            if "arguments" in e:
                e["arguments"] = one_architecture(e["arguments"], cuda_arch)
            else:
                argv = shlex.split(e["command"])
                narrowed = one_architecture(argv, cuda_arch)
                if narrowed != argv:
                    e["command"] = shlex.join(narrowed)
    with open(os.path.join(db_dir, "compile_commands.json"), "w",
              encoding="utf-8") as f:
        json.dump(entries, f, indent=1)

    extensions = (CUDA_EXTENSIONS if recipe["kind"] == "cuda"
                  else CPP_EXTENSIONS)
    patterns = recipe.get("sources")
    exclude = recipe.get("exclude", [])
    chosen, seen = [], set()
    for e in entries:
        path = e["file"]
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(e["directory"], path))
        rel = os.path.relpath(path, folder)
        if rel.startswith(".."):
            continue
        if patterns is not None:
            if not _matches(rel, patterns):
                continue
        elif not rel.endswith(extensions):
            continue
        if _matches(rel, exclude) or path in seen:
            continue
        seen.add(path)
        chosen.append(path)
    if recipe.get("exclude_included"):
        included = _included_sources(chosen)
        chosen = [p for p in chosen if os.path.realpath(p) not in included]
    # Headers that define kernels: clang-maxcode infers their commands from
    # the database's neighbouring entries.
    headers = []
    for pattern in recipe.get("headers", []):
        for path in _glob(folder, pattern):
            if path not in seen:
                seen.add(path)
                headers.append(path)
    return db_dir, chosen, headers
