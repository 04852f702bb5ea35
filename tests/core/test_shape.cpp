// Shape ops: cat/stack, flip/roll, repeat/tile, repeat_interleave, tril/triu,
// pad. Fixtures from scripts/fixtures/shape.py (PyTorch 1.13), plus float64
// loops for non-contiguous and multi-dtype cases.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tensor_expect.h"
#include "test_util.h"

using namespace ember;
using ember::testing::at;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace shape_test {
Tensor fx(const std::string& name) { return ember::testing::fixture("shape", name); }

// A float64 tensor whose value at (i, j, k) is 100 i + 10 j + k.
Tensor coded(int64_t a, int64_t b, int64_t c) {
  Tensor t = empty({a, b, c}, kFloat64);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) p[(i * b + j) * c + k] = 100.0 * i + 10.0 * j + k;
  return t;
}

// ---- cat / stack ----
TEST(ShapeCat, PromotesAcrossInputsLikeTorch) {
  Tensor out = cat({fx("cat_a"), fx("cat_b")}, 1);
  expect_tensor_near(out, fx("cat_ab_dim1"));
  EXPECT_EQ(cat({ones({2}, kInt32), ones({3}, kUInt8)}).dtype(), kInt32);
  EXPECT_EQ(cat({ones({2}, kBool), ones({3}, kBool)}).dtype(), kBool);
  EXPECT_EQ(cat({ones({1}, kHalf), ones({1}, kFloat64)}).dtype(), kFloat64);
}

TEST(ShapeCat, NonContiguousInputsAndNegativeDim) {
  Tensor a = coded(2, 3, 4).transpose(0, 2);  // [4, 3, 2]
  Tensor b = coded(4, 3, 1).narrow(2, 0, 1);  // [4, 3, 1]
  Tensor out = cat({a, b}, -1);
  ASSERT_EQ(out.sizes(), IntArrayRef({4, 3, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(at<double>(out, {i, j, 0}), at<double>(a, {i, j, 0}));
      EXPECT_EQ(at<double>(out, {i, j, 1}), at<double>(a, {i, j, 1}));
      EXPECT_EQ(at<double>(out, {i, j, 2}), at<double>(b, {i, j, 0}));
    }
  // Expanded input.
  Tensor e = tensor({1.f, 2.f}).view({1, 2}).expand({3, 2});
  Tensor c = cat({e, zeros({1, 2})}, 0);
  EXPECT_EQ(c.sizes(), IntArrayRef({4, 2}));
  EXPECT_EQ(at<float>(c, {2, 1}), 2.f);
  EXPECT_EQ(at<float>(c, {3, 1}), 0.f);
}

TEST(ShapeCat, SkipsLegacyEmptyTensors) {
  Tensor out = cat({empty({0}, kFloat64), ones({2, 2}), empty({0})}, 1);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(out.dtype(), kFloat64);  // the skipped input still takes part in promotion
  EXPECT_EQ(cat({empty({0}), empty({0})}).sizes(), IntArrayRef({0}));
  // Non-legacy empty tensors must match like any other.
  EXPECT_EQ(cat({empty({0, 3}), ones({2, 3})}).sizes(), IntArrayRef({2, 3}));
  EXPECT_THROW(cat({empty({0, 2}), ones({2, 3})}), Error);
}

TEST(ShapeCat, ChannelsLastInputsGiveChannelsLastOutput) {
  Tensor a = arange(24, kFloat32).view({1, 2, 3, 4}).contiguous(MemoryFormat::ChannelsLast);
  Tensor b = arange(24, kFloat32).view({1, 2, 3, 4}).contiguous(MemoryFormat::ChannelsLast) + 100;
  Tensor out = cat({a, b}, 1);
  EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 4, 3, 4}));
  EXPECT_EQ(at<float>(out, {0, 1, 2, 3}), 23.f);
  EXPECT_EQ(at<float>(out, {0, 3, 1, 2}), 118.f);
  // Mixed layouts give a row-major output.
  EXPECT_TRUE(cat({a, b.contiguous()}, 1).is_contiguous());
}

