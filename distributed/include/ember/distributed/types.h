#pragma once
// The options of torch.distributed's collectives (c10d's Types.hpp).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace ember::distributed {

// torch.distributed.ReduceOp. BAND/BOR/BXOR need integer (or bool) tensors;
// AVG divides the sum by the group size (integers: truncating, as NCCL).
enum class ReduceOp : uint8_t { SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR, AVG };
inline constexpr int kNumReduceOps = 8;
static_assert(static_cast<int>(ReduceOp::AVG) + 1 == kNumReduceOps, "reduce_op_name's table follows the enum");

// "SUM", "PRODUCT", ...
const char* reduce_op_name(ReduceOp op);

// A timeout of none means the process group's own timeout.
struct BroadcastOptions {
  int64_t root_rank = 0;
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

struct AllreduceOptions {
  ReduceOp reduce_op = ReduceOp::SUM;
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

struct BarrierOptions {
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

struct ReduceOptions {
  ReduceOp reduce_op = ReduceOp::SUM;
  int64_t root_rank = 0;
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

// all_gather, all_gather_into_tensor, gather, scatter and all_to_all.
struct CollectiveOptions {
  int64_t root_rank = 0;  // gather and scatter
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

struct ReduceScatterOptions {
  ReduceOp reduce_op = ReduceOp::SUM;
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

struct PointToPointOptions {
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

}  // namespace ember::distributed
