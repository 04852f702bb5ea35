// CPU kernels of the reductions, all through the engine in kernels/cpu/reduce_engine.h. The
// bodies are typed on the input dtype and compiled per dtype group
// (reduce_kernels_impl.h, reduce_kernels_<group>.cpp; Note [Kernels split by
// dtype group] in dtype_groups.h); this file dispatches and registers.
#include "kernels/cpu/reduce_kernels_typed.h"

namespace ember {
namespace {

void reduce_kernel(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  const bool casts_elements = op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Prod;
  if (casts_elements && (kMaskNumber & dtype_bit(out.dtype())) == 0)
    detail::throw_unsupported_dtype(op == ReduceOp::Prod ? "prod" : "sum", out.dtype());
  // Every dtype has an instantiation; the op's own dtype checks are inside.
  dispatch<kMaskAll>(in.dtype(), "reduce", [&](auto tag) {
    using T = decltype(tag);
    if (casts_elements && !cpu_kernels::reduces_directly_into<T>(out.dtype())) {
      // Note [Reductions into another dtype] (reduce_kernels_typed.h).
      reduce_kernel(in.to(out.dtype()), out, mask, op, params);
      return;
    }
    cpu_kernels::reduce_kernel_for(tag, in, out, mask, op, params);
  });
}

void arg_reduce_kernel(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op) {
  dispatch<kMaskAll>(in.dtype(), kArgReduceOpNames[static_cast<int>(op)], [&](auto tag) {
    cpu_kernels::arg_reduce_kernel_for(tag, in, values, indices, mask, op);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce_slot, CPU, reduce_kernel);
EMBER_REGISTER_KERNEL(arg_reduce_slot, CPU, arg_reduce_kernel);

// The input dtypes each op computes (reduce_kernel_body's dispatch and
// refusals; the output dtype is the op file's choice). Mean takes integral and
// bool inputs too: mean(x, dtype=float32) reduces them into a floating output.
constexpr uint32_t kReduceOpDTypes[] = {
    kMaskAll,                     // sum
    kMaskAll,                     // prod
    kMaskAll,                     // mean
    kMaskReal | kMaskBool,        // amax
    kMaskReal | kMaskBool,        // amin
    kMaskAll,                     // all
    kMaskAll,                     // any
    kMaskAll,                     // count_nonzero
    kMaskFloating | kMaskComplex, // norm_p
    kMaskFloating | kMaskComplex, // norm_0
    kMaskFloating | kMaskComplex, // norm_inf
    kMaskFloating | kMaskComplex, // norm_neg_inf
    kMaskFloating,                // var (and std)
};
static_assert(std::size(kReduceOpDTypes) == std::size(kReduceOpNames));
static const bool reduce_op_dtypes_registered = reduce_slot.set_op_dtypes(DeviceType::CPU, kReduceOpDTypes);
// Max and min compare: every real dtype and bool (arg_reduce_kernel_body).
constexpr uint32_t kArgReduceOpDTypes[] = {kMaskReal | kMaskBool, kMaskReal | kMaskBool};
static_assert(std::size(kArgReduceOpDTypes) == std::size(kArgReduceOpNames));
static const bool arg_reduce_op_dtypes_registered =
    arg_reduce_slot.set_op_dtypes(DeviceType::CPU, kArgReduceOpDTypes);

}  // namespace ember
