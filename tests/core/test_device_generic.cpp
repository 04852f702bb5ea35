// Device-generic op table: one case per op (the function, its inputs, which of
// them get gradients, the dtypes it runs in and its tolerance), run by one
// harness on every device (device_test.h). In each of the case's dtypes the
// forward values, the output's device and the input gradients of a fixed
// output gradient must match the CPU's; in float64 the case also passes
// gradcheck on the device. The elementwise and reduction families
// have their own fixture-driven harnesses (test_elementwise_ops.cpp,
// test_reduce_ops.cpp) that run on every device too; this table covers the
// rest of core: shape and indexing, scans and sorts, linear algebra, nn
// functional, FFT and spectral, special functions, random numbers, modules.
//
// On the test device every kernel is the CPU's, so any difference, any output
// left on the CPU and any host read of device memory is a device assumption
// in an op file: the bug this table exists to catch.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/fft.h>
#include <ember/special.h>

#include "device_test.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace device_generic_test {

using Inputs = std::vector<Tensor>;

// The dtypes a case runs in. Its inputs are made in float64 (or complex128) and
// cast to each; integer and bool inputs stay as they are, so an entry that is
// not floating (kIntegerOnly) runs the inputs as made.
using DTypes = std::vector<DType>;
const DTypes kFloatingAndBFloat16 = {kFloat64, kFloat32, kBFloat16};
// Ops the CPU computes in float32 and float64 only (conv, pooling, batch and
// layer norm, CTC, LAPACK, complex construction): their cases run in these.
const DTypes kFloating = {kFloat64, kFloat32};
const DTypes kIntegerOnly = {kInt64};

struct DeviceCase {
  std::string name;
  std::function<Inputs()> inputs;  // on the CPU, deterministic
  std::function<Tensor(const Inputs&)> fn;
  std::vector<int> grad_inputs = {};  // inputs that get gradients (floating point)
  bool gradcheck = false;             // also run gradcheck on the device (float64 only)
  double rtol = 1e-6, atol = 1e-9;    // device against CPU, in float64 (tolerance() widens them)
  DTypes dtypes = kFloatingAndBFloat16;
};

struct Tolerance {
  double rtol, atol;
};
// The case's float64 tolerance, widened to what a backend with its own kernels
// (a GPU's reduction order, fused multiply-adds) may differ by in lower
// precisions. (The test device runs the CPU's kernels and matches exactly.)
Tolerance tolerance(const DeviceCase& c, DType dtype) {
  switch (dtype) {
    case kFloat32:
    case kComplex64:
      return {std::max(c.rtol, 1e-4), std::max(c.atol, 1e-5)};
    case kFloat16:
    case kBFloat16:
      return {std::max(c.rtol, 2e-2), std::max(c.atol, 2e-2)};
    default:
      return {c.rtol, c.atol};
  }
}

// t in `dtype` if t is floating (complex: the complex dtype of that precision).
Tensor cast_floating(const Tensor& t, DType dtype) {
  if (!is_floating_point(dtype) || !t.defined()) return t;
  if (is_complex(t.dtype())) return t.to(to_complex_dtype(dtype));
  if (is_floating_point(t.dtype())) return t.to(dtype);
  return t;
}

Tensor seeded_randn(IntArrayRef sizes, uint64_t seed, DType dtype = kFloat64) {
  Generator g(seed);
  return randn(sizes, TensorOptions(dtype), &g);
}
Tensor seeded_rand(IntArrayRef sizes, uint64_t seed, DType dtype = kFloat64) {
  Generator g(seed);
  return rand(sizes, TensorOptions(dtype), &g);
}

// A symmetric positive definite matrix (batched).
Tensor spd(int64_t n, uint64_t seed) {
  Tensor a = seeded_randn({2, n, n}, seed);
  return a.matmul(a.transpose(-1, -2)) + eye(n, kFloat64) * n;
}

