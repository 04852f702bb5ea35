// Copies and casts (Tensor::to, copy_, clone, contiguous) and the memory format
// their results take. Expected values and strides are torch 1.13's.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
using ember::testing::at;

namespace copy_cast_test {
std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

TEST(CopyCast, FloatingRoundTripsRoundToNearestEven) {
  Tensor x = tensor<double>({1.00390625, 1.01171875, -2.7, 2.5, 65504.0, 70000.0, 1e-8}).to(kFloat64);
  EXPECT_EQ(values(x.to(kBFloat16)),
            (std::vector<double>{1.0, 1.015625, -2.703125, 2.5, 65536.0, 70144.0, 1.0011717677116394e-08}));
  const auto h = values(x.to(kFloat16));
  const std::vector<double> want_h = {1.00390625, 1.01171875, -2.69921875, 2.5, 65504.0, INFINITY, 0.0};
  EXPECT_EQ(h, want_h);
}

TEST(CopyCast, ToIntegralAndBool) {
  EXPECT_EQ(values(tensor<float>({-2.7f, 2.7f, -0.5f, 300.5f}).to(kInt32)), (std::vector<double>{-2, 2, 0, 300}));
  EXPECT_EQ(values(tensor<float>({0.f, -0.f, 0.1f, NAN}).to(kBool)), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(values(tensor<int64_t>({300, -1, 256}).to(kUInt8)), (std::vector<double>{44, 255, 0}));
  EXPECT_EQ(values(tensor<bool>({true, false}).to(kFloat32)), (std::vector<double>{1, 0}));
  EXPECT_EQ(tensor<int64_t>({(int64_t{1} << 40) + 1}).to(kFloat32).item<double>(), 1099511627776.0);
  Tensor c = tensor<float>({1.5f, -2.f}).to(kComplex64);
  EXPECT_EQ(c.select(0, 1).item<complex64>(), complex64(-2.f, 0.f));
  EXPECT_EQ(c.to(kFloat32).dtype(), kFloat32);
}

TEST(CopyCast, ToReturnsSelfUnlessCopying) {
  Tensor x = ones({2, 3});
  EXPECT_TRUE(x.to(kFloat32).is_same(x));
  Tensor y = x.to(kFloat32, /*copy=*/true);
  EXPECT_FALSE(y.is_same(x));
  EXPECT_NE(y.data_ptr(), x.data_ptr());
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_FALSE(x.clone().is_same(x));
}

TEST(CopyCast, CopyIntoStridedAndBroadcast) {
  Tensor dst = zeros({3, 4}, kFloat64);
  dst.t().copy_(arange(12, kInt32).reshape({4, 3}));  // strided destination, int -> double
  EXPECT_EQ(at<double>(dst, {2, 1}), 5.0);
  Tensor row = tensor<int64_t>({1, 2, 3, 4});
  dst.copy_(row);  // broadcast source
  EXPECT_EQ(at<double>(dst, {2, 3}), 4.0);
  dst.slice(1, 0, 4, 2).copy_(full({3, 2}, 9));
  EXPECT_EQ(values(dst.select(0, 0)), (std::vector<double>{9, 2, 9, 4}));
  const uint64_t v = dst._version();
  dst.copy_(ones({3, 4}));
  EXPECT_GT(dst._version(), v) << "copy_ bumps the version counter";
  EXPECT_THROW(dst.copy_(ones({4, 3})), Error) << "source not broadcastable";
  EXPECT_THROW(dst.copy_(ones({2, 3, 4})), Error) << "source bigger than destination";
  Tensor expanded = zeros({1, 4}).expand({3, 4});
  EXPECT_THROW(expanded.copy_(ones({3, 4})), Error) << "destination with overlapping elements";
  EXPECT_THROW(dst.copy_(Tensor()), Error);
  Tensor empty_dst = zeros({0, 4});
  empty_dst.copy_(ones({4}));
}

TEST(CopyCast, MemoryFormatOfCopies) {
  Tensor cl = arange(120, kFloat32).reshape({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  const std::vector<int64_t> cl_strides = {60, 1, 15, 3};
  EXPECT_EQ(cl.strides(), IntArrayRef(cl_strides));
  EXPECT_EQ(cl.to(kFloat64).strides(), IntArrayRef(cl_strides));
  EXPECT_EQ(cl.clone().strides(), IntArrayRef(cl_strides));
  EXPECT_EQ(empty_like(cl).strides(), IntArrayRef(cl_strides));
  EXPECT_EQ(zeros_like(cl).strides(), IntArrayRef(cl_strides));
  EXPECT_TRUE(cl.clone(MemoryFormat::Contiguous).is_contiguous());
  EXPECT_TRUE(cl.contiguous().is_contiguous());
  // A sliced channels-last tensor still suggests channels-last.
  EXPECT_EQ(cl.slice(2, 0, 4, 2).clone().strides(), IntArrayRef({30, 1, 15, 3}));
  // Non-dense permuted inputs keep their dims' order (torch's empty_like).
  Tensor t = arange(24, kFloat32).reshape({4, 6}).t().slice(0, 0, 6, 2);  // sizes (3, 4), strides (2, 6)
  EXPECT_EQ(t.clone().strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(t.contiguous().strides(), IntArrayRef({4, 1}));
  Tensor u = arange(24, kFloat32).reshape({2, 3, 4}).permute({2, 0, 1}).slice(2, 0, 3, 2);
  EXPECT_EQ(u.clone().strides(), IntArrayRef({1, 8, 4}));
  EXPECT_EQ(u.to(kFloat64).strides(), IntArrayRef({1, 8, 4}));
  EXPECT_EQ(u.exp().strides(), IntArrayRef({1, 8, 4}));
  EXPECT_EQ(values(u.clone()), values(u.contiguous()));
  // Dense permutations are preserved exactly.
  Tensor p = arange(24, kFloat32).reshape({2, 3, 4}).permute({1, 2, 0});
  EXPECT_EQ(p.clone().strides(), p.strides());
  EXPECT_EQ(p.to(kInt64).strides(), p.strides());
  // Expanded inputs clone to contiguous.
  EXPECT_TRUE(ones({3, 1}).expand({3, 4}).clone().is_contiguous());
}

TEST(Factories, DtypesAndLayouts) {
  EXPECT_EQ(full({2}, 1.5, kFloat16).dtype(), kFloat16);
  EXPECT_EQ(full({}, 2.5, kInt64).item<int64_t>(), 2) << "the value is cast to the requested dtype";
  EXPECT_EQ(ones({2, 3}, TensorOptions(kFloat32).memory_format(MemoryFormat::Contiguous)).stride(0), 3);
  EXPECT_TRUE(empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast))
                  .is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_THROW(empty({2, 3}, TensorOptions().memory_format(MemoryFormat::ChannelsLast)), Error);
  EXPECT_THROW(zeros({2, -1}), Error);
  EXPECT_EQ(zeros({0, 3}).numel(), 0);
  EXPECT_EQ(scalar_tensor(3).dim(), 0);
  EXPECT_EQ(ones_like(ones({2}, kInt32), kFloat64).dtype(), kFloat64);
  EXPECT_EQ(values(linspace(-1, 1, 5)), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(arange(0.0, 1.0, 0.3).numel(), 4);
  EXPECT_EQ(values(arange(5, 0, -2)), (std::vector<double>{5, 3, 1}));
  EXPECT_EQ(tensor({1, 2}).dtype(), kInt64);
  EXPECT_EQ(tensor({1.f}).dtype(), kFloat32);
  EXPECT_EQ(tensor({true}).dtype(), kBool);
}

}  // namespace copy_cast_test
