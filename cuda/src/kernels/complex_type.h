#pragma once
// The device-side complex value (the layout of std::complex), apart from
// common.cuh so that host compilers can include complex_math.cuh
// (tests/cuda/test_complex_math.cpp checks it against std::complex).

namespace ember::cuda::kernels {

template <class R>
struct alignas(2 * sizeof(R)) Complex {
  R re, im;
};

}  // namespace ember::cuda::kernels
