#include <ember/distributed/store.h>

#include <ember/core/error.h>

namespace ember::distributed {

Store::Store(std::chrono::milliseconds timeout) : timeout_(timeout) {
  EMBER_CHECK(timeout.count() > 0, "Store: the timeout must be positive, got ", timeout.count(), " ms");
}

std::shared_ptr<Store> Store::clone() {
  EMBER_FAIL("Store::clone: this store type cannot be cloned (TCPStore, FileStore, HashStore and PrefixStore can)");
}

void Store::set_timeout(std::chrono::milliseconds timeout) {
  EMBER_CHECK(timeout.count() > 0, "Store::set_timeout: the timeout must be positive, got ", timeout.count(),
              " ms");
  timeout_ = timeout;
}

}  // namespace ember::distributed