const std::vector<DeviceCase>& shape_and_indexing_cases() {
  static const std::vector<DeviceCase> cases = {
      {"cat", [] { return Inputs{seeded_randn({2, 3}, 1), seeded_randn({4, 3}, 2)}; },
       [](const Inputs& x) { return cat({x[0], x[1]}, 0); }, {0, 1}, true},
      {"stack_transposed", [] { return Inputs{seeded_randn({3, 2}, 1), seeded_randn({2, 3}, 2)}; },
       [](const Inputs& x) { return stack({x[0], x[1].t()}, 1); }, {0, 1}, true},
      {"split_chunk", [] { return Inputs{seeded_randn({7, 3}, 3)}; },
       [](const Inputs& x) { return x[0].split(3, 0)[2] * 2 + x[0].chunk(2, 1)[1].sum(); }, {0}, true},
      {"flip_roll", [] { return Inputs{seeded_randn({3, 4}, 4)}; },
       [](const Inputs& x) { return flip(x[0], {0}) + roll(x[0], {1, -2}, {0, 1}); }, {0}, true},
      {"repeat_tile", [] { return Inputs{seeded_randn({2, 3}, 5)}; },
       [](const Inputs& x) { return repeat(x[0], {2, 1, 2}) + tile(x[0], {2, 1, 2}); }, {0}, true},
      {"repeat_interleave_tensor", [] { return Inputs{seeded_randn({3, 2}, 6), tensor({2, 0, 3}, kInt64)}; },
       [](const Inputs& x) { return repeat_interleave(x[0], x[1], 0); }, {0}, true},
      {"repeat_interleave_counts", [] { return Inputs{tensor({1, 3, 0, 2}, kInt64)}; },
       [](const Inputs& x) { return repeat_interleave(x[0]); }, {}, false, 1e-6, 1e-9, kIntegerOnly},
      {"pad_modes", [] { return Inputs{seeded_randn({1, 2, 4, 5}, 7)}; },
       [](const Inputs& x) {
         return pad(x[0], {1, 2, 2, 1}, "reflect").sum() + pad(x[0], {1, 1, 1, 1}, "replicate").sum() +
                pad(x[0], {2, 1, 0, 1}, "circular").sum() + constant_pad_nd(x[0], {1, -1, 2, 0}, 3).sum();
       },
       {0}, true},
      {"tril_triu", [] { return Inputs{seeded_randn({2, 4, 5}, 8)}; },
       [](const Inputs& x) { return tril(x[0], -1) + triu(x[0], 2); }, {0}, true},
      {"permute_reshape_expand", [] { return Inputs{seeded_randn({2, 1, 3}, 9)}; },
       [](const Inputs& x) { return x[0].permute({2, 0, 1}).expand({3, 2, 4}).reshape({6, 4}).contiguous(); }, {0},
       true},
      {"unfold_view", [] { return Inputs{seeded_randn({10}, 10)}; },
       [](const Inputs& x) { return x[0].unfold(0, 4, 3) * 1.5; }, {0}, true},
      {"diagonal_diag_embed", [] { return Inputs{seeded_randn({3, 4}, 11)}; },
       [](const Inputs& x) { return x[0].diagonal(1).sum() + x[0].diagonal().sum() * x[0]; }, {0}, true},
      {"gather_scatter", [] { return Inputs{seeded_randn({3, 4}, 12), tensor({{0, 3}, {2, 2}, {1, 0}}, kInt64)}; },
       [](const Inputs& x) {
         return gather(x[0], 1, x[1]).sum() +
                scatter_add(zeros({3, 4}, x[0].options()), 1, x[1], gather(x[0], 1, x[1]));
       },
       {0}, true},
      {"scatter_reduce_amax", [] { return Inputs{seeded_randn({5}, 13), tensor({0, 2, 2, 1, 0}, kInt64)}; },
       [](const Inputs& x) { return scatter_reduce(zeros({3}, x[0].options()), 0, x[1], x[0], "amax", false); },
       {0}},
      {"index_select_add_copy_fill",
       [] { return Inputs{seeded_randn({4, 3}, 14), tensor({3, 0, 3}, kInt64), seeded_randn({3, 3}, 15)}; },
       [](const Inputs& x) {
         return index_select(x[0], 0, x[1]) + index_add(x[0], 0, x[1], x[2]).sum() +
                index_fill(x[0], 1, tensor({1}, TensorOptions(kInt64).device(x[0].device())), 2.0).sum() +
                index_copy(x[0], 0, tensor({1, 2, 0}, TensorOptions(kInt64).device(x[0].device())), x[2]).sum();
       },
       {0, 2}, true},
      {"index_with_mask_and_tensor", [] { return Inputs{seeded_randn({4, 5}, 16)}; },
       [](const Inputs& x) {
         Tensor mask = x[0] > 0;
         Tensor rows = tensor({2, 0}, TensorOptions(kInt64).device(x[0].device()));
         return x[0].index({mask}).sum() + x[0].index({rows, indexing::Slice(1, 4)}).sum() * x[0];
       },
       {0}, true},
      {"index_put_accumulate", [] { return Inputs{seeded_randn({5}, 17), seeded_randn({3}, 18)}; },
       [](const Inputs& x) {
         Tensor idx = tensor({4, 1, 4}, TensorOptions(kInt64).device(x[0].device()));
         return index_put(x[0], {idx}, x[1], /*accumulate=*/true);
       },
       {0, 1}, true},
      {"masked_fill_select_scatter", [] { return Inputs{seeded_randn({3, 4}, 19), seeded_randn({12}, 20)}; },
       [](const Inputs& x) {
         Tensor mask = x[0] < 0.2;
         return x[0].masked_fill(mask, 1.5) + masked_select(x[0], mask).sum() + masked_scatter(x[0], mask, x[1]);
       },
       {0, 1}, true},
      {"nonzero_argwhere", [] { return Inputs{seeded_randn({4, 3}, 21)}; },
       [](const Inputs& x) { return nonzero(x[0] > 0).to(kFloat64).sum() + argwhere(x[0] < 0).to(kFloat64).sum(); }},
      {"where_take", [] { return Inputs{seeded_randn({3, 4}, 22), seeded_randn({3, 4}, 23)}; },
       [](const Inputs& x) {
         return where(x[0] > x[1], x[0], x[1]) +
                take(x[0], tensor({11, 0, 5}, TensorOptions(kInt64).device(x[0].device()))).sum() +
                take_along_dim(x[1], argsort(x[1], 1), 1);
       },
       {0, 1}, true},
      {"complex_views", [] { return Inputs{seeded_randn({3, 2}, 24)}; },
       [](const Inputs& x) {
         Tensor z = view_as_complex(x[0]);
         return view_as_real(z.conj() * z.conj()).sum() + z.conj().neg().real().sum() + z.conj().imag() * 2;
       },
       {0}, true, 1e-6, 1e-9, kFloating},
  };
  return cases;
}

