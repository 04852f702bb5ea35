#include <ember/distributed/process_group_gloo.h>

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <complex>
#include <cstring>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>
#include <ember/distributed/prefix_store.h>

#include "gloo_desync.h"
#include "gloo_reduce.h"
#include "gloo_store.h"

namespace ember::distributed {

// Note [ProcessGroupGloo execution]: collectives run on one worker thread per
// group (or on a thread waiting for them: Note [Inline collectives]), in the
// order they were called, so that every rank issues them to gloo in the same
// order; each carries the group's sequence number, which is
// also its gloo tag. The caller's thread checks the arguments (errors raise at
// the call) and makes a non-contiguous tensor contiguous; the worker runs
// gloo and copies the result back. A failure (a gloo timeout, a peer that
// vanished) finishes the Work with an ember::Error naming the op, the rank,
// the sequence number, the tensor and the elapsed time. After such an error
// the group's connections are in an unknown state, as in PyTorch: destroy it.
namespace {

using Clock = std::chrono::steady_clock;

// How long a failed collective waits for its own desync entry to be written
// before building its report (Note [Desync recorder]).
constexpr std::chrono::milliseconds kDesyncFlushTimeout{5'000};

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

std::shared_ptr<::gloo::transport::Device> create_device(const GlooDeviceOptions& spec) {
  ::gloo::transport::tcp::attr attr;
  if (!spec.interface.empty()) {
    // Checked here: gloo's own lookup throws for it but leaks its getifaddrs list.
    EMBER_CHECK(::if_nametoindex(spec.interface.c_str()) != 0,
                "ProcessGroupGloo: cannot create a TCP device for interface ", spec.interface,
                ": no such network interface");
    attr.iface = spec.interface;
  } else if (!spec.hostname.empty()) {
    attr.hostname = spec.hostname;
  } else {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    attr.hostname = resolves_to_local_address(name) ? std::string(name) : std::string("127.0.0.1");
  }
  try {
    return ::gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    EMBER_FAIL("ProcessGroupGloo: cannot create a TCP device for ",
               spec.interface.empty() ? "host " + attr.hostname : "interface " + spec.interface, ": ", e.what());
  }
}

// The devices of options: `devices`, else one per name of `interface` or of
// GLOO_SOCKET_IFNAME (comma-separated, as PyTorch's), else `hostname` or the
// default (empty spec).
std::vector<GlooDeviceOptions> device_specs(const ProcessGroupGlooOptions& options) {
  if (!options.devices.empty()) return options.devices;
  std::string interfaces = options.interface;
  std::string source = "the interface option";
  if (interfaces.empty() && options.hostname.empty()) {
    if (const char* env = std::getenv("GLOO_SOCKET_IFNAME")) {
      interfaces = env;
      source = "GLOO_SOCKET_IFNAME";
    }
  }
  if (interfaces.empty()) return {GlooDeviceOptions{.hostname = options.hostname}};
  std::vector<GlooDeviceOptions> specs;
  size_t at = 0;
  for (;;) {
    const size_t comma = interfaces.find(',', at);
    const std::string name = interfaces.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    EMBER_CHECK(!name.empty(), "ProcessGroupGloo: ", source, " '", interfaces,
                "' has an empty interface name (expected names separated by commas)");
    specs.push_back({.interface = name});
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return specs;
}

std::string describe_tensor(const Tensor& t) {
  std::ostringstream ss;
  ss << "tensor " << t.sizes() << " " << t.dtype();
  return ss.str();
}

// gloo sizes the buffer by its element type; the reduction is ours.
template <class Options>
void set_output(Options& opts, DType dtype, void* data, size_t n) {
  switch (dtype) {
    case DType::UInt8: return opts.setOutput(static_cast<uint8_t*>(data), n);
    case DType::Int8: return opts.setOutput(static_cast<int8_t*>(data), n);
    case DType::Int16: return opts.setOutput(static_cast<int16_t*>(data), n);
    case DType::Int32: return opts.setOutput(static_cast<int32_t*>(data), n);
    case DType::Int64: return opts.setOutput(static_cast<int64_t*>(data), n);
    case DType::Float32: return opts.setOutput(static_cast<float*>(data), n);
    case DType::Float64: return opts.setOutput(static_cast<double*>(data), n);
    // 16-bit floats and complex numbers: gloo only needs the element size.
    case DType::Bool: return opts.setOutput(static_cast<uint8_t*>(data), n);
    case DType::Float16:
    case DType::BFloat16: return opts.setOutput(static_cast<uint16_t*>(data), n);
    case DType::Complex64: return opts.setOutput(static_cast<uint64_t*>(data), n);
    case DType::Complex128: return opts.setOutput(static_cast<std::complex<double>*>(data), n);
    default: EMBER_FAIL("ProcessGroupGloo::all_reduce: unsupported dtype ", dtype);
  }
}

void check_tensor(const Tensor& tensor, const char* op) {
  EMBER_CHECK(tensor.defined(), "ProcessGroupGloo::", op, ": the tensor is undefined");
  EMBER_CHECK(tensor.is_cpu(), "ProcessGroupGloo::", op, ": the gloo backend works on CPU tensors, got a tensor on ",
              tensor.device());
}

}  // namespace

struct ProcessGroupGloo::State : std::enable_shared_from_this<ProcessGroupGloo::State> {
  int64_t rank = 0, size = 0;
  // Kept for the group's lifetime, as c10d: a FileStore's file must outlive
  // the rendezvous of the slowest rank.
  std::shared_ptr<Store> store;
  // One context (a full mesh of pairs) per device; collective n runs on
  // contexts[n % size] (Note [Gloo devices]).
  std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
  std::vector<std::shared_ptr<::gloo::rendezvous::Context>> contexts;
  std::unique_ptr<gloo_detail::DesyncRecorder> recorder;

  const std::shared_ptr<::gloo::rendezvous::Context>& context_for(uint64_t tag) const {
    return contexts[tag % contexts.size()];
  }

  // A queued collective; `work` identifies it for an inline run.
  struct Job {
    const Work* work = nullptr;
    std::function<void()> run;
  };
  std::mutex mutex;
  std::condition_variable queued;  // the worker waits here
  std::deque<Job> queue;
  bool busy = false;  // a collective is running, on the worker or inline
  bool stopping = false;
  uint64_t sequence = 0;
  std::thread worker;
  // One per send/recv, each waiting for its transfer (bounded by its timeout);
  // with its Work, so that finished ones are joined when the next is posted.
  std::vector<std::pair<std::thread, std::shared_ptr<Work>>> p2p_threads;

  // Starts a send/recv waiter; the caller holds mutex.
  void start_p2p(std::shared_ptr<Work> work, std::function<void()> wait) {
    for (auto it = p2p_threads.begin(); it != p2p_threads.end();) {
      if (it->second->is_completed()) {  // its thread has nothing left but to return
        it->first.join();
        it = p2p_threads.erase(it);
      } else {
        ++it;
      }
    }
    p2p_threads.emplace_back(std::thread(std::move(wait)), std::move(work));
  }

  void run() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        queued.wait(lock, [&] { return !busy && (stopping || !queue.empty()); });
        if (queue.empty()) return;  // stopping, and everything queued is done
        job = std::move(queue.front());
        queue.pop_front();
        busy = true;
      }
      job.run();
      std::lock_guard<std::mutex> lock(mutex);
      busy = false;
    }
  }

