#pragma once
// Arguments given either as one integer for every spatial dim or as one per
// dim, like PyTorch's ExpandingArray: `.stride = 2` or `.stride = {2, 1}`.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ember::nn::functional {

struct ExpandingInts {
  ExpandingInts(int64_t v) : values{v} {}  // NOLINT(google-explicit-constructor)
  ExpandingInts(int v) : values{v} {}      // NOLINT(google-explicit-constructor)
  ExpandingInts(std::initializer_list<int64_t> v) : values(v) {}
  ExpandingInts(std::vector<int64_t> v) : values(std::move(v)) {}  // NOLINT
  // One value per dim for `nd` dims (a single value repeats); throws naming
  // `op` and `what` when the count is neither 1 nor nd.
  std::vector<int64_t> expand(int64_t nd, const char* op, const char* what) const;
  std::vector<int64_t> values;
};

}  // namespace ember::nn::functional