const std::vector<DeviceCase>& scan_sort_reduce_cases() {
  static const std::vector<DeviceCase> cases = {
      {"cumsum_cumprod_logcumsumexp", [] { return Inputs{seeded_randn({3, 5}, 30)}; },
       [](const Inputs& x) { return cumsum(x[0], 1) + cumprod(x[0], 0) + logcumsumexp(x[0], 1); }, {0}, true},
      {"cummax_cummin", [] { return Inputs{seeded_randn({3, 5}, 31)}; },
       [](const Inputs& x) {
         auto [v, i] = cummax(x[0], 1);
         auto [w, j] = cummin(x[0], 0);
         return v + w + i.to(kFloat64) + j.to(kFloat64);
       },
       {0}, true},
      {"sort_topk_kthvalue", [] { return Inputs{seeded_randn({4, 6}, 32)}; },
       [](const Inputs& x) {
         auto [s, si] = sort(x[0], 1, true);
         auto [t, ti] = topk(x[0], 3, 1);
         auto [k, ki] = kthvalue(x[0], 2, 0);
         return s.sum(1) + t.sum(1) + si.to(kFloat64).sum(1) + ti.to(kFloat64).sum(1) + k.sum() + ki.sum();
       },
       {0}, true},
      {"median_mode", [] { return Inputs{tensor({{1.0, 3.0, 3.0, 2.0}, {5.0, 4.0, 4.0, 4.0}}, kFloat64)}; },
       [](const Inputs& x) {
         auto [m, mi] = median(x[0], 1);
         auto [o, oi] = mode(x[0], 1);
         return m + mi.to(kFloat64) + o + oi.to(kFloat64) + median(x[0]) + nanmedian(x[0]);
       },
       {0}},
      {"unique", [] { return Inputs{tensor({3, 1, 3, 2, 1, 1}, kInt64)}; },
       [](const Inputs& x) {
         auto [u, inverse, counts] = unique(x[0], true, true, true);
         return cat({u, inverse, counts});
       },
       {}, false, 1e-6, 1e-9, kIntegerOnly},
      {"unique_consecutive", [] { return Inputs{tensor({3, 3, 1, 1, 1, 2, 3}, kInt64)}; },
       [](const Inputs& x) {
         auto [u, inverse, counts] = unique_consecutive(x[0], true, true);
         return cat({u, inverse, counts});
       },
       {}, false, 1e-6, 1e-9, kIntegerOnly},
      {"reductions", [] { return Inputs{seeded_randn({3, 4, 5}, 33)}; },
       [](const Inputs& x) {
         return x[0].sum({0, 2}) + x[0].mean({0}).sum(1) + x[0].var({2}).sum(0) + x[0].std({0}).sum(1) +
                x[0].logsumexp({2}).sum(0) + x[0].amax({0, 2}) + x[0].prod({2}).sum(0) + x[0].norm(3, {2}).sum(0);
       },
       {0}, true},
      {"arg_reductions_and_logic", [] { return Inputs{seeded_randn({3, 4}, 34)}; },
       [](const Inputs& x) {
         return x[0].argmax(1).to(kFloat64) + x[0].argmin(1).to(kFloat64) + (x[0] > 0).any(1).to(kFloat64) +
                (x[0] > -3).all(1).to(kFloat64) + count_nonzero(x[0] > 0, 1).to(kFloat64) +
                std::get<0>(x[0].max(1)) + std::get<1>(x[0].min(1)).to(kFloat64);
       },
       {0}},
  };
  return cases;
}

const std::vector<DeviceCase>& linalg_cases() {
  static const std::vector<DeviceCase> cases = {
      {"matmul_family", [] { return Inputs{seeded_randn({2, 3, 4}, 40), seeded_randn({4, 5}, 41), seeded_randn({5}, 42)}; },
       [](const Inputs& x) {
         return matmul(x[0], x[1]).sum(0) + mm(x[0][0], x[1]) + addmm(x[2].unsqueeze(0), x[0][1], x[1]) +
                outer(x[0][0][0].narrow(0, 0, 3), x[2]) + mv(x[1], x[2]).sum() + dot(x[2], x[2]);
       },
       {0, 1, 2}, true},
      {"bmm_baddbmm_conj", [] { return Inputs{seeded_randn({2, 3, 4}, 43), seeded_randn({2, 4, 2}, 44)}; },
       [](const Inputs& x) {
         Tensor za = complex(x[0], x[0].flip({2}));
         Tensor zb = complex(x[1], x[1] * 2);
         return view_as_real(bmm(za.conj(), zb)).sum(-1) + baddbmm(bmm(x[0], x[1]), x[0], x[1]);
       },
       {0, 1}, true, 1e-6, 1e-9, kFloating},
      {"einsum_tensordot", [] { return Inputs{seeded_randn({2, 3, 4}, 45), seeded_randn({4, 3}, 46)}; },
       [](const Inputs& x) { return einsum("bij,jk->bik", {x[0], x[1]}) + tensordot(x[0], x[1], {1, 2}, {1, 0}).sum(); },
       {0, 1}, true},
      {"solve_qr_matrix_exp", [] { return Inputs{spd(3, 47), seeded_randn({2, 3, 2}, 48)}; },
       [](const Inputs& x) {
         auto [q, r] = linalg::qr(x[0]);
         return linalg::solve(x[0], x[1]).sum() + (q.abs().sum() + r.abs().sum()) +
                linalg::matrix_exp(x[0] * 0.1).sum();
       },
       {0, 1}, true, 1e-9, 1e-9, kFloating},
      {"geqrf_householder", [] { return Inputs{seeded_randn({4, 3}, 49)}; },
       [](const Inputs& x) {
         auto [a, tau] = geqrf(x[0]);  // not differentiable (as in PyTorch)
         return linalg::householder_product(a, tau);
       },
       {}, false, 1e-9, 1e-9, kFloating},
      {"vector_norm", [] { return Inputs{seeded_randn({3, 4}, 50)}; },
       [](const Inputs& x) { return linalg::vector_norm(x[0], 2.5, {1}); }, {0}, true},
  };
  return cases;
}

