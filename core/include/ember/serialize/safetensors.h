#pragma once
// ember::save / ember::load: tensors in the safetensors format
// (https://github.com/huggingface/safetensors), readable by the Python
// `safetensors` package and other tools. See docs/serialization.md.
//
// File layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON
// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
//  ..., "__metadata__": {"key": "value"}}, then the raw little-endian data
// (offsets relative to the first byte after the header). Data are always
// written contiguous (row-major); non-CPU tensors are copied to the CPU.
//
// Note [save by extension]
// A path ending in .pt or .pth (any case) is a PyTorch checkpoint instead:
// save writes it with save_torch (torch_save.h: a state_dict as an
// OrderedDict, one tensor as torch.save(tensor), a vector as a list), and
// load/load_tensor/load_tensor_list read any torch.save file (recognized by
// its first bytes, whatever its name) with load_torch. Such a file has no
// place for safetensors metadata: saving metadata to a .pt path is an error.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/serialize/memory_limit.h"
#include "ember/serialize/ordered_dict.h"

namespace ember {

// One tensor, stored under the name "tensor".
void save(const std::string& path, const Tensor& tensor, const Metadata& metadata = {});
// A list of tensors, stored under the names "0", "1", ...
void save(const std::string& path, const std::vector<Tensor>& tensors, const Metadata& metadata = {});
// Named tensors (a module's state_dict), in order.
void save(const std::string& path, const StateDict& tensors, const Metadata& metadata = {});

// All tensors of a safetensors file, in the order of its header; the file's
// "__metadata__" goes to *metadata when given. Tensors are on the CPU, each
// with its own storage. Any malformed input is an ember::Error, and so is a
// file that needs more memory than the checkpoint memory limit allows
// (memory_limit.h) or than the machine has.
StateDict load(const std::string& path, Metadata* metadata = nullptr);
// The only tensor of a file (as written by save(path, tensor)).
Tensor load_tensor(const std::string& path);
// Tensors named "0".."n-1" (as written by save(path, vector)), in index order.
std::vector<Tensor> load_tensor_list(const std::string& path);

namespace serialize {

struct SafetensorsContents {
  StateDict tensors;
  Metadata metadata;
};

// The file's bytes, without writing a file.
std::string save_safetensors_bytes(const StateDict& tensors, const Metadata& metadata = {});
SafetensorsContents load_safetensors(const std::string& path);
SafetensorsContents load_safetensors_bytes(const void* data, size_t size);

// Largest accepted JSON header (the reference implementation's limit).
inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

// "F32", "BF16", "BOOL", ...: the safetensors spelling of a dtype. complex64
// is "C64" (in the format since safetensors 0.7); complex128 is "C128", an
// Ember extension other tools will not read.
std::string_view safetensors_dtype_name(DType dtype);

}  // namespace serialize
}  // namespace ember
