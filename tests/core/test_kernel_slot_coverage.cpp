// missing_kernels(type) per op and per dtype (docs/architecture.md "Device
// backends"): every slot whose kernel takes an op enum is a family slot, so a
// backend that fills it but computes only some ops, or some dtypes of one op,
// is told which; a plain slot whose kernel covers fewer dtypes than the CPU's
// is named with the dtypes it lacks. The test device stands for that backend:
// its masks are narrowed for one check and restored after it. The CPU's per-op
// masks are the reference, so they are checked against what the CPU ops do.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "kernels/slots/activation_kernels.h"
#include "kernels/slots/conv_kernels.h"
#include "kernels/slots/copy_kernels.h"
#include "kernels/slots/fft_kernels.h"
#include "kernels/slots/linalg_kernels.h"
#include "kernels/slots/shape_kernels.h"
#include "kernels/slots/special_gamma_kernels.h"
#include "kernels/slots/special_misc_kernels.h"
#include "kernels/slots/indexing_kernels.h"
#include "kernels/slots/kernel_slot.h"
#include "kernels/slots/pool_kernels.h"
#include "kernels/slots/random_kernels.h"
#include "kernels/slots/reduce_kernels.h"
#include "kernels/slots/scan_kernels.h"
#include "kernels/slots/sort_kernels.h"
#include "kernels/slots/elementwise_kernels.h"

using namespace ember;

// Named, not anonymous: test sources compile in unity batches.
namespace kernel_slot_coverage_test {

constexpr int kCpu = static_cast<int>(DeviceType::CPU);
constexpr int kTest = static_cast<int>(DeviceType::Test);

// missing_kernels(Test) while the test device's kernel for `op` of `slot`
// lacks the dtypes `drop` (the other ops as the CPU's), and whether the slot
// then still answers supports() for each dropped dtype.
struct Narrowed {
  std::vector<std::string> missing;
  bool supports_a_dropped_dtype = false;
};
template <class Fn, class Op>
Narrowed narrow_op(KernelSlot<Fn>& slot, Op op, uint32_t drop) {
  Narrowed r;
  const uint32_t* cpu = slot.op_dtypes()[kCpu];
  EXPECT_NE(cpu, nullptr) << slot.name() << ": the CPU registers its per-op dtypes";
  if (cpu == nullptr) return r;
  const uint32_t* saved = slot.op_dtypes()[kTest];
  std::vector<uint32_t> partial(cpu, cpu + slot.num_ops());
  partial[static_cast<size_t>(op)] &= ~drop;
  slot.set_op_dtypes(DeviceType::Test, partial.data());
  r.missing = missing_kernels(DeviceType::Test);
  for (int i = 0; i < kNumDTypes; ++i)
    if (drop & dtype_bit(static_cast<DType>(i)))
      r.supports_a_dropped_dtype |= slot.supports(kTestDevice, static_cast<int>(op), static_cast<DType>(i));
  slot.set_op_dtypes(DeviceType::Test, saved);
  return r;
}

// One family slot, one op, the dtypes dropped and the one entry expected.
template <class Fn, class Op>
void expect_named(KernelSlot<Fn>& slot, Op op, uint32_t drop, const std::string& expected) {
  SCOPED_TRACE(expected);
  Narrowed r = narrow_op(slot, op, drop);
  ASSERT_EQ(r.missing.size(), 1u) << (r.missing.empty() ? "nothing missing" : r.missing[0]);
  EXPECT_EQ(r.missing[0], expected);
  EXPECT_FALSE(r.supports_a_dropped_dtype);
  EXPECT_TRUE(missing_kernels(DeviceType::Test).empty()) << "restored";
}

// The dtype mask the CPU registered for `op` of `slot`.
template <class Fn, class Op>
uint32_t cpu_op_dtypes(const KernelSlot<Fn>& slot, Op op) {
  const uint32_t* cpu = slot.op_dtypes()[kCpu];
  return cpu == nullptr ? 0u : cpu[static_cast<size_t>(op)];
}

// The dtypes for which f(x) returns rather than raising an ember::Error,
// with x a small CPU tensor of values 1..6 (shape [2, 3]) in that dtype.
uint32_t dtypes_that_run(const std::function<void(const Tensor&)>& f) {
  uint32_t mask = 0;
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    if (is_quantized(t)) continue;  // no slot computes them (QuantizedTensor.UnsupportedOpsRaise)
    const Tensor x = arange(1, 7, kFloat64).reshape({2, 3}).to(t);
    try {
      f(x);
      mask |= dtype_bit(t);
    } catch (const Error&) {
    }
  }
  return mask;
}

