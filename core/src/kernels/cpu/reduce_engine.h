#pragma once
// The one reduction engine. A reduction is described by an Ops object:
//   Acc identity() const;
//   Acc reduce(Acc acc, T value, int64_t index) const;  // index: flat position in the reduced dims
//   Acc combine(Acc a, Acc b) const;                     // a covers earlier indices than b
//   Out project(Acc acc) const;
// and optionally `Acc reduce_run(Acc, const T*, int64_t n, int64_t index)` for
// a contiguous run it can vectorize. The engine coalesces kept and reduced dims,
// then picks an inner loop:
//  - inner reduction (reduced dim contiguous): one accumulator per output,
//    runs over contiguous memory; few outputs (full reductions) are split into
//    fixed chunks combined in order, so results don't depend on thread count;
//  - outer reduction (kept dim contiguous): a row of accumulators updated
//    row by row, which vectorizes across the kept dim.
#include <algorithm>
#include <memory>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"

namespace ember::reduce_detail {

struct Dims {
  DimVector sizes, in_strides, out_strides;  // logical order, outermost first
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// Splits the dims of `in` (and keepdim-shaped `out`) into kept and reduced
// groups, dropping size-1 dims and merging neighbours that are contiguous in
// both tensors.
void split_dims(const Tensor& in, const Tensor& out, uint64_t mask, Dims& kept, Dims& reduced);

// Offsets (in elements) of multi-index `i` (flat, row-major over d.sizes).
inline void offsets_of(const Dims& d, int64_t flat, int64_t& in_off, int64_t& out_off) {
  in_off = 0;
  out_off = 0;
  for (size_t k = d.sizes.size(); k-- > 0;) {
    const int64_t idx = flat % d.sizes[k];
    flat /= d.sizes[k];
    in_off += idx * d.in_strides[k];
    out_off += idx * d.out_strides[k];
  }
}

// Accumulates in[offset + r-th element of `red`] for flat r in [begin, end).
template <class T, class Ops, class Acc>
Acc reduce_range(const Ops& ops, Acc acc, const T* base, const Dims& red, int64_t begin, int64_t end) {
  if (red.sizes.empty()) return ops.reduce(acc, base[0], 0);
  const size_t nd = red.sizes.size();
  const int64_t inner = red.sizes[nd - 1];
  const int64_t inner_stride = red.in_strides[nd - 1];
  int64_t r = begin;
  while (r < end) {
    const int64_t j0 = r % inner;
    int64_t off = 0, rest = r / inner;
    for (size_t k = nd - 1; k-- > 0;) {
      off += (rest % red.sizes[k]) * red.in_strides[k];
      rest /= red.sizes[k];
    }
    const int64_t n = std::min(inner - j0, end - r);
    const T* p = base + off + j0 * inner_stride;
    if constexpr (requires { ops.reduce_run(acc, p, n, r); }) {
      if (inner_stride == 1) {
        acc = ops.reduce_run(acc, p, n, r);
        r += n;
        continue;
      }
    }
    for (int64_t j = 0; j < n; ++j) acc = ops.reduce(acc, p[j * inner_stride], r + j);
    r += n;
  }
  return acc;
}

// Runs the reduction of `in` over the dims in `mask`. `out` gives the output
// geometry (keepdim shape: size 1 on reduced dims); store(offset, acc) writes
// the accumulator of the output at element offset `offset`.
template <class T, class Ops, class Store>
void run_with(const Tensor& in, const Tensor& out, uint64_t mask, const Ops& ops, const Store& store) {
  using Acc = decltype(ops.identity());
  Dims kept, red;
  split_dims(in, out, mask, kept, red);
  const T* src = static_cast<const T*>(in.data_ptr());
  const int64_t n_out = kept.numel();
  const int64_t n_red = red.numel();
  if (n_out == 0) return;

  // Outer reduction: the kept innermost dim is contiguous and the reduced dims
  // are not: update a block of accumulators row by row.
  const bool kept_contig = !kept.sizes.empty() && kept.in_strides.back() == 1 &&
                           kept.out_strides.back() == 1;
  const bool red_contig = !red.sizes.empty() && red.in_strides.back() == 1;
  if (kept_contig && !red_contig && n_red > 1) {
    const int64_t m = kept.sizes.back();
    const int64_t outer_kept = n_out / m;
    const int64_t nt = get_num_threads();
    Dims kept_outer = kept;
    kept_outer.sizes.pop_back();
    kept_outer.in_strides.pop_back();
    kept_outer.out_strides.pop_back();
    // Accumulates reduced rows [r0, r1) of kept index ko, columns [c0, c0 + w), into acc.
    auto accumulate_rows = [&](Acc* acc, int64_t ko, int64_t r0, int64_t r1, int64_t c0, int64_t w) {
      int64_t in_off, out_off;
      offsets_of(kept_outer, ko, in_off, out_off);
      auto row_at = [&](int64_t r) {
        int64_t roff, unused;
        offsets_of(red, r, roff, unused);
        return src + in_off + roff + c0;
      };
      int64_t r = r0;
      // Four rows per pass: each accumulator is loaded and stored once per four
      // rows, and every column still sees its rows in order (same result).
      for (; r + 4 <= r1; r += 4) {
        const T* p0 = row_at(r);
        const T* p1 = row_at(r + 1);
        const T* p2 = row_at(r + 2);
        const T* p3 = row_at(r + 3);
        for (int64_t c = 0; c < w; ++c) {
          Acc a = ops.reduce(acc[c], p0[c], r);
          a = ops.reduce(a, p1[c], r + 1);
          a = ops.reduce(a, p2[c], r + 2);
          acc[c] = ops.reduce(a, p3[c], r + 3);
        }
      }
      for (; r < r1; ++r) {
        const T* row = row_at(r);
        for (int64_t c = 0; c < w; ++c) acc[c] = ops.reduce(acc[c], row[c], r);
      }
      return out_off;
    };
    const int64_t chunk_rows = 256;
    const int64_t chunks = (n_red + chunk_rows - 1) / chunk_rows;
    if (outer_kept < nt && chunks > 1 &&
        chunks * m * static_cast<int64_t>(sizeof(Acc)) <= (int64_t{64} << 20)) {
      // Few kept rows: split the reduced rows into fixed chunks (not per
      // thread, so results don't depend on the thread count), each reading
      // whole rows sequentially into its own accumulator row; then combine
      // the chunks in order.
      std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(chunks * m)]);
      for (int64_t ko = 0; ko < outer_kept; ++ko) {
        int64_t in_off, out_off;
        offsets_of(kept_outer, ko, in_off, out_off);
        parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t k = b; k < e; ++k) {
            Acc* acc = partial.get() + k * m;
            std::fill(acc, acc + m, ops.identity());
            // Whole rows: splitting columns here breaks the sequential stream
            // the prefetcher follows (measured 2x slower).
            accumulate_rows(acc, ko, k * chunk_rows, std::min(n_red, (k + 1) * chunk_rows), 0, m);
          }
        });
        parallel_for(0, m, 1024, [&](int64_t c0, int64_t c1) {
          for (int64_t c = c0; c < c1; ++c) {
            Acc a = partial[c];
            for (int64_t k = 1; k < chunks; ++k) a = ops.combine(a, partial[k * m + c]);
            store(out_off + c, a);
          }
        });
      }
      return;
    }
    // Many kept rows: column blocks as wide as possible (long contiguous row
    // segments stream well), enough of them to give every thread work.
    // Splitting columns never changes a column's order of accumulation.
    int64_t block = outer_kept >= nt ? m : (m + nt - 1) / nt;
    block = std::clamp<int64_t>((block + 63) / 64 * 64, 64, 4096);
    const int64_t blocks = (m + block - 1) / block;
    // Each task is a whole column block over every reduced row: grain 1.
    parallel_for(0, outer_kept * blocks, 1, [&](int64_t b, int64_t e) {
      // Not std::vector: vector<bool> has no data().
      std::unique_ptr<Acc[]> acc(new Acc[static_cast<size_t>(block)]);
      for (int64_t task = b; task < e; ++task) {
        const int64_t ko = task / blocks, c0 = (task % blocks) * block;
        const int64_t w = std::min(m, c0 + block) - c0;
        std::fill(acc.get(), acc.get() + w, ops.identity());
        const int64_t out_off = accumulate_rows(acc.get(), ko, 0, n_red, c0, w);
        for (int64_t c = 0; c < w; ++c) store(out_off + c0 + c, acc[c]);
      }
    });
    return;
  }

  // Inner reduction. With few outputs, split each reduction into fixed-size
  // chunks (independent of the thread count) and combine them in order.
  constexpr int64_t kChunk = 65536;
  if (n_out < 2 * get_num_threads() && n_red > 2 * kChunk) {
    const int64_t chunks = (n_red + kChunk - 1) / kChunk;
    for (int64_t o = 0; o < n_out; ++o) {
      int64_t in_off, out_off;
      offsets_of(kept, o, in_off, out_off);
      std::unique_ptr<Acc[]> partial(new Acc[chunks]);
      parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c)
          partial[c] = reduce_range<T>(ops, ops.identity(), src + in_off, red, c * kChunk,
                                       std::min(n_red, (c + 1) * kChunk));
      });
      Acc acc = partial[0];
      for (int64_t c = 1; c < chunks; ++c) acc = ops.combine(acc, partial[c]);
      store(out_off, acc);
    }
    return;
  }
  parallel_for(0, n_out, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n_red, 1)),
               [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t in_off, out_off;
      offsets_of(kept, o, in_off, out_off);
      store(out_off, reduce_range<T>(ops, ops.identity(), src + in_off, red, 0, n_red));
    }
  });
}

// Reduction into `out` of dtype Out through ops.project.
template <class T, class Out, class Ops>
void run(const Tensor& in, Tensor& out, uint64_t mask, const Ops& ops) {
  Out* dst = static_cast<Out*>(out.data_ptr());
  run_with<T>(in, out, mask, ops, [dst, &ops](int64_t off, const auto& acc) { dst[off] = ops.project(acc); });
}

}  // namespace ember::reduce_detail