TEST(ShapeCat, OutVariant) {
  Tensor a = tensor({1.f, 2.f}), b = tensor({3.f});
  Tensor out = empty({0}, kFloat64);
  cat_out(out, {a, b}, 0);
  EXPECT_EQ(out.sizes(), IntArrayRef({3}));
  EXPECT_EQ(out.dtype(), kFloat64);
  EXPECT_EQ(at<double>(out, {2}), 3.0);
  Tensor exact = empty({3});
  cat_out(exact, {a, b});
  EXPECT_EQ(at<float>(exact, {1}), 2.f);
  Tensor wrong = empty({4});
  expect_error([&] { cat_out(wrong, {a, b}); }, "shape");
  Tensor ints = empty({3}, kInt64);
  expect_error([&] { cat_out(ints, {a, b}); }, "can't be cast");
  Tensor alias = empty({3});
  Tensor part = alias.narrow(0, 0, 2);
  expect_error([&] { cat_out(alias, {part, b}); }, "shares memory with input tensor 0");
}

TEST(ShapeCat, Errors) {
  expect_error([] { cat(std::vector<Tensor>{}); }, "non-empty list");
  expect_error([] { cat({ones({2}), scalar_tensor(1)}); }, "zero-dimensional tensor (at position 1)");
  expect_error([] { cat({ones({2, 3}), ones({3, 4})}, 1); },
               "Expected size 2 but got size 3 for tensor number 1 in the list (sizes [2, 3] vs [3, 4])");
  expect_error([] { cat({ones({2, 3}), ones({2, 3, 1})}); }, "same number of dimensions");
  expect_error([] { cat({ones({2, 3}), ones({2, 3})}, 2); }, "dimension out of range");
}

