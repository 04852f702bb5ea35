#include "format_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <memory>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::datasets::detail {

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string join_path(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

void check_index(std::string_view dataset, int64_t index, int64_t size) {
  EMBER_CHECK(index >= 0 && index < size, dataset, ": index ", index,
              " is out of range for a dataset of ", size, " samples");
}

namespace {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_file(const std::string& path, std::string_view dataset) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  EMBER_CHECK(f, dataset, ": cannot open ", path, ": ", std::strerror(errno));
  return f;
}
}  // namespace

uint64_t file_size(const std::string& path, std::string_view dataset) {
  struct stat st;
  EMBER_CHECK(::stat(path.c_str(), &st) == 0, dataset, ": cannot open ", path, ": ",
              std::strerror(errno));
  EMBER_CHECK(S_ISREG(st.st_mode), dataset, ": ", path, " is not a regular file");
  return static_cast<uint64_t>(st.st_size);
}

std::vector<uint8_t> read_whole_file(const std::string& path, std::string_view dataset) {
  FilePtr f = open_file(path, dataset);
  struct stat st;
  EMBER_CHECK(::fstat(fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode), dataset, ": ", path,
              " is not a regular file");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  const size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), f.get());
  EMBER_CHECK(got == bytes.size(), dataset, ": error reading ", path, " (read ", got, " of ",
              bytes.size(), " bytes)");
  return bytes;
}

MappedFile::MappedFile(const std::string& path, std::string_view dataset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, dataset, ": cannot open ", path, ": ", std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    EMBER_FAIL(dataset, ": ", path, " is not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (data_ == MAP_FAILED) {
      data_ = nullptr;
      EMBER_FAIL(dataset, ": cannot map ", path, ": ", std::strerror(err));
    }
    ::madvise(data_, size_, MADV_SEQUENTIAL);
  } else {
    ::close(fd);
  }
}

void MappedFile::release_before(size_t offset) {
  constexpr size_t kStep = size_t{16} << 20;
  if (!data_ || offset < released_ + kStep) return;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t end = std::min(offset, size_) / page * page;
  // Read-only private pages are dropped and would be read again from the file
  // if touched.
  ::madvise(static_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

Tensor tensor_from_bytes(std::vector<uint8_t>&& bytes, std::vector<int64_t> sizes) {
  // Checked (Note [Checked sizes]): the tensor must not reach past the bytes.
  const int64_t numel = checked_numel(sizes, "tensor_from_bytes");
  EMBER_CHECK(static_cast<uint64_t>(numel) == bytes.size(), "tensor_from_bytes: sizes ", IntArrayRef(sizes),
              " hold ", numel, " bytes but ", bytes.size(), " were given");
  auto* owned = new std::vector<uint8_t>(std::move(bytes));
  if (owned->empty()) {
    delete owned;
    return empty(sizes, kUInt8);
  }
  return from_blob(
      owned->data(), sizes, [owned](void*) { delete owned; }, kUInt8);
}

std::string strip(std::string_view s) {
  const char* ws = " \t\r\n\v\f";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> read_nonempty_lines(const std::string& path, std::string_view dataset) {
  const std::vector<uint8_t> bytes = read_whole_file(path, dataset);
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string line = strip(text.substr(0, nl));
    if (!line.empty()) lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace ember::datasets::detail
