// ProcessGroupNCCL: construction, the path every collective takes (Note
// [NCCL collective]) and the collectives.
#include <ember/distributed/process_group_nccl.h>

#include <ember/distributed/init.h>

#include <algorithm>
#include <sstream>

#include <ember/core/error.h>
#include <ember/cuda/memory.h>
#include <ember/cuda/runtime.h>
#include <ember/ops/factories.h>

#include "process_group_nccl_internal.h"

namespace ember::distributed {

using nccl_detail::Clock;
using nccl_detail::Communicator;

namespace {

constexpr int64_t kMaxTag = (int64_t{1} << 32) - 1;
// How long the destructor lets a communicator finalize before aborting it.
constexpr std::chrono::seconds kFinalizeTimeout{10};

std::string describe(const Tensor& t) {
  std::ostringstream ss;
  ss << "tensor " << t.sizes() << " " << t.dtype();
  return ss.str();
}

std::string describe_list(const std::vector<Tensor>& tensors) {
  std::ostringstream ss;
  ss << tensors.size() << " tensors";
  if (!tensors.empty() && tensors.front().defined()) ss << " like " << describe(tensors.front());
  return ss.str();
}

struct Named {
  std::string name;
  const Tensor* tensor;
};

// The one CUDA device of tensors, or an ember::Error naming op and the
// tensor at fault: every tensor defined, all on one device (checked before
// the device type, so that a mix of devices is named as such), a CUDA device,
// contiguous (as PyTorch's nccl backend), without a lazy conjugate/negative bit.
int16_t device_of(const char* op, const std::vector<Named>& tensors) {
  EMBER_CHECK(!tensors.empty(), "ProcessGroupNCCL::", op, ": no tensors");
  for (const Named& n : tensors)
    EMBER_CHECK(n.tensor->defined(), "ProcessGroupNCCL::", op, ": ", n.name, " is undefined");
  const Device device = tensors.front().tensor->device();
  for (const Named& n : tensors)
    EMBER_CHECK(n.tensor->device() == device, "ProcessGroupNCCL::", op,
                ": every tensor must be on one device, but ", tensors.front().name, " is on ", device, " and ",
                n.name, " on ", n.tensor->device());
  EMBER_CHECK(device.is_cuda(), "ProcessGroupNCCL::", op, ": the nccl backend works on CUDA tensors, got ",
              tensors.front().name, " on ", device);
  for (const Named& n : tensors) {
    EMBER_CHECK(n.tensor->is_contiguous(), "ProcessGroupNCCL::", op, ": ", n.name, " (", describe(*n.tensor),
                ") is not contiguous (the nccl backend needs contiguous tensors, as PyTorch's)");
    EMBER_CHECK(!n.tensor->is_conj() && !n.tensor->is_neg(), "ProcessGroupNCCL::", op, ": ", n.name,
                " is a conjugate or negative view; resolve it first (resolve_conj() / resolve_neg())");
  }
  return device.index >= 0 ? device.index : cuda::current_device();
}

std::vector<Named> named_list(const std::vector<Tensor>& tensors, const std::string& name) {
  std::vector<Named> named;
  for (size_t i = 0; i < tensors.size(); ++i) named.push_back({name + "[" + std::to_string(i) + "]", &tensors[i]});
  return named;
}

void check_root(int64_t root, int64_t size, const char* op) {
  EMBER_CHECK(root >= 0 && root < size, "ProcessGroupNCCL::", op, ": root rank ", root, " is outside [0, ", size, ")");
}

// tensors: `count` tensors of like's dtype and element count.
void check_list(const std::vector<Tensor>& tensors, size_t count, const Tensor& like, const char* op,
                const char* what) {
  EMBER_CHECK(tensors.size() == count, "ProcessGroupNCCL::", op, ": ", what, " holds ", tensors.size(),
              " tensors, expected ", count);
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined() && tensors[i].dtype() == like.dtype() && tensors[i].numel() == like.numel(),
                "ProcessGroupNCCL::", op, ": ", what, "[", i, "] is ",
                tensors[i].defined() ? describe(tensors[i]) : std::string("undefined"), ", expected ", like.numel(),
                " elements of ", like.dtype());
}

// The raw address of a contiguous CUDA tensor (never read on the host:
// Note [Host access]).
void* address(const Tensor& t) { return t.impl()->data(); }

size_t bytes(const Tensor& t) { return static_cast<size_t>(t.nbytes()); }

// Calls fn between ncclGroupStart and ncclGroupEnd; the first failure wins.
ncclResult_t grouped(const std::function<ncclResult_t()>& fn) {
  ncclResult_t result = ncclGroupStart();
  if (result != ncclSuccess) return result;
  const ncclResult_t body = fn();
  const ncclResult_t end = ncclGroupEnd();  // always, so that the group depth is restored
  return body != ncclSuccess && body != ncclInProgress ? body : end;
}

// Stops at the first failed call of a sequence (ncclInProgress is no failure
// inside a group: the calls only queue).
#define EMBER_NCCL_TRY(call)                                                        \
  do {                                                                              \
    const ncclResult_t nccl_try_result = (call);                                    \
    if (nccl_try_result != ncclSuccess && nccl_try_result != ncclInProgress) return nccl_try_result; \
  } while (0)

// A flat CUDA buffer on `device` holding tensors one after another (copies
// queued on the current stream: the NCCL stream).
Tensor flat_concat(const std::vector<Tensor>& tensors, DType dtype, int16_t device) {
  int64_t n = 0;
  for (const Tensor& t : tensors) n += t.numel();
  Tensor flat = ember::empty({n}, TensorOptions(dtype).device(Device(DeviceType::CUDA, device)));
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (t.numel() > 0) flat.narrow(0, at, t.numel()).copy_(t.reshape({t.numel()}));
    at += t.numel();
  }
  return flat;
}

