// Table-driven harness for the reductions. scripts/fixtures/reduce.py reduces one
// (2, 3, 4) input per dtype under each layout of kLayouts over each entry of the
// op's dim list with keepdim=True; each case here runs the same reductions in
// Ember, checks values and dtype, and checks that keepdim=False gives the same
// values with the reduced dims squeezed. Empty inputs, errors and the engine's
// large-input paths are tested below the harness against float64 loops.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>

#include <ember/ember.h>

#include "device_test.h"
#include "op_harness.h"
#include "test_util.h"

using namespace ember;
using namespace ember::testing;

namespace reduce_ops_test {

const std::vector<std::vector<int64_t>> kMultiDims = {{0}, {1}, {2}, {-1}, {0, 2}, {0, 1, 2}};
const std::vector<std::optional<int64_t>> kSingleDims = {0, 1, 2, -1, std::nullopt};

// Keepdim shape of a reduction of x over dims (all dims when empty).
DimVector keepdim_sizes(const Tensor& x, IntArrayRef dims) {
  DimVector s(x.sizes());
  if (dims.empty())
    for (auto& v : s) v = 1;
  for (int64_t d : dims) s[d < 0 ? d + x.dim() : d] = 1;
  return s;
}

// A keepdim=False result of x reduced over dims, viewed with the reduced dims kept.
Tensor keep_dims(const Tensor& r, const Tensor& x, IntArrayRef dims) { return r.reshape(keepdim_sizes(x, dims)); }

// An op over a dim list, or over one optional dim (nullopt: the op without dim,
// a 0-dim result). Results are flattened and concatenated like the generator's
// (max_dim/min_dim: values, then indices).
struct ReduceCase {
  std::string name;
  std::function<std::vector<Tensor>(const Tensor&, IntArrayRef, bool)> multi;
  std::function<std::vector<Tensor>(const Tensor&, std::optional<int64_t>, bool)> single;
  Tolerances tol{};
  uint32_t extends = 0;  // dtypes torch 1.13 refuses and Ember computes (a torch gap)
};

#define MULTI(name, expr, ...)                                                                     \
  ReduceCase {                                                                                     \
    name, [](const Tensor& x, IntArrayRef d, bool k) { return std::vector<Tensor>{expr}; }, {}, \
        __VA_ARGS__                                                                                \
  }
#define SINGLE(name, expr, whole, ...)                                                     \
  ReduceCase {                                                                             \
    name, {}, [](const Tensor& x, std::optional<int64_t> d, bool k) {                      \
      return d ? std::vector<Tensor>{expr} : std::vector<Tensor>{whole};                   \
    }, __VA_ARGS__                                                                         \
  }
#define PAIR(name, fn)                                                                      \
  ReduceCase {                                                                              \
    name, {}, [](const Tensor& x, std::optional<int64_t> d, bool k) {                       \
      if (!d) return std::vector<Tensor>{fn(x)};                                            \
      auto [v, i] = fn(x, *d, k);                                                           \
      return std::vector<Tensor>{v, i};                                                     \
    }                                                                                       \
  }

// Sums and norms in float32/float16 accumulate in another order than torch.
constexpr Tolerances kAccumulating{{4e-3, 2e-3}, {1.6e-2, 1e-2}, {1e-5, 1e-6}, {1e-12, 1e-13}};

const std::vector<ReduceCase>& reduce_cases() {
  static const std::vector<ReduceCase> cases = [] {
    std::vector<ReduceCase> c = {
        MULTI("sum", x.sum(d, k), kAccumulating),
        MULTI("mean", x.mean(d, k), kAccumulating),
        SINGLE("prod", x.prod(*d, k), x.prod(), {}, dtype_bit(kBFloat16)),
        MULTI("amax", x.amax(d, k)),
        MULTI("amin", x.amin(d, k)),
        PAIR("max_dim", ember::max),
        PAIR("min_dim", ember::min),
        SINGLE("argmax", x.argmax(d, k), x.argmax(), {}, kMaskBool),
        SINGLE("argmin", x.argmin(d, k), x.argmin(), {}, kMaskBool),
        MULTI("logsumexp", x.logsumexp(d, k), kAccumulating),
        SINGLE("all", x.all(*d, k), x.all()),
        SINGLE("any", x.any(*d, k), x.any()),
        // count_nonzero has no keepdim: k only selects the unsqueezed form.
        MULTI("count_nonzero", k ? keep_dims(x.count_nonzero(d), x, d) : x.count_nonzero(d)),
    };
    for (int64_t corr : {0, 1, 2}) {
      c.push_back({"var_" + std::to_string(corr),
                   [corr](const Tensor& x, IntArrayRef d, bool k) {
                     return std::vector<Tensor>{x.var(d, corr, k)};
                   },
                   {}, kAccumulating});
    }
    for (int64_t corr : {0, 1}) {
      c.push_back({"std_" + std::to_string(corr),
                   [corr](const Tensor& x, IntArrayRef d, bool k) {
                     return std::vector<Tensor>{x.std(d, corr, k)};
                   },
                   {}, kAccumulating});
    }
    const std::vector<std::pair<std::string, double>> norms = {
        {"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}, {"inf", INFINITY}, {"-inf", -INFINITY}};
    for (const auto& [n, p] : norms) {
      c.push_back({"norm_" + n,
                   [p = p](const Tensor& x, IntArrayRef d, bool k) {
                     return std::vector<Tensor>{x.norm(p, d, k)};
                   },
                   {}, kAccumulating});
    }
    return c;
  }();
  return cases;
}

struct Layout {
  const char* name;
  std::function<Tensor(const Tensor&)> view;
};
const std::vector<Layout> kLayouts = {
    {"contiguous", [](const Tensor& x) { return x; }},
    {"transposed", [](const Tensor& x) { return x.permute({2, 0, 1}); }},
    {"sliced", [](const Tensor& x) { return x.slice(1, 0, std::nullopt, 2).slice(2, 1); }},
    {"expanded", [](const Tensor& x) { return x.slice(1, 0, 1).expand({2, 3, 4}); }},
};

const ReduceCase* find_case(const std::string& name) {
  for (const auto& c : reduce_cases())
    if (c.name == name) return &c;
  return nullptr;
}

int64_t g_checked = 0;

// Runs one case on one source tensor, consuming its expected values from `flat` at `offset`.
void run_on(const ReduceCase& c, const Tensor& x, const Tensor& flat, int64_t& offset, DType result,
            DType input, const std::string& what) {
  auto check = [&](const std::vector<Tensor>& keep, const std::vector<Tensor>& squeezed,
                   const DimVector& keep_shape, const std::string& variant) {
    SCOPED_TRACE(what + " " + variant);
    ++g_checked;
    for (size_t i = 0; i < keep.size(); ++i) {
      const Tensor& r = keep[i];
      // max/min with dim: values keep the input dtype, indices are int64.
      const DType want = c.name == "max_dim" || c.name == "min_dim" ? (i == 0 ? input : kInt64) : result;
      EXPECT_EQ(r.dtype(), want);
      EXPECT_EQ(r.device(), x.device());
      ASSERT_LE(offset + r.numel(), flat.numel()) << "fixture too short";
      Tensor e = flat.slice(0, offset, offset + r.numel()).to(want).reshape(r.sizes());
      offset += r.numel();
      if (!keep_shape.empty()) {
        EXPECT_EQ(r.sizes(), IntArrayRef(keep_shape));
      }
      EXPECT_TRUE(values_match(r, e, c.tol.of(want), false));
      // keepdim=False: the same values without the reduced dims.
      EXPECT_TRUE(values_match(squeezed[i].reshape(r.sizes()), e, c.tol.of(want), false));
    }
  };
  if (c.multi) {
    for (const auto& d : kMultiDims) {
      auto keep = c.multi(x, d, true);
      auto squeezed = c.multi(x, d, false);
      for (const auto& s : squeezed) EXPECT_EQ(s.dim(), x.dim() - static_cast<int64_t>(d.size())) << what;
      check(keep, squeezed, keepdim_sizes(x, d), "dims " + ::testing::PrintToString(d));
    }
  } else {
    for (const auto& d : kSingleDims) {
      auto keep = c.single(x, d, true);
      auto squeezed = c.single(x, d, false);
      if (d) {
        for (const auto& s : squeezed) EXPECT_EQ(s.dim(), x.dim() - 1) << what;
      } else {
        for (const auto& s : keep) EXPECT_EQ(s.dim(), 0) << what << ": no dim gives a 0-dim result";
      }
      check(keep, squeezed, d ? keepdim_sizes(x, {*d}) : DimVector{},
            d ? "dim " + std::to_string(*d) : std::string("no dim"));
    }
  }
}

// Runs on every device (device_test.h): fixtures are copied there, results
// compared on the host.
class ReduceOnDevice : public OnEachDevice {};
EMBER_INSTANTIATE_ON_EACH_DEVICE(ReduceOnDevice);

TEST_P(ReduceOnDevice, AllCasesAgainstTorch) {
  const int64_t checked_before = g_checked;
  const auto manifest = load_manifest("reduce");
  std::set<std::string> seen;
  for (const auto& w : manifest) {
    const std::string op = w.at(0);
    const DType dtype = dtype_from_name(w.at(1));
    seen.insert(op);
    const ReduceCase* c = find_case(op);
    ASSERT_NE(c, nullptr) << "no harness case for " << op;
    const std::string dn(dtype_name(dtype));
    Tensor x = load_fixture("reduce", "in_" + dn, dtype).to(device());
    if (w.at(2) == "-") {
      if (c->extends & dtype_bit(dtype)) continue;
      // Torch rejects this dtype: so must Ember.
      if (c->multi) {
        EXPECT_THROW(c->multi(x, {0}, false), Error) << op << " " << dn;
      }
      else EXPECT_THROW(c->single(x, 0, false), Error) << op << " " << dn;
      continue;
    }
    int64_t offset = std::stoll(w.at(2));
    const int64_t length = std::stoll(w.at(3));
    const DType result = dtype_from_name(w.at(4));
    Tensor flat = load_npy(fixture_path("core/reduce/out_" + dn + ".npy"));
    flat = flat.slice(0, offset, offset + length);
    int64_t pos = 0;
    for (const auto& layout : kLayouts)
      run_on(*c, layout.view(x), flat, pos, result, dtype, op + " " + dn + " [" + layout.name + "]");
    if (is_floating_point(dtype))
      run_on(*c, load_fixture("reduce", "in_nan_" + dn, dtype).to(device()), flat, pos, result, dtype,
             op + " " + dn + " [nan]");
    EXPECT_EQ(pos, length) << op << " " << dn << ": fixture length mismatch";
  }
  for (const auto& c : reduce_cases()) EXPECT_TRUE(seen.count(c.name)) << c.name << " has no fixtures";
  EXPECT_GT(g_checked - checked_before, 1000);
}

// ---- empty inputs: identities where the reduction has one, errors where not ----
TEST(ReduceOps, EmptyInputs) {
  Tensor e = zeros({0, 3});
  auto all_equal = [](const Tensor& t, double v) {
    return t.numel() == 3 && values_match(t, full({3}, v, kFloat64), {0, 0}, false);
  };
  EXPECT_TRUE(all_equal(e.sum({0}), 0));
  EXPECT_EQ(e.sum().item<double>(), 0);
  EXPECT_TRUE(all_equal(e.prod(0), 1));
  EXPECT_TRUE(all_equal(e.mean({0}), NAN));
  EXPECT_TRUE(std::isnan(e.mean().item<double>()));
  EXPECT_TRUE(all_equal(e.var({0}), NAN));
  EXPECT_TRUE(all_equal(e.std({0}), NAN));
  EXPECT_TRUE(all_equal(e.logsumexp({0}), -INFINITY));
  EXPECT_EQ(e.norm().item<double>(), 0);
  EXPECT_EQ(e.all().item<bool>(), true);
  EXPECT_EQ(e.any().item<bool>(), false);
  EXPECT_TRUE(all_equal(e.all(0), 1));
  EXPECT_EQ(e.count_nonzero().item<int64_t>(), 0);
  EXPECT_EQ(zeros({0}, kInt32).sum().dtype(), kInt64);
  // Reducing a non-empty dim of an empty tensor gives an empty result.
  EXPECT_EQ(e.amax({1}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(e.max(1, false).second.sizes(), IntArrayRef({0}));
  EXPECT_EQ(e.argmax(1).sizes(), IntArrayRef({0}));
  EXPECT_EQ(e.sum({1}, true).sizes(), IntArrayRef({0, 1}));
  // No identity: errors naming the op.
  EXPECT_THROW(e.amax({0}), Error);
  EXPECT_THROW(e.amin(), Error);
  EXPECT_THROW(e.max(), Error);
  EXPECT_THROW(e.min(), Error);
  EXPECT_THROW(e.max(0), Error);
  EXPECT_THROW(e.argmax(), Error);
  EXPECT_THROW(e.argmin(0), Error);
  // Deliberate: as torch.linalg.vector_norm (torch.norm returns 0 here).
  EXPECT_THROW(e.norm(INFINITY), Error);
  EXPECT_THROW(e.norm(-INFINITY, {0}), Error);
  try {
    e.amax({0});
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("amax"), std::string::npos) << err.what();
  }
}

TEST(ReduceOps, ArgumentErrors) {
  Tensor x = ones({2, 3});
  EXPECT_THROW(x.sum({2}), Error);
  EXPECT_THROW(x.sum({-3}), Error);
  EXPECT_THROW(x.sum({0, -2}), Error) << "repeated dim";
  EXPECT_THROW(x.prod(5), Error);
  EXPECT_THROW(x.argmax(2), Error);
  EXPECT_THROW(x.max(-3), Error);
  EXPECT_THROW(ones({2}, kInt64).mean(), Error);
  EXPECT_THROW(ones({2}, kInt64).var(), Error);
  EXPECT_THROW(ones({2}, kInt64).std(), Error);
  EXPECT_THROW(ones({2}, kInt64).norm(), Error);
  EXPECT_THROW(ones({2}, kComplex64).amax(), Error);
  EXPECT_THROW(ember::sum(Tensor()), Error);
}

TEST(ReduceOps, DtypeArgument) {
  Tensor i = arange(6, kInt32).reshape({2, 3});
  Tensor s = i.sum({1}, false, kFloat64);
  EXPECT_EQ(s.dtype(), kFloat64);
  EXPECT_EQ(at<double>(s, {1}), 12.0);
  Tensor m = i.mean({0}, false, kFloat32);
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_FLOAT_EQ(at<float>(m, {2}), 3.5f);
  EXPECT_EQ(i.prod(1, false, kInt32).dtype(), kInt32);
  EXPECT_EQ(ones({3}, kBool).sum().item<int64_t>(), 3);
  EXPECT_EQ(full({4}, 200, kUInt8).sum().item<int64_t>(), 800) << "uint8 sums don't wrap";
}

TEST(ReduceOps, ZeroDimInputs) {
  Tensor x = scalar_tensor(2.5, kFloat64);
  EXPECT_EQ(x.sum().item<double>(), 2.5);
  EXPECT_EQ(x.sum({0}).dim(), 0);
  EXPECT_EQ(x.sum({-1}, true).dim(), 0);
  EXPECT_EQ(x.amax({0}).item<double>(), 2.5);
  EXPECT_EQ(x.argmax(0).item<int64_t>(), 0);
  EXPECT_EQ(x.max(0).second.item<int64_t>(), 0);
  EXPECT_TRUE(std::isnan(x.var({0}).item<double>()));
  EXPECT_EQ(x.var({0}, 0).item<double>(), 0);
  EXPECT_THROW(x.sum({1}), Error);
}

// The engine's parallel paths on inputs too big for fixtures, against float64 loops.
TEST(ReduceOps, LargeInputsMatchFloat64Loops) {
  const int64_t n = 300007;  // > 2 chunks of 65536: the chunked full reduction
  Tensor x = arange(n, kFloat64).mul(0.37).sin().to(kFloat32);
  double ref = 0, ref_abs2 = 0;
  const float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    ref += p[i];
    ref_abs2 += double(p[i]) * p[i];
  }
  EXPECT_NEAR(x.sum().item<double>(), ref, 1e-6 * n);
  EXPECT_NEAR(x.mean().item<double>(), ref / n, 1e-6);
  EXPECT_NEAR(x.norm().item<double>(), std::sqrt(ref_abs2), 1e-3);
  double mean = ref / n, m2 = 0;
  for (int64_t i = 0; i < n; ++i) m2 += (p[i] - mean) * (p[i] - mean);
  EXPECT_NEAR(x.var().item<double>(), m2 / (n - 1), 1e-5);
  // Outer reduction (the kept dim is contiguous) over a transposed-free 2-d input.
  Tensor y = x.slice(0, 0, 1000 * 257).reshape({1000, 257});
  Tensor col = y.sum({0});
  Tensor amax = y.amax({0});
  auto [mx, idx] = y.max(0);
  for (int64_t j : {0, 100, 256}) {
    double s = 0, m = -INFINITY;
    int64_t mi = 0;
    for (int64_t i = 0; i < 1000; ++i) {
      const double v = p[i * 257 + j];
      s += v;
      if (v > m) m = v, mi = i;
    }
    EXPECT_NEAR(at<double>(col, {j}), s, 1e-4);
    EXPECT_EQ(at<double>(amax, {j}), m);
    EXPECT_EQ(at<int64_t>(idx, {j}), mi);
  }
}

// The SIMD max/min lanes drop NaN and track it separately: a NaN anywhere in a
// long contiguous row (lanes, tail, first or last element) must win.
TEST(ReduceOps, MinMaxLongRowsPropagateNan) {
  for (DType dt : {kFloat32, kFloat64}) {
    for (int64_t pos : {int64_t{0}, int64_t{5}, int64_t{31}, int64_t{64}, int64_t{999}, int64_t{1002}}) {
      Tensor x = arange(0, 1003, 1, dt).reshape({1, 1003});
      x.index_put_({0, pos}, NAN);
      EXPECT_TRUE(std::isnan(x.amax({1}).item<double>())) << dtype_name(dt) << " pos " << pos;
      EXPECT_TRUE(std::isnan(x.amin({1}).item<double>())) << dtype_name(dt) << " pos " << pos;
      EXPECT_TRUE(std::isnan(x.max().item<double>())) << dtype_name(dt) << " pos " << pos;
    }
    Tensor y = arange(0, 1003, 1, dt).neg().reshape({1, 1003});
    EXPECT_EQ(y.amax({1}).item<double>(), 0);
    EXPECT_EQ(y.amin({1}).item<double>(), -1002);
  }
}

// sum/mean/prod with an explicit dtype cast every element to that dtype before
// accumulating (PyTorch: "the input tensor is casted to dtype before the
// operation"). Reference: a loop over the elements, each converted by C++'s own
// conversion, accumulated in double / int64, and converted once at the end.
TEST(ReduceOps, SumMeanProdIntoAnotherDType) {
  Generator g(21);
  const Tensor x = (randn({3, 5}, TensorOptions(kFloat64), &g) * 20).to(kFloat32);
  const Tensor xd = x.to(kFloat64);
  auto row_loop = [&](auto cast, bool product, double scale) {
    std::vector<double> out;
    for (int64_t i = 0; i < 3; ++i) {
      double acc = product ? 1 : 0;
      for (int64_t j = 0; j < 5; ++j) {
        const double e = cast(static_cast<float>(xd[i][j].item<double>()));
        acc = product ? acc * e : acc + e;
      }
      out.push_back(acc * scale);
    }
    return tensor(out, kFloat64);
  };
  auto to_int = [](float v) { return static_cast<double>(static_cast<int32_t>(v)); };
  auto to_double = [](float v) { return static_cast<double>(v); };

  Tensor s = x.sum({1}, false, kInt32);
  EXPECT_EQ(s.dtype(), kInt32);
  EXPECT_TRUE(equal(s.to(kFloat64), row_loop(to_int, false, 1)));
  Tensor sd = x.sum({1}, false, kFloat64);
  EXPECT_EQ(sd.dtype(), kFloat64);
  EXPECT_TRUE(allclose(sd, row_loop(to_double, false, 1), 1e-12, 1e-12));
  Tensor md = x.mean({1}, false, kFloat64);
  EXPECT_TRUE(allclose(md, row_loop(to_double, false, 1.0 / 5), 1e-12, 1e-12));
  Tensor p = (x / 10).prod(1, false, kFloat64);
  EXPECT_TRUE(allclose(p, ((x / 10).to(kFloat64)).prod(1), 1e-12, 1e-12));
  Tensor pi = x.prod(1, false, kInt64);
  EXPECT_EQ(pi.dtype(), kInt64);
  EXPECT_TRUE(equal(pi, x.to(kInt64).prod(1)));

  // Integer and bool inputs into floating and narrower integer outputs.
  const Tensor u = tensor({200, 100, 7, 255}, kUInt8);
  EXPECT_EQ(u.sum(kFloat32).item<double>(), 562.0);
  EXPECT_EQ(u.sum(kInt16).item<int64_t>(), 562);
  EXPECT_EQ(u.sum(kUInt8).item<int64_t>(), 562 % 256);  // wraps, as PyTorch
  EXPECT_EQ((u > 50).sum(kInt32).item<int64_t>(), 3);
  EXPECT_EQ((u > 50).sum(kFloat64).item<double>(), 3.0);
  // Complex: real inputs into a complex output, complex64 into complex128.
  Tensor zc = x.sum({1}, false, kComplex128);
  EXPECT_EQ(zc.dtype(), kComplex128);
  EXPECT_TRUE(allclose(view_as_real(zc).select(1, 0), row_loop(to_double, false, 1), 1e-12, 1e-12));
  Tensor z = complex(x, x * 2);
  Tensor z128 = z.sum({1}, false, kComplex128);
  EXPECT_TRUE(allclose(view_as_real(z128).select(1, 1), row_loop(to_double, false, 2), 1e-12, 1e-12));
  // Outputs no sum computes are refused, naming the op and the dtype.
  EXPECT_THROW(x.sum(kBool), Error);
}

}  // namespace reduce_ops_test
