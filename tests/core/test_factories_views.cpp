// Factories, views, memory formats and metadata.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "kernels/slots/kernel_slot.h"
#include "test_util.h"

using namespace ember;
using ember::testing::at;

// Every device type with a backend in this build (the CPU, the test device,
// CUDA where built) fills every slot.
TEST(Kernels, EverySlotIsFilledOnEveryRegisteredDevice) {
  int checked = 0;
  for (const DeviceTypeInfo& info : kDeviceTypeInfo) {
    if (device_count(info.type) == 0) continue;
    ++checked;
    auto missing = missing_kernels(info.type);
    EXPECT_TRUE(missing.empty()) << info.name << ": first missing: " << (missing.empty() ? "" : missing[0]);
  }
  EXPECT_GE(checked, 2) << "the CPU and the test device";
}

TEST(Factories, ZerosOnesFull) {
  Tensor z = zeros({2, 3});
  EXPECT_EQ(z.dtype(), kFloat32);
  EXPECT_EQ(z.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(z.strides(), IntArrayRef({3, 1}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(z.data_ptr<float>()[i], 0.f);
  Tensor o = ones({4}, kInt32);
  EXPECT_EQ(o.dtype(), kInt32);
  EXPECT_EQ(o.data_ptr<int32_t>()[3], 1);
  EXPECT_EQ(full({2}, 7).dtype(), kInt64);
  EXPECT_EQ(full({2}, 7.5).dtype(), kFloat32);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_DOUBLE_EQ(full({1}, 2.5, kFloat64).item<double>(), 2.5);
}

TEST(Factories, Arange) {
  Tensor a = arange(5);
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(a.numel(), 5);
  EXPECT_EQ(a.data_ptr<int64_t>()[4], 4);
  Tensor b = arange(0, 1, 0.25);
  EXPECT_EQ(b.dtype(), kFloat32);
  EXPECT_EQ(b.numel(), 4);
  EXPECT_FLOAT_EQ(b.data_ptr<float>()[3], 0.75f);
  Tensor c = arange(10, 0, -3);
  EXPECT_EQ(c.numel(), 4);
  EXPECT_EQ(c.data_ptr<int64_t>()[3], 1);
  EXPECT_THROW(arange(0, 10, 0), Error);
  EXPECT_THROW(arange(0, 10, -1), Error);
}

TEST(Factories, LinspaceLogspaceEye) {
  Tensor l = linspace(0, 1, 5);
  EXPECT_FLOAT_EQ(l.data_ptr<float>()[1], 0.25f);
  EXPECT_FLOAT_EQ(l.data_ptr<float>()[4], 1.f);
  Tensor g = logspace(0, 3, 4, 10.0, kFloat64);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[3], 1000.0);
  Tensor e = eye(3, 4);
  EXPECT_EQ(e.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(at<float>(e, {2, 2}), 1.f);
  EXPECT_EQ(at<float>(e, {2, 3}), 0.f);
}

TEST(Factories, FromBlobSharesAndDeletes) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {2, 3});
  t.select(0, 1).select(0, 2).fill_(9);
  EXPECT_EQ(data[5], 9.f);
  bool deleted = false;
  {
    Tensor owned = from_blob(data, {6}, [&](void*) { deleted = true; });
    Tensor view = owned.view({3, 2});
    owned = Tensor();
    EXPECT_FALSE(deleted);
  }
  EXPECT_TRUE(deleted);
}

TEST(Factories, TensorFromValues) {
  Tensor t = tensor({1.5f, 2.5f});
  EXPECT_EQ(t.dtype(), kFloat32);
  Tensor i = tensor({1, 2, 3});
  EXPECT_EQ(i.dtype(), kInt64);
  Tensor d = tensor({1.0, 2.0});
  EXPECT_EQ(d.dtype(), kFloat32);  // like torch.tensor: the default dtype
  Tensor m = tensor({{1, 2}, {3, 4}});
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(at<int64_t>(m, {1, 0}), 3);
  Tensor b = tensor({true, false});
  EXPECT_EQ(b.dtype(), kBool);
}

TEST(Views, ShareStorageAndVersion) {
  Tensor a = arange(12, kFloat32).view({3, 4});
  Tensor v = a.transpose(0, 1);
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(v.storage().get(), a.storage().get());
  uint64_t before = a._version();
  v.fill_(1);
  EXPECT_GT(a._version(), before);
  EXPECT_EQ(a.data_ptr<float>()[5], 1.f);
}

TEST(Views, ViewReshapeErrors) {
  Tensor a = arange(12).view({3, 4});
  EXPECT_EQ(a.view({-1, 6}).sizes(), IntArrayRef({2, 6}));
  EXPECT_THROW(a.view({5, -1}), Error);
  EXPECT_THROW(a.view({-1, -1}), Error);
  Tensor t = a.t();
  EXPECT_THROW(t.view({12}), Error);
  Tensor r = t.reshape({12});
  EXPECT_EQ(r.data_ptr<int64_t>()[1], 4);
  EXPECT_NE(r.storage().get(), a.storage().get());
}

TEST(Views, SliceSelectNarrow) {
  Tensor a = arange(20).view({4, 5});
  Tensor s = a.slice(1, 1, std::nullopt, 2);
  EXPECT_EQ(s.sizes(), IntArrayRef({4, 2}));
  EXPECT_EQ(at<int64_t>(s, {3, 1}), 18);
  EXPECT_EQ(at<int64_t>(a.select(0, -1), {0}), 15);
  EXPECT_EQ(at<int64_t>(a.narrow(1, 2, 2), {0, 0}), 2);
  EXPECT_THROW(a.select(0, 4), Error);
  EXPECT_THROW(a.narrow(1, 4, 2), Error);
  EXPECT_THROW(a.select(2, 0), Error);
}

TEST(Views, ExpandSqueezeUnsqueeze) {
  Tensor a = arange(3).view({3, 1});
  Tensor e = a.expand({2, 3, 4});
  EXPECT_EQ(e.strides(), IntArrayRef({0, 1, 0}));
  EXPECT_THROW(a.expand({2, 2}), Error);
  EXPECT_EQ(a.unsqueeze(0).sizes(), IntArrayRef({1, 3, 1}));
  EXPECT_EQ(a.unsqueeze(-1).sizes(), IntArrayRef({3, 1, 1}));
  EXPECT_EQ(a.squeeze().sizes(), IntArrayRef({3}));
  EXPECT_EQ(a.squeeze(0).sizes(), IntArrayRef({3, 1}));
  EXPECT_THROW(e.fill_(1), Error);  // overlapping memory
}

TEST(Views, UnfoldDiagonalAsStrided) {
  Tensor a = arange(7);
  Tensor u = a.unfold(0, 3, 2);
  EXPECT_EQ(u.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(at<int64_t>(u, {2, 0}), 4);
  Tensor m = arange(12).view({3, 4});
  Tensor d = m.diagonal(1);
  EXPECT_EQ(d.numel(), 3);
  EXPECT_EQ(at<int64_t>(d, {2}), 11);
  EXPECT_EQ(at<int64_t>(m.diagonal(-1), {0}), 4);
  Tensor s = a.as_strided({2, 2}, {1, 2}, 1);
  EXPECT_EQ(at<int64_t>(s, {1, 1}), 4);
  EXPECT_THROW(a.as_strided({4}, {3}), Error);
}

TEST(Views, SplitChunkUnbindMovedim) {
  Tensor a = arange(10);
  auto parts = a.split(4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].numel(), 2);
  auto chunks = a.chunk(3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].numel(), 4);
  auto sized = a.split_with_sizes({3, 7});
  EXPECT_EQ(at<int64_t>(sized[1], {0}), 3);
  EXPECT_THROW(a.split_with_sizes({3, 6}), Error);
  Tensor b = zeros({2, 3, 4, 5});
  EXPECT_EQ(b.movedim(1, 3).sizes(), IntArrayRef({2, 4, 5, 3}));
  EXPECT_EQ(b.movedim({0, 1}, {2, 3}).sizes(), IntArrayRef({4, 5, 2, 3}));
  EXPECT_EQ(b.unbind(1).size(), 3u);
  EXPECT_EQ(b.flatten(1).sizes(), IntArrayRef({2, 60}));
  EXPECT_EQ(b.unflatten(3, {-1, 1}).sizes(), IntArrayRef({2, 3, 4, 5, 1}));
}

