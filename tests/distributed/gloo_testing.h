#pragma once
// Helpers of the ProcessGroupGloo tests: rank-specific tensor values, their
// reductions computed locally (float64 and int64 loops), and joining the
// test's TCPStore server from a rank.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>
#include <ember/ops/factories.h>

#include "multiprocess.h"

namespace ember::testing {

// The real dtypes all_reduce supports with the gloo backend (complex ones
// are tested apart).
inline const std::vector<DType>& gloo_reduce_dtypes() {
  static const std::vector<DType> dtypes = {DType::Bool,    DType::UInt8,    DType::Int8,    DType::Int16,
                                            DType::Int32,   DType::Int64,    DType::Float16, DType::BFloat16,
                                            DType::Float32, DType::Float64};
  return dtypes;
}

inline bool is_bitwise(distributed::ReduceOp op) {
  return op == distributed::ReduceOp::BAND || op == distributed::ReduceOp::BOR || op == distributed::ReduceOp::BXOR;
}

// Whether op applies to dtype (as the backend's check).
inline bool gloo_op_applies(DType dtype, distributed::ReduceOp op) {
  if (dtype == DType::Bool) return op != distributed::ReduceOp::AVG;
  return !is_bitwise(op) || !is_floating_point(dtype);
}

// Element k of rank's input: small values whose sums, products and averages
// are exact in every dtype (floats are multiples of 1/4 in [-1.25, 1.25]).
inline double gloo_input_value(int rank, int64_t k, DType dtype, distributed::ReduceOp op) {
  if (dtype == DType::Bool) return static_cast<double>((rank * 3 + k) % 2);
  if (is_bitwise(op)) return static_cast<double>((rank * 37 + k * 11) % 100);
  // bfloat16 holds 8 significant bits: products of powers of two stay exact.
  if (dtype == DType::BFloat16 && op == distributed::ReduceOp::PRODUCT)
    return std::vector<double>{0.5, 1, 2, -1}[(rank + k) % 4];
  if (is_floating_point(dtype)) return static_cast<double>((rank * 7 + k) % 11 - 5) * 0.25;
  if (dtype == DType::UInt8) return static_cast<double>(1 + (rank + k) % 3);
  return static_cast<double>((rank + k) % 5 - 2);
}

// The reduction over ranks 0..world_size-1 of element k, computed here.
inline double gloo_expected_value(int world_size, int64_t k, DType dtype, distributed::ReduceOp op) {
  using distributed::ReduceOp;
  const bool integral = !is_floating_point(dtype);
  double acc = gloo_input_value(0, k, dtype, op);
  int64_t bits = static_cast<int64_t>(acc);
  for (int r = 1; r < world_size; ++r) {
    const double v = gloo_input_value(r, k, dtype, op);
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG: acc += v; break;
      case ReduceOp::PRODUCT: acc *= v; break;
      case ReduceOp::MIN: acc = std::min(acc, v); break;
      case ReduceOp::MAX: acc = std::max(acc, v); break;
      case ReduceOp::BAND: bits &= static_cast<int64_t>(v); break;
      case ReduceOp::BOR: bits |= static_cast<int64_t>(v); break;
      case ReduceOp::BXOR: bits ^= static_cast<int64_t>(v); break;
    }
  }
  if (dtype == DType::Bool) return is_bitwise(op) ? double(bits != 0) : double(acc != 0);  // SUM: or, PRODUCT: and
  if (is_bitwise(op)) return static_cast<double>(bits);
  if (op == ReduceOp::AVG)
    return integral ? static_cast<double>(static_cast<int64_t>(acc) / world_size) : acc / world_size;
  return acc;
}

// A float64 tensor of values converted to dtype.
inline Tensor tensor_of(const std::vector<double>& values, DType dtype) {
  return ember::tensor(values, TensorOptions(DType::Float64)).to(dtype);
}

inline std::vector<double> values_of(const Tensor& t) {
  Tensor d = t.to(DType::Float64).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

inline constexpr distributed::ReduceOp kAllOps[] = {
    distributed::ReduceOp::SUM,  distributed::ReduceOp::PRODUCT, distributed::ReduceOp::MIN,
    distributed::ReduceOp::MAX,  distributed::ReduceOp::BAND,    distributed::ReduceOp::BOR,
    distributed::ReduceOp::BXOR, distributed::ReduceOp::AVG};

// Raises (failing the rank) unless got's values equal expected exactly.
inline void check_values(const Tensor& got, const std::vector<double>& expected, const std::string& what) {
  const std::vector<double> values = values_of(got);
  EMBER_CHECK(values.size() == expected.size(), what, ": ", values.size(), " values, expected ", expected.size());
  for (size_t k = 0; k < values.size(); ++k)
    EMBER_CHECK(values[k] == expected[k], what, ": element ", k, " is ", values[k], ", expected ", expected[k]);
}

// The environment that tells a rank the test's store server.
inline std::map<std::string, std::string> store_env(const distributed::TCPStoreServer& server) {
  return {{"STORE_PORT", std::to_string(server.port())}};
}

// Joins the test's store server (port in STORE_PORT) and initializes the
// default group on it.
inline std::shared_ptr<distributed::TCPStore> init_gloo_from_test_store(int rank, int world_size) {
  auto store = std::make_shared<distributed::TCPStore>(
      "127.0.0.1", distributed::TCPStoreOptions{.port = static_cast<uint16_t>(env_int("STORE_PORT")),
                                                .timeout = std::chrono::seconds(20)});
  distributed::init_process_group(
      "gloo", {.rank = rank, .world_size = world_size, .timeout = std::chrono::seconds(20), .store = store});
  return store;
}

}  // namespace ember::testing
