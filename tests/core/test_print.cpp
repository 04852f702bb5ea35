// Printing against torch's repr (torch 1.13, with "torch." dropped from the
// dtype suffix as Ember prints it): formatting modes, padding, line wrapping,
// summarization, dtype suffixes and empty tensors.
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>

using namespace ember;

namespace print_test {
std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

TEST(Print, Integers) {
  EXPECT_EQ(str(tensor({{1, -20, 300}, {4, 5, 6}})), "tensor([[  1, -20, 300],\n        [  4,   5,   6]])");
  EXPECT_EQ(str(arange(8).reshape({2, 2, 2})),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])");
  EXPECT_EQ(str(scalar_tensor(7, kInt64)), "tensor(7)");
}

TEST(Print, Floats) {
  EXPECT_EQ(str(tensor<float>({1.5f, -2.25f, 3.f})), "tensor([ 1.5000, -2.2500,  3.0000])");
  EXPECT_EQ(str(tensor<float>({1.f, 2.f, -3.f})), "tensor([ 1.,  2., -3.])");
  EXPECT_EQ(str(tensor<float>({-0.f, 1.5f})), "tensor([-0.0000, 1.5000])");
  EXPECT_EQ(str(scalar_tensor(3.5)), "tensor(3.5000)");
}

TEST(Print, ScientificMode) {
  EXPECT_EQ(str(tensor<float>({1e-5f, 1.f, 2.5f})), "tensor([1.0000e-05, 1.0000e+00, 2.5000e+00])");
  EXPECT_EQ(str(tensor<float>({1.5e9f, -2.f})), "tensor([ 1.5000e+09, -2.0000e+00])");
  // Integer-valued floats spanning more than 1e3 switch to scientific mode too.
  EXPECT_EQ(str(tensor<float>({1.f, 2.f, 1e4f})), "tensor([1.0000e+00, 2.0000e+00, 1.0000e+04])");
}

TEST(Print, NonFiniteValues) {
  // Only finite non-zero values set the column width.
  EXPECT_EQ(str(tensor<float>({1.f, NAN})), "tensor([1., nan])");
  EXPECT_EQ(str(tensor<float>({0.f, NAN})), "tensor([0., nan])");
  EXPECT_EQ(str(tensor<float>({1.5f, INFINITY, -INFINITY})), "tensor([1.5000,    inf,   -inf])");
}

TEST(Print, Bool) {
  EXPECT_EQ(str(tensor<bool>({true, false, true})), "tensor([ True, False,  True])");
}

TEST(Print, DtypeSuffix) {
  EXPECT_EQ(str(tensor<int64_t>({1, 2}).to(kInt32)), "tensor([1, 2], dtype=int32)");
  EXPECT_EQ(str(tensor<float>({1.5f, 2.f}).to(kFloat64)), "tensor([1.5000, 2.0000], dtype=float64)");
  EXPECT_EQ(str(tensor<double>({1.5})), "tensor([1.5000])") << "C++ doubles give the default dtype";
  EXPECT_EQ(str(tensor<float>({0.5f, 2.f}).to(kFloat16)), "tensor([0.5000, 2.0000], dtype=float16)");
  EXPECT_EQ(str(tensor({{1, 255}}).to(kUInt8)), "tensor([[  1, 255]], dtype=uint8)");
}

TEST(Print, EmptyTensors) {
  EXPECT_EQ(str(zeros({0})), "tensor([])");
  EXPECT_EQ(str(zeros({0, 3})), "tensor([], size=(0, 3))");
  // An empty tensor shows every non-default dtype: there are no values to tell.
  EXPECT_EQ(str(zeros({0}, kInt64)), "tensor([], dtype=int64)");
  EXPECT_EQ(str(zeros({2, 0}, kBool)), "tensor([], size=(2, 0), dtype=bool)");
}

TEST(Print, LineWrapping) {
  EXPECT_EQ(str(arange(60).reshape({2, 30})),
            "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "         18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29],\n"
            "        [30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n"
            "         48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]])");
}

TEST(Print, Summarized) {
  EXPECT_EQ(str(arange(2000)), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(str(arange(1200, kFloat32).reshape({40, 30})),
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
            "         2.9000e+01],\n"
            "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
            "         5.9000e+01],\n"
            "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
            "         8.9000e+01],\n"
            "        ...,\n"
            "        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,\n"
            "         1.1390e+03],\n"
            "        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,\n"
            "         1.1690e+03],\n"
            "        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
            "         1.1990e+03]])");
}

TEST(Print, NonContiguousAndUndefined) {
  EXPECT_EQ(str(tensor({{1, 2}, {3, 4}}).t()), "tensor([[1, 3],\n        [2, 4]])");
  EXPECT_EQ(str(Tensor()), "[ Tensor (undefined) ]");
}

}  // namespace print_test
