#pragma once
// GlooStore: Ember's Store seen as gloo::rendezvous::Store, so that gloo's
// full-mesh rendezvous publishes and reads the ranks' addresses through it.
#include <memory>

#include <gloo/rendezvous/store.h>

#include <ember/distributed/store.h>

namespace ember::distributed::gloo_detail {

class GlooStore final : public ::gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::string value = store_->get(key);
    return std::vector<char>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

}  // namespace ember::distributed::gloo_detail
