#pragma once
// Random pieces of a case: dtypes, shapes (0-size, 0-dim, broadcastable
// partners), tensors laid out contiguous, permuted, sliced with steps,
// expanded (stride 0) or channels-last, values with edge cases (nan, inf,
// -0, denormals, dtype limits), Python-number arguments.
#include <vector>

#include "fuzz_case.h"

namespace difffuzz {

// Value distribution of a tensor argument.
struct Values {
  double lo = -2, hi = 2;
  bool specials = true;  // mix in nan/inf/-0/limits when the case draws them
};

class Gen {
 public:
  Gen(Rng& rng, const Limits& limits);

  Rng& rng;
  Limits limits;

  // ---- dtypes ----
  DType any_dtype();                // all 12
  DType numeric_dtype();            // all but bool
  DType real_dtype();               // bool, integers and floating, no complex
  DType float_dtype();              // float16, bfloat16, float32, float64
  DType float_or_complex_dtype();
  DType int_dtype(bool with_bool = false);

  // ---- shapes ----
  // A shape of rank in [min_rank, max_rank] whose numel is at most
  // max_numel (default: the run's limit), sometimes with a 0 extent.
  std::vector<int64_t> shape(int min_rank = 0, int max_rank = 4, int64_t max_numel = -1,
                             bool allow_zero = true);
  // A shape that broadcasts with `s` (fewer leading dims, some extents 1),
  // or, rarely, one that does not.
  std::vector<int64_t> broadcast_partner(const std::vector<int64_t>& s);
  // A dim of a rank-`rank` tensor, sometimes negative; 0 or -1 for rank 0.
  int64_t dim(int64_t rank);
  // A random subset of the dims (possibly empty, possibly negative numbers).
  std::vector<int64_t> dims(int64_t rank);

  // ---- tensors ----
  // A tensor of `sizes` in a random layout with values drawn from `v`.
  // `writable`: no stride-0 (expanded) layouts, the op writes into it.
  TensorArg tensor(DType dtype, const std::vector<int64_t>& sizes, Values v = {}, bool writable = false);
  TensorArg contiguous_tensor(DType dtype, const std::vector<int64_t>& sizes, Values v = {});
  // int64 (or `dtype`) entries in [lo, hi].
  TensorArg index_tensor(const std::vector<int64_t>& sizes, int64_t lo, int64_t hi,
                         DType dtype = DType::Int64);
  // Bool (or, rarely, uint8) mask.
  TensorArg mask(const std::vector<int64_t>& sizes);

  // ---- Python numbers ----
  // A number whose kind suits `dtype` most of the time (and any kind sometimes),
  // with edge values (nan, inf, -0, huge integers) at the case's special rate.
  ScalarArg scalar_for(DType dtype);
  ScalarArg small_double();

  // The case's share of special values (0 in most cases).
  double special_rate() const { return special_rate_; }
  bool integer_valued() const { return integer_valued_; }

 private:
  void fill_values(TensorArg& t, const Values& v);
  double special_rate_ = 0;
  bool integer_valued_ = false;  // floats drawn as whole numbers (ties, exact halves)
};

// The view of `t` made contiguous row-major over a fresh storage.
void make_contiguous_layout(TensorArg& t);
bool is_float_dtype(DType t);

}  // namespace difffuzz
