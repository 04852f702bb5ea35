// CUDA kernels of the random family (random_slot, multinomial_slot): the
// CPU's samplers (core/src/kernels/cpu/random_kernels.cpp) line for line, on
// the same Philox4x32-10 blocks (core/src/kernels/philox.h, shared), so that
// one seed gives the same numbers on both devices.
//
// Note [Random numbers equal on CPU and CUDA]
// The op (random_ops.cpp) reserves the Philox counters from the Generator
// before it picks the device's kernel, so the generator's offset advances the
// same on both devices and sequences of ops stay in step. Element i reads
// block offset + i / (4 / words), lane i % (4 / words), on either device.
// Bits, integer draws, Bernoulli comparisons and uniform floats (one explicit
// fma each side; the CPU file compiles with -ffp-contract=off, this one with
// --fmad=false) are bit-identical. Samplers through log/sin/cos/log1p (normal,
// log-normal, exponential, geometric, multinomial without replacement) differ
// only by the last-ulp differences of CUDA's libdevice and the host's libm:
// normal and exponential within 8 ulp of the computing type (then one rounding
// to float16/bfloat16), geometric and multinomial keys as exact unless a value
// lies within a few ulp of a rounding boundary (ceil, an ordering tie).
#include <cmath>
#include <cstring>

#include "common.cuh"
#include "ember/ops/factories.h"
#include "kernels/philox.h"
#include "kernels/slots/random_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

using philox::Block;

constexpr double kTwoPi = 2 * 3.14159265358979323846;  // == 2 * M_PI, as the CPU's C(2 * M_PI)

// The arguments of one fill, as device-side values.
struct RandomArgs {
  RandomDist dist;
  double a = 0, b = 1;
  double log_q = 0;  // geometric: log1p(-p), computed on the host with the CPU's libm
  int64_t from = 0;
  uint64_t range = 1;
  const double* p = nullptr;  // BernoulliTensor: n probabilities on the device
};

// libdevice's float or double functions, named explicitly so that no float
// argument is promoted to a double overload (which would round differently).
template <class C> __device__ __forceinline__ C fused_multiply_add(C x, C y, C z) {
  if constexpr (std::is_same_v<C, double>) return ::fma(x, y, z);
  else return ::fmaf(x, y, z);
}
template <class C> __device__ __forceinline__ C log_of(C x) {
  if constexpr (std::is_same_v<C, double>) return ::log(x);
  else return ::logf(x);
}
template <class C> __device__ __forceinline__ C log1p_of(C x) {
  if constexpr (std::is_same_v<C, double>) return ::log1p(x);
  else return ::log1pf(x);
}
template <class C> __device__ __forceinline__ C sqrt_of(C x) {
  if constexpr (std::is_same_v<C, double>) return ::sqrt(x);
  else return ::sqrtf(x);  // correctly rounded (nvcc's default -prec-sqrt=true), as the host's
}
template <class C> __device__ __forceinline__ C sin_of(C x) {
  if constexpr (std::is_same_v<C, double>) return ::sin(x);
  else return ::sinf(x);
}
template <class C> __device__ __forceinline__ C cos_of(C x) {
  if constexpr (std::is_same_v<C, double>) return ::cos(x);
  else return ::cosf(x);
}

template <class T>
__device__ __forceinline__ constexpr int uniform_bits() {
  if constexpr (std::is_same_v<T, __half>) return 11;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return 8;
  else return 24;
}

template <class C>
__device__ __forceinline__ C uniform_of(const Block& blk, int lane, int bits) {
  if constexpr (std::is_same_v<C, double>) return philox::uniform_double(blk[2 * lane], blk[2 * lane + 1]);
  else return philox::uniform_float(blk[lane], bits);
}

// Box-Muller as the CPU's standard_normal: cosine for even lanes, sine for odd.
template <class C>
__device__ __forceinline__ C standard_normal(const Block& blk, int lane) {
  C u1, u2;
  if constexpr (std::is_same_v<C, double>) {
    u1 = 1.0 - philox::uniform_double(blk[0], blk[1]);
    u2 = philox::uniform_double(blk[2], blk[3]);
  } else {
    const int pair = lane / 2;
    u1 = 1.0f - philox::uniform_float(blk[2 * pair], 24);
    u2 = philox::uniform_float(blk[2 * pair + 1], 24);
  }
  const C radius = sqrt_of<C>(C(-2) * log_of<C>(u1));
  const C angle = C(kTwoPi) * u2;
  return radius * ((lane & 1) ? sin_of<C>(angle) : cos_of<C>(angle));
}

