#pragma once
// A fresh directory under $TMPDIR (or /tmp) for one test, removed with
// everything in it when the object goes away.
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <ember/core/error.h>

namespace ember::testing {

class TempDir {
 public:
  // The directory is named <prefix>_XXXXXX.
  explicit TempDir(const std::string& prefix = "ember_test") {
    const char* base = std::getenv("TMPDIR");
    const std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + "_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    EMBER_CHECK(::mkdtemp(buf.data()) != nullptr, "mkdtemp failed for ", pattern);
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of an entry in the folder.
  std::string path(const std::string& relative) const { return (path_ / relative).string(); }
  std::string operator/(const std::string& relative) const { return path(relative); }

 private:
  std::filesystem::path path_;
};

}  // namespace ember::testing