const std::vector<DeviceCase>& nn_functional_cases() {
  static const std::vector<DeviceCase> cases = {
      {"linear_bilinear", [] { return Inputs{seeded_randn({2, 3}, 60), seeded_randn({4, 3}, 61), seeded_randn({4}, 62)}; },
       [](const Inputs& x) { return F::linear(x[0], x[1], x[2]); }, {0, 1, 2}, true},
      {"conv2d", [] { return Inputs{seeded_randn({2, 3, 7, 6}, 63), seeded_randn({4, 3, 3, 3}, 64), seeded_randn({4}, 65)}; },
       [](const Inputs& x) { return F::conv2d(x[0], x[1], {.bias = x[2], .stride = 2, .padding = 1}); }, {0, 1, 2}, true,
       1e-5, 1e-5, kFloating},
      {"conv2d_channels_last_groups", [] { return Inputs{seeded_randn({1, 4, 6, 6}, 66).contiguous(MemoryFormat::ChannelsLast), seeded_randn({4, 2, 3, 3}, 67)}; },
       [](const Inputs& x) { return F::conv2d(x[0], x[1], {.padding = 1, .groups = 2}); }, {0, 1}, false, 1e-5, 1e-5, kFloating},
      {"conv1d_conv3d", [] { return Inputs{seeded_randn({1, 2, 7}, 68), seeded_randn({3, 2, 3}, 69), seeded_randn({1, 2, 4, 4, 3}, 70), seeded_randn({2, 2, 2, 2, 2}, 71)}; },
       [](const Inputs& x) { return F::conv1d(x[0], x[1], {.dilation = 2}).sum() + F::conv3d(x[2], x[3]).sum() * x[0]; },
       {0, 1, 2, 3}, true, 1e-6, 1e-9, kFloating},
      {"conv_transpose2d", [] { return Inputs{seeded_randn({1, 2, 4, 3}, 72), seeded_randn({2, 3, 3, 3}, 73)}; },
       [](const Inputs& x) { return F::conv_transpose2d(x[0], x[1], {.stride = 2}); }, {0, 1}, false, 1e-5, 1e-5, kFloating},
      {"pools", [] { return Inputs{seeded_randn({2, 3, 7, 8}, 74)}; },
       [](const Inputs& x) {
         return F::max_pool2d(x[0], 3, {.stride = 2, .padding = 1}).sum({2, 3}) +
                F::avg_pool2d(x[0], 2, {.ceil_mode = true}).sum({2, 3}) + F::adaptive_avg_pool2d(x[0], {3, 2}).sum({2, 3}) +
                F::adaptive_max_pool2d(x[0], {2, 3}).sum({2, 3}) + F::lp_pool2d(x[0].abs() + 0.1, 2, 2).sum({2, 3});
       },
       {0}, true, 1e-6, 1e-9, kFloating},
      {"pools_channels_last", [] { return Inputs{seeded_randn({2, 3, 6, 6}, 75).contiguous(MemoryFormat::ChannelsLast)}; },
       [](const Inputs& x) { return F::max_pool2d(x[0], 2) + F::avg_pool2d(x[0], 2); }, {0}, false, 1e-6, 1e-9, kFloating},
      {"batch_norm_train", [] { return Inputs{seeded_randn({4, 3, 5}, 76), seeded_rand({3}, 77), seeded_randn({3}, 78)}; },
       [](const Inputs& x) {
         Tensor rm = zeros({3}, x[0].options()), rv = ones({3}, x[0].options());
         Tensor y = F::batch_norm(x[0], rm, rv, {.weight = x[1], .bias = x[2], .training = true});
         return y.sum({0, 2}) + rm + rv;
       },
       {0, 1, 2}, false, 1e-5, 1e-5, kFloating},
      {"batch_norm_eval_and_batch_statistics", [] { return Inputs{seeded_randn({4, 3, 2, 2}, 79), seeded_rand({3}, 80)}; },
       [](const Inputs& x) {
         Tensor rm = full({3}, 0.5, x[0].options()), rv = full({3}, 2.0, x[0].options());
         return F::batch_norm(x[0], rm, rv, {.weight = x[1]}) +
                F::batch_norm(x[0], Tensor(), Tensor(), {.training = true});
       },
       {0, 1}, true, 1e-6, 1e-9, kFloating},
      {"layer_group_instance_norm", [] { return Inputs{seeded_randn({2, 4, 3}, 81), seeded_rand({3}, 82), seeded_randn({4, 3}, 83)}; },
       [](const Inputs& x) {
         return F::layer_norm(x[0], {3}, {.weight = x[1]}).sum() + F::group_norm(x[0], 2).sum(2) +
                F::instance_norm(x[0]).sum(2) + F::layer_norm(x[2], {3}).to(kFloat64).sum();
       },
       {0, 1}, true, 1e-6, 1e-9, kFloating},
      {"softmax_family", [] { return Inputs{seeded_randn({3, 5}, 84)}; },
       [](const Inputs& x) { return F::softmax(x[0], 1) + F::log_softmax(x[0], 0) + F::glu(x[0].repeat({1, 2}), 1); },
       {0}, true},
      {"activations", [] { return Inputs{seeded_randn({4, 5}, 85)}; },
       [](const Inputs& x) {
         return F::elu(x[0]) + F::leaky_relu(x[0], 0.1) + F::hardswish(x[0]) + F::mish(x[0]) + F::softsign(x[0]) +
                F::hardtanh(x[0]) + F::logsigmoid(x[0]) + F::selu(x[0]) + F::celu(x[0]);
       },
       {0}, true},
      {"prelu", [] { return Inputs{seeded_randn({2, 3, 4}, 86), tensor({0.1, 0.2, 0.3}, kFloat64)}; },
       [](const Inputs& x) { return F::prelu(x[0], x[1]); }, {0, 1}, true},
      {"losses_regression", [] { return Inputs{seeded_randn({3, 4}, 87), seeded_randn({3, 4}, 88)}; },
       [](const Inputs& x) {
         return F::mse_loss(x[0], x[1]) + F::l1_loss(x[0], x[1]) + F::smooth_l1_loss(x[0], x[1]) +
                F::huber_loss(x[0], x[1]) + F::soft_margin_loss(x[0], x[1].sign()) +
                F::binary_cross_entropy_with_logits(x[0], x[1].sigmoid()) +
                F::kl_div(F::log_softmax(x[0], 1), F::softmax(x[1], 1), {.reduction = nn::Reduction::BatchMean});
       },
       {0, 1}, true},
      {"losses_classification", [] { return Inputs{seeded_randn({5, 4}, 89), tensor({3, 0, 1, 3, 2}, kInt64), tensor({1.0, 2.0, 0.5, 1.0}, kFloat64)}; },
       [](const Inputs& x) {
         return F::cross_entropy(x[0], x[1], {.weight = x[2], .label_smoothing = 0.1}) +
                F::nll_loss(F::log_softmax(x[0], 1), x[1], {.ignore_index = 0}) +
                F::multi_margin_loss(x[0], x[1]) + F::cross_entropy(x[0], F::softmax(x[0] * 2, 1));
       },
       {0}, true},
      {"multilabel_margin_loss", [] { return Inputs{seeded_randn({3, 4}, 90), tensor({{3, 0, -1, 1}, {1, 2, 3, 0}, {-1, 1, 2, 3}}, kInt64)}; },
       [](const Inputs& x) { return F::multilabel_margin_loss(x[0], x[1], nn::Reduction::None); }, {0}, true},
      // Its gradient assumes normalized log-probabilities (as PyTorch's): logits in, log_softmax inside.
      {"ctc_loss", [] { return Inputs{seeded_randn({6, 2, 4}, 91), tensor({{1, 2, 2}, {3, 1, 0}}, kInt64)}; },
       [](const Inputs& x) {
         return F::ctc_loss(F::log_softmax(x[0], 2), x[1], IntArrayRef{6, 5}, IntArrayRef{3, 2},
                            {.reduction = nn::Reduction::None});
       },
       {0}, true, 1e-6, 1e-9, kFloating},
      {"embedding", [] { return Inputs{seeded_randn({6, 3}, 92), tensor({{1, 5}, {0, 1}}, kInt64)}; },
       [](const Inputs& x) { return F::embedding(x[1], x[0]); }, {0}, true},
      // The padding row's zero gradient and scaling by frequency are PyTorch's
      // definitions, not true derivatives: no gradcheck.
      {"embedding_padding_and_freq", [] { return Inputs{seeded_randn({6, 3}, 92), tensor({{1, 5}, {0, 1}}, kInt64)}; },
       [](const Inputs& x) {
         return F::embedding(x[1], x[0], {.padding_idx = 0, .scale_grad_by_freq = true});
       },
       {0}},
      {"embedding_bag", [] { return Inputs{seeded_randn({6, 3}, 93), tensor({1, 5, 0, 2, 2, 4, 0}, kInt64), tensor({0, 2, 2, 5}, kInt64)}; },
       [](const Inputs& x) {
         return F::embedding_bag(x[1], x[0], {.offsets = x[2], .mode = "mean", .padding_idx = 2}) +
                F::embedding_bag(x[1], x[0], {.offsets = x[2], .mode = "max"}) +
                F::embedding_bag(x[1], x[0], {.offsets = x[2], .mode = "sum", .include_last_offset = true}).sum();
       },
       {0}, true},
      {"interpolate_modes", [] { return Inputs{seeded_randn({1, 2, 4, 5}, 94)}; },
       [](const Inputs& x) {
         return F::interpolate(x[0], {.size = {6, 7}, .mode = "bilinear", .align_corners = false}).sum({2, 3}) +
                F::interpolate(x[0], {.scale_factor = {2}, .mode = "nearest"}).sum({2, 3}) +
                F::interpolate(x[0], {.size = {3, 3}, .mode = "bicubic", .align_corners = true}).sum({2, 3}) +
                F::interpolate(x[0], {.size = {2, 3}, .mode = "area"}).sum({2, 3});
       },
       {0}, true},
      {"fold_unfold_pixel_shuffle", [] { return Inputs{seeded_randn({1, 4, 4, 4}, 95)}; },
       [](const Inputs& x) {
         Tensor cols = F::unfold(x[0], {.kernel_size = {2, 2}});
         return F::fold(cols, {.output_size = {4, 4}, .kernel_size = {2, 2}}) + F::pixel_unshuffle(F::pixel_shuffle(x[0], 2), 2);
       },
       {0}, true},
      {"scaled_dot_product_attention", [] { return Inputs{seeded_randn({2, 3, 4}, 96), seeded_randn({2, 5, 4}, 97), seeded_randn({2, 5, 4}, 98)}; },
       [](const Inputs& x) { return F::scaled_dot_product_attention(x[0], x[1], x[2]); }, {0, 1, 2}, true},
      {"distances", [] { return Inputs{seeded_randn({3, 4}, 99), seeded_randn({3, 4}, 100)}; },
       [](const Inputs& x) { return F::cosine_similarity(x[0], x[1]) + F::pairwise_distance(x[0], x[1]); }, {0, 1}, true},
  };
  return cases;
}

