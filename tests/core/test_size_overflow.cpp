// Checked sizes (Note [Checked sizes] in ember/core/checked_size.h): every
// factory, view and shape op given extreme shapes (2^31, 2^32, 2^62 and
// 2^63 - 1 extents, stride 0, zero sizes mixed with huge ones, negative
// inputs) either raises an ember::Error naming the op or returns a correct
// result; it never crashes. Expected sizes, element counts and byte counts
// are computed here independently, in 128-bit integers.
//
// No case allocates more than a few KiB: sizes whose bytes could be
// allocated on some machine (between 1 MiB and 256 TiB) are not used, so the
// "not enough memory" cases ask for at least 2^48 bytes, more than any x86-64
// or aarch64 user address space, and fail whatever the overcommit policy.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/checked_size.h>
#include <ember/ember.h>

#include "serialize_test_util.h"
#include "tensor_expect.h"

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer aborts on allocations past its maximum instead of
// returning null: these tests ask for 2^48+ bytes on purpose.
extern "C" __attribute__((weak)) const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace ember {
namespace size_overflow_test {

using i128 = __int128;
constexpr int64_t kMax = INT64_MAX;
constexpr int64_t k31 = int64_t{1} << 31, k32 = int64_t{1} << 32, k40 = int64_t{1} << 40,
                  k46 = int64_t{1} << 46, k48 = int64_t{1} << 48, k61 = int64_t{1} << 61,
                  k62 = int64_t{1} << 62;

// Results of running an op: the error message, or the tensor.
struct Outcome {
  std::optional<std::string> error;
  Tensor value;
};

// Anything but an ember::Error (std::bad_alloc, std::length_error...) escapes
// and fails the test; a crash fails the binary.
template <class F>
Outcome run(F&& f) {
  try {
    return {std::nullopt, f()};
  } catch (const Error& e) {
    return {std::string(e.what()), Tensor()};
  }
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// numel with PyTorch's rule (0 when a size is 0), or nullopt past int64 or
// for a negative size.
std::optional<int64_t> numel128(const std::vector<int64_t>& sizes) {
  i128 n = 1;
  for (int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    if (s == 0) return 0;
  }
  for (int64_t s : sizes) {
    n *= s;
    if (n > kMax) return std::nullopt;
  }
  return static_cast<int64_t>(n);
}

// Every element of t lies inside its storage and its byte strides fit
// (the invariant kernels rely on), checked here in 128 bits.
void expect_inside_storage(const Tensor& t, const std::string& what) {
  if (t.numel() == 0) return;
  i128 last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    ASSERT_GE(t.stride(d), 0) << what;
    last += i128(t.size(d) - 1) * t.stride(d);
    EXPECT_LE(i128(t.stride(d)) * i128(t.element_size()), i128(kMax)) << what;
  }
  EXPECT_LE((last + 1) * i128(t.element_size()), i128(t.storage()->nbytes())) << what;
}

// The element at `index` of a float tensor, read through its geometry.
float element_at(const Tensor& t, const std::vector<int64_t>& index) {
  i128 offset = t.storage_offset();
  for (size_t d = 0; d < index.size(); ++d) offset += i128(index[d]) * t.stride(static_cast<int64_t>(d));
  return static_cast<const float*>(t.storage()->data())[static_cast<int64_t>(offset)];
}

// [0, 1, 2, 3] as float32 rows repeated `rows` times (stride 0): element [i, j] is j.
Tensor repeated_rows(int64_t rows) { return arange(4, kFloat32).as_strided({rows, 4}, {0, 1}); }
// One float32 value v repeated over `sizes` (all strides 0).
Tensor repeated_value(const std::vector<int64_t>& sizes, float v = 7.5f) {
  return full({1}, v, kFloat32).as_strided(sizes, std::vector<int64_t>(sizes.size(), 0));
}

// ---- the helpers ----

TEST(SizeOverflow, CheckedArithmetic) {
  EXPECT_EQ(checked_mul(k31, k31, "t"), k62);
  EXPECT_EQ(checked_add(kMax - 1, 1, "t"), kMax);
  testing::expect_error([] { checked_mul(k32, k32, "myop"); }, "myop: integer overflow: 4294967296 * 4294967296");
  testing::expect_error([] { checked_add(kMax, 1, "myop"); }, "myop: integer overflow");
  testing::expect_error([] { checked_mul(INT64_MIN, -1, "myop"); }, "myop");

  EXPECT_EQ(try_numel({}), 1);
  EXPECT_EQ(try_numel({k31, k31}), k62);
  EXPECT_EQ(try_numel({k32, k32}), std::nullopt);
  EXPECT_EQ(try_numel({k62, k62, 0}), 0);  // zero whatever the order, unlike PyTorch's
  EXPECT_EQ(try_numel({0, k62, k62}), 0);
  EXPECT_EQ(checked_numel({kMax}, "t"), kMax);
  testing::expect_error([] { checked_numel({3, -2}, "myop"); }, "myop: negative dimension -2 in sizes [3, -2]");
  testing::expect_error([] { checked_numel({k32, k32}, "myop"); },
                        "myop: the number of elements of sizes=[4294967296, 4294967296] overflows int64");

  EXPECT_EQ(checked_nbytes({k31, k31}, 1, "t"), k62);
  EXPECT_EQ(checked_nbytes({0, k62}, 16, "t"), 0);
  testing::expect_error([] { checked_nbytes({k31, k31}, 4, "empty"); },
                        "empty: storage size calculation overflowed with sizes=[2147483648, 2147483648]");

  EXPECT_EQ(storage_nbytes({2, 3}, {3, 1}, 0, 4, "t"), 24);
  EXPECT_EQ(storage_nbytes({2, 3}, {3, 1}, 5, 4, "t"), 44);
  EXPECT_EQ(storage_nbytes({k62}, {0}, 1, 4, "t"), 8);  // a stride-0 view needs its offset + 1 elements
  EXPECT_EQ(storage_nbytes({0, k62}, {kMax, kMax}, 0, 8, "t"), 0);
  EXPECT_EQ(storage_nbytes({1}, {kMax}, 0, 1, "t"), 1);
  testing::expect_error([] { storage_nbytes({1}, {k62}, 0, 4, "myop"); },
                        "myop: storage size calculation overflowed with sizes=[1] and strides=[4611686018427387904]");
  testing::expect_error([] { storage_nbytes({k62, 2}, {k62, 1}, 0, 1, "myop"); }, "overflowed");
  testing::expect_error([] { storage_nbytes({2}, {kMax}, kMax, 1, "myop"); }, "storage offset");
  testing::expect_error([] { storage_nbytes({2}, {-1}, 0, 1, "myop"); }, "myop: negative stride -1");
  testing::expect_error([] { storage_nbytes({2}, {1}, -1, 1, "myop"); }, "myop: negative storage offset");
}

// ---- factories ----

// The case: 2^62 elements of 4 bytes.
TEST(SizeOverflow, EmptyOfTwoToTheSixtyFourBytes) {
  testing::expect_error([] { empty({k31, k31}); },
                        "empty: storage size calculation overflowed with sizes=[2147483648, 2147483648]");
  testing::expect_error([] { empty_strided({k61, 2}, {k62, 1}); },
                        "empty_strided: storage size calculation overflowed with sizes=[2305843009213693952, 2] "
                        "and strides=[4611686018427387904, 1]");
  testing::expect_error([] { empty_strided({k62, 2}, {k62, 1}); },
                        "empty_strided: the number of elements of sizes=[4611686018427387904, 2] overflows int64");
  // Fits int64, refused by the system: PyTorch's words, with the op and the byte count.
  testing::expect_error([] { empty({k48}, kFloat32); }, "you tried to allocate 1125899906842624 bytes");
  testing::expect_error([] { zeros({k48}, kUInt8); }, "zeros: sizes=[281474976710656] of uint8: ");
}

// Every factory over extreme shapes and three element sizes: an error when
// the shape is invalid or its bytes overflow (or cannot be allocated), the
// right tensor when it is small.
TEST(SizeOverflow, FactoryProperty) {
  const std::vector<std::vector<int64_t>> shapes = {
      {},          {0},           {5},          {2, 3},       {k31, k31},   {k32, k32},        {k62},
      {kMax},      {k62, 2},      {k48},        {k46, 4},     {0, k62, k62}, {k62, k62, 0},   {0, kMax},
      {kMax, 0},   {-1},          {2, -5},      {k31, -1},    {1, 0, k62},  {k31, k32, 0},    {3, k61},
  };
  struct Factory {
    const char* name;
    std::function<Tensor(IntArrayRef, DType)> make;
    bool floating_only;
  };
  Generator gen(5);
  const std::vector<Factory> factories = {
      {"empty", [](IntArrayRef s, DType t) { return empty(s, t); }, false},
      {"zeros", [](IntArrayRef s, DType t) { return zeros(s, t); }, false},
      {"ones", [](IntArrayRef s, DType t) { return ones(s, t); }, false},
      {"full", [](IntArrayRef s, DType t) { return full(s, 3, t); }, false},
      {"empty_strided",
       [](IntArrayRef s, DType t) {
         // Row-major strides computed here, saturating: overflowing strides must be refused too.
         std::vector<int64_t> st(s.size());
         i128 acc = 1;
         for (size_t i = s.size(); i-- > 0;) {
           st[i] = acc > kMax ? kMax : static_cast<int64_t>(acc);
           acc *= std::max<int64_t>(s[i], 1);
         }
         return empty_strided(s, st, t);
       },
       false},
      {"rand", [&](IntArrayRef s, DType t) { return rand(s, t, &gen); }, true},
      {"randn", [&](IntArrayRef s, DType t) { return randn(s, t, &gen); }, true},
      {"normal", [&](IntArrayRef s, DType t) { return normal(0, 1, s, t, &gen); }, true},
      {"randint", [&](IntArrayRef s, DType t) { return randint(0, 5, s, t, &gen); }, false},
  };
  int successes = 0, errors = 0;
  for (const auto& shape : shapes) {
    for (DType dtype : {kUInt8, kFloat32, kComplex128}) {
      for (const Factory& f : factories) {
        if (f.floating_only && dtype == kUInt8) continue;
        if (std::string(f.name) == "randint" && is_complex(dtype)) continue;
        if (std::string(f.name) == "normal" && is_complex(dtype)) continue;
        const std::string what = std::string(f.name) + " " + ::testing::PrintToString(shape) + " " +
                                 std::string(dtype_name(dtype));
        const Outcome o = run([&] { return f.make(shape, dtype); });
        const std::optional<int64_t> n = numel128(shape);
        const i128 bytes = n ? i128(*n) * i128(element_size(dtype)) : 0;
        const bool must_fail = !n || bytes > i128(kMax) || bytes >= (i128(1) << 48);
        const bool must_succeed = n && bytes <= 4096 && (*n > 0 || shape.size() < 3);
        if (o.error) {
          ++errors;
          EXPECT_FALSE(must_succeed) << what << ": " << *o.error;
          // The message names the op (rand/randn/... allocate under their own name) and the sizes.
          EXPECT_TRUE(contains(*o.error, f.name) || contains(*o.error, "empty")) << what << ": " << *o.error;
          continue;
        }
        ++successes;
        EXPECT_FALSE(must_fail) << what << " returned a tensor";
        const Tensor& t = o.value;
        ASSERT_EQ(t.sizes().vec(), shape) << what;
        ASSERT_EQ(t.numel(), *n) << what;
        EXPECT_EQ(t.dtype(), dtype) << what;
        expect_inside_storage(t, what);
        if (*n == 0) continue;
        const std::string name = f.name;
        if (name == "zeros") {
          EXPECT_TRUE(t.eq(0).all().item<bool>()) << what;
        } else if (name == "full") {
          EXPECT_TRUE(t.eq(3).all().item<bool>()) << what;
        } else if (name == "randint") {
          EXPECT_TRUE(logical_and(t.ge(0), t.lt(5)).all().item<bool>()) << what;
        }
      }
    }
  }
  EXPECT_GT(successes, 50);
  EXPECT_GT(errors, 100);
}

TEST(SizeOverflow, RangeFactories) {
  testing::expect_error([] { arange(-k62, k62); }, "arange: invalid size, possible overflow");
  testing::expect_error([] { arange(INT64_MIN, kMax); }, "arange: invalid size, possible overflow");
  testing::expect_error([] { arange(kMax, INT64_MIN, -1); }, "arange: invalid size");
  testing::expect_error([] { arange(0, 1e30); }, "arange: invalid size");
  testing::expect_error([] { arange(0.0, 1.0, 1e-300); }, "arange: invalid size");
  testing::expect_error([] { arange(0, k48, 1, kUInt8); }, "arange: ");  // 2^48 bytes: refused
  // Extreme but short ranges are exact.
  Tensor a = arange(kMax - 2, kMax);
  ASSERT_EQ(a.numel(), 2);
  EXPECT_EQ(a[0].item<int64_t>(), kMax - 2);
  EXPECT_EQ(a[1].item<int64_t>(), kMax - 1);
  // The last value is 0 = INT64_MIN + 2 * 2^62, where step * index alone overflows.
  Tensor b = arange(INT64_MIN, INT64_MIN + k62 + k62 + k62, k62);
  ASSERT_EQ(b.numel(), 3);
  EXPECT_EQ(b[1].item<int64_t>(), -k62);
  EXPECT_EQ(b[2].item<int64_t>(), 0);
  Tensor c = arange(kMax, kMax - 10, -4);
  ASSERT_EQ(c.numel(), 3);
  EXPECT_EQ(c[2].item<int64_t>(), kMax - 8);

  testing::expect_error([] { linspace(0, 1, k62); }, "linspace: storage size calculation overflowed");
  testing::expect_error([] { linspace(0, 1, -1); }, "linspace: number of steps must be non-negative");
  testing::expect_error([] { logspace(0, 1, k62); }, "logspace: storage size calculation overflowed");
  testing::expect_error([] { eye(k32); }, "eye: the number of elements of sizes=[4294967296, 4294967296]");
  testing::expect_error([] { eye(k40, k40); }, "eye: ");
  testing::expect_error([] { eye(3, -1); }, "eye: n and m must be non-negative");
  EXPECT_EQ(eye(0, kMax).numel(), 0);
  testing::expect_error([] { randperm(k62); }, "randperm: ");
  testing::expect_error([] { randperm(-1); }, "randperm: expected n >= 0");
}

TEST(SizeOverflow, FromBlob) {
  float data[4] = {1, 2, 3, 4};
  const std::vector<int64_t> sizes{k62}, strides{0};
  Tensor t = from_blob(data, sizes, strides);
  EXPECT_EQ(t.numel(), k62);
  EXPECT_EQ(t.storage()->nbytes(), 4u);
  EXPECT_EQ(element_at(t, {k62 - 1}), 1.0f);
  testing::expect_error([&] { from_blob(data, IntArrayRef(2), IntArrayRef(k62)); },
                        "from_blob: storage size calculation overflowed");
  testing::expect_error([&] { from_blob(data, {k31, k31}); }, "from_blob: storage size calculation overflowed");
  testing::expect_error([&] { from_blob(data, {k32, k32}); }, "from_blob: the number of elements");
  testing::expect_error([&] { from_blob(data, IntArrayRef(2), IntArrayRef(-1)); }, "from_blob: negative stride");
  testing::expect_error([&] { from_blob(data, {k31, k31}, [](void*) {}); }, "from_blob: storage size calculation");
}

// ---- views ----

TEST(SizeOverflow, ExpandAndAsStrided) {
  Tensor x = full({1}, 7.5f, kFloat32);
  Tensor e = x.expand({k62});
  EXPECT_EQ(e.numel(), k62);
  EXPECT_EQ(e.strides().vec(), std::vector<int64_t>{0});
  EXPECT_EQ(element_at(e, {k62 - 1}), 7.5f);
  // numel past int64: PyTorch's "numel: integer multiplication overflow".
  testing::expect_error([&] { x.expand({k32, k32}); }, "expand: the number of elements of sizes=[4294967296, 4294967296]");
  testing::expect_error([&] { x.expand({kMax, 2}); }, "expand: ");
  testing::expect_error([&] { x.expand({-2}); }, "expand: invalid size -2");
  // A new leading size-1 dim outside a huge one: any stride is right, none overflows.
  const int64_t k60 = int64_t{1} << 60;
  Tensor l = repeated_rows(k60).expand({1, k60, 4});
  expect_inside_storage(l, "leading dim");
  EXPECT_EQ(element_at(l, {0, k60 - 1, 3}), 3.0f);

  Tensor small = zeros({2});
  EXPECT_EQ(small.as_strided({k62}, {0}).numel(), k62);
  EXPECT_EQ(small.as_strided({kMax}, {0}, 1).numel(), kMax);
  testing::expect_error([&] { small.as_strided({2}, {k62}); }, "as_strided: storage size calculation overflowed");
  testing::expect_error([&] { small.as_strided({k61, 2}, {0, kMax}); }, "as_strided: storage size calculation");
  testing::expect_error([&] { small.as_strided({2}, {1}, kMax); }, "as_strided: storage size calculation");
  testing::expect_error([&] { small.as_strided({3}, {1}); }, "need 3 elements but the storage holds only 2");
  testing::expect_error([&] { small.as_strided({k32, k32}, {0, 0}); }, "as_strided: the number of elements");
  testing::expect_error([&] { small.as_strided({-1}, {0}); }, "as_strided: negative dimension");
  // Empty views: any strides, no storage needed.
  EXPECT_EQ(small.as_strided({0, kMax}, {kMax, kMax}).numel(), 0);
}

TEST(SizeOverflow, ReshapeViewFlatten) {
  Tensor h = repeated_value({k31, k31});
  // A stride-0 view flattens without a copy: strides stay 0.
  Tensor f = h.reshape({-1});
  EXPECT_EQ(f.sizes().vec(), std::vector<int64_t>{k62});
  EXPECT_EQ(f.strides().vec(), std::vector<int64_t>{0});
  EXPECT_EQ(h.flatten().numel(), k62);
  EXPECT_EQ(h.view({k31, 2, k31 / 2}).numel(), k62);
  // Shapes whose product overflows can never match: PyTorch's "shape ... is invalid".
  testing::expect_error([&] { h.view({-1, k62, k62}); }, "view: shape [-1, 4611686018427387904, 4611686018427387904] is invalid");
  testing::expect_error([&] { h.reshape({k32, k32}); }, "reshape: shape [4294967296, 4294967296] is invalid for input of size 4611686018427387904");
  testing::expect_error([&] { h.view({kMax}); }, "is invalid for input of size");
  testing::expect_error([&] { h.view({-1, 0}); }, "view: shape [-1, 0] is invalid");
  // An empty tensor viewed with huge dims: a zero keeps numel at 0, the strides overflow.
  Tensor z = zeros({0});
  Outcome o = run([&] { return z.view({0, k62, k62}); });
  if (o.error) {
    EXPECT_TRUE(contains(*o.error, "overflow")) << *o.error;
  } else {
    EXPECT_EQ(o.value.numel(), 0);
  }
  EXPECT_EQ(z.view({k62, 0}).numel(), 0);
  // flatten of an empty tensor whose other dims multiply past int64.
  Tensor ez = zeros({1}).as_strided({0, k62, k62}, {1, 1, 1});
  testing::expect_error([&] { ez.flatten(1); }, "flatten: merging dims 1 to 2 of sizes [0, 4611686018427387904, 4611686018427387904]");
  EXPECT_EQ(ez.flatten(0, 1).sizes().vec(), (std::vector<int64_t>{0, k62}));
  // unflatten goes through the same inference.
  testing::expect_error([&] { f.unflatten(0, {k62, k62}); }, "unflatten: shape");
  EXPECT_EQ(f.unflatten(0, {k31, -1}).sizes().vec(), (std::vector<int64_t>{k31, k31}));
}

TEST(SizeOverflow, SliceSelectNarrowDiagonal) {
  const int64_t R = kMax / 4;  // rows of 4: numel kMax - 3
  Tensor r = repeated_rows(R);
  Tensor s = r.slice(0, 5, std::nullopt, kMax);
  EXPECT_EQ(s.size(0), 1);  // (R - 5) / MAX rounded up: the old formula overflowed here
  EXPECT_EQ(element_at(s, {0, 2}), 2.0f);
  EXPECT_EQ(r.slice(0, R - 3, R, 2).size(0), 2);
  // One element left along dim 1: its stride (1 * MAX) would overflow in bytes.
  Tensor one = r.slice(1, 1, 4, kMax);
  EXPECT_EQ(one.sizes().vec(), (std::vector<int64_t>{R, 1}));
  expect_inside_storage(one, "slice one element");
  EXPECT_EQ(one[R - 1][0].item<float>(), 1.0f);
  EXPECT_EQ(r.select(0, R - 1)[3].item<float>(), 3.0f);
  EXPECT_EQ(r.narrow(0, R - 2, 2).size(0), 2);
  testing::expect_error([&] { r.narrow(0, R - 2, 3); }, "narrow: start (");
  testing::expect_error([&] { r.select(0, R); }, "select: index");
  // The diagonal of a [2^31, 2^31] stride-0 view.
  Tensor d = repeated_value({k31, k31}).diagonal();
  EXPECT_EQ(d.numel(), k31);
  EXPECT_EQ(element_at(d, {k31 - 1}), 7.5f);
  // chunk and split with counts near the limits.
  Tensor small = arange(5, kFloat32);
  EXPECT_EQ(small.chunk(kMax).size(), 5u);
  EXPECT_EQ(small.split(kMax).size(), 1u);
  // Pieces of 2^62 from a dim of 2^63 - 1: the old loop's position overflowed.
  const Tensor longest = repeated_value({kMax});
  ASSERT_EQ(longest.split(k62).size(), 2u);
  EXPECT_EQ(longest.split(k62)[1].size(0), k62 - 1);
  testing::expect_error([&] { small.split_with_sizes({kMax, kMax, 5}); }, "split_with_sizes: split_sizes=");
  EXPECT_EQ(longest.tensor_split(2)[1].size(0), kMax / 2);
}

TEST(SizeOverflow, UnfoldUnsqueezeAndDtypeViews) {
  Tensor v = repeated_value({k40});
  testing::expect_error([&] { v.unfold(0, k40 / 2, 1); }, "unfold: the number of elements");
  Tensor w = v.unfold(0, 4, 4);
  EXPECT_EQ(w.sizes().vec(), (std::vector<int64_t>{k40 / 4, 4}));
  // One window: a step far past the size gives a single window and no overflow.
  Tensor one = arange(10, kFloat32).unfold(0, 3, kMax);
  EXPECT_EQ(one.sizes().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(one[0][2].item<float>(), 2.0f);
  expect_inside_storage(one, "unfold one window");
  // unsqueeze outside a huge dim.
  Tensor u = repeated_rows(kMax / 4).unsqueeze(0);
  expect_inside_storage(u, "unsqueeze");
  // view(dtype) to a smaller element multiplies the last dim: may overflow numel.
  Tensor wide = zeros({2}, kFloat64).as_strided({k62, 1}, {0, 1});
  testing::expect_error([&] { wide.view_dtype(kUInt8); }, "view(dtype): the number of elements");
  Tensor narrow_ok = zeros({2}, kFloat64).as_strided({k48, 1}, {0, 1}).view_dtype(kUInt8);
  EXPECT_EQ(narrow_ok.sizes().vec(), (std::vector<int64_t>{k48, 8}));
  expect_inside_storage(narrow_ok, "view_dtype");
  // Complex views of huge stride-0 tensors: strides double, never overflow.
  Tensor c = zeros({1}, kComplex128).expand({k61});
  expect_inside_storage(view_as_real(c), "view_as_real");
  expect_inside_storage(c.imag(), "imag");
  EXPECT_THROW(c.nbytes(), Error);  // 2^61 * 16 bytes: the logical size overflows
  testing::expect_error([] { view_as_real(zeros({1}, kComplex64).expand({k62})); },
                        "view_as_real: the number of elements");
}

// ---- shape ops and materialization: outputs that cannot exist ----

TEST(SizeOverflow, MaterializingHugeViewsRaises) {
  const Tensor h62 = repeated_value({k62});
  const Tensor h46 = repeated_value({k46});  // 2^48 bytes of float32: fits int64, never allocatable
  testing::expect_error([&] { h62.contiguous(); }, "contiguous: storage size calculation overflowed with sizes=[4611686018427387904]");
  testing::expect_error([&] { h62.clone(); }, "clone: storage size calculation overflowed");
  testing::expect_error([&] { h62.to(kFloat64); }, "to: ");
  testing::expect_error([&] { h46.contiguous(); }, "contiguous: sizes=[70368744177664] of float32: ");
  testing::expect_error([&] { h46.contiguous(); }, "not enough memory: you tried to allocate 281474976710656 bytes");
  testing::expect_error([&] { h46 + 1; }, "add");
  testing::expect_error([&] { h46.exp(); }, "exp");
  EXPECT_THROW(h62.nbytes(), Error);
  EXPECT_EQ(h46.nbytes(), size_t(k48));
  // Broadcasting two valid views to 2^80 elements.
  const Tensor col = repeated_value({k40, 1}), row = repeated_value({1, k40});
  testing::expect_error([&] { col + row; }, "add: the number of elements of sizes=[1099511627776, 1099511627776]");
  testing::expect_error([&] { col * row; }, "overflows int64");
}

TEST(SizeOverflow, CatStackRepeat) {
  const Tensor a = repeated_value({k62}), b = repeated_value({k62});
  testing::expect_error([&] { cat({a, b}); }, "cat(): the sizes of dim 0 of the inputs sum past int64");
  testing::expect_error([&] { cat({repeated_value({k61}), repeated_value({k61})}); }, "cat: ");
  testing::expect_error([&] { stack({a, b}); }, "cat: ");
  testing::expect_error([&] { repeated_value({k40}).repeat({k40}); }, "repeat: repeating size 1099511627776 of dim 0");
  testing::expect_error([&] { zeros({3}).repeat({k62}); }, "repeat: ");
  testing::expect_error([&] { zeros({3}).repeat({-1}); }, "repeat: repeats can not be negative");
  testing::expect_error([&] { repeated_value({k32}).tile({k32}); }, "repeat: repeating size 4294967296");
  EXPECT_EQ(zeros({0}).repeat({kMax}).numel(), 0);
  Tensor small = arange(3, kFloat32).repeat({2, 2});
  EXPECT_EQ(small.sizes().vec(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(small[1][4].item<float>(), 1.0f);

  testing::expect_error([] { zeros({3}).repeat_interleave(k48); }, "repeat_interleave: ");
  testing::expect_error([] { zeros({3}).repeat_interleave(tensor({k62, k62, k62})); },
                        "repeat_interleave: the repeats sum past int64");
  testing::expect_error([] { zeros({3}).repeat_interleave(-1); }, "repeat_interleave: repeats can not be negative");
  EXPECT_EQ(zeros({0, 3}).repeat_interleave(k62, 0).sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(arange(3, kFloat32).repeat_interleave(2)[5].item<float>(), 2.0f);
}

TEST(SizeOverflow, FlipRollPad) {
  // Outputs the size of a huge view cannot be allocated: the error comes
  // before any index map (8 bytes per index) is built.
  testing::expect_error([] { flip(repeated_value({k46}), {0}); }, "flip: ");
  testing::expect_error([] { roll(repeated_value({k46}), {1}, {0}); }, "roll: ");
  EXPECT_EQ(flip(zeros({1}).as_strided({0, k62}, {0, 0}), {1}).numel(), 0);
  // Extreme shifts, against Python's modulo computed here in 128 bits.
  const Tensor x = arange(7, kFloat32);
  for (int64_t shift : {INT64_MIN, INT64_MIN + 1, kMax, kMax - 3, k62 + 1}) {
    Tensor r = roll(x, {shift}, {0});
    const int64_t s = static_cast<int64_t>(((i128(shift) % 7) + 7) % 7);
    for (int64_t j = 0; j < 7; ++j)
      EXPECT_EQ(r[j].item<float>(), static_cast<float>((j - s + 7) % 7)) << "shift " << shift << " j " << j;
  }
  Tensor rr = roll(arange(7, kFloat32), {INT64_MIN, kMax}, {0, 0});  // the shifts add modulo 7
  const int64_t s2 = static_cast<int64_t>((((i128(INT64_MIN) + kMax) % 7) + 7) % 7);
  EXPECT_EQ(rr[0].item<float>(), static_cast<float>((0 - s2 + 7) % 7));

  // Pads near the int64 limits never wrap into a plausible size.
  const Tensor p = arange(20, kFloat32).reshape({1, 1, 20});
  testing::expect_error([&] { pad(p, {kMax, kMax}); }, "constant_pad_nd: the input size 20 plus padding");
  testing::expect_error([&] { pad(p, {INT64_MIN, INT64_MIN}); }, "resulted in a negative output size");
  testing::expect_error([&] { pad(p, {kMax, 1}, "replicate"); }, "overflows int64");
  testing::expect_error([&] { pad(p, {k48, 0}, "replicate"); }, "replication_pad: ");
  testing::expect_error([&] { pad(p, {INT64_MIN, 0}, "circular"); }, "pad: ");
  testing::expect_error([&] { pad(p, {INT64_MIN, kMax}, "reflect"); }, "pad: ");
  // Everything cropped, then padded: the output holds only the pad value.
  // Output size 20 + (MIN + 10) + MAX = 29; input index j - left is past the end for every j.
  Tensor c = pad(p, {INT64_MIN + 10, kMax}, "constant", 2.0);
  ASSERT_EQ(c.sizes().vec(), (std::vector<int64_t>{1, 1, 29}));
  EXPECT_TRUE(c.eq(2.0).all().item<bool>());
  // replicate: every output index clamps to the last input element.
  Tensor rep = pad(p, {INT64_MIN + 10, kMax}, "replicate");
  ASSERT_EQ(rep.sizes().vec(), (std::vector<int64_t>{1, 1, 29}));
  EXPECT_TRUE(rep.eq(19.0).all().item<bool>());
}

// One tensor per piece: piece counts whose tensors cannot fit in memory raise
// at once instead of filling the memory with tensor headers.
TEST(SizeOverflow, SplitIntoTooManyPieces) {
  const Tensor h = repeated_value({k40});  // a stride-0 view: no data behind it
  testing::expect_error([&] { h.unbind(0); }, "unbind: 1099511627776 outputs would need");
  testing::expect_error([&] { h.split(1); }, "split: 1099511627776 outputs");
  testing::expect_error([&] { h.chunk(k40); }, "split: ");
  testing::expect_error([&] { h.tensor_split(k62); }, "tensor_split: 4611686018427387904 outputs");
  testing::expect_error([&] { zeros({0}).chunk(k62); }, "chunk: 4611686018427387904 outputs");
  // Sensible counts of huge pieces are views as before.
  const auto pieces = h.split(k40 / 4);
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[3].size(0), k40 / 4);
  EXPECT_EQ(pieces[3][5].item<float>(), 7.5f);
}

// The backward of an extreme roll or pad negates its shifts or pads: never
// -INT64_MIN (UB; the sanitizer build traps it).
TEST(SizeOverflow, FlipRollPadGradients) {
  const Tensor w = arange(7, kFloat32) * 10;
  for (int64_t shift : {INT64_MIN, INT64_MIN + 1, kMax}) {
    for (bool with_dims : {true, false}) {
      Tensor x = arange(7, kFloat32).requires_grad_(true);
      Tensor r = with_dims ? roll(x, {shift}, {0}) : roll(x, {shift});
      (r * w).sum().backward();
      // out[j] = x[(j - s) mod 7], so d/dx[i] = w[(i + s) mod 7].
      const int64_t s = static_cast<int64_t>(((i128(shift) % 7) + 7) % 7);
      for (int64_t i = 0; i < 7; ++i)
        EXPECT_EQ(x.grad()[i].item<float>(), 10.f * static_cast<float>((i + s) % 7)) << "shift " << shift;
    }
  }
  // Everything cropped: the gradient is zero, of the input's shape.
  Tensor p = arange(20, kFloat32).reshape({1, 1, 20}).requires_grad_(true);
  Tensor c = pad(p, {INT64_MIN + 10, kMax}, "constant", 2.0);
  (c * 3).sum().backward();
  ASSERT_EQ(p.grad().sizes().vec(), (std::vector<int64_t>{1, 1, 20}));
  EXPECT_TRUE(p.grad().eq(0).all().item<bool>());
  Tensor q = arange(5, kFloat32).requires_grad_(true);
  Tensor d = constant_pad_nd(q, {INT64_MIN, kMax}, 1.0);  // 5 + MIN + MAX = 4 values of the pad
  ASSERT_EQ(d.numel(), 4);
  d.sum().backward();
  ASSERT_EQ(q.grad().numel(), 5);
  EXPECT_TRUE(q.grad().eq(0).all().item<bool>());
}

// Index maps and outputs of ops with data-dependent sizes are bounded by
// memory, not by arithmetic: repeat_interleave's map is built only once its
// output exists.
TEST(SizeOverflow, NoStdExceptionsEscape) {
  // Tensors of one element repeated 2^62 times along every dim the ops touch.
  const std::vector<std::function<Tensor()>> ops = {
      [] { return repeated_value({k62}).flip({0}); },
      [] { return repeated_value({k62}).roll({1}); },
      [] { return repeated_value({k62}).cumsum(0); },
      [] { return repeated_value({k62}).sort().first; },
      [] { return repeated_value({k62}).masked_select(repeated_value({k62}).gt(0)); },
      [] { return repeated_value({k62}).index_select(0, tensor({int64_t{0}, k62 - 1})); },
      [] { return repeated_value({k62}).repeat_interleave(2); },
      [] { return pad(repeated_value({1, 1, k62}), {1, 1}, "reflect"); },
      [] { return repeated_value({k62}).tril(); },
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    Outcome o = run(ops[i]);
    if (!o.error) expect_inside_storage(o.value, "op " + std::to_string(i));
  }
}

// ---- checkpoints holding huge stride-0 views ----

std::string sizes_dir() { return testing::fixture_path("core/sizes/"); }

Tensor load_view(const std::string& name) {
  return serialize::load_torch_state_dict(sizes_dir() + name + ".pt").at("t");
}

// Written by torch.save (scripts/fixtures/sizes.py): PyTorch loads them, and
// so does Ember, with the same geometry; materializing raises.
TEST(SizeOverflow, PyTorchCheckpointsOfHugeViews) {
  Tensor t = load_view("expand_2p46");
  EXPECT_EQ(t.sizes().vec(), std::vector<int64_t>{k46});
  EXPECT_EQ(t.strides().vec(), std::vector<int64_t>{0});
  EXPECT_EQ(element_at(t, {k46 - 1}), 1.5f);
  EXPECT_EQ(t[k46 - 1].item<float>(), 1.5f);
  testing::expect_error([&] { t.contiguous(); }, "contiguous: sizes=[70368744177664] of float32: ");
  testing::expect_error([&] { t.contiguous(); }, "you tried to allocate 281474976710656 bytes");

  Tensor u = load_view("expand_2p62");
  EXPECT_EQ(u.numel(), k62);
  EXPECT_EQ(u[k62 - 1].item<float>(), 2.5f);
  testing::expect_error([&] { u.contiguous(); }, "contiguous: storage size calculation overflowed with sizes=[4611686018427387904]");

  Tensor v = load_view("expand_2p31_squared");
  EXPECT_EQ(v.sizes().vec(), (std::vector<int64_t>{k31, k31}));
  EXPECT_EQ(v[k31 - 1][k31 - 1].item<float>(), 3.5f);
  testing::expect_error([&] { v.contiguous(); }, "overflowed with sizes=[2147483648, 2147483648]");
  testing::expect_error([&] { v.reshape({k32, k32}); }, "is invalid");
  EXPECT_EQ(v.reshape({-1}).numel(), k62);  // no copy: stride 0

  Tensor rows = load_view("expand_rows");
  EXPECT_EQ(rows.strides().vec(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(rows[int64_t{1} << 43][3].item<float>(), 3.0f);
  EXPECT_TRUE(rows[0].equal(arange(4, kFloat32)));
  testing::expect_error([&] { rows.contiguous(); }, "not enough memory");

  // A size-1 dim whose stride * 4 overflows: PyTorch ignores it, Ember refuses the file.
  testing::expect_error([] { load_view("huge_unit_stride"); }, "tensor extent overflows (sizes [1], strides [4611686018427387904])");
}

// The same views written here opcode by opcode, with extents past int64 that
// torch.save cannot write (PyTorch itself refuses them).
std::string long1(int64_t v) {
  std::string s = "\x8a\x08";
  for (int k = 0; k < 8; ++k) s += static_cast<char>((static_cast<uint64_t>(v) >> (8 * k)) & 0xFF);
  return s;
}

std::string huge_view_checkpoint(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                 int64_t offset, int32_t storage_numel) {
  testing::PickleWriter w;
  w.op('}').str("t").global("torch._utils", "_rebuild_tensor_v2").mark();
  w.storage("FloatStorage", "0", storage_numel).raw(long1(offset)).mark();
  for (int64_t s : sizes) w.raw(long1(s));
  w.tuple().mark();
  for (int64_t s : strides) w.raw(long1(s));
  w.tuple().op('\x89').global("collections", "OrderedDict").op(')').reduce().tuple().reduce().op('s').stop();
  return testing::torch_zip(w.bytes(), {{"0", std::string(4 * static_cast<size_t>(storage_numel), '\0')}});
}

TEST(SizeOverflow, HandMadeCheckpointsOfHugeViews) {
  auto load = [](const std::string& bytes) {
    return serialize::to_state_dict(serialize::load_torch_bytes(bytes.data(), bytes.size())).at("t");
  };
  // Loads: a 2^61 x 2 view of a 2-element storage.
  Tensor t = load(huge_view_checkpoint({k61, 2}, {0, 1}, 0, 2));
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{k61, 2}));
  EXPECT_EQ(t[k61 - 1][1].item<float>(), 0.0f);
  testing::expect_error([&] { t.contiguous(); }, "contiguous: storage size calculation overflowed");
  // Refused, each with what is wrong: numel past int64, extent past int64,
  // past the storage, a byte stride past int64.
  testing::expect_error([&] { load(huge_view_checkpoint({k32, k32}, {0, 0}, 0, 1)); }, "tensor size overflows");
  testing::expect_error([&] { load(huge_view_checkpoint({k62, 1}, {k62, 1}, 0, 1)); }, "tensor extent overflows");
  testing::expect_error([&] { load(huge_view_checkpoint({2}, {1}, kMax, 1)); }, "runs past the end of its storage");
  testing::expect_error([&] { load(huge_view_checkpoint({2}, {1}, 0, 1)); }, "runs past the end of its storage");
  testing::expect_error([&] { load(huge_view_checkpoint({1, 4}, {k62, 1}, 0, 4)); }, "tensor extent overflows");
  testing::expect_error([&] { load(huge_view_checkpoint({-1}, {1}, 0, 4)); }, "negative tensor size");
  // Empty views may carry any strides.
  EXPECT_EQ(load(huge_view_checkpoint({0, kMax}, {kMax, kMax}, 0, 1)).numel(), 0);
}

// ---- nn ops whose output sizes come from user arguments ----

TEST(SizeOverflow, NnOutputSizes) {
  const Tensor x = zeros({1, 1, 8});
  const Tensor w = zeros({1, 1, 3});
  testing::expect_error([&] { nn::functional::conv1d(x, w, {.padding = kMax}); }, "integer overflow");
  testing::expect_error([&] { nn::functional::conv1d(x, w, {.dilation = k62}); }, "integer overflow");
  testing::expect_error([&] { nn::functional::max_pool1d(x, 3, {.stride = 1, .dilation = k62}); }, "max_pool1d");
  testing::expect_error([&] { nn::functional::interpolate(x, {.scale_factor = {1e30}}); }, "overflows int64");
#ifndef __SANITIZE_ADDRESS__
  // 2^49 outputs: the tap table's std::vector throws std::bad_alloc, which
  // interpolate turns into an ember::Error. (AddressSanitizer's operator new
  // aborts on a failed allocation instead of throwing, whatever its options.)
  testing::expect_error([&] { nn::functional::interpolate(x, {.scale_factor = {double(k46)}}); }, "");
#endif
  testing::expect_error([&] { nn::functional::pixel_shuffle(zeros({1, 4, 2, 2}), k32); }, "pixel_shuffle: integer overflow");
  testing::expect_error([&] { nn::functional::pixel_shuffle(zeros({1, 4, 2, 2}), k62); }, "pixel_shuffle: integer overflow");
}

}  // namespace size_overflow_test
}  // namespace ember