// outputs[i] = the i-th slice of flat (each outputs[i].numel() long).
void copy_slices(const Tensor& flat, const std::vector<Tensor>& outputs) {
  int64_t at = 0;
  for (const Tensor& t : outputs) {
    Tensor out = t;
    if (t.numel() > 0) out.copy_(flat.narrow(0, at, t.numel()).reshape(t.sizes()));
    at += t.numel();
  }
}

}  // namespace

// Note [NCCL collective]: what every call does, as PyTorch's
// ProcessGroupNCCL::collective(): on the caller's thread, under the issue
// lock (Note [NCCL issue lock]), it takes the next sequence number and
// records it for the desync report, gets the communicator of the device
// (creating it on first use), makes the NCCL stream wait for the caller's
// current stream (an event), marks the inputs
// and outputs as used by the NCCL stream (record_stream: the caching
// allocator does not hand their memory to another stream's work before the
// collective is done), and with the NCCL stream current queues the copies
// into scratch buffers (`pre`), the NCCL calls (polled while they return
// ncclInProgress: before that the kernels are not on the stream yet), the
// copies out (`post`) and the end event. The Work then goes to the watchdog
// (Note [NCCL watchdog]), which keeps it, and so its tensors, until the end
// event is done.
namespace {

struct NCCLPlan {
  std::string op;
  std::string what;  // the arguments, for errors and the desync report
  int16_t device = 0;
  std::vector<Tensor> inputs, outputs;  // outputs: the Work's result()
  std::optional<std::chrono::milliseconds> timeout;
  bool blocking = false;  // barrier
  int64_t peer = -1;      // send/recv: the other rank (a two-rank communicator)
  std::function<void(std::vector<Tensor>& keep)> pre;
  std::function<ncclResult_t(Communicator& comm, cudaStream_t stream)> nccl;
  std::function<void()> post;
};

std::shared_ptr<Work> issue(ProcessGroupNCCL::State& s, NCCLPlan plan) {
  std::lock_guard<std::mutex> issue_lock(s.issue_mutex);
  s.check_usable(plan.op.c_str());
  const bool p2p = plan.peer >= 0;
  const uint64_t seq = p2p ? 0 : s.sequence++;
  const std::chrono::milliseconds timeout = plan.timeout.value_or(s.timeout);
  EMBER_CHECK(timeout.count() > 0, "ProcessGroupNCCL::", plan.op, ": the timeout must be positive, got ",
              timeout.count(), " ms");
  if (!p2p) s.recorder->record(seq, plan.op, plan.what);
  const std::string device_name = "cuda:" + std::to_string(plan.device);
  std::ostringstream description;
  description << plan.op << " " << plan.what << " on " << device_name;
  if (p2p)
    description << " (point to point)";
  else
    description << " (sequence number " << seq << ")";
  const std::string context = description.str();

  std::shared_ptr<Communicator> comm;
  if (p2p) {
    const int64_t low = std::min(s.rank, plan.peer), high = std::max(s.rank, plan.peer);
    const std::string pair = std::to_string(low) + ":" + std::to_string(high);
    comm = s.communicator(device_name + "/p2p/" + pair, "p2p/" + pair, plan.device, 2, s.rank == low ? 0 : 1,
                          s.rank == low, context, seq, plan.op, false, s.timeout);
  } else {
    // As c10d's counter: the n-th communicator of the whole group has the
    // same id key on every rank, whichever device each rank uses.
    const bool exists = s.comms.count(device_name) > 0;
    comm = s.communicator(device_name, "all/" + std::to_string(s.group_comms_made), plan.device,
                          static_cast<int>(s.size), static_cast<int>(s.rank), s.rank == 0, context, seq, plan.op,
                          true, s.timeout);
    if (!exists) ++s.group_comms_made;
  }
  s.last_device = plan.device;

  cuda::CUDAGuard device_guard(plan.device);
  const cuda::CUDAStream caller = cuda::current_stream(plan.device);
  const cuda::CUDAStream nccl_stream = *comm->stream;
  {
    cuda::CUDAEvent ready;
    ready.record(caller);
    ready.block(nccl_stream);
  }
  auto work = std::make_shared<nccl_detail::WorkNCCL>(plan.op, seq, plan.outputs, plan.device, timeout, context,
                                                      plan.blocking);
  work->comm = comm;
  for (const std::vector<Tensor>* list : {&plan.inputs, &plan.outputs}) {
    for (const Tensor& t : *list) {
      // Memory the caching allocator did not hand out (from_blob) is the caller's to keep alive.
      if (t.numel() > 0 && t.storage()->allocator() != nullptr) cuda::record_stream(t, nccl_stream);
      work->keep_alive.push_back(t);
    }
  }
  {
    cuda::CUDAStreamGuard on_nccl_stream(nccl_stream);
    if (plan.pre) plan.pre(work->keep_alive);
    const auto deadline = Clock::now() + timeout;
    const ncclResult_t result = plan.nccl(*comm, static_cast<cudaStream_t>(nccl_stream.handle()));
    s.wait_ready(*comm, result, deadline, plan.op + " (NCCL)", context, seq, plan.op, !p2p);
    if (plan.post) plan.post();
    work->end.record(nccl_stream);
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.pending.push_back(work);
  }
  return work;
}

}  // namespace

