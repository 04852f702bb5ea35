#include <ember/distributed/process_group.h>

#include <ember/core/error.h>

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  static constexpr const char* kNames[kNumReduceOps] = {"SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG"};
  const auto index = static_cast<size_t>(op);
  EMBER_CHECK(index < kNumReduceOps, "reduce_op_name: invalid ReduceOp ", index);
  return kNames[index];
}

ProcessGroup::ProcessGroup(int64_t rank, int64_t size) : rank_(rank), size_(size) {
  EMBER_CHECK(size >= 1, "ProcessGroup: the size must be at least 1, got ", size);
  EMBER_CHECK(rank >= 0 && rank < size, "ProcessGroup: rank ", rank, " is outside [0, ", size, ")");
}

}  // namespace ember::distributed
