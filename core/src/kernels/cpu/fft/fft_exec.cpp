// The primitives of fft_exec.h on the FFT engine: each transformed dim is done
// in turn, as a batch of 1-D transforms over all the other dims (any strides).
// How a batch runs depends on its plan (plan.h):
//   - lane plans (n <= kFourStepMin, or Bluestein of such a size) transform
//     kLanes signals at a time: gather them into a lane buffer (the transpose
//     that turns the batch into SIMD lanes), FFT, scatter; blocks of signals
//     are split across threads.
//   - four-step and large Bluestein plans run one signal at a time, each split
//     across threads inside.
// Loads and stores are small structs (Source/Sink below) that fold in the
// strides, the conjugations of the backward direction (backward = conj of
// forward of conj), the real/Hermitian packing and the final scaling.
#include "kernels/cpu/fft/fft_exec.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "kernels/cpu/fft/bluestein.h"
#include "kernels/cpu/fft/lane_io.h"
#include "kernels/cpu/fft/parallel_blocks.h"
#include "kernels/cpu/fft/real.h"
#include "kernels/cpu/fft/single.h"

namespace ember::fft::detail {
namespace {

// ---- the batch: every dim but the transformed one ----

// Signal offsets are in units of T (a complex element is two).
struct Batch {
  DimVector sizes, in_strides, out_strides;  // outermost first
  int64_t count = 1;

  void offsets(int64_t index, int64_t& in, int64_t& out) const {
    in = out = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      const int64_t i = index % sizes[d];
      index /= sizes[d];
      in += i * in_strides[d];
      out += i * out_strides[d];
    }
  }
};

int64_t reals_per_element(const Tensor& t) { return t.is_complex() ? 2 : 1; }

// Batch dims ordered by input stride (largest first), so consecutive signals
// (one lane block) are as close in memory as the input allows.
Batch make_batch(const Tensor& in, const Tensor& out, int64_t dim) {
  DimVector dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d != dim && in.size(d) != 1) dims.push_back(d);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return std::abs(in.stride(a)) > std::abs(in.stride(b)); });
  Batch batch;
  for (int64_t d : dims) {
    batch.sizes.push_back(in.size(d));
    batch.in_strides.push_back(in.stride(d) * reals_per_element(in));
    batch.out_strides.push_back(out.stride(d) * reals_per_element(out));
    batch.count *= in.size(d);
  }
  return batch;
}

// ---- sources and sinks beyond the strided views of lane_io.h ----

template <class T>
struct RealSource {  // x[j] + 0i
  const T* data;
  int64_t stride;
  std::complex<T> load(int64_t base, int64_t j) const { return {data[base + j * stride], T(0)}; }
};

// The full spectrum of odd length n from its first n/2 + 1 bins, conjugated
// (it feeds a backward transform run as a conjugated forward one).
template <class T>
struct HermitianSource {
  const T* data;  // interleaved complex
  int64_t stride, n;
  std::complex<T> load(int64_t base, int64_t j) const {
    if (j == 0) return {data[base], T(0)};
    const T* p = data + base + (2 * j < n ? j : n - j) * stride;
    return {p[0], 2 * j < n ? -p[1] : p[1]};
  }
};

template <class T>
struct RealPartSink {
  T* data;
  int64_t stride;
  T scale;
  void store(int64_t base, int64_t k, std::complex<T> v) const { data[base + k * stride] = v.real() * scale; }
};

// Bins k < limit only (a real input's one-sided spectrum through the complex path).
template <class T>
struct FirstBinsSink {
  StridedOut<T> out;
  int64_t limit;
  void store(int64_t base, int64_t k, std::complex<T> v) const {
    if (k < limit) out.store(base, k, v);
  }
};

// The full spectrum of a real signal from bins 0..n/2: bin n - k = conj(bin k).
template <class T>
struct MirrorSink {
  StridedOut<T> out;
  int64_t n;
  void store(int64_t base, int64_t k, std::complex<T> v) const {
    out.store(base, k, v);
    if (k > 0 && 2 * k < n) out.store(base, n - k, std::conj(v));
  }
};

