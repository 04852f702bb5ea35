// Case generation: the random number stream, shapes, layouts and values.
#include "gen.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace difffuzz {

namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::string join(const std::vector<int64_t>& v) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
  s << ']';
  return s.str();
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

// Integer range of a dtype that generated values stay inside.
void int_limits(DType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case DType::Bool: lo = 0; hi = 1; return;
    case DType::UInt8: lo = 0; hi = 255; return;
    case DType::Int8: lo = -128; hi = 127; return;
    case DType::Int16: lo = -32768; hi = 32767; return;
    case DType::Int32: lo = std::numeric_limits<int32_t>::min(); hi = std::numeric_limits<int32_t>::max(); return;
    default: lo = std::numeric_limits<int64_t>::min(); hi = std::numeric_limits<int64_t>::max(); return;
  }
}

double largest_finite(DType t) {
  switch (t) {
    case DType::Float16: return 65504.0;
    case DType::BFloat16: return 3.3895313892515355e38;
    case DType::Float32:
    case DType::Complex64: return 3.4028234663852886e38;
    default: return std::numeric_limits<double>::max();
  }
}

double smallest_subnormal(DType t) {
  switch (t) {
    case DType::Float16: return 5.960464477539063e-08;
    case DType::BFloat16: return 9.183549615799121e-41;
    case DType::Float32:
    case DType::Complex64: return 1.401298464324817e-45;
    default: return 4.9406564584124654e-324;
  }
}

}  // namespace

// ---- Rng ----

Rng::Rng(uint64_t seed) {
  for (uint64_t& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  if (span == 0) return static_cast<int64_t>(next());  // the whole int64 range
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + next() % span);
}

double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53);
}

uint64_t case_seed(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (index + 0x632be59bd9b4e019ULL);
  splitmix64(x);
  return splitmix64(x);
}

// ---- printing ----

double ScalarArg::as_double() const {
  switch (kind) {
    case Kind::Bool: return b ? 1 : 0;
    case Kind::Int: return static_cast<double>(i);
    default: return re;
  }
}

bool ScalarArg::is_nan() const {
  return (kind == Kind::Double || kind == Kind::Complex) && (std::isnan(re) || std::isnan(im));
}

std::string ScalarArg::str() const {
  std::ostringstream s;
  s.precision(17);
  switch (kind) {
    case Kind::Bool: s << (b ? "True" : "False"); break;
    case Kind::Int: s << i; break;
    case Kind::Double: s << re << (std::floor(re) == re && std::isfinite(re) ? "." : ""); break;
    case Kind::Complex: s << "complex(" << re << ", " << im << ")"; break;
  }
  return s.str();
}

int64_t TensorArg::numel() const { return product(sizes); }

int64_t TensorArg::storage_numel() const {
  if (numel() == 0) return offset;
  int64_t n = offset + 1;
  for (size_t d = 0; d < sizes.size(); ++d) n += (sizes[d] - 1) * strides[d];
  return n;
}

namespace {
int64_t storage_index(const TensorArg& t, int64_t flat) {
  int64_t idx = t.offset;
  for (size_t d = t.sizes.size(); d-- > 0;) {
    idx += (flat % t.sizes[d]) * t.strides[d];
    flat /= t.sizes[d];
  }
  return idx;
}
}  // namespace

double TensorArg::value(int64_t flat) const {
  const int64_t i = storage_index(*this, flat);
  if (ember::is_complex(dtype)) return reals[2 * i];
  if (ember::is_floating_point(dtype)) return reals[i];
  return static_cast<double>(ints[i]);
}

double TensorArg::imag_value(int64_t flat) const {
  return ember::is_complex(dtype) ? reals[2 * storage_index(*this, flat) + 1] : 0.0;
}

bool TensorArg::has_nan() const {
  const int64_t n = numel();
  if (!ember::is_floating_point(dtype) && !ember::is_complex(dtype)) return false;
  for (int64_t i = 0; i < n; ++i)
    if (std::isnan(value(i)) || std::isnan(imag_value(i))) return true;
  return false;
}

bool TensorArg::has_nonfinite() const {
  const int64_t n = numel();
  if (!ember::is_floating_point(dtype) && !ember::is_complex(dtype)) return false;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(value(i)) || !std::isfinite(imag_value(i))) return true;
  return false;
}

std::string TensorArg::str() const {
  std::ostringstream s;
  s << ember::dtype_name(dtype) << join(sizes);
  if (layout != "contiguous") s << ' ' << layout << " strides=" << join(strides) << " offset=" << offset;
  if (requires_grad) s << " requires_grad";
  return s.str();
}