const std::vector<DeviceCase>& fft_special_random_cases() {
  static const std::vector<DeviceCase> cases = {
      {"fft_family", [] { return Inputs{seeded_randn({3, 12}, 110)}; },
       [](const Inputs& x) {
         return view_as_real(fft::fft(x[0]).resolve_conj()).sum(-1) + fft::irfft(fft::rfft(x[0], 15), 12) +
                view_as_real(fft::fft2(x[0].reshape({3, 3, 4})).resolve_conj()).sum(-1).reshape({3, 12}) +
                fft::fftshift(x[0]);
       },
       {0}, true, 1e-9, 1e-9},
      {"fft_odd_and_prime_lengths", [] { return Inputs{seeded_randn({2, 17}, 111)}; },
       [](const Inputs& x) { return fft::hfft(fft::ihfft(x[0]), 17) + view_as_real(fft::ifft(x[0], 34).resolve_conj()).sum(-1).narrow(1, 0, 17); },
       {0}, true, 1e-9, 1e-9},
      {"stft_istft", [] { return Inputs{seeded_randn({2, 64}, 112)}; },
       [](const Inputs& x) {
         Tensor w = hann_window(16, true, x[0].options());
         Tensor s = stft(x[0], 16, {.hop_length = 4, .window = w, .return_complex = true});
         return istft(s, 16, {.hop_length = 4, .window = w, .length = 64}) + view_as_real(s.resolve_conj()).sum({1, 2, 3}).unsqueeze(1);
       },
       {0}, true, 1e-9, 1e-9},
      {"stft_default_window", [] { return Inputs{seeded_randn({40}, 113)}; },
       [](const Inputs& x) {
         Tensor s = stft(x[0], 8, {.hop_length = 2, .win_length = 6, .return_complex = true});
         return istft(s, 8, {.hop_length = 2, .win_length = 6});
       },
       {0}, true, 1e-9, 1e-9},
      {"special_functions", [] { return Inputs{seeded_rand({6}, 114) + 0.5}; },
       [](const Inputs& x) {
         return special::i0(x[0]) + special::i1e(x[0]) + special::digamma(x[0]) + special::gammaln(x[0]) +
                special::erfinv(x[0] - 1) + special::ndtri(x[0] / 2) + special::zeta(Scalar(3.0), x[0] + 1) +
                special::polygamma(1, x[0]) + special::xlogy(x[0], x[0]) + special::logit(x[0] / 2) +
                special::gammainc(full_like(x[0], 2.0), x[0] * 2) + special::bessel_j0(x[0]) + special::erfcx(x[0]) +
                special::log_ndtr(x[0]);
       },
       {0}, true, 1e-9, 1e-12},
      {"random_streams_match_the_cpu", [] { return Inputs{seeded_rand({4, 3}, 115)}; },
       [](const Inputs& x) {
         Generator g(5);
         const TensorOptions o = x[0].options();
         return rand({4, 3}, o, &g) + randn({4, 3}, o, &g) + bernoulli(x[0], &g) +
                randint(0, 7, {4, 3}, TensorOptions(kInt64).device(x[0].device()), &g).to(kFloat64) +
                multinomial(x[0] + 0.1, 3, true, &g).to(kFloat64) + x[0].clone().exponential_(2.0, &g) +
                randperm(3, TensorOptions(kInt64).device(x[0].device()), &g).to(kFloat64);
       }},
      {"dropout_with_generator", [] { return Inputs{seeded_randn({5, 6}, 116)}; },
       [](const Inputs& x) {
         Generator g(9);
         return F::dropout(x[0], 0.3, true, false, &g);
       },
       {0}},
  };
  return cases;
}

