// complex64 and complex128 on CUDA against the CPU (whose complex math is
// GCC's and glibc's, checked against PyTorch in tests/core): every unary,
// binary and ternary op the CPU computes for complex, pow with a number,
// the reductions, products and dot/vdot, on contiguous, strided, broadcast
// and conjugate/negative-view operands, and the special values of C99's
// Annex G (signed zeros on the branch cuts, infinities, NaN).
#include <cmath>
#include <complex>
#include <functional>

#include "cuda/cuda_test.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kComplexDTypes[] = {kComplex64, kComplex128};

double ctol(DType dt) { return dt == kComplex64 ? 2e-5 : 1e-12; }
// The special values include subnormal parts, which carry few digits: an
// absolute tolerance near the bottom of the range (signed zeros and the
// non-finite parts are still compared exactly).
double grid_atol(DType dt) { return dt == kComplex64 ? 1e-37 : 1e-300; }

// Random complex values: parts normal with standard deviation `scale`.
Tensor crandn(IntArrayRef sizes, DType dt, double scale = 1.0) {
  const DType real = dt == kComplex64 ? kFloat32 : kFloat64;
  return complex(randn(sizes, TensorOptions(real)) * scale, randn(sizes, TensorOptions(real)) * scale);
}

// Special values: every pair of {0, -0, +-0.5, +-1, +-2, +-inf, nan} and a
// huge and a tiny magnitude of dt.
Tensor special_grid(DType dt) {
  const double huge = dt == kComplex64 ? 1e37 : 1e307, tiny = dt == kComplex64 ? 1e-40 : 1e-310;
  const std::vector<double> v = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, INFINITY, -INFINITY, NAN, huge, -tiny};
  std::vector<double> re, im;
  for (double a : v)
    for (double b : v) {
      re.push_back(a);
      im.push_back(b);
    }
  const DType real = dt == kComplex64 ? kFloat32 : kFloat64;
  return complex(tensor(re, TensorOptions(kFloat64)).to(real), tensor(im, TensorOptions(kFloat64)).to(real));
}

// Whether g matches c: finite values within atol + rtol * |c| (the modulus:
// a part that cancels is compared with the size of the whole); otherwise part
// by part, NaN matching NaN and infinities exactly. With `signed_zeros`, a
// part that is zero on the CPU must be zero of the same sign on the GPU
// (the side of a branch cut).
bool part_matches(double g, double c, double scale, double rtol, double atol, bool signed_zeros) {
  if (std::isnan(c)) return std::isnan(g);
  if (std::isinf(c) || std::isinf(g)) return g == c;
  if (signed_zeros && c == 0 && g == 0) return std::signbit(g) == std::signbit(c);
  return std::abs(g - c) <= atol + rtol * scale;
}

void expect_complex_close(const Tensor& gpu, const Tensor& cpu, double rtol, double atol, const std::string& what,
                          bool signed_zeros = false) {
  ASSERT_TRUE(gpu.device().is_cuda()) << what;
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(gpu.sizes().vec(), cpu.sizes().vec()) << what;
  if (!is_complex(cpu.dtype())) {
    if (cpu.dtype() == kBool || !is_floating_point(cpu.dtype())) return expect_matches_cpu(gpu, cpu, 0, 0, what);
    return expect_matches_cpu(gpu, cpu, rtol, atol, what);
  }
  const Tensor g = view_as_real(gpu.cpu().to(kComplex128).contiguous()).contiguous();
  const Tensor c = view_as_real(cpu.to(kComplex128).contiguous()).contiguous();
  const double* pg = g.data_ptr<double>();
  const double* pc = c.data_ptr<double>();
  int reported = 0;
  for (int64_t i = 0; i < cpu.numel() && reported < 5; ++i) {
    const double gr = pg[2 * i], gi = pg[2 * i + 1], cr = pc[2 * i], ci = pc[2 * i + 1];
    const double scale = std::isfinite(cr) && std::isfinite(ci) ? std::hypot(cr, ci) : 0.0;
    const bool ok = part_matches(gr, cr, scale, rtol, atol, signed_zeros) &&
                    part_matches(gi, ci, scale, rtol, atol, signed_zeros);
    if (!ok) {
      ADD_FAILURE() << what << ": element " << i << " is (" << gr << ", " << gi << ") on the GPU, (" << cr << ", "
                    << ci << ") on the CPU";
      ++reported;
    }
  }
}