// Element i of the output from its block and lane (random_kernels.cpp's lambdas).
template <class T>
__device__ __forceinline__ T sample(const RandomArgs& args, const Block& blk, int lane, int64_t i) {
  constexpr bool kFloating = std::is_floating_point_v<T> || std::is_same_v<T, __half> ||
                             std::is_same_v<T, __nv_bfloat16>;
  if constexpr (kFloating) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const C a = static_cast<C>(args.a), b = static_cast<C>(args.b);
    switch (args.dist) {
      case RandomDist::Uniform:
        return convert<T>(fused_multiply_add<C>(b - a, uniform_of<C>(blk, lane, uniform_bits<T>()), a));
      case RandomDist::Normal: return convert<T>(fused_multiply_add<C>(b, standard_normal<C>(blk, lane), a));
      case RandomDist::Exponential: return convert<T>(-log1p_of<C>(-uniform_of<C>(blk, lane, 24)) / a);
      default: break;
    }
  }
  switch (args.dist) {
    case RandomDist::Bernoulli:
      return convert<T>(static_cast<double>(blk[lane]) * 0x1.0p-32 < args.a ? 1 : 0);
    case RandomDist::BernoulliTensor:
      return convert<T>(static_cast<double>(blk[lane]) * 0x1.0p-32 < args.p[i] ? 1 : 0);
    case RandomDist::Geometric: {
      const double u = 1.0 - philox::uniform_double(blk[2 * lane], blk[2 * lane + 1]);
      return convert<T>(::fmax(1.0, ::ceil(::log(u) / args.log_q)));
    }
    case RandomDist::Integer: {
      const uint64_t x = philox::word64(blk[2 * lane], blk[2 * lane + 1]);
      return convert<T>(static_cast<int64_t>(static_cast<uint64_t>(args.from) + x % args.range));
    }
    default: return T{};  // continuous distributions reach here only for non-floating T (refused on the host)
  }
}

// A thread per Philox block (grid-stride): it writes the per_block elements
// that block serves. When they fill 8 or 16 aligned bytes (`vector_bytes`,
// checked on the host: float/int32 x 4 or x 2, double/int64 x 2, half x 4) a
// whole block is one vector store, so a warp writes one contiguous run.
template <class T>
__global__ void random_fill_kernel(T* out, int64_t n, int per_block, int vector_bytes, uint64_t seed,
                                   uint64_t offset, RandomArgs args) {
  const int64_t blocks = (n + per_block - 1) / per_block;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride) {
    const Block blk = philox::philox4x32_10(seed, offset + static_cast<uint64_t>(b));
    const int64_t first = b * per_block;
    if (vector_bytes != 0 && first + per_block <= n) {
      T vals[4];
      for (int lane = 0; lane < per_block; ++lane) vals[lane] = sample<T>(args, blk, lane, first + lane);
      if (vector_bytes == 16) {
        uint4 v;
        memcpy(&v, vals, 16);
        *reinterpret_cast<uint4*>(out + first) = v;
      } else {
        uint2 v;
        memcpy(&v, vals, 8);
        *reinterpret_cast<uint2*>(out + first) = v;
      }
      continue;
    }
    for (int lane = 0; lane < per_block; ++lane) {
      const int64_t i = first + lane;
      if (i < n) out[i] = sample<T>(args, blk, lane, i);
    }
  }
}

// The output dtypes per distribution: the CPU's (random_kernels.cpp).
constexpr uint32_t kCudaRandomDistDTypes[] = {
    kMaskFloating,          // uniform
    kMaskFloating,          // normal
    kMaskFloating,          // exponential
    kMaskReal,              // geometric
    kMaskReal | kMaskBool,  // bernoulli
    kMaskReal | kMaskBool,  // bernoulli_tensor
    kMaskReal | kMaskBool,  // integer
};
static_assert(std::size(kCudaRandomDistDTypes) == std::size(kRandomDistNames));

