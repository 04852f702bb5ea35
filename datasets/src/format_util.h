#pragma once
// Helpers shared by the dataset format readers: file checks, whole-file reads,
// index checks and uint8 tensors that own a byte vector.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::datasets::detail {

bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);
// `a/b`, as os.path.join for a relative b.
std::string join_path(const std::string& a, const std::string& b);

// Raises "<dataset>: index i is out of range for a dataset of n samples".
void check_index(std::string_view dataset, int64_t index, int64_t size);

// The whole file as bytes; an ember::Error naming `dataset` and the path when
// it cannot be opened or read.
std::vector<uint8_t> read_whole_file(const std::string& path, std::string_view dataset);
// The file's size in bytes (the same errors).
uint64_t file_size(const std::string& path, std::string_view dataset);

// A read-only memory map of a whole file (empty files give an empty view).
class MappedFile {
 public:
  MappedFile(const std::string& path, std::string_view dataset);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }
  // Tells the kernel that bytes before `offset` will not be read again, so
  // their pages leave the process's resident memory (a reader that goes
  // forward through a large file keeps a small footprint). Cheap to call
  // often: it acts once per 16 MiB of progress.
  void release_before(size_t offset);

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

// A uint8 tensor of `sizes` whose storage is `bytes` (moved, no copy);
// bytes.size() must equal the product of sizes.
Tensor tensor_from_bytes(std::vector<uint8_t>&& bytes, std::vector<int64_t> sizes);

// Lines of a text file with trailing "\r\n"/"\n" removed and surrounding
// whitespace stripped; empty lines are dropped.
std::vector<std::string> read_nonempty_lines(const std::string& path, std::string_view dataset);

std::string strip(std::string_view s);

}  // namespace ember::datasets::detail
