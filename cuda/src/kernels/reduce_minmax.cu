// CUDA reductions that compare or test: amax, amin, all, any, count_nonzero,
// and max/min with their indices (arg_reduce_slot); and the reduce_slot
// entry, which sends the accumulating ops to reduce_sum.cu.
#include <limits>

#include "complex_kernels.h"
#include "kernels/slots/elementwise_info.h"
#include "reduce.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

template <class T>
struct MinMaxOps {
  using acc_t = compute_t<T>;
  bool is_max;
  T* out;
  __device__ acc_t identity() const {
    if constexpr (std::is_same_v<acc_t, bool>) return !is_max;
    else if constexpr (std::is_floating_point_v<acc_t>)
      return is_max ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return is_max ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  __device__ acc_t reduce(acc_t a, T v, int64_t) const { return combine(a, convert<acc_t>(v)); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return is_max ? max_nan(a, b) : min_nan(a, b); }
  __device__ void store(acc_t a, int64_t row) const { out[row] = convert<T>(a); }
};

enum class TestKind : uint8_t { All, Any, CountNonzero };

template <class T>
struct TestOps {
  using acc_t = int64_t;
  TestKind kind;
  bool* bool_out;
  int64_t* count_out;
  __device__ acc_t identity() const { return kind == TestKind::All ? 1 : 0; }
  __device__ acc_t reduce(acc_t a, T v, int64_t) const {
    const bool nz = convert<bool>(v);
    switch (kind) {
      case TestKind::All: return a && nz;
      case TestKind::Any: return a || nz;
      case TestKind::CountNonzero: return a + nz;
    }
    return a;
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    switch (kind) {
      case TestKind::All: return a && b;
      case TestKind::Any: return a || b;
      case TestKind::CountNonzero: return a + b;
    }
    return a;
  }
  __device__ void store(acc_t a, int64_t row) const {
    if (kind == TestKind::CountNonzero) count_out[row] = a;
    else bool_out[row] = a != 0;
  }
};

// A value and its column; index -1 stands for no element yet.
template <class C>
struct ValueIndex {
  C value;
  int64_t index;
};

// Max/min with the index of the first maximum (NaN counts as the largest
// and the smallest: the first NaN wins). Ties and NaNs pick the lower index,
// which makes the combination order irrelevant.
template <class T>
struct ArgOps {
  using C = compute_t<T>;
  using acc_t = ValueIndex<C>;
  bool is_max;
  T* values;
  int64_t* indices;
  __device__ acc_t identity() const { return {C(0), -1}; }
  __device__ acc_t reduce(acc_t a, T v, int64_t col) const { return combine(a, acc_t{convert<C>(v), col}); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value != b.value) return (is_max ? a.value > b.value : a.value < b.value) ? a : b;
    return a.index < b.index ? a : b;
  }
  __device__ void store(acc_t a, int64_t row) const {
    values[row] = convert<T>(a.value);
    indices[row] = a.index;
  }
};

// Input dtypes per op: the CPU's (complex sums, products and norms in reduce_complex.cu).
constexpr uint32_t kCudaReduceOpDTypes[] = {
    kMaskAll,                      // sum
    kMaskAll,                      // prod
    kMaskAll,                      // mean
    kMaskReal | kMaskBool,         // amax
    kMaskReal | kMaskBool,         // amin
    kMaskAll,                      // all
    kMaskAll,                      // any
    kMaskAll,                      // count_nonzero
    kMaskFloating | kMaskComplex,  // norm_p
    kMaskFloating | kMaskComplex,  // norm_0
    kMaskFloating | kMaskComplex,  // norm_inf
    kMaskFloating | kMaskComplex,  // norm_neg_inf
    kMaskFloating,                 // var (and std)
};
static_assert(std::size(kCudaReduceOpDTypes) == std::size(kReduceOpNames));
constexpr uint32_t kCudaArgReduceOpDTypes[] = {kMaskReal | kMaskBool, kMaskReal | kMaskBool};