std::vector<const DeviceCase*> all_cases() {
  std::vector<const DeviceCase*> all;
  for (const auto* family : {&shape_and_indexing_cases(), &scan_sort_reduce_cases(), &linalg_cases(),
                             &nn_functional_cases(), &fft_special_random_cases()})
    for (const DeviceCase& c : *family) all.push_back(&c);
  return all;
}

::testing::AssertionResult same_values(const Tensor& device_result, const Tensor& cpu_result, double rtol, double atol) {
  if (device_result.sizes() != cpu_result.sizes())
    return ::testing::AssertionFailure() << "sizes " << device_result.sizes() << " vs the CPU's " << cpu_result.sizes();
  if (device_result.dtype() != cpu_result.dtype())
    return ::testing::AssertionFailure() << "dtype " << device_result.dtype() << " vs the CPU's " << cpu_result.dtype();
  Tensor a = device_result.detach().cpu(), b = cpu_result.detach();
  if (is_complex(a.dtype())) {
    a = view_as_real(a.resolve_conj());
    b = view_as_real(b.resolve_conj());
  }
  if (allclose(a.to(kFloat64), b.to(kFloat64), rtol, atol, /*equal_nan=*/true)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "largest difference " << (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>();
}

void run_case_in(const DeviceCase& c, DType dtype, Device device) {
  SCOPED_TRACE(c.name + " in " + std::string(dtype_name(dtype)) + " on " + device.str());
  const Tolerance tol = tolerance(c, dtype);
  Inputs host = c.inputs();
  for (Tensor& t : host) t = cast_floating(t, dtype);
  auto prepare = [&](Device d) {
    Inputs in;
    for (size_t i = 0; i < host.size(); ++i) {
      Tensor t = host[i].to(d, /*copy=*/true);
      const bool wants_grad = std::find(c.grad_inputs.begin(), c.grad_inputs.end(), int(i)) != c.grad_inputs.end();
      in.push_back(wants_grad ? t.requires_grad_(true) : t);
    }
    return in;
  };
  Inputs cpu_in = prepare(kCPU), dev_in = prepare(device);
  Tensor cpu_out;
  try {
    cpu_out = c.fn(cpu_in);
  } catch (const Error& e) {
    ADD_FAILURE() << "the case raised on the CPU: " << e.what();
    return;
  }
  Tensor dev_out;
  try {
    dev_out = c.fn(dev_in);
  } catch (const Error& e) {
    ADD_FAILURE() << "forward raised: " << e.what();
    return;
  }
  EXPECT_EQ(dev_out.device(), device) << "the output must live on the inputs' device";
  EXPECT_TRUE(same_values(dev_out, cpu_out, tol.rtol, tol.atol)) << "forward";
  if (c.grad_inputs.empty()) return;
  const Tensor grad_out = seeded_randn(cpu_out.sizes(), 1234, cpu_out.dtype());
  try {
    cpu_out.backward(grad_out);
  } catch (const Error& e) {
    ADD_FAILURE() << "backward raised on the CPU: " << e.what();
    return;
  }
  try {
    dev_out.backward(grad_out.to(device));
  } catch (const Error& e) {
    ADD_FAILURE() << "backward raised: " << e.what();
    return;
  }
  for (int i : c.grad_inputs) {
    SCOPED_TRACE("gradient of input " + std::to_string(i));
    ASSERT_TRUE(dev_in[i].grad().defined());
    EXPECT_EQ(dev_in[i].grad().device(), device) << "a gradient lives where its input does";
    EXPECT_TRUE(same_values(dev_in[i].grad(), cpu_in[i].grad(), tol.rtol, tol.atol));
  }
  if (c.gradcheck && dtype == kFloat64) {
    Inputs check_in = prepare(device);
    std::vector<Tensor> diff;
    autograd::GradcheckFn f = [&](const autograd::variable_list& v) {
      Inputs full = check_in;
      for (size_t k = 0; k < c.grad_inputs.size(); ++k) full[c.grad_inputs[k]] = v[k];
      return autograd::variable_list{c.fn(full)};
    };
    for (int i : c.grad_inputs) diff.push_back(check_in[i]);
    try {
      EXPECT_TRUE(autograd::gradcheck(f, diff, {.atol = 1e-5, .rtol = 1e-3})) << "gradcheck";
    } catch (const Error& e) {
      ADD_FAILURE() << "gradcheck raised: " << e.what();
    }
  }
}

void run_case(const DeviceCase& c, Device device) {
  for (DType dtype : c.dtypes) run_case_in(c, dtype, device);
}

class OpTableOnDevice : public OnEachDevice {};
EMBER_INSTANTIATE_ON_EACH_DEVICE(OpTableOnDevice);

TEST_P(OpTableOnDevice, ShapeAndIndexing) {
  for (const DeviceCase& c : shape_and_indexing_cases()) run_case(c, device());
}
TEST_P(OpTableOnDevice, ScansSortsAndReductions) {
  for (const DeviceCase& c : scan_sort_reduce_cases()) run_case(c, device());
}
TEST_P(OpTableOnDevice, LinearAlgebra) {
  for (const DeviceCase& c : linalg_cases()) run_case(c, device());
}
TEST_P(OpTableOnDevice, NNFunctional) {
  for (const DeviceCase& c : nn_functional_cases()) run_case(c, device());
}
TEST_P(OpTableOnDevice, FFTSpecialAndRandom) {
  for (const DeviceCase& c : fft_special_random_cases()) run_case(c, device());
}

// The out= and in-place forms of the table's families: the result stays in the
// tensor it was written to, on the device, with the CPU's values. (The
// elementwise and reduction harnesses check their own out= and in-place forms.)
struct WriteCase {
  std::string name;
  // Writes into its first input (out= or in-place) and returns it.
  std::function<Tensor(Inputs&)> write;
};

const std::vector<WriteCase>& out_and_inplace_cases() {
  auto idx = [](const Tensor& like, std::vector<int64_t> v) {
    return tensor(v, TensorOptions(kInt64).device(like.device()));
  };
  static const std::vector<WriteCase> cases = {
      {"cat_out", [](Inputs& x) { return cat_out(x[0], {x[1], x[1]}, 0); }},
      {"stack_out", [](Inputs& x) { return stack_out(x[0], {x[1], x[1]}, 1); }},
      {"cumsum_out", [](Inputs& x) { return cumsum_out(x[0], x[1], 1); }},
      {"cumprod_out", [](Inputs& x) { return cumprod_out(x[0], x[1], 0); }},
      {"tril_out_triu_out", [](Inputs& x) { return triu_out(x[0], tril_out(x[0], x[1], 1), -1); }},
      {"gather_out", [idx](Inputs& x) {
         x[0] = empty({4, 3}, x[1].options());  // gather_out does not resize
         return gather_out(x[0], x[1], 1, idx(x[1], {0, 2, 1, 0, 3, 3}).view({2, 3}).repeat({2, 1}));
       }},
      {"index_select_out", [idx](Inputs& x) { return index_select_out(x[0], x[1], 0, idx(x[1], {3, 0, 0})); }},
      {"masked_select_out", [](Inputs& x) { return masked_select_out(x[0], x[1], x[1] > 0); }},
      {"mm_out", [](Inputs& x) { return mm_out(x[0], x[1], x[1].t()); }},
      {"matmul_out", [](Inputs& x) { return matmul_out(x[0], x[1].view({2, 3, 4}), x[1].narrow(0, 0, 4)); }},
      {"addmm_out", [](Inputs& x) { return addmm_out(x[0], x[1].narrow(0, 0, 1), x[1], x[1].t().narrow(1, 0, 4), 0.5, 2); }},
      {"cumsum_", [](Inputs& x) { return x[1].cumsum_(0); }},
      {"tril_", [](Inputs& x) { return x[1].tril_(-1); }},
      {"index_add_copy_fill_", [idx](Inputs& x) {
         x[1].index_add_(0, idx(x[1], {1, 1, 3}), x[1].narrow(0, 0, 3), 2);
         x[1].index_copy_(1, idx(x[1], {2}), x[1].narrow(1, 0, 1));
         return x[1].index_fill_(0, idx(x[1], {0}), 7.5);
       }},
      {"index_put_masked_", [idx](Inputs& x) {
         x[1].index_put_({idx(x[1], {2, 4})}, x[1].narrow(0, 0, 2));
         x[1].masked_fill_(x[1] < -1, 0.25);
         return x[1].masked_scatter_(x[1] > 1, x[1].flatten().flip({0}));
       }},
      {"scatter_family_", [idx](Inputs& x) {
         Tensor i = idx(x[1], {0, 1, 2, 3, 3, 2, 1, 0}).view({2, 4});
         x[1].scatter_(0, i, x[1].narrow(0, 0, 2));
         x[1].scatter_add_(0, i, x[1].narrow(0, 1, 2));
         return x[1].scatter_reduce_(0, i, x[1].narrow(0, 2, 2), "amax");
       }},
      {"addmm_addmv_baddbmm_", [](Inputs& x) {
         Tensor m = x[1].narrow(0, 0, 4);
         m.addmm_(m, m.t(), 0.5, 0.25);
         Tensor v = x[1].select(0, 4);
         v.addmv_(m, x[1].select(0, 5), 1, 0.5);
         Tensor b = x[1].view({2, 3, 4}).narrow(2, 0, 3);
         return b.baddbmm_(b, b, 0.5, 0.5);
       }},
  };
  return cases;
}

TEST_P(OpTableOnDevice, OutAndInPlaceForms) {
  for (const WriteCase& c : out_and_inplace_cases()) {
    for (DType dtype : kFloating) {
      SCOPED_TRACE(c.name + " in " + std::string(dtype_name(dtype)) + " on " + device().str());
      auto inputs_on = [&](Device d) {
        return Inputs{empty({0}, TensorOptions(dtype).device(d)), seeded_randn({6, 4}, 130, dtype).to(d)};
      };
      Inputs cpu_in = inputs_on(kCPU), dev_in = inputs_on(device());
      Tensor cpu_r, dev_r;
      try {
        cpu_r = c.write(cpu_in);
        dev_r = c.write(dev_in);
      } catch (const Error& e) {
        ADD_FAILURE() << "raised: " << e.what();
        continue;
      }
      const Tolerance tol = dtype == kFloat64 ? Tolerance{1e-12, 1e-12} : Tolerance{1e-4, 1e-5};
      EXPECT_EQ(dev_r.device(), device());
      EXPECT_TRUE(same_values(dev_r, cpu_r, tol.rtol, tol.atol));
      EXPECT_TRUE(same_values(dev_in[1], cpu_in[1], tol.rtol, tol.atol)) << "the in-place target";
    }
  }
}

// Modules move with Module::to(device) and compute there: recurrent layers
// (their packed-sequence and weight-flattening paths), and nn::init filling
// parameters on the device with the CPU's numbers.
template <class Module, class Run>
void check_module_on_device(Device device, const std::function<Module()>& make, const Run& run) {
  Module cpu_module = make(), dev_module = make();
  dev_module->to(device);
  for (const auto& p : dev_module->parameters()) EXPECT_EQ(p.device(), device);
  Tensor cpu_y = run(cpu_module, kCPU), dev_y;
  try {
    dev_y = run(dev_module, device);
  } catch (const Error& e) {
    ADD_FAILURE() << "forward raised: " << e.what();
    return;
  }
  EXPECT_EQ(dev_y.device(), device);
  EXPECT_TRUE(same_values(dev_y, cpu_y, 1e-5, 1e-6));
  cpu_y.sum().backward();
  dev_y.sum().backward();
  auto cpu_params = cpu_module->parameters(), dev_params = dev_module->parameters();
  for (size_t i = 0; i < cpu_params.size(); ++i) {
    ASSERT_TRUE(dev_params[i].grad().defined()) << "parameter " << i;
    EXPECT_EQ(dev_params[i].grad().device(), device);
    EXPECT_TRUE(same_values(dev_params[i].grad(), cpu_params[i].grad(), 1e-5, 1e-6)) << "parameter " << i;
  }
}

TEST_P(OpTableOnDevice, RecurrentModules) {
  const Tensor x = seeded_randn({5, 2, 3}, 120, kFloat32);
  {
    SCOPED_TRACE("lstm, 2 layers, bidirectional, projected");
    check_module_on_device<nn::LSTM>(
        device(),
        [] {
          manual_seed(77);
          return nn::LSTM(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .bidirectional = true,
                                          .proj_size = 2});
        },
        [&](nn::LSTM& m, Device d) { return std::get<0>(m->forward(x.to(d))); });
  }
  {
    SCOPED_TRACE("gru, batch first, packed sequence");
    check_module_on_device<nn::GRU>(
        device(),
        [] {
          manual_seed(78);
          return nn::GRU(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .batch_first = true});
        },
        [&](nn::GRU& m, Device d) {
          Tensor batch = x.transpose(0, 1).to(d);  // [2, 5, 3]
          auto packed = nn::utils::rnn::pack_padded_sequence(batch, tensor({5, 3}, kInt64), true);
          auto [out, h] = m->forward(packed);
          return std::get<0>(nn::utils::rnn::pad_packed_sequence(out, true)).sum() + h.sum();
        });
  }
  {
    SCOPED_TRACE("rnn relu");
    check_module_on_device<nn::RNN>(
        device(),
        [] {
          manual_seed(79);
          return nn::RNN(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .nonlinearity = "relu"});
        },
        [&](nn::RNN& m, Device d) { return std::get<1>(m->forward(x.to(d))); });
  }
}