  // Note [Inline collectives]: a caller that waits for a collective right away
  // (every blocking call: init.h's functions without async_op, or
  // `group->all_reduce(t)->wait()`) runs it on its own thread when it is the
  // next to run and nothing runs now, i.e. when everything queued before it
  // is done: the call order, and so the order on every rank, is kept. That
  // saves the two thread hand-offs of a small collective (waking the worker,
  // waking the caller), which dominate its latency; c10d's blocking calls pay
  // them too. `busy` keeps the worker from starting the next collective
  // meanwhile. The worker, woken by the enqueue, may take the collective
  // first; then the caller waits for it as before.
  void run_inline(const Work* work) {
    Job job;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (busy || queue.empty() || queue.front().work != work) return;
      job = std::move(queue.front());
      queue.pop_front();
      busy = true;
    }
    job.run();
    bool more = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      busy = false;
      more = stopping || !queue.empty();
    }
    if (more) queued.notify_one();  // the worker waits for !busy
  }

  // Queues body(tag) as collective `op`; `what` describes its arguments for
  // errors. `tensor` (may be undefined) is the caller's tensor and `work_tensor`
  // its contiguous stand-in, copied back after a successful body.
  std::shared_ptr<Work> enqueue(const std::string& op, const std::string& what, Tensor tensor, Tensor work_tensor,
                                std::function<void(uint32_t tag)> body) {
    std::unique_lock<std::mutex> lock(mutex);
    const uint64_t seq = sequence++;
    std::vector<Tensor> outputs;
    if (tensor.defined()) outputs.push_back(tensor);
    auto work = std::make_shared<Work>(op, seq, std::move(outputs));
    std::weak_ptr<State> weak = weak_from_this();
    const Work* id = work.get();
    work->set_inline_runner([weak, id] {
      if (auto state = weak.lock()) state->run_inline(id);
    });
    queue.push_back({id, [this, work, op, what, seq, tensor, work_tensor, body = std::move(body)]() mutable {
      recorder->record(seq, op, what);
      const auto start = Clock::now();
      try {
        body(static_cast<uint32_t>(seq));
        if (tensor.defined() && !tensor.is_same(work_tensor)) tensor.copy_(work_tensor);
        work->finish();
      } catch (const std::exception& e) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        std::ostringstream message;
        message << "ProcessGroupGloo: " << op << " " << what << " on rank " << rank << " of " << size
                << " (sequence number " << seq << ") failed after " << ms << " ms: " << e.what() << ". ";
        // This rank's entry first, so that the others' reports can see it.
        const std::string unwritten = recorder->flush(kDesyncFlushTimeout);
        message << gloo_detail::desync_report(*store, rank, size, seq, op);
        if (!unwritten.empty()) message << " (rank " << rank << "'s own desync entries: " << unwritten << ")";
        work->finish(std::make_exception_ptr(Error(message.str())));
      }
    }});
    lock.unlock();
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
    : ProcessGroup(rank, size), state_(std::make_shared<State>()), timeout_(options.timeout) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: the store is null");
  EMBER_CHECK(options.timeout.count() > 0, "ProcessGroupGloo: the timeout must be positive, got ",
              options.timeout.count(), " ms");
  State& s = *state_;
  s.rank = rank;
  s.size = size;
  s.store = store;
  for (const GlooDeviceOptions& spec : device_specs(options)) s.devices.push_back(create_device(spec));
  const auto start = Clock::now();
  // Note [Gloo devices]: as c10d's ProcessGroupGloo, one context per device,
  // each connected through its own store prefix ("0/", "1/", ...), and
  // collective n (its tag) on context n % devices; send/recv pick theirs by
  // the user tag, the same on both ends. With one worker thread the
  // collectives still run one at a time; the devices spread the pairs (and
  // so the traffic) over several interfaces.
  for (size_t i = 0; i < s.devices.size(); ++i) {
    auto context = std::make_shared<::gloo::rendezvous::Context>(static_cast<int>(rank), static_cast<int>(size));
    context->setTimeout(options.timeout);
    try {
      gloo_detail::GlooStore gloo_store(std::make_shared<PrefixStore>(std::to_string(i), store));
      context->connectFullMesh(gloo_store, s.devices[i]);
    } catch (const std::exception& e) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      EMBER_FAIL("ProcessGroupGloo: the rendezvous of rank ", rank, " of ", size, " failed after ", ms, " ms",
                 s.devices.size() > 1 ? " (device " + std::to_string(i) + ", " + s.devices[i]->str() + ")" : "",
                 ": ", e.what());
    }
    s.contexts.push_back(std::move(context));
  }
  s.recorder = std::make_unique<gloo_detail::DesyncRecorder>(store, rank);
  s.worker = std::thread([&s] { s.run(); });
}

