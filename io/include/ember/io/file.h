#pragma once
// Whole-file IO as uint8 tensors (torchvision.io.read_file / write_file).
#include <string>

#include <ember/core/tensor.h>

namespace ember::io {

// The bytes of the file at `path` as a 1-D uint8 tensor (empty for an empty file).
Tensor read_file(const std::string& path);

// Writes the bytes of a 1-D uint8 tensor (any strides) to `path`, replacing it.
void write_file(const std::string& path, const Tensor& data);

}  // namespace ember::io
