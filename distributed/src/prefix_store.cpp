#include <ember/distributed/prefix_store.h>

#include <ember/core/error.h>

namespace ember::distributed {

namespace {
std::shared_ptr<Store> checked(std::shared_ptr<Store> store) {
  EMBER_CHECK(store != nullptr, "PrefixStore: the underlying store is null");
  return store;
}
}  // namespace

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(checked(store)->timeout()), prefix_(std::move(prefix)), store_(std::move(store)) {}

std::vector<std::string> PrefixStore::joined(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& key : keys) out.push_back(joined(key));
  return out;
}

void PrefixStore::set(const std::string& key, const std::string& value) { store_->set(joined(key), value); }
std::string PrefixStore::get(const std::string& key) { return store_->get(joined(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t delta) { return store_->add(joined(key), delta); }
std::string PrefixStore::compare_set(const std::string& key, const std::string& expected,
                                     const std::string& desired) {
  return store_->compare_set(joined(key), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(joined(keys)); }
bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(joined(key)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(joined(keys), timeout);
}
void PrefixStore::set_timeout(std::chrono::milliseconds timeout) {
  Store::set_timeout(timeout);
  store_->set_timeout(timeout);
}

std::shared_ptr<Store> PrefixStore::clone() {
  auto copy = std::make_shared<PrefixStore>(prefix_, store_->clone());
  copy->Store::set_timeout(timeout());
  return copy;
}

}  // namespace ember::distributed
