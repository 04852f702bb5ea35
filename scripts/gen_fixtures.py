#!/usr/bin/python3
"""Regenerates the test fixtures under tests/data/ with Debian's python3-torch.

Run with Debian's interpreter: /usr/bin/python3 scripts/gen_fixtures.py [family ...]
Each module in scripts/fixtures/ defines generate(out_dir) for one op family (or,
for the standalone scripts, main(), which writes its own folder) and
writes .npy files (read by tests/npy.h) to tests/data/<DOMAIN>/<family>/, where
DOMAIN is the module's attribute of that name ("core" when it has none).
Fixtures are committed; tests never run Python.
"""
import importlib
import os
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


def main():
    torch.manual_seed(0)
    families = sys.argv[1:] or sorted(
        p.stem for p in (ROOT / "scripts" / "fixtures").glob("*.py") if p.stem != "__init__")
    for family in families:
        module = importlib.import_module(f"fixtures.{family}")
        if not hasattr(module, "generate"):
            # A standalone script (the audio ones) that knows its own output folder.
            module.main()
            print(f"{family}: written by its main()")
            continue
        out_dir = ROOT / "tests" / "data" / getattr(module, "DOMAIN", "core") / family
        out_dir.mkdir(parents=True, exist_ok=True)
        module.generate(out_dir)
        print(f"{family}: {len(list(out_dir.glob('*.npy')))} files in {out_dir.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