// Interleaved complex data of a tensor, as T.
template <class T>
const T* reals(const Tensor& t) {
  return reinterpret_cast<const T*>(t.data_ptr<std::complex<T>>());
}
template <class T>
T* reals(Tensor& t) {
  return reinterpret_cast<T*>(t.data_ptr<std::complex<T>>());
}

// ---- running a batch ----

template <class T>
T* fft_lanes(const Plan<T>& plan, T* a, T* b) {
  if (plan.kind == Plan<T>::Kind::Bluestein) return run_bluestein_lanes(plan, a, b);
  return run_lane_passes(plan.lanes, a, b);
}

// Calls block(in_base, out_base, valid) for each group of kLanes signals,
// groups split across threads when the batch is big enough to pay for it.
// Unused lanes of the last group repeat its last signal (stored only once).
template <class T, class Block>
void for_each_lane_block(const Batch& batch, int64_t work_per_signal, const Block& block) {
  constexpr int L = kLanes<T>;
  const int64_t blocks = (batch.count + L - 1) / L;
  const int64_t min_blocks = kParallelMinElements / std::max<int64_t>(1, work_per_signal * L);
  parallel_blocks(blocks, min_blocks, [&](int64_t blk) {
    const int valid = static_cast<int>(std::min<int64_t>(L, batch.count - blk * L));
    int64_t in_base[L], out_base[L];
    for (int l = 0; l < L; ++l) batch.offsets(blk * L + std::min(l, valid - 1), in_base[l], out_base[l]);
    block(in_base, out_base, valid);
  });
}

// Binds a source/sink to one signal for the single-signal paths; the strided
// views keep their type (lane_io.h's fast runs), others become lambdas.
template <class T>
SignalIn<T> bind_in(const StridedIn<T>& src, int64_t base) {
  return {src, base};
}
template <class T, class Source>
auto bind_in(const Source& src, int64_t base) {
  return [&src, base](int64_t j) { return src.load(base, j); };
}
template <class T>
SignalOut<T> bind_out(const StridedOut<T>& sink, int64_t base) {
  return {sink, base};
}
template <class T, class Sink>
auto bind_out(const Sink& sink, int64_t base) {
  return [&sink, base](int64_t k, std::complex<T> v) { sink.store(base, k, v); };
}

// A batch of complex-to-complex transforms of the plan's length.
template <class T, class Source, class Sink>
void run_batch(const Plan<T>& plan, const Batch& batch, const Source& src, const Sink& sink) {
  const int64_t n = plan.n;
  if (plan.lane_batched()) {
    const int64_t elems = plan.lane_elems() * kElemStride<T>;
    for_each_lane_block<T>(batch, n, [&](const int64_t* in_base, const int64_t* out_base, int valid) {
      T* a = scratch<T>(Slot::LaneA, elems);
      T* b = scratch<T>(Slot::LaneB, elems);
      gather_lanes<T>(src, in_base, n, a);
      scatter_lanes<T>(sink, out_base, valid, n, fft_lanes(plan, a, b));
    });
    return;
  }
  for (int64_t s = 0; s < batch.count; ++s) {
    int64_t in_base, out_base;
    batch.offsets(s, in_base, out_base);
    run_single(plan, bind_in<T>(src, in_base), bind_out<T>(sink, out_base));
  }
}

// Columns: when the batch's innermost dim holds adjacent signals (the
// columns of a row-major matrix, any dim but the last), each lane block reads
// and writes just one cache line per element, kilobytes apart, and the loads
// and stores wait on memory. Taking kColumnGroup blocks at a time makes each
// access a run of kColumnGroup lines instead. Returns false (nothing done)
// when the layout does not fit; results are the same bits either way.
inline constexpr int kColumnGroup = 4;