std::vector<std::string> ProcessGroupGloo::device_names() const {
  std::vector<std::string> names;
  for (const auto& device : state_->devices) names.push_back(device->str());
  return names;
}

ProcessGroupGloo::~ProcessGroupGloo() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
  }
  s.queued.notify_all();
  if (s.worker.joinable()) s.worker.join();  // after the queue and any inline collective
  std::vector<std::pair<std::thread, std::shared_ptr<Work>>> p2p;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    p2p.swap(s.p2p_threads);
  }
  for (auto& [thread, work] : p2p) thread.join();
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Tensor& tensor, const BroadcastOptions& options) {
  check_tensor(tensor, "broadcast");
  EMBER_CHECK(options.root_rank >= 0 && options.root_rank < size(), "ProcessGroupGloo::broadcast: root rank ",
              options.root_rank, " is outside [0, ", size(), ")");
  Tensor work_tensor = tensor.is_contiguous() ? tensor : tensor.contiguous();
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const int root = static_cast<int>(options.root_rank);
  std::ostringstream what;
  what << "(root " << root << ", " << describe_tensor(tensor) << ")";
  return state_->enqueue("broadcast", what.str(), tensor, work_tensor, [=](uint32_t tag) {
    const size_t bytes = static_cast<size_t>(work_tensor.nbytes());
    if (bytes == 0) return;
    ::gloo::BroadcastOptions opts(s->context_for(tag));
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
              " is not supported (", gloo_detail::kReduceDtypeNames, ")");
  EMBER_CHECK(gloo_detail::op_supported(dtype, options.reduce_op), "ProcessGroupGloo::all_reduce: ReduceOp ",
              reduce_op_name(options.reduce_op), " does not apply to ", dtype,
              " (bitwise ops need integers or bool, MIN/MAX/BAND/BOR/BXOR no complex, AVG no bool)");
  Tensor work_tensor = tensor.is_contiguous() ? tensor : tensor.contiguous();
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const ReduceOp op = options.reduce_op;
  const int64_t group_size = size();
  std::ostringstream what;
  what << "(" << reduce_op_name(op) << ", " << describe_tensor(tensor) << ")";
  return state_->enqueue("all_reduce", what.str(), tensor, work_tensor, [=](uint32_t tag) {
    const size_t n = static_cast<size_t>(work_tensor.numel());
    if (n == 0) return;
    ::gloo::AllreduceOptions opts(s->context_for(tag));
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
  const State* s = state_.get();
  return state_->enqueue("barrier", "", Tensor(), Tensor(), [=](uint32_t tag) {
    ::gloo::BarrierOptions opts(s->context_for(tag));
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::barrier(opts);
  });
}

// Note [Gloo collectives beyond all_reduce]: every collective moves bytes
// (gloo's uint8 variants) except reduce, which reduces with our function of
// (dtype, op). Multi-tensor outputs go through one flat buffer: the body runs
// gloo on it and then copies each slice into the caller's tensors, on the
// worker thread. reduce_scatter is an all_reduce of the concatenated inputs
// followed by the rank's slice (size() times the bytes of a ring
// reduce-scatter, but exact and simple).
namespace {

uint8_t* bytes_of(const Tensor& t) {
  // gloo wants a valid pointer even for zero bytes.
  static uint8_t empty_buffer[1];
  return t.nbytes() == 0 ? empty_buffer : static_cast<uint8_t*>(t.data_ptr());
}

Tensor contiguous_of(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

void check_reduce(DType dtype, ReduceOp op, const char* name) {
  EMBER_CHECK(gloo_detail::reduce_dtype_supported(dtype), "ProcessGroupGloo::", name, ": dtype ", dtype,
              " is not supported (", gloo_detail::kReduceDtypeNames, ")");
  EMBER_CHECK(gloo_detail::op_supported(dtype, op), "ProcessGroupGloo::", name, ": ReduceOp ", reduce_op_name(op),
              " does not apply to ", dtype,
              " (bitwise ops need integers or bool, MIN/MAX/BAND/BOR/BXOR no complex, AVG no bool)");
}

void check_root(int64_t root, int64_t size, const char* name) {
  EMBER_CHECK(root >= 0 && root < size, "ProcessGroupGloo::", name, ": root rank ", root, " is outside [0, ", size,
              ")");
}

// tensors: `count` defined CPU tensors of input's dtype and element count.
void check_list(const std::vector<Tensor>& tensors, size_t count, const Tensor& like, const char* name,
                const char* what) {
  EMBER_CHECK(tensors.size() == count, "ProcessGroupGloo::", name, ": ", what, " holds ", tensors.size(),
              " tensors, expected ", count);
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_tensor(tensors[i], name);
    EMBER_CHECK(tensors[i].dtype() == like.dtype() && tensors[i].numel() == like.numel(), "ProcessGroupGloo::",
                name, ": ", what, "[", i, "] is ", describe_tensor(tensors[i]), ", expected ", like.numel(),
                " elements of ", like.dtype());
  }
}

// The contiguous concatenation of tensors' elements (flattened).
Tensor flat_concat(const std::vector<Tensor>& tensors, DType dtype) {
  int64_t n = 0;
  for (const Tensor& t : tensors) n += t.numel();
  Tensor flat = ember::empty({n}, TensorOptions(dtype));
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    flat.narrow(0, at, t.numel()).copy_(t.reshape({t.numel()}));
    at += t.numel();
  }
  return flat;
}

// outputs[i] = the i-th of flat's outputs.size() equal slices.
void scatter_slices(const Tensor& flat, std::vector<Tensor>& outputs) {
  const int64_t n = outputs.empty() ? 0 : flat.numel() / static_cast<int64_t>(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i].copy_(flat.narrow(0, static_cast<int64_t>(i) * n, n).reshape(outputs[i].sizes()));
}

std::string describe_list(const std::vector<Tensor>& tensors) {
  std::ostringstream ss;
  ss << tensors.size() << " tensors";
  if (!tensors.empty()) ss << " like " << describe_tensor(tensors.front());
  return ss.str();
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::reduce(Tensor& tensor, const ReduceOptions& options) {
  check_tensor(tensor, "reduce");
  check_reduce(tensor.dtype(), options.reduce_op, "reduce");
  check_root(options.root_rank, size(), "reduce");
  const bool is_root = options.root_rank == rank();
  // Gloo uses the output as scratch on every rank: the others reduce a copy.
  Tensor work_tensor = is_root ? contiguous_of(tensor) : tensor.clone(MemoryFormat::Contiguous);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const DType dtype = tensor.dtype();
  const ReduceOp op = options.reduce_op;
  const int root = static_cast<int>(options.root_rank);
  const int64_t group_size = size();
  std::ostringstream what;
  what << "(" << reduce_op_name(op) << ", root " << root << ", " << describe_tensor(tensor) << ")";
  return state_->enqueue("reduce", what.str(), is_root ? tensor : Tensor(), work_tensor, [=](uint32_t tag) {
    const size_t n = static_cast<size_t>(work_tensor.numel());
    if (n == 0) return;
    ::gloo::ReduceOptions opts(s->context_for(tag));
    set_output(opts, dtype, work_tensor.data_ptr(), n);
    opts.setReduceFunction(gloo_detail::reduce_function(dtype, op));
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::reduce(opts);
    if (op == ReduceOp::AVG && is_root) gloo_detail::divide_in_place(dtype, work_tensor.data_ptr(), n, group_size);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_gather(std::vector<Tensor>& outputs, const Tensor& input,
                                                   const CollectiveOptions& options) {
  check_tensor(input, "all_gather");
  check_list(outputs, static_cast<size_t>(size()), input, "all_gather", "outputs");
  Tensor in = contiguous_of(input);
  Tensor flat = ember::empty({size() * input.numel()}, TensorOptions(input.dtype()));
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  std::vector<Tensor> outs = outputs;
  return state_->enqueue("all_gather", "(" + describe_tensor(input) + ")", Tensor(), Tensor(),
                         [=](uint32_t tag) mutable {
                           if (in.nbytes() > 0) {
                             ::gloo::AllgatherOptions opts(s->context_for(tag));
                             opts.setInput(bytes_of(in), in.nbytes());
                             opts.setOutput(bytes_of(flat), flat.nbytes());
                             opts.setTag(tag);
                             opts.setTimeout(timeout);
                             ::gloo::allgather(opts);
                           }
                           scatter_slices(flat, outs);
                         });
}

std::shared_ptr<Work> ProcessGroupGloo::all_gather_into_tensor(Tensor& output, const Tensor& input,
                                                               const CollectiveOptions& options) {
  check_tensor(input, "all_gather_into_tensor");
  check_tensor(output, "all_gather_into_tensor");
  EMBER_CHECK(output.dtype() == input.dtype() && output.numel() == size() * input.numel(),
              "ProcessGroupGloo::all_gather_into_tensor: the output ", describe_tensor(output), " must hold ",
              size(), " x ", input.numel(), " elements of ", input.dtype(), " (the input is ", describe_tensor(input),
              ")");
  Tensor in = contiguous_of(input);
  Tensor work_tensor = contiguous_of(output);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  return state_->enqueue("all_gather_into_tensor", "(" + describe_tensor(input) + ")", output, work_tensor,
                         [=](uint32_t tag) {
                           if (in.nbytes() == 0) return;
                           ::gloo::AllgatherOptions opts(s->context_for(tag));
                           opts.setInput(bytes_of(in), in.nbytes());
                           opts.setOutput(bytes_of(work_tensor), work_tensor.nbytes());
                           opts.setTag(tag);
                           opts.setTimeout(timeout);
                           ::gloo::allgather(opts);
                         });
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<Tensor>& outputs, const Tensor& input,
                                               const CollectiveOptions& options) {
  check_tensor(input, "gather");
  check_root(options.root_rank, size(), "gather");
  const bool is_root = options.root_rank == rank();
  check_list(outputs, is_root ? static_cast<size_t>(size()) : 0, input, "gather",
             is_root ? "outputs (on the root)" : "outputs (on a rank other than the root)");
  Tensor in = contiguous_of(input);
  Tensor flat = is_root ? ember::empty({size() * input.numel()}, TensorOptions(input.dtype())) : Tensor();
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const int root = static_cast<int>(options.root_rank);
  std::vector<Tensor> outs = outputs;
  std::ostringstream what;
  what << "(root " << root << ", " << describe_tensor(input) << ")";
  return state_->enqueue("gather", what.str(), Tensor(), Tensor(), [=](uint32_t tag) mutable {
    if (in.nbytes() > 0) {
      ::gloo::GatherOptions opts(s->context_for(tag));
      opts.setInput(bytes_of(in), in.nbytes());
      if (flat.defined()) opts.setOutput(bytes_of(flat), flat.nbytes());
      opts.setRoot(root);
      opts.setTag(tag);
      opts.setTimeout(timeout);
      ::gloo::gather(opts);
    }
    if (flat.defined()) scatter_slices(flat, outs);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                const CollectiveOptions& options) {
  check_tensor(output, "scatter");
  check_root(options.root_rank, size(), "scatter");
  const bool is_root = options.root_rank == rank();
  check_list(inputs, is_root ? static_cast<size_t>(size()) : 0, output, "scatter",
             is_root ? "inputs (on the root)" : "inputs (on a rank other than the root)");
  std::vector<Tensor> ins;
  for (const Tensor& t : inputs) ins.push_back(contiguous_of(t));
  Tensor work_tensor = contiguous_of(output);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const int root = static_cast<int>(options.root_rank);
  std::ostringstream what;
  what << "(root " << root << ", " << describe_tensor(output) << ")";
  return state_->enqueue("scatter", what.str(), output, work_tensor, [=](uint32_t tag) {
    if (work_tensor.nbytes() == 0) return;
    ::gloo::ScatterOptions opts(s->context_for(tag));
    if (!ins.empty()) {
      std::vector<uint8_t*> pointers;
      for (const Tensor& t : ins) pointers.push_back(bytes_of(t));
      opts.setInputs(pointers, work_tensor.nbytes());
    }
    opts.setOutput(bytes_of(work_tensor), work_tensor.nbytes());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::scatter(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                       const ReduceScatterOptions& options) {
  check_tensor(output, "reduce_scatter");
  check_reduce(output.dtype(), options.reduce_op, "reduce_scatter");
  check_list(inputs, static_cast<size_t>(size()), output, "reduce_scatter", "inputs");
  Tensor flat = flat_concat(inputs, output.dtype());
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const DType dtype = output.dtype();
  const ReduceOp op = options.reduce_op;
  const int64_t group_size = size(), my_rank = rank(), n = output.numel();
  Tensor out = output;
  std::ostringstream what;
  what << "(" << reduce_op_name(op) << ", " << describe_tensor(output) << ")";
  return state_->enqueue("reduce_scatter", what.str(), Tensor(), Tensor(), [=](uint32_t tag) mutable {
    if (n == 0) return;
    ::gloo::AllreduceOptions opts(s->context_for(tag));
    set_output(opts, dtype, flat.data_ptr(), static_cast<size_t>(flat.numel()));
    opts.setReduceFunction(gloo_detail::reduce_function(dtype, op));
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::allreduce(opts);
    Tensor mine = flat.narrow(0, my_rank * n, n);
    if (op == ReduceOp::AVG) gloo_detail::divide_in_place(dtype, mine.data_ptr(), static_cast<size_t>(n), group_size);
    out.copy_(mine.reshape(out.sizes()));
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_to_all_single(Tensor& output, const Tensor& input,
                                                          const std::vector<int64_t>& output_splits,
                                                          const std::vector<int64_t>& input_splits,
                                                          const CollectiveOptions& options) {
  check_tensor(input, "all_to_all_single");
  check_tensor(output, "all_to_all_single");
  EMBER_CHECK(input.dim() >= 1 && output.dim() >= 1 && input.dtype() == output.dtype(),
              "ProcessGroupGloo::all_to_all_single: input ", describe_tensor(input), " and output ",
              describe_tensor(output), " must have a dim 0 and one dtype");
  const int64_t in_row = input.size(0) == 0 ? 0 : input.numel() / input.size(0);
  const int64_t out_row = output.size(0) == 0 ? 0 : output.numel() / output.size(0);
  EMBER_CHECK(input.size(0) == 0 || output.size(0) == 0 || in_row == out_row,
              "ProcessGroupGloo::all_to_all_single: the rows of input ", describe_tensor(input), " and output ",
              describe_tensor(output), " differ in size");
  const int64_t row = std::max(in_row, out_row);
  // Rows per rank, as bytes.
  auto counts = [&](const std::vector<int64_t>& splits, const Tensor& t, const char* what) {
    std::vector<int64_t> bytes;
    if (splits.empty()) {
      EMBER_CHECK(t.size(0) % size() == 0, "ProcessGroupGloo::all_to_all_single: ", what, " ", describe_tensor(t),
                  " has ", t.size(0), " rows, not divisible by the group size ", size(), " (give split sizes)");
      bytes.assign(static_cast<size_t>(size()), t.size(0) / size() * row * static_cast<int64_t>(t.element_size()));
      return bytes;
    }
    EMBER_CHECK(static_cast<int64_t>(splits.size()) == size(), "ProcessGroupGloo::all_to_all_single: ", what,
                " split sizes hold ", splits.size(), " values, expected ", size());
    int64_t total = 0;
    for (int64_t v : splits) {
      EMBER_CHECK(v >= 0, "ProcessGroupGloo::all_to_all_single: ", what, " split size ", v, " is negative");
      total += v;
      bytes.push_back(v * row * static_cast<int64_t>(t.element_size()));
    }
    EMBER_CHECK(total == t.size(0), "ProcessGroupGloo::all_to_all_single: ", what, " split sizes sum to ", total,
                ", but the ", what, " has ", t.size(0), " rows");
    return bytes;
  };
  const std::vector<int64_t> in_bytes = counts(input_splits, input, "input");
  const std::vector<int64_t> out_bytes = counts(output_splits, output, "output");
  Tensor in = contiguous_of(input);
  Tensor work_tensor = contiguous_of(output);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  std::ostringstream what;
  what << "(" << describe_tensor(input) << " -> " << describe_tensor(output) << ")";
  return state_->enqueue("all_to_all_single", what.str(), output, work_tensor, [=](uint32_t tag) {
    ::gloo::AlltoallvOptions opts(s->context_for(tag));
    opts.setInput(bytes_of(in), in_bytes);
    opts.setOutput(bytes_of(work_tensor), out_bytes);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::alltoallv(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                                   const CollectiveOptions& options) {
  const size_t n = static_cast<size_t>(size());
  EMBER_CHECK(inputs.size() == n && outputs.size() == n, "ProcessGroupGloo::all_to_all: ", inputs.size(),
              " inputs and ", outputs.size(), " outputs, expected ", n, " of each");
  std::vector<int64_t> in_bytes, out_bytes;
  for (size_t i = 0; i < n; ++i) {
    check_tensor(inputs[i], "all_to_all");
    check_tensor(outputs[i], "all_to_all");
    EMBER_CHECK(inputs[i].dtype() == inputs[0].dtype() && outputs[i].dtype() == inputs[0].dtype(),
                "ProcessGroupGloo::all_to_all: every tensor must be ", inputs[0].dtype(), ", got inputs[", i, "] ",
                describe_tensor(inputs[i]), " and outputs[", i, "] ", describe_tensor(outputs[i]));
    in_bytes.push_back(static_cast<int64_t>(inputs[i].nbytes()));
    out_bytes.push_back(static_cast<int64_t>(outputs[i].nbytes()));
  }
  const DType dtype = inputs[0].dtype();
  Tensor in = flat_concat(inputs, dtype);
  int64_t out_total = 0;
  for (const Tensor& t : outputs) out_total += t.numel();
  Tensor flat = ember::empty({out_total}, TensorOptions(dtype));
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  std::vector<Tensor> outs = outputs;
  return state_->enqueue("all_to_all", "(" + describe_list(inputs) + ")", Tensor(), Tensor(),
                         [=](uint32_t tag) mutable {
                           ::gloo::AlltoallvOptions opts(s->context_for(tag));
                           opts.setInput(bytes_of(in), in_bytes);
                           opts.setOutput(bytes_of(flat), out_bytes);
                           opts.setTag(tag);
                           opts.setTimeout(timeout);
                           ::gloo::alltoallv(opts);
                           int64_t at = 0;
                           for (Tensor& t : outs) {
                             t.copy_(flat.narrow(0, at, t.numel()).reshape(t.sizes()));
                             at += t.numel();
                           }
                         });
}

std::shared_ptr<Work> ProcessGroupGloo::all_reduce_coalesced(std::vector<Tensor>& tensors,
                                                             const AllreduceOptions& options) {
  EMBER_CHECK(!tensors.empty(), "ProcessGroupGloo::all_reduce_coalesced: no tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_tensor(tensors[i], "all_reduce_coalesced");
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), "ProcessGroupGloo::all_reduce_coalesced: tensors[", i,
                "] is ", describe_tensor(tensors[i]), ", but tensors[0] is ", tensors[0].dtype());
  }
  const DType dtype = tensors[0].dtype();
  check_reduce(dtype, options.reduce_op, "all_reduce_coalesced");
  Tensor flat = flat_concat(tensors, dtype);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  const State* s = state_.get();
  const ReduceOp op = options.reduce_op;
  const int64_t group_size = size();
  std::vector<Tensor> outs = tensors;
  std::ostringstream what;
  what << "(" << reduce_op_name(op) << ", " << describe_list(tensors) << ")";
  return state_->enqueue("all_reduce_coalesced", what.str(), Tensor(), Tensor(), [=](uint32_t tag) mutable {
    const size_t n = static_cast<size_t>(flat.numel());
    if (n == 0) return;
    ::gloo::AllreduceOptions opts(s->context_for(tag));
    set_output(opts, dtype, flat.data_ptr(), n);
    opts.setReduceFunction(gloo_detail::reduce_function(dtype, op));
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::allreduce(opts);
    if (op == ReduceOp::AVG) gloo_detail::divide_in_place(dtype, flat.data_ptr(), n, group_size);
    int64_t at = 0;
    for (Tensor& t : outs) {
      t.copy_(flat.narrow(0, at, t.numel()).reshape(t.sizes()));
      at += t.numel();
    }
  });
}

// Note [monitored_barrier]: as c10d's, a barrier that can name who is
// missing, which Gloo's barrier cannot. It runs on the caller's thread
// through the store: the n-th call on rank r sets "monitored_barrier/n/r";
// rank 0 polls for every rank's key until the timeout, then either sets
// "monitored_barrier/n/released" or raises naming the missing ranks. It does
// not wait for the group's queued collectives (c10d's does not either).
void ProcessGroupGloo::monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks) {
  EMBER_CHECK(timeout.count() > 0, "ProcessGroupGloo::monitored_barrier: the timeout must be positive, got ",
              timeout.count(), " ms");
  Store& store = *state_->store;
  const std::string prefix = "monitored_barrier/" + std::to_string(monitored_barriers_++) + "/";
  const auto deadline = Clock::now() + timeout;
  if (rank() != 0) {
    store.set(prefix + std::to_string(rank()), "1");
    try {
      store.wait({prefix + "released"}, timeout);
    } catch (const std::exception& e) {
      EMBER_FAIL("ProcessGroupGloo::monitored_barrier: rank ", rank(), " of ", size(),
                 " was not released by rank 0 within ", timeout.count(), " ms (rank 0 reports the missing ranks): ",
                 e.what());
    }
    return;
  }
  std::vector<int64_t> missing;
  for (int64_t r = 1; r < size(); ++r) missing.push_back(r);
  for (;;) {
    std::vector<int64_t> still;
    for (int64_t r : missing)
      if (!store.check({prefix + std::to_string(r)})) still.push_back(r);
    missing = std::move(still);
    if (missing.empty() || Clock::now() >= deadline) break;
    // Without wait_all_ranks only the first missing rank is named, as c10d.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (missing.empty()) {
    store.set(prefix + "released", "1");
    return;
  }
  std::ostringstream names;
  const size_t shown = wait_all_ranks ? missing.size() : 1;
  for (size_t i = 0; i < shown; ++i) names << (i ? ", " : "") << missing[i];
  EMBER_FAIL("ProcessGroupGloo::monitored_barrier: ", wait_all_ranks ? "ranks " : "rank ", names.str(),
             " did not arrive within ", timeout.count(), " ms (rank 0 of ", size(), ")");
}

// Note [Gloo send and recv]: point-to-point transfers bypass the collective
// queue (a blocking recv there would stall every later collective, and two
// ranks exchanging send-then-recv would deadlock): the caller's thread posts
// the buffer to gloo at once, so that same-tag messages match in call order,
// and a thread of the group waits for the transfer and finishes the Work.
// The gloo slot is the user tag with prefix byte 0, which no gloo collective
// uses.
namespace {
constexpr int64_t kMaxTag = (int64_t{1} << 32) - 1;
}

std::shared_ptr<Work> ProcessGroupGloo::send(const Tensor& tensor, int64_t dst_rank, int64_t tag,
                                             const PointToPointOptions& options) {
  check_tensor(tensor, "send");
  EMBER_CHECK(dst_rank >= 0 && dst_rank < size() && dst_rank != rank(), "ProcessGroupGloo::send: destination rank ",
              dst_rank, " must be another rank in [0, ", size(), ")");
  EMBER_CHECK(tag >= 0 && tag <= kMaxTag, "ProcessGroupGloo::send: tag ", tag, " is outside [0, 2^32)");
  Tensor in = tensor.clone(MemoryFormat::Contiguous);  // the caller may change tensor before the transfer
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  std::ostringstream what;
  what << "send (to rank " << dst_rank << ", tag " << tag << ", " << describe_tensor(tensor) << ") on rank "
       << rank() << " of " << size();
  auto work = std::make_shared<Work>("send", 0);
  if (in.nbytes() == 0) {
    work->finish();
    return work;
  }
  std::shared_ptr<::gloo::transport::UnboundBuffer> buffer =
      state_->context_for(static_cast<uint64_t>(tag))->createUnboundBuffer(in.data_ptr(), in.nbytes());
  buffer->send(static_cast<int>(dst_rank), static_cast<uint64_t>(tag));
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->start_p2p(work, [work, buffer, in, timeout, what = what.str()] {
    const auto start = Clock::now();
    try {
      EMBER_CHECK(buffer->waitSend(timeout), "the send was aborted");
      work->finish();
    } catch (const std::exception& e) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      work->finish(std::make_exception_ptr(
          Error("ProcessGroupGloo: " + what + " failed after " + std::to_string(ms) + " ms: " + e.what())));
    }
  });
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::recv(Tensor& tensor, int64_t src_rank, int64_t tag,
                                             const PointToPointOptions& options) {
  EMBER_CHECK(src_rank >= 0 && src_rank < size() && src_rank != rank(), "ProcessGroupGloo::recv: source rank ",
              src_rank, " must be another rank in [0, ", size(), ")");
  return post_recv(tensor, {static_cast<int>(src_rank)}, tag, options, "recv");
}

std::shared_ptr<Work> ProcessGroupGloo::recv_anysource(Tensor& tensor, int64_t tag,
                                                       const PointToPointOptions& options) {
  std::vector<int> sources;
  for (int r = 0; r < size(); ++r)
    if (r != rank()) sources.push_back(r);
  EMBER_CHECK(!sources.empty(), "ProcessGroupGloo::recv_anysource: a group of one rank has nobody to receive from");
  return post_recv(tensor, sources, tag, options, "recv_anysource");
}

std::shared_ptr<Work> ProcessGroupGloo::post_recv(Tensor& tensor, std::vector<int> sources, int64_t tag,
                                                  const PointToPointOptions& options, const char* op) {
  check_tensor(tensor, op);
  EMBER_CHECK(tag >= 0 && tag <= kMaxTag, "ProcessGroupGloo::", op, ": tag ", tag, " is outside [0, 2^32)");
  Tensor work_tensor = contiguous_of(tensor);
  const auto timeout = state_->timeout_of(options.timeout, timeout_);
  std::ostringstream what;
  what << op << " (";
  if (sources.size() == 1) what << "from rank " << sources[0] << ", ";
  what << "tag " << tag << ", " << describe_tensor(tensor) << ") on rank " << rank() << " of " << size();
  auto work = std::make_shared<Work>(op, 0, std::vector<Tensor>{tensor});
  if (work_tensor.nbytes() == 0) {
    if (sources.size() == 1) work->set_source_rank(sources[0]);
    work->finish();
    return work;
  }
  std::shared_ptr<::gloo::transport::UnboundBuffer> buffer =
      state_->context_for(static_cast<uint64_t>(tag))->createUnboundBuffer(work_tensor.data_ptr(), work_tensor.nbytes());
  buffer->recv(sources, static_cast<uint64_t>(tag));
  Tensor out = tensor;
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->start_p2p(work, [work, buffer, out, work_tensor, timeout, what = what.str()]() mutable {
    const auto start = Clock::now();
    try {
      int source = -1;
      EMBER_CHECK(buffer->waitRecv(&source, timeout), "the recv was aborted");
      if (!out.is_same(work_tensor)) out.copy_(work_tensor);
      work->set_source_rank(source);
      work->finish();
    } catch (const std::exception& e) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      work->finish(std::make_exception_ptr(
          Error("ProcessGroupGloo: " + what + " failed after " + std::to_string(ms) + " ms: " + e.what())));
    }
  });
  return work;
}

}  // namespace ember::distributed
