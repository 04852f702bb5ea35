// Randomized property tests: random shapes, broadcasting, layouts (permuted,
// strided, channels-last) and dtypes, checked against float64 reference loops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <ember/ember.h>

using namespace ember;

namespace properties_test {

// Element of t at a multi-index given for t's own dims, as double (exact for
// every dtype used here).
double element(const Tensor& t, const std::vector<int64_t>& idx) {
  const char* p = static_cast<const char*>(t.data_ptr());
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.stride(static_cast<int64_t>(d));
  return dispatch<kMaskReal | kMaskBool>(t.dtype(), "element", [&](auto tag) -> double {
    using T = decltype(tag);
    return static_cast<double>(static_cast<compute_type_t<T>>(reinterpret_cast<const T*>(p)[off]));
  });
}

// Index into an operand broadcast to `shape`.
std::vector<int64_t> broadcast_index(const Tensor& t, const std::vector<int64_t>& out_idx) {
  std::vector<int64_t> idx(t.dim());
  const size_t lead = out_idx.size() - idx.size();
  for (size_t d = 0; d < idx.size(); ++d) idx[d] = t.size(d) == 1 ? 0 : out_idx[lead + d];
  return idx;
}

template <class F>
void for_each_index(IntArrayRef shape, const F& f) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

struct Gen {
  std::mt19937 rng{1234};
  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

  // A tensor of `sizes` and dtype with small integer values (exact in every
  // dtype), laid out randomly: contiguous, permuted, sliced with a step, or
  // channels-last.
  Tensor make(std::vector<int64_t> sizes, DType dtype) {
    const int layout = static_cast<int>(uniform(0, 3));
    std::vector<int64_t> big = sizes;
    if (layout == 2)
      for (auto& s : big) s *= 2;
    Tensor base = randint(-4, 5, big, TensorOptions(kInt64));
    if (dtype == kBool) base = base.gt(0);
    else if (dtype == kUInt8) base = base.abs();
    base = base.to(dtype);
    if (layout == 1 && sizes.size() >= 2) {
      std::vector<int64_t> perm(sizes.size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
      std::vector<int64_t> rev(sizes.rbegin(), sizes.rend());
      return base.reshape(rev).permute(perm);  // a transposed (non-contiguous) view
    }
    if (layout == 2) {
      Tensor t = base;
      for (size_t d = 0; d < sizes.size(); ++d) t = t.slice(static_cast<int64_t>(d), 0, std::nullopt, 2);
      return t;
    }
    if (layout == 3 && sizes.size() == 4) return base.contiguous(MemoryFormat::ChannelsLast);
    return base;
  }

  std::vector<int64_t> shape() {
    std::vector<int64_t> s(uniform(0, 4));
    for (auto& v : s) v = uniform(0, 4) == 0 ? 1 : uniform(1, 5);
    return s;
  }
  // A shape broadcastable to `s`: some leading dims dropped, some set to 1.
  std::vector<int64_t> broadcastable(const std::vector<int64_t>& s) {
    std::vector<int64_t> b(s.begin() + uniform(0, static_cast<int64_t>(s.size())), s.end());
    for (auto& v : b)
      if (uniform(0, 2) == 0) v = 1;
    return b;
  }
  DType dtype() {
    static const DType types[] = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool, kFloat16, kInt16};
    return types[uniform(0, 7)];
  }
};

TEST(Properties, BinaryOpsBroadcastAcrossLayoutsAndDtypes) {
  Gen g;
  int64_t checked = 0;
  for (int iter = 0; iter < 300; ++iter) {
    auto shape = g.shape();
    auto other_shape = g.broadcastable(shape);
    if (g.uniform(0, 1)) std::swap(shape, other_shape);
    Tensor a = g.make(shape, g.dtype());
    Tensor b = g.make(other_shape, g.dtype());
    const int op = static_cast<int>(g.uniform(0, 3));
    Tensor r;
    switch (op) {
      case 0: r = add(a, b); break;
      case 1: r = mul(a, b); break;
      case 2: r = maximum(a, b); break;
      case 3: r = lt(a, b); break;
    }
    SCOPED_TRACE(::testing::Message() << "op " << op << " a " << a.dtype() << a.sizes() << " strides "
                                      << a.strides() << " b " << b.dtype() << b.sizes());
    const DType expected_dtype = op == 3 ? kBool : result_type({a, b});
    ASSERT_EQ(r.dtype(), expected_dtype);
    DimVector out_shape = DimVector(a.dim() >= b.dim() ? a.sizes() : b.sizes());
    for (size_t i = 0; i < out_shape.size(); ++i) {
      const int64_t da = static_cast<int64_t>(i) - (static_cast<int64_t>(out_shape.size()) - a.dim());
      const int64_t db = static_cast<int64_t>(i) - (static_cast<int64_t>(out_shape.size()) - b.dim());
      out_shape[i] = std::max(da >= 0 ? a.size(da) : 1, db >= 0 ? b.size(db) : 1);
    }
    ASSERT_EQ(r.sizes(), out_shape.ref());
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
      // PyTorch converts both operands to the result dtype first (an int16 -2
      // against a uint8 tensor is 254).
      auto in_result_dtype = [&](double v) {
        if (op == 3) return v;
        switch (expected_dtype) {
          case kUInt8: return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(v)));
          case kInt8: return static_cast<double>(static_cast<int8_t>(static_cast<int64_t>(v)));
          case kInt16: return static_cast<double>(static_cast<int16_t>(static_cast<int64_t>(v)));
          default: return v;
        }
      };
      const double x = in_result_dtype(element(a, broadcast_index(a, idx)));
      const double y = in_result_dtype(element(b, broadcast_index(b, idx)));
      double want = op == 0 ? x + y : op == 1 ? x * y : op == 2 ? std::max(x, y) : double(x < y);
      if (expected_dtype == kBool) want = want != 0;
      if (expected_dtype == kUInt8) want = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(want)));
      ASSERT_EQ(element(r, idx), want);
      ++checked;
    });
  }
  EXPECT_GT(checked, 2000);  // the random cases are not degenerate
}

