// Indexing: t.index / index_put_, gather/scatter, index_*, masks, nonzero, take.
// References: fixtures from scripts/fixtures/indexing.py (PyTorch, NumPy) and
// float64 loops. Fixture inputs are small integers, so every dtype is exact.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <sstream>
#include <string>

#include <ember/ember.h>

#include "npy.h"
#include "test_util.h"

using namespace ember;
using namespace ember::indexing;
using ember::testing::at;

namespace indexing_test {

Tensor fx(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("core/indexing/" + name + ".npy"));
}
Tensor idx(const std::string& name) { return fx("idx_" + name); }

// Same values as t, with non-contiguous (reversed-dims) strides.
Tensor noncontig(const Tensor& t) {
  std::vector<int64_t> rev;
  for (int64_t d = t.dim() - 1; d >= 0; --d) rev.push_back(d);
  return t.permute(rev).contiguous().permute(rev);
}

void expect_values(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what;
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec()) << what;
  const Tensor a = actual.to(kFloat64).contiguous(), e = expected.to(kFloat64).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::isnan(pe[i])) {
      EXPECT_TRUE(std::isnan(pa[i])) << what << " at flat " << i;
    } else {
      ASSERT_EQ(pa[i], pe[i]) << what << " at flat " << i;
    }
  }
}

template <class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an ember::Error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A 1-d index with the values of t but stride 2.
Tensor stack_like_strided(const Tensor& t) {
  Tensor pairs = zeros({t.numel(), 2}, t.dtype());
  pairs.select(1, 0).copy_(t);
  return pairs.select(1, 0);
}

// n int64 indices in [-high, high), seeded.
Tensor randint_like_index(int64_t high, int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  Tensor t = empty({n}, kInt64);
  for (int64_t i = 0; i < n; ++i) t.data_ptr<int64_t>()[i] = static_cast<int64_t>(rng() % (2 * high)) - high;
  return t;
}

// Variants of the fixture input: dtypes and layouts the cases run on.
struct Variant {
  std::string name;
  std::function<Tensor(const Tensor&)> make;
};
std::vector<Variant> variants() {
  return {
      {"float64", [](const Tensor& t) { return t; }},
      {"float32", [](const Tensor& t) { return t.to(kFloat32); }},
      {"int32", [](const Tensor& t) { return t.to(kInt32); }},
      {"int16 noncontig", [](const Tensor& t) { return noncontig(t.to(kInt16)); }},
      {"float64 noncontig", [](const Tensor& t) { return noncontig(t); }},
      {"float16 noncontig", [](const Tensor& t) { return noncontig(t.to(kFloat16)); }},
      {"complex64", [](const Tensor& t) { return t.to(kComplex64); }},
  };
}


// ---- reading ----

TEST(IndexingGet, BasicIndicesGiveViews) {
  Tensor x = fx("x");
  for (Tensor v : {x.index({1}), x.index({Slice(), 2}), x.index({Ellipsis, None, Slice(1, 4, 2)}),
                   x.index({"..."}), x.index({None})}) {
    EXPECT_EQ(v.storage(), x.storage());
    EXPECT_FALSE(v.is_same(x));
  }
  Tensor y = x.clone();
  Tensor row = y.index({2, Slice(1, 3)});
  row.fill_(42);
  EXPECT_EQ(at<double>(y, {2, 1, 5}), 42);
  EXPECT_EQ(at<double>(y, {2, 3, 0}), at<double>(x, {2, 3, 0}));
  // Advanced indices copy.
  Tensor copy = y.index({idx("i2")});
  EXPECT_NE(copy.storage(), y.storage());
  // [] on a Tensor is select(0, i).
  expect_values(x[3], x.index({3}), "operator[]");
}