struct ComplexUnaryCase {
  const char* name;
  Tensor (*f)(const Tensor&);
  double scale;        // of the random inputs
  bool signed_zeros;   // the op's special values keep the CPU's signed zeros
};

const ComplexUnaryCase kUnaryCases[] = {
    {"abs", abs, 3, true},         {"neg", neg, 3, true},          {"sgn", sgn, 3, false},
    {"exp", exp, 3, true},         {"exp2", exp2, 3, false},       {"expm1", expm1, 3, false},
    {"log", log, 3, true},         {"log2", log2, 3, true},        {"log10", log10, 3, true},
    {"log1p", log1p, 3, false},    {"sqrt", sqrt, 3, true},        {"rsqrt", rsqrt, 3, false},
    {"square", square, 3, false},  {"reciprocal", reciprocal, 3, false},
    {"sin", sin, 3, true},         {"cos", cos, 3, true},          {"tan", tan, 3, true},
    {"asin", asin, 3, true},       {"acos", acos, 3, true},        {"atan", atan, 3, true},
    {"sinh", sinh, 3, true},       {"cosh", cosh, 3, true},        {"tanh", tanh, 3, true},
    {"asinh", asinh, 3, true},     {"acosh", acosh, 3, true},      {"atanh", atanh, 3, true},
    {"sigmoid", sigmoid, 3, false}, {"silu", silu, 3, false},      {"angle", angle, 3, true},
    {"isnan", isnan, 3, false},    {"isinf", isinf, 3, false},     {"isfinite", isfinite, 3, false},
    {"logical_not", logical_not, 3, false}, {"conj_physical", conj_physical, 3, true},
};

TEST_P(CudaTest, ComplexUnaryOpsMatchTheCpu) {
  for (DType dt : kComplexDTypes) {
    const Tensor x = crandn({3, 700}, dt, 3);
    const Tensor small = crandn({500}, dt, 1e-3), large = crandn({500}, dt, 1e4);
    for (const ComplexUnaryCase& c : kUnaryCases) {
      const std::string d = std::string(c.name) + " " + std::string(dtype_name(dt));
      // pow-like functions compound the libm differences: a wider tolerance.
      const double rt = ctol(dt) * (std::string(c.name) == "exp2" ? 10 : 1);
      expect_complex_close(c.f(x.to(kCUDA)), c.f(x), rt, 0, d);
      expect_complex_close(c.f(x.to(kCUDA).slice(1, 1, 700, 3)), c.f(x.slice(1, 1, 700, 3)), rt, 0, d + " strided");
      expect_complex_close(c.f(x.to(kCUDA).t()), c.f(x.t()), rt, 0, d + " transposed");
      // expm1 = exp - 1 cancels near 0 (the CPU's formula too): an absolute tolerance of an ulp or two of 1.
      const double small_atol = std::string(c.name) == "expm1" ? (dt == kComplex64 ? 3e-7 : 5e-16) : 0;
      expect_complex_close(c.f(small.to(kCUDA)), c.f(small), rt, small_atol, d + " small");
      if (std::string(c.name) != "exp" && std::string(c.name) != "exp2" && std::string(c.name) != "sinh" &&
          std::string(c.name) != "cosh" && std::string(c.name) != "expm1")
        expect_complex_close(c.f(large.to(kCUDA)), c.f(large), rt, 0, d + " large");
      expect_complex_close(c.f(empty({0}, TensorOptions(dt).device(kCUDA))), c.f(empty({0}, TensorOptions(dt))), 0, 0,
                           d + " empty");
    }
  }
}

TEST_P(CudaTest, ComplexUnaryOpsKeepTheSpecialValuesOfTheCpu) {
  for (DType dt : kComplexDTypes) {
    const Tensor x = special_grid(dt);
    for (const ComplexUnaryCase& c : kUnaryCases)
      expect_complex_close(c.f(x.to(kCUDA)), c.f(x), ctol(dt), grid_atol(dt),
                           std::string(c.name) + " special values " + std::string(dtype_name(dt)), c.signed_zeros);
  }
}

