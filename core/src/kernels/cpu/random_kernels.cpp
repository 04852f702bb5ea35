// CPU kernels of the random family: Philox4x32-10 blocks turned into samples.
// The CUDA kernels (cuda/src/kernels/random.cu) compute the same expressions:
// this file compiles with -ffp-contract=off (core/CMakeLists.txt) and writes
// its one multiply-add per sample as an explicit std::fma, so that no compiler
// decision changes the rounding and uniform draws are bit-identical on both.
// (GCC with -mfma had contracted exactly these two, so the CPU's numbers are
// the ones it gave before.)
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ember/core/parallel.h"
#include "kernels/philox.h"
#include "kernels/slots/random_kernels.h"

namespace ember {
namespace {

using philox::Block;

// Random bits per uniform in [0, 1): the significand width of T, so that
// every uniform is exact in T and never rounds up to 1.
template <class T>
constexpr int uniform_bits() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return 24;
}

// data[i] = f(block, lane, i) for i in [0, n), where block is Philox block
// offset + i / (4 / words) and lane = i % (4 / words).
template <class T, class F>
void fill_from_blocks(const Tensor& out, int words, uint64_t seed, uint64_t offset, const F& f) {
  T* data = out.data_ptr<T>();
  const int64_t n = out.numel();
  const int64_t per_block = 4 / words;
  parallel_for(0, n, 8192, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      const int64_t block_index = i / per_block;
      const Block block = philox::philox4x32_10(seed, offset + static_cast<uint64_t>(block_index));
      const int64_t stop = std::min(end, (block_index + 1) * per_block);
      for (; i < stop; ++i) data[i] = f(block, static_cast<int>(i % per_block), i);
    }
  });
}

// Standard normal from the block's lane via Box-Muller: a pair of uniforms
// gives two normals (cosine for even lanes, sine for odd ones).
template <class C>
C standard_normal(const Block& block, int lane) {
  C u1, u2;
  if constexpr (std::is_same_v<C, double>) {
    u1 = 1.0 - philox::uniform_double(block[0], block[1]);  // (0, 1]: log is finite
    u2 = philox::uniform_double(block[2], block[3]);
  } else {
    const int pair = lane / 2;
    u1 = 1.0f - philox::uniform_float(block[2 * pair], 24);
    u2 = philox::uniform_float(block[2 * pair + 1], 24);
  }
  const C radius = std::sqrt(C(-2) * std::log(u1));
  const C angle = C(2 * M_PI) * u2;
  return radius * ((lane & 1) ? std::sin(angle) : std::cos(angle));
}

template <class T>
void continuous_kernel(const Tensor& out, RandomDist dist, const RandomParams& params, uint64_t seed,
                       uint64_t offset) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int words = random_words_per_element(dist, out.dtype());
  // `bits`: for 16-bit T, uniform_ uses T's width; exponential_ uses 24 bits
  // (computed in float) so that its tail is not cut at log(2^11).
  auto uniform = [](const Block& block, int lane, int bits) -> C {
    if constexpr (std::is_same_v<C, double>)
      return philox::uniform_double(block[2 * lane], block[2 * lane + 1]);
    else
      return philox::uniform_float(block[lane], bits);
  };
  const C a = static_cast<C>(params.a), b = static_cast<C>(params.b);
  switch (dist) {
    case RandomDist::Uniform: {
      const C width = b - a;
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        return static_cast<T>(std::fma(width, uniform(blk, lane, uniform_bits<T>()), a));
      });
      return;
    }
    case RandomDist::Normal:
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        return static_cast<T>(std::fma(b, standard_normal<C>(blk, lane), a));
      });
      return;
    case RandomDist::Exponential:
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        return static_cast<T>(-std::log1p(-uniform(blk, lane, 24)) / a);
      });
      return;
    case RandomDist::Geometric:
    case RandomDist::Bernoulli:
    case RandomDist::BernoulliTensor:
    case RandomDist::Integer: EMBER_FAIL("random: distribution is not continuous");
  }
}

template <class T>
void discrete_kernel(const Tensor& out, RandomDist dist, const RandomParams& params, uint64_t seed,
                     uint64_t offset) {
  const int words = random_words_per_element(dist, out.dtype());
  auto to_t = [](auto v) {
    if constexpr (std::is_same_v<T, bool>) return v != 0;
    else return static_cast<T>(v);
  };
  switch (dist) {
    case RandomDist::Bernoulli: {
      const double p = params.a;
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        return to_t(static_cast<double>(blk[lane]) * 0x1.0p-32 < p ? 1 : 0);
      });
      return;
    }
    case RandomDist::BernoulliTensor: {
      const double* p = params.p.data_ptr<double>();
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t i) {
        return to_t(static_cast<double>(blk[lane]) * 0x1.0p-32 < p[i] ? 1 : 0);
      });
      return;
    }
    case RandomDist::Geometric: {
      // Number of trials up to the first success: ceil(log(u) / log(1 - p)), u in (0, 1].
      const double log_q = std::log1p(-params.a);
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        const double u = 1.0 - philox::uniform_double(blk[2 * lane], blk[2 * lane + 1]);
        return to_t(std::max(1.0, std::ceil(std::log(u) / log_q)));
      });
      return;
    }
    case RandomDist::Integer: {
      // 64 random bits per element keep the modulo bias below range / 2^64.
      const uint64_t from = static_cast<uint64_t>(params.from), range = params.range;
      fill_from_blocks<T>(out, words, seed, offset, [&](const Block& blk, int lane, int64_t) {
        const uint64_t x = philox::word64(blk[2 * lane], blk[2 * lane + 1]);
        return to_t(static_cast<int64_t>(from + x % range));
      });
      return;
    }
    case RandomDist::Uniform:
    case RandomDist::Normal:
    case RandomDist::Exponential: EMBER_FAIL("random: distribution is not discrete");
  }
}

