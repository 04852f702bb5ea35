// The CPU kernel of phase_vocoder_slot: torchaudio's arithmetic (Note
// [phase_vocoder arithmetic] in spectral/phase_vocoder_kernels.h) run across
// rows in SIMD lanes (Note [Phase vocoder across rows]). Compiled with
// -ffp-contract=off (audio/CMakeLists.txt): the only fused multiply-adds are
// simd_math.h's explicit ones.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/parallel.h>

#include "spectral/cpu/simd_math.h"
#include "spectral/phase_vocoder_kernels.h"

namespace ember::audio {
namespace {

using namespace simd_math;

// Note [Phase vocoder across rows]
// Along time each row is a running sum, but rows are independent: a block of
// kLanes rows (8 float32 / 4 float64 frequencies in a 32-byte vector) runs
// together, lane l holding row l, with the time loop inside. Which input
// frames each output step reads, and its interpolation weights, are the same
// for every row, so they are worked out once per call (Plan): the distinct
// frames the steps read, in order, and per step the positions of its two
// frames among them. A block then walks the steps in tiles of kTile: the
// angles and magnitudes of the tile's distinct frames first (one atan2 and one
// |X| per input frame read, however many steps share it), then each step's
// wrapped phase increment and magnitude, then the running sum (the only
// serial part: one float64 add per step and lane), then sincos and the
// output. Blocks run in parallel (core's parallel_for).

template <class T>
struct Lanes;
template <>
struct Lanes<float> {
  using V = VecF;
};
template <>
struct Lanes<double> {
  using V = VecD;
};
template <class T>
using Vec = typename Lanes<T>::V;
template <class T>
inline constexpr int kLanes = static_cast<int>(32 / sizeof(T));

constexpr int64_t kTile = 64;  // output steps per tile

// The steps' frames and weights, shared by all rows.
template <class T>
struct Plan {
  std::vector<int64_t> frames;     // the distinct frames read, increasing (frames >= the input's are zero)
  std::vector<int64_t> pos0, pos1;  // per step: its frames i0, i1 as indices into `frames`
  std::vector<T> alpha, one_minus_alpha;
  int64_t max_tile_frames = 0;  // the most distinct frames a tile of steps reads
};

template <class T>
Plan<T> make_plan(const T* time_steps, int64_t steps, int64_t n_frames) {
  Plan<T> plan;
  plan.pos0.resize(steps);
  plan.pos1.resize(steps);
  plan.alpha.resize(steps);
  plan.one_minus_alpha.resize(steps);
  std::vector<int64_t> i0(steps), i1(steps);
  for (int64_t s = 0; s < steps; ++s) {
    const T t = time_steps[s];
    // torchaudio pads two zero frames: reads past them would be index errors.
    EMBER_CHECK(t >= 0 && t <= static_cast<T>(n_frames), "phase_vocoder: time step ", s, " is ", t,
                ", outside [0, ", n_frames, "]");
    i0[s] = static_cast<int64_t>(t);
    i1[s] = static_cast<int64_t>(static_cast<T>(t + T(1)));  // (time_steps + 1).long(), in T
    EMBER_CHECK(i1[s] <= n_frames + 1, "phase_vocoder: time step ", s, " (", t, ") reads frame ", i1[s],
                ", past the ", n_frames, " frames and two zero frames");
    plan.alpha[s] = t - std::floor(t);                         // t % 1.0
    plan.one_minus_alpha[s] = T(1) - plan.alpha[s];
    EMBER_CHECK(s == 0 || (i0[s] >= i0[s - 1] && i1[s] >= i1[s - 1]),
                "phase_vocoder: time steps must increase, step ", s, " is ", t);
  }
  // Merge the two increasing index lists into their distinct values.
  int64_t a = 0, b = 0;
  while (a < steps || b < steps) {
    const int64_t next = b == steps || (a < steps && i0[a] <= i1[b]) ? i0[a] : i1[b];
    if (plan.frames.empty() || plan.frames.back() != next) plan.frames.push_back(next);
    const int64_t pos = static_cast<int64_t>(plan.frames.size()) - 1;
    while (a < steps && i0[a] == next) plan.pos0[a++] = pos;
    while (b < steps && i1[b] == next) plan.pos1[b++] = pos;
  }
  for (int64_t s0 = 0; s0 < steps; s0 += kTile) {
    const int64_t last = std::min(steps, s0 + kTile) - 1;
    plan.max_tile_frames = std::max(plan.max_tile_frames, plan.pos1[last] - plan.pos0[s0] + 1);
  }
  return plan;
}

// One block of up to kLanes rows: lanes past the last row repeat it (their
// results are not stored).
template <class T>
void run_block(const T* spec, T* out, int64_t first_row, int64_t rows, int64_t n_frames, int64_t steps,
               const T* advance, int64_t freqs, const Plan<T>& plan) {
  constexpr int L = kLanes<T>;
  using V = Vec<T>;
  const T* in_rows[L];
  T* out_rows[L];
  V pa;
  const int live = static_cast<int>(std::min<int64_t>(L, rows - first_row));
  for (int l = 0; l < L; ++l) {
    const int64_t row = first_row + std::min(l, live - 1);
    in_rows[l] = spec + row * 2 * n_frames;
    out_rows[l] = out + row * 2 * steps;
    pa[l] = advance[row % freqs];
  }
  const V two_pi = splat(T(2 * std::numbers::pi));

  // A tile's frames: its steps' (at most 2 kTile), and at most one more at each
  // end when float rounding makes i1 = i0 + 2; sized from the plan regardless.
  std::vector<V> angle(static_cast<size_t>(plan.max_tile_frames)), norm(angle.size());
  V increment[kTile + 1], mag[kTile], phase[kTile];
  constexpr int H = L / 4;  // float64 registers per vector
  VecD sum[H] = {};
  V carry{};  // the summand of the tile's first step
  for (int64_t s0 = 0; s0 < steps; s0 += kTile) {
    const int64_t len = std::min(kTile, steps - s0);
    const int64_t u_begin = plan.pos0[s0], u_end = plan.pos1[s0 + len - 1] + 1;
    for (int64_t u = u_begin; u < u_end; ++u) {
      const int64_t f = plan.frames[u];
      V re{}, im{};
      if (f < n_frames) {
        for (int l = 0; l < L; ++l) {
          re[l] = in_rows[l][2 * f];
          im[l] = in_rows[l][2 * f + 1];
        }
      }
      angle[u - u_begin] = atan2(im, re);
      norm[u - u_begin] = hypot(re, im);
    }
    // The first summand is the angle of frame 0, the first distinct frame.
    if (s0 == 0) carry = angle[0];
    increment[0] = carry;
    for (int64_t i = 0; i < len; ++i) {
      const int64_t a = plan.pos0[s0 + i] - u_begin, b = plan.pos1[s0 + i] - u_begin;
      mag[i] = splat(plan.alpha[s0 + i]) * norm[b] + splat(plan.one_minus_alpha[s0 + i]) * norm[a];
      const V d = (angle[b] - angle[a]) - pa;
      increment[i + 1] = (d - two_pi * round_half_even(d / two_pi)) + pa;
    }
    carry = increment[len];
    // The running sum in float64, each partial sum rounded to T (torch's cumsum).
    for (int64_t i = 0; i < len; ++i) {
      if constexpr (H == 2) {
        VecD lo, hi;
        widen(increment[i], lo, hi);
        sum[0] += lo;
        sum[1] += hi;
        phase[i] = narrow(sum[0], sum[1]);
      } else {
        sum[0] += increment[i];
        phase[i] = sum[0];
      }
    }
    for (int64_t i = 0; i < len; ++i) {
      V sin_p, cos_p;
      sincos(phase[i], sin_p, cos_p);
      const V re = mag[i] * cos_p, im = mag[i] * sin_p;
      const int64_t s = s0 + i;
      for (int l = 0; l < live; ++l) {
        out_rows[l][2 * s] = re[l];
        out_rows[l][2 * s + 1] = im[l];
      }
    }
  }
}

template <class T>
void phase_vocoder_typed(Tensor& out, const Tensor& specs, const Tensor& time_steps, const Tensor& phase_advance) {
  constexpr int L = kLanes<T>;
  const int64_t rows = specs.size(0), n_frames = specs.size(1), steps = time_steps.numel();
  const int64_t freqs = phase_advance.numel();
  if (rows == 0 || steps == 0) return;
  const Plan<T> plan = make_plan(time_steps.data_ptr<T>(), steps, n_frames);
  const T* spec = reinterpret_cast<const T*>(specs.data_ptr<std::complex<T>>());
  T* out_data = reinterpret_cast<T*>(out.data_ptr<std::complex<T>>());
  const T* advance = phase_advance.data_ptr<T>();
  const int64_t blocks = (rows + L - 1) / L;
  // About 64k output values per chunk, so short spectrograms do not wake threads for nothing.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, steps * L));
  parallel_for(0, blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block)
      run_block<T>(spec, out_data, block * L, rows, n_frames, steps, advance, freqs, plan);
  });
}

void phase_vocoder_kernel(Tensor& out, const Tensor& specs, const Tensor& time_steps, const Tensor& phase_advance) {
  if (specs.dtype() == kComplex128) phase_vocoder_typed<double>(out, specs, time_steps, phase_advance);
  else phase_vocoder_typed<float>(out, specs, time_steps, phase_advance);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(phase_vocoder_slot, CPU, phase_vocoder_kernel,
                                 dtype_bit(kComplex64) | dtype_bit(kComplex128));

}  // namespace ember::audio
