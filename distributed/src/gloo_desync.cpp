#include "gloo_desync.h"

#include <sstream>
#include <vector>

// Note [Desync report]: a hang in a collective is most often a rank that
// never called it (a skipped branch, a crash, a different op in the same
// slot). Before running collective `seq`, a rank records "<seq> <op>
// <arguments>" under the store key "ember_desync/<rank>". When a collective
// fails (Gloo's timeout, a vanished peer), the failing rank reads every
// rank's key and reports the ranks whose last entered collective is older
// than seq (with what they last entered, or that they entered none), and
// those that entered seq as another op (a desync of the call order). The
// group's store is under its prefix (PrefixStore), so sub-groups report on
// their own ranks.
//
// Note [Desync recorder]: the entries are written off the collective's path,
// by a thread of the group, through a clone of the group's store (for a
// TCPStore, a connection of its own). A collective only hands its entry over
// (one lock; a notify when the recorder is idle) and never waits for the
// store. The writes are paced: an entry after a quiet spell goes out at once,
// then at most one write per kWriteInterval (the latest entry), so a loop of
// small collectives costs the store (and the cores: on a loaded machine every
// extra runnable thread delays the collective's own) a few writes a second,
// not one per collective, and an entry reaches the store at most
// kWriteInterval after the rank entered the collective, well within any
// collective timeout worth reporting on. The connection must
// be the recorder's own: calls on one TCPStore are serialized, and a rank
// whose main thread blocks in store.wait on the group's store (waiting for
// another rank, say) would hold the writes back, so that the others' reports
// named a stale entry. Entries are ordered: only the latest unwritten one is
// kept (a key holds one entry; an older one would only be overwritten), so
// the writes never go backwards and never pile up behind a slow store. Before
// a failed collective builds its report, it flushes the recorder (bounded
// wait), so that its own entry is in the store for the others' reports; a
// write that failed (the store's server died) is named in the report, not
// dropped. A store that cannot be cloned (a user's Store without clone())
// still gets its writes from the recorder thread, through the shared handle.
namespace ember::distributed::gloo_detail {

namespace {
std::string key_of(int64_t rank) { return "ember_desync/" + std::to_string(rank); }

constexpr std::chrono::milliseconds kWriteInterval{100};

std::shared_ptr<Store> clone_or_null(const std::shared_ptr<Store>& store) {
  try {
    return store->clone();
  } catch (const std::exception&) {
    return nullptr;  // not clonable: the recorder shares the group's handle
  }
}
}  // namespace

DesyncRecorder::DesyncRecorder(const std::shared_ptr<Store>& store, int64_t rank) : key_(key_of(rank)) {
  store_ = clone_or_null(store);
  own_store_ = store_ != nullptr;
  if (!store_) store_ = store;
  thread_ = std::thread([this] { run(); });
}

DesyncRecorder::~DesyncRecorder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  recorded_cv_.notify_all();
  hurry_cv_.notify_all();
  thread_.join();
}

void DesyncRecorder::record(uint64_t seq, const std::string& op, const std::string& what) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = std::to_string(seq) + " " + op + (what.empty() ? "" : " " + what);
    ++recorded_;
    wake = idle_;
  }
  if (wake) recorded_cv_.notify_one();
}

std::string DesyncRecorder::flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = recorded_;
  if (written_ < target) {
    hurry_ = true;  // no pacing for this one
    hurry_cv_.notify_all();
  }
  if (!written_cv_.wait_for(lock, timeout, [&] { return written_ >= target; }))
    return "its entry was not written within " + std::to_string(timeout.count()) + " ms";
  return error_;
}

void DesyncRecorder::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto last_write = std::chrono::steady_clock::now() - kWriteInterval;
  for (;;) {
    idle_ = true;
    recorded_cv_.wait(lock, [&] { return stopping_ || written_ < recorded_; });
    idle_ = false;
    // Pacing: no sooner than kWriteInterval after the last write, unless a
    // flush is waiting (record() does not wake this wait).
    hurry_cv_.wait_until(lock, last_write + kWriteInterval, [&] { return stopping_ || hurry_; });
    if (stopping_) return;
    hurry_ = false;
    const std::string entry = pending_;
    const uint64_t upto = recorded_;
    lock.unlock();
    std::string error;
    try {
      store_->set(key_, entry);
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    last_write = std::chrono::steady_clock::now();
    written_ = upto;
    if (!error.empty() && error_.empty()) error_ = error;
    written_cv_.notify_all();
  }
}

std::string desync_report(Store& store, int64_t rank, int64_t size, uint64_t seq, const std::string& op) {
  std::ostringstream report;
  report << "Desync report for sequence number " << seq << " (" << op << "):";
  std::vector<int64_t> missing;
  std::ostringstream details;
  try {
    for (int64_t r = 0; r < size; ++r) {
      if (r == rank) continue;
      if (!store.check({key_of(r)})) {
        missing.push_back(r);
        details << " rank " << r << " has not entered any collective;";
        continue;
      }
      const std::string entry = store.get(key_of(r));
      const size_t space = entry.find(' ');
      const uint64_t last = std::stoull(entry.substr(0, space));
      const std::string last_op = space == std::string::npos ? "" : entry.substr(space + 1);
      if (last < seq) {
        missing.push_back(r);
        details << " rank " << r << " is at sequence number " << last << " (" << last_op << ");";
      } else if (last == seq && last_op.substr(0, last_op.find(' ')) != op) {
        missing.push_back(r);
        details << " rank " << r << " entered sequence number " << seq << " as a different collective ("
                << last_op << ");";
      }
    }
  } catch (const std::exception& e) {
    return report.str() + " the store could not be read (" + e.what() + ")";
  }
  if (missing.empty()) return report.str() + " every rank entered it";
  report << " ranks [";
  for (size_t i = 0; i < missing.size(); ++i) report << (i ? ", " : "") << missing[i];
  report << "] had not entered it:" << details.str();
  std::string text = report.str();
  text.pop_back();  // the last ';'
  return text;
}

}  // namespace ember::distributed::gloo_detail