void random_kernel(Tensor& out, RandomDist dist, const RandomParams& params, uint64_t seed, uint64_t offset) {
  const char* op = "random";
  const int d = static_cast<int>(dist);
  EMBER_CHECK((kCudaRandomDistDTypes[d] & dtype_bit(out.dtype())) != 0, op, ": no CUDA kernel for ",
              kRandomDistNames[d], " into ", out.dtype());
  EMBER_CHECK(out.is_contiguous(), op, ": the CUDA kernel fills contiguous outputs");
  const int64_t n = out.numel();
  if (n == 0) return;
  RandomArgs args;
  args.dist = dist;
  args.a = params.a;
  args.b = params.b;
  args.from = params.from;
  args.range = params.range;
  EMBER_CHECK(args.range >= 1, op, ": integer range must be at least 1, got ", args.range);
  if (dist == RandomDist::Geometric) args.log_q = std::log1p(-params.a);  // the CPU's value, bit for bit
  if (dist == RandomDist::BernoulliTensor) {
    EMBER_CHECK(params.p.defined() && params.p.device() == out.device() && params.p.dtype() == kFloat64 &&
                    params.p.is_contiguous() && params.p.numel() == n,
                op, ": bernoulli probabilities must be a contiguous float64 tensor of ", n, " elements on ",
                out.device());
    args.p = params.p.data_ptr<double>();
  }
  const int per_block = 4 / random_words_per_element(dist, out.dtype());
  const int16_t index = launch_device(out.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  const int64_t blocks = (n + per_block - 1) / per_block;
  dispatch_real_bool(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(out.data_ptr());
    // Vector stores when a block's elements are 8 or 16 bytes and the output is aligned to that.
    const int block_bytes = per_block * static_cast<int>(sizeof(T));
    const int vector_bytes =
        (block_bytes == 8 || block_bytes == 16) && reinterpret_cast<uintptr_t>(data) % block_bytes == 0 ? block_bytes
                                                                                                         : 0;
    random_fill_kernel<T><<<grid_for(blocks), kThreads, 0, stream>>>(data, n, per_block, vector_bytes, seed, offset,
                                                                     args);
  });
  check_launch(op);
}

// ---- multinomial ----

// With replacement, step 1: a thread per row: the running sum of p (the CPU's
// std::partial_sum, so the same roundings) and the last non-zero category.
__global__ void multinomial_cdf_kernel(const double* p, double* cdf, int64_t* last_nonzero, int64_t rows,
                                       int64_t ncat) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    const double* pr = p + r * ncat;
    double* cr = cdf + r * ncat;
    double sum = 0;
    int64_t last = 0;
    for (int64_t c = 0; c < ncat; ++c) {
      sum = c == 0 ? pr[0] : sum + pr[c];
      cr[c] = sum;
      if (pr[c] != 0) last = c;
    }
    last_nonzero[r] = last;
  }
}

// With replacement, step 2: a thread per sample: inverse CDF by binary search
// (std::upper_bound: the first category whose running sum exceeds u).
__global__ void multinomial_draw_kernel(const double* cdf, const int64_t* last_nonzero, int64_t* out, int64_t rows,
                                        int64_t ncat, int64_t nsamples, uint64_t seed, uint64_t offset) {
  const int64_t total_draws = rows * nsamples;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total_draws; k += stride) {
    const int64_t r = k / nsamples;
    const double* cr = cdf + r * ncat;
    const Block blk = philox::philox4x32_10(seed, offset + static_cast<uint64_t>(k));  // base r * nsamples + s
    const double u = philox::uniform_double(blk[0], blk[1]) * cr[ncat - 1];
    int64_t lo = 0, hi = ncat;  // upper_bound over [lo, hi)
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (u < cr[mid]) hi = mid;
      else lo = mid + 1;
    }
    out[k] = lo < last_nonzero[r] ? lo : last_nonzero[r];
  }
}

// Without replacement, step 1: the Efraimidis-Spirakis key of every category.
__global__ void multinomial_keys_kernel(const double* p, double* keys, int64_t total, uint64_t seed,
                                        uint64_t offset) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const Block blk = philox::philox4x32_10(seed, offset + static_cast<uint64_t>(k));  // base r * ncat + c
    const double u = 1.0 - philox::uniform_double(blk[0], blk[1]);
    keys[k] = p[k] > 0 ? ::log(u) / p[k] : -INFINITY;
  }
}

// Without replacement, step 2: a block per row picks the largest key
// nsamples times (ties to the lower category, as the CPU's partial_sort
// comparator), marking each pick taken (NaN, which no key is). O(samples x
// categories) per row; the CPU's order exactly.
constexpr int kSelectThreads = 256;

struct Candidate {
  double key;
  int64_t index;  // -1: none
};

