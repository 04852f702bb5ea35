// ProcessGroupNCCL's communicators: creation through the store, the polling
// of non-blocking NCCL calls, aborting, and the dtype/op mapping.
#include <cstring>
#include <sstream>

#include <ember/core/error.h>

#include "process_group_nccl_internal.h"

namespace ember::distributed {
namespace nccl_detail {

namespace {
const char* result_name(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "unknown ncclResult_t";
  }
}
}  // namespace

std::string result_text(ncclResult_t result, ncclComm_t comm) {
  std::string text = std::string(result_name(result)) + ": " + ncclGetErrorString(result);
  if (comm != nullptr) {
    const char* last = ncclGetLastError(comm);
    if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  }
  return text;
}

std::optional<ReduceType> reduce_type(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8: return ReduceType{ncclUint8, 1};
    case DType::Int8: return ReduceType{ncclInt8, 1};
    case DType::Int32: return ReduceType{ncclInt32, 1};
    case DType::Int64: return ReduceType{ncclInt64, 1};
    case DType::Float16: return ReduceType{ncclFloat16, 1};
    case DType::BFloat16: return ReduceType{ncclBfloat16, 1};
    case DType::Float32: return ReduceType{ncclFloat32, 1};
    case DType::Float64: return ReduceType{ncclFloat64, 1};
    case DType::Complex64: return ReduceType{ncclFloat32, 2};
    case DType::Complex128: return ReduceType{ncclFloat64, 2};
    default: return std::nullopt;  // int16: NCCL has no 16-bit integer type
  }
}

ncclRedOp_t reduce_op(ReduceOp op, DType dtype, const char* name) {
  EMBER_CHECK(reduce_type(dtype).has_value(), "ProcessGroupNCCL::", name, ": NCCL cannot reduce dtype ", dtype,
              " (bool, uint8, int8, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)");
  EMBER_CHECK(op != ReduceOp::BAND && op != ReduceOp::BOR && op != ReduceOp::BXOR, "ProcessGroupNCCL::", name,
              ": ReduceOp ", reduce_op_name(op), " is not supported by the nccl backend (as PyTorch's)");
  const bool complex = is_complex(dtype);
  EMBER_CHECK(!complex || op == ReduceOp::SUM || op == ReduceOp::AVG, "ProcessGroupNCCL::", name, ": ReduceOp ",
              reduce_op_name(op), " does not apply to ", dtype, " (complex tensors reduce with SUM and AVG only)");
  if (dtype == DType::Bool) {
    EMBER_CHECK(op != ReduceOp::AVG, "ProcessGroupNCCL::", name, ": ReduceOp AVG does not apply to bool");
    // Logical or / and on 0/1 bytes, as PyTorch's nccl backend.
    return op == ReduceOp::SUM || op == ReduceOp::MAX ? ncclMax : ncclMin;
  }
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
    case ReduceOp::AVG: return ncclAvg;  // integers: the truncated quotient
    default: EMBER_FAIL("ProcessGroupNCCL::", name, ": invalid ReduceOp ", static_cast<int>(op));
  }
}

}  // namespace nccl_detail

using nccl_detail::Clock;
using nccl_detail::Communicator;

namespace {
// How long a failure waits for this rank's own desync entry to reach the
// store before reading the others' (as ProcessGroupGloo).
constexpr std::chrono::milliseconds kDesyncFlushTimeout{5'000};
}  // namespace

void ProcessGroupNCCL::State::check_usable(const char* op) const {
  std::lock_guard<std::mutex> lock(mutex);
  EMBER_CHECK(abort_reason.empty(), "ProcessGroupNCCL::", op, ": rank ", rank, " of ", size,
              ": the group was aborted and cannot be used any more (destroy it and create a new one). It failed "
              "with: ",
              abort_reason);
}

void ProcessGroupNCCL::State::set_aborted(const std::string& reason) {
  std::vector<std::shared_ptr<nccl_detail::WorkNCCL>> failed;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (abort_reason.empty()) abort_reason = reason;
    failed.swap(pending);
  }
  for (auto& work : failed)
    work->finish_once(std::make_exception_ptr(
        Error("ProcessGroupNCCL: " + work->description + " was aborted with its group: " + reason)));
  wake.notify_all();
}

std::string ProcessGroupNCCL::State::with_desync(const std::string& message, uint64_t seq, const std::string& op,
                                                 bool report_desync) {
  if (!report_desync) return message;
  std::string text = message + " ";
  const std::string unwritten = recorder->flush(kDesyncFlushTimeout);
  text += gloo_detail::desync_report(*watchdog_store, rank, size, seq, op);
  if (!unwritten.empty()) text += " (rank " + std::to_string(rank) + "'s own desync entries: " + unwritten + ")";
  return text;
}

