// CUDA kernel of ember::special's Bessel functions (special_bessel_slot):
// i0, i0e, i1, i1e, bessel_j0, bessel_j1 over the floating dtypes, each
// element widened to double, evaluated by special_bessel_math.cuh (the CPU's
// algorithms) and rounded once to its dtype, as the CPU kernel.
#include "common.cuh"
#include "kernels/slots/special_bessel_kernels.h"
#include "register.h"
#include "special_bessel_math.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
struct BesselOp {
  SpecialBesselOp op;
  __device__ T operator()(T a) const {
    const double x = convert<double>(a);
    double r;
    switch (op) {
      case SpecialBesselOp::I0: r = bessel::i0(x); break;
      case SpecialBesselOp::I0e: r = bessel::i0e(x); break;
      case SpecialBesselOp::I1: r = bessel::i1(x); break;
      case SpecialBesselOp::I1e: r = bessel::i1e(x); break;
      case SpecialBesselOp::J0: r = bessel::j0(x); break;
      default: r = bessel::j1(x); break;
    }
    return convert<T>(r);
  }
};

void special_bessel_kernel(TensorIterator& iter, SpecialBesselOp op) {
  const DType dt = iter.common_dtype();
  EMBER_CHECK(is_floating_point(dt), iter.op_name(), ": no CUDA kernel for ", dt);
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<compute_t<T>>) elementwise_launch<T, T>(iter, BesselOp<T>{op});
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(special_bessel_slot, special_bessel_kernel, kMaskFloating);

}  // namespace ember::cuda::kernels
