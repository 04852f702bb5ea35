#!/usr/bin/env python3
"""Checks the #include layering of Ember's core library, and of the libraries
that declare and fill kernel slots of their own (vision).

Every header and source under core/src and core/include/ember belongs to a
layer (its folder); a file may include files of its own layer or of lower
ones, never of a higher one. The order, lowest first, is LAYERS below and
docs/architecture.md ("Layers of core") explains it. A library with slots
(LIBRARY_LAYERS: vision/src) is checked the same way against its own layers;
besides its own files and the public headers it may include only core's
backend-author header set (core/src/kernels/slots/ and BACKEND_HEADERS, the
headers core/CMakeLists.txt installs as Ember::backend), and its kernels/cpu/
is private to that folder. Run from anywhere:

    scripts/check_layering.py [repository root]

Exit status 0 when the layering holds, 1 with one line per violation
otherwise. ctest runs it as core.check_layering (label core). Plain python3,
no packages beyond the standard library.
"""
import os
import re
import sys

# Lowest first. A file in layer i may include layers 0..i.
LAYERS = [
    "base",       # tensors, storage, dtypes, devices, allocator, errors
    "runtime",    # thread pool and OpenMP settings behind ember/core/parallel.h
    "iter",       # TensorIterator, the elementwise engine
    "kernels",    # slot declarations (kernels/slots/) and the CPU backend (kernels/cpu/)
    "ops",        # op families: checks, output geometry, slot calls
    "autograd",   # graph, engine, derivative formulas
    "fft",        # torch.fft's ops over the FFT slots (the CPU engine is kernels/cpu/fft/)
    "spectral",   # stft / istft and windows, built on fft
    "serialize",  # safetensors, torch.load, JSON, IValue
    "nn",         # modules and nn::functional
    "transforms", # the transform base, containers and JSON registry shared by vision and audio
    "special",    # torch.special: aliases over ops and nn::functional
    "optim",      # optimizers and their state files
    "ao",         # torch.ao.quantization's workflow: observers, fake quantization, QConfig, prepare
    "umbrella",   # ember/ember.h, which includes everything
]
RANK = {name: i for i, name in enumerate(LAYERS)}

# The one pair of layers that include each other: op files record their
# backward (autograd/record.h) and derivative formulas call ops.
MUTUAL = {("ops", "autograd")}

# Public headers (core/include/ember/...), by folder or file. ember/core and
# ember/ops declare the tensor API that ember/core/tensor.h already exposes as
# Tensor methods, so they sit in base: including one adds no dependency that
# tensor.h does not have.
PUBLIC_LAYERS = {
    "core": "base",
    "ops": "base",
    "autograd": "autograd",
    "fft.h": "fft",
    "serialize": "serialize",
    "nn": "nn",
    "transforms": "transforms",
    "special": "special",
    "special.h": "special",
    "optim": "optim",
    "ao": "ao",
    "ember.h": "umbrella",
}

# A folder private to one backend: only that folder includes it.
BACKEND_PRIVATE = ["kernels/cpu/"]

# Known violations, each a larger refactor than moving a declaration:
# (including file, included file) -> why it stays for now.
ALLOWED = {
    ("base/tensor_impl.cpp", "autograd/autograd_meta.h"):
        "TensorImpl owns its AutogradMeta (the destructor needs the complete type); "
        "c10's fix, a virtual AutogradMetaInterface in base, is a refactor of its own",
    ("base/tensor_impl.cpp", "ember/autograd/grad_mode.h"):
        "a new TensorImpl records whether inference mode was on (the thread-local flag lives in autograd)",
    ("iter/tensor_iterator.cpp", "ops/op_utils.h"):
        "broadcast shapes, wrapped scalars and checked allocation: helpers that belong below iter, "
        "but ~50 op files include them from ops/op_utils.h",
    ("iter/tensor_iterator.cpp", "ops/conj_views.h"):
        "the iterator resolves conjugate/negative operands through the copy slot "
        "(Note [Conjugate bit]); moving that resolution into the ops is part of the device-generic rework",
}

# Libraries outside core with kernel slots: their src/ folders' layers, lowest
# first (public headers, ember/<library>/..., sit below them all: they declare
# the API). kernels/ holds the slot declarations (kernels/slots/), what every
# backend shares (image layouts, resampling weights) and the CPU backend
# (kernels/cpu/); ops and transforms are the op files.
LIBRARY_LAYERS = {
    "vision": ["kernels", "ops", "transforms", "detection", "utils"],
}

