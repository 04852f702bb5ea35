#pragma once
// One generated case of the differential fuzzer, described independently of
// both libraries: tensors as storage values + sizes/strides/offset, and the
// op's parameters. The bridge (bridge.cpp) builds the same inputs in Ember and
// libtorch from it; known_differences.cpp reads it to classify a mismatch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/dtype.h"

namespace difffuzz {

using ember::DType;

// xoshiro256** seeded through splitmix64: fast, and the same sequence on every
// platform (std:: distributions are not), which replay depends on.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi);
  double uniform(double lo, double hi);
  bool chance(double p) { return uniform(0, 1) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(range(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  uint64_t s_[4];
};

// The seed of case `index` of a run with seed `seed`: each case is generated
// from its own stream, so a case replays without generating those before it.
uint64_t case_seed(uint64_t seed, uint64_t index);

// A Python number argument (an int, float, complex or bool Scalar).
struct ScalarArg {
  enum class Kind { Bool, Int, Double, Complex } kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double re = 0, im = 0;
  static ScalarArg of_int(int64_t v) { ScalarArg s; s.kind = Kind::Int; s.i = v; return s; }
  static ScalarArg of_double(double v) { ScalarArg s; s.kind = Kind::Double; s.re = v; return s; }
  static ScalarArg of_bool(bool v) { ScalarArg s; s.kind = Kind::Bool; s.b = v; return s; }
  static ScalarArg of_complex(double r, double i) {
    ScalarArg s; s.kind = Kind::Complex; s.re = r; s.im = i; return s;
  }
  // The value as a double (complex: the real part), for known-difference checks.
  double as_double() const;
  bool is_nan() const;
  std::string str() const;
};

// A tensor argument: its storage and the view of it the op receives.
struct TensorArg {
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  // Storage values: `reals` for floating dtypes (two per element, re and im,
  // for complex), `ints` for integral dtypes and bool.
  std::vector<double> reals;
  std::vector<int64_t> ints;
  bool requires_grad = false;
  bool no_grad = false;  // never requires grad (e.g. running statistics the op writes)
  std::string layout = "contiguous";  // how the view was made, for the report

  int64_t numel() const;
  int64_t storage_numel() const;
  // Element (at view index `flat`, row-major) as a double (complex: real part).
  double value(int64_t flat) const;
  double imag_value(int64_t flat) const;
  bool has_nan() const;
  bool has_nonfinite() const;
  std::string str() const;  // "float32[2,3] permuted"
};

// The op's parameters; each op uses the fields it needs and says which in its
// generator. Printed in the report and read by known_differences.cpp.
struct Params {
  std::vector<int64_t> dims;  // dims / sizes / permutation / shape
  std::vector<int64_t> ints;  // shifts / repeats / pads / kernel / stride ...
  std::optional<int64_t> dim;
  int64_t k = 0;
  bool keepdim = false;
  bool flag = false;
  bool flag2 = false;
  std::optional<DType> dtype;
  std::vector<ScalarArg> scalars;
  std::vector<double> reals;
  std::string mode;
  int variant = 0;
  std::string str() const;
};

struct Case {
  std::string op;
  std::vector<TensorArg> tensors;
  Params p;
  // Absolute tolerances are multiplied by this (ops that accumulate many
  // terms set it to their term count times their magnitude).
  double tol_scale = 1;
  std::string str() const;
};

struct Limits {
  int64_t max_numel = 512;
};

}  // namespace difffuzz
