// Strided complex dot/vdot (issue 18, item 9). OpenBLAS 0.3.21's ?dotu/?dotc
// kernels read one element past the end of an operand whose increment is not
// 1 (cblas_cdotu_sub(4, x, 1, y, 2) faults when y ends at a page boundary).
// Ember must never hand them such operands: here each operand ends exactly
// at a PROT_NONE page, so an over-read is a segfault instead of silent
// garbage, and the values are checked against a float64 loop.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include <ember/ember.h>

using namespace ember;

namespace dot_strided_complex_test {

// `bytes` of readable memory that end where an inaccessible page begins.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    pages_ = (bytes + page - 1) / page + 1;
    base_ = static_cast<char*>(
        mmap(nullptr, pages_ * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    guard_ = base_ + (pages_ - 1) * page;
    EXPECT_EQ(mprotect(guard_, page, PROT_NONE), 0);
    data_ = guard_ - bytes;
    std::memset(data_, 0, bytes);
  }
  ~GuardedBuffer() { munmap(base_, pages_ * static_cast<size_t>(sysconf(_SC_PAGESIZE))); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  void* data() const { return data_; }

 private:
  char* base_ = nullptr;
  char* guard_ = nullptr;
  char* data_ = nullptr;
  size_t pages_ = 0;
};

// An n-element complex vector with stride `stride`, its last element the last
// bytes before a guard page, filled with distinct values.
template <class C>
Tensor guarded_vector(GuardedBuffer& buf, int64_t n, int64_t stride, double seed) {
  C* p = static_cast<C*>(buf.data());
  using R = typename C::value_type;
  for (int64_t i = 0; i < n; ++i) p[i * stride] = C(static_cast<R>(seed + 0.5 * i), static_cast<R>(1 - 0.25 * i));
  return from_blob(p, {n}, {stride}, TensorOptions(dtype_of_v<C>));
}

template <class C>
complex128 reference_dot(const Tensor& a, const Tensor& b, bool conjugate_a) {
  complex128 s = 0;
  for (int64_t i = 0; i < a.size(0); ++i) {
    complex128 x = a[i].item<complex128>(), y = b[i].item<complex128>();
    s += (conjugate_a ? std::conj(x) : x) * y;
  }
  return s;
}

template <class C>
void check_strides(int64_t n, int64_t sa, int64_t sb) {
  SCOPED_TRACE(::testing::Message() << "n " << n << " strides " << sa << ", " << sb << " " << dtype_of_v<C>);
  GuardedBuffer ba(((n - 1) * sa + 1) * sizeof(C)), bb(((n - 1) * sb + 1) * sizeof(C));
  Tensor a = guarded_vector<C>(ba, n, sa, 0.5), b = guarded_vector<C>(bb, n, sb, -1.25);
  const double tol = std::is_same_v<C, complex64> ? 1e-5 : 1e-13;
  for (bool conjugate : {false, true}) {
    const complex128 got = (conjugate ? vdot(a, b) : dot(a, b)).template item<complex128>();
    const complex128 want = reference_dot<C>(a, b, conjugate);
    EXPECT_NEAR(got.real(), want.real(), tol * (1 + std::abs(want)));
    EXPECT_NEAR(got.imag(), want.imag(), tol * (1 + std::abs(want)));
  }
  // Through a conjugate view as well (the kernel then picks dotc).
  const complex128 got = dot(a.conj(), b).template item<complex128>();
  const complex128 want = reference_dot<C>(a, b, true);
  EXPECT_NEAR(got.real(), want.real(), tol * (1 + std::abs(want)));
}

TEST(DotStridedComplex, NeverReadsPastTheOperands) {
  // The shapes that fault inside OpenBLAS 0.3.21 when passed with their strides.
  const std::vector<std::array<int64_t, 3>> shapes = {{4, 1, 2}, {4, 2, 1}, {3, 1, 2}, {5, 2, 2}, {1, 1, 2},
                                                      {1, 5, 5}, {9, 3, 1}, {16, 1, 3}, {8, 1, 1}, {7, 1, 1}};
  for (const auto& [n, sa, sb] : shapes) {
    check_strides<complex64>(n, sa, sb);
    check_strides<complex128>(n, sa, sb);
  }
}

TEST(DotStridedComplex, RealStridedDotStaysExact) {
  // Real ?dot reads strided operands correctly: Ember still hands them to BLAS.
  GuardedBuffer buf(7 * sizeof(double));
  double* p = static_cast<double*>(buf.data());
  for (int i = 0; i < 7; ++i) p[i] = i + 1;
  Tensor a = from_blob(p, {4}, {2}, TensorOptions(kFloat64));  // 1, 3, 5, 7
  EXPECT_EQ(dot(a, a).item<double>(), 1 + 9 + 25 + 49);
}

}  // namespace dot_strided_complex_test
