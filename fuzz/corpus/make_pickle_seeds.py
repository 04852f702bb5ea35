#!/usr/bin/env python3
"""Writes the small pickle seeds in fuzz/corpus/pickle/ (deterministic).

Each is a bare pickle (the torch_pickle target wraps it in a zip, torch_load
takes it as a legacy-looking file) in one of the shapes that amplify memory
(issue 18): a string the memo references many times, as a value and as a dict
key; floods of None, empty lists and MEMOIZE; deep sharing. Small (< 4 KB), so
the fuzzer mutates them quickly; fuzz/checkpoint_memory.h checks the heap peak.
  /usr/bin/python3 fuzz/corpus/make_pickle_seeds.py
"""
import os
import pickle

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pickle")


def save(name, data):
    with open(os.path.join(HERE, name + ".pkl"), "wb") as f:
        f.write(data)


def main():
    os.makedirs(HERE, exist_ok=True)
    s = "x" * 1024
    # One string, 200 references (memo BINGETs), and as the key of 50 dicts.
    save("memo_string", pickle.dumps([s] * 200, protocol=2))
    save("memo_key", pickle.dumps([{s: i} for i in range(50)], protocol=2))
    # Equal strings stored separately (interned by the loader), as keys.
    key = b"X" + (64).to_bytes(4, "little") + b"k" * 64
    save("equal_keys", b"\x80\x02}(" + key + b"K\x01" + key + b"K\x02u.")
    # Floods: None, empty lists, MEMOIZE (protocol 4), nested sharing.
    save("none_flood", b"\x80\x02(" + b"N" * 2000 + b"l.")
    save("list_flood", b"\x80\x02](" + b"]" * 2000 + b"e.")
    save("memoize_flood", b"\x80\x04N" + b"\x94" * 2000 + b".")
    dag = []
    for _ in range(20):
        dag = [dag, dag]
    save("dag", pickle.dumps(dag, protocol=2))
    save("dict_of_lists", pickle.dumps({str(i): [None] * 20 for i in range(40)}, protocol=4))


if __name__ == "__main__":
    main()
