#include "zero_state_exchange.h"

#include <string>

#include <ember/ops/factories.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/safetensors.h>

namespace ember::distributed::detail {

void send_optimizer_state(ProcessGroup& group, const optim::OptimizerStateDict& state, int64_t dst, int64_t tag) {
  StateDict tensors;
  Metadata metadata;
  optim::write_optimizer_state(state, tensors, metadata);
  std::string bytes = serialize::save_safetensors_bytes(tensors, metadata);
  tensors.clear();
  Tensor size = full({1}, static_cast<int64_t>(bytes.size()), TensorOptions(kInt64));
  group.send(size, dst, tag)->wait();
  // The bytes are sent from where they are (send returns once they arrived).
  Tensor payload = from_blob(bytes.data(), {static_cast<int64_t>(bytes.size())}, TensorOptions(kUInt8));
  group.send(payload, dst, tag)->wait();
}

optim::OptimizerStateDict recv_optimizer_state(ProcessGroup& group, int64_t src, int64_t tag) {
  Tensor size = zeros({1}, TensorOptions(kInt64));
  group.recv(size, src, tag)->wait();
  const int64_t n = size.data_ptr<int64_t>()[0];
  EMBER_CHECK(n > 0, "ZeroRedundancyOptimizer: rank ", src, " sent an optimizer state of ", n, " bytes");
  Tensor payload = empty({n}, TensorOptions(kUInt8));
  group.recv(payload, src, tag)->wait();
  serialize::SafetensorsContents contents =
      serialize::load_safetensors_bytes(payload.data_ptr<uint8_t>(), static_cast<size_t>(n));
  payload = Tensor();
  return optim::read_optimizer_state(contents.tensors, contents.metadata);
}

}  // namespace ember::distributed::detail