TEST(Properties, ReductionsOverRandomDims) {
  Gen g;
  for (int iter = 0; iter < 200; ++iter) {
    auto shape = g.shape();
    if (shape.empty()) shape.push_back(3);
    const DType dtype = g.uniform(0, 1) ? kFloat64 : kInt32;
    Tensor a = g.make(shape, dtype);
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < a.dim(); ++d)
      if (g.uniform(0, 1)) dims.push_back(g.uniform(0, 1) ? d : d - a.dim());
    const bool keepdim = g.uniform(0, 1);
    Tensor s = a.sum(dims, keepdim);
    Tensor m = a.amax(dims, true);
    SCOPED_TRACE(::testing::Message() << "sizes " << a.sizes() << " strides " << a.strides()
                                      << " dims " << IntArrayRef(dims) << " keepdim " << keepdim);
    ASSERT_EQ(s.dtype(), dtype == kInt32 ? kInt64 : kFloat64);
    // Reference: accumulate into the keepdim-shaped result.
    std::vector<int64_t> kshape(a.sizes().begin(), a.sizes().end());
    uint64_t mask = 0;
    for (int64_t d : dims) mask |= uint64_t{1} << (d < 0 ? d + a.dim() : d);
    if (dims.empty()) mask = (uint64_t{1} << a.dim()) - 1;
    for (int64_t d = 0; d < a.dim(); ++d)
      if (mask >> d & 1) kshape[d] = 1;
    int64_t n = 1;
    for (int64_t v : kshape) n *= v;
    std::vector<double> sums(n, 0.0), maxes(n, -INFINITY);
    for_each_index(a.sizes(), [&](const std::vector<int64_t>& idx) {
      int64_t flat = 0;
      for (int64_t d = 0; d < a.dim(); ++d) flat = flat * kshape[d] + ((mask >> d & 1) ? 0 : idx[d]);
      const double v = element(a, idx);
      sums[flat] += v;
      maxes[flat] = std::max(maxes[flat], v);
    });
    Tensor sk = s.reshape(kshape).contiguous();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(element(sk.reshape({-1}), {i}), sums[i]);
    if (a.numel() > 0) {
      Tensor mk = m.contiguous().reshape({-1});
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(element(mk, {i}), maxes[i]);
    }
  }
}

}  // namespace properties_test
