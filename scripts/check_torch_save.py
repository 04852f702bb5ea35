#!/usr/bin/python3
"""Reads the checkpoints Ember's save_torch wrote (TorchSaveCheck.WriteFilesForTorch)
with Debian's torch and compares them with independent references.

Run by ctest as core.torch_save_check (tests/core/torch_save_check.sh):
    /usr/bin/python3 scripts/check_torch_save.py DIR
Exit status 77 (a skip) when torch cannot be imported.
"""
import collections
import pathlib
import pickletools
import sys
import zipfile

try:
    import torch
except ImportError:
    print("torch is not importable: skipped")
    sys.exit(77)

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from fixtures.torch_save import nested, state_dict  # noqa: E402  (the recipes Ember follows)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# Opcodes of torch 1.13's weights_only unpickler (torch/_weights_only_unpickler.py)
# and the one it lacks (BINFLOAT, added in torch 2.0).
WEIGHTS_ONLY_OPS = {"PROTO", "STOP", "GLOBAL", "REDUCE", "BUILD", "NEWOBJ", "APPEND", "APPENDS", "SETITEM",
                    "SETITEMS", "MARK", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "NONE", "NEWFALSE", "NEWTRUE",
                    "EMPTY_TUPLE", "EMPTY_LIST", "EMPTY_DICT", "BININT", "BININT1", "BININT2", "BINUNICODE",
                    "BINPERSID", "BINGET", "LONG_BINGET", "BINPUT", "LONG_BINPUT", "LONG1"}


def pickle_uses_only_weights_only_ops(path):
    """True when only BINFLOAT stands between the file and weights_only=True of torch 1.13."""
    with zipfile.ZipFile(path) as z:
        (pkl,) = [n for n in z.namelist() if n.endswith("/data.pkl")]
        data = z.read(pkl)
    allowed = set(torch._weights_only_unpickler._get_allowed_globals())
    ok = True
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            name = arg.replace(" ", ".")
            check(name in allowed, f"{path.name}: global {name} is not allowed by weights_only")
        elif op.name not in WEIGHTS_ONLY_OPS | {"BINFLOAT"}:
            check(False, f"{path.name}: opcode {op.name}")
            ok = False
    return ok


def load_restricted(path):
    try:
        return torch.load(path, weights_only=True)
    except Exception as e:  # torch < 2.0: no BINFLOAT in the weights_only unpickler
        if "Unsupported operand 71" not in str(e):
            raise
        check(pickle_uses_only_weights_only_ops(path), f"{path.name}: opcodes")
        return torch.load(path)


def same(a, b, what):
    if isinstance(b, torch.Tensor):
        check(isinstance(a, torch.Tensor), f"{what}: not a tensor")
        check(a.dtype == b.dtype, f"{what}: dtype {a.dtype} != {b.dtype}")
        check(a.shape == b.shape and a.stride() == b.stride() and a.storage_offset() == b.storage_offset(),
              f"{what}: geometry {a.shape}/{a.stride()}/{a.storage_offset()} != {b.shape}/{b.stride()}/{b.storage_offset()}")
        check(torch.equal(a, b), f"{what}: values differ")
    elif isinstance(b, dict):
        check(isinstance(a, dict) and list(a.keys()) == list(b.keys()), f"{what}: keys {list(a)} != {list(b)}")
        for k in b:
            same(a[k], b[k], f"{what}[{k!r}]")
    elif isinstance(b, (list, tuple)):
        check(type(a) is type(b) and len(a) == len(b), f"{what}: {type(a).__name__} of {len(a)}")
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{what}[{i}]")
    else:
        check(type(a) is type(b) and a == b, f"{what}: {a!r} != {b!r}")


def main():
    d = pathlib.Path(sys.argv[1])
    # 1. A state_dict: weights_only=True reads it (no floats outside tensors).
    sd = torch.load(d / "state_dict.pt", weights_only=True)
    check(type(sd).__name__ == "OrderedDict", "state_dict.pt: not an OrderedDict")
    same(sd, state_dict(), "state_dict")
    check(sd["w"].data_ptr() == sd["w_t"].data_ptr() == sd["row"].data_ptr() - 16, "state_dict: views do not share")

    # 2. Containers and primitives.
    n = load_restricted(d / "nested.pt")
    same(n, nested(), "nested")
    check(n["tensors"][0] is n["inner"]["t"], "nested: one tensor object became two")

    # 3. Optimizer state: loads into torch.optim.Adam, and one more step in
    # torch gives what Ember's fourth step gave.
    model = torch.nn.Linear(3, 2)
    model.load_state_dict(torch.load(d / "adam_model.pt", weights_only=True))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)
    opt_state = load_restricted(d / "adam_optimizer.pt")
    opt.load_state_dict(opt_state)
    # The loaded state against torch's own three steps from the same start.
    ref = torch.nn.Linear(3, 2)
    with torch.no_grad():
        ref.weight.copy_(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 10 - 0.2)
        ref.bias.copy_(torch.tensor([0.1, -0.2]))
    ref_opt = torch.optim.Adam(ref.parameters(), lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)
    x = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 10
    y = torch.arange(8, dtype=torch.float32).reshape(4, 2) / 4 - 1

    def step(m, o):
        o.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        o.step()

    for _ in range(3):
        step(ref, ref_opt)
    ref_state = ref_opt.state_dict()
    for i in (0, 1):
        for key in ("exp_avg", "exp_avg_sq"):
            check(torch.allclose(opt_state["state"][i][key], ref_state["state"][i][key], rtol=1e-5, atol=1e-7),
                  f"adam state {i} {key}: {opt_state['state'][i][key]} vs torch {ref_state['state'][i][key]}")
        check(float(opt_state["state"][i]["step"]) == 3.0, f"adam state {i} step {opt_state['state'][i]['step']}")
    check(tuple(opt_state["param_groups"][0]["betas"]) == (0.8, 0.9), "adam betas")
    check(torch.allclose(model.weight, ref.weight, atol=1e-6), "adam model weight after 3 steps")
    step(model, opt)
    after = torch.load(d / "adam_after_step4.pt", weights_only=True)
    check(torch.allclose(model.weight, after["weight"], atol=1e-6), f"step 4 weight {model.weight} vs {after['weight']}")
    check(torch.allclose(model.bias, after["bias"], atol=1e-6), f"step 4 bias {model.bias} vs {after['bias']}")

    # 4. A module archive as libtorch's torch::save(module) writes it: torch.jit.load
    # (the loader under libtorch's torch::load(module)) reads it.
    m = torch.jit.load(str(d / "module_archive.pt"))
    sd = torch.load(d / "module_state_dict.pt", weights_only=True)
    same(collections.OrderedDict((k, v) for k, v in m.state_dict().items()), sd, "module_archive")
    params = [n for n, _ in m.named_parameters()]
    check(params == ["0.weight", "1.weight", "1.bias", "4.weight", "4.bias"], f"module_archive parameters {params}")
    buffers = [n for n, _ in m.named_buffers()]
    check(buffers == ["1.running_mean", "1.running_var", "1.num_batches_tracked"], f"module_archive buffers {buffers}")

    if failures:
        print(f"check_torch_save: {len(failures)} failures")
        sys.exit(1)
    print(f"check_torch_save: torch {torch.__version__} read Ember's checkpoints in {d}")


if __name__ == "__main__":
    main()
