// The result check for ember_bench_text, which has no libtorch (Note [Two
// harness builds] in bench.h): the same rules as tensor_bridge.cpp's
// compare, with Ember's ops on both sides.
#include <cmath>
#include <cstring>
#include <sstream>

#include "bench.h"

namespace ember_bench {

namespace {

std::string shape_str(const std::vector<int64_t>& sizes) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? "," : "") << sizes[i];
  s << ']';
  return s.str();
}

}  // namespace

ember::Tensor peer_tensor_from_bytes(const void* bytes, const ember::Tensor& like) {
  ember::Tensor t = ember::empty(std::vector<int64_t>(like.sizes().begin(), like.sizes().end()),
                                 ember::TensorOptions(like.dtype()));
  std::memcpy(t.data_ptr(), bytes, t.nbytes());
  return t;
}

std::string compare(const ember::Tensor& ours, const ember::Tensor& peer, double rtol, double atol) {
  const std::vector<int64_t> a(ours.sizes().begin(), ours.sizes().end());
  const std::vector<int64_t> b(peer.sizes().begin(), peer.sizes().end());
  if (a != b) return "shape " + shape_str(a) + " vs " + shape_str(b);
  if (ours.dtype() != peer.dtype())
    return "dtype " + std::string(ember::dtype_name(ours.dtype())) + " vs " + std::string(ember::dtype_name(peer.dtype()));
  if (!ember::is_floating_point(peer.dtype()) && !ember::is_complex(peer.dtype())) {
    // Integers match exactly, unless the workload allows whole units (atol >= 1).
    if (atol < 1) return ember::equal(ours, peer) ? "" : "values differ";
    const int64_t max_diff =
        (ours.to(ember::kInt64) - peer.to(ember::kInt64)).abs().max().item<int64_t>();
    if (static_cast<double>(max_diff) <= atol) return "";
    return "max |diff| " + std::to_string(max_diff);
  }
  if (ember::allclose(ours, peer, rtol, atol, /*equal_nan=*/true)) return "";
  const double max_diff = (ours - peer).abs().nan_to_num(INFINITY).max().item<double>();
  std::ostringstream s;
  s << "max |diff| " << max_diff;
  return s.str();
}

}  // namespace ember_bench