__device__ __forceinline__ bool better(const Candidate& x, const Candidate& y) {
  if (x.index < 0) return false;
  if (y.index < 0) return true;
  return x.key > y.key || (x.key == y.key && x.index < y.index);
}

__global__ void multinomial_select_kernel(double* keys, int64_t* out, int64_t rows, int64_t ncat, int64_t nsamples) {
  __shared__ Candidate best[kSelectThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    double* kr = keys + r * ncat;
    for (int64_t s = 0; s < nsamples; ++s) {
      Candidate mine{0, -1};
      for (int64_t c = threadIdx.x; c < ncat; c += blockDim.x) {
        const double key = kr[c];
        if (key != key) continue;  // taken
        const Candidate cand{key, c};
        if (better(cand, mine)) mine = cand;
      }
      best[threadIdx.x] = mine;
      __syncthreads();
      for (int width = kSelectThreads / 2; width > 0; width /= 2) {
        if (static_cast<int>(threadIdx.x) < width && better(best[threadIdx.x + width], best[threadIdx.x]))
          best[threadIdx.x] = best[threadIdx.x + width];
        __syncthreads();
      }
      if (threadIdx.x == 0) {
        // nsamples <= categories (the op checks), so a candidate exists.
        const int64_t pick = best[0].index;
        out[r * nsamples + s] = pick;
        if (pick >= 0) kr[pick] = NAN;
      }
      __syncthreads();
    }
  }
}

void multinomial_kernel(const Tensor& probs, Tensor& out, bool replacement, uint64_t seed, uint64_t offset) {
  const char* op = "multinomial";
  EMBER_CHECK(probs.dtype() == kFloat64 && probs.dim() == 2 && probs.is_contiguous(), op,
              ": the CUDA kernel takes contiguous float64 [rows, categories] probabilities, got ", probs.dtype(),
              " of shape ", probs.sizes());
  EMBER_CHECK(out.dtype() == kInt64 && out.dim() == 2 && out.is_contiguous() && out.size(0) == probs.size(0), op,
              ": the CUDA kernel writes a contiguous int64 [rows, samples] tensor, got ", out.dtype(), " of shape ",
              out.sizes());
  EMBER_CHECK(probs.device() == out.device(), op, ": probabilities on ", probs.device(), ", output on ",
              out.device());
  const int64_t rows = probs.size(0), ncat = probs.size(1), nsamples = out.size(1);
  EMBER_CHECK(replacement || nsamples <= ncat, op, ": cannot draw ", nsamples, " of ", ncat,
              " categories without replacement");
  if (rows == 0 || nsamples == 0) return;
  EMBER_CHECK(ncat > 0, op, ": prob_dist must have at least one category");
  const int16_t index = launch_device(out.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  const double* p = probs.data_ptr<double>();
  int64_t* o = out.data_ptr<int64_t>();
  // Scratch from the caching allocator (tensors on the current stream), freed
  // when they go out of scope: stream-ordered, so reuse waits for these kernels.
  Tensor scratch = empty({rows, ncat}, TensorOptions(kFloat64).device(out.device()));
  double* buf = scratch.data_ptr<double>();
  if (replacement) {
    Tensor last = empty({rows}, TensorOptions(kInt64).device(out.device()));
    multinomial_cdf_kernel<<<grid_for(rows), kThreads, 0, stream>>>(p, buf, last.data_ptr<int64_t>(), rows, ncat);
    check_launch(op);
    multinomial_draw_kernel<<<grid_for(rows * nsamples), kThreads, 0, stream>>>(
        buf, last.data_ptr<int64_t>(), o, rows, ncat, nsamples, seed, offset);
    check_launch(op);
  } else {
    multinomial_keys_kernel<<<grid_for(rows * ncat), kThreads, 0, stream>>>(p, buf, rows * ncat, seed, offset);
    check_launch(op);
    const int grid = static_cast<int>(rows < 65535 ? rows : 65535);
    multinomial_select_kernel<<<grid, kSelectThreads, 0, stream>>>(buf, o, rows, ncat, nsamples);
    check_launch(op);
  }
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(random_slot, random_kernel, kMaskReal | kMaskBool);
EMBER_REGISTER_CUDA_OP_DTYPES(random_slot, kCudaRandomDistDTypes);
EMBER_REGISTER_CUDA_KERNEL(multinomial_slot, multinomial_kernel, dtype_bit(kFloat64));

}  // namespace ember::cuda::kernels