TEST(MemoryFormat, ChannelsLast) {
  Tensor a = empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast));
  EXPECT_EQ(a.strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_TRUE(a.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_FALSE(a.is_contiguous());
  EXPECT_EQ(a.suggest_memory_format(), MemoryFormat::ChannelsLast);
  Tensor c = a.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  Tensor b = arange(120, kFloat32).view({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(b.strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_FLOAT_EQ(at<float>(b, {1, 2, 3, 4}), 119.f);
  Tensor d = empty({1, 2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast3d));
  EXPECT_TRUE(d.is_contiguous(MemoryFormat::ChannelsLast3d));
  EXPECT_THROW(empty({2, 3}, TensorOptions().memory_format(MemoryFormat::ChannelsLast)), Error);
}

TEST(Complex, RealImagViews) {
  Tensor z = zeros({3}, kComplex64);
  z.real().fill_(1.5);
  z.imag().fill_(-2);
  auto* p = z.data_ptr<complex64>();
  EXPECT_EQ(p[2], complex64(1.5f, -2.f));
  EXPECT_EQ(z.real().dtype(), kFloat32);
  EXPECT_THROW(zeros({2}).imag(), Error);
}

TEST(Device, Parse) {
  EXPECT_EQ(Device("cuda:1").index, 1);
  EXPECT_TRUE(Device("cpu").is_cpu());
  EXPECT_THROW(Device("tpu"), Error);
  EXPECT_THROW(Device("cuda:x"), Error);
  EXPECT_THROW(zeros({2}, Device("cuda:0")), Error);  // no CUDA allocator in a CPU build
}

TEST(Copy, BroadcastsSourceAndConverts) {
  Tensor dst = zeros({2, 3}, kFloat64);
  dst.copy_(arange(3, kInt32));
  EXPECT_DOUBLE_EQ(at<double>(dst, {1, 2}), 2.0);
  EXPECT_THROW(zeros({3}).copy_(zeros({2, 3})), Error);
  Tensor t = arange(6).view({2, 3}).t();
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(at<int64_t>(c, {2, 1}), 5);
  Tensor h = arange(4, kFloat32).to(kFloat16).to(kFloat64);
  EXPECT_DOUBLE_EQ(at<double>(h, {3}), 3.0);
}

TEST(Views, ViewAsDtypeAndEmptyShape) {
  Tensor one = full({1}, 3.0);
  EXPECT_EQ(one.view({}).dim(), 0);  // a 0-d shape, not a dtype
  Tensor f = ones({2, 4});
  Tensor bits = f.view(kInt32);
  EXPECT_EQ(at<int32_t>(bits, {1, 3}), 0x3f800000);
  Tensor halves = f.view(kInt16);
  EXPECT_EQ(halves.sizes(), IntArrayRef({2, 8}));
  Tensor wide = f.view(kFloat64);
  EXPECT_EQ(wide.sizes(), IntArrayRef({2, 2}));
  EXPECT_THROW(ones({2, 3}).view(kFloat64), Error);
}

TEST(Conversion, ToAnotherDtypeConvertsValues) {
  Tensor a = arange(6).view({2, 3});
  EXPECT_EQ(at<int16_t>(a.to(kInt16), {1, 2}), 5);
  EXPECT_FLOAT_EQ(at<float>(a.to(kFloat32), {1, 1}), 4.f);
  EXPECT_FLOAT_EQ(at<float>(a.t().to(kFloat32), {2, 1}), 5.f);
  Tensor f = empty({2, 3}, kFloat64);
  f.copy_(a);
  EXPECT_DOUBLE_EQ(at<double>(f, {0, 2}), 2.0);
}
