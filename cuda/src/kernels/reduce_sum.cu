// CUDA reductions that accumulate: sum, prod, mean, the p-norms, var and std.
// Accumulation as PyTorch's CUDA kernels: float for float16, bfloat16 and
// float32, double for float64, int64 (wrapping) for integers.
#include <limits>

#include "reduce.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T> struct acc_type { using type = float; };
template <> struct acc_type<double> { using type = double; };
template <> struct acc_type<bool> { using type = int64_t; };
template <> struct acc_type<uint8_t> { using type = int64_t; };
template <> struct acc_type<int8_t> { using type = int64_t; };
template <> struct acc_type<int16_t> { using type = int64_t; };
template <> struct acc_type<int32_t> { using type = int64_t; };
template <> struct acc_type<int64_t> { using type = int64_t; };
template <class T> using acc_t = typename acc_type<T>::type;

// Sum (scale 1), mean (scale 1 / cols) and prod.
template <class T>
struct SumProdOps {
  using acc_t = kernels::acc_t<T>;
  bool product;
  acc_t scale;
  bool scaled;
  T* out;
  __device__ acc_t identity() const { return product ? acc_t(1) : acc_t(0); }
  __device__ acc_t reduce(acc_t a, T v, int64_t) const {
    const acc_t x = convert<acc_t>(v);
    return product ? wrapping_mul(a, x) : wrapping_add(a, x);
  }
  __device__ acc_t combine(acc_t a, acc_t b) const { return product ? wrapping_mul(a, b) : wrapping_add(a, b); }
  __device__ void store(acc_t a, int64_t row) const { out[row] = convert<T>(scaled ? a * scale : a); }
};

enum class NormKind : uint8_t { One, Two, P, Zero, Inf, NegInf };

template <class T>
struct NormOps {
  using acc_t = kernels::acc_t<T>;
  NormKind kind;
  acc_t p;
  T* out;
  __device__ acc_t identity() const {
    return kind == NormKind::NegInf ? acc_t(INFINITY) : acc_t(0);
  }
  __device__ acc_t reduce(acc_t a, T v, int64_t) const {
    const acc_t x = fabs(convert<acc_t>(v));
    switch (kind) {
      case NormKind::One: return a + x;
      case NormKind::Two: return a + x * x;
      case NormKind::P: return a + pow(x, p);
      case NormKind::Zero: return a + (x != acc_t(0) ? acc_t(1) : acc_t(0));
      case NormKind::Inf: return max_nan(a, x);
      case NormKind::NegInf: return min_nan(a, x);
    }
    return a;
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (kind == NormKind::Inf) return max_nan(a, b);
    if (kind == NormKind::NegInf) return min_nan(a, b);
    return a + b;
  }
  __device__ void store(acc_t a, int64_t row) const {
    if (kind == NormKind::Two) a = sqrt(a);
    else if (kind == NormKind::P) a = pow(a, acc_t(1) / p);
    out[row] = convert<T>(a);
  }
};

// Welford's running mean and sum of squared deviations, combined pairwise
// (Chan et al.): one pass, stable.
template <class A>
struct Welford {
  A mean, m2;
  int64_t n;
};

template <class T>
struct VarOps {
  using A = kernels::acc_t<T>;
  using acc_t = Welford<A>;
  int64_t correction;
  bool take_sqrt;
  T* out;
  __device__ acc_t identity() const { return {A(0), A(0), 0}; }
  __device__ acc_t reduce(acc_t a, T v, int64_t) const {
    const A x = convert<A>(v);
    const int64_t n = a.n + 1;
    const A delta = x - a.mean;
    const A mean = a.mean + delta / static_cast<A>(n);
    return {mean, a.m2 + delta * (x - mean), n};
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A delta = b.mean - a.mean;
    const A nb_over_n = static_cast<A>(b.n) / static_cast<A>(n);
    return {a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * static_cast<A>(a.n) * nb_over_n, n};
  }
  __device__ void store(acc_t a, int64_t row) const {
    // No degrees of freedom left: m2 / 0, inf or nan, as PyTorch.
    const A dof = a.n > correction ? static_cast<A>(a.n - correction) : A(0);
    const A var = a.m2 / dof;
    out[row] = convert<T>(take_sqrt ? sqrt(var) : var);
  }
};

}  // namespace

void reduce_arithmetic(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  const char* name = kReduceOpNames[static_cast<int>(op)];
  EMBER_CHECK(in.dtype() == out.dtype(), name, ": CUDA reduction of ", in.dtype(), " into ", out.dtype());
  const RowLayout r = to_rows(in, mask);
  dispatch_real_bool(in.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    Tensor buffer = output_buffer(out, in.dtype());
    T* o = static_cast<T*>(buffer.data_ptr());
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Prod:
      case ReduceOp::Mean:
        run_reduction<T>(r, SumProdOps<T>{op == ReduceOp::Prod, static_cast<A>(1.0 / static_cast<double>(r.num_cols)),
                                          op == ReduceOp::Mean, o},
                         name);
        break;
      case ReduceOp::NormP:
      case ReduceOp::Norm0:
      case ReduceOp::NormInf:
      case ReduceOp::NormNegInf:
      case ReduceOp::Var:
        if constexpr (std::is_floating_point_v<A>) {
          if (op == ReduceOp::Var) {
            run_reduction<T>(r, VarOps<T>{params.correction, params.take_sqrt, o}, name);
          } else {
            NormKind kind = op == ReduceOp::Norm0 ? NormKind::Zero
                            : op == ReduceOp::NormInf ? NormKind::Inf
                            : op == ReduceOp::NormNegInf ? NormKind::NegInf
                            : params.p == 1 ? NormKind::One
                            : params.p == 2 ? NormKind::Two
                                            : NormKind::P;
            run_reduction<T>(r, NormOps<T>{kind, static_cast<A>(params.p), o}, name);
          }
        } else {
          EMBER_FAIL(name, ": no CUDA kernel for ", in.dtype());
        }
        break;
      default: EMBER_FAIL(name, ": not an arithmetic reduction");
    }
    finish_output(out, buffer);
  });
}

}  // namespace ember::cuda::kernels
