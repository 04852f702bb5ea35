#include "serialize/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember::serialize {

void ByteSource::read(uint64_t offset, void* dst, size_t n, const char* what) const {
  EMBER_CHECK(contains(offset, n), name_, ": truncated file: ", what, " needs bytes [", offset, ", ",
              offset + n, ") but the file has ", size_, " bytes");
  if (n) read_impl(offset, dst, n);
}

std::string ByteSource::read_string(uint64_t offset, size_t n, const char* what) const {
  EMBER_CHECK(contains(offset, n), name_, ": truncated file: ", what, " needs bytes [", offset, ", ",
              offset + n, ") but the file has ", size_, " bytes");
  std::string out(n, '\0');
  if (n) read_impl(offset, out.data(), n);
  return out;
}

FileSource::FileSource(const std::string& path) {
  name_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd_ >= 0, "cannot open ", path, ": ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    EMBER_FAIL("cannot read ", path, ": not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::read_impl(uint64_t offset, void* dst, size_t n) const {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    EMBER_CHECK(got > 0, name_, ": read error at byte ", offset, ": ",
                got == 0 ? "unexpected end of file" : std::strerror(errno));
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

MemorySource::MemorySource(const void* data, size_t size, std::string name)
    : data_(static_cast<const unsigned char*>(data)) {
  size_ = size;
  name_ = std::move(name);
}

void MemorySource::read_impl(uint64_t offset, void* dst, size_t n) const {
  std::memcpy(dst, data_ + offset, n);
}

}  // namespace ember::serialize