std::string dtype_names(uint32_t mask) {
  std::string s;
  for (int i = 0; i < kNumDTypes; ++i)
    if (mask & dtype_bit(static_cast<DType>(i))) (s += s.empty() ? "" : " ") += dtype_name(static_cast<DType>(i));
  return s;
}

#define EXPECT_MASK_EQ(actual, expected) \
  EXPECT_EQ(dtype_names(actual), dtype_names(expected))
// Where the op computes some dtypes without this kernel (complex var as
// var(real) + var(imag), integer hardtanh as clamp): the dtypes that run,
// less those, are the kernel's, and the kernel's mask has none of those.
#define EXPECT_MASK_EQ_BESIDES(actual, expected, elsewhere)         \
  do {                                                              \
    EXPECT_MASK_EQ((actual) & ~(elsewhere), expected);              \
    EXPECT_EQ(dtype_names((expected) & (elsewhere)), "");           \
    EXPECT_EQ(dtype_names((actual) & (elsewhere)), dtype_names(elsewhere)); \
  } while (0)

// Each converted family names the single op a backend lacks, for one dtype
// or for all of them.
TEST(DeviceKernelSlots, EveryFamilySlotIsCheckedPerOp) {
  const uint32_t f16 = dtype_bit(kFloat16);
  expect_named(reduce_slot, ReduceOp::Mean, f16, "reduce: mean (float16)");
  expect_named(reduce_slot, ReduceOp::Var, kMaskFloating, "reduce: var (float16, bfloat16, float32, float64)");
  expect_named(reduce_slot, ReduceOp::CountNonzero, dtype_bit(kBool), "reduce: count_nonzero (bool)");
  expect_named(arg_reduce_slot, ArgReduceOp::Min, dtype_bit(kInt64), "arg_reduce: min (int64)");
  expect_named(scan_slot, ScanOp::LogSumExp, dtype_bit(kBFloat16), "scan: logcumsumexp (bfloat16)");
  expect_named(scan_slot, ScanOp::Prod, dtype_bit(kComplex64), "scan: cumprod (complex64)");
  expect_named(select_slot, SelectOp::NanMedian, f16, "select: nanmedian (float16)");
  expect_named(scatter_slot, ScatterOp::Amax, dtype_bit(kInt8), "scatter: amax (int8)");
  expect_named(scatter_scalar_slot, ScatterOp::Multiply, dtype_bit(kComplex128),
               "scatter_scalar: multiply (complex128)");
  expect_named(nn::functional::activation_slot, nn::functional::ActOp::Mish, f16, "activation: mish (float16)");
  expect_named(nn::functional::pool_forward_slot, nn::functional::PoolMode::Avg, dtype_bit(kFloat64),
               "pool_forward: avg_pool (float64)");
  expect_named(nn::functional::pool_backward_slot, nn::functional::PoolMode::Max, kMaskFloat,
               "pool_backward: max_pool (float32, float64)");
  expect_named(random_slot, RandomDist::Geometric, dtype_bit(kUInt8), "random: geometric (uint8)");
  expect_named(random_slot, RandomDist::BernoulliTensor, dtype_bit(kBool), "random: bernoulli_tensor (bool)");
  // Slots whose kernel takes a bool that selects between two ops.
  expect_named(cum_min_max_slot, 0, dtype_bit(kInt16), "cum_min_max: cummin (int16)");
  expect_named(nn::functional::softmax_slot, 1, f16, "softmax: log_softmax (float16)");
  expect_named(nn::functional::softmax_backward_slot, 0, kMaskFloat,
               "softmax_backward: softmax (float32, float64)");
  expect_named(triangle_slot, 1, dtype_bit(kBool), "triangle: tril (bool)");
  expect_named(index_put_slot, 1, kMaskComplex, "index_put_: index_put_accumulate (complex64, complex128)");
}