std::string Params::str() const {
  std::ostringstream s;
  if (!dims.empty()) s << " dims=" << join(dims);
  if (!ints.empty()) s << " ints=" << join(ints);
  if (dim) s << " dim=" << *dim;
  if (k) s << " k=" << k;
  if (keepdim) s << " keepdim";
  if (flag) s << " flag";
  if (flag2) s << " flag2";
  if (dtype) s << " dtype=" << ember::dtype_name(*dtype);
  for (const ScalarArg& a : scalars) s << " scalar=" << a.str();
  s.precision(17);
  for (double r : reals) s << " real=" << r;
  if (!mode.empty()) s << " mode=" << mode;
  if (variant) s << " variant=" << variant;
  return s.str();
}

std::string Case::str() const {
  std::ostringstream s;
  s << op << '(';
  for (size_t i = 0; i < tensors.size(); ++i) s << (i ? ", " : "") << tensors[i].str();
  s << ')' << p.str();
  return s.str();
}

bool is_float_dtype(DType t) { return ember::is_floating_point(t); }

void make_contiguous_layout(TensorArg& t) {
  t.strides = contiguous_strides(t.sizes);
  t.offset = 0;
  t.layout = "contiguous";
}

// ---- Gen ----

Gen::Gen(Rng& r, const Limits& l) : rng(r), limits(l) {
  // Most cases have ordinary values; some have many specials, which is where
  // vectorized and scalar paths, and the two libraries, part ways.
  const double u = rng.uniform(0, 1);
  special_rate_ = u < 0.7 ? 0.0 : u < 0.9 ? 0.05 : 0.3;
  integer_valued_ = rng.chance(0.2);
}

DType Gen::any_dtype() {
  const int64_t r = rng.range(0, 19);
  static const DType table[20] = {DType::Bool,    DType::UInt8,    DType::Int8,      DType::Int16,
                                  DType::Int32,   DType::Int64,    DType::Int64,     DType::Float16,
                                  DType::BFloat16, DType::Float32, DType::Float32,   DType::Float32,
                                  DType::Float32, DType::Float64,  DType::Float64,   DType::Float64,
                                  DType::Complex64, DType::Complex128, DType::Float32, DType::Int32};
  return table[r];
}

DType Gen::numeric_dtype() {
  DType t = any_dtype();
  return t == DType::Bool ? DType::Float32 : t;
}

DType Gen::real_dtype() {
  DType t = any_dtype();
  return ember::is_complex(t) ? DType::Float64 : t;
}

DType Gen::float_dtype() {
  static const std::vector<DType> table = {DType::Float16, DType::BFloat16, DType::Float32, DType::Float32,
                                           DType::Float32, DType::Float64,  DType::Float64};
  return rng.pick(table);
}

DType Gen::float_or_complex_dtype() {
  static const std::vector<DType> table = {DType::Float16, DType::BFloat16,  DType::Float32,
                                           DType::Float32, DType::Float64,   DType::Float64,
                                           DType::Complex64, DType::Complex128};
  return rng.pick(table);
}

DType Gen::int_dtype(bool with_bool) {
  static const std::vector<DType> table = {DType::UInt8, DType::Int8,  DType::Int16,
                                           DType::Int32, DType::Int64, DType::Int64};
  if (with_bool && rng.chance(0.15)) return DType::Bool;
  return rng.pick(table);
}

std::vector<int64_t> Gen::shape(int min_rank, int max_rank, int64_t max_numel, bool allow_zero) {
  if (max_numel < 0) max_numel = limits.max_numel;
  max_numel = std::max<int64_t>(max_numel, 1);
  const int rank = static_cast<int>(rng.range(min_rank, max_rank));
  std::vector<int64_t> s(rank, 1);
  if (rank == 0) return s;
  // Total size log-uniform up to the limit, spread unevenly over the dims.
  const double total = std::exp(rng.uniform(0, std::log(static_cast<double>(max_numel) + 1)));
  for (int d = 0; d < rank; ++d) {
    const double share = std::pow(total, rng.uniform(0.3, 1.7) / rank);
    s[d] = std::max<int64_t>(1, static_cast<int64_t>(share));
    if (rng.chance(0.15)) s[d] = 1;
  }
  while (product(s) > max_numel) {
    const size_t d = static_cast<size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    s[d] = std::max<int64_t>(1, s[d] / 2);
  }
  if (allow_zero && rng.chance(0.04)) s[rng.range(0, rank - 1)] = 0;
  return s;
}

