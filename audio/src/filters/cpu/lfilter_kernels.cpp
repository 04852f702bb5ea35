// The CPU kernel of lfilter_slot: the difference equation run across rows in
// SIMD lanes (Note [lfilter across rows]), with torchaudio's roundings (Note
// [lfilter arithmetic] in filters/lfilter_kernels.h). Compiled with
// -ffp-contract=off (audio/CMakeLists.txt): the only fused multiply-adds are
// the explicit ones of the FIR taps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__FMA__)
#include <immintrin.h>
#endif

#include <ember/core/parallel.h>

#include "filters/lfilter_kernels.h"

namespace ember::audio {
namespace {

// Note [lfilter across rows]
// Each output sample depends on the previous ones, so one row cannot be
// vectorized along time without changing torchaudio's arithmetic. Rows are
// independent instead: a block of kLanes rows (8 float32 / 4 float64 rows in a
// 32-byte vector) runs the recursion together, lane l holding row l, each lane
// with its own coefficient set (a broadcast set for 1-D coefficients, row r's
// set r % C for batched ones). Time runs in tiles of kTile samples: a tile of
// the block's rows is transposed into a [time][lane] buffer (8x8 / 4x4
// register transposes), filtered with the order's state in registers (the
// order is a template parameter up to kMaxFixedTaps taps; longer filters keep
// their state in the tile buffers), and transposed back into the rows, with
// the clamp applied on the way out. Blocks run in parallel (core's
// parallel_for); the per-sample critical path is one multiply and one
// subtraction (y[n-1] a_1), and at order 8 the 25 vector operations per
// sample keep both FP ports busy. With fewer rows than lanes (mono or stereo
// audio) most lanes would be empty, so the FIR part runs first, vectorized
// along time (it is not recursive), and the block pass runs the recursion
// alone; the roundings are the same either way.

typedef float VecF __attribute__((vector_size(32)));
typedef double VecD __attribute__((vector_size(32)));
typedef int32_t MaskF __attribute__((vector_size(32)));
typedef int64_t MaskD __attribute__((vector_size(32)));

template <class T>
struct VecTraits;
template <>
struct VecTraits<float> {
  using V = VecF;
};
template <>
struct VecTraits<double> {
  using V = VecD;
};
template <class T>
using Vec = typename VecTraits<T>::V;
template <class T>
inline constexpr int kLanes = static_cast<int>(32 / sizeof(T));

constexpr int64_t kTile = 128;       // samples per tile: two buffers of 4 KiB
constexpr int kMaxFixedTaps = 9;     // orders 0 .. 8 keep their state in registers

template <class T>
inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <class T>
inline void store(T* p, Vec<T> v) {
  std::memcpy(p, &v, sizeof(v));
}

// a * b + c with one rounding (the FIR taps, as oneDNN's convolution).
inline VecF fused_multiply_add(VecF a, VecF b, VecF c) {
#if defined(__FMA__)
  return _mm256_fmadd_ps(a, b, c);
#else
  VecF r;
  for (int l = 0; l < 8; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
#endif
}
inline VecD fused_multiply_add(VecD a, VecD b, VecD c) {
#if defined(__FMA__)
  return _mm256_fmadd_pd(a, b, c);
#else
  VecD r;
  for (int l = 0; l < 4; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
#endif
}

#if defined(__clang__)
#define EMBER_SHUFFLE(M, a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define EMBER_SHUFFLE(M, a, b, ...) __builtin_shuffle(a, b, M{__VA_ARGS__})
#endif

// r[i][j] <- r[j][i] for an 8x8 float32 block (unpack, 64-bit shuffle, 128-bit permute).
inline void transpose(VecF (&r)[8]) {
  VecF t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = EMBER_SHUFFLE(MaskF, r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = EMBER_SHUFFLE(MaskF, r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = EMBER_SHUFFLE(MaskF, t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 1] = EMBER_SHUFFLE(MaskF, t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[i + 2] = EMBER_SHUFFLE(MaskF, t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 3] = EMBER_SHUFFLE(MaskF, t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = EMBER_SHUFFLE(MaskF, u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[i + 4] = EMBER_SHUFFLE(MaskF, u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}
// The same for a 4x4 float64 block.
inline void transpose(VecD (&r)[4]) {
  const VecD t0 = EMBER_SHUFFLE(MaskD, r[0], r[1], 0, 4, 2, 6);
  const VecD t1 = EMBER_SHUFFLE(MaskD, r[0], r[1], 1, 5, 3, 7);
  const VecD t2 = EMBER_SHUFFLE(MaskD, r[2], r[3], 0, 4, 2, 6);
  const VecD t3 = EMBER_SHUFFLE(MaskD, r[2], r[3], 1, 5, 3, 7);
  r[0] = EMBER_SHUFFLE(MaskD, t0, t2, 0, 1, 4, 5);
  r[1] = EMBER_SHUFFLE(MaskD, t1, t3, 0, 1, 4, 5);
  r[2] = EMBER_SHUFFLE(MaskD, t0, t2, 2, 3, 6, 7);
  r[3] = EMBER_SHUFFLE(MaskD, t1, t3, 2, 3, 6, 7);
}
#undef EMBER_SHUFFLE

// One block of up to kLanes rows.
template <class T>
struct Block {
  static constexpr int L = kLanes<T>;
  const T* in[L] = {};  // row starts; null for lanes past the last row
  T* out[L] = {};
  int64_t length = 0;   // samples per row
  int taps = 0;         // K = order + 1
  // Per lane, flipped: b_flip[j] = b[K-1-j], a_flip[i] = a[K-1-i] (i < K-1).
  std::vector<Vec<T>> b_flip, a_flip;
  bool clamp = false;
};

// in[t0, t0 + len) of the block's rows -> buf[t][lane] (zeros in empty lanes).
template <class T>
void load_tile(const Block<T>& blk, int64_t t0, int64_t len, T* buf) {
  constexpr int L = kLanes<T>;
  int64_t t = 0;
  for (; t + L <= len; t += L) {
    Vec<T> r[L];
    for (int l = 0; l < L; ++l) r[l] = blk.in[l] ? load(blk.in[l] + t0 + t) : Vec<T>{};
    transpose(r);
    for (int i = 0; i < L; ++i) store(buf + (t + i) * L, r[i]);
  }
  for (; t < len; ++t)
    for (int l = 0; l < L; ++l) buf[t * L + l] = blk.in[l] ? blk.in[l][t0 + t] : T(0);
}

// clamp(v, -1, 1), NaN kept (torch.clamp).
template <class T>
inline Vec<T> clamp_unit(Vec<T> v) {
  const Vec<T> lo = Vec<T>{} - T(1), hi = Vec<T>{} + T(1);
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// buf[t][lane] -> out rows [t0, t0 + len), clamped when the block says so.
template <class T>
void store_tile(const Block<T>& blk, int64_t t0, int64_t len, const T* buf) {
  constexpr int L = kLanes<T>;
  int64_t t = 0;
  for (; t + L <= len; t += L) {
    Vec<T> r[L];
    for (int i = 0; i < L; ++i) r[i] = load(buf + (t + i) * L);
    transpose(r);
    for (int l = 0; l < L; ++l) {
      if (!blk.out[l]) continue;
      store(blk.out[l] + t0 + t, blk.clamp ? clamp_unit<T>(r[l]) : r[l]);
    }
  }
  for (; t < len; ++t) {
    for (int l = 0; l < L; ++l) {
      if (!blk.out[l]) continue;
      T v = buf[t * L + l];
      if (blk.clamp) v = v < T(-1) ? T(-1) : (v > T(1) ? T(1) : v);
      blk.out[l][t0 + t] = v;
    }
  }
}

// K taps known at compile time: the last K-1 inputs and outputs live in registers.
template <class T, int K, bool kFir, bool kIir>
void filter_block_fixed(const Block<T>& blk) {
  constexpr int L = kLanes<T>;
  constexpr int H = K > 1 ? K - 1 : 1;
  Vec<T> bf[K], af[H], xh[H], yh[H];
  for (int j = 0; j < K; ++j) bf[j] = kFir ? blk.b_flip[j] : Vec<T>{};
  for (int i = 0; i < H; ++i) {
    af[i] = kIir && i < K - 1 ? blk.a_flip[i] : Vec<T>{};
    xh[i] = Vec<T>{};
    yh[i] = Vec<T>{};
  }
  alignas(32) T in_buf[kTile * L];
  alignas(32) T out_buf[kTile * L];
  for (int64_t t0 = 0; t0 < blk.length; t0 += kTile) {
    const int64_t len = std::min(kTile, blk.length - t0);
    load_tile(blk, t0, len, in_buf);
    for (int64_t t = 0; t < len; ++t) {
      const Vec<T> xn = load(in_buf + t * L);
      Vec<T> v = xn;
      if constexpr (kFir) {
        Vec<T> acc = Vec<T>{};
        for (int j = 0; j < K - 1; ++j) acc = fused_multiply_add(bf[j], xh[j], acc);
        v = fused_multiply_add(bf[K - 1], xn, acc);
        if constexpr (K > 1) {
          for (int j = 0; j + 1 < K - 1; ++j) xh[j] = xh[j + 1];
          xh[K - 2] = xn;
        }
      }
      if constexpr (kIir && K > 1) {
        for (int i = 0; i < K - 1; ++i) v = v - yh[i] * af[i];
        for (int i = 0; i + 1 < K - 1; ++i) yh[i] = yh[i + 1];
        yh[K - 2] = v;
      }
      store(out_buf + t * L, v);
    }
    store_tile(blk, t0, len, out_buf);
  }
}

// Any K: the last K-1 inputs and outputs sit in front of each tile in its buffer.
template <class T>
void filter_block_any(const Block<T>& blk, bool fir, bool iir) {
  constexpr int L = kLanes<T>;
  const int K = blk.taps;
  const int64_t H = K - 1;
  std::vector<T> in_buf((H + kTile) * L, T(0)), out_buf((H + kTile) * L, T(0));
  for (int64_t t0 = 0; t0 < blk.length; t0 += kTile) {
    const int64_t len = std::min(kTile, blk.length - t0);
    load_tile(blk, t0, len, in_buf.data() + H * L);
    const T* x = in_buf.data();
    T* y = out_buf.data();
    for (int64_t t = 0; t < len; ++t) {
      Vec<T> v;
      if (fir) {
        v = Vec<T>{};
        for (int j = 0; j < K; ++j) v = fused_multiply_add(blk.b_flip[j], load(x + (t + j) * L), v);
      } else {
        v = load(x + (t + H) * L);
      }
      if (iir)
        for (int i = 0; i < K - 1; ++i) v = v - load(y + (t + i) * L) * blk.a_flip[i];
      store(y + (t + H) * L, v);
    }
    store_tile(blk, t0, len, y + H * L);
    // Keep the last H samples of input and output for the next tile.
    std::memmove(in_buf.data(), in_buf.data() + len * L, H * L * sizeof(T));
    std::memmove(out_buf.data(), out_buf.data() + len * L, H * L * sizeof(T));
  }
}

template <class T, int K>
void filter_block_dispatch(const Block<T>& blk, bool fir, bool iir) {
  if constexpr (K > kMaxFixedTaps) {
    filter_block_any(blk, fir, iir);
  } else {
    if (blk.taps != K) return filter_block_dispatch<T, K + 1>(blk, fir, iir);
    if (fir && iir) filter_block_fixed<T, K, true, true>(blk);
    else if (fir) filter_block_fixed<T, K, true, false>(blk);
    else filter_block_fixed<T, K, false, true>(blk);
  }
}

// v = FIR_b(x) for one row, vectorized along time: each v[t] is the same
// chain of fused multiply-adds, oldest tap first from zero, as in the fused
// pass (Note [lfilter across rows], few rows).
template <class T>
void fir_row_along_time(const T* x, T* v, int64_t length, const T* b, int taps) {
  constexpr int L = kLanes<T>;
  auto one = [&](int64_t t) {
    T acc = 0;
    for (int k = taps - 1; k >= 0; --k) acc = std::fma(b[k], t - k >= 0 ? x[t - k] : T(0), acc);
    v[t] = acc;
  };
  int64_t t = 0;
  for (; t < std::min<int64_t>(taps - 1, length); ++t) one(t);
  for (; t + L <= length; t += L) {
    Vec<T> acc = Vec<T>{};
    for (int k = taps - 1; k >= 0; --k) acc = fused_multiply_add(Vec<T>{} + b[k], load(x + t - k), acc);
    store(v + t, acc);
  }
  for (; t < length; ++t) one(t);
}

template <class T>
void lfilter_typed(Tensor& out, const Tensor& x, const Tensor& a, const Tensor& b, bool clamp) {
  constexpr int L = kLanes<T>;
  const int64_t rows = x.size(0), length = x.size(1);
  bool fir = b.defined();
  const bool iir = a.defined();
  const Tensor& coeffs = fir ? b : a;
  const int64_t sets = coeffs.size(0);
  const int taps = static_cast<int>(coeffs.size(1));
  const T* x_data = x.data_ptr<T>();
  T* out_data = out.data_ptr<T>();
  const T* a_data = iir ? a.data_ptr<T>() : nullptr;
  const T* b_data = fir ? b.data_ptr<T>() : nullptr;
  if (rows == 0 || length == 0) return;
  if (!fir && !iir) {
    for (int64_t i = 0; i < rows * length; ++i) {
      const T v = x_data[i];
      out_data[i] = clamp ? (v < T(-1) ? T(-1) : (v > T(1) ? T(1) : v)) : v;
    }
    return;
  }
  // Fewer rows than lanes: the fused pass would spend most of its FIR
  // multiply-adds on empty lanes, and at high orders they, not the
  // recursion's latency, would bound it. The FIR part then runs first along
  // time (the same roundings), the recursion after it.
  std::vector<T> fir_out;
  if (fir && iir && rows < L && taps > 1) {
    fir_out.resize(static_cast<size_t>(rows * length));
    for (int64_t r = 0; r < rows; ++r)
      fir_row_along_time(x_data + r * length, fir_out.data() + r * length, length, b_data + (r % sets) * taps, taps);
    x_data = fir_out.data();
    fir = false;
  }
  const int64_t blocks = (rows + L - 1) / L;
  // About 64k multiply-adds per chunk, so short signals do not wake threads for nothing.
  const int64_t work_per_block = std::max<int64_t>(1, length * taps * L);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / work_per_block);
  parallel_for(0, blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      Block<T> blk;
      blk.length = length;
      blk.taps = taps;
      blk.clamp = clamp;
      blk.b_flip.assign(taps, Vec<T>{});
      blk.a_flip.assign(std::max(taps - 1, 1), Vec<T>{});
      for (int l = 0; l < L; ++l) {
        const int64_t row = block * L + l;
        if (row >= rows) break;
        blk.in[l] = x_data + row * length;
        blk.out[l] = out_data + row * length;
        const int64_t set = row % sets;
        for (int j = 0; j < taps; ++j) {
          if (fir) blk.b_flip[j][l] = b_data[set * taps + (taps - 1 - j)];
          if (iir && j < taps - 1) blk.a_flip[j][l] = a_data[set * taps + (taps - 1 - j)];
        }
      }
      filter_block_dispatch<T, 1>(blk, fir, iir);
    }
  });
}

void lfilter_kernel(Tensor& out, const Tensor& x, const Tensor& a, const Tensor& b, bool clamp) {
  if (x.dtype() == kFloat64) lfilter_typed<double>(out, x, a, b, clamp);
  else lfilter_typed<float>(out, x, a, b, clamp);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(lfilter_slot, CPU, lfilter_kernel, dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::audio
