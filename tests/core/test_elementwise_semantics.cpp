// Edge semantics of the elementwise ops that the fixture harness can't express:
// integer division by zero and overflow, pow's integer rules, Scalar-first
// forms, the ternary ops, and argument errors. Expected values are torch 1.13's.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
using ember::testing::at;

TEST(ElementwiseSemantics, IntegerDivisionAndModuloFollowPython) {
  Tensor a = tensor<int64_t>({-7, 7, -7, 7}), b = tensor<int64_t>({2, -2, -2, 2});
  Tensor fd = floor_divide(a, b), rem = remainder(a, b), fm = fmod(a, b);
  Tensor tr = div(a, b, "trunc"), fl = div(a, b, "floor");
  const int64_t want_fd[] = {-4, -4, 3, 3}, want_rem[] = {1, -1, -1, 1}, want_fm[] = {-1, 1, -1, 1},
                want_tr[] = {-3, -3, 3, 3};
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at<int64_t>(fd, {i}), want_fd[i]);
    EXPECT_EQ(at<int64_t>(fl, {i}), want_fd[i]);
    EXPECT_EQ(at<int64_t>(rem, {i}), want_rem[i]);
    EXPECT_EQ(at<int64_t>(fm, {i}), want_fm[i]);
    EXPECT_EQ(at<int64_t>(tr, {i}), want_tr[i]);
  }
  EXPECT_EQ(fd.dtype(), kInt64);
  EXPECT_EQ(div(a, b).dtype(), kFloat32) << "true division of integers is floating";
  EXPECT_EQ((a % 3).dtype(), kInt64);
  // Overflowing quotient wraps like torch instead of trapping.
  Tensor m = tensor<int64_t>({-128}).to(kInt8);
  EXPECT_EQ(at<int64_t>(floor_divide(m, tensor<int64_t>({-1}).to(kInt8)), {0}), -128);
  EXPECT_EQ(at<int64_t>(remainder(m, tensor<int64_t>({-1}).to(kInt8)), {0}), 0);
}

TEST(ElementwiseSemantics, IntegerDivisionByZeroThrows) {
  Tensor a = tensor<int64_t>({1, 2}), z = tensor<int64_t>({1, 0});
  EXPECT_THROW(floor_divide(a, z), Error);
  EXPECT_THROW(remainder(a, z), Error);
  EXPECT_THROW(fmod(a, z), Error);
  EXPECT_THROW(div(a, z, "trunc"), Error);
  EXPECT_THROW(floor_divide(a, 0), Error);
  // Floating division by zero is IEEE: inf, -inf and nan.
  Tensor f = floor_divide(tensor<float>({1.f, -1.f, 0.f}), 0.0);
  EXPECT_EQ(at<float>(f, {0}), INFINITY);
  EXPECT_EQ(at<float>(f, {1}), -INFINITY);
  EXPECT_TRUE(std::isnan(at<float>(f, {2})));
  EXPECT_TRUE(std::isnan(at<float>(remainder(tensor<float>({5.f}), 0.0), {0})));
  EXPECT_EQ(at<float>(div(a, z), {1}), INFINITY);
}

TEST(ElementwiseSemantics, PowIntegerRules) {
  Tensor i = tensor<int64_t>({2, -3, 0});
  EXPECT_EQ(pow(i, 2).dtype(), kInt64);
  EXPECT_EQ(at<int64_t>(pow(i, 3), {1}), -27);
  EXPECT_EQ(pow(i, 2.0).dtype(), kFloat32);
  EXPECT_EQ(pow(2, tensor<int64_t>({1, 2})).dtype(), kInt64);
  EXPECT_EQ(pow(2.5, tensor<int64_t>({1, 2})).dtype(), kFloat32);
  EXPECT_EQ(at<int64_t>(pow(3, tensor<int64_t>({0, 4})), {1}), 81);
  // Tensor-tensor negative exponents: 1 and -1 stay exact, other bases give 0.
  Tensor e = pow(tensor<int64_t>({1, -1, -1, 2}), tensor<int64_t>({-3, -3, -2, -1}));
  EXPECT_EQ(at<int64_t>(e, {0}), 1);
  EXPECT_EQ(at<int64_t>(e, {1}), -1);
  EXPECT_EQ(at<int64_t>(e, {2}), 1);
  EXPECT_EQ(at<int64_t>(e, {3}), 0);
  // A negative integer Scalar exponent on an integer tensor is an error in torch.
  EXPECT_THROW(pow(tensor<int64_t>({2, 3}), -1), Error);
  EXPECT_THROW(tensor<int64_t>({2, 3}).pow_(-2), Error);
  EXPECT_EQ(at<float>(pow(tensor<float>({2.f}), -1), {0}), 0.5f);
}