template <class T>
bool run_column_groups(const Plan<T>& plan, const Batch& batch, const StridedIn<T>& src, const StridedOut<T>& sink) {
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  constexpr int64_t group = kColumnGroup * L;
  const int64_t n = plan.n, elems = plan.lane_elems() * E;
  if (!plan.lane_batched() || batch.sizes.empty() || src.imag != 1 || sink.imag != 1) return false;
  if (batch.in_strides.back() != 2 || batch.out_strides.back() != 2 || batch.sizes.back() % group != 0) return false;
  if (2 * kColumnGroup * elems * static_cast<int64_t>(sizeof(T)) > (1 << 20)) return false;  // keep the buffers in L2
  using V = typename CV<T>::V;
  const V sign(src.im_sign), scale(sink.scale), im_scale(sink.im_scale);
  parallel_blocks(batch.count / group, kParallelMinElements / (n * group), [&](int64_t g) {
    int64_t in_base, out_base;
    batch.offsets(g * group, in_base, out_base);
    T* a = scratch<T>(Slot::LaneA, kColumnGroup * elems);
    T* b = scratch<T>(Slot::LaneB, kColumnGroup * elems);
    const T* p = src.data + in_base;
    for (int64_t j = 0; j < n; ++j) {
      for (int s = 0; s < kColumnGroup; ++s) {
        prefetch_lanes(p + (j + kPrefetchAhead) * src.stride + s * 2 * L, false);
        CV<T> c = load_adjacent(p + j * src.stride + s * 2 * L);
        c.im = c.im * sign;
        c.store(a + s * elems + j * E);
      }
    }
    const T* r[kColumnGroup];
    for (int s = 0; s < kColumnGroup; ++s) r[s] = fft_lanes(plan, a + s * elems, b + s * elems);
    T* q = sink.data + out_base;
    for (int64_t k = 0; k < n; ++k) {
      for (int s = 0; s < kColumnGroup; ++s) {
        prefetch_lanes(q + (k + kPrefetchAhead) * sink.stride + s * 2 * L, true);
        const CV<T> c = CV<T>::load(r[s] + k * E);
        store_adjacent(q + k * sink.stride + s * 2 * L, CV<T>{c.re * scale, c.im * im_scale});
      }
    }
  });
  return true;
}

// ---- one dim ----

template <class T>
void c2c_dim(const Tensor& in, Tensor& out, int64_t dim, T scale, bool forward) {
  const int64_t n = in.size(dim);
  const auto plan = get_plan<T>(n);
  const Batch batch = make_batch(in, out, dim);
  const T sign = forward ? T(1) : T(-1);
  const StridedIn<T> src{reals<T>(in), 2 * in.stride(dim), 1, sign};
  const StridedOut<T> sink{reals<T>(out), 2 * out.stride(dim), 1, scale, sign * scale};
  if (!run_column_groups(*plan, batch, src, sink)) run_batch(*plan, batch, src, sink);
}