std::vector<int64_t> Gen::broadcast_partner(const std::vector<int64_t>& s) {
  std::vector<int64_t> o = s;
  const double u = rng.uniform(0, 1);
  if (u < 0.35) return o;  // same shape
  if (u < 0.45) return {};  // 0-dim
  if (u < 0.5 && !o.empty()) {  // incompatible (both libraries must raise)
    const size_t d = static_cast<size_t>(rng.range(0, static_cast<int64_t>(o.size()) - 1));
    if (o[d] > 1) {
      o[d] += 1;
      return o;
    }
  }
  // Drop some leading dims, set some extents to 1, maybe add a leading dim.
  const int64_t drop = rng.range(0, static_cast<int64_t>(o.size()));
  o.erase(o.begin(), o.begin() + drop);
  for (int64_t& x : o)
    if (rng.chance(0.4)) x = 1;
  if (rng.chance(0.15) && o.size() < 5) o.insert(o.begin(), rng.range(1, 3));
  return o;
}

int64_t Gen::dim(int64_t rank) {
  if (rank == 0) return rng.chance(0.5) ? 0 : -1;
  const int64_t d = rng.range(0, rank - 1);
  return rng.chance(0.3) ? d - rank : d;
}

std::vector<int64_t> Gen::dims(int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (rng.chance(0.5)) out.push_back(rng.chance(0.25) ? d - rank : d);
  // Shuffle: dims lists need not be sorted.
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[static_cast<size_t>(rng.range(0, i - 1))]);
  return out;
}

void Gen::fill_values(TensorArg& t, const Values& v) {
  const int64_t n = std::max<int64_t>(t.storage_numel(), 0);
  const bool specials = v.specials && special_rate_ > 0;
  if (ember::is_floating_point(t.dtype) || ember::is_complex(t.dtype)) {
    const int64_t count = ember::is_complex(t.dtype) ? 2 * n : n;
    t.reals.resize(static_cast<size_t>(count));
    const double big = largest_finite(t.dtype);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> edge = {0.0, -0.0, nan, inf, -inf, big, -big, smallest_subnormal(t.dtype),
                                      -smallest_subnormal(t.dtype), 1.0, -1.0, 0.5, 1e-30, 88.8, -104.0};
    for (double& x : t.reals) {
      if (specials && rng.chance(special_rate_)) {
        x = rng.pick(edge);
      } else {
        x = rng.uniform(v.lo, v.hi);
        if (integer_valued_) x = std::round(x * 2) / 2;  // whole numbers and halves
      }
    }
  } else {
    int64_t dlo, dhi;
    int_limits(t.dtype, dlo, dhi);
    const int64_t lo = std::max<int64_t>(dlo, static_cast<int64_t>(std::ceil(std::max(v.lo, -1e18))));
    const int64_t hi = std::min<int64_t>(dhi, static_cast<int64_t>(std::floor(std::min(v.hi, 1e18))));
    t.ints.resize(static_cast<size_t>(n));
    const std::vector<int64_t> edge = {dlo, dhi, 0, t.dtype == DType::UInt8 || t.dtype == DType::Bool ? 1 : -1};
    for (int64_t& x : t.ints) x = specials && rng.chance(special_rate_) ? rng.pick(edge) : rng.range(lo, hi);
  }
}

TensorArg Gen::contiguous_tensor(DType dtype, const std::vector<int64_t>& sizes, Values v) {
  TensorArg t;
  t.dtype = dtype;
  t.sizes = sizes;
  make_contiguous_layout(t);
  fill_values(t, v);
  return t;
}