# core/src headers outside kernels/slots/ that Ember::backend installs too.
BACKEND_HEADERS = {"iter/tensor_iterator.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    """Layer of a path relative to core/src, or 'ember/...' for public headers."""
    parts = path.split("/")
    if parts[0] == "ember":
        return PUBLIC_LAYERS.get(parts[1])
    return parts[0] if parts[0] in RANK else None


def resolve(include, including_dir, src, inc):
    """The include as a layer path (relative to core/src, or ember/...), or None."""
    local = os.path.normpath(os.path.join(including_dir, include))
    if os.path.isfile(local):
        for root, prefix in ((src, ""), (os.path.join(inc, "ember"), "ember/")):
            rel = os.path.relpath(local, root)
            if not rel.startswith(".."):
                return prefix + rel
    if os.path.isfile(os.path.join(src, include)):
        return include
    if os.path.isfile(os.path.join(inc, include)):
        return include
    return None


def sources(root, prefix):
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith((".h", ".cpp")):
                full = os.path.join(folder, name)
                yield full, prefix + os.path.relpath(full, root)


def quoted_includes(path):
    """(line number, header) of each #include "..." of a file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def check(repo):
    src = os.path.join(repo, "core", "src")
    inc = os.path.join(repo, "core", "include")
    problems, used_allowances = [], set()
    files = list(sources(src, "")) + list(sources(os.path.join(inc, "ember"), "ember/"))
    for full, rel in files:
        layer = layer_of(rel)
        if layer is None:
            problems.append(f"{rel}: in no layer (add its folder to LAYERS or PUBLIC_LAYERS)")
            continue
        for number, include in quoted_includes(full):
            target = resolve(include, os.path.dirname(full), src, inc)
            where = f"{rel}:{number}"
            if target is None:
                problems.append(f'{where}: #include "{include}" names no file of core')
                continue
            target_layer = layer_of(target)
            if target_layer is None:
                problems.append(f"{where}: {target} is in no layer")
                continue
            upward = RANK[target_layer] > RANK[layer] and (layer, target_layer) not in MUTUAL \
                and (target_layer, layer) not in MUTUAL
            private = any(target.startswith(p) and not rel.startswith(p) for p in BACKEND_PRIVATE)
            if not (upward or private):
                continue
            if (rel, target) in ALLOWED:
                used_allowances.add((rel, target))
                continue
            if upward:
                problems.append(f"{where}: {layer} includes {target} of the higher layer {target_layer}")
            else:
                problems.append(f"{where}: includes {target}, private to its backend folder")
    for stale in sorted(set(ALLOWED) - used_allowances):
        problems.append(f"ALLOWED lists {stale[0]} -> {stale[1]}, which no longer occurs: remove the entry")
    return problems, len(files)


def in_backend_set(core_rel):
    """Whether a path relative to core/src is in core's backend-author header set."""
    return (core_rel.startswith("kernels/slots/") and core_rel.endswith(".h")) or core_rel in BACKEND_HEADERS


def check_library(repo, library, layers):
    """The layering of one library with kernel slots; paths reported from the repo root."""
    src = os.path.join(repo, library, "src")
    if not os.path.isdir(src):
        return [], 0
    rank = {name: i for i, name in enumerate(layers)}
    core_src = os.path.join(repo, "core", "src")
    public_roots = [os.path.join(repo, d, "include") for d in sorted(os.listdir(repo))
                    if os.path.isdir(os.path.join(repo, d, "include"))]
    prefix = f"{library}/src/"
    problems, count = [], 0
    for full, rel in sources(src, ""):
        count += 1
        layer = rel.split("/")[0]
        if layer not in rank:
            problems.append(f"{prefix}{rel}: in no layer (add its folder to LIBRARY_LAYERS[{library!r}])")
            continue
        for number, include in quoted_includes(full):
            where = f"{prefix}{rel}:{number}"
            local = os.path.normpath(os.path.join(os.path.dirname(full), include))
            own = None
            if os.path.isfile(local) and not os.path.relpath(local, src).startswith(".."):
                own = os.path.relpath(local, src)
            elif os.path.isfile(os.path.join(src, include)):
                own = include
            if own is not None:
                target_layer = own.split("/")[0]
                if target_layer in rank and rank[target_layer] > rank[layer]:
                    problems.append(f"{where}: {layer} includes {own} of the higher layer {target_layer}")
                elif own.startswith("kernels/cpu/") and not rel.startswith("kernels/cpu/"):
                    problems.append(f"{where}: includes {own}, private to its backend folder")
                continue
            if any(os.path.isfile(os.path.join(root, include)) for root in public_roots):
                continue
            if os.path.isfile(os.path.join(core_src, include)):
                if not in_backend_set(include):
                    problems.append(f"{where}: includes core's {include}, which is not in core's backend header set")
                continue
            problems.append(f'{where}: #include "{include}" names no file of {library} or of a public header set')
    return problems, count


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems, count = check(os.path.abspath(repo))
    for library, layers in LIBRARY_LAYERS.items():
        more, n = check_library(os.path.abspath(repo), library, layers)
        problems += more
        count += n
    for p in sorted(problems):
        print(p)
    order = " < ".join(LAYERS) + "".join(f"; {lib}: " + " < ".join(layers) for lib, layers in LIBRARY_LAYERS.items())
    if problems:
        print(f"check_layering: {len(problems)} problem(s) in {count} files; layers: {order}")
        return 1
    print(f"check_layering: {count} files follow {order} ({len(ALLOWED)} allowed exceptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