TEST_P(CudaTest, ComplexBranchCutsFollowTheSignedZero) {
  // Points on the cuts of sqrt, log (negative reals), asin, acos, atanh (|x| > 1
  // on the real axis), asinh, acosh, atan (the imaginary axis), from both sides.
  for (DType dt : kComplexDTypes) {
    const DType real = dt == kComplex64 ? kFloat32 : kFloat64;
    const std::vector<double> re = {-2, -2, 2, 2, 0, -0.0, 0, -0.0, -0.5, -0.5, 3, 3, 0, -0.0};
    const std::vector<double> im = {0, -0.0, 0, -0.0, 2, 2, -2, -2, 0, -0.0, 0, -0.0, 0.5, 0.5};
    const Tensor x = complex(tensor(re, TensorOptions(kFloat64)).to(real), tensor(im, TensorOptions(kFloat64)).to(real));
    for (const ComplexUnaryCase& c : kUnaryCases)
      if (c.signed_zeros)
        expect_complex_close(c.f(x.to(kCUDA)), c.f(x), ctol(dt), 0,
                             std::string(c.name) + " branch cuts " + std::string(dtype_name(dt)), true);
  }
}

struct ComplexBinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;
  double rtol_scale;
};

TEST_P(CudaTest, ComplexBinaryOpsMatchTheCpu) {
  const ComplexBinaryCase cases[] = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, 1},
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, Scalar(complex128(0.5, -2))); }, 1},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, 1},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, 1},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, 1},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }, 20},
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }, 0},
      {"ne", [](const Tensor& a, const Tensor& b) { return ne(a, b); }, 0},
      {"logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }, 0},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, 0},
      {"logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }, 0},
  };
  for (DType dt : kComplexDTypes) {
    Tensor a = crandn({40, 50}, dt), b = crandn({40, 50}, dt);
    // Some equal and some zero elements, for the comparisons and logical ops.
    b.slice(0, 0, 5).copy_(a.slice(0, 0, 5));
    a.slice(0, 5, 8).zero_();
    const Tensor row = crandn({50}, dt);
    const Tensor scalar = crandn({}, dt);
    const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA);
    for (const ComplexBinaryCase& c : cases) {
      const std::string d = std::string(c.name) + " " + std::string(dtype_name(dt));
      const double rt = ctol(dt) * c.rtol_scale;
      expect_complex_close(c.f(ag, bg), c.f(a, b), rt, 0, d);
      expect_complex_close(c.f(ag.t(), bg.t()), c.f(a.t(), b.t()), rt, 0, d + " transposed");
      expect_complex_close(c.f(ag.slice(1, 0, 50, 2), bg.slice(1, 1, 50, 2)), c.f(a.slice(1, 0, 50, 2), b.slice(1, 1, 50, 2)),
                           rt, 0, d + " strided");
      expect_complex_close(c.f(ag, row.to(kCUDA)), c.f(a, row), rt, 0, d + " broadcast");
      expect_complex_close(c.f(ag, scalar), c.f(a, scalar), rt, 0, d + " CPU scalar");
      expect_complex_close(c.f(scalar, bg), c.f(scalar, b), rt, 0, d + " CPU scalar first");
    }
    // Annex G: products and quotients of infinities, zeros and NaN, as libgcc's __muldc3/__divdc3.
    const Tensor s = special_grid(dt);
    const Tensor t = s.flip({0});
    for (const char* op : {"mul", "div"}) {
      const auto& f = std::string(op) == "mul" ? cases[3].f : cases[4].f;
      expect_complex_close(f(s.to(kCUDA), t.to(kCUDA)), f(s, t), ctol(dt), grid_atol(dt),
                           std::string(op) + " special values " + std::string(dtype_name(dt)));
    }
    // A complex number operand (wrapped scalar) and real operands promoted to complex.
    expect_complex_close(mul(ag, Scalar(complex128(1, -1))), mul(a, Scalar(complex128(1, -1))), ctol(dt), 0,
                         "mul by a complex number " + std::string(dtype_name(dt)));
    const Tensor r = randn({40, 50});
    expect_complex_close(add(ag, r.to(kCUDA)), add(a, r), ctol(dt), 0, "complex + float32 " + std::string(dtype_name(dt)));
  }
}

TEST_P(CudaTest, ComplexPowWithANumberAsTheCpu) {
  for (DType dt : kComplexDTypes) {
    const Tensor x = cat({crandn({300}, dt, 2), special_grid(dt)});
    const Tensor g = x.to(kCUDA);
    for (double e : {0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, 2.5, -1.5})
      expect_complex_close(pow(g, e), pow(x, e), ctol(dt) * 20, grid_atol(dt),
                           "pow " + std::to_string(e) + " " + std::string(dtype_name(dt)));
    expect_complex_close(pow(g, Scalar(complex128(1, 1))), pow(x, Scalar(complex128(1, 1))), ctol(dt) * 20, 0,
                         "pow 1+1j " + std::string(dtype_name(dt)));
    expect_complex_close(pow(g, Scalar(complex128(2, 0))), pow(x, Scalar(complex128(2, 0))), ctol(dt), 0,
                         "pow 2+0j " + std::string(dtype_name(dt)));
  }
}