void reduce_kernel(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  const char* name = kReduceOpNames[static_cast<int>(op)];
  EMBER_CHECK((kCudaReduceOpDTypes[static_cast<int>(op)] & dtype_bit(in.dtype())) != 0, name,
              ": no CUDA kernel for ", in.dtype());
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean: {
      // Into another dtype (sum of int8 into int64, mean(x, dtype=float32)): cast first, as the CPU kernel.
      const Tensor src = in.dtype() != out.dtype() ? in.to(out.dtype()) : in;
      if (is_complex(src.dtype())) return reduce_complex(src, out, mask, op, params);
      return reduce_arithmetic(src, out, mask, op, params);
    }
    case ReduceOp::NormP:
    case ReduceOp::Norm0:
    case ReduceOp::NormInf:
    case ReduceOp::NormNegInf:
      if (is_complex(in.dtype())) return reduce_complex(in, out, mask, op, params);
      return reduce_arithmetic(in, out, mask, op, params);
    case ReduceOp::Var:
      return reduce_arithmetic(in, out, mask, op, params);
    case ReduceOp::Amax:
    case ReduceOp::Amin: {
      const RowLayout r = to_rows(in, mask);
      dispatch_real_bool(in.dtype(), name, [&](auto tag) {
        using T = decltype(tag);
        Tensor buffer = output_buffer(out, in.dtype());
        run_reduction<T>(r, MinMaxOps<T>{op == ReduceOp::Amax, static_cast<T*>(buffer.data_ptr())}, name);
        finish_output(out, buffer);
      });
      return;
    }
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: {
      const RowLayout r = to_rows(in, mask);
      const TestKind kind = op == ReduceOp::All ? TestKind::All : op == ReduceOp::Any ? TestKind::Any : TestKind::CountNonzero;
      const DType natural = kind == TestKind::CountNonzero ? kInt64 : kBool;
      Tensor buffer = output_buffer(out, natural);
      dispatch_all(in.dtype(), [&](auto tag) {  // complex: non-zero when either part is
        using T = decltype(tag);
        run_reduction<T>(r,
                         TestOps<T>{kind, natural == kBool ? static_cast<bool*>(buffer.data_ptr()) : nullptr,
                                    natural == kInt64 ? static_cast<int64_t*>(buffer.data_ptr()) : nullptr},
                         name);
      });
      finish_output(out, buffer);
      return;
    }
  }
}

void arg_reduce_kernel(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op) {
  const char* name = kArgReduceOpNames[static_cast<int>(op)];
  EMBER_CHECK((kCudaArgReduceOpDTypes[static_cast<int>(op)] & dtype_bit(in.dtype())) != 0, name,
              ": no CUDA kernel for ", in.dtype());
  const RowLayout r = to_rows(in, mask);
  dispatch_real_bool(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    Tensor value_buffer = values.defined() ? output_buffer(values, in.dtype())
                                           : empty({r.num_rows}, TensorOptions(in.dtype()).device(in.device()));
    Tensor index_buffer = output_buffer(indices, kInt64);
    run_reduction<T>(r,
                     ArgOps<T>{op == ArgReduceOp::Max, static_cast<T*>(value_buffer.data_ptr()),
                               static_cast<int64_t*>(index_buffer.data_ptr())},
                     name);
    if (values.defined()) finish_output(values, value_buffer);
    finish_output(indices, index_buffer);
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(reduce_slot, reduce_kernel, kMaskAll);
EMBER_REGISTER_CUDA_OP_DTYPES(reduce_slot, kCudaReduceOpDTypes);
EMBER_REGISTER_CUDA_KERNEL(arg_reduce_slot, arg_reduce_kernel, kMaskReal | kMaskBool);
EMBER_REGISTER_CUDA_OP_DTYPES(arg_reduce_slot, kCudaArgReduceOpDTypes);

}  // namespace ember::cuda::kernels