TEST(ShapeStack, StackHstackVstack) {
  Tensor a = tensor({1, 2, 3}), b = tensor({4, 5, 6});
  Tensor s = stack({a, b}, -1);
  ASSERT_EQ(s.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(at<int64_t>(s, {2, 1}), 6);
  EXPECT_EQ(stack({a, b}).sizes(), IntArrayRef({2, 3}));
  Tensor out = empty({0}, kInt64);
  stack_out(out, {a, b}, 1);
  EXPECT_TRUE(equal(out, s));
  EXPECT_EQ(hstack({a, b}).sizes(), IntArrayRef({6}));
  EXPECT_EQ(hstack({a.view({3, 1}), b.view({3, 1})}).sizes(), IntArrayRef({3, 2}));
  Tensor v = vstack({a, b, scalar_tensor(7).expand({3})});
  ASSERT_EQ(v.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(at<int64_t>(v, {1, 0}), 4);
  EXPECT_EQ(at<int64_t>(v, {2, 2}), 7);
  EXPECT_EQ(vstack({scalar_tensor(1.5), scalar_tensor(2.5)}).sizes(), IntArrayRef({2, 1}));
  expect_error([&] { stack({a, ones({4})}); }, "[3] at entry 0 and [4] at entry 1");
  expect_error([&] { stack({a, b}, 3); }, "dimension out of range");
  expect_error([] { stack(std::vector<Tensor>{}); }, "non-empty");
}

// ---- flip / roll ----
TEST(ShapeFlip, MatchesTorch) {
  Tensor x = fx("x");
  expect_tensor_near(flip(x, {0, 2}), fx("flip_02"));
  expect_tensor_near(x.flip({-3, -1}), fx("flip_02"));
  expect_tensor_near(flip(x.to(kFloat64), {0, 2}), fx("flip_02").to(kFloat64));
  expect_tensor_near(flip(x.to(kHalf), {0, 2}), fx("flip_02").to(kHalf));
  expect_tensor_near(flip(x, {}), x);
}

TEST(ShapeFlip, DtypesNonContiguousAndEdgeCases) {
  Tensor c = coded(3, 4, 5);
  Tensor t = c.transpose(0, 2);  // [5, 4, 3], non-contiguous
  for (DType dt : {kFloat64, kInt64, kInt32, kUInt8, kFloat32}) {
    Tensor f = flip(t.to(dt), {1});
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t k = 0; k < 3; ++k)
          ASSERT_EQ(at<double>(f, {i, j, k}), at<double>(t.to(dt), {i, 3 - j, k})) << dt;
  }
  Tensor b = tensor({true, false, false});
  EXPECT_TRUE(equal(flip(b, {0}), tensor({false, false, true})));
  EXPECT_EQ(flip(empty({0, 3}), {0, 1}).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(flip(scalar_tensor(2.5), {0}).item<double>(), 2.5);
  Tensor m = arange(6).view({2, 3});
  EXPECT_EQ(at<int64_t>(fliplr(m), {0, 0}), 2);
  EXPECT_EQ(at<int64_t>(flipud(m), {0, 0}), 3);
  expect_error([&] { flip(m, {0, 0}); }, "dim 0 appears multiple times");
  expect_error([&] { flip(m, {2}); }, "dimension out of range");
  expect_error([&] { fliplr(tensor({1})); }, "fliplr");
}

TEST(ShapeRoll, MatchesTorch) {
  Tensor x = fx("x");
  expect_tensor_near(roll(x, {2, -1}, {0, 2}), fx("roll_2_m1"));
  expect_tensor_near(x.roll({7}), fx("roll_flat_7"));
  // Shifts larger than the dim wrap; rolling one dim twice adds the shifts.
  expect_tensor_near(roll(x, {2 + 3 * 5, -1 - 5}, {0, -1}), fx("roll_2_m1"));
  expect_tensor_near(roll(x, {1, 1, -1}, {0, 0, 2}), fx("roll_2_m1"));
}

TEST(ShapeRoll, NonContiguousDtypesAndErrors) {
  Tensor t = coded(2, 3, 4).permute({2, 0, 1});  // [4, 2, 3]
  Tensor r = roll(t.to(kInt32), {1}, {0});
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(at<int32_t>(r, {i, 1, 2}), at<int32_t>(t.to(kInt32), {(i + 3) % 4, 1, 2}));
  EXPECT_TRUE(equal(roll(tensor({true, false, false}), {1}), tensor({false, true, false})));
  EXPECT_EQ(roll(empty({0, 2}), {1}, {0}).sizes(), IntArrayRef({0, 2}));
  expect_error([&] { roll(t, {1, 2}, {0}); }, "shifts and dimensions must align");
  expect_error([&] { roll(t, {1}, {3}); }, "dimension out of range");
  expect_error([&] { roll(t, {1, 2}); }, "shifts must have one entry");
}

// ---- repeat / tile / repeat_interleave ----
TEST(ShapeRepeat, MatchesTorch) {
  Tensor a = fx("cat_a");
  expect_tensor_near(a.repeat({2, 1, 3}), fx("repeat_2_1_3"));
  expect_tensor_near(repeat(a.t().contiguous().t(), {2, 1, 3}), fx("repeat_2_1_3"));
  expect_tensor_near(a.tile({2}), fx("tile_2"));
  expect_tensor_near(a.repeat_interleave(tensor({1, 0, 2}), 1), fx("repeat_interleave_dim1"));
  expect_tensor_near(a.repeat_interleave(2), fx("repeat_interleave_flat"));
  expect_tensor_near(repeat_interleave(a.t(), tensor({1, 0, 2}, kInt32), 0), fx("repeat_interleave_dim1").t());
}

TEST(ShapeRepeat, EdgeCasesAndErrors) {
  Tensor b = tensor({true, false});
  EXPECT_TRUE(equal(b.repeat({2}), tensor({true, false, true, false})));
  EXPECT_EQ(tensor({1, 2}).repeat({0, 2}).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(scalar_tensor(3).repeat({2, 2}).sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(tile(ones({2, 3}), {2, 1, 1}).sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_TRUE(equal(repeat_interleave(tensor({2, 0, 1})), tensor({0, 0, 2})));
  EXPECT_TRUE(equal(tensor({1, 2}).repeat_interleave(tensor({3})), tensor({1, 1, 1, 2, 2, 2})));
  EXPECT_TRUE(equal(tensor({1, 2}).repeat_interleave(2, 0, 4), tensor({1, 1, 2, 2})));
  expect_error([] { ones({2, 3}).repeat({2}); }, "can not be smaller");
  expect_error([] { ones({2}).repeat({-1}); }, "negative");
  expect_error([] { ones({3}).repeat_interleave(-1); }, "repeats can not be negative");
  expect_error([] { ones({3}).repeat_interleave(tensor({1, 2})); }, "same size as input along dim");
  expect_error([] { ones({3}).repeat_interleave(tensor({1.0, 2.0, 1.0})); }, "Long or Int");
  expect_error([] { ones({3}).repeat_interleave(2, 0, 5); }, "output_size");
  expect_error([] { repeat_interleave(ones({2, 2}, kInt64)); }, "1D");
  expect_error([] { scalar_tensor(1.0).repeat_interleave(2, 0); }, "no dimensions");
  EXPECT_EQ(scalar_tensor(1.0).repeat_interleave(3).sizes(), IntArrayRef({3}));
}

// ---- tril / triu ----
TEST(ShapeTriangle, MatchesTorchBatched) {
  Tensor x = fx("x");
  expect_tensor_near(x.tril(-1), fx("tril_m1"));
  expect_tensor_near(triu(x, 2), fx("triu_2"));
  Tensor y = x.clone();
  y.tril_(-1);
  expect_tensor_near(y, fx("tril_m1"));
  Tensor z = x.clone();
  z.triu_(2);
  expect_tensor_near(z, fx("triu_2"));
  Tensor out = empty({0});
  tril_out(out, x, -1);
  expect_tensor_near(out, fx("tril_m1"));
  triu_out(out, x, 2);
  expect_tensor_near(out, fx("triu_2"));
}

TEST(ShapeTriangle, DtypesNonContiguousAndErrors) {
  Tensor c = coded(2, 3, 4).transpose(1, 2);  // [2, 4, 3]
  for (DType dt : {kFloat64, kInt64, kInt32, kUInt8, kBool, kHalf}) {
    Tensor src = c.to(dt);
    Tensor lo = tril(src, 1), hi = triu(src, -1);
    EXPECT_EQ(lo.dtype(), dt);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const double v = at<double>(src, {b, i, j});
          ASSERT_EQ(at<double>(lo, {b, i, j}), j - i <= 1 ? v : 0.0) << dt;
          ASSERT_EQ(at<double>(hi, {b, i, j}), j - i >= -1 ? v : 0.0) << dt;
        }
  }
  EXPECT_EQ(tril(empty({0, 3})).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(triu(empty({3, 0})).sizes(), IntArrayRef({3, 0}));
  Tensor m = arange(12, kFloat32).view({3, 4});
  EXPECT_TRUE(equal(tril(m, 10), m));
  EXPECT_TRUE(equal(tril(m, -10), zeros({3, 4})));
  EXPECT_TRUE(equal(triu(m, -10), m));
  EXPECT_TRUE(equal(triu(m, 10), zeros({3, 4})));
  Tensor nc = arange(12, kFloat32).view({4, 3}).t();  // in-place on a non-contiguous view
  nc.triu_(1);
  EXPECT_TRUE(equal(nc, triu(arange(12, kFloat32).view({4, 3}).t(), 1)));
  EXPECT_EQ(at<float>(nc, {0, 1}), 3.f);
  EXPECT_EQ(at<float>(nc, {1, 1}), 0.f);
  expect_error([] { tril(ones({3})); }, "at least 2 dimensions");
  expect_error([] { triu(scalar_tensor(1)); }, "at least 2 dimensions");
}

// ---- pad ----
TEST(ShapePad, ConstantMatchesTorch) {
  Tensor x = fx("x");
  expect_tensor_near(pad(x, {1, 2, 0, 1, 1, 0}, "constant", 1.5), fx("pad_constant"));
  expect_tensor_near(pad(x, {-1, 2, 1, -2}), fx("pad_constant_neg"));
  expect_tensor_near(constant_pad_nd(x.transpose(0, 1).contiguous().transpose(0, 1), {1, 2, 0, 1, 1, 0}, 1.5),
                     fx("pad_constant"));
  Tensor i = pad(ones({2, 3}, kInt64), {1, 1}, "constant", 2.7);
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(at<int64_t>(i, {1, 0}), 2);
  EXPECT_EQ(at<int64_t>(i, {1, 1}), 1);
  Tensor b = pad(ones({1, 1}, kBool), {0, 0, 1, 0});
  EXPECT_FALSE(at<bool>(b, {0, 0}));
  EXPECT_TRUE(at<bool>(b, {1, 0}));
  EXPECT_EQ(pad(empty({0, 2}), {1, 1}).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(pad(ones({2}), {-2, 0}).sizes(), IntArrayRef({0}));
  // Any number of padded dims for constant mode.
  EXPECT_EQ(pad(ones({1, 1, 1, 1, 1}), {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}).sizes(), IntArrayRef({3, 3, 3, 3, 3}));
}

TEST(ShapePad, ReflectReplicateCircularMatchTorch) {
  Tensor x = fx("x"), p4 = fx("p4"), p5 = fx("p5");
  for (std::string mode : {"reflect", "replicate", "circular"}) {
    SCOPED_TRACE(mode);
    expect_tensor_near(pad(x, {2, 3}, mode), fx("pad_" + mode + "_1d"));
    expect_tensor_near(pad(x, {-1, 2}, mode), fx("pad_" + mode + "_1d_neg"));
    expect_tensor_near(pad(p4, {1, 2, 3, 0}, mode), fx("pad_" + mode + "_2d"));
    expect_tensor_near(pad(p5, {1, 1, 2, 0, 0, 2}, mode), fx("pad_" + mode + "_3d"));
    // Unbatched input, non-contiguous input, other dtypes.
    expect_tensor_near(pad(p4[1], {1, 2, 3, 0}, mode), fx("pad_" + mode + "_2d")[1]);
    Tensor nc = p4.permute({0, 3, 1, 2}).contiguous().permute({0, 2, 3, 1});
    expect_tensor_near(pad(nc, {1, 2, 3, 0}, mode), fx("pad_" + mode + "_2d"));
    expect_tensor_near(pad(x.to(kHalf), {2, 3}, mode), fx("pad_" + mode + "_1d").to(kHalf));
  }
  Tensor ints = arange(5).view({1, 5});
  EXPECT_TRUE(equal(pad(ints, {2, 1}, "reflect"), tensor({2, 1, 0, 1, 2, 3, 4, 3}).view({1, 8})));
}

TEST(ShapePad, Errors) {
  Tensor x = ones({1, 2, 3});
  expect_error([&] { pad(x, {1}); }, "divisible by 2");
  expect_error([&] { pad(ones({2, 3}), {1, 1, 1, 1, 1, 1}); }, "Padding length too large");
  expect_error([&] { pad(x, {3, 3}, "reflect"); }, "padding (3, 3) at dimension 2 of input [1, 2, 3]");
  expect_error([&] { pad(x, {4, 0}, "circular"); }, "wrapping around more than once");
  expect_error([&] { pad(ones({2, 3, 4, 5, 6, 7}), {1, 1}, "reflect"); }, "2-d or 3-d input");
  expect_error([&] { pad(ones({3}), {1, 1}, "replicate"); }, "2-d or 3-d input");
  expect_error([&] { pad(x, {1, 1}, "wrap"); }, "unrecognised padding mode");
  expect_error([&] { pad(x, {1, 1}, "reflect", 2.0); }, "doesn't take in value");
  expect_error([&] { pad(x, {-2, -2}); }, "negative output size");
  expect_error([&] { pad(x, {-2, -1}, "replicate"); }, "too small");
  expect_error([&] { pad(ones({1, 2, 0}), {1, 1}, "replicate"); }, "non-empty padded dims");
}

}  // namespace shape_test