// A dtype the CPU's kernel does not compute for an op is not asked of other
// backends: dropping it reports nothing.
TEST(DeviceKernelSlots, DtypesTheCpuLacksAreNotAskedFor) {
  Narrowed r = narrow_op(reduce_slot, ReduceOp::Var, kMaskComplex | kMaskIntegral);
  EXPECT_TRUE(r.missing.empty()) << r.missing[0];
  r = narrow_op(nn::functional::activation_slot, nn::functional::ActOp::Elu, dtype_bit(kInt32));
  EXPECT_TRUE(r.missing.empty()) << r.missing[0];
}

// A plain slot (no op enum) whose kernel covers fewer dtypes than the CPU's is
// named with the dtypes it lacks; a wider one is fine.
TEST(DeviceKernelSlots, PlainSlotsWithFewerDtypesAreNamed) {
  SortFn* kernel = sort_slot.kernel(kTestDevice);
  const uint32_t cpu = sort_slot.dtype_masks()[kCpu];
  ASSERT_EQ(cpu, kMaskReal | kMaskBool) << "sort's CPU kernel orders every real dtype and bool";
  sort_slot.set(DeviceType::Test, kernel, cpu & ~dtype_bit(kFloat16));
  auto missing = missing_kernels(DeviceType::Test);
  const bool float16 = sort_slot.supports(kTestDevice, kFloat16);
  sort_slot.set(DeviceType::Test, kernel, cpu & ~kMaskIntegral);
  auto missing_integral = missing_kernels(DeviceType::Test);
  sort_slot.set(DeviceType::Test, kernel, kMaskAll);
  auto missing_wider = missing_kernels(DeviceType::Test);
  sort_slot.set(DeviceType::Test, kernel, cpu);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "sort (float16)");
  EXPECT_FALSE(float16);
  ASSERT_EQ(missing_integral.size(), 1u);
  EXPECT_EQ(missing_integral[0], "sort (uint8, int8, int16, int32, int64)");
  EXPECT_TRUE(missing_wider.empty()) << missing_wider[0];
  // A backend that registers no mask claims every dtype; one that moves no
  // complex elements is named for them.
  auto* gather_kernel = index_gather_slot.kernel(kTestDevice);
  ASSERT_EQ(index_gather_slot.dtype_masks()[kCpu], kMaskAll);
  index_gather_slot.set(DeviceType::Test, gather_kernel);
  auto missing_unmasked = missing_kernels(DeviceType::Test);
  index_gather_slot.set(DeviceType::Test, gather_kernel, kMaskAll & ~kMaskComplex);
  auto missing_complex = missing_kernels(DeviceType::Test);
  index_gather_slot.set(DeviceType::Test, gather_kernel, kMaskAll);
  EXPECT_TRUE(missing_unmasked.empty()) << missing_unmasked[0];
  ASSERT_EQ(missing_complex.size(), 1u);
  EXPECT_EQ(missing_complex[0], std::string(index_gather_slot.name()) + " (complex64, complex128)");
  EXPECT_TRUE(missing_kernels(DeviceType::Test).empty());
}

// An empty slot is named alone, without dtypes.
TEST(DeviceKernelSlots, AnEmptySlotIsNamedAlone) {
  ModeFn* kernel = mode_slot.kernel(kTestDevice);
  const uint32_t cpu = mode_slot.dtype_masks()[kCpu];
  mode_slot.set(DeviceType::Test, nullptr);
  auto missing = missing_kernels(DeviceType::Test);
  mode_slot.set(DeviceType::Test, kernel, cpu);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "mode");
  EXPECT_TRUE(missing_kernels(DeviceType::Test).empty());
}

