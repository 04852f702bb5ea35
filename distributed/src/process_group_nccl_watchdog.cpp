// The Work of an NCCL collective and ProcessGroupNCCL's watchdog.
#include <iostream>
#include <set>
#include <sstream>

#include <ember/core/error.h>

#include "process_group_nccl_internal.h"

namespace ember::distributed {
namespace nccl_detail {

WorkNCCL::WorkNCCL(std::string op, uint64_t sequence_number, std::vector<Tensor> outputs, int16_t device,
                   std::chrono::milliseconds timeout, std::string description, bool blocking)
    : Work(std::move(op), sequence_number, std::move(outputs)),
      device(device),
      timeout(timeout),
      start(Clock::now()),
      description(std::move(description)),
      blocking(blocking) {}

bool WorkNCCL::finish_once(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(finish_mutex_);
    if (finished_) return false;
    finished_ = true;
  }
  finish(std::move(error));
  return true;
}

bool WorkNCCL::gpu_done() const { return end.was_recorded() && end.query(); }

bool WorkNCCL::is_completed() const {
  if (Work::is_completed()) return true;
  // As PyTorch's WorkNCCL::isCompleted: the end event says it, not the
  // watchdog's next round. A failed query (a broken context) is left to the
  // watchdog, which fails the work with it.
  bool done = false;
  try {
    done = gpu_done();
  } catch (const std::exception&) {
    return false;
  }
  if (done) const_cast<WorkNCCL*>(this)->finish_once();
  return Work::is_completed();
}

bool WorkNCCL::wait(std::chrono::milliseconds wait_timeout) {
  if (wait_timeout >= std::chrono::milliseconds(0) || blocking) {
    // The host waits: until the end event is done, the watchdog failed the
    // work (at the collective's own timeout at the latest), or wait_timeout.
    const auto deadline = Clock::now() + wait_timeout;
    while (!is_completed()) {
      EMBER_CHECK(wait_timeout < std::chrono::milliseconds(0) || Clock::now() < deadline, "Work::wait: ", op(),
                  " (sequence number ", sequence_number(), ") did not complete within ", wait_timeout.count(), " ms");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  if (std::exception_ptr error = exception()) std::rethrow_exception(error);
  // The caller's stream waits for the NCCL stream (PyTorch's
  // WorkNCCL::synchronize); the host goes on.
  if (end.was_recorded()) end.block(cuda::current_stream(device));
  return true;
}

}  // namespace nccl_detail

// Note [NCCL watchdog]: as PyTorch's ProcessGroupNCCL with
// NCCL_ASYNC_ERROR_HANDLING, a thread per group looks at the collectives in
// flight every watchdog_interval: a work whose end event is done is finished
// (and dropped, releasing its tensors); a communicator whose
// ncclCommGetAsyncError reports an error, or a work older than its timeout
// (counted from its call), makes the watchdog fail that work with an error
// naming the rank, the op, the tensors, the sequence number and (through the
// store, Note [Desync report]) the ranks that had not entered it, abort every
// communicator of the group (ncclCommAbort, which also ends the kernels
// waiting for peers that will never come) and fail the other pending works.
// The group stays aborted: every later call raises the first error.
// PyTorch then also kills the process; Ember leaves that to the program (the
// error is printed to stderr as well, since nobody may be waiting for the work).
void ProcessGroupNCCL::State::run_watchdog() {
  using nccl_detail::Clock;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    if (stopping && pending.empty()) return;
    wake.wait_for(lock, watchdog_interval);
    if (stopping && pending.empty()) return;
    const auto works = pending;
    lock.unlock();

    std::set<const nccl_detail::WorkNCCL*> done;
    std::shared_ptr<nccl_detail::WorkNCCL> culprit;
    std::string failure;
    for (const auto& work : works) {
      try {
        if (work->is_completed() || work->gpu_done()) {
          work->finish_once();
          done.insert(work.get());
          continue;
        }
      } catch (const std::exception& e) {
        culprit = work;
        failure = std::string("querying its CUDA event failed: ") + e.what();
        break;
      }
      const auto ran = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - work->start);
      if (ran > work->timeout) {
        culprit = work;
        failure = "ran for " + std::to_string(ran.count()) + " ms, past its timeout of " +
                  std::to_string(work->timeout.count()) + " ms";
        break;
      }
    }
    // Asynchronous NCCL errors (a peer that died, a network failure), when
    // no thread is issuing calls (Note [NCCL issue lock]); else next round.
    if (!culprit && issue_mutex.try_lock()) {
      std::set<nccl_detail::Communicator*> seen;
      for (const auto& work : works) {
        if (done.count(work.get()) || !work->comm || work->comm->aborted || !seen.insert(work->comm.get()).second)
          continue;
        ncclResult_t async = ncclSuccess;
        const ncclResult_t query = ncclCommGetAsyncError(work->comm->comm, &async);
        if (query != ncclSuccess) async = query;
        if (async != ncclSuccess && async != ncclInProgress) {
          culprit = work;
          failure = "NCCL reported an error on communicator " + work->comm->key + ": " +
                    nccl_detail::result_text(async, work->comm->comm);
          break;
        }
      }
      issue_mutex.unlock();
    }

    if (culprit) {
      const bool is_collective = culprit->op() != "send" && culprit->op() != "recv";
      const std::string message = "ProcessGroupNCCL: rank " + std::to_string(rank) + " of " + std::to_string(size) +
                                  ": " + culprit->description + " " + failure +
                                  "; the watchdog aborted the group's NCCL communicators.";
      const std::string text = with_desync(message, culprit->sequence_number(), culprit->op(), is_collective);
      culprit->finish_once(std::make_exception_ptr(Error(text)));
      std::cerr << text << std::endl;
      abort_requested.store(true);
      {
        std::lock_guard<std::mutex> issue(issue_mutex);
        abort_communicators();
      }
      set_aborted(text);  // fails the other pending works
    }

    lock.lock();
    if (!done.empty()) {
      std::erase_if(pending, [&](const std::shared_ptr<nccl_detail::WorkNCCL>& w) { return done.count(w.get()) > 0; });
    }
    if (culprit) std::erase(pending, culprit);
  }
}

}  // namespace ember::distributed
