#pragma once
// Reading one IDX file (MNIST's format: a big-endian magic number, the sizes,
// then unsigned bytes in row-major order), plain or gzip-compressed (a name
// ending in ".gz"), as the MNIST-family datasets do. For readers of other
// layouts of the same files, e.g. libtorch's MNIST, which takes the four files
// straight from its root folder (`<ember/torch.h>`).
#include <cstdint>
#include <string>
#include <string_view>

#include <ember/core/tensor.h>

namespace ember::datasets {

// A uint8 tensor of the file's sizes. The file must hold unsigned bytes in
// `ndim` dimensions, exactly as long as its sizes say; otherwise an
// ember::Error names `dataset`, the file and the problem.
Tensor read_idx_ubyte(const std::string& path, int64_t ndim, std::string_view dataset = "IDX");

}  // namespace ember::datasets
