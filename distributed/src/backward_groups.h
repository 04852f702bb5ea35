#pragma once
// Process groups for the backward pass of custom autograd functions
// (SyncBatchNorm's): an AutogradContext keeps only IValues, so forward stores
// a handle (an int64) and backward looks the group up by it. The table holds
// weak references: it keeps no group alive, and a handle whose group was
// destroyed before the backward pass is an ember::Error naming `who`.
#include <cstdint>
#include <memory>

#include <ember/distributed/process_group.h>

namespace ember::distributed::detail {

int64_t group_handle(const std::shared_ptr<ProcessGroup>& group);
std::shared_ptr<ProcessGroup> group_from_handle(int64_t handle, const char* who);

}  // namespace ember::distributed::detail
