#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; the Random123 reference): a counter-based generator. Block `counter`
// under key `seed` gives four 32-bit words, computed from scratch, so every
// element of a random op gets its numbers from (seed, offset + its index)
// alone: results do not depend on how the work is split across threads.
// Plain constexpr arithmetic only, so a CUDA backend includes it unchanged
// (nvcc's --expt-relaxed-constexpr lets device code call constexpr functions):
// the CPU and CUDA kernels draw the same bits (docs/cuda.md, "Random numbers").
#include <array>
#include <cstdint>

namespace ember::philox {

using Block = std::array<uint32_t, 4>;

constexpr Block philox4x32_10(uint64_t seed, uint64_t counter_lo, uint64_t counter_hi = 0) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n1 = static_cast<uint32_t>(p1);
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    const uint32_t n3 = static_cast<uint32_t>(p0);
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return {c0, c1, c2, c3};
}

// Uniform in [0, 1) with `bits` random bits (24 for float, 11 for float16,
// 8 for bfloat16: every value is exact in the target type, so none rounds up to 1).
constexpr float uniform_float(uint32_t x, int bits) {
  return static_cast<float>(x >> (32 - bits)) * (1.0f / static_cast<float>(uint32_t{1} << bits));
}
// Uniform in [0, 1) with 53 random bits.
constexpr double uniform_double(uint32_t lo, uint32_t hi) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}
constexpr uint64_t word64(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

}  // namespace ember::philox
