// CPU kernel of flanger_slot (effect_kernels.h): torchaudio 0.13's flanger
// loop per channel, one rounding to T per tensor op as torch computes it
// (Python floats rounded to T; the float32 LFO's fraction widened for
// float64), compiled without fused multiply-adds (audio/CMakeLists.txt); and
// its transpose (Note [Effects as linear maps]).
#include <cmath>
#include <vector>

#include "effects/cpu/row_loops.h"
#include "effects/effect_kernels.h"

namespace ember::audio {
namespace {

// Where sample i reads the LFO.
struct LfoCursor {
  const FlangerPlan& plan;
  int64_t shift;  // the channel's shift, reduced to [0, lfo length)
  // The delay at sample i: its whole samples and its fraction.
  void at(int64_t i, int64_t& whole, float& frac) const {
    const auto len = static_cast<int64_t>(plan.lfo.size());
    int64_t index = i % len + shift;
    if (index >= len) index -= len;
    const float delay = plan.lfo[static_cast<size_t>(index)];
    const float floor_delay = std::floor(delay);
    frac = delay - floor_delay;  // torch.frac of a non-negative float32
    whole = static_cast<int64_t>(floor_delay);
  }
};

// s[i] = x[i] + fb * delayed[i-1] goes into a circular buffer that moves one
// slot down per sample; delayed[i] interpolates the buffer int_delay (+1, +2)
// slots up, i.e. s[i - int_delay] (...), zero before the start.
template <class T>
void flanger_row(T* __restrict y, const T* __restrict x, int64_t n, const FlangerPlan& plan, const LfoCursor& lfo) {
  const int64_t len = plan.buffer_length;
  std::vector<T> buf(static_cast<size_t>(len), T(0));
  const T fb = static_cast<T>(plan.feedback_gain);
  const T in_gain = static_cast<T>(plan.in_gain), delay_gain = static_cast<T>(plan.delay_gain);
  T delay_last = 0;
  int64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    pos = (pos + len - 1) % len;
    int64_t whole;
    float frac32;
    lfo.at(i, whole, frac32);
    const T frac = static_cast<T>(frac32);
    buf[static_cast<size_t>(pos)] = static_cast<T>(x[i] + static_cast<T>(delay_last * fb));
    const T d0 = buf[static_cast<size_t>((pos + whole) % len)];
    T d1 = buf[static_cast<size_t>((pos + whole + 1) % len)];
    T delayed;
    if (!plan.quadratic) {
      delayed = d0 + (d1 - d0) * frac;
    } else {
      T d2 = buf[static_cast<size_t>((pos + whole + 2) % len)];
      d2 = d2 - d0;
      d1 = d1 - d0;
      const T a = d2 * T(0.5) - d1;
      const T b = d1 * T(2) - d2 * T(0.5);
      delayed = d0 + (a * frac + b) * frac;
    }
    delay_last = delayed;
    y[i] = x[i] * in_gain + delayed * delay_gain;
  }
}

// The transpose, backwards in time: g_s[j] collects the interpolation
// weights times g_delayed[i] of every i that read s[j]; g_delayed[i] gets the
// output's share and the feedback's share of s[i + 1].
template <class T>
void flanger_row_adjoint(T* __restrict y, const T* __restrict g, int64_t n, const FlangerPlan& plan,
                         const LfoCursor& lfo) {
  const int64_t len = plan.buffer_length;
  std::vector<T> g_s(static_cast<size_t>(n) + 1, T(0));
  const T fb = static_cast<T>(plan.feedback_gain);
  const T in_gain = static_cast<T>(plan.in_gain), delay_gain = static_cast<T>(plan.delay_gain);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t whole;
    float frac32;
    lfo.at(i, whole, frac32);
    const T f = static_cast<T>(frac32);
    const T g_delayed = delay_gain * g[i] + fb * g_s[static_cast<size_t>(i + 1)];
    T weights[3];
    int taps;
    if (!plan.quadratic) {
      weights[0] = 1 - f;
      weights[1] = f;
      taps = 2;
    } else {
      weights[0] = 1 - T(1.5) * f + T(0.5) * f * f;
      weights[1] = 2 * f - f * f;
      weights[2] = T(0.5) * f * f - T(0.5) * f;
      taps = 3;
    }
    for (int k = 0; k < taps; ++k) {
      const int64_t back = (whole + k) % len;
      if (i >= back) g_s[static_cast<size_t>(i - back)] += weights[k] * g_delayed;
    }
    y[i] = in_gain * g[i] + g_s[static_cast<size_t>(i)];
  }
}

void flanger_kernel(Tensor& out, const Tensor& in, const FlangerPlan& plan, bool adjoint) {
  const int64_t channels = in.size(1), n = in.size(2);
  const int64_t rows = in.size(0) * channels;
  const auto lfo_len = static_cast<int64_t>(plan.lfo.size());
  effects::cpu::dispatch_float(in.dtype(), "flanger", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    effects::cpu::for_each_row(rows, n * 4, [&](int64_t r) {
      const int64_t shift = ((plan.channel_shift[static_cast<size_t>(r % channels)] % lfo_len) + lfo_len) % lfo_len;
      const LfoCursor lfo{plan, shift};
      if (adjoint) flanger_row_adjoint<T>(y + r * n, x + r * n, n, plan, lfo);
      else flanger_row<T>(y + r * n, x + r * n, n, plan, lfo);
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(flanger_slot, CPU, flanger_kernel, kMaskFloat);

}  // namespace ember::audio