TEST(IndexingGet, MatchesPyTorch) {
  const Tensor i3 = idx("i3"), i2 = idx("i2"), j2 = idx("j2"), k2 = idx("k2"), col = idx("col"),
               idx22 = idx("idx22"), m3 = idx("m3"), m45 = idx("m45"), m56 = idx("m56"),
               m45_u8 = idx("m45_u8");
  const Tensor zero_d = scalar_tensor(1, kInt64);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> cases = {
      {"int", [&](const Tensor& x) { return x.index({1}); }},
      {"slice_int", [&](const Tensor& x) { return x.index({Slice(), 2}); }},
      {"ellipsis_neg", [&](const Tensor& x) { return x.index({Ellipsis, -1}); }},
      {"slice_none_step", [&](const Tensor& x) { return x.index({Slice(1, 3), None, Slice(None, None, 2)}); }},
      {"none_ellipsis_none", [&](const Tensor& x) { return x.index({None, "...", None}); }},
      {"neg_bounds", [&](const Tensor& x) { return x.index({Slice(-3, -1), Slice(1), Slice(None, 4, 3)}); }},
      {"clamped", [&](const Tensor& x) { return x.index({Slice(2, 100), Slice(-100, 2)}); }},
      {"i3", [&](const Tensor& x) { return x.index({i3}); }},
      {"adjacent", [&](const Tensor& x) { return x.index({Slice(), i2, j2}); }},
      {"separated", [&](const Tensor& x) { return x.index({i2, Slice(), k2}); }},
      {"broadcast", [&](const Tensor& x) { return x.index({col, k2}); }},
      {"three", [&](const Tensor& x) { return x.index({i2, k2, j2}); }},
      {"last_2d", [&](const Tensor& x) { return x.index({Slice(), Slice(), idx22}); }},
      {"mask_full", [&](const Tensor& x) { return x.index({m3}); }},
      {"mask_lead", [&](const Tensor& x) { return x.index({m45}); }},
      {"mask_inner", [&](const Tensor& x) { return x.index({Slice(), m56}); }},
      {"mask_u8", [&](const Tensor& x) { return x.index({m45_u8}); }},
      {"int_tensors_none", [&](const Tensor& x) { return x.index({1, i2, None, k2}); }},
      {"ellipsis_tensor", [&](const Tensor& x) { return x.index({Ellipsis, i2}); }},
      {"tensor_ellipsis_tensor", [&](const Tensor& x) { return x.index({i2, Ellipsis, k2}); }},
      {"true", [&](const Tensor& x) { return x.index({true}); }},
      {"false", [&](const Tensor& x) { return x.index({false}); }},
      {"slice_true_tensor", [&](const Tensor& x) { return x.index({Slice(), true, i2}); }},
      {"scalar_tensor", [&](const Tensor& x) { return x.index({zero_d, Slice(), i2}); }},
      {"mask_slice", [&](const Tensor& x) { return x.index({m45, Slice(1, 3)}); }},
  };
  const Tensor x = fx("x");
  for (const auto& v : variants())
    for (const auto& [name, f] : cases) {
      Tensor r = f(v.make(x));
      EXPECT_EQ(r.dtype(), v.make(x).dtype());
      expect_values(r, fx("get_" + name), name + " (" + v.name + ")");
    }
}

TEST(IndexingGet, TensorIndexKinds) {
  std::ostringstream os;
  os << TensorIndex(None) << ' ' << TensorIndex(Ellipsis) << ' ' << TensorIndex(-2) << ' ' << TensorIndex(true)
     << ' ' << TensorIndex(Slice(1, None, 2)) << ' ' << TensorIndex(zeros({2, 3}, kInt64));
  EXPECT_EQ(os.str(), "None ... -2 True 1::2 Tensor([2, 3])");
  EXPECT_TRUE(TensorIndex("...").is_ellipsis());
  EXPECT_TRUE(TensorIndex(int8_t{3}).is_integer());
  EXPECT_TRUE(TensorIndex(Slice()).is_slice());
  // 0-d bool/uint8 tensors index like Python bools; 0-d ints like integers.
  const Tensor x = fx("x");
  expect_values(x.index({scalar_tensor(true)}), fx("get_true"), "0-d true");
  EXPECT_EQ(x.index({full({}, 0, kUInt8)}).sizes().vec(), (std::vector<int64_t>{0, 4, 5, 6}));
  EXPECT_EQ(x.index({scalar_tensor(2, kInt32), -1}).storage(), x.storage());
}

TEST(IndexingGet, FreeFunctionAndIndexTensorLayouts) {
  const Tensor x = fx("x");
  // at::index-style list: nullopt keeps a dim whole.
  expect_values(ember::index(x, {std::nullopt, idx("i2"), idx("j2")}), fx("get_adjacent"), "index()");
  expect_values(ember::index(x, {idx("m45")}), fx("get_mask_lead"), "index() mask");
  // Non-contiguous and int32 index tensors.
  Tensor i2 = idx("i2"), k2 = idx("k2");
  Tensor i2_strided = stack_like_strided(i2);
  expect_values(x.index({i2_strided, Slice(), k2.to(kInt32)}), fx("get_separated"), "strided index");
  // An expanded input (stride 0) reads fine.
  Tensor row = fx("x").index({0, 0});
  Tensor expanded = row.expand({3, 6});
  expect_values(expanded.index({Slice(), idx("i2")}), row.index({idx("i2")}).expand({3, 2}), "expanded");
}