TEST(ElementwiseSemantics, ShiftsAndBitwise) {
  Tensor x = tensor<int64_t>({-8, 5, 1}).to(kInt8);
  EXPECT_EQ(at<int64_t>(bitwise_right_shift(x, 1), {0}), -4);
  EXPECT_EQ(at<int64_t>(bitwise_left_shift(x, 1), {1}), 10);
  EXPECT_EQ(at<int64_t>(bitwise_left_shift(x, tensor<int64_t>({9, 9, 9}).to(kInt8)), {1}), 0);
  EXPECT_EQ(bitwise_and(ones({2}, kBool), zeros({2}, kBool)).dtype(), kBool);
  EXPECT_EQ(at<int64_t>(~tensor<int64_t>({0}), {0}), -1);
  EXPECT_THROW(bitwise_and(ones({2}), ones({2})), Error);
  EXPECT_THROW(bitwise_left_shift(ones({2}), 1), Error);
}

TEST(ElementwiseSemantics, ComparisonsAndLogicalGiveBool) {
  Tensor a = tensor<float>({1.f, NAN, 3.f}), b = tensor<int64_t>({1, 2, 4});
  for (const Tensor& r : {eq(a, b), ne(a, b), lt(a, b), le(a, b), gt(a, b), ge(a, b), logical_and(a, b),
                          logical_or(a, b), logical_xor(a, b), logical_not(a), a == 1, a < 2.5})
    EXPECT_EQ(r.dtype(), kBool);
  EXPECT_TRUE(at<bool>(ne(a, a), {1})) << "nan != nan";
  EXPECT_FALSE(at<bool>(eq(a, a), {1}));
  EXPECT_TRUE(at<bool>(logical_and(a, b), {1})) << "nan is truthy";
}

TEST(ElementwiseSemantics, TernaryOps) {
  Tensor s = tensor<float>({1.f, 2.f}), e = tensor<float>({3.f, 6.f});
  EXPECT_FLOAT_EQ(at<float>(lerp(s, e, 0.25), {1}), 3.f);
  EXPECT_FLOAT_EQ(at<float>(lerp(s, e, tensor<float>({0.5f, 1.f})), {1}), 6.f);
  EXPECT_FLOAT_EQ(at<float>(addcdiv(s, s, tensor<float>({4.f, 4.f}), 2), {0}), 1.5f);
  EXPECT_FLOAT_EQ(at<float>(addcmul(s, s, e, -1), {1}), -10.f);
  Tensor c = tensor<bool>({true, false});
  Tensor i32 = tensor<int64_t>({1, 2}).to(kInt32);
  EXPECT_EQ(where(c, i32, Scalar(2.5)).dtype(), kFloat32);
  EXPECT_EQ(where(c, i32, ones({1}, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(where(c, i32, Scalar(int64_t{7})).dtype(), kInt32);
  EXPECT_FLOAT_EQ(at<float>(where(c, i32, Scalar(2.5)), {1}), 2.5f);
  Tensor mf = i32.masked_fill(c, 3.7);
  EXPECT_EQ(mf.dtype(), kInt32);
  EXPECT_EQ(at<int64_t>(mf, {0}), 3) << "the value is cast to self's dtype";
  EXPECT_THROW(where(i32, i32, i32), Error) << "condition must be bool";
  EXPECT_THROW(lerp(s, ones({3}), 0.5), Error);
}

TEST(ElementwiseSemantics, ArgumentErrors) {
  EXPECT_THROW(add(ones({2, 3}), ones({3, 2})), Error);
  EXPECT_THROW(sub(ones({2}, kBool), ones({2}, kBool)), Error);
  EXPECT_THROW(neg(ones({2}, kBool)), Error);
  EXPECT_THROW(add(ones({2}, kInt64), ones({2}, kInt64), 0.5), Error) << "float alpha, integral result";
  EXPECT_THROW(add(ones({2}), ones({2}), true), Error) << "bool alpha, float result";
  EXPECT_THROW(div(ones({2}), ones({2}), "round"), Error);
  EXPECT_THROW(gelu(ones({2}), "exact"), Error);
  EXPECT_THROW(clamp(ones({2}), std::nullopt, std::nullopt), Error);
  EXPECT_THROW(exp(Tensor()), Error);
  EXPECT_THROW(maximum(ones({2}, kComplex64), ones({2}, kComplex64)), Error);
  try {
    add(ones({2, 3}), ones({3, 2}));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos) << e.what();
  }
}

TEST(ElementwiseSemantics, OutputLayoutOfMixedInputs) {
  // Channels-last meets contiguous: the first operand's layout wins ties, as torch.
  Tensor cl = ones({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_TRUE(add(cl, ones({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast)).is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(add(cl, ones({3, 1, 1})).is_contiguous(MemoryFormat::ChannelsLast)) << "broadcast bias";
  EXPECT_TRUE(relu(cl).is_contiguous(MemoryFormat::ChannelsLast));
  Tensor t = ones({4, 6}).t();
  EXPECT_EQ(mul(t, 2).strides(), t.strides());
  EXPECT_EQ(add(t, t).strides(), t.strides());
  EXPECT_TRUE(add(ones({2, 1}), ones({1, 3})).is_contiguous());
}
