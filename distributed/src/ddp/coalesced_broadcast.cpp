// Note [Coalesced broadcasts]: a collective has a fixed cost (over loopback,
// a round trip through both ranks' Gloo threads: ~0.1 ms on a 2-core VM) that
// dwarfs the bytes of the small buffers BatchNorm keeps, and DDP broadcasts
// the buffers before every forward pass. One broadcast per 6 BatchNorm
// buffers cost the small CNN benchmark 3.5 ms a step (its compute is 5 ms);
// PyTorch packs them the same way (_sync_module_states, 250 MiB buckets).
// Broadcast only moves bytes, so one uint8 buffer carries every dtype.
#include "coalesced_broadcast.h"

#include <cstring>

#include <ember/autograd/grad_mode.h>
#include <ember/ops/factories.h>

namespace ember::distributed::detail {

namespace {

void broadcast_bucket(ProcessGroup& group, const std::vector<Tensor>& tensors, int64_t root) {
  if (tensors.size() == 1) {  // nothing to pack
    Tensor t = tensors.front();
    group.broadcast(t, {.root_rank = root})->wait();
    return;
  }
  const bool sending = group.rank() == root;
  size_t total = 0;
  for (const Tensor& t : tensors) total += t.nbytes();
  Tensor flat = empty({static_cast<int64_t>(total)}, TensorOptions(kUInt8));
  auto* bytes = static_cast<unsigned char*>(flat.data_ptr());
  if (sending) {
    size_t offset = 0;
    for (const Tensor& t : tensors) {
      const Tensor dense = t.contiguous();
      std::memcpy(bytes + offset, dense.data_ptr(), dense.nbytes());
      offset += dense.nbytes();
    }
  }
  group.broadcast(flat, {.root_rank = root})->wait();
  if (sending) return;
  size_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.is_contiguous()) {
      std::memcpy(t.data_ptr(), bytes + offset, t.nbytes());
    } else {
      Tensor dense = empty(t.sizes(), TensorOptions(t.dtype()));
      std::memcpy(dense.data_ptr(), bytes + offset, dense.nbytes());
      Tensor target = t;
      target.copy_(dense);
    }
    offset += t.nbytes();
  }
}

}  // namespace

void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int64_t root,
                         size_t bucket_bytes) {
  NoGradGuard no_grad;
  std::vector<Tensor> bucket;
  size_t bucket_size = 0;
  for (const Tensor& t : tensors) {
    if (!bucket.empty() && bucket_size + t.nbytes() > bucket_bytes) {
      broadcast_bucket(group, bucket, root);
      bucket.clear();
      bucket_size = 0;
    }
    bucket.push_back(t.detach());
    bucket_size += t.nbytes();
  }
  if (!bucket.empty()) broadcast_bucket(group, bucket, root);
}

}  // namespace ember::distributed::detail