template <class T>
void r2c_dim(const Tensor& in, Tensor& out, int64_t dim, T scale, bool onesided) {
  const int64_t n = in.size(dim);
  const Batch batch = make_batch(in, out, dim);
  const T* x = in.data_ptr<T>();
  const int64_t xs = in.stride(dim);
  const StridedOut<T> bins{reals<T>(out), 2 * out.stride(dim), 1, scale, scale};
  if (n % 2 == 1) {
    run_batch(*get_plan<T>(n), batch, RealSource<T>{x, xs}, FirstBinsSink<T>{bins, out.size(dim)});
    return;
  }
  const auto rplan = get_real_plan<T>(n);
  const Plan<T>& half = *rplan->half;
  const int64_t h = n / 2;
  const StridedIn<T> pairs{x, 2 * xs, xs, T(1)};  // z[j] = x[2j] + i x[2j+1]
  const MirrorSink<T> mirrored{bins, n};
  if (half.lane_batched()) {
    const int64_t elems = (std::max(half.lane_elems(), h) + 1) * kElemStride<T>;
    for_each_lane_block<T>(batch, n, [&](const int64_t* in_base, const int64_t* out_base, int valid) {
      T* a = scratch<T>(Slot::LaneA, elems);
      T* b = scratch<T>(Slot::LaneB, elems);
      gather_lanes<T>(pairs, in_base, h, a);
      T* z = fft_lanes(half, a, b);
      untangle_lanes(z, h, rplan->tw.data());
      if (onesided) {
        scatter_lanes<T>(bins, out_base, valid, h + 1, z);
      } else {
        scatter_lanes<T>(mirrored, out_base, valid, h + 1, z);
      }
    });
    return;
  }
  std::complex<T>* z = scratch<std::complex<T>>(Slot::RealHalf, h);
  const StridedOut<T> z_out{reinterpret_cast<T*>(z), 2, 1, T(1), T(1)};
  for (int64_t s = 0; s < batch.count; ++s) {
    int64_t in_base, out_base;
    batch.offsets(s, in_base, out_base);
    run_single(half, SignalIn<T>{pairs, in_base}, SignalOut<T>{z_out, 0});
    if (onesided) {
      untangle_single(z, h, rplan->tw.data(), SignalOut<T>{bins, out_base});
    } else {
      untangle_single(z, h, rplan->tw.data(),
                      [&](int64_t k, std::complex<T> v) { mirrored.store(out_base, k, v); });
    }
  }
}

template <class T>
void c2r_dim(const Tensor& in, Tensor& out, int64_t dim, T scale) {
  const int64_t n = out.size(dim);
  const Batch batch = make_batch(in, out, dim);
  const int64_t xs = in.stride(dim);
  T* y = out.data_ptr<T>();
  const int64_t ys = out.stride(dim);
  if (n % 2 == 1) {
    run_batch(*get_plan<T>(n), batch, HermitianSource<T>{reals<T>(in), 2 * xs, n}, RealPartSink<T>{y, ys, scale});
    return;
  }
  const auto rplan = get_real_plan<T>(n);
  const Plan<T>& half = *rplan->half;
  const int64_t h = n / 2;
  const StridedIn<T> bins{reals<T>(in), 2 * xs, 1, T(1)};
  // x[2m] = Re z, x[2m+1] = Im z = -Im of the conjugated forward FFT's output.
  const StridedOut<T> pairs{y, 2 * ys, ys, scale, -scale};
  if (half.lane_batched()) {
    const int64_t elems = (std::max(half.lane_elems(), h) + 1) * kElemStride<T>;
    for_each_lane_block<T>(batch, n, [&](const int64_t* in_base, const int64_t* out_base, int valid) {
      T* a = scratch<T>(Slot::LaneA, elems);
      T* b = scratch<T>(Slot::LaneB, elems);
      gather_lanes<T>(bins, in_base, h + 1, a);
      tangle_lanes(a, h, rplan->tw.data());
      scatter_lanes<T>(pairs, out_base, valid, h, fft_lanes(half, a, b));
    });
    return;
  }
  std::complex<T>* z = scratch<std::complex<T>>(Slot::RealHalf, h);
  const StridedIn<T> z_in{reinterpret_cast<const T*>(z), 2, 1, T(1)};
  for (int64_t s = 0; s < batch.count; ++s) {
    int64_t in_base, out_base;
    batch.offsets(s, in_base, out_base);
    tangle_single(SignalIn<T>{bins, in_base}, h, rplan->tw.data(), z);
    run_single(half, SignalIn<T>{z_in, 0}, SignalOut<T>{pairs, out_base});
  }
}

// ---- the primitives ----

double scale_factor(Scale scale, double n) {
  switch (scale) {
    case Scale::None: return 1.0;
    case Scale::InvSqrtN: return 1.0 / std::sqrt(n);
    case Scale::InvN: return 1.0 / n;
  }
  return 1.0;
}

double signal_numel(const Tensor& t, IntArrayRef dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(t.size(d));
  return n;
}

