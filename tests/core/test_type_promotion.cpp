// Type promotion against torch (scripts/fixtures/promotion.py): promote_types,
// result_type for every dtype pair and operand category (tensor, 0-dim tensor,
// wrapped Python-style number), can_cast, and the dtype and values of a real op
// (add) on every pair. Then the in-place and out= casting rules.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "iter/tensor_iterator.h"  // result_type, can_cast
#include "op_harness.h"
#include "ops/op_utils.h"          // scalar_to_tensor

using namespace ember;
using namespace ember::testing;

namespace type_promotion_test {
// The fixtures' tables cover the non-quantized dtypes (the enum's first ones);
// promotion with a quantized dtype raises (QuantizedTensor.DTypes).
constexpr int kNumPlainDTypes = kNumDTypes - kNumQuantizedDTypes;
DType at_index(const Tensor& table, int64_t i, int64_t j) {
  return static_cast<DType>(table.select(0, i).select(0, j).item<int64_t>());
}
Tensor table(const std::string& name) { return load_npy(fixture_path("core/promotion/" + name + ".npy")); }
DType D(int i) { return static_cast<DType>(i); }

TEST(TypePromotion, PromoteTypesAndCanCastMatchTorch) {
  Tensor promote = table("promote_types"), cast = table("can_cast");
  for (int i = 0; i < kNumPlainDTypes; ++i)
    for (int j = 0; j < kNumPlainDTypes; ++j) {
      EXPECT_EQ(promote_types(D(i), D(j)), at_index(promote, i, j)) << D(i) << ", " << D(j);
      EXPECT_EQ(can_cast(D(i), D(j)), cast.select(0, i).select(0, j).item<int64_t>() != 0)
          << D(i) << " -> " << D(j);
    }
}

TEST(TypePromotion, ResultTypeOfTensorCategoriesMatchesTorch) {
  Tensor tt = table("tensor_tensor"), tz = table("tensor_zerodim"), zt = table("zerodim_tensor"),
         zz = table("zerodim_zerodim");
  for (int i = 0; i < kNumPlainDTypes; ++i)
    for (int j = 0; j < kNumPlainDTypes; ++j) {
      Tensor a = ones({2}, D(i)), b = ones({2}, D(j));
      Tensor a0 = ones({}, D(i)), b0 = ones({}, D(j));
      EXPECT_EQ(result_type({a, b}), at_index(tt, i, j)) << D(i) << " tensor, " << D(j) << " tensor";
      EXPECT_EQ(result_type({a, b0}), at_index(tz, i, j)) << D(i) << " tensor, " << D(j) << " 0-dim";
      EXPECT_EQ(result_type({a0, b}), at_index(zt, i, j)) << D(i) << " 0-dim, " << D(j) << " tensor";
      EXPECT_EQ(result_type({a0, b0}), at_index(zz, i, j)) << D(i) << " 0-dim, " << D(j) << " 0-dim";
    }
}

TEST(TypePromotion, ResultTypeWithNumbersMatchesTorch) {
  Tensor t = table("tensor_number");  // [tensor | 0-dim][dtype][bool, int, float, complex]
  const std::vector<Scalar> numbers = {Scalar(true), Scalar(int64_t{2}), Scalar(2.5),
                                       Scalar(complex128(0, 1))};
  for (int i = 0; i < kNumPlainDTypes; ++i)
    for (size_t k = 0; k < numbers.size(); ++k) {
      const DType want = static_cast<DType>(t.select(0, 0).select(0, i).select(0, k).item<int64_t>());
      const DType want0 = static_cast<DType>(t.select(0, 1).select(0, i).select(0, k).item<int64_t>());
      EXPECT_EQ(result_type(ones({2}, D(i)), numbers[k]), want) << D(i) << " tensor, number " << k;
      EXPECT_EQ(result_type(ones({}, D(i)), numbers[k]), want0) << D(i) << " 0-dim, number " << k;
      // The same rule through the ops: Tensor op Scalar.
      if (!is_complex(want) && numbers[k].is_complex()) continue;
      if (D(i) == kBool && numbers[k].is_boolean()) continue;  // bool * bool stays bool
      EXPECT_EQ(mul(ones({2}, D(i)), numbers[k]).dtype(), want) << D(i) << " * number " << k;
    }
}

TEST(TypePromotion, AddOnEveryDtypePairMatchesTorch) {
  Tensor values = table("add_values");  // complex128 [a][b][3]
  for (int i = 0; i < kNumPlainDTypes; ++i)
    for (int j = 0; j < kNumPlainDTypes; ++j) {
      Tensor a = tensor<int64_t>({1, 0, 3}).to(D(i));
      Tensor b = tensor<int64_t>({2, 1, 0}).to(D(j));
      Tensor r = add(a, b);
      EXPECT_EQ(r.dtype(), promote_types(D(i), D(j)));
      Tensor want = values.select(0, i).select(0, j);
      Tensor got = r.to(kComplex128);
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(got.select(0, k).item<complex128>(), want.select(0, k).item<complex128>())
            << D(i) << " + " << D(j) << " at " << k;
    }
}

TEST(TypePromotion, WrappedNumbersAndZeroDimTensors) {
  // A 0-dim tensor or a number of the same kind never widens a dimensioned tensor.
  EXPECT_EQ(add(ones({2}, kUInt8), scalar_tensor(1000, kInt64)).dtype(), kUInt8);
  EXPECT_EQ(add(ones({2}, kFloat16), scalar_tensor(1.0, kFloat64)).dtype(), kFloat16);
  EXPECT_EQ(add(ones({2}, kInt32), 2.5).dtype(), kFloat32);
  EXPECT_EQ(add(ones({2}, kInt32), scalar_tensor(2.5, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(add(ones({}, kInt32), 7).dtype(), kInt32);
  EXPECT_EQ((ones({2}, kBool) + 1).dtype(), kInt64);
  EXPECT_EQ((ones({2}, kBool) * true).dtype(), kBool);
  // The default dtype decides what a floating number promotes integers to.
  set_default_dtype(kFloat64);
  EXPECT_EQ(add(ones({2}, kInt64), 0.5).dtype(), kFloat64);
  EXPECT_EQ(exp(ones({2}, kInt64)).dtype(), kFloat64);
  EXPECT_EQ(add(ones({2}, kFloat32), 0.5).dtype(), kFloat32);
  set_default_dtype(kFloat32);
  EXPECT_TRUE(scalar_to_tensor(Scalar(2.5)).impl()->is_wrapped_number());
}

TEST(TypePromotion, InPlaceMustNotNarrowTheKind) {
  Tensor i = ones({3}, kInt64);
  EXPECT_THROW(i.exp_(), Error);
  EXPECT_THROW(i.sqrt_(), Error);
  EXPECT_THROW(i.add_(1.5), Error);
  EXPECT_THROW(i.mul_(ones({3}, kFloat32)), Error);
  EXPECT_THROW(i.div_(2), Error) << "true division gives float";
  Tensor b = ones({3}, kBool);
  EXPECT_THROW(b.add_(1), Error) << "int64 result into bool";
  EXPECT_THROW(ones({3}, kFloat32).add_(ones({3}, kComplex64)), Error);
  // Widening within the kind is fine: the result is cast back into self.
  Tensor h = ones({3}, kFloat16);
  h.add_(ones({3}, kFloat64));
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(at<float>(h, {1}), 2.f);
  Tensor u = full({3}, 250, kUInt8);
  u.add_(ones({3}, kInt64).mul(10));
  EXPECT_EQ(at<int64_t>(u, {0}), 4) << "uint8 wraps";
  // In-place: self can't be broadcast to the other operand's shape.
  Tensor small = ones({3});
  EXPECT_THROW(small.add_(ones({2, 3})), Error);
  small.add_(ones({1}));
  EXPECT_EQ(at<float>(small, {2}), 2.f);
}

TEST(TypePromotion, OutWithAnotherDtype) {
  Tensor a = tensor<float>({1.5f, -2.5f}), b = tensor<float>({1.f, 1.f});
  Tensor out64 = empty({2}, kFloat64);
  add_out(out64, a, b);
  EXPECT_EQ(out64.dtype(), kFloat64);
  EXPECT_EQ(at<double>(out64, {1}), -1.5);
  Tensor out_int = empty({2}, kInt32);
  EXPECT_THROW(add_out(out_int, a, b), Error) << "float result can't be cast to int32";
  Tensor out_bool = empty({2}, kBool);
  EXPECT_THROW(mul_out(out_bool, ones({2}, kInt64), ones({2}, kInt64)), Error);
  // Comparisons produce bool, which any out= dtype can hold.
  Tensor cmp = empty({2}, kFloat32);
  lt_out(cmp, a, b);
  EXPECT_EQ(at<float>(cmp, {0}), 0.f);
  EXPECT_EQ(at<float>(cmp, {1}), 1.f);
  // Integral inputs into a float out=.
  Tensor fo = empty({2}, kFloat32);
  floor_divide_out(fo, tensor<int64_t>({7, -7}), tensor<int64_t>({2, 2}));
  EXPECT_EQ(at<float>(fo, {1}), -4.f);
  Tensor ex = empty({2}, kFloat64);
  exp_out(ex, tensor<int64_t>({0, 1}));
  EXPECT_NEAR(at<double>(ex, {1}), std::exp(1.0), 1e-6) << "computed in float32, stored in float64";
}

}  // namespace type_promotion_test
