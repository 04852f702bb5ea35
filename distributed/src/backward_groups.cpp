#include "backward_groups.h"

#include <mutex>
#include <unordered_map>

namespace ember::distributed::detail {

namespace {
struct GroupTable {
  std::mutex mutex;
  int64_t next = 1;
  std::unordered_map<int64_t, std::weak_ptr<ProcessGroup>> groups;
};
GroupTable& table() {
  static GroupTable* t = new GroupTable();  // never destroyed: backward may run during static destruction
  return *t;
}
}  // namespace

int64_t group_handle(const std::shared_ptr<ProcessGroup>& group) {
  GroupTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (auto it = t.groups.begin(); it != t.groups.end();) {
    std::shared_ptr<ProcessGroup> alive = it->second.lock();
    if (!alive) {
      it = t.groups.erase(it);
      continue;
    }
    if (alive == group) return it->first;
    ++it;
  }
  const int64_t handle = t.next++;
  t.groups.emplace(handle, group);
  return handle;
}

std::shared_ptr<ProcessGroup> group_from_handle(int64_t handle, const char* who) {
  GroupTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.groups.find(handle);
  std::shared_ptr<ProcessGroup> group = it == t.groups.end() ? nullptr : it->second.lock();
  EMBER_CHECK(group != nullptr, who, ": the process group of the forward pass was destroyed before the backward pass");
  return group;
}

}  // namespace ember::distributed::detail