TEST(IndexingGet, LargeMaskAndIndexPaths) {
  // Big enough for several parallel chunks; float64 loop reference.
  const int64_t rows = 1000, cols = 300;
  Tensor x = arange(rows * cols, kFloat64).view({rows, cols});
  std::mt19937 rng(7);
  Tensor m = empty({rows, cols}, kBool);
  for (int64_t i = 0; i < m.numel(); ++i) m.data_ptr<bool>()[i] = (rng() % 3) == 0;
  std::vector<double> expect;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (m.data_ptr<bool>()[i]) expect.push_back(static_cast<double>(i));
  Tensor got = x.index({m});
  ASSERT_EQ(got.numel(), static_cast<int64_t>(expect.size()));
  for (size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(got.data_ptr<double>()[i], expect[i]);
  // Same through the general path (non-contiguous self).
  Tensor xt = noncontig(x);
  expect_values(xt.index({m}), got, "mask noncontig");
  // Row mask on a transposed tensor, and a long index over rows.
  Tensor rmask = m.index({Slice(), 0});
  expect_values(xt.index({rmask}), x.index({rmask}), "row mask noncontig");
  Tensor ridx = randint_like_index(rows, 5000, 11);
  expect_values(xt.index({ridx}), x.index({ridx}), "row index noncontig");
  for (int64_t i = 0; i < 5000; i += 97)
    ASSERT_EQ(at<double>(x.index({ridx}), {i, 3}), at<double>(x, {ridx.data_ptr<int64_t>()[i], 3}));
}

TEST(IndexingGet, EmptyResultsAndEmptyInputs) {
  Tensor x = fx("x");
  EXPECT_EQ(x.index({empty({0}, kInt64)}).sizes().vec(), (std::vector<int64_t>{0, 5, 6}));
  EXPECT_EQ(x.index({Slice(), empty({0, 2}, kInt64)}).sizes().vec(), (std::vector<int64_t>{4, 0, 2, 6}));
  EXPECT_EQ(x.index({zeros({4, 5, 6}, kBool)}).numel(), 0);
  Tensor e = empty({0, 3});
  EXPECT_EQ(e.index({Slice(), idx("k2")}).sizes().vec(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(e.index({zeros({0, 3}, kBool)}).numel(), 0);
  // 0-d tensors: None and Ellipsis only.
  Tensor s = scalar_tensor(3.0, kFloat64);
  EXPECT_EQ(s.index({None}).sizes().vec(), std::vector<int64_t>{1});
  EXPECT_EQ(s.index({Ellipsis}).dim(), 0);
  EXPECT_EQ(s.index({true}).sizes().vec(), std::vector<int64_t>{1});
}

TEST(IndexingGet, Errors) {
  const Tensor x = fx("x");
  expect_error([&] { x.index({5}); }, "index: index 5 is out of bounds for dimension 0 with size 4");
  expect_error([&] { x.index({Slice(), -6}); }, "index -6 is out of bounds for dimension 1 with size 5");
  expect_error([&] { x.index({Slice(None, None, -1)}); }, "step must be greater than zero");
  expect_error([&] { x.index({Slice(None, None, 0)}); }, "step must be greater than zero");
  expect_error([&] { x.index({0, 0, 0, 0}); }, "too many indices for tensor of dimension 3");
  expect_error([&] { x.index({idx("m45"), 0, 0}); }, "too many indices");
  expect_error([&] { x.index({Ellipsis, 0, Ellipsis}); }, "single ellipsis");
  expect_error([&] { x.index(ArrayRef<TensorIndex>()); }, "empty index list");
  expect_error([&] { x.index({tensor({0, 4})}); }, "index 4 is out of bounds for dimension 0 with size 4");
  expect_error([&] { x.index({Slice(), tensor({-6})}); }, "index -6 is out of bounds for dimension 1 with size 5");
  expect_error([&] { noncontig(x).index({Slice(), Slice(), tensor({0, 6})}); },
               "index 6 is out of bounds for dimension 2 with size 6");
  expect_error([&] { x.index({idx("i2"), Slice(), tensor({7, 0})}); },
               "index 7 is out of bounds for dimension 2 with size 6");
  expect_error([&] { x.index({tensor({1.0f})}); }, "tensors used as indices must be");
  expect_error([&] { x.index({idx("m56")}); }, "does not match the shape of the indexed tensor");
  expect_error([&] { x.index({idx("i3"), idx("i2")}); }, "could not be broadcast together with shapes [3], [2]");
  expect_error([&] { x.index({idx("m45"), idx("k2")}); }, "could not be broadcast");
  expect_error([] { TensorIndex bad("..."); TensorIndex worse(".."); }, "expected \"...\"");
  expect_error([&] { x.index({Tensor()}); }, "undefined index tensor");
}

// ---- writing ----

TEST(IndexingPut, MatchesPyTorch) {
  const Tensor i2 = idx("i2"), k2 = idx("k2"), m3 = idx("m3"), m45 = idx("m45");
  const Tensor v_rows = fx("v_rows"), v_sep = fx("v_sep"), row6 = fx("v_row6");
  const Tensor dup = idx("dup"), v_dup = fx("v_dup"), pi = idx("pi"), pj = idx("pj"), pv = fx("v_pairs");
  using PutFn = std::function<void(Tensor&, DType)>;
  const std::vector<std::pair<std::string, PutFn>> cases = {
      {"rows", [&](Tensor& y, DType t) { y.index_put_({i2}, v_rows.to(t)); }},
      {"basic_scalar", [&](Tensor& y, DType) { y.index_put_({Slice(), 1}, -7.0); }},
      {"basic_broadcast", [&](Tensor& y, DType t) { y.index_put_({Ellipsis, Slice(1, 3), Slice()}, row6.to(t)); }},
      {"adjacent_row", [&](Tensor& y, DType t) { y.index_put_({Slice(), i2}, row6.to(t)); }},
      {"separated", [&](Tensor& y, DType t) { y.index_put_({i2, Slice(), k2}, v_sep.to(t)); }},
      {"mask_scalar", [&](Tensor& y, DType) { y.index_put_({m3}, 0.5); }},
      {"mask_lead_row", [&](Tensor& y, DType t) { y.index_put_({m45}, row6.to(t)); }},
      {"accumulate_dup", [&](Tensor& y, DType t) { ember::index_put_(y, {dup}, v_dup.to(t), true); }},
      {"accumulate_pairs",
       [&](Tensor& y, DType t) { ember::index_put_(y, {pi, pj}, pv.to(t).view({5, 1}).expand({5, 6}), true); }},
      {"accumulate_none",
       [&](Tensor& y, DType t) {
         ember::index_put_(y, {std::nullopt, pi}, v_dup.to(t).index({Slice(), Slice(None, 5)}), true);
       }},
  };
  const Tensor x = fx("x");
  for (DType t : {kFloat64, kFloat32, kInt64, kInt16})
    for (bool nc : {false, true})
      for (const auto& [name, f] : cases) {
        if (is_integral(t) && (name == "mask_scalar")) continue;  // 0.5 is not representable
        Tensor y = nc ? noncontig(x.to(t)) : x.to(t, /*copy=*/true);
        f(y, t);
        expect_values(y, fx("put_" + name), name + " (" + std::string(dtype_name(t)) + (nc ? " noncontig)" : ")"));
      }
}

TEST(IndexingPut, AccumulateDuplicatesLoopReference) {
  // Many duplicates into few slots, float64 loop reference.
  Tensor y = zeros({7}, kFloat64);
  Tensor where_to = empty({20000}, kInt64);
  Tensor vals = empty({20000}, kFloat64);
  std::vector<double> ref(7, 0.0);
  for (int64_t i = 0; i < 20000; ++i) {
    const int64_t k = (i * 31 + 5) % 7 - (i % 2 ? 7 : 0);  // negative indices count from the end
    where_to.data_ptr<int64_t>()[i] = k;
    vals.data_ptr<double>()[i] = static_cast<double>(i % 13);
    ref[(k + 7) % 7] += static_cast<double>(i % 13);
  }
  ember::index_put_(y, {where_to}, vals, true);
  for (int64_t k = 0; k < 7; ++k) EXPECT_EQ(y.data_ptr<double>()[k], ref[k]);
  // Out-of-place variant leaves self alone.
  Tensor z = zeros({7}, kFloat64);
  Tensor r = ember::index_put(z, {where_to}, vals, true);
  EXPECT_EQ(z.sum().item<double>(), 0.0);
  expect_values(r, y, "index_put");
  // Bool accumulate is logical or.
  Tensor b = zeros({3}, kBool);
  ember::index_put_(b, {tensor({0, 0, 2})}, tensor({true, false, false}), true);
  EXPECT_TRUE(b.data_ptr<bool>()[0]);
  EXPECT_FALSE(b.data_ptr<bool>()[2]);
}

TEST(IndexingPut, ValueBroadcastAndAliasing) {
  Tensor y = zeros({3, 4}, kFloat32);
  // Leading size-1 dims of the value are dropped.
  y.index_put_({tensor({0, 2})}, ones({1, 1, 4}, kFloat32));
  EXPECT_EQ(y.sum().item<float>(), 8.f);
  // Basic path: the value is cast to self's dtype as copy_ does.
  y.index_put_({Slice(), 0}, full({3}, 2.5, kFloat64));
  EXPECT_EQ(at<float>(y, {1, 0}), 2.5f);
  // Reading what is written: x[idx] = x[other] uses the old values.
  Tensor a = arange(6, kFloat64);
  a.index_put_({tensor({1, 2, 3})}, a.index({Slice(0, 3)}));
  expect_values(a, tensor({0.0, 0.0, 1.0, 2.0, 4.0, 5.0}), "aliased put");
  Tensor b = arange(6, kFloat64);
  b.index_put_({Slice(1, 4)}, b.index({Slice(0, 3)}));
  expect_values(b, tensor({0.0, 0.0, 1.0, 2.0, 4.0, 5.0}), "aliased basic put");
  // Version counter moves on writes.
  const uint64_t v0 = y._version();
  y.index_put_({tensor({1})}, 3.0);
  EXPECT_GT(y._version(), v0);
}

TEST(IndexingPut, Errors) {
  Tensor y = fx("x").clone();
  expect_error([&] { y.index_put_({idx("i2")}, ones({2, 5, 6}, kFloat32)); }, "dtypes match");
  expect_error([&] { y.index_put_({idx("i2")}, ones({3}, kFloat64)); },
               "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 5, 6]");
  expect_error([&] { y.index_put_({Slice(), 0}, ones({2, 6}, kFloat64)); }, "cannot be broadcast");
  expect_error([&] { y.index_put_({tensor({4})}, 1.0); }, "index 4 is out of bounds for dimension 0 with size 4");
  expect_error([&] { y.index_put_({7}, 1.0); }, "index 7 is out of bounds");
  Tensor expanded = zeros({1, 3}).expand({4, 3});
  expect_error([&] { expanded.index_put_({tensor({0})}, 1.0); }, "single memory location");
  // A failed put leaves self untouched.
  Tensor before = y.clone();
  expect_error([&] { ember::index_put_(y, {tensor({0, 9})}, ones({2, 5, 6}, kFloat64), true); }, "index 9");
  expect_values(y, before, "unchanged after error");
}

// ---- gather / scatter ----

TEST(GatherScatter, GatherMatchesPyTorch) {
  const Tensor x = fx("x");
  for (const auto& v : variants())
    for (int64_t dim : {0, 1, 2}) {
      const std::string n = std::to_string(dim);
      const Tensor index = idx("g" + n);
      expect_values(v.make(x).gather(dim, index), fx("gather" + n), "gather" + n + " " + v.name);
      expect_values(gather(v.make(x), dim - 3, noncontig(index)), fx("gather" + n), "gather nc index " + v.name);
    }
}

TEST(GatherScatter, GatherLoopReference) {
  // Sliced self, transposed index, long last dim: float64 loop reference.
  Tensor base = arange(3 * 40 * 50, kFloat64).view({3, 40, 50});
  Tensor self = base.index({Slice(), Slice(None, None, 2)});  // (3, 20, 50), non-contiguous
  std::mt19937 rng(3);
  Tensor index = empty({3, 20, 70}, kInt64);
  for (int64_t i = 0; i < index.numel(); ++i) index.data_ptr<int64_t>()[i] = rng() % 50;
  Tensor out = self.gather(2, index);
  Tensor out_dim1 = self.gather(1, index.index({Slice(), Slice(None, 20), Slice(None, 50)}).remainder(20));
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 20; b += 3)
      for (int64_t c = 0; c < 70; c += 7) {
        ASSERT_EQ(at<double>(out, {a, b, c}), at<double>(self, {a, b, at<int64_t>(index, {a, b, c})}));
        if (c < 50) {
          const int64_t r = at<int64_t>(index, {a, b, c}) % 20;
          ASSERT_EQ(at<double>(out_dim1, {a, b, c}), at<double>(self, {a, r, c}));
        }
      }
  // gather_out writes into a given tensor.
  Tensor dst = empty({3, 20, 70}, kFloat64);
  gather_out(dst, self, 2, index);
  expect_values(dst, out, "gather_out");
  // 0-d input and empty index.
  EXPECT_EQ(scalar_tensor(5.0).gather(0, tensor({0, 0})).sizes().vec(), std::vector<int64_t>{2});
  EXPECT_EQ(self.gather(1, empty({3, 0, 50}, kInt64)).numel(), 0);
}

TEST(GatherScatter, ScatterMatchesPyTorch) {
  const Tensor x = fx("x"), src = fx("src"), si = idx("s1");
  for (DType t : {kFloat64, kFloat32, kInt32, kInt64})
    for (bool nc : {false, true}) {
      const std::string what = std::string(dtype_name(t)) + (nc ? " noncontig" : "");
      auto in = [&](const Tensor& a) { return nc ? noncontig(a.to(t)) : a.to(t); };
      expect_values(in(x).scatter_add(1, si, in(src)), fx("scatter_add1"), "scatter_add " + what);
      expect_values(in(x).scatter(1, si, in(src), "add"), fx("scatter_addr1"), "scatter add " + what);
      expect_values(in(x).scatter(1, si, in(src), "multiply"), fx("scatter_mul1"), "scatter mul " + what);
      expect_values(in(x).scatter(1, noncontig(idx("perm")), in(src)), fx("scatter1"), "scatter " + what);
      if (is_floating_point(t))
        expect_values(in(x).scatter(1, si, 3.5), fx("scatter_value1"), "scatter value " + what);
      for (std::string reduce : {"sum", "prod", "mean", "amax", "amin"})
        for (bool self : {true, false}) {
          if (reduce == "mean" && t != kFloat64) continue;  // float32 division rounds differently
          const std::string name = "scatter_reduce_" + reduce + (self ? "_self" : "_noself");
          expect_values(in(x).scatter_reduce(1, si, in(src), reduce, self), fx(name), name + " " + what);
        }
    }
  expect_values(fx("x").to(kInt64).scatter_reduce(1, si, fx("src").to(kInt64), "mean"),
                fx("scatter_reduce_mean_int"), "integer mean floors");
}

TEST(GatherScatter, ScatterInPlaceAndLoopReference) {
  // scatter_add_ with heavy duplicates along dim 0 of a transposed self.
  Tensor self = zeros({6, 50}, kFloat64).t().contiguous().t();
  std::mt19937 rng(5);
  Tensor index = empty({400, 50}, kInt64);
  Tensor src = empty({400, 50}, kFloat64);
  std::vector<double> ref(6 * 50, 0.0);
  for (int64_t i = 0; i < 400; ++i)
    for (int64_t j = 0; j < 50; ++j) {
      const int64_t k = rng() % 6;
      const double v = static_cast<double>(rng() % 100);
      index.data_ptr<int64_t>()[i * 50 + j] = k;
      src.data_ptr<double>()[i * 50 + j] = v;
      ref[k * 50 + j] += v;
    }
  Tensor& r = self.scatter_add_(0, index, src);
  EXPECT_TRUE(r.is_same(self));
  for (int64_t k = 0; k < 6; ++k)
    for (int64_t j = 0; j < 50; ++j) ASSERT_EQ(at<double>(self, {k, j}), ref[k * 50 + j]);
  // NaN wins in amax; empty index changes nothing.
  Tensor a = tensor({1.f, 2.f});
  a.scatter_reduce_(0, tensor({0, 0}), tensor({NAN, 5.f}), "amax");
  EXPECT_TRUE(std::isnan(a.data_ptr<float>()[0]));
  Tensor b = tensor({1.0, 2.0});
  b.scatter_(0, empty({0}, kInt64), 9.0);
  expect_values(b, tensor({1.0, 2.0}), "empty scatter");
  // Bool scatter_reduce sum is logical or.
  Tensor c = tensor({true, false});
  expect_values(c.scatter_reduce(0, tensor({0, 0, 1}), tensor({true, true, true}), "sum"),
                tensor({true, true}), "bool sum");
}

TEST(GatherScatter, Errors) {
  const Tensor x = fx("x");
  expect_error([&] { x.gather(1, tensor({5}).view({1, 1, 1})); },
               "gather: index 5 is out of bounds for dimension 1 with size 5");
  expect_error([&] { x.gather(2, full({1, 1, 3}, -1, kInt64)); },
               "gather: index -1 is out of bounds for dimension 2 with size 6");
  expect_error([&] { x.gather(0, zeros({1, 1, 1}, kInt32)); }, "expected dtype int64 for index");
  expect_error([&] { x.gather(0, zeros({1, 1}, kInt64)); }, "same number of dimensions");
  expect_error([&] { x.gather(0, zeros({1, 6, 1}, kInt64)); }, "to be smaller than self");
  expect_error([&] { x.gather(3, zeros({1, 1, 1}, kInt64)); }, "dimension out of range");
  Tensor y = x.clone();
  expect_error([&] { y.scatter_(1, full({1, 1, 1}, 5, kInt64), zeros({1, 1, 1}, kFloat64)); },
               "scatter_: index 5 is out of bounds for dimension 1 with size 5");
  expect_error([&] { y.scatter_(1, zeros({1, 1, 1}, kInt64), zeros({1, 1, 1}, kFloat32)); },
               "expected self.dtype to be equal to src.dtype");
  expect_error([&] { y.scatter_(1, zeros({2, 2, 2}, kInt64), zeros({1, 1, 1}, kFloat64)); },
               "smaller size than src");
  expect_error([&] { y.scatter_(1, zeros({1, 1, 1}, kInt64), 1.0, "max"); }, "either add or multiply");
  expect_error([&] { y.scatter_reduce_(1, zeros({1, 1, 1}, kInt64), zeros({1, 1, 1}, kFloat64), "max"); },
               "sum, prod, mean, amax or amin");
  expect_error([&] { y.scatter_add_(0, zeros({1, 1, 1}, kInt64), zeros({1, 1}, kFloat64)); },
               "same number of dimensions as src");
  Tensor expanded = zeros({1, 3}).expand({4, 3});
  expect_error([&] { expanded.scatter_(0, zeros({1, 1}, kInt64), 1.0); }, "single memory location");
}

// ---- index_select / index_add / index_copy / index_fill ----

TEST(IndexAlongDim, MatchesPyTorch) {
  const Tensor x = fx("x"), sel = idx("sel"), src = fx("src");
  for (const auto& v : variants()) {
    for (int64_t dim : {0, 1, 2}) {
      const std::string n = std::to_string(dim);
      expect_values(v.make(x).index_select(dim, sel), fx("index_select" + n), "index_select" + n + " " + v.name);
      expect_values(index_select(v.make(x), dim - 3, sel.to(kInt32)), fx("index_select" + n), "int32 index " + v.name);
    }
    const Tensor s = v.make(src);
    expect_values(v.make(x).index_add(1, sel, s.index({Slice(), Slice(None, 4)}), 2), fx("index_add1"),
                  "index_add " + v.name);
    expect_values(v.make(x).index_copy(2, idx("cpy"), s.index({Slice(), Slice(), Slice(None, 3)})),
                  fx("index_copy2"), "index_copy " + v.name);
    if (is_floating_point(v.make(x).dtype()))
      expect_values(v.make(x).index_fill(1, tensor({0, -1}), -2.5), fx("index_fill1"), "index_fill " + v.name);
  }
  // In place, with a 0-d value tensor.
  Tensor y = x.clone();
  y.index_fill_(1, tensor({0, -1}), scalar_tensor(-2.5, kFloat64));
  expect_values(y, fx("index_fill1"), "index_fill_ tensor value");
  Tensor z = x.clone();
  z.index_add_(1, sel, src.index({Slice(), Slice(None, 4)}), 2);
  expect_values(z, fx("index_add1"), "index_add_");
}

TEST(IndexAlongDim, SelectPathsAgree) {
  // Contiguous fast paths (row memcpy, element gather) vs the strided path.
  Tensor x = arange(300 * 70, kFloat32).view({300, 70});
  Tensor index = tensor({299, 0, 5, 5, 150, 1});
  Tensor rows = x.index_select(0, index);
  Tensor rows_nc = noncontig(x).index_select(0, index);
  expect_values(rows_nc, rows, "rows");
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 70; j += 13)
      ASSERT_EQ(at<float>(rows, {i, j}), at<float>(x, {at<int64_t>(index, {i}), j}));
  Tensor cols = x.index_select(1, tensor({69, 0, 3}));
  expect_values(noncontig(x).index_select(1, tensor({69, 0, 3})), cols, "cols");
  EXPECT_EQ(at<float>(cols, {7, 0}), at<float>(x, {7, 69}));
  Tensor out = empty({0});
  index_select_out(out, x, 0, index);
  expect_values(out, rows, "index_select_out");
  // 0-d index and input.
  EXPECT_EQ(x.index_select(0, scalar_tensor(3, kInt64)).sizes().vec(), (std::vector<int64_t>{1, 70}));
  EXPECT_EQ(scalar_tensor(2.0).index_select(0, tensor({0})).dim(), 0);
  // Bool, float16 and complex move by element width.
  Tensor b = tensor({true, false, true});
  expect_values(b.index_select(0, tensor({2, 1})), tensor({true, false}), "bool");
  Tensor h = x.to(kFloat16).index({Slice(None, 4), Slice(None, 4)});
  expect_values(h.index_select(1, tensor({3})), x.index({Slice(None, 4), Slice(3, 4)}), "half");
}

TEST(IndexAlongDim, Errors) {
  const Tensor x = fx("x");
  expect_error([&] { x.index_select(0, tensor({7})); }, "index_select: index 7 is out of bounds for dimension 0 with size 4");
  expect_error([&] { x.index_select(0, tensor({-1})); }, "index -1 is out of bounds");
  expect_error([&] { noncontig(x).index_select(2, tensor({6})); }, "index 6 is out of bounds for dimension 2 with size 6");
  expect_error([&] { x.index_select(0, zeros({1, 1}, kInt64)); }, "index is supposed to be a vector");
  expect_error([&] { x.index_select(0, zeros({1}, kFloat32)); }, "expected dtype int32 or int64");
  Tensor y = x.clone();
  expect_error([&] { y.index_add_(0, tensor({0}), ones({1, 5, 6}, kFloat32)); }, "must have the same scalar type");
  expect_error([&] { y.index_add_(0, tensor({0, 1}), ones({1, 5, 6}, kFloat64)); }, "number of indices (2)");
  expect_error([&] { y.index_add_(0, tensor({0}), ones({1, 4, 6}, kFloat64)); }, "must have the same size apart from dimension 0");
  expect_error([&] { y.index_add_(0, tensor({4}), ones({1, 5, 6}, kFloat64)); }, "index_add_: index 4 is out of bounds");
  expect_error([&] { y.index_copy_(2, tensor({-1}), ones({4, 5, 1}, kFloat64)); }, "index_copy_: index -1 is out of bounds");
  expect_error([&] { y.index_fill_(1, tensor({-6}), 1.0); }, "index_fill_: index -6 is out of bounds for dimension 1 with size 5");
  expect_error([&] { y.index_fill_(1, tensor({0}), ones({2})); }, "0-dimensional value tensor");
}

// ---- masks ----

TEST(Masks, MaskedSelectAndScatterMatchPyTorch) {
  const Tensor x = fx("x");
  for (const auto& v : variants()) {
    expect_values(v.make(x).masked_select(idx("m56")), fx("masked_select_bcast"), "masked_select " + v.name);
    expect_values(v.make(x).masked_scatter(idx("m3"), v.make(fx("src") * 10)), fx("masked_scatter"),
                  "masked_scatter " + v.name);
  }
  expect_values(masked_select(x, idx("m3").to(kUInt8)), x.index({idx("m3")}), "uint8 mask");
  Tensor out = empty({0}, kFloat64);
  masked_select_out(out, x, idx("m3"));
  expect_values(out, x.index({idx("m3")}), "masked_select_out");
  // In place on a non-contiguous self with a broadcast mask.
  Tensor y = noncontig(x.clone());
  y.masked_scatter_(idx("m56"), arange(200, kFloat64));
  Tensor m = idx("m56").expand({4, 5, 6});
  int64_t k = 0;
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 6; ++c)
        ASSERT_EQ(at<double>(y, {a, b, c}), at<bool>(m, {a, b, c}) ? static_cast<double>(k++) : at<double>(x, {a, b, c}));
}

