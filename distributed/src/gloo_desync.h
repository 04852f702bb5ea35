#pragma once
// The desync report of ProcessGroupGloo (Note [Desync report]): each rank
// records the collective it enters in the group's store; a failed collective
// reads every rank's record to say which ranks had not entered it.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <ember/distributed/store.h>

namespace ember::distributed::gloo_detail {

// Writes one rank's entries "ember_desync/<rank>" = "<seq> <op> <arguments>"
// on a thread of its own through a clone of the group's store (Note [Desync
// recorder]): record() never waits for the store; writes are paced.
class DesyncRecorder {
 public:
  // Clones store (the group's store itself when it cannot be cloned) and
  // starts the writing thread.
  DesyncRecorder(const std::shared_ptr<Store>& store, int64_t rank);
  // Stops the thread; an entry not written yet is dropped.
  ~DesyncRecorder();
  DesyncRecorder(const DesyncRecorder&) = delete;
  DesyncRecorder& operator=(const DesyncRecorder&) = delete;

  // Makes "seq op what" this rank's entry; returns at once.
  void record(uint64_t seq, const std::string& op, const std::string& what);
  // Waits up to timeout until every entry recorded so far was written.
  // Returns "" when they were, else what went wrong: the first failed
  // write's error, or that the entry was still unwritten at the timeout.
  std::string flush(std::chrono::milliseconds timeout);
  // Whether the entries go through a store handle of their own.
  bool has_own_store() const { return own_store_; }

 private:
  void run();

  std::shared_ptr<Store> store_;
  bool own_store_ = false;
  std::string key_;
  std::mutex mutex_;
  std::condition_variable recorded_cv_, written_cv_, hurry_cv_;
  std::string pending_;     // the latest entry
  uint64_t recorded_ = 0;   // entries recorded so far
  uint64_t written_ = 0;    // of which the store has the latest (or its write failed)
  std::string error_;       // the first failed write's error
  bool idle_ = false;       // the thread waits for an entry (record() wakes it)
  bool hurry_ = false;      // a flush waits: write without pacing
  bool stopping_ = false;
  std::thread thread_;
};

// "Desync report for sequence number seq: ..." naming each rank that had not
// entered it or entered another op as that number, or saying all entered it.
std::string desync_report(Store& store, int64_t rank, int64_t size, uint64_t seq, const std::string& op);

}  // namespace ember::distributed::gloo_detail
