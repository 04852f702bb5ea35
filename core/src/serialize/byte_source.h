#pragma once
// Random-access input for the loaders: a file (read with pread, never mapped
// or slurped whole) or a buffer in memory (fuzzers, tests). Every read is
// bounds-checked against size(): a read past the end is an ember::Error naming
// `what`, so a loader can never be tricked into reading beyond the input.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::serialize {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  uint64_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // Copies n bytes at offset into dst; throws when [offset, offset+n) is not inside the input.
  void read(uint64_t offset, void* dst, size_t n, const char* what) const;
  std::string read_string(uint64_t offset, size_t n, const char* what) const;
  // Whether [offset, offset+n) lies inside the input (overflow-safe).
  bool contains(uint64_t offset, uint64_t n) const { return offset <= size_ && n <= size_ - offset; }

 protected:
  virtual void read_impl(uint64_t offset, void* dst, size_t n) const = 0;
  uint64_t size_ = 0;
  std::string name_;
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

 private:
  void read_impl(uint64_t offset, void* dst, size_t n) const override;
  int fd_ = -1;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const void* data, size_t size, std::string name = "<memory>");

 private:
  void read_impl(uint64_t offset, void* dst, size_t n) const override;
  const unsigned char* data_;
};

}  // namespace ember::serialize
