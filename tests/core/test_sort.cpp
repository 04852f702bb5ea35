// Sorting and selection: sort, argsort, msort, topk, kthvalue, median,
// nanmedian, mode, unique. Fixtures from scripts/fixtures/sort.py (PyTorch
// 1.13), plus loop references for dtypes and layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <ember/ember.h>

#include "tensor_expect.h"
#include "test_util.h"

using namespace ember;
using ember::testing::at;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace sort_test {
Tensor fx(const std::string& name) { return ember::testing::fixture("sort", name); }
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

TEST(Sort, MatchesTorch) {
  Tensor x = fx("x");
  struct Case {
    std::string name;
    int64_t dim;
    bool desc;
  };
  for (const Case& c : {Case{"asc_1", 1, false}, Case{"desc_1", -1, true}, Case{"asc_0", -2, false}}) {
    SCOPED_TRACE(c.name);
    auto [v, i] = sort(x, c.dim, c.desc);
    expect_tensor_near(v, fx("sort_" + c.name + "_values"));
    expect_tensor_near(i, fx("sort_" + c.name + "_indices"));
    // Transposed input, float64 and half.
    auto [tv, ti] = x.t().contiguous().t().sort(c.dim, c.desc);
    expect_tensor_near(tv, fx("sort_" + c.name + "_values"));
    expect_tensor_near(ti, fx("sort_" + c.name + "_indices"));
    expect_tensor_near(sort(x.to(kFloat64), c.dim, c.desc).first, fx("sort_" + c.name + "_values").to(kFloat64));
    expect_tensor_near(argsort(x, c.dim, c.desc), fx("sort_" + c.name + "_indices"));
  }
}

TEST(Sort, StableWithTiesAndNanLikeTorch) {
  Tensor t = fx("ties");
  for (bool desc : {false, true}) {
    const std::string tag = desc ? "desc" : "asc";
    auto [v, i] = sort(t, 1, desc, /*stable=*/true);
    expect_tensor_near(v, fx("sort_ties_" + tag + "_values"));
    expect_tensor_near(i, fx("sort_ties_" + tag + "_indices"));
    auto [fv, fi] = sort(t.to(kFloat32), 1, desc, true);
    expect_tensor_near(fi, fx("sort_ties_" + tag + "_indices"));
    auto [hv, hi] = sort(t.to(kHalf), 1, desc, true);
    expect_tensor_near(hi, fx("sort_ties_" + tag + "_indices"));
  }
}

TEST(Sort, IntegerBoolDtypesAgainstStdSort) {
  Tensor base = tensor({5, -3, 7, 0, 7, 2, -3, 9, 1, 0, 4, 4}).view({3, 4});
  for (DType dt : {kInt64, kInt32, kInt16, kUInt8, kInt8}) {
    Tensor x = (dt == kUInt8 ? base.abs() : base).to(dt);
    for (bool desc : {false, true}) {
      auto [v, i] = sort(x, 0, desc);
      EXPECT_EQ(v.dtype(), dt);
      for (int64_t c = 0; c < 4; ++c) {
        std::vector<std::pair<int64_t, int64_t>> col;
        for (int64_t r = 0; r < 3; ++r) col.push_back({at<int64_t>(x, {r, c}), r});
        std::stable_sort(col.begin(), col.end(),
                         [&](auto a, auto b) { return desc ? a.first > b.first : a.first < b.first; });
        for (int64_t r = 0; r < 3; ++r) {
          ASSERT_EQ(at<int64_t>(v, {r, c}), col[r].first) << dt;
          ASSERT_EQ(at<int64_t>(i, {r, c}), col[r].second) << dt;
        }
      }
    }
  }
  auto [bv, bi] = sort(tensor({true, false, true}));
  EXPECT_TRUE(equal(bv, tensor({false, true, true})));
  EXPECT_TRUE(equal(bi, tensor({1, 0, 2})));
  EXPECT_TRUE(equal(msort(tensor({3, 1, 2, 0}).view({2, 2})), tensor({2, 0, 3, 1}).view({2, 2})));
}

TEST(Sort, EmptyZeroDimAndErrors) {
  EXPECT_EQ(sort(empty({0, 3}), 1).first.sizes(), IntArrayRef({0, 3}));
  auto [sv, si] = sort(scalar_tensor(3.0));
  EXPECT_EQ(sv.dim(), 0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  expect_error([] { sort(ones({2, 3}), -3); }, "dimension out of range");
  expect_error([] { sort(ones({3}, kComplex64)); }, "complex");
}

TEST(Topk, MatchesTorch) {
  Tensor x = fx("x");
  for (bool largest : {true, false}) {
    const std::string tag = largest ? "largest" : "smallest";
    auto [v, i] = topk(x, 3, 1, largest);
    expect_tensor_near(v, fx("topk_" + tag + "_values"));
    expect_tensor_near(i, fx("topk_" + tag + "_indices"));
    auto [tv, ti] = x.t().topk(3, 0, largest);
    expect_tensor_near(tv, fx("topk_" + tag + "_values").t());
    expect_tensor_near(ti, fx("topk_" + tag + "_indices").t());
    // Unsorted: the same set.
    auto [uv, ui] = topk(x, 3, -1, largest, /*sorted=*/false);
    expect_tensor_near(std::get<0>(sort(uv, 1, largest)), fx("topk_" + tag + "_values"));
  }
}

TEST(Topk, NanTiesAndEdgeCases) {
  Tensor t = tensor({kNan, 1.0, kNan, 3.0, 1.0}, kFloat64);
  auto [v, i] = topk(t, 3);  // NaN is the largest; ties go to the lower index
  EXPECT_TRUE(std::isnan(at<double>(v, {0})) && std::isnan(at<double>(v, {1})));
  EXPECT_EQ(at<double>(v, {2}), 3.0);
  EXPECT_TRUE(equal(i, tensor({0, 2, 3})));
  auto [sv, si] = topk(t, 3, 0, /*largest=*/false);
  EXPECT_TRUE(equal(si, tensor({1, 4, 3})));
  EXPECT_EQ(topk(ones({2, 3}), 0).first.sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(topk(scalar_tensor(2.0), 1).first.item<double>(), 2.0);
  EXPECT_EQ(topk(scalar_tensor(2.0), 0).first.item<double>(), 2.0);
  auto [iv, ii] = topk(tensor({3, 9, 1, 9}, kInt32), 2);
  EXPECT_TRUE(equal(iv, tensor({9, 9}, kInt32)));
  EXPECT_TRUE(equal(ii, tensor({1, 3})));
  // Many rows, k large enough for the nth_element path, compared with sort.
  Tensor big = arange(4000, kFloat32).view({40, 100}).sin();
  auto [bv, bi] = topk(big, 60, 1);
  auto [sorted_v, sorted_i] = sort(big, 1, /*descending=*/true);
  EXPECT_TRUE(equal(bv, sorted_v.narrow(1, 0, 60)));
  EXPECT_TRUE(equal(bi, sorted_i.narrow(1, 0, 60)));
  expect_error([] { topk(ones({2, 3}), 4); }, "k out of range");
  expect_error([] { topk(ones({2, 3}), -1); }, "k out of range");
  expect_error([] { topk(ones({2, 3}), 1, 2); }, "dimension out of range");
}

TEST(Kthvalue, MatchesTorchAndChecksK) {
  Tensor x = fx("x");
  auto [v, i] = kthvalue(x, 2, 0);
  expect_tensor_near(v, fx("kthvalue_2_dim0_values"));
  expect_tensor_near(i, fx("kthvalue_2_dim0_indices"));
  auto [kv, ki] = x.kthvalue(2, -2, /*keepdim=*/true);
  EXPECT_EQ(kv.sizes(), IntArrayRef({1, 7}));
  auto [nv, ni] = kthvalue(tensor({1.0, kNan, 3.0}, kFloat64), 3);
  EXPECT_TRUE(std::isnan(nv.item<double>()));
  EXPECT_EQ(ni.item<int64_t>(), 1);
  EXPECT_EQ(kthvalue(tensor({4, 1, 3}, kUInt8), 2).first.item<int64_t>(), 3);
  expect_error([] { kthvalue(ones({2, 3}), 4); }, "k out of range");
  expect_error([] { kthvalue(ones({2, 3}), 0); }, "k out of range");
  expect_error([] { kthvalue(empty({0, 3}), 1, 0); }, "non-zero size");
}

TEST(Median, MatchesTorch) {
  Tensor x = fx("x");
  // (scripts/fixtures save() stores 0-d tensors as shape [1].)
  expect_tensor_near(median(x), fx("median_all").reshape({}));
  for (int64_t dim : {0, 1}) {
    auto [v, i] = median(x, dim);
    expect_tensor_near(v, fx("median_dim" + std::to_string(dim) + "_values"));
    expect_tensor_near(i, fx("median_dim" + std::to_string(dim) + "_indices"));
  }
  Tensor t = fx("ties");
  auto [mv, mi] = t.median(1);  // every row has a NaN: NaN and the first NaN's index
  expect_tensor_near(mv, fx("median_ties_values"));
  expect_tensor_near(mi, fx("median_ties_indices"));
  expect_tensor_near(nanmedian(t, 1).first, fx("nanmedian_ties_values"));
}

TEST(Median, LowerMedianNanAndEdgeCases) {
  EXPECT_EQ(median(tensor({4, 1, 3, 2})).item<int64_t>(), 2);  // even count: the lower middle
  EXPECT_TRUE(std::isnan(median(tensor({1.0, kNan, 3.0}, kFloat64)).item<double>()));
  EXPECT_EQ(nanmedian(tensor({1.0, kNan, 3.0, 4.0}, kFloat64)).item<double>(), 3.0);
  EXPECT_TRUE(std::isnan(nanmedian(tensor({kNan, kNan}, kFloat64)).item<double>()));
  auto [av, ai] = nanmedian(tensor({kNan, kNan}, kFloat64).view({1, 2}), 1);
  EXPECT_EQ(ai.item<int64_t>(), 0);
  EXPECT_TRUE(std::isnan(median(empty({0})).item<double>()));
  EXPECT_EQ(median(scalar_tensor(3.0), 0).first.item<double>(), 3.0);
  auto [kv, ki] = median(arange(12, kFloat64).view({3, 4}), 0, /*keepdim=*/true);
  EXPECT_EQ(kv.sizes(), IntArrayRef({1, 4}));
  EXPECT_EQ(at<double>(kv, {0, 2}), 6.0);
  EXPECT_EQ(at<int64_t>(ki, {0, 2}), 1);
  expect_error([] { median(empty({2, 0}), 1); }, "non-zero size");
  expect_error([] { median(ones({2}), 1); }, "dimension out of range");
}

TEST(Mode, MatchesTorch) {
  Tensor m = fx("m");
  auto [v, i] = mode(m, 1);
  expect_tensor_near(v, fx("mode_values"));
  expect_tensor_near(i, fx("mode_indices"));
  auto [tv, ti] = m.t().to(kInt32).mode(0);
  expect_tensor_near(tv, fx("mode_values").to(kInt32));
  expect_tensor_near(ti, fx("mode_indices"));
  auto [fv, fi] = mode(tensor({1.f, 5.f, 1.f, 5.f, 2.f}));  // tie in frequency: the smaller value
  EXPECT_EQ(fv.item<float>(), 1.f);
  EXPECT_EQ(fi.item<int64_t>(), 2);
  auto [kv, ki] = mode(m, 0, true);
  EXPECT_EQ(kv.sizes(), IntArrayRef({1, 9}));
  EXPECT_EQ(mode(tensor({true, false, true})).first.item<bool>(), true);
  expect_error([] { mode(empty({2, 0})); }, "non-zero size");
}

TEST(Unique, MatchesTorch) {
  Tensor u = fx("u");
  auto [values, inverse, counts] = unique(u, true, true, true);
  expect_tensor_near(values, fx("unique_values"));
  expect_tensor_near(inverse, fx("unique_inverse"));
  expect_tensor_near(counts, fx("unique_counts"));
  auto [tv, ti, tc] = unique(u.t(), true, true, false);  // non-contiguous
  expect_tensor_near(tv, fx("unique_values"));
  expect_tensor_near(ti, fx("unique_inverse").t().contiguous());
  EXPECT_EQ(tc.numel(), 0);
  auto [cv, ci, cc] = unique_consecutive(fx("uc_input"), true, true);
  expect_tensor_near(cv, fx("uc_values"));
  expect_tensor_near(ci, fx("uc_inverse"));
  expect_tensor_near(cc, fx("uc_counts"));
}

TEST(Unique, DtypesEmptyAndZeroDim) {
  auto [fv, fi, fc] = unique(tensor({2.5, -1.0, 2.5, 0.0}, kFloat64), true, true, true);
  EXPECT_TRUE(equal(fv, tensor({-1.0, 0.0, 2.5}, kFloat64)));
  EXPECT_TRUE(equal(fi, tensor({2, 0, 2, 1})));
  EXPECT_TRUE(equal(fc, tensor({1, 1, 2})));
  EXPECT_TRUE(equal(std::get<0>(unique(tensor({true, false, true}))), tensor({false, true})));
  auto [ev, ei, ec] = unique(empty({0}, kInt32), true, true, true);
  EXPECT_EQ(ev.dtype(), kInt32);
  EXPECT_EQ(ev.numel(), 0);
  EXPECT_EQ(ei.numel(), 0);
  auto [zv, zi, zc] = unique(scalar_tensor(5), true, true);
  EXPECT_EQ(zv.sizes(), IntArrayRef({1}));
  EXPECT_EQ(zi.dim(), 0);
  // NaNs sort last, each its own value (NaN != NaN), in input order.
  auto [nv, ni, nc] = unique(tensor({kNan, 1.0, kNan, 0.0, 1.0}, kFloat64), true, true, true);
  ASSERT_EQ(nv.numel(), 4);
  EXPECT_EQ(at<double>(nv, {1}), 1.0);
  EXPECT_TRUE(std::isnan(at<double>(nv, {2})) && std::isnan(at<double>(nv, {3})));
  EXPECT_TRUE(equal(ni, tensor({2, 1, 3, 0, 1})));
  EXPECT_TRUE(equal(nc, tensor({1, 2, 1, 1})));
  // A larger input against a loop: values ascend, inverse maps back, counts add up.
  Tensor big = ((arange(50000, kFloat32) * 0.731f).sin() * 20).round();
  auto [bv, bi, bc] = unique(big, true, true, true);
  EXPECT_EQ(bv.numel(), 41);
  EXPECT_EQ(bc.sum().item<int64_t>(), 50000);
  const float* bvp = bv.data_ptr<float>();
  const int64_t* bip = bi.data_ptr<int64_t>();
  const float* src = big.data_ptr<float>();
  for (int64_t j = 1; j < bv.numel(); ++j) ASSERT_LT(bvp[j - 1], bvp[j]);
  for (int64_t i = 0; i < 50000; ++i) ASSERT_EQ(bvp[bip[i]], src[i]);
  expect_error([] { unique(ones({2}, kComplex64)); }, "complex");
}

TEST(Sort, ResultsDoNotDependOnThreadCount) {
  Tensor x = (arange(60000, kFloat32).view({300, 200}) * 0.37f).sin().round();  // many ties
  const int threads = get_num_threads();
  set_num_threads(1);
  auto [s1, i1] = sort(x, 0);
  auto [t1, ti1] = topk(x, 7, 1);
  auto [m1, mi1] = median(x, 0);
  set_num_threads(threads);
  EXPECT_TRUE(equal(sort(x, 0).second, i1));
  EXPECT_TRUE(equal(topk(x, 7, 1).second, ti1));
  EXPECT_TRUE(equal(median(x, 0).second, mi1));
}

}  // namespace sort_test
