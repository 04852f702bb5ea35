// Broadcasting many tensors as few collectives (DDP's parameter and buffer
// synchronization).
#pragma once

#include <vector>

#include <ember/core/tensor.h>
#include <ember/distributed/process_group.h>

namespace ember::distributed::detail {

// Broadcasts `tensors` from `root` in place: their bytes are packed into one
// flat buffer per `bucket_bytes` (at least one tensor per buffer), each buffer
// is one broadcast, and the receivers unpack. Any dtypes and layouts mix.
void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int64_t root,
                         size_t bucket_bytes);

}  // namespace ember::distributed::detail
