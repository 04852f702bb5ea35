// CPU kernels of overdrive_dc_blocker_slot and phaser_delay_slot
// (effect_kernels.h): one sequential loop per row, rows in parallel. The
// forward loops replay torchaudio's arithmetic step by step (compiled without
// fused multiply-adds, audio/CMakeLists.txt); the adjoints are their
// transposes (Note [Effects as linear maps]).
#include "effects/cpu/row_loops.h"
#include "effects/effect_kernels.h"

namespace ember::audio {
namespace {

// torchaudio's _overdrive_core_loop (C++): last_out = temp - last_in + 0.995 * last_out,
// the difference in T, the product and the sum in double, stored as T.
template <class T>
void dc_blocker_row(T* __restrict y, const T* __restrict x, int64_t n, bool adjoint) {
  constexpr double kPole = 0.995;
  if (!adjoint) {
    T last_in = 0, last_out = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T diff = x[i] - last_in;
      last_out = static_cast<T>(static_cast<double>(diff) + kPole * static_cast<double>(last_out));
      last_in = x[i];
      y[i] = last_out;
    }
    return;
  }
  // u[i] = x[i] + 0.995 u[i+1], y[i] = u[i] - u[i+1].
  T next = 0;
  for (int64_t i = n - 1; i >= 0; --i) {
    const T u = static_cast<T>(static_cast<double>(x[i]) + kPole * static_cast<double>(next));
    y[i] = u - next;
    next = u;
  }
}

void dc_blocker_kernel(Tensor& out, const Tensor& in, bool adjoint) {
  const int64_t rows = in.size(0), n = in.size(1);
  effects::cpu::dispatch_float(in.dtype(), "overdrive", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    effects::cpu::for_each_row(rows, n, [&](int64_t r) { dc_blocker_row<T>(y + r * n, x + r * n, n, adjoint); });
  });
}

// torchaudio's phaser loop: temp = x[i] + delay_buf[idx]; delay_buf[...] = temp * decay,
// one rounding to T per operation.
template <class T>
void delay_feedback_row(T* __restrict y, const T* __restrict x, int64_t n, const int64_t* delays, int64_t period,
                        T decay, bool adjoint) {
  if (!adjoint) {
    int64_t phase = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = delays[phase];
      y[i] = i >= d ? static_cast<T>(x[i] + static_cast<T>(y[i - d] * decay)) : x[i];
      if (++phase == period) phase = 0;
    }
    return;
  }
  // y = (I - decay S)^-1 x with (S y)[i] = y[i - d_i]; the transpose runs
  // backwards in time, each sample handing decay times its value to the
  // sample it read.
  for (int64_t i = 0; i < n; ++i) y[i] = x[i];
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t d = delays[i % period];
    if (i >= d) y[i - d] = static_cast<T>(y[i - d] + static_cast<T>(y[i] * decay));
  }
}

void delay_feedback_kernel(Tensor& out, const Tensor& in, const std::vector<int64_t>& delays, double decay,
                           bool adjoint) {
  const int64_t rows = in.size(0), n = in.size(1);
  const auto period = static_cast<int64_t>(delays.size());
  effects::cpu::dispatch_float(in.dtype(), "phaser", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    effects::cpu::for_each_row(rows, n, [&](int64_t r) {
      delay_feedback_row<T>(y + r * n, x + r * n, n, delays.data(), period, static_cast<T>(decay), adjoint);
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(overdrive_dc_blocker_slot, CPU, dc_blocker_kernel, kMaskFloat);
EMBER_REGISTER_KERNEL_FOR_DTYPES(phaser_delay_slot, CPU, delay_feedback_kernel, kMaskFloat);

}  // namespace ember::audio
