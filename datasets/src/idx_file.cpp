#include "ember/datasets/idx.h"

#include "idx_reader.h"

namespace ember::datasets {

Tensor read_idx_ubyte(const std::string& path, int64_t ndim, std::string_view dataset) {
  return detail::read_idx_ubyte(path, ndim, dataset);
}

}  // namespace ember::datasets
