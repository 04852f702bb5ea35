#pragma once
// Moving one optimizer state_dict from one rank to another over a process
// group's point-to-point channel (ZeroRedundancyOptimizer's
// consolidate_state_dict): the state is written in the safetensors layout of
// optim::write_optimizer_state (the same a checkpoint file holds, so every
// value type a state may hold travels), its byte count is sent, then the
// bytes. Only the two ranks take part.
#include <cstdint>

#include <ember/distributed/process_group.h>
#include <ember/optim/optimizer.h>

namespace ember::distributed::detail {

void send_optimizer_state(ProcessGroup& group, const optim::OptimizerStateDict& state, int64_t dst, int64_t tag);
optim::OptimizerStateDict recv_optimizer_state(ProcessGroup& group, int64_t src, int64_t tag);

}  // namespace ember::distributed::detail