namespace detail {
bool register_nccl_backend() {
  static const bool registered = [] {
    register_backend("nccl", [](std::shared_ptr<Store> store, int64_t rank, int64_t size,
                                std::chrono::milliseconds timeout) -> std::shared_ptr<ProcessGroup> {
      return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, ProcessGroupNCCLOptions{.timeout = timeout});
    });
    return true;
  }();
  return registered;
}
}  // namespace detail

namespace {
// Also when no translation unit of the program includes the header.
[[maybe_unused]] const bool nccl_backend_registered_here = detail::register_nccl_backend();
}  // namespace

int ProcessGroupNCCL::nccl_version() {
  int version = 0;
  ncclGetVersion(&version);
  return version;
}

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int64_t rank, int64_t size,
                                   const ProcessGroupNCCLOptions& options)
    : ProcessGroup(rank, size), state_(std::make_shared<State>()), timeout_(options.timeout) {
  EMBER_CHECK(store != nullptr, "ProcessGroupNCCL: the store is null");
  EMBER_CHECK(options.timeout.count() > 0, "ProcessGroupNCCL: the timeout must be positive, got ",
              options.timeout.count(), " ms");
  EMBER_CHECK(options.watchdog_interval.count() > 0, "ProcessGroupNCCL: the watchdog interval must be positive, got ",
              options.watchdog_interval.count(), " ms");
  State& s = *state_;
  s.rank = rank;
  s.size = size;
  s.store = store;
  s.timeout = options.timeout;
  s.watchdog_interval = options.watchdog_interval;
  try {
    s.watchdog_store = store->clone();
  } catch (const std::exception&) {
    s.watchdog_store = store;  // a Store without clone(): shared
  }
  s.recorder = std::make_unique<gloo_detail::DesyncRecorder>(store, rank);
  s.watchdog = std::thread([&s] { s.run_watchdog(); });
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
  }
  s.wake.notify_all();
  if (s.watchdog.joinable()) s.watchdog.join();  // once every pending work finished or failed
  std::lock_guard<std::mutex> issue_lock(s.issue_mutex);
  for (auto& [key, comm] : s.comms) {
    if (comm->aborted || comm->comm == nullptr) continue;
    try {
      cuda::CUDAGuard guard(comm->device);
      // Non-blocking: finalize, poll, destroy; abort what does not finish.
      ncclResult_t result = ncclCommFinalize(comm->comm);
      const auto deadline = Clock::now() + kFinalizeTimeout;
      while (result == ncclInProgress && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (ncclCommGetAsyncError(comm->comm, &result) != ncclSuccess) break;
      }
      if (result == ncclSuccess)
        ncclCommDestroy(comm->comm);
      else
        ncclCommAbort(comm->comm);
    } catch (const std::exception&) {
      ncclCommAbort(comm->comm);
    }
    comm->aborted = true;
  }
}

