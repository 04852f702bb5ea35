#include <ember/distributed/process_group_gloo.h>

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <ember/core/error.h>

#include "gloo_reduce.h"
#include "gloo_store.h"

namespace ember::distributed {

// Note [ProcessGroupGloo execution]: collectives run on one worker thread per
// group, in the order they were called, so that every rank issues them to
// gloo in the same order; each carries the group's sequence number, which is
// also its gloo tag. The caller's thread checks the arguments (errors raise at
// the call) and makes a non-contiguous tensor contiguous; the worker runs
// gloo and copies the result back. A failure (a gloo timeout, a peer that
// vanished) finishes the Work with an ember::Error naming the op, the rank,
// the sequence number, the tensor and the elapsed time. After such an error
// the group's connections are in an unknown state, as in PyTorch: destroy it.
namespace {

using Clock = std::chrono::steady_clock;

// True when host resolves to an address this machine can bind (c10d's check
// before using the host name for Gloo).
bool resolves_to_local_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool usable = false;
  for (addrinfo* ai = found; ai && !usable; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    usable = ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return usable;
}

std::shared_ptr<::gloo::transport::Device> create_device(const ProcessGroupGlooOptions& options) {
  ::gloo::transport::tcp::attr attr;
  std::string interface = options.interface;
  if (interface.empty() && options.hostname.empty()) {
    if (const char* env = std::getenv("GLOO_SOCKET_IFNAME")) {
      interface = env;
      interface = interface.substr(0, interface.find(','));  // the first device
    }
  }
  if (!interface.empty()) {
    // Checked here: gloo's own lookup throws for it but leaks its getifaddrs list.
    EMBER_CHECK(::if_nametoindex(interface.c_str()) != 0, "ProcessGroupGloo: cannot create a TCP device for interface ",
                interface, ": no such network interface");
    attr.iface = interface;
  } else if (!options.hostname.empty()) {
    attr.hostname = options.hostname;
  } else {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    attr.hostname = resolves_to_local_address(name) ? std::string(name) : std::string("127.0.0.1");
  }
  try {
    return ::gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    EMBER_FAIL("ProcessGroupGloo: cannot create a TCP device for ",
               interface.empty() ? "host " + attr.hostname : "interface " + interface, ": ", e.what());
  }
}

std::string describe_tensor(const Tensor& t) {
  std::ostringstream ss;
  ss << "tensor " << t.sizes() << " " << t.dtype();
  return ss.str();
}

// gloo sizes the buffer by its element type; the reduction is ours.
void set_output(::gloo::AllreduceOptions& opts, DType dtype, void* data, size_t n) {
  switch (dtype) {
    case DType::UInt8: return opts.setOutput(static_cast<uint8_t*>(data), n);
    case DType::Int8: return opts.setOutput(static_cast<int8_t*>(data), n);
    case DType::Int16: return opts.setOutput(static_cast<int16_t*>(data), n);
    case DType::Int32: return opts.setOutput(static_cast<int32_t*>(data), n);
    case DType::Int64: return opts.setOutput(static_cast<int64_t*>(data), n);
    case DType::Float32: return opts.setOutput(static_cast<float*>(data), n);
    case DType::Float64: return opts.setOutput(static_cast<double*>(data), n);
    default: EMBER_FAIL("ProcessGroupGloo::all_reduce: unsupported dtype ", dtype);
  }
}

void check_tensor(const Tensor& tensor, const char* op) {
  EMBER_CHECK(tensor.defined(), "ProcessGroupGloo::", op, ": the tensor is undefined");
  EMBER_CHECK(tensor.is_cpu(), "ProcessGroupGloo::", op, ": the gloo backend works on CPU tensors, got a tensor on ",
              tensor.device());
}

}  // namespace

struct ProcessGroupGloo::State {
  int64_t rank = 0, size = 0;
  // Kept for the group's lifetime, as c10d: a FileStore's file must outlive
  // the rendezvous of the slowest rank.
  std::shared_ptr<Store> store;
  std::shared_ptr<::gloo::transport::Device> device;
  std::shared_ptr<::gloo::rendezvous::Context> context;

  std::mutex mutex;
  std::condition_variable queued;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  uint64_t sequence = 0;
  std::thread worker;

  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        queued.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and everything queued is done
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }

