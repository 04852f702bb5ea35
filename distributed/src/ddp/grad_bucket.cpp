#include <ember/distributed/ddp/grad_bucket.h>

#include <ember/core/error.h>

namespace ember::distributed {

GradBucket::GradBucket(int64_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters,
                       std::vector<int64_t> offsets, std::shared_ptr<ProcessGroup> process_group)
    : index_(index),
      is_last_(is_last),
      buffer_(std::move(buffer)),
      parameters_(std::move(parameters)),
      offsets_(std::move(offsets)),
      process_group_(std::move(process_group)) {
  EMBER_CHECK(buffer_.defined() && buffer_.dim() == 1, "GradBucket: the buffer must be a 1-D tensor");
  EMBER_CHECK(parameters_.size() == offsets_.size(), "GradBucket: ", parameters_.size(), " parameters but ",
              offsets_.size(), " offsets");
}

void GradBucket::set_buffer(Tensor buffer) {
  EMBER_CHECK(buffer.defined() && buffer.dim() == 1 && buffer.numel() == buffer_.numel(),
              "GradBucket::set_buffer: bucket ", index_, " needs a 1-D tensor of ", buffer_.numel(),
              " elements, got ", buffer.defined() ? buffer.numel() : 0);
  buffer_ = std::move(buffer);
}

std::vector<Tensor> GradBucket::gradients() const {
  std::vector<Tensor> grads;
  grads.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i)
    grads.push_back(buffer_.narrow(0, offsets_[i], parameters_[i].numel()).view(parameters_[i].sizes()));
  return grads;
}

}  // namespace ember::distributed