std::string ProcessGroupNCCL::abort_reason() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->abort_reason;
}

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(Tensor& tensor, const BroadcastOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("broadcast", {{"tensor", &tensor}});
  check_root(options.root_rank, size(), "broadcast");
  const int root = static_cast<int>(options.root_rank);
  plan.op = "broadcast";
  plan.what = "(root " + std::to_string(root) + ", " + describe(tensor) + ")";
  plan.outputs = {tensor};
  plan.timeout = options.timeout;
  Tensor t = tensor;
  plan.nccl = [t, root](Communicator& c, cudaStream_t stream) {
    if (bytes(t) == 0) return ncclSuccess;
    return ncclBroadcast(address(t), address(t), bytes(t), ncclUint8, root, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_reduce(Tensor& tensor, const AllreduceOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("all_reduce", {{"tensor", &tensor}});
  const ncclRedOp_t op = nccl_detail::reduce_op(options.reduce_op, tensor.dtype(), "all_reduce");
  const nccl_detail::ReduceType type = *nccl_detail::reduce_type(tensor.dtype());
  plan.op = "all_reduce";
  plan.what = std::string("(") + reduce_op_name(options.reduce_op) + ", " + describe(tensor) + ")";
  plan.outputs = {tensor};
  plan.timeout = options.timeout;
  Tensor t = tensor;
  plan.nccl = [t, op, type](Communicator& c, cudaStream_t stream) {
    const size_t count = static_cast<size_t>(t.numel() * type.per_element);
    if (count == 0) return ncclSuccess;
    return ncclAllReduce(address(t), address(t), count, type.type, op, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_reduce_coalesced(std::vector<Tensor>& tensors,
                                                             const AllreduceOptions& options) {
  EMBER_CHECK(!tensors.empty(), "ProcessGroupNCCL::all_reduce_coalesced: no tensors");
  NCCLPlan plan;
  plan.device = device_of("all_reduce_coalesced", named_list(tensors, "tensors"));
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), "ProcessGroupNCCL::all_reduce_coalesced: tensors[", i,
                "] is ", describe(tensors[i]), ", but tensors[0] is ", tensors[0].dtype());
  const ncclRedOp_t op = nccl_detail::reduce_op(options.reduce_op, tensors[0].dtype(), "all_reduce_coalesced");
  const nccl_detail::ReduceType type = *nccl_detail::reduce_type(tensors[0].dtype());
  plan.op = "all_reduce_coalesced";
  plan.what = std::string("(") + reduce_op_name(options.reduce_op) + ", " + describe_list(tensors) + ")";
  plan.outputs = tensors;
  plan.timeout = options.timeout;
  std::vector<Tensor> ts = tensors;
  plan.nccl = [ts, op, type](Communicator& c, cudaStream_t stream) {
    return grouped([&] {
      for (const Tensor& t : ts) {
        const size_t count = static_cast<size_t>(t.numel() * type.per_element);
        if (count > 0) EMBER_NCCL_TRY(ncclAllReduce(address(t), address(t), count, type.type, op, c.comm, stream));
      }
      return ncclSuccess;
    });
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions& options) {
  int16_t device = 0;
  {
    std::lock_guard<std::mutex> lock(state_->issue_mutex);
    device = state_->last_device;
  }
  if (device < 0) {
    const int count = cuda::device_count();
    EMBER_CHECK(count > 0, "ProcessGroupNCCL::barrier: no CUDA device is available");
    device = static_cast<int16_t>(rank() % count);  // PyTorch's guess: one GPU per rank
  }
  Tensor flag = ember::zeros({1}, TensorOptions(kFloat32).device(Device(DeviceType::CUDA, device)));
  NCCLPlan plan;
  plan.device = device;
  plan.op = "barrier";
  plan.what = "(an all_reduce of one element)";
  plan.inputs = {flag};
  plan.timeout = options.timeout;
  plan.blocking = true;
  plan.nccl = [flag](Communicator& c, cudaStream_t stream) {
    return ncclAllReduce(address(flag), address(flag), 1, ncclFloat32, ncclSum, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

void ProcessGroupNCCL::monitored_barrier(std::chrono::milliseconds, bool) {
  EMBER_FAIL("ProcessGroupNCCL::monitored_barrier: not supported by the nccl backend (as PyTorch's): use a gloo "
             "group (new_group) for it");
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce(Tensor& tensor, const ReduceOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("reduce", {{"tensor", &tensor}});
  check_root(options.root_rank, size(), "reduce");
  const ncclRedOp_t op = nccl_detail::reduce_op(options.reduce_op, tensor.dtype(), "reduce");
  const nccl_detail::ReduceType type = *nccl_detail::reduce_type(tensor.dtype());
  const int root = static_cast<int>(options.root_rank);
  plan.op = "reduce";
  plan.what = std::string("(") + reduce_op_name(options.reduce_op) + ", root " + std::to_string(root) + ", " +
              describe(tensor) + ")";
  plan.outputs = {tensor};
  plan.timeout = options.timeout;
  Tensor t = tensor;
  // recvbuff is only written on the root: the others keep their tensor.
  plan.nccl = [t, op, type, root](Communicator& c, cudaStream_t stream) {
    const size_t count = static_cast<size_t>(t.numel() * type.per_element);
    if (count == 0) return ncclSuccess;
    return ncclReduce(address(t), address(t), count, type.type, op, root, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_gather_into_tensor(Tensor& output, const Tensor& input,
                                                               const CollectiveOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("all_gather_into_tensor", {{"input", &input}, {"output", &output}});
  EMBER_CHECK(output.dtype() == input.dtype() && output.numel() == size() * input.numel(),
              "ProcessGroupNCCL::all_gather_into_tensor: the output ", describe(output), " must hold ", size(), " x ",
              input.numel(), " elements of ", input.dtype(), " (the input is ", describe(input), ")");
  plan.op = "all_gather_into_tensor";
  plan.what = "(" + describe(input) + ")";
  plan.inputs = {input};
  plan.outputs = {output};
  plan.timeout = options.timeout;
  Tensor in = input, out = output;
  plan.nccl = [in, out](Communicator& c, cudaStream_t stream) {
    if (bytes(in) == 0) return ncclSuccess;
    return ncclAllGather(address(in), address(out), bytes(in), ncclUint8, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_gather(std::vector<Tensor>& outputs, const Tensor& input,
                                                   const CollectiveOptions& options) {
  check_list(outputs, static_cast<size_t>(size()), input, "all_gather", "outputs");
  std::vector<Named> named = named_list(outputs, "outputs");
  named.insert(named.begin(), {"input", &input});
  NCCLPlan plan;
  plan.device = device_of("all_gather", named);
  plan.op = "all_gather";
  plan.what = "(" + describe(input) + ")";
  plan.inputs = {input};
  plan.outputs = outputs;
  plan.timeout = options.timeout;
  // Through one flat buffer (as PyTorch's): gathered, then copied out.
  auto flat = std::make_shared<Tensor>();
  const int16_t device = plan.device;
  const int64_t n = size() * input.numel();
  const DType dtype = input.dtype();
  plan.pre = [flat, device, n, dtype](std::vector<Tensor>& keep) {
    *flat = ember::empty({n}, TensorOptions(dtype).device(Device(DeviceType::CUDA, device)));
    keep.push_back(*flat);
  };
  Tensor in = input;
  plan.nccl = [in, flat](Communicator& c, cudaStream_t stream) {
    if (bytes(in) == 0) return ncclSuccess;
    return ncclAllGather(address(in), address(*flat), bytes(in), ncclUint8, c.comm, stream);
  };
  std::vector<Tensor> outs = outputs;
  plan.post = [flat, outs] { copy_slices(*flat, outs); };
  return issue(*state_, std::move(plan));
}

// Note [NCCL gather, scatter and all_to_all]: NCCL has no gather, scatter or
// all-to-all: as PyTorch, they are point-to-point transfers on the group's
// communicator fused in one ncclGroupStart/End (the root, or every rank,
// sends and receives all at once; a rank's transfer to itself is a send and
// a recv too, which NCCL allows). Transfers of zero bytes are left out on
// both ends.
std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<Tensor>& outputs, const Tensor& input,
                                               const CollectiveOptions& options) {
  check_root(options.root_rank, size(), "gather");
  const bool is_root = options.root_rank == rank();
  check_list(outputs, is_root ? static_cast<size_t>(size()) : 0, input, "gather",
             is_root ? "outputs (on the root)" : "outputs (on a rank other than the root)");
  std::vector<Named> named = named_list(outputs, "outputs");
  named.insert(named.begin(), {"input", &input});
  NCCLPlan plan;
  plan.device = device_of("gather", named);
  const int root = static_cast<int>(options.root_rank);
  plan.op = "gather";
  plan.what = "(root " + std::to_string(root) + ", " + describe(input) + ")";
  plan.inputs = {input};
  plan.outputs = outputs;
  plan.timeout = options.timeout;
  Tensor in = input;
  std::vector<Tensor> outs = outputs;
  const int group_size = static_cast<int>(size());
  plan.nccl = [in, outs, root, is_root, group_size](Communicator& c, cudaStream_t stream) {
    if (bytes(in) == 0) return ncclSuccess;
    return grouped([&] {
      if (is_root) {
        for (int r = 0; r < group_size; ++r)
          EMBER_NCCL_TRY(ncclRecv(address(outs[static_cast<size_t>(r)]), bytes(in), ncclUint8, r, c.comm, stream));
      }
      EMBER_NCCL_TRY(ncclSend(address(in), bytes(in), ncclUint8, root, c.comm, stream));
      return ncclSuccess;
    });
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                const CollectiveOptions& options) {
  check_root(options.root_rank, size(), "scatter");
  const bool is_root = options.root_rank == rank();
  check_list(inputs, is_root ? static_cast<size_t>(size()) : 0, output, "scatter",
             is_root ? "inputs (on the root)" : "inputs (on a rank other than the root)");
  std::vector<Named> named = named_list(inputs, "inputs");
  named.insert(named.begin(), {"output", &output});
  NCCLPlan plan;
  plan.device = device_of("scatter", named);
  const int root = static_cast<int>(options.root_rank);
  plan.op = "scatter";
  plan.what = "(root " + std::to_string(root) + ", " + describe(output) + ")";
  plan.inputs = inputs;
  plan.outputs = {output};
  plan.timeout = options.timeout;
  Tensor out = output;
  std::vector<Tensor> ins = inputs;
  const int group_size = static_cast<int>(size());
  plan.nccl = [out, ins, root, is_root, group_size](Communicator& c, cudaStream_t stream) {
    if (bytes(out) == 0) return ncclSuccess;
    return grouped([&] {
      if (is_root) {
        for (int r = 0; r < group_size; ++r)
          EMBER_NCCL_TRY(ncclSend(address(ins[static_cast<size_t>(r)]), bytes(out), ncclUint8, r, c.comm, stream));
      }
      EMBER_NCCL_TRY(ncclRecv(address(out), bytes(out), ncclUint8, root, c.comm, stream));
      return ncclSuccess;
    });
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                       const ReduceScatterOptions& options) {
  check_list(inputs, static_cast<size_t>(size()), output, "reduce_scatter", "inputs");
  std::vector<Named> named = named_list(inputs, "inputs");
  named.insert(named.begin(), {"output", &output});
  NCCLPlan plan;
  plan.device = device_of("reduce_scatter", named);
  const ncclRedOp_t op = nccl_detail::reduce_op(options.reduce_op, output.dtype(), "reduce_scatter");
  const nccl_detail::ReduceType type = *nccl_detail::reduce_type(output.dtype());
  plan.op = "reduce_scatter";
  plan.what = std::string("(") + reduce_op_name(options.reduce_op) + ", " + describe(output) + ")";
  plan.inputs = inputs;
  plan.outputs = {output};
  plan.timeout = options.timeout;
  // The inputs concatenated (on the NCCL stream), then ncclReduceScatter.
  auto flat = std::make_shared<Tensor>();
  const int16_t device = plan.device;
  std::vector<Tensor> ins = inputs;
  const DType dtype = output.dtype();
  plan.pre = [flat, ins, dtype, device](std::vector<Tensor>& keep) {
    *flat = flat_concat(ins, dtype, device);
    keep.push_back(*flat);
  };
  Tensor out = output;
  plan.nccl = [flat, out, op, type](Communicator& c, cudaStream_t stream) {
    const size_t count = static_cast<size_t>(out.numel() * type.per_element);
    if (count == 0) return ncclSuccess;
    return ncclReduceScatter(address(*flat), address(out), count, type.type, op, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_to_all_single(Tensor& output, const Tensor& input,
                                                          const std::vector<int64_t>& output_splits,
                                                          const std::vector<int64_t>& input_splits,
                                                          const CollectiveOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("all_to_all_single", {{"input", &input}, {"output", &output}});
  EMBER_CHECK(input.dim() >= 1 && output.dim() >= 1 && input.dtype() == output.dtype(),
              "ProcessGroupNCCL::all_to_all_single: input ", describe(input), " and output ", describe(output),
              " must have a dim 0 and one dtype");
  const int64_t in_row = input.size(0) == 0 ? 0 : input.numel() / input.size(0);
  const int64_t out_row = output.size(0) == 0 ? 0 : output.numel() / output.size(0);
  EMBER_CHECK(input.size(0) == 0 || output.size(0) == 0 || in_row == out_row,
              "ProcessGroupNCCL::all_to_all_single: the rows of input ", describe(input), " and output ",
              describe(output), " differ in size");
  const int64_t row_bytes = std::max(in_row, out_row) * static_cast<int64_t>(input.element_size());
  // Bytes per rank.
  auto counts = [&](const std::vector<int64_t>& splits, const Tensor& t, const char* what) {
    std::vector<size_t> result;
    if (splits.empty()) {
      EMBER_CHECK(t.size(0) % size() == 0, "ProcessGroupNCCL::all_to_all_single: ", what, " ", describe(t), " has ",
                  t.size(0), " rows, not divisible by the group size ", size(), " (give split sizes)");
      result.assign(static_cast<size_t>(size()), static_cast<size_t>(t.size(0) / size() * row_bytes));
      return result;
    }
    EMBER_CHECK(static_cast<int64_t>(splits.size()) == size(), "ProcessGroupNCCL::all_to_all_single: ", what,
                " split sizes hold ", splits.size(), " values, expected ", size());
    int64_t total = 0;
    for (int64_t v : splits) {
      EMBER_CHECK(v >= 0, "ProcessGroupNCCL::all_to_all_single: ", what, " split size ", v, " is negative");
      total += v;
      result.push_back(static_cast<size_t>(v * row_bytes));
    }
    EMBER_CHECK(total == t.size(0), "ProcessGroupNCCL::all_to_all_single: ", what, " split sizes sum to ", total,
                ", but the ", what, " has ", t.size(0), " rows");
    return result;
  };
  const std::vector<size_t> send_bytes = counts(input_splits, input, "input");
  const std::vector<size_t> recv_bytes = counts(output_splits, output, "output");
  plan.op = "all_to_all_single";
  plan.what = "(" + describe(input) + " -> " + describe(output) + ")";
  plan.inputs = {input};
  plan.outputs = {output};
  plan.timeout = options.timeout;
  Tensor in = input, out = output;
  plan.nccl = [in, out, send_bytes, recv_bytes](Communicator& c, cudaStream_t stream) {
    return grouped([&] {
      size_t send_at = 0, recv_at = 0;
      for (size_t r = 0; r < send_bytes.size(); ++r) {
        if (send_bytes[r] > 0)
          EMBER_NCCL_TRY(ncclSend(static_cast<const char*>(address(in)) + send_at, send_bytes[r], ncclUint8,
                                  static_cast<int>(r), c.comm, stream));
        if (recv_bytes[r] > 0)
          EMBER_NCCL_TRY(ncclRecv(static_cast<char*>(address(out)) + recv_at, recv_bytes[r], ncclUint8,
                                  static_cast<int>(r), c.comm, stream));
        send_at += send_bytes[r];
        recv_at += recv_bytes[r];
      }
      return ncclSuccess;
    });
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                                   const CollectiveOptions& options) {
  const size_t n = static_cast<size_t>(size());
  EMBER_CHECK(inputs.size() == n && outputs.size() == n, "ProcessGroupNCCL::all_to_all: ", inputs.size(),
              " inputs and ", outputs.size(), " outputs, expected ", n, " of each");
  std::vector<Named> named = named_list(inputs, "inputs");
  for (const Named& o : named_list(outputs, "outputs")) named.push_back(o);
  NCCLPlan plan;
  plan.device = device_of("all_to_all", named);
  for (size_t i = 0; i < n; ++i)
    EMBER_CHECK(inputs[i].dtype() == inputs[0].dtype() && outputs[i].dtype() == inputs[0].dtype(),
                "ProcessGroupNCCL::all_to_all: every tensor must be ", inputs[0].dtype(), ", got inputs[", i, "] ",
                describe(inputs[i]), " and outputs[", i, "] ", describe(outputs[i]));
  plan.op = "all_to_all";
  plan.what = "(" + describe_list(inputs) + ")";
  plan.inputs = inputs;
  plan.outputs = outputs;
  plan.timeout = options.timeout;
  std::vector<Tensor> ins = inputs, outs = outputs;
  plan.nccl = [ins, outs](Communicator& c, cudaStream_t stream) {
    return grouped([&] {
      for (size_t r = 0; r < ins.size(); ++r) {
        if (bytes(ins[r]) > 0)
          EMBER_NCCL_TRY(ncclSend(address(ins[r]), bytes(ins[r]), ncclUint8, static_cast<int>(r), c.comm, stream));
        if (bytes(outs[r]) > 0)
          EMBER_NCCL_TRY(ncclRecv(address(outs[r]), bytes(outs[r]), ncclUint8, static_cast<int>(r), c.comm, stream));
      }
      return ncclSuccess;
    });
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::send(const Tensor& tensor, int64_t dst_rank, int64_t tag,
                                             const PointToPointOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("send", {{"tensor", &tensor}});
  EMBER_CHECK(dst_rank >= 0 && dst_rank < size() && dst_rank != rank(), "ProcessGroupNCCL::send: destination rank ",
              dst_rank, " must be another rank in [0, ", size(), ")");
  EMBER_CHECK(tag >= 0 && tag <= kMaxTag, "ProcessGroupNCCL::send: tag ", tag, " is outside [0, 2^32)");
  plan.op = "send";
  plan.what = "(to rank " + std::to_string(dst_rank) + ", tag " + std::to_string(tag) + ", " + describe(tensor) + ")";
  plan.inputs = {tensor};
  plan.timeout = options.timeout;
  plan.peer = dst_rank;
  Tensor t = tensor;
  plan.nccl = [t](Communicator& c, cudaStream_t stream) {
    if (bytes(t) == 0) return ncclSuccess;
    return ncclSend(address(t), bytes(t), ncclUint8, 1 - c.rank, c.comm, stream);
  };
  return issue(*state_, std::move(plan));
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(Tensor& tensor, int64_t src_rank, int64_t tag,
                                             const PointToPointOptions& options) {
  NCCLPlan plan;
  plan.device = device_of("recv", {{"tensor", &tensor}});
  EMBER_CHECK(src_rank >= 0 && src_rank < size() && src_rank != rank(), "ProcessGroupNCCL::recv: source rank ",
              src_rank, " must be another rank in [0, ", size(), ")");
  EMBER_CHECK(tag >= 0 && tag <= kMaxTag, "ProcessGroupNCCL::recv: tag ", tag, " is outside [0, 2^32)");
  plan.op = "recv";
  plan.what = "(from rank " + std::to_string(src_rank) + ", tag " + std::to_string(tag) + ", " + describe(tensor) + ")";
  plan.outputs = {tensor};
  plan.timeout = options.timeout;
  plan.peer = src_rank;
  Tensor t = tensor;
  plan.nccl = [t](Communicator& c, cudaStream_t stream) {
    if (bytes(t) == 0) return ncclSuccess;
    return ncclRecv(address(t), bytes(t), ncclUint8, 1 - c.rank, c.comm, stream);
  };
  auto work = issue(*state_, std::move(plan));
  work->set_source_rank(src_rank);
  return work;
}

std::shared_ptr<Work> ProcessGroupNCCL::recv_anysource(Tensor&, int64_t, const PointToPointOptions&) {
  EMBER_FAIL("ProcessGroupNCCL::recv_anysource: not supported by the nccl backend (as PyTorch's): NCCL receives "
             "from a named rank only");
}

}  // namespace ember::distributed