// The CPU's per-op masks say what its kernels compute: for each op, the
// dtypes whose public op runs on the CPU are the registered ones (where the
// op passes its input's dtype to the kernel unchanged).
TEST(DeviceKernelSlots, CpuPerOpDtypesAreWhatTheCpuComputes) {
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { sum(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Sum));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { prod(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Prod));
  // Integral and bool inputs reach the kernel with a floating dtype= (PyTorch's mean(x, dtype=)).
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) {
                   mean(x, x.is_floating_point() || x.is_complex() ? x.dtype() : kFloat64);
                 }),
                 cpu_op_dtypes(reduce_slot, ReduceOp::Mean));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { amax(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Amax));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { amin(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Amin));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { all(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::All));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { any(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Any));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { count_nonzero(x); }),
                 cpu_op_dtypes(reduce_slot, ReduceOp::CountNonzero));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { norm(x, 3); }), cpu_op_dtypes(reduce_slot, ReduceOp::NormP));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { norm(x, 0); }), cpu_op_dtypes(reduce_slot, ReduceOp::Norm0));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { norm(x, INFINITY); }),
                 cpu_op_dtypes(reduce_slot, ReduceOp::NormInf));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { norm(x, -INFINITY); }),
                 cpu_op_dtypes(reduce_slot, ReduceOp::NormNegInf));
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { var(x); }), cpu_op_dtypes(reduce_slot, ReduceOp::Var),
                         kMaskComplex);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { max(x, 1); }),
                 cpu_op_dtypes(arg_reduce_slot, ArgReduceOp::Max));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { min(x, 1); }),
                 cpu_op_dtypes(arg_reduce_slot, ArgReduceOp::Min));

  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { cumsum(x, 1, x.dtype()); }),
                 cpu_op_dtypes(scan_slot, ScanOp::Sum));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { cumprod(x, 1, x.dtype()); }),
                 cpu_op_dtypes(scan_slot, ScanOp::Prod));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { logcumsumexp(x, 1); }),
                 cpu_op_dtypes(scan_slot, ScanOp::LogSumExp));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { cummin(x, 1); }), cpu_op_dtypes(cum_min_max_slot, 0));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { cummax(x, 1); }), cpu_op_dtypes(cum_min_max_slot, 1));

  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { kthvalue(x, 2, 1); }),
                 cpu_op_dtypes(select_slot, SelectOp::Kth));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { median(x, 1); }),
                 cpu_op_dtypes(select_slot, SelectOp::Median));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { nanmedian(x, 1); }),
                 cpu_op_dtypes(select_slot, SelectOp::NanMedian));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { sort(x, 1); }), sort_slot.dtype_masks()[kCpu]);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { topk(x, 2, 1); }), topk_slot.dtype_masks()[kCpu]);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { mode(x, 1); }), mode_slot.dtype_masks()[kCpu]);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { unique(x); }), unique_slot.dtype_masks()[kCpu]);

  const Tensor index = tensor({0, 0, 1}, kInt64).reshape({1, 3});
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter(x, 0, index, x.narrow(0, 0, 1)); }),
                 cpu_op_dtypes(scatter_slot, ScatterOp::Assign));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter_add(x, 0, index, x.narrow(0, 0, 1)); }),
                 cpu_op_dtypes(scatter_slot, ScatterOp::Add));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter_reduce(x, 0, index, x.narrow(0, 0, 1), "prod"); }),
                 cpu_op_dtypes(scatter_slot, ScatterOp::Multiply));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter_reduce(x, 0, index, x.narrow(0, 0, 1), "amax"); }),
                 cpu_op_dtypes(scatter_slot, ScatterOp::Amax));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter_reduce(x, 0, index, x.narrow(0, 0, 1), "amin"); }),
                 cpu_op_dtypes(scatter_slot, ScatterOp::Amin));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { scatter(x, 0, index, 1); }),
                 cpu_op_dtypes(scatter_scalar_slot, ScatterOp::Assign));

  namespace F = nn::functional;
  using F::ActOp;
  const std::pair<ActOp, std::function<void(const Tensor&)>> activations[] = {
      {ActOp::LeakyRelu, [](const Tensor& x) { F::leaky_relu(x); }},
      {ActOp::Elu, [](const Tensor& x) { F::elu(x); }},
      {ActOp::Hardtanh, [](const Tensor& x) { F::hardtanh(x); }},
      {ActOp::Hardswish, [](const Tensor& x) { F::hardswish(x); }},
      {ActOp::Hardsigmoid, [](const Tensor& x) { F::hardsigmoid(x); }},
      {ActOp::Softsign, [](const Tensor& x) { F::softsign(x); }},
      {ActOp::Softshrink, [](const Tensor& x) { F::softshrink(x); }},
      {ActOp::Hardshrink, [](const Tensor& x) { F::hardshrink(x); }},
      {ActOp::Tanhshrink, [](const Tensor& x) { F::tanhshrink(x); }},
      {ActOp::Threshold, [](const Tensor& x) { F::threshold(x, 2, 0); }},
      {ActOp::Mish, [](const Tensor& x) { F::mish(x); }},
      {ActOp::LogSigmoid, [](const Tensor& x) { F::logsigmoid(x); }},
  };
  static_assert(std::size(activations) == std::size(F::kActOpNames));
  for (const auto& [op, f] : activations) {
    SCOPED_TRACE(F::kActOpNames[static_cast<int>(op)]);
    // Integral hardtanh is clamp, integral and bool threshold a where().
    const uint32_t elsewhere = op == ActOp::Hardtanh    ? kMaskIntegral & ~dtype_bit(kUInt8)
                               : op == ActOp::Threshold ? kMaskIntegral | kMaskBool
                                                        : 0u;
    EXPECT_MASK_EQ_BESIDES(dtypes_that_run(f), cpu_op_dtypes(F::activation_slot, op), elsewhere);
  }

  const std::pair<F::PoolMode, std::function<void(const Tensor&)>> pools[] = {
      {F::PoolMode::Max, [](const Tensor& x) { F::max_pool2d(x.reshape({1, 1, 2, 3}), 2); }},
      {F::PoolMode::Avg, [](const Tensor& x) { F::avg_pool2d(x.reshape({1, 1, 2, 3}), 2); }},
  };
  for (const auto& [mode, f] : pools) {
    SCOPED_TRACE(F::kPoolModeNames[static_cast<int>(mode)]);
    EXPECT_MASK_EQ(dtypes_that_run(f), cpu_op_dtypes(F::pool_forward_slot, mode));
    EXPECT_EQ(cpu_op_dtypes(F::pool_backward_slot, mode), cpu_op_dtypes(F::pool_forward_slot, mode));
  }

  // The softmax family (integral inputs are refused, complex too).
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { F::softmax(x, 1); }), cpu_op_dtypes(F::softmax_slot, 0));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { F::log_softmax(x, 1); }), cpu_op_dtypes(F::softmax_slot, 1));
  EXPECT_EQ(cpu_op_dtypes(F::softmax_backward_slot, 0), cpu_op_dtypes(F::softmax_slot, 0));
  EXPECT_EQ(cpu_op_dtypes(F::softmax_backward_slot, 1), cpu_op_dtypes(F::softmax_slot, 1));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { triu(x); }), cpu_op_dtypes(triangle_slot, 0));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { tril(x); }), cpu_op_dtypes(triangle_slot, 1));
  const Tensor rows = tensor({1, 0, 1}, kInt64);
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { index_put(x, {rows}, x.narrow(0, 0, 1).reshape({3})); }),
                 cpu_op_dtypes(index_put_slot, 0));
  EXPECT_MASK_EQ(
      dtypes_that_run([&](const Tensor& x) { index_put(x, {rows}, x.narrow(0, 0, 1).reshape({3}), true); }),
      cpu_op_dtypes(index_put_slot, 1));

  // Plain slots: the mask each CPU kernel registered.
  // A slot registered without a mask claims every plain dtype (kMaskAll);
  // quantized dtypes never reach a slot (Note [Quantized tensors]).
  const auto plain = [](const auto& slot) { return slot.dtype_masks()[kCpu]; };
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { gather(x, 0, index); }), plain(gather_slot));
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { index_select(x, 0, tensor({1, 0}, kInt64)); }),
                 plain(index_select_slot));
  const Tensor odd = arange(6, kInt64).reshape({2, 3}).remainder(2).eq(1);
  EXPECT_MASK_EQ(dtypes_that_run([&](const Tensor& x) { masked_select(x, odd); }),
                 plain(masked_select_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { nonzero(x); }), plain(nonzero_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { pow(x, 2); }), plain(pow_scalar_slot));
  // Ops that compute some dtypes without the kernel, or convert before it:
  // nan_to_num copies integral and bool tensors (nothing to replace), clamp
  // of bool by integer bounds computes in int64 (type promotion); the
  // elementwise special functions compute integral and bool inputs in the
  // default float dtype; the FFTs convert real inputs to their float (r2c) or
  // complex (c2c, c2r) dtype first.
  const uint32_t int_bool = kMaskIntegral | kMaskBool;
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { nan_to_num(x); }), plain(nan_to_num_slot), int_bool);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { clamp(x, Scalar(2), Scalar(4)); }),
                         plain(clamp_scalar_slot), kMaskBool);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { softplus(x); }), plain(softplus_slot), int_bool);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { mm(x, x.t()); }), plain(gemm_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { dot(x.flatten(), x.flatten()); }), plain(dot_slot));
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { special::logit(x); }), plain(logit_slot), int_bool);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { special::xlog1py(x, x); }), plain(xlog1py_slot),
                         int_bool);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { special::polygamma(1, x); }), plain(polygamma_slot),
                         int_bool);
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { special::round(x, 1); }), plain(round_decimals_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { roll(x, {1}, {1}); }), plain(remap_copy_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { x.clone().fill_(1); }), plain(fill_slot));
  EXPECT_MASK_EQ(dtypes_that_run([](const Tensor& x) { x.to(kFloat32); }), plain(copy_slot));
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { fft::rfft(x); }), plain(fft::detail::fft_r2c_slot),
                         int_bool | kMaskReduced);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { fft::fft(x); }), plain(fft::detail::fft_c2c_slot),
                         kMaskReal | kMaskBool);
  EXPECT_MASK_EQ_BESIDES(dtypes_that_run([](const Tensor& x) { fft::irfft(x); }), plain(fft::detail::fft_c2r_slot),
                         kMaskReal | kMaskBool);

  // Random fills write their output's dtype.
  const std::pair<RandomDist, std::function<void(const Tensor&)>> draws[] = {
      {RandomDist::Uniform, [](const Tensor& x) { x.clone().uniform_(); }},
      {RandomDist::Normal, [](const Tensor& x) { x.clone().normal_(); }},
      {RandomDist::Exponential, [](const Tensor& x) { x.clone().exponential_(); }},
      {RandomDist::Geometric, [](const Tensor& x) { x.clone().geometric_(0.5); }},
      {RandomDist::Bernoulli, [](const Tensor& x) { x.clone().bernoulli_(0.5); }},
      {RandomDist::BernoulliTensor, [](const Tensor& x) { x.clone().bernoulli_(full({2, 3}, 0.5, kFloat64)); }},
      {RandomDist::Integer, [](const Tensor& x) { x.clone().random_(0, 2); }},
  };
  static_assert(std::size(draws) == std::size(kRandomDistNames));
  for (const auto& [dist, f] : draws) {
    SCOPED_TRACE(kRandomDistNames[static_cast<int>(dist)]);
    // Complex uniform_ and normal_ fill the real view.
    const uint32_t elsewhere = dist == RandomDist::Uniform || dist == RandomDist::Normal ? kMaskComplex : 0u;
    EXPECT_MASK_EQ_BESIDES(dtypes_that_run(f), cpu_op_dtypes(random_slot, dist), elsewhere);
  }
}