TEST(Masks, LargeMaskedSelectLoopReference) {
  // Several chunks; dense, sparse and all-true runs exercise each fill branch.
  for (int pattern = 0; pattern < 3; ++pattern) {
    const int64_t n = 700001;
    Tensor x = arange(n, kInt32);
    Tensor m = empty({n}, kBool);
    std::mt19937 rng(pattern);
    std::vector<int32_t> expect;
    for (int64_t i = 0; i < n; ++i) {
      bool on = pattern == 0 ? rng() % 2 : pattern == 1 ? rng() % 1000 == 0 : (i / 64) % 3 != 0;
      m.data_ptr<bool>()[i] = on;
      if (on) expect.push_back(static_cast<int32_t>(i));
    }
    Tensor got = x.masked_select(m);
    ASSERT_EQ(got.numel(), static_cast<int64_t>(expect.size()));
    for (size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(got.data_ptr<int32_t>()[i], expect[i]);
    Tensor nz = m.nonzero();
    ASSERT_EQ(nz.sizes().vec(), (std::vector<int64_t>{static_cast<int64_t>(expect.size()), 1}));
    for (size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(nz.data_ptr<int64_t>()[i], expect[i]);
  }
}

TEST(Masks, NonzeroMatchesPyTorch) {
  const Tensor x = fx("x");
  for (const auto& v : variants()) {
    expect_values(nonzero(v.make(x).real() > 3), fx("nonzero3"), "nonzero bool " + v.name);
    expect_values(v.make(x).index({0}).nonzero(), fx("nonzero_float"), "nonzero " + v.name);
  }
  expect_values(argwhere(x > 3), fx("nonzero3"), "argwhere");
  std::vector<Tensor> cols = where(x > 3);
  ASSERT_EQ(cols.size(), 3u);
  for (int64_t d = 0; d < 3; ++d) expect_values(cols[d], fx("nonzero3").select(1, d), "where column");
  EXPECT_EQ((x > 3).nonzero_numpy().size(), 3u);
  // 0-d and empty inputs.
  EXPECT_EQ(nonzero(scalar_tensor(2.0)).sizes().vec(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(nonzero(scalar_tensor(0.0)).sizes().vec(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(nonzero_numpy(scalar_tensor(true))[0].sizes().vec(), std::vector<int64_t>{1});
  EXPECT_EQ(nonzero(empty({0, 3})).sizes().vec(), (std::vector<int64_t>{0, 2}));
  // NaN is non-zero; multi-dim rows over chunk boundaries vs a loop.
  EXPECT_EQ(nonzero(tensor({0.f, NAN})).numel(), 1);
  Tensor big = (arange(3 * 700 * 90, kInt64).view({3, 700, 90}).remainder(7) == 0).to(kFloat32);
  Tensor nz = nonzero(big);
  int64_t k = 0;
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 700; ++b)
      for (int64_t c = 0; c < 90; ++c)
        if (((a * 700 + b) * 90 + c) % 7 == 0) {
          ASSERT_EQ(at<int64_t>(nz, {k, 0}), a);
          ASSERT_EQ(at<int64_t>(nz, {k, 1}), b);
          ASSERT_EQ(at<int64_t>(nz, {k, 2}), c);
          ++k;
        }
  EXPECT_EQ(k, nz.size(0));
}

TEST(Masks, Errors) {
  const Tensor x = fx("x");
  expect_error([&] { x.masked_select(zeros({4, 5, 6}, kFloat32)); }, "expected a bool (or uint8) mask");
  expect_error([&] { x.masked_select(zeros({3, 6}, kBool)); }, "not broadcastable");
  Tensor y = x.clone();
  expect_error([&] { y.masked_scatter_(ones({6}, kBool), ones({10}, kFloat64)); },
               "number of elements of source (10) < number of ones in mask (120)");
  expect_error([&] { y.masked_scatter_(ones({6}, kBool), ones({200}, kFloat32)); }, "same dtypes");
  expect_error([&] { y.masked_scatter_(ones({2, 4, 5, 6}, kBool), ones({300}, kFloat64)); },
               "is not broadcastable to self");
}

// ---- take ----

TEST(Take, MatchesPyTorch) {
  const Tensor x = fx("x");
  for (const auto& v : variants()) {
    expect_values(v.make(x).take(idx("take")), fx("take"), "take " + v.name);
    expect_values(v.make(x).transpose(0, 2).take(idx("take")), fx("take_t"), "take transposed " + v.name);
    expect_values(take_along_dim(v.make(x), idx("tad"), 2), fx("take_along_dim2"), "take_along_dim " + v.name);
  }
  expect_values(take_along_dim(x, tensor({119, 0})), tensor({at<double>(x, {3, 4, 5}), at<double>(x, {0, 0, 0})}),
                "take_along_dim flat");
  expect_error([&] { x.take(tensor({120})); }, "take: index 120 is out of bounds for dimension 0 with size 120");
  expect_error([&] { x.take(tensor({-121})); }, "index -121 is out of bounds");
  expect_error([&] { x.take(zeros({1}, kInt32)); }, "expected a long tensor");
  expect_error([&] { take_along_dim(x, zeros({4, 5}, kInt64), 1); }, "same number of dimensions");
  EXPECT_EQ(x.take(empty({0, 2}, kInt64)).sizes().vec(), (std::vector<int64_t>{0, 2}));
}

}  // namespace indexing_test
