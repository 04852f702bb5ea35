#include <ember/distributed/file_store.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <ember/core/error.h>

#include "store_util.h"

namespace ember::distributed {

// Note [FileStore log]: the file is a sequence of records
//   u8 kind (0 set, 1 delete) | u32 key length | u32 value length | key | value
// appended under an exclusive flock(); readers replay the records they have
// not seen yet under a shared one, so they never see half a record. The count
// of live FileStore objects sits in the log under kUsersKey (a key users
// cannot name by accident: it starts with a NUL byte) and is left out of
// num_keys().
namespace {

constexpr uint8_t kSetRecord = 0;
constexpr uint8_t kDeleteRecord = 1;
const std::string kUsersKey("\0ember/filestore/users", 22);
constexpr auto kPollInterval = std::chrono::milliseconds(5);

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n > 0, "FileStore: writing ", path, " failed: ", errno_text());
    done += static_cast<size_t>(n);
  }
}

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

// An flock() on the store's file for the duration of one operation, with the
// cache brought up to date with the log.
class FileStore::Locked {
 public:
  Locked(FileStore& store, bool exclusive) : store_(store) {
    while (::flock(store_.fd_, exclusive ? LOCK_EX : LOCK_SH) != 0) {
      EMBER_CHECK(errno == EINTR, "FileStore: locking ", store_.path_, " failed: ", errno_text());
    }
    refresh();
  }
  ~Locked() { ::flock(store_.fd_, LOCK_UN); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

  void append(uint8_t kind, const std::string& key, const std::string& value) {
    std::string record;
    record.reserve(9 + key.size() + value.size());
    record.push_back(static_cast<char>(kind));
    put_u32(record, static_cast<uint32_t>(key.size()));
    put_u32(record, static_cast<uint32_t>(value.size()));
    record += key;
    record += value;
    EMBER_CHECK(::lseek(store_.fd_, 0, SEEK_END) >= 0, "FileStore: seeking in ", store_.path_, " failed: ",
                errno_text());
    write_all(store_.fd_, record, store_.path_);
    refresh();
  }

 private:
  void refresh() {
    struct stat st {};
    EMBER_CHECK(::fstat(store_.fd_, &st) == 0, "FileStore: stat of ", store_.path_, " failed: ", errno_text());
    const int64_t size = st.st_size;
    if (size <= store_.read_offset_) return;
    std::string bytes(static_cast<size_t>(size - store_.read_offset_), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pread(store_.fd_, bytes.data() + done, bytes.size() - done,
                                store_.read_offset_ + static_cast<int64_t>(done));
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n > 0, "FileStore: reading ", store_.path_, " failed: ", n == 0 ? "unexpected end" : errno_text());
      done += static_cast<size_t>(n);
    }
    size_t pos = 0;
    while (pos < bytes.size()) {
      EMBER_CHECK(bytes.size() - pos >= 9, "FileStore: ", store_.path_, " is corrupt (truncated record header at ",
                  store_.read_offset_ + static_cast<int64_t>(pos), ")");
      const auto kind = static_cast<uint8_t>(bytes[pos]);
      const uint32_t klen = get_u32(&bytes[pos + 1]);
      const uint32_t vlen = get_u32(&bytes[pos + 5]);
      EMBER_CHECK((kind == kSetRecord || kind == kDeleteRecord) && bytes.size() - pos - 9 >= uint64_t{klen} + vlen,
                  "FileStore: ", store_.path_, " is corrupt (bad record at ",
                  store_.read_offset_ + static_cast<int64_t>(pos), ")");
      std::string key = bytes.substr(pos + 9, klen);
      if (kind == kSetRecord)
        store_.cache_[std::move(key)] = bytes.substr(pos + 9 + klen, vlen);
      else
        store_.cache_.erase(key);
      pos += 9 + klen + vlen;
    }
    store_.read_offset_ = size;
  }

  FileStore& store_;
};

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout) : Store(timeout), path_(std::move(path)) {
  EMBER_CHECK(!path_.empty(), "FileStore: the path is empty");
  // The last user of a previous store on this path may remove the file between
  // our open() and our lock; then we hold an unlinked file and start over.
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EMBER_CHECK(fd_ >= 0, "FileStore: cannot open ", path_, ": ", errno_text());
    {
      Locked file(*this, /*exclusive=*/true);
      struct stat ours {}, named {};
      if (::fstat(fd_, &ours) == 0 && ::stat(path_.c_str(), &named) == 0 && ours.st_ino == named.st_ino &&
          ours.st_dev == named.st_dev) {
        add_locked(file, kUsersKey, 1);
        return;
      }
    }
    ::close(fd_);
    fd_ = -1;
    read_offset_ = 0;
    cache_.clear();
  }
}

FileStore::~FileStore() {
  if (fd_ < 0) return;
  try {
    std::lock_guard<std::mutex> guard(mutex_);
    Locked file(*this, /*exclusive=*/true);
    if (add_locked(file, kUsersKey, -1) <= 0) ::unlink(path_.c_str());
  } catch (const std::exception&) {
    // A destructor must not throw; the file then stays behind.
  }
  ::close(fd_);
}

std::shared_ptr<Store> FileStore::clone() { return std::make_shared<FileStore>(path_, timeout()); }

int64_t FileStore::add_locked(Locked& file, const std::string& key, int64_t delta) {
  auto it = cache_.find(key);
  const int64_t value = (it == cache_.end() ? 0 : detail::parse_counter(it->second, "FileStore", key)) + delta;
  file.append(kSetRecord, key, std::to_string(value));
  return value;
}

void FileStore::set(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, true);
  file.append(kSetRecord, key, value);
}

std::string FileStore::get(const std::string& key) {
  wait({key});
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, false);
  auto it = cache_.find(key);
  EMBER_CHECK(it != cache_.end(), "FileStore::get: key ", detail::describe_keys({key}),
              " was deleted while being read");
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, true);
  return add_locked(file, key, delta);
}

std::string FileStore::compare_set(const std::string& key, const std::string& expected,
                                   const std::string& desired) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, true);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (!expected.empty()) return expected;
    file.append(kSetRecord, key, desired);
    return desired;
  }
  if (it->second != expected) return it->second;
  file.append(kSetRecord, key, desired);
  return desired;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, false);
  for (const auto& key : keys)
    if (!cache_.count(key)) return false;
  return true;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, true);
  if (!cache_.count(key)) return false;
  file.append(kDeleteRecord, key, {});
  return true;
}

int64_t FileStore::num_keys() {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(*this, false);
  return static_cast<int64_t>(cache_.size()) - static_cast<int64_t>(cache_.count(kUsersKey));
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    std::vector<std::string> missing;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      Locked file(*this, false);
      for (const auto& key : keys)
        if (!cache_.count(key)) missing.push_back(key);
    }
    if (missing.empty()) return;
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed >= timeout) detail::throw_wait_timeout("FileStore(" + path_ + ")", missing, elapsed, timeout);
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace ember::distributed