// Note [NCCL issue lock]: every NCCL call of the group (init, collectives,
// group start/end, polling, abort, destroy) happens under issue_mutex, so
// that the watchdog never aborts (and frees) a communicator another thread
// is calling into. A thread polling a non-blocking call checks
// abort_requested, which the watchdog sets before it takes the lock, and
// gives up at once; the watchdog then aborts every communicator.
void ProcessGroupNCCL::State::abort_communicators() {
  for (auto& [key, comm] : comms) {
    if (comm->aborted || comm->comm == nullptr) continue;
    comm->aborted = true;
    ncclCommAbort(comm->comm);  // its result does not matter: the group is finished
  }
}

void ProcessGroupNCCL::State::wait_ready(Communicator& comm, ncclResult_t result, Clock::time_point deadline,
                                         const std::string& call, const std::string& context, uint64_t seq,
                                         const std::string& op, bool report_desync) {
  const auto start = Clock::now();
  int polls = 0;
  while (result == ncclInProgress) {
    if (abort_requested.load()) {
      EMBER_FAIL("ProcessGroupNCCL: rank ", rank, " of ", size, ": ", call, " for ", context,
                 " was interrupted: the watchdog is aborting the group");
    }
    if (Clock::now() >= deadline) break;
    // Spin briefly (a collective's enqueue usually completes within
    // microseconds), then poll every millisecond.
    if (++polls > 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    else std::this_thread::yield();
    if (const ncclResult_t query = ncclCommGetAsyncError(comm.comm, &result); query != ncclSuccess) {
      result = query;
      break;
    }
  }
  if (result == ncclSuccess) return;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  std::ostringstream message;
  message << "ProcessGroupNCCL: rank " << rank << " of " << size << ": " << call << " for " << context;
  if (result == ncclInProgress) {
    message << " did not complete before its timeout (waited " << ms
            << " ms); the group's NCCL communicators were aborted.";
  } else {
    message << " failed after " << ms << " ms: " << nccl_detail::result_text(result, comm.comm)
            << "; the group's NCCL communicators were aborted.";
  }
  const std::string text = with_desync(message.str(), seq, op, report_desync);
  abort_communicators();
  set_aborted(text);
  EMBER_FAIL(text);
}

std::shared_ptr<Communicator> ProcessGroupNCCL::State::communicator(const std::string& key, const std::string& id_key,
                                                                   int16_t device, int nranks,
                                                                   int comm_rank, bool is_owner,
                                                                   const std::string& context, uint64_t seq,
                                                                   const std::string& op, bool report_desync,
                                                                   std::chrono::milliseconds init_timeout) {
  if (auto it = comms.find(key); it != comms.end()) return it->second;
  const auto deadline = Clock::now() + init_timeout;
  auto fail = [&](const std::string& what) {
    const std::string text = with_desync("ProcessGroupNCCL: rank " + std::to_string(rank) + " of " +
                                             std::to_string(size) + ": creating the NCCL communicator " + key +
                                             " for " + context + " " + what,
                                         seq, op, report_desync);
    abort_communicators();
    set_aborted(text);
    EMBER_FAIL(text);
  };
  // As c10d: the communicator's first rank makes the unique id (which also
  // starts NCCL's bootstrap root there) and publishes it; the others wait.
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  const std::string store_key = "ember_nccl_unique_id/" + id_key;
  if (is_owner) {
    const ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) fail("failed in ncclGetUniqueId: " + nccl_detail::result_text(r));
    store->set(store_key, std::string(reinterpret_cast<const char*>(&id), sizeof id));
  } else {
    std::string value;
    try {
      store->wait({store_key}, init_timeout);
      value = store->get(store_key);
    } catch (const std::exception& e) {
      fail(std::string("timed out: the communicator's first rank did not publish its NCCL unique id within ") +
           std::to_string(init_timeout.count()) + " ms (" + e.what() + ").");
    }
    if (value.size() != sizeof id)
      fail("failed: the NCCL unique id in the store holds " + std::to_string(value.size()) + " bytes, expected " +
           std::to_string(sizeof id));
    std::memcpy(&id, value.data(), sizeof id);
  }
  auto comm = std::make_shared<Communicator>();
  comm->key = key;
  comm->device = device;
  comm->nranks = nranks;
  comm->rank = comm_rank;
  cuda::CUDAGuard guard(device);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // so that the init itself can time out
  const ncclResult_t r = ncclCommInitRankConfig(&comm->comm, nranks, id, comm_rank, &config);
  if (comm->comm != nullptr) comms[key] = comm;  // aborted with the others on a failure
  if (r != ncclSuccess && r != ncclInProgress)
    fail("failed in ncclCommInitRankConfig: " + nccl_detail::result_text(r, comm->comm) + ".");
  wait_ready(*comm, r, deadline, "creating the NCCL communicator " + key + " (ncclCommInitRankConfig)", context, seq,
             op, report_desync);
  comm->stream = cuda::stream_from_pool(/*high_priority=*/false, device);
  return comm;
}

}  // namespace ember::distributed