  // Queues body(tag) as collective `op`; `what` describes its arguments for
  // errors. `tensor` (may be undefined) is the caller's tensor and `work_tensor`
  // its contiguous stand-in, copied back after a successful body.
  std::shared_ptr<Work> enqueue(const std::string& op, const std::string& what, Tensor tensor, Tensor work_tensor,
                                std::function<void(uint32_t tag)> body) {
    std::lock_guard<std::mutex> lock(mutex);
    const uint64_t seq = sequence++;
    std::vector<Tensor> outputs;
    if (tensor.defined()) outputs.push_back(tensor);
    auto work = std::make_shared<Work>(op, seq, std::move(outputs));
    queue.push_back([this, work, op, what, seq, tensor, work_tensor, body = std::move(body)]() mutable {
      const auto start = Clock::now();
      try {
        body(static_cast<uint32_t>(seq));
        if (tensor.defined() && !tensor.is_same(work_tensor)) tensor.copy_(work_tensor);
        work->finish();
      } catch (const std::exception& e) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        std::ostringstream message;
        message << "ProcessGroupGloo: " << op << " " << what << " on rank " << rank << " of " << size
                << " (sequence number " << seq << ") failed after " << ms << " ms: " << e.what();
        work->finish(std::make_exception_ptr(Error(message.str())));
      }
    });
    queued.notify_one();
    return work;
  }

  std::chrono::milliseconds timeout_of(const std::optional<std::chrono::milliseconds>& t,
                                       std::chrono::milliseconds fallback) const {
    return t ? *t : fallback;
  }
};

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int64_t rank, int64_t size,
                                   const ProcessGroupGlooOptions& options)
    : ProcessGroup(rank, size), state_(std::make_unique<State>()), timeout_(options.timeout) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: the store is null");
  EMBER_CHECK(options.timeout.count() > 0, "ProcessGroupGloo: the timeout must be positive, got ",
              options.timeout.count(), " ms");
  State& s = *state_;
  s.rank = rank;
  s.size = size;
  s.store = store;
  s.device = create_device(options);
  s.context = std::make_shared<::gloo::rendezvous::Context>(static_cast<int>(rank), static_cast<int>(size));
  s.context->setTimeout(options.timeout);
  const auto start = Clock::now();
  try {
    gloo_detail::GlooStore gloo_store(store);
    s.context->connectFullMesh(gloo_store, s.device);
  } catch (const std::exception& e) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    EMBER_FAIL("ProcessGroupGloo: the rendezvous of rank ", rank, " of ", size, " failed after ", ms, " ms: ",
               e.what());
  }
  s.worker = std::thread([&s] { s.run(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
  }
  s.queued.notify_all();
  if (s.worker.joinable()) s.worker.join();
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Tensor& tensor, const BroadcastOptions& options) {
  check_tensor(tensor, "broadcast");
  EMBER_CHECK(options.root_rank >= 0 && options.root_rank < size(), "ProcessGroupGloo::broadcast: root rank ",
              options.root_rank, " is outside [0, ", size(), ")");
  Tensor work_tensor = tensor.is_contiguous() ? tensor : tensor.contiguous();
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  auto context = state_->context;
  const int root = static_cast<int>(options.root_rank);
  std::ostringstream what;
  what << "(root " << root << ", " << describe_tensor(tensor) << ")";
  return state_->enqueue("broadcast", what.str(), tensor, work_tensor, [=](uint32_t tag) {
    const size_t bytes = static_cast<size_t>(work_tensor.nbytes());
    if (bytes == 0) return;
    ::gloo::BroadcastOptions opts(context);
    opts.setRoot(root);
    opts.setOutput(static_cast<uint8_t*>(work_tensor.data_ptr()), bytes);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::broadcast(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_reduce(Tensor& tensor, const AllreduceOptions& options) {
  check_tensor(tensor, "all_reduce");
  const DType dtype = tensor.dtype();
  EMBER_CHECK(gloo_detail::reduce_dtype_supported(dtype), "ProcessGroupGloo::all_reduce: dtype ", dtype,
              " is not supported (UInt8, Int8, Int16, Int32, Int64, Float32, Float64)");
  EMBER_CHECK(gloo_detail::op_supported(dtype, options.reduce_op), "ProcessGroupGloo::all_reduce: ReduceOp ",
              reduce_op_name(options.reduce_op), " needs an integer tensor, got ", dtype);
  Tensor work_tensor = tensor.is_contiguous() ? tensor : tensor.contiguous();
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  auto context = state_->context;
  const ReduceOp op = options.reduce_op;
  const int64_t group_size = size();
  std::ostringstream what;
  what << "(" << reduce_op_name(op) << ", " << describe_tensor(tensor) << ")";
  return state_->enqueue("all_reduce", what.str(), tensor, work_tensor, [=](uint32_t tag) {
    const size_t n = static_cast<size_t>(work_tensor.numel());
    if (n == 0) return;
    ::gloo::AllreduceOptions opts(context);
    set_output(opts, dtype, work_tensor.data_ptr(), n);
    opts.setReduceFunction(gloo_detail::reduce_function(dtype, op));
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::allreduce(opts);
    if (op == ReduceOp::AVG) gloo_detail::divide_in_place(dtype, work_tensor.data_ptr(), n, group_size);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions& options) {
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  auto context = state_->context;
  return state_->enqueue("barrier", "", Tensor(), Tensor(), [=](uint32_t tag) {
    ::gloo::BarrierOptions opts(context);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::barrier(opts);
  });
}

}  // namespace ember::distributed