// The test device's conv_forward kernel for the routing check below: the
// CPU's, recording which post-op each call asked for.
std::vector<nn::functional::ConvPostOp> g_post_ops;
void recording_conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y,
                            const nn::functional::ConvParams& p) {
  g_post_ops.push_back(p.activation);
  nn::functional::conv_forward_slot.kernel(kCPU)(x, w, b, y, p);
}

// conv2d_activation asks the backend per post-op: one whose kernel lacks the
// fused relu6 is named for it, and gets the plain convolution followed by
// relu6 as a tensor op, with the CPU's values.
TEST(DeviceKernelSlots, ConvPostOpsAreCheckedAndRoutedPerOp) {
  namespace F = nn::functional;
  expect_named(F::conv_forward_slot, F::ConvPostOp::ReLU6, dtype_bit(kFloat32), "conv_forward: conv_relu6 (float32)");
  Tensor x = arange(2 * 3 * 5 * 5, kFloat32).reshape({2, 3, 5, 5}).mul(0.05f).sub(1.5f);
  Tensor w = arange(4 * 3 * 3 * 3, kFloat32).reshape({4, 3, 3, 3}).mul(0.02f).sub(0.9f);
  const F::ConvFuncOptions opts{.padding = 1};
  const Tensor expected = F::conv2d_activation(x, w, opts, F::ConvActivation::ReLU6);

  F::ConvForwardFn* kernel = F::conv_forward_slot.kernel(kTestDevice);
  const uint32_t mask = F::conv_forward_slot.dtype_masks()[kCpu];
  const uint32_t* cpu = F::conv_forward_slot.op_dtypes()[kCpu];
  const uint32_t* saved = F::conv_forward_slot.op_dtypes()[kTest];
  std::vector<uint32_t> no_relu6(cpu, cpu + F::conv_forward_slot.num_ops());
  no_relu6[static_cast<size_t>(F::ConvPostOp::ReLU6)] = 0;
  F::conv_forward_slot.set(DeviceType::Test, &recording_conv_forward, mask);
  F::conv_forward_slot.set_op_dtypes(DeviceType::Test, no_relu6.data());
  g_post_ops.clear();
  Tensor unfused, fused;
  try {
    unfused = F::conv2d_activation(x.to(kTestDevice), w.to(kTestDevice), opts, F::ConvActivation::ReLU6).cpu();
    fused = F::conv2d_activation(x.to(kTestDevice), w.to(kTestDevice), opts, F::ConvActivation::Hardswish).cpu();
  } catch (...) {
  }
  const std::vector<F::ConvPostOp> post_ops = g_post_ops;
  F::conv_forward_slot.set(DeviceType::Test, kernel, mask);
  F::conv_forward_slot.set_op_dtypes(DeviceType::Test, saved);
  ASSERT_TRUE(unfused.defined() && fused.defined());
  EXPECT_EQ(post_ops, (std::vector<F::ConvPostOp>{F::ConvPostOp::None, F::ConvPostOp::Hardswish}));
  EXPECT_TRUE(allclose(unfused, expected, 1e-6, 1e-6));
  EXPECT_TRUE(allclose(fused, F::conv2d_activation(x, w, opts, F::ConvActivation::Hardswish), 1e-6, 1e-6));
  EXPECT_TRUE(missing_kernels(DeviceType::Test).empty());
}

#undef EXPECT_MASK_EQ_BESIDES
#undef EXPECT_MASK_EQ

}  // namespace kernel_slot_coverage_test
