#pragma once
// ProcessGroupNCCL's insides (process_group_nccl*.cpp): communicators, the
// Work of an NCCL collective and the group's state shared with the watchdog.
// The only distributed file that includes nccl.h (and through it CUDA's).
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/cuda/event.h>
#include <ember/cuda/stream.h>
#include <ember/distributed/process_group_nccl.h>
#include <ember/distributed/work.h>

#include "gloo_desync.h"

namespace ember::distributed::nccl_detail {

using Clock = std::chrono::steady_clock;

// "ncclSystemError: unhandled system error (...)", with NCCL's last error
// message for comm when it has one.
std::string result_text(ncclResult_t result, ncclComm_t comm = nullptr);

// NCCL's element type for moving a dtype's values: every dtype moves as
// bytes (ncclUint8, count = bytes) except where a reduction needs the type.
// Reduction types: bool (as uint8), uint8, int8, int32, int64, float16,
// bfloat16, float32, float64; complex64/128 reduce SUM and AVG as pairs of
// float/double (the real view). std::nullopt: NCCL cannot reduce it.
struct ReduceType {
  ncclDataType_t type;
  int64_t per_element;  // NCCL elements per tensor element (2 for complex)
};
std::optional<ReduceType> reduce_type(DType dtype);
// ReduceOp -> ncclRedOp_t for dtype, or an ember::Error naming op and dtype
// (BAND/BOR/BXOR as PyTorch's nccl backend refuses them; MIN/MAX/PRODUCT on
// complex; AVG on bool). Bool: SUM and MAX as ncclMax, PRODUCT and MIN as
// ncclMin (logical or / and, as PyTorch).
ncclRedOp_t reduce_op(ReduceOp op, DType dtype, const char* name);

// One NCCL communicator: the group's ranks on one device (key "cuda:0"), or
// the two ranks of a send/recv pair ("cuda:0/p2p/0:1"), with the NCCL stream
// its collectives run on. Created non-blocking (ncclConfig_t blocking = 0):
// every call returns at once and is polled until done (wait_ready), so that
// its init and its calls can time out.
struct Communicator {
  std::string key;
  int16_t device = 0;
  int nranks = 0, rank = 0;  // in the communicator
  ncclComm_t comm = nullptr;
  std::optional<cuda::CUDAStream> stream;
  bool aborted = false;  // guarded by State::issue_mutex
};

// The Work of an NCCL collective: finished by the watchdog (or by the first
// is_completed() that sees its end event done), failed by the watchdog when
// it times out or NCCL reports an error.
class WorkNCCL final : public Work {
 public:
  WorkNCCL(std::string op, uint64_t sequence_number, std::vector<Tensor> outputs, int16_t device,
           std::chrono::milliseconds timeout, std::string description, bool blocking);

  // Without a timeout: makes the caller's current stream (on the work's
  // device) wait for the collective and returns; the host waits only for a
  // barrier. With one: blocks the host until the collective is done, raising
  // when that takes longer than timeout (PyTorch's wait(timeout)). Rethrows
  // the collective's error in both cases.
  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
  bool is_completed() const override;

  // Finishes the work unless it is finished already; true when this call did.
  bool finish_once(std::exception_ptr error = nullptr);
  // Whether the end event is done (false before it was recorded).
  bool gpu_done() const;

  cuda::CUDAEvent end;  // recorded on the NCCL stream after the collective
  std::vector<Tensor> keep_alive;  // inputs and scratch buffers until done
  std::shared_ptr<Communicator> comm;
  int16_t device;
  std::chrono::milliseconds timeout;
  Clock::time_point start;
  std::string description;  // "all_reduce (SUM, tensor [4] float32 on cuda:0) (sequence number 3)"
  bool blocking;            // barrier: wait() blocks the host

 private:
  mutable std::mutex finish_mutex_;
  mutable bool finished_ = false;
};

}  // namespace ember::distributed::nccl_detail

namespace ember::distributed {

struct ProcessGroupNCCL::State {
  int64_t rank = 0, size = 0;
  std::shared_ptr<Store> store;
  std::shared_ptr<Store> watchdog_store;  // a clone, for the watchdog's desync reports
  std::chrono::milliseconds timeout{0};
  std::chrono::milliseconds watchdog_interval{100};
  std::unique_ptr<gloo_detail::DesyncRecorder> recorder;

  // Held while a thread issues NCCL calls or creates or aborts a
  // communicator (Note [NCCL issue lock]).
  std::mutex issue_mutex;
  std::map<std::string, std::shared_ptr<nccl_detail::Communicator>> comms;
  int64_t group_comms_made = 0;  // communicators of the whole group created so far
  uint64_t sequence = 0;
  int16_t last_device = -1;
  // Set by the watchdog before it takes issue_mutex to abort: a thread
  // polling an NCCL call gives up at once.
  std::atomic<bool> abort_requested{false};

  // Guards the rest.
  mutable std::mutex mutex;
  std::condition_variable wake;  // the watchdog sleeps here
  std::vector<std::shared_ptr<nccl_detail::WorkNCCL>> pending;
  std::string abort_reason;  // set once, by the first failure
  bool stopping = false;
  std::thread watchdog;

  // Raises the abort reason if the group was aborted.
  void check_usable(const char* op) const;
  // Records the first abort reason; fails every pending work with it.
  void set_aborted(const std::string& reason);

  // The communicator for key, created on first use (the caller holds
  // issue_mutex): unique id from rank `owner` of the group through the store,
  // then a non-blocking ncclCommInitRankConfig polled until the deadline.
  // On a timeout or error the communicator is aborted, the group marked
  // aborted and an ember::Error raised naming `context`.
  // `id_key` names the unique id in the store: the same on every rank of the
  // communicator whatever its device ("all/<n>" for the n-th communicator of
  // the whole group, "p2p/<low>:<high>" for a pair), while `key` (the map's)
  // names this rank's device.
  std::shared_ptr<nccl_detail::Communicator> communicator(const std::string& key, const std::string& id_key,
                                                          int16_t device, int nranks,
                                                          int comm_rank, bool is_owner,
                                                          const std::string& context, uint64_t seq,
                                                          const std::string& op, bool report_desync,
                                                          std::chrono::milliseconds timeout);
  // Polls comm until its pending NCCL call finished (the result of a call
  // that returned ncclInProgress), up to deadline; raises as communicator().
  void wait_ready(nccl_detail::Communicator& comm, ncclResult_t result, nccl_detail::Clock::time_point deadline,
                  const std::string& call, const std::string& context, uint64_t seq, const std::string& op,
                  bool report_desync);
  // Aborts every communicator (the caller holds issue_mutex).
  void abort_communicators();
  // A failure's text: message, then the desync report when asked.
  std::string with_desync(const std::string& message, uint64_t seq, const std::string& op, bool report_desync);

  void run_watchdog();
};

}  // namespace ember::distributed