TEST_P(OpTableOnDevice, InitFillsParametersOnTheDevice) {
  using Fill = std::function<void(Tensor&, Generator*)>;
  const std::vector<std::pair<const char*, Fill>> fills = {
      {"uniform_", [](Tensor& t, Generator* g) { nn::init::uniform_(t, -1, 2, g); }},
      {"normal_", [](Tensor& t, Generator* g) { nn::init::normal_(t, 0, 1, g); }},
      {"trunc_normal_", [](Tensor& t, Generator* g) { nn::init::trunc_normal_(t, 0, 1, -1, 1, g); }},
      {"xavier_uniform_", [](Tensor& t, Generator* g) { nn::init::xavier_uniform_(t, 1, g); }},
      {"kaiming_normal_", [](Tensor& t, Generator* g) { nn::init::kaiming_normal_(t, 0, nn::init::FanMode::FanIn, "relu", g); }},
      {"orthogonal_", [](Tensor& t, Generator* g) { nn::init::orthogonal_(t, 1, g); }},
      {"sparse_", [](Tensor& t, Generator* g) { nn::init::sparse_(t, 0.5, 0.01, g); }},
      {"eye_", [](Tensor& t, Generator*) { nn::init::eye_(t); }},
      {"dirac_", [](Tensor& t, Generator*) {
         Tensor w = t.view({2, 3, 2});
         nn::init::dirac_(w);
       }},
  };
  for (const auto& [name, fill] : fills) {
    SCOPED_TRACE(name);
    Tensor cpu_t = empty({4, 3}), dev_t = empty({4, 3}, TensorOptions().device(device()));
    Generator g1(3), g2(3);
    fill(cpu_t, &g1);
    try {
      fill(dev_t, &g2);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(dev_t.device(), device());
    EXPECT_TRUE(same_values(dev_t, cpu_t, 1e-5, 1e-6));
  }
}

TEST(OpTable, CaseNamesAreUnique) {
  std::set<std::string> names;
  for (const DeviceCase* c : all_cases()) EXPECT_TRUE(names.insert(c->name).second) << c->name;
  EXPECT_GE(names.size(), 60u);
}

}  // namespace device_generic_test
