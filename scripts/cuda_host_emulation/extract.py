"""Copies the CUDA scan and sort kernels out of cuda/src/kernels/ for the host
emulation (run.sh): the text between fixed markers of each file, with
`__shared__ alignas(16)` respelled as the host's `alignas(16) static`.

usage: extract.py KERNELS_DIR OUT_FILE
"""
import os
import sys

# (file, first marker, marker that ends the copy)
PIECES = [
    ("scan.cuh", "inline constexpr int kScanThreads", "inline unsigned scan_blocks_for"),
    ("scan_arith.cu", "template <class T>\ninline constexpr bool is_complex_v", "// What each scan computes"),
    ("scan_log_minmax.cu", "// log(exp(x)", "void cum_min_max_kernel"),
    ("sort_radix.cu", "// The value's order", "int bit_width"),
    ("sort.cu", "// For output i", "// Sorts the rows of"),
    ("select_mode.cu", "template <class T>\n__global__ void select_kernel", "// One value and index per row"),
    ("unique.cu", "// starts[i] = 1", "constexpr uint32_t kSortable"),
]


def main():
    kernels, out = sys.argv[1], sys.argv[2]
    parts = []
    for name, begin, end in PIECES:
        with open(os.path.join(kernels, name)) as f:
            text = f.read()
        i = text.index(begin)
        parts.append(f"// ---- {name} ----\n" + text[i:text.index(end, i)])
    with open(out, "w") as f:
        f.write("\n".join(parts).replace("__shared__ alignas(16)", "alignas(16) static"))


if __name__ == "__main__":
    main()