template <class T>
Tensor c2c_impl(const Tensor& in, IntArrayRef dims, Scale scale, bool forward) {
  Tensor out = empty(in.sizes(), in.options().dtype(in.dtype()));
  if (out.numel() == 0) return out;
  const T s = static_cast<T>(scale_factor(scale, signal_numel(in, dims)));
  for (size_t i = 0; i < dims.size(); ++i) {
    c2c_dim<T>(i == 0 ? in : out, out, dims[i], i + 1 == dims.size() ? s : T(1), forward);
  }
  return out;
}

template <class T>
Tensor r2c_impl(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided) {
  const int64_t last = dims.back();
  DimVector sizes(in.sizes());
  if (onesided) sizes[last] = sizes[last] / 2 + 1;
  Tensor out = empty(sizes, in.options().dtype(to_complex_dtype(in.dtype())));
  if (out.numel() == 0) return out;
  const T s = static_cast<T>(scale_factor(scale, signal_numel(in, dims)));
  r2c_dim<T>(in, out, last, dims.size() == 1 ? s : T(1), onesided);
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    c2c_dim<T>(out, out, dims[i], i + 2 == dims.size() ? s : T(1), /*forward=*/true);
  }
  return out;
}

template <class T>
Tensor c2r_impl(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size) {
  const int64_t last = dims.back();
  DimVector sizes(in.sizes());
  sizes[last] = last_dim_size;
  Tensor out = empty(sizes, in.options().dtype(to_real_dtype(in.dtype())));
  if (out.numel() == 0) return out;
  const T s = static_cast<T>(scale_factor(scale, signal_numel(out, dims)));
  Tensor x = in;
  if (dims.size() > 1) {
    x = empty(in.sizes(), in.options().dtype(in.dtype()));
    for (size_t i = 0; i + 1 < dims.size(); ++i) {
      c2c_dim<T>(i == 0 ? in : x, x, dims[i], T(1), /*forward=*/false);
    }
  }
  c2r_dim<T>(x, out, last, s);
  return out;
}

}  // namespace

Tensor exec_c2c(const Tensor& in, IntArrayRef dims, Scale scale, bool forward) {
  EMBER_CHECK(in.dtype() == kComplex64 || in.dtype() == kComplex128, "fft_c2c: expected a complex64 or ",
              "complex128 input, got ", in.dtype());
  return in.dtype() == kComplex64 ? c2c_impl<float>(in, dims, scale, forward)
                                  : c2c_impl<double>(in, dims, scale, forward);
}

Tensor exec_r2c(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided) {
  EMBER_CHECK(in.dtype() == kFloat32 || in.dtype() == kFloat64, "fft_r2c: expected a float32 or float64 input, got ",
              in.dtype());
  return in.dtype() == kFloat32 ? r2c_impl<float>(in, dims, scale, onesided)
                                : r2c_impl<double>(in, dims, scale, onesided);
}

Tensor exec_c2r(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size) {
  EMBER_CHECK(in.dtype() == kComplex64 || in.dtype() == kComplex128, "fft_c2r: expected a complex64 or ",
              "complex128 input, got ", in.dtype());
  EMBER_CHECK(in.size(dims.back()) == last_dim_size / 2 + 1, "fft_c2r: expected ", last_dim_size / 2 + 1,
              " bins along dim ", dims.back(), " for an output of length ", last_dim_size, ", got ",
              in.size(dims.back()));
  return in.dtype() == kComplex64 ? c2r_impl<float>(in, dims, scale, last_dim_size)
                                  : c2r_impl<double>(in, dims, scale, last_dim_size);
}

// The input's dtype: complex64/complex128 (c2c, c2r), float32/float64 (r2c).
EMBER_REGISTER_KERNEL_FOR_DTYPES(fft_c2c_slot, CPU, exec_c2c, kMaskComplex);
EMBER_REGISTER_KERNEL_FOR_DTYPES(fft_r2c_slot, CPU, exec_r2c, kMaskFloat);
EMBER_REGISTER_KERNEL_FOR_DTYPES(fft_c2r_slot, CPU, exec_c2r, kMaskComplex);

}  // namespace ember::fft::detail