TEST_P(CudaTest, ComplexTernaryOpsMatchTheCpu) {
  for (DType dt : kComplexDTypes) {
    const std::string d(dtype_name(dt));
    const Tensor a = crandn({30, 40}, dt), b = crandn({30, 40}, dt), c = crandn({30, 40}, dt);
    const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA), cg = c.to(kCUDA);
    const Tensor cond = rand({30, 40}).gt(0.5);
    expect_complex_close(where(cond.to(kCUDA), ag, bg), where(cond, a, b), 0, 0, "where " + d);
    expect_complex_close(where(cond.to(kCUDA), ag, bg.select(0, 2)), where(cond, a, b.select(0, 2)), 0, 0,
                         "where broadcast " + d);
    // Weights on both sides of |w| = 0.5 (the two forms of lerp).
    const Tensor w = crandn({30, 40}, dt, 0.5);
    expect_complex_close(lerp(ag, bg, w.to(kCUDA)), lerp(a, b, w), ctol(dt), 1e-6, "lerp " + d);
    expect_complex_close(lerp(ag, bg, Scalar(0.75)), lerp(a, b, Scalar(0.75)), ctol(dt), 1e-6, "lerp number " + d);
    expect_complex_close(addcmul(ag, bg, cg, Scalar(complex128(0.5, 1))), addcmul(a, b, c, Scalar(complex128(0.5, 1))),
                         ctol(dt), 1e-6, "addcmul " + d);
    expect_complex_close(addcdiv(ag, bg, cg, Scalar(-2)), addcdiv(a, b, c, Scalar(-2)), ctol(dt), 1e-6, "addcdiv " + d);
    expect_complex_close(addcmul(ag.t(), bg.t(), cg.select(1, 0)), addcmul(a.t(), b.t(), c.select(1, 0)), ctol(dt), 1e-6,
                         "addcmul strided broadcast " + d);
  }
}

TEST_P(CudaTest, ComplexReductionsMatchTheCpu) {
  const std::vector<std::vector<int64_t>> shapes = {{1000}, {7, 13}, {3, 5000}, {300, 5}, {6, 5, 4, 3}, {1, 1}, {5000, 3}};
  for (DType dt : kComplexDTypes) {
    const double rt = dt == kComplex64 ? 1e-5 : 1e-12;
    for (const auto& shape : shapes) {
      const Tensor x = crandn(shape, dt);
      const Tensor xg = x.to(kCUDA);
      const std::string d = std::string(dtype_name(dt)) + " " + std::to_string(shape.size()) + "-d " +
                            std::to_string(x.numel());
      expect_complex_close(sum(xg), sum(x), rt, 1e-4, "sum " + d);
      expect_complex_close(mean(xg), mean(x), rt, 1e-5, "mean " + d);
      // Products of values near 1 (a product of thousands of randn values under- or overflows).
      const Tensor near_one = x * 0.01 + 1;
      expect_complex_close(prod(near_one.to(kCUDA)), prod(near_one), rt * 10, 1e-5, "prod " + d);
      expect_complex_close(norm(xg), norm(x), rt, 1e-4, "norm " + d);
      expect_complex_close(norm(xg, 1), norm(x, 1), rt, 1e-4, "norm 1 " + d);
      expect_complex_close(norm(xg, 3), norm(x, 3), rt * 4, 1e-4, "norm 3 " + d);
      expect_complex_close(norm(xg, INFINITY), norm(x, INFINITY), rt, 0, "norm inf " + d);
      expect_complex_close(norm(xg, -INFINITY), norm(x, -INFINITY), rt, 0, "norm -inf " + d);
      expect_complex_close(norm(xg, 0), norm(x, 0), 0, 0, "norm 0 " + d);
      const Tensor some_zero = x * x.real().gt(0);
      expect_complex_close(any(some_zero.to(kCUDA)), any(some_zero), 0, 0, "any " + d);
      expect_complex_close(all(some_zero.to(kCUDA)), all(some_zero), 0, 0, "all " + d);
      expect_complex_close(count_nonzero(some_zero.to(kCUDA)), count_nonzero(some_zero), 0, 0, "count_nonzero " + d);
      for (int64_t dim = 0; dim < x.dim(); ++dim) {
        const std::string dd = d + " dim " + std::to_string(dim);
        expect_complex_close(sum(xg, {dim}), sum(x, {dim}), rt, 1e-4, "sum " + dd);
        expect_complex_close(mean(xg, {dim}, true), mean(x, {dim}, true), rt, 1e-5, "mean keepdim " + dd);
        expect_complex_close(prod(near_one.to(kCUDA), dim), prod(near_one, dim), rt * 10, 1e-5, "prod " + dd);
      }
    }
    // NaN and infinity propagate as on the CPU.
    const Tensor s = special_grid(dt);
    expect_complex_close(sum(s.to(kCUDA)), sum(s), rt, 0, "sum special values " + std::string(dtype_name(dt)));
    expect_complex_close(norm(s.to(kCUDA), INFINITY), norm(s, INFINITY), rt, 0,
                         "norm inf special values " + std::string(dtype_name(dt)));
    // A real input summed into a complex dtype is cast first.
    const Tensor r = randn({100});
    expect_complex_close(sum(r.to(kCUDA), dt), sum(r, dt), rt, 1e-5, "sum float32 as " + std::string(dtype_name(dt)));
  }
}

