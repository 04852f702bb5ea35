#pragma once
// Shared checks and the unchecked si_sdr of separation.cpp and pit.cpp.
#include <optional>

#include <ember/ember.h>

namespace ember::audio::metrics::detail {

// Same dtype (floating), device and shape [..., time] with time > 0.
void check_signal_pair(const char* op, const Tensor& estimate, const Tensor& reference);
// The mask in the signals' dtype, checked broadcastable to signal_shape and
// to leave every signal a valid sample.
Tensor prepare_mask(const char* op, const Tensor& mask, IntArrayRef signal_shape, const Tensor& like);
// A PIT mask ([batch, 1, time] or [batch, time]) as [batch, 1, time].
Tensor prepare_pit_mask(const char* op, const Tensor& mask, int64_t batch, int64_t time, const Tensor& like);
// si_sdr over the last dim of broadcastable signals; the mask already prepared.
Tensor si_sdr_prepared(Tensor estimate, Tensor reference, bool zero_mean, double epsilon,
                       const std::optional<Tensor>& mask);

}  // namespace ember::audio::metrics::detail
