// Copies between Ember and libtorch tensors, and the result check, for
// ember_bench (libtorch; result_check.cpp is ember_bench_text's).
#include <cmath>
#include <sstream>

#include "bench.h"

namespace ember_bench {

namespace {

at::ScalarType to_torch_dtype(ember::DType t) {
  switch (t) {
    case ember::DType::Bool: return at::kBool;
    case ember::DType::UInt8: return at::kByte;
    case ember::DType::Int8: return at::kChar;
    case ember::DType::Int16: return at::kShort;
    case ember::DType::Int32: return at::kInt;
    case ember::DType::Int64: return at::kLong;
    case ember::DType::Float16: return at::kHalf;
    case ember::DType::BFloat16: return at::kBFloat16;
    case ember::DType::Float32: return at::kFloat;
    case ember::DType::Float64: return at::kDouble;
    case ember::DType::Complex64: return at::kComplexFloat;
    case ember::DType::Complex128: return at::kComplexDouble;
  }
  throw std::runtime_error("to_torch_dtype: unknown Ember dtype");
}

ember::DType to_ember_dtype(at::ScalarType t) {
  switch (t) {
    case at::kBool: return ember::DType::Bool;
    case at::kByte: return ember::DType::UInt8;
    case at::kChar: return ember::DType::Int8;
    case at::kShort: return ember::DType::Int16;
    case at::kInt: return ember::DType::Int32;
    case at::kLong: return ember::DType::Int64;
    case at::kHalf: return ember::DType::Float16;
    case at::kBFloat16: return ember::DType::BFloat16;
    case at::kFloat: return ember::DType::Float32;
    case at::kDouble: return ember::DType::Float64;
    case at::kComplexFloat: return ember::DType::Complex64;
    case at::kComplexDouble: return ember::DType::Complex128;
    default: break;
  }
  throw std::runtime_error(std::string("to_ember_dtype: no Ember dtype for ") + c10::toString(t));
}

template <class Sizes>
std::string shape_str(const Sizes& sizes) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? "," : "") << sizes[i];
  s << ']';
  return s.str();
}

}  // namespace

ember::Tensor to_ember(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  std::vector<int64_t> sizes(c.sizes().begin(), c.sizes().end());
  return ember::from_blob(c.data_ptr(), sizes, ember::TensorOptions(to_ember_dtype(c.scalar_type())))
      .clone();
}

at::Tensor to_torch(const ember::Tensor& t) {
  ember::Tensor c = t.contiguous();
  std::vector<int64_t> sizes(c.sizes().begin(), c.sizes().end());
  return at::from_blob(c.data_ptr(), sizes, at::TensorOptions(to_torch_dtype(c.dtype()))).clone();
}

Twin twin(const at::Tensor& t) { return {to_ember(t), t.contiguous()}; }

at::Tensor peer_tensor_from_bytes(const void* bytes, const ember::Tensor& like) {
  std::vector<int64_t> sizes(like.sizes().begin(), like.sizes().end());
  return at::from_blob(const_cast<void*>(bytes), sizes, at::TensorOptions(to_torch_dtype(like.dtype()))).clone();
}

std::string compare(const ember::Tensor& ours, const at::Tensor& peer, double rtol, double atol) {
  return compare(to_torch(ours), peer, rtol, atol);
}

std::string compare(const at::Tensor& mine, const at::Tensor& peer, double rtol, double atol) {
  if (mine.sizes() != peer.sizes())
    return "shape " + shape_str(mine.sizes()) + " vs " + shape_str(peer.sizes());
  if (mine.scalar_type() != peer.scalar_type())
    return std::string("dtype ") + c10::toString(mine.scalar_type()) + " vs " +
           c10::toString(peer.scalar_type());
  if (!at::isFloatingType(peer.scalar_type()) && !at::isComplexType(peer.scalar_type())) {
    // Integers match exactly, unless the workload allows whole units (atol >= 1,
    // e.g. uint8 images resampled in different fixed-point arithmetic).
    if (atol < 1) return at::equal(mine, peer) ? "" : "values differ";
    const int64_t max_diff = (mine.to(at::kLong) - peer.to(at::kLong)).abs().max().item<int64_t>();
    if (static_cast<double>(max_diff) <= atol) return "";
    return "max |diff| " + std::to_string(max_diff);
  }
  if (at::allclose(mine, peer, rtol, atol, /*equal_nan=*/true)) return "";
  const double max_diff = (mine - peer).abs().nan_to_num(INFINITY).max().item<double>();
  std::ostringstream s;
  s << "max |diff| " << max_diff;
  return s.str();
}

}  // namespace ember_bench