TensorArg Gen::tensor(DType dtype, const std::vector<int64_t>& sizes, Values v, bool writable) {
  TensorArg t;
  t.dtype = dtype;
  t.sizes = sizes;
  const int64_t rank = static_cast<int64_t>(sizes.size());
  const double u = rng.uniform(0, 1);
  if (rank == 0 || u < 0.45) {
    make_contiguous_layout(t);
    if (rng.chance(0.1)) {  // a view that starts inside its storage
      t.offset = rng.range(1, 3);
      t.layout = "offset";
    }
  } else if (u < 0.62 && rank >= 2) {
    // Permuted: a contiguous tensor of permuted sizes, viewed back.
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = rank; i > 1; --i) std::swap(perm[i - 1], perm[rng.range(0, i - 1)]);
    std::vector<int64_t> base(rank);
    for (int64_t i = 0; i < rank; ++i) base[i] = sizes[perm[i]];
    const std::vector<int64_t> bs = contiguous_strides(base);
    t.strides.assign(rank, 0);
    for (int64_t i = 0; i < rank; ++i) t.strides[perm[i]] = bs[i];
    t.layout = "permuted" + join(perm);
  } else if (u < 0.8) {
    // Sliced with steps (and a start) along some dims.
    std::vector<int64_t> base(rank), step(rank), start(rank);
    for (int64_t d = 0; d < rank; ++d) {
      step[d] = rng.chance(0.5) ? rng.range(2, 3) : 1;
      start[d] = rng.chance(0.3) ? 1 : 0;
      base[d] = sizes[d] == 0 ? 0 : (sizes[d] - 1) * step[d] + 1 + start[d] + rng.range(0, 1);
    }
    const std::vector<int64_t> bs = contiguous_strides(base);
    t.strides.resize(rank);
    t.offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      t.strides[d] = bs[d] * step[d];
      t.offset += start[d] * bs[d];
    }
    t.layout = "sliced";
  } else if (u < 0.9 && !writable) {
    // Expanded: some dims have stride 0 (one element broadcast along them).
    std::vector<int64_t> base = sizes;
    bool any = false;
    for (int64_t d = 0; d < rank; ++d)
      if (sizes[d] > 1 && rng.chance(0.5)) {
        base[d] = 1;
        any = true;
      }
    t.strides = contiguous_strides(base);
    for (int64_t d = 0; d < rank; ++d)
      if (base[d] == 1 && sizes[d] > 1) t.strides[d] = 0;
    t.layout = any ? "expanded" : "contiguous";
  } else if (rank == 4) {
    const int64_t C = sizes[1], H = sizes[2], W = sizes[3];
    t.strides = {H * W * C, 1, W * C, C};
    for (int64_t& s : t.strides) s = std::max<int64_t>(s, 1);
    t.layout = "channels_last";
  } else {
    // Transposed last two dims (the most common non-contiguous input).
    std::vector<int64_t> base = sizes;
    if (rank >= 2) std::swap(base[rank - 1], base[rank - 2]);
    std::vector<int64_t> bs = contiguous_strides(base);
    if (rank >= 2) std::swap(bs[rank - 1], bs[rank - 2]);
    t.strides = bs;
    t.layout = rank >= 2 ? "transposed" : "contiguous";
  }
  // Size-1 dims may carry any stride; PyTorch ignores it for contiguity.
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 1 && rng.chance(0.1)) t.strides[d] = rng.range(1, 7);
  fill_values(t, v);
  return t;
}

TensorArg Gen::index_tensor(const std::vector<int64_t>& sizes, int64_t lo, int64_t hi, DType dtype) {
  TensorArg t = tensor(dtype, sizes, Values{static_cast<double>(lo), static_cast<double>(hi), false});
  return t;
}

TensorArg Gen::mask(const std::vector<int64_t>& sizes) {
  return tensor(rng.chance(0.95) ? DType::Bool : DType::UInt8, sizes, Values{0, 1, false});
}

ScalarArg Gen::small_double() { return ScalarArg::of_double(std::round(rng.uniform(-3, 3) * 8) / 8); }

ScalarArg Gen::scalar_for(DType dtype) {
  const bool edge = rng.chance(std::max(special_rate_, 0.05));
  int kind;  // 0 bool, 1 int, 2 double, 3 complex
  if (rng.chance(0.25)) {
    kind = static_cast<int>(rng.range(0, 3));
  } else if (ember::is_complex(dtype)) {
    kind = 3;
  } else if (ember::is_floating_point(dtype)) {
    kind = 2;
  } else {
    kind = dtype == DType::Bool ? 0 : 1;
  }
  const double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
    case 0: return ScalarArg::of_bool(rng.chance(0.5));
    case 1:
      if (edge) {
        static const std::vector<int64_t> e = {0, -1, 255, 256, -129, int64_t{1} << 31, int64_t{1} << 40,
                                               std::numeric_limits<int64_t>::max(),
                                               std::numeric_limits<int64_t>::min()};
        return ScalarArg::of_int(rng.pick(e));
      }
      return ScalarArg::of_int(rng.range(-5, 5));
    case 2:
      if (edge) {
        static const std::vector<double> e = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, -0.0, 0.0,
                                              1e20, -1e20, 1e-310, 0.1, 65504.5, 3.5e38};
        return ScalarArg::of_double(rng.pick(e));
      }
      return small_double();
    default:
      if (edge) return ScalarArg::of_complex(rng.chance(0.5) ? inf : 0.0, std::numeric_limits<double>::quiet_NaN());
      return ScalarArg::of_complex(small_double().re, small_double().re);
  }
}

}  // namespace difffuzz
