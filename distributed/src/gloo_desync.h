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

// Records in the store which collective this rank entered last (Note [Desync
// report]), off the collective's path: record() hands the entry to a thread of
// its own, which writes the latest one at most every kMinInterval, so a stream
// of small collectives costs a mutex and a notify each instead of a store round
// trip. Store errors are ignored: the record only serves the report.
class EntryRecorder {
 public:
  static constexpr std::chrono::milliseconds kMinInterval{20};

  EntryRecorder(std::shared_ptr<Store> store, int64_t rank);
  ~EntryRecorder();  // writes the pending entry, then stops
  EntryRecorder(const EntryRecorder&) = delete;
  EntryRecorder& operator=(const EntryRecorder&) = delete;

  // Collective `seq` (op and its arguments) was entered.
  void record(uint64_t seq, const std::string& op, const std::string& what);

 private:
  void run();

  std::shared_ptr<Store> store_;
  const std::string key_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string pending_;  // the entry not yet written; empty: none
  bool stopping_ = false;
  std::thread thread_;
};

// "Desync report for sequence number seq: ..." naming each rank that had not
// entered it or entered another op as that number, or saying all entered it.
std::string desync_report(Store& store, int64_t rank, int64_t size, uint64_t seq, const std::string& op);

}  // namespace ember::distributed::gloo_detail
