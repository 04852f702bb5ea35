// CUDA reductions of complex64 and complex128 inputs that accumulate: sum,
// prod and mean (complex results) and the p-norms (real results: |z| is
// hypot's, as the CPU's std::abs). reduce_minmax.cu's reduce_slot entry sends
// them here; all, any and count_nonzero of complex inputs run its test
// reductions. Sums and products accumulate in complex128 for both dtypes, as
// the CPU kernels (PyTorch's CUDA kernels keep complex64 in complex64: the
// wider accumulator only makes the results closer to the CPU's); norms
// accumulate in the real type, as reduce_sum.cu's norms of float32/float64.
#include "complex_math.cuh"
#include "complex_kernels.h"
#include "reduce.cuh"

namespace ember::cuda::kernels {
namespace {

using namespace cmath;

// Sum (scale 1), mean (scale 1 / cols) and prod, accumulated in Complex<double>.
template <class R>
struct ComplexSumProdOps {
  using acc_t = Complex<double>;
  bool product;
  double scale;
  bool scaled;
  Complex<R>* out;
  __device__ acc_t identity() const { return product ? acc_t{1.0, 0.0} : acc_t{0.0, 0.0}; }
  __device__ acc_t reduce(acc_t a, Complex<R> v, int64_t) const {
    return combine(a, acc_t{static_cast<double>(v.re), static_cast<double>(v.im)});
  }
  __device__ acc_t combine(acc_t a, acc_t b) const { return product ? c_mul(a, b) : c_add(a, b); }
  __device__ void store(acc_t a, int64_t row) const {
    if (scaled) a = {a.re * scale, a.im * scale};
    out[row] = {static_cast<R>(a.re), static_cast<R>(a.im)};
  }
};

enum class ComplexNormKind : uint8_t { One, Two, P, Zero, Inf, NegInf };

template <class R>
struct ComplexNormOps {
  using acc_t = R;
  ComplexNormKind kind;
  R p;
  R* out;
  __device__ acc_t identity() const { return kind == ComplexNormKind::NegInf ? R(INFINITY) : R(0); }
  __device__ acc_t reduce(acc_t a, Complex<R> v, int64_t) const {
    const R x = c_abs(v);
    switch (kind) {
      case ComplexNormKind::One: return a + x;
      case ComplexNormKind::Two: return a + x * x;
      case ComplexNormKind::P: return a + pow(x, p);
      case ComplexNormKind::Zero: return a + (x != R(0) ? R(1) : R(0));
      case ComplexNormKind::Inf: return max_nan(a, x);
      case ComplexNormKind::NegInf: return min_nan(a, x);
    }
    return a;
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (kind == ComplexNormKind::Inf) return max_nan(a, b);
    if (kind == ComplexNormKind::NegInf) return min_nan(a, b);
    return a + b;
  }
  __device__ void store(acc_t a, int64_t row) const {
    if (kind == ComplexNormKind::Two) a = sqrt(a);
    else if (kind == ComplexNormKind::P) a = pow(a, R(1) / p);
    out[row] = a;
  }
};

template <class R>
void reduce_complex_typed(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  const char* name = kReduceOpNames[static_cast<int>(op)];
  const RowLayout r = to_rows(in, mask);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean: {
      EMBER_CHECK(out.dtype() == in.dtype(), name, ": CUDA reduction of ", in.dtype(), " into ", out.dtype());
      Tensor buffer = output_buffer(out, in.dtype());
      run_reduction<Complex<R>>(r,
                                ComplexSumProdOps<R>{op == ReduceOp::Prod, 1.0 / static_cast<double>(r.num_cols),
                                                     op == ReduceOp::Mean, static_cast<Complex<R>*>(buffer.data_ptr())},
                                name);
      finish_output(out, buffer);
      return;
    }
    case ReduceOp::NormP:
    case ReduceOp::Norm0:
    case ReduceOp::NormInf:
    case ReduceOp::NormNegInf: {
      const DType real_dt = std::is_same_v<R, float> ? kFloat32 : kFloat64;
      // The norm of a complex64 input into float64 (norm(z, dtype=...)): computed in R, then cast.
      Tensor buffer = output_buffer(out, real_dt);
      const ComplexNormKind kind = op == ReduceOp::Norm0        ? ComplexNormKind::Zero
                                   : op == ReduceOp::NormInf    ? ComplexNormKind::Inf
                                   : op == ReduceOp::NormNegInf ? ComplexNormKind::NegInf
                                   : params.p == 1              ? ComplexNormKind::One
                                   : params.p == 2              ? ComplexNormKind::Two
                                                                : ComplexNormKind::P;
      run_reduction<Complex<R>>(
          r, ComplexNormOps<R>{kind, static_cast<R>(params.p), static_cast<R*>(buffer.data_ptr())}, name);
      finish_output(out, buffer);
      return;
    }
    default: break;
  }
  EMBER_FAIL(name, ": no CUDA kernel for ", in.dtype());
}

}  // namespace

void reduce_complex(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  if (in.dtype() == kComplex64) reduce_complex_typed<float>(in, out, mask, op, params);
  else if (in.dtype() == kComplex128) reduce_complex_typed<double>(in, out, mask, op, params);
  else EMBER_FAIL(kReduceOpNames[static_cast<int>(op)], ": not a complex input: ", in.dtype());
}

}  // namespace ember::cuda::kernels
