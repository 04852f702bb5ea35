#pragma once
// FileStore: a Store in one shared file (c10d's FileStore), usable by the
// processes of one machine or of a shared file system. Every operation takes
// an flock() on the file; the file is an append-only log of set/delete
// records that each FileStore object replays into its own cache.
//
// Cleanup (as c10d): each FileStore object counts itself in the file when
// constructed and uncounts itself when destroyed; the last one to leave
// removes the file. A later FileStore on the same path starts a fresh store.
#include <mutex>
#include <string>
#include <unordered_map>

#include <ember/distributed/store.h>

namespace ember::distributed {

class FileStore final : public Store {
 public:
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = kDefaultStoreTimeout);
  ~FileStore() override;

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  // A new FileStore on the same file (it counts itself in, as any other).
  std::shared_ptr<Store> clone() override;

  const std::string& path() const { return path_; }

 private:
  class Locked;
  int64_t add_locked(Locked& file, const std::string& key, int64_t delta);

  std::string path_;
  std::mutex mutex_;  // one operation of this object at a time
  int fd_ = -1;
  int64_t read_offset_ = 0;  // how much of the log cache_ reflects
  std::unordered_map<std::string, std::string> cache_;
};

}  // namespace ember::distributed