TEST_P(CudaTest, ConjugateAndNegativeViewsThroughComplexOps) {
  for (DType dt : kComplexDTypes) {
    const std::string d(dtype_name(dt));
    const Tensor z = crandn({20, 30}, dt), w = crandn({20, 30}, dt);
    const Tensor zg = z.to(kCUDA), wg = w.to(kCUDA);
    ASSERT_TRUE(zg.conj().is_conj());
    expect_complex_close(conj(zg), conj(z).resolve_conj(), 0, 0, "conj view " + d);
    expect_complex_close(exp(conj(zg)), exp(conj(z)), ctol(dt), 0, "exp of a conjugate view " + d);
    expect_complex_close(mul(conj(zg), wg), mul(conj(z), w), ctol(dt), 0, "conj * w " + d);
    expect_complex_close(add(conj(zg).t(), wg.t()), add(conj(z).t(), w.t()), ctol(dt), 0, "strided conj + w " + d);
    expect_complex_close(sum(conj(zg), {1}), sum(conj(z), {1}), ctol(dt), 1e-5, "sum of a conj view " + d);
    expect_complex_close(where(zg.real().gt(0), conj(zg), wg), where(z.real().gt(0), conj(z), w), 0, 0,
                         "where of a conj view " + d);
    // imag() of a conjugate view is a negative view (real dtype).
    const Tensor neg_view = conj(zg).imag();
    expect_complex_close(neg_view * 2, conj(z).imag() * 2, ctol(dt), 0, "negative view * 2 " + d);
    // In place into a conjugate view: written back through its bit.
    Tensor target = zg.clone();
    Tensor cv = conj(target);
    cv.mul_(wg);
    expect_complex_close(cv, conj(z) * w, ctol(dt), 0, "mul_ into a conj view " + d);
  }
}

