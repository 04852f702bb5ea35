#pragma once
// oneDNN batch norm, used by batch_norm_kernels.cpp for the layouts its own
// planar kernels do not take (channels-last, tiny planes); same contract as
// BatchNormForwardFn / BatchNormBackwardFn in kernels/slots/norm_kernels.h.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

void dnnl_batch_norm_forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& mean,
                             const Tensor& var, const Tensor& y, double eps, bool use_input_stats, bool channels_last);
void dnnl_batch_norm_backward(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                              const Tensor& var, const Tensor& gx, const Tensor& gw, const Tensor& gb, double eps,
                              bool channels_last);

}  // namespace ember::nn::functional
