// read_file / write_file: whole files as 1-D uint8 tensors.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

#include <ember/core/error.h>
#include <ember/io/file.h>
#include <ember/ops/factories.h>

namespace ember::io {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string last_error() { return std::strerror(errno); }

}  // namespace

Tensor read_file(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  EMBER_CHECK(f, "read_file: cannot open '", path, "': ", last_error());
  // Only regular files: fopen accepts a directory, whose end offset is 2^63 - 1
  // on ext4 (an allocation without bound), and a pipe or device has no size.
  struct stat st{};
  EMBER_CHECK(::fstat(::fileno(f.get()), &st) == 0, "read_file: cannot stat '", path, "': ",
              last_error());
  EMBER_CHECK(S_ISREG(st.st_mode), "read_file: '", path, "' is ",
              S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
  const auto size = static_cast<int64_t>(st.st_size);
  Tensor out = empty({size}, kUInt8);
  if (size > 0) {
    const size_t got = std::fread(out.data_ptr(), 1, static_cast<size_t>(size), f.get());
    EMBER_CHECK(got == static_cast<size_t>(size), "read_file: read ", got, " of ", size,
                " bytes of '", path, "'");
  }
  return out;
}

void write_file(const std::string& path, const Tensor& data) {
  EMBER_CHECK(data.defined(), "write_file: expected a tensor, got an undefined tensor");
  EMBER_CHECK(data.dtype() == kUInt8, "write_file: expected a uint8 tensor, got ",
              dtype_name(data.dtype()));
  EMBER_CHECK(data.is_cpu(), "write_file: expected a CPU tensor, got one on ", data.device());
  EMBER_CHECK(data.dim() == 1, "write_file: expected a 1-D tensor, got shape ", data.sizes());
  const Tensor bytes = data.contiguous();
  File f(std::fopen(path.c_str(), "wb"));
  EMBER_CHECK(f, "write_file: cannot open '", path, "' for writing: ", last_error());
  const size_t n = static_cast<size_t>(bytes.numel());
  if (n > 0) {
    const size_t put = std::fwrite(bytes.data_ptr(), 1, n, f.get());
    EMBER_CHECK(put == n, "write_file: wrote ", put, " of ", n, " bytes to '", path,
                "': ", last_error());
  }
  std::FILE* raw = f.release();
  EMBER_CHECK(std::fclose(raw) == 0, "write_file: cannot finish writing '", path, "': ",
              last_error());
}

}  // namespace ember::io
