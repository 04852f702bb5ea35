#pragma once
// The IDX format of MNIST and its relatives (LeCun's "SN3 Pascal Vincent"
// files): a big-endian magic number 0x0000TTNN (TT the element type, 0x08 for
// unsigned bytes; NN the number of dimensions), NN big-endian uint32 sizes,
// then the elements in row-major order. Files may be gzip-compressed.
#include <cstdint>
#include <string>
#include <string_view>

#include <ember/core/tensor.h>

namespace ember::datasets::detail {

// Reads an IDX file of unsigned bytes with `ndim` dimensions (plain, or gzip
// when the name ends in ".gz") into a uint8 tensor of the file's sizes.
// Everything is validated before any large allocation: the magic number, the
// type and dimension count, and that the data is exactly as long as the sizes
// say (for gzip, the data is read in chunks, so memory grows only with what
// the stream really holds). Errors name `dataset`, the file and the problem.
Tensor read_idx_ubyte(const std::string& path, int64_t ndim, std::string_view dataset);

}  // namespace ember::datasets::detail