TEST_P(CudaTest, ComplexMatrixProductsMatchTheCpu) {
  for (DType dt : kComplexDTypes) {
    const std::string d(dtype_name(dt));
    const double rt = dt == kComplex64 ? 1e-5 : 1e-12;
    const Tensor a = crandn({37, 53}, dt), b = crandn({53, 29}, dt), c = crandn({37, 29}, dt);
    const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA), cg = c.to(kCUDA);
    auto ref = [&](const Tensor& x, const Tensor& y) { return matmul(x.to(kComplex128), y.to(kComplex128)).to(dt); };
    expect_complex_close(matmul(ag, bg), ref(a, b), rt, 1e-4, "matmul " + d);
    expect_complex_close(matmul(ag.t().contiguous().t(), bg), ref(a, b), rt, 1e-4, "matmul column-major a " + d);
    expect_complex_close(matmul(ag, bg.t().contiguous().t()), ref(a, b), rt, 1e-4, "matmul column-major b " + d);
    expect_complex_close(matmul(ag.slice(1, 0, 53, 2), bg.slice(0, 0, 53, 2)),
                         ref(a.slice(1, 0, 53, 2), b.slice(0, 0, 53, 2)), rt, 1e-4, "matmul strided " + d);
    // Conjugate views: row-major (resolved), column-major (cuBLAS's op C), both, and a^H.
    expect_complex_close(matmul(conj(ag), bg), ref(conj(a).resolve_conj(), b), rt, 1e-4, "conj(a) @ b " + d);
    expect_complex_close(matmul(ag, conj(bg)), ref(a, conj(b).resolve_conj()), rt, 1e-4, "a @ conj(b) " + d);
    expect_complex_close(matmul(conj(ag.t().contiguous().t()), conj(bg.t().contiguous().t())),
                         ref(conj(a).resolve_conj(), conj(b).resolve_conj()), rt, 1e-4, "column-major conj operands " + d);
    const Tensor ah = a.t().contiguous().to(kCUDA).conj().t();  // a^H^H: a column-major conjugate view
    expect_complex_close(matmul(ah, bg), ref(conj(a).resolve_conj(), b), rt, 1e-4, "adjoint operand " + d);
    const Scalar alpha(complex128(0.5, -1)), beta(complex128(2, 0.25));
    expect_complex_close(addmm(cg, ag, bg, beta, alpha),
                         (c.to(kComplex128) * beta + matmul(a.to(kComplex128), b.to(kComplex128)) * alpha).to(dt),
                         rt * 4, 1e-4, "addmm complex alpha, beta " + d);
    const Tensor x = crandn({4, 16, 8}, dt), y = crandn({4, 8, 12}, dt);
    expect_complex_close(bmm(x.to(kCUDA), y.to(kCUDA)), bmm(x.to(kComplex128), y.to(kComplex128)).to(dt), rt, 1e-4,
                         "bmm " + d);
    expect_complex_close(matmul(x.to(kCUDA), y.to(kCUDA).select(0, 0)),
                         matmul(x.to(kComplex128), y.to(kComplex128).select(0, 0)).to(dt), rt, 1e-4,
                         "broadcast batch " + d);
    expect_complex_close(matmul(ag.select(0, 3), bg), ref(a.select(0, 3).unsqueeze(0), b).squeeze(0), rt, 1e-4,
                         "vector @ matrix " + d);
    const Tensor e = matmul(empty({3, 0}, TensorOptions(dt).device(kCUDA)), empty({0, 4}, TensorOptions(dt).device(kCUDA)));
    expect_complex_close(e, zeros({3, 4}, TensorOptions(dt)), 0, 0, "empty inner dimension " + d);
  }
}

TEST_P(CudaTest, ComplexDotAndVdotMatchTheCpu) {
  for (DType dt : kComplexDTypes) {
    const std::string d(dtype_name(dt));
    const double rt = dt == kComplex64 ? 1e-5 : 1e-12;
    // References in complex128, rounded to dt (long float sums differ with their order).
    auto ref = [&](Tensor (*f)(const Tensor&, const Tensor&), const Tensor& x, const Tensor& y) {
      return f(x.to(kComplex128), y.to(kComplex128)).to(dt);
    };
    for (int64_t n : {0, 1, 7, 1000, 100000}) {
      const Tensor a = crandn({2 * n}, dt), b = crandn({n}, dt);
      const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA);
      const Tensor as = a.slice(0, 0, 2 * n, 2), asg = ag.slice(0, 0, 2 * n, 2);  // stride 2
      const std::string dn = d + " n " + std::to_string(n);
      expect_complex_close(dot(asg, bg), ref(dot, as, b), rt, 1e-4, "dot " + dn);
      expect_complex_close(vdot(asg, bg), ref(vdot, as, b), rt, 1e-4, "vdot " + dn);
      expect_complex_close(dot(conj(asg), bg), ref(dot, conj(as), b), rt, 1e-4, "dot conj a " + dn);
      expect_complex_close(dot(asg, conj(bg)), ref(dot, as, conj(b)), rt, 1e-4, "dot conj b " + dn);
      expect_complex_close(dot(conj(asg), conj(bg)), ref(dot, conj(as), conj(b)), rt, 1e-4, "dot conj both " + dn);
      expect_complex_close(vdot(conj(asg), conj(bg)), ref(vdot, conj(as), conj(b)), rt, 1e-4, "vdot conj both " + dn);
      if (n > 0) {
        const Tensor one = crandn({1}, dt);
        expect_complex_close(dot(one.to(kCUDA).expand({n}), bg), ref(dot, one.expand({n}), b), rt, 1e-4,
                             "dot expanded " + dn);
      }
    }
  }
}

}  // namespace
}  // namespace ember::cuda