void random_kernel(Tensor& out, RandomDist dist, const RandomParams& params, uint64_t seed,
                   uint64_t offset) {
  const bool continuous =
      dist == RandomDist::Uniform || dist == RandomDist::Normal || dist == RandomDist::Exponential;
  if (continuous) {
    dispatch<kMaskFloating>(out.dtype(), "random", [&](auto tag) {
      continuous_kernel<decltype(tag)>(out, dist, params, seed, offset);
    });
  } else {
    dispatch<kMaskReal | kMaskBool>(out.dtype(), "random", [&](auto tag) {
      discrete_kernel<decltype(tag)>(out, dist, params, seed, offset);
    });
  }
}

// Fisher-Yates from the last position down; position i draws from block
// offset + i. Serial, so the result is the same for any thread count.
void randperm_kernel(Tensor& out, uint64_t seed, uint64_t offset) {
  int64_t* data = out.data_ptr<int64_t>();
  const int64_t n = out.numel();
  std::iota(data, data + n, int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) {
    const Block blk = philox::philox4x32_10(seed, offset + static_cast<uint64_t>(i));
    const int64_t j = static_cast<int64_t>(philox::word64(blk[0], blk[1]) % static_cast<uint64_t>(i + 1));
    std::swap(data[i], data[j]);
  }
}

// With replacement: inverse CDF per sample. Without: the Efraimidis-Spirakis
// keys log(u) / p (largest first), equivalent to drawing one at a time.
void multinomial_kernel(const Tensor& probs, Tensor& out, bool replacement, uint64_t seed,
                        uint64_t offset) {
  const int64_t rows = probs.size(0), ncat = probs.size(1), nsamples = out.size(1);
  const double* p_all = probs.data_ptr<double>();
  int64_t* out_all = out.data_ptr<int64_t>();
  parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> buffer(static_cast<size_t>(ncat));
    std::vector<int64_t> order(static_cast<size_t>(ncat));
    for (int64_t r = begin; r < end; ++r) {
      const double* p = p_all + r * ncat;
      int64_t* o = out_all + r * nsamples;
      if (replacement) {
        std::partial_sum(p, p + ncat, buffer.begin());
        const double total = buffer.back();
        int64_t last_nonzero = ncat - 1;
        while (last_nonzero > 0 && p[last_nonzero] == 0) --last_nonzero;
        const uint64_t base = offset + static_cast<uint64_t>(r * nsamples);
        for (int64_t s = 0; s < nsamples; ++s) {
          const Block blk = philox::philox4x32_10(seed, base + static_cast<uint64_t>(s));
          const double u = philox::uniform_double(blk[0], blk[1]) * total;
          // First category whose cumulative sum exceeds u (zero-probability ones never do).
          const int64_t idx = std::upper_bound(buffer.begin(), buffer.end(), u) - buffer.begin();
          o[s] = std::min(idx, last_nonzero);
        }
      } else {
        const uint64_t base = offset + static_cast<uint64_t>(r * ncat);
        for (int64_t c = 0; c < ncat; ++c) {
          const Block blk = philox::philox4x32_10(seed, base + static_cast<uint64_t>(c));
          const double u = 1.0 - philox::uniform_double(blk[0], blk[1]);  // (0, 1]
          buffer[c] = p[c] > 0 ? std::log(u) / p[c] : -std::numeric_limits<double>::infinity();
        }
        std::iota(order.begin(), order.end(), int64_t{0});
        std::partial_sort(order.begin(), order.begin() + nsamples, order.end(),
                          [&](int64_t x, int64_t y) {
                            return buffer[x] > buffer[y] || (buffer[x] == buffer[y] && x < y);
                          });
        std::copy(order.begin(), order.begin() + nsamples, o);
      }
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(random_slot, CPU, random_kernel);
// The output dtypes each distribution fills (random_kernel's dispatch, as far
// as random_ops.cpp asks): the continuous ones floating dtypes (complex
// tensors are filled through their real view), the discrete ones every real
// dtype and bool, except geometric (bool refused, as PyTorch).
constexpr uint32_t kRandomDistDTypes[] = {
    kMaskFloating,          // uniform
    kMaskFloating,          // normal
    kMaskFloating,          // exponential
    kMaskReal,              // geometric
    kMaskReal | kMaskBool,  // bernoulli
    kMaskReal | kMaskBool,  // bernoulli_tensor
    kMaskReal | kMaskBool,  // integer
};
static_assert(std::size(kRandomDistDTypes) == std::size(kRandomDistNames));
static const bool random_dist_dtypes_registered = random_slot.set_op_dtypes(DeviceType::CPU, kRandomDistDTypes);
// randperm fills int64 (the op converts); multinomial reads float64 probabilities.
EMBER_REGISTER_KERNEL_FOR_DTYPES(randperm_slot, CPU, randperm_kernel, dtype_bit(kInt64));
EMBER_REGISTER_KERNEL_FOR_DTYPES(multinomial_slot, CPU, multinomial_kernel, dtype_bit(kFloat64));

}  // namespace ember
