// Autograd on CUDA tensors: gradients of a list of ops computed on the GPU in
// float64 equal the CPU's (1e-10), and the engine's stream semantics (Note
// [Streams in backward] in core/src/autograd/engine.cpp): forward on a pool
// stream, backward from the default stream, results read at once on the
// default stream. A spinning kernel queued from a hook keeps a stream busy,
// so a missing wait shows up as wrong values, not as luck.
#include <functional>
#include <string>
#include <vector>

#include "cuda/cuda_test.h"
#include "cuda/spin_kernel.h"

// A named namespace: the suite builds as one unity file, whose anonymous
// namespaces are shared between its files.
namespace ember::cuda::autograd_test {
namespace {

namespace F = ember::nn::functional;
using testing::CudaTest;
using testing::expect_matches_cpu;
using Inputs = std::vector<Tensor>;

struct GradCase {
  const char* name;
  std::vector<std::vector<int64_t>> shapes;  // one per input
  std::function<Tensor(const Inputs&)> f;
  double lo = -2, hi = 2;  // input values
};

Tensor uniform_f64(IntArrayRef sizes, double lo, double hi) {
  return rand(sizes, TensorOptions(kFloat64)) * (hi - lo) + lo;
}

// The gradients of sum(f(inputs) * go) w.r.t. every input, on `device`, from
// the same CPU values.
Inputs gradients_on(Device device, const GradCase& c, const Inputs& values, const Tensor& go_cpu) {
  Inputs inputs;
  for (const Tensor& v : values) inputs.push_back(v.to(device).requires_grad_());
  const Tensor y = c.f(inputs);
  return autograd::grad({y}, inputs, {go_cpu.to(device)});
}

std::vector<GradCase> grad_cases() {
  return {
      // elementwise (broadcasting, scalars, where/clamp)
      {"add_broadcast", {{4, 5}, {5}}, [](const Inputs& x) { return x[0] + x[1] * 2; }},
      {"sub_mul_div", {{3, 4}, {3, 4}, {3, 4}}, [](const Inputs& x) { return (x[0] - x[1]) * x[1] / (x[2].abs() + 1); }},
      {"exp_log_sqrt", {{6, 7}}, [](const Inputs& x) { return x[0].exp() + (x[0].abs() + 0.5).log() + (x[0].abs() + 0.1).sqrt(); }},
      {"trig_pow", {{5, 3}}, [](const Inputs& x) { return x[0].sin() * x[0].cos() + x[0].pow(3) + x[0].reciprocal(); }, 0.5, 2},
      {"tanh_sigmoid", {{8}}, [](const Inputs& x) { return x[0].tanh() + x[0].sigmoid(); }},
      {"where_clamp", {{4, 6}, {4, 6}}, [](const Inputs& x) { return where(x[0] > 0, x[0], x[1] * 2) + clamp(x[1], -0.5, 0.5); }},
      // reductions
      {"sum_mean", {{4, 5, 6}}, [](const Inputs& x) { return x[0].sum({1}) + x[0].mean({1}, false); }},
      {"sum_all_keepdim", {{3, 7}}, [](const Inputs& x) { return x[0] * x[0].sum({0, 1}, true); }},
      {"amax", {{5, 9}}, [](const Inputs& x) { return amax(x[0], {1}); }},
      {"var_std", {{6, 8}}, [](const Inputs& x) { return var(x[0], {1}) + ember::std(x[0], {0}).sum(); }},
      {"norm", {{4, 4}}, [](const Inputs& x) { return norm(x[0], 2, {1}); }},
      {"logsumexp", {{3, 10}}, [](const Inputs& x) { return logsumexp(x[0], {1}); }},
      // products
      {"matmul", {{7, 5}, {5, 3}}, [](const Inputs& x) { return matmul(x[0], x[1]); }},
      {"matmul_broadcast", {{2, 4, 5}, {5, 3}}, [](const Inputs& x) { return matmul(x[0], x[1]); }},
      {"bmm", {{3, 4, 5}, {3, 5, 2}}, [](const Inputs& x) { return bmm(x[0], x[1]); }},
      {"addmm", {{3}, {4, 6}, {6, 3}}, [](const Inputs& x) { return addmm(x[0], x[1], x[2], 0.5, 2); }},
      {"mm_transposed", {{6, 4}, {6, 3}}, [](const Inputs& x) { return mm(x[0].t(), x[1]); }},
      // softmax family (last dim: the row kernels; inner dims: the column kernel)
      {"softmax_last", {{5, 33}}, [](const Inputs& x) { return F::softmax(x[0], -1); }, -4, 4},
      {"softmax_long_row", {{3, 2000}}, [](const Inputs& x) { return F::softmax(x[0], 1); }, -4, 4},
      {"softmax_dim0", {{6, 5, 4}}, [](const Inputs& x) { return F::softmax(x[0], 0); }, -4, 4},
      {"log_softmax_last", {{4, 17}}, [](const Inputs& x) { return F::log_softmax(x[0], -1); }, -4, 4},
      {"log_softmax_middle", {{3, 9, 5}}, [](const Inputs& x) { return F::log_softmax(x[0], 1); }, -4, 4},
      {"softmin", {{4, 6}}, [](const Inputs& x) { return F::softmin(x[0], 1); }},
      // activations
      {"relu_gelu_silu", {{5, 6}}, [](const Inputs& x) { return F::relu(x[0]) + F::gelu(x[0]) + F::gelu(x[0], "tanh") + F::silu(x[0]); }},
      {"elu_family", {{5, 6}}, [](const Inputs& x) { return F::elu(x[0], 0.7) + F::celu(x[0], 1.3) + F::selu(x[0]); }},
      {"leaky_hardtanh", {{5, 6}}, [](const Inputs& x) { return F::leaky_relu(x[0], 0.2) + F::hardtanh(x[0], -1, 1); }},
      {"hard_family", {{6, 6}}, [](const Inputs& x) { return F::hardswish(x[0]) + F::hardsigmoid(x[0]); }, -5, 5},
      {"softplus_mish", {{5, 6}}, [](const Inputs& x) { return F::softplus(x[0], 2, 3) + F::mish(x[0]) + F::logsigmoid(x[0]); }, -4, 4},
      {"shrinks", {{5, 6}}, [](const Inputs& x) { return F::softsign(x[0]) + F::tanhshrink(x[0]) + F::softshrink(x[0], 0.5) + F::hardshrink(x[0], 0.5) + F::threshold(x[0], 0.1, -1); }},
      {"prelu", {{2, 3, 4}, {3}}, [](const Inputs& x) { return F::prelu(x[0], x[1]); }},
      // views and shapes
      {"transpose_permute", {{3, 4, 5}}, [](const Inputs& x) { return x[0].transpose(0, 2) * 2 + x[0].permute({2, 0, 1}); }},
      {"reshape_view_flatten", {{4, 6}}, [](const Inputs& x) { return x[0].reshape({3, 8}).exp() + x[0].view({8, 3}).reshape({3, 8}) + x[0].flatten().reshape({3, 8}); }},
      {"reshape_non_contiguous", {{4, 6}}, [](const Inputs& x) { return x[0].t().reshape({24}).sin(); }},
      {"expand_unsqueeze_squeeze", {{5}}, [](const Inputs& x) { return x[0].unsqueeze(0).expand({3, 5}) * x[0].unsqueeze(1).squeeze(1); }},
      {"narrow_select_slice", {{6, 7}}, [](const Inputs& x) { return x[0].narrow(1, 2, 3).sum() + x[0].select(0, 4).exp().sum() + x[0].slice(0, 1, 6, 2).square().sum(); }},
  };
}

TEST_P(CudaTest, GradientsOnTheGpuEqualTheCpusInFloat64) {
  manual_seed(123);
  for (const GradCase& c : grad_cases()) {
    Inputs values;
    for (const auto& s : c.shapes) values.push_back(uniform_f64(s, c.lo, c.hi));
    Tensor y_cpu;
    {
      Inputs probe;
      for (const Tensor& v : values) probe.push_back(v.clone());
      y_cpu = c.f(probe);
    }
    const Tensor go = randn(y_cpu.sizes(), TensorOptions(kFloat64));
    const Inputs cpu = gradients_on(kCPU, c, values, go);
    const Inputs gpu = gradients_on(kCUDA, c, values, go);
    ASSERT_EQ(cpu.size(), gpu.size()) << c.name;
    for (size_t i = 0; i < cpu.size(); ++i)
      expect_matches_cpu(gpu[i], cpu[i], 1e-10, 1e-10, std::string(c.name) + " input " + std::to_string(i));
  }
}

// The loss of the stream tests: a product, a softmax, activations, reductions.
Tensor model(const Tensor& x, const Tensor& w) {
  const Tensor h = matmul(x, w);
  return (F::log_softmax(h, 1) * F::gelu(h)).sum() + F::hardswish(x).mean();
}

struct Grads {
  Tensor x, w;
};
Grads cpu_grads(const Tensor& x_cpu, const Tensor& w_cpu) {
  Tensor x = x_cpu.clone().requires_grad_(), w = w_cpu.clone().requires_grad_();
  model(x, w).backward();
  return {x.grad(), w.grad()};
}

TEST_P(CudaTest, BackwardFromTheDefaultStreamOfAForwardOnAPoolStream) {
  manual_seed(7);
  const Tensor x_cpu = randn({256, 384}, TensorOptions(kFloat64)), w_cpu = randn({384, 192}, TensorOptions(kFloat64));
  Tensor x = x_cpu.to(kCUDA).requires_grad_(), w = w_cpu.to(kCUDA).requires_grad_();
  const CUDAStream side = stream_from_pool();
  ember::stream_wait_stream(side.unwrap(), current_stream().unwrap());  // side sees x and w
  Tensor loss;
  std::vector<uint64_t> hook_streams;
  {
    CUDAStreamGuard on(side);
    Tensor h = matmul(x, w);
    // Runs in backward on h's node: keeps `side` busy, so a missing wait reads unfinished gradients.
    h.register_hook([&](const Tensor&) {
      hook_streams.push_back(current_stream().id());
      testing::spin_on_stream(current_stream().handle(), 30);
    });
    loss = (F::log_softmax(h, 1) * F::gelu(h)).sum() + F::hardswish(x).mean();
  }
  loss.backward();  // on the default stream
  EXPECT_EQ(current_stream(), default_stream());
  ASSERT_EQ(hook_streams.size(), 1u);
  EXPECT_EQ(hook_streams[0], side.id()) << "the node runs on its forward's stream";
  // Read on the default stream at once, with no synchronize in between.
  const Grads want = cpu_grads(x_cpu, w_cpu);
  expect_matches_cpu(x.grad(), want.x, 1e-10, 1e-10, "x.grad");
  expect_matches_cpu(w.grad(), want.w, 1e-10, 1e-10, "w.grad");
}

TEST_P(CudaTest, AGradientGivenOnTheDefaultStreamIsWaitedFor) {
  manual_seed(8);
  const Tensor x_cpu = randn({1 << 16}, TensorOptions(kFloat64));
  Tensor x = x_cpu.to(kCUDA).requires_grad_();
  const CUDAStream side = stream_from_pool();
  ember::stream_wait_stream(side.unwrap(), current_stream().unwrap());
  Tensor y;
  {
    CUDAStreamGuard on(side);
    y = (x * 3).sin();
  }
  Tensor g = ones({1 << 16}, TensorOptions(kFloat64).device(kCUDA));
  testing::spin_on_stream(current_stream().handle(), 30);
  g.mul_(2);  // g is 2 only once the spin is over
  y.backward(g);
  Tensor xc = x_cpu.clone().requires_grad_();
  (xc * 3).sin().backward(full({1 << 16}, 2.0, TensorOptions(kFloat64)));
  expect_matches_cpu(x.grad(), xc.grad(), 1e-12, 1e-12, "x.grad");
}

TEST_P(CudaTest, BranchesOnTwoStreamsAccumulateIntoOneGrad) {
  manual_seed(9);
  const Tensor x_cpu = randn({512, 256}, TensorOptions(kFloat64));
  Tensor x = x_cpu.to(kCUDA).requires_grad_();
  const CUDAStream s1 = stream_from_pool(), s2 = stream_from_pool();
  ASSERT_NE(s1, s2);
  ember::stream_wait_stream(s1.unwrap(), current_stream().unwrap());
  ember::stream_wait_stream(s2.unwrap(), current_stream().unwrap());
  auto spin_here = [](const Tensor&) { testing::spin_on_stream(current_stream().handle(), 20); };
  Tensor a, b;
  {
    CUDAStreamGuard on(s1);
    a = F::softmax(x, 1);
    a.register_hook(spin_here);
  }
  {
    CUDAStreamGuard on(s2);
    b = F::silu(x).t();
    b.register_hook(spin_here);
  }
  // Joined on the default stream: it must wait for both branches.
  ember::stream_wait_stream(current_stream().unwrap(), s1.unwrap());
  ember::stream_wait_stream(current_stream().unwrap(), s2.unwrap());
  (a * b.t()).sum().backward();
  Tensor xc = x_cpu.clone().requires_grad_();
  (F::softmax(xc, 1) * F::silu(xc)).sum().backward();
  expect_matches_cpu(x.grad(), xc.grad(), 1e-10, 1e-10, "x.grad");
  // A second pass accumulates into the existing .grad, from a forward on the other stream.
  {
    CUDAStreamGuard on(s2);
    a = F::softmax(x, 1) * 3;
    a.register_hook(spin_here);
  }
  ember::stream_wait_stream(current_stream().unwrap(), s2.unwrap());
  a.sum().backward();
  Tensor xc2 = x_cpu.clone().requires_grad_();
  ((F::softmax(xc2, 1) * F::silu(xc2)).sum() + (F::softmax(xc2, 1) * 3).sum()).backward();
  expect_matches_cpu(x.grad(), xc2.grad(), 1e-10, 1e-10, "x.grad after two passes");
}

TEST_P(CudaTest, AutogradGradReturnsGradientsReadyOnTheCallersStream) {
  manual_seed(10);
  const Tensor x_cpu = randn({128, 300}, TensorOptions(kFloat64));
  Tensor x = x_cpu.to(kCUDA).requires_grad_();
  const CUDAStream side = stream_from_pool();
  ember::stream_wait_stream(side.unwrap(), current_stream().unwrap());
  Tensor y;
  {
    CUDAStreamGuard on(side);
    y = F::log_softmax(x.exp(), 1);
    y.register_hook([](const Tensor&) { testing::spin_on_stream(current_stream().handle(), 20); });
  }
  const Tensor go_cpu = randn({128, 300}, TensorOptions(kFloat64));
  const autograd::variable_list g = autograd::grad({y}, {x}, {go_cpu.to(kCUDA)});
  Tensor xc = x_cpu.clone().requires_grad_();
  const autograd::variable_list want = autograd::grad({F::log_softmax(xc.exp(), 1)}, {xc}, {go_cpu});
  expect_matches_cpu(g[0], want[0], 1e-10, 1e-10, "grad");
}

// ---- the Tensor API of pinned memory, non_blocking copies and record_stream ----
TEST_P(CudaTest, PinMemoryAndNonBlockingCopiesThroughTheTensorApi) {
  manual_seed(12);
  const Tensor x = randn({1 << 20}, TensorOptions(kFloat32));
  EXPECT_FALSE(x.is_pinned());
  const Tensor p = x.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(is_pinned(p)) << "the CUDA backend's own test agrees";
  const Tensor d = p.to(kCUDA, /*non_blocking=*/true, /*copy=*/false);
  Tensor back = empty({1 << 20}, TensorOptions(kFloat32)).pin_memory();
  back.copy_(d * 2, /*non_blocking=*/true);
  current_stream().synchronize();  // a non_blocking copy to the host is waited for by the caller
  expect_matches_cpu(back.to(kCUDA), x * 2, 0, 0, "round trip");
  // With a conversion on the way.
  const Tensor h = p.to(kCUDA, kFloat64, /*non_blocking=*/true, /*copy=*/false);
  expect_matches_cpu(h, x.to(kFloat64), 0, 0, "float32 -> float64");
}

TEST_P(CudaTest, TensorRecordStreamDelaysReuse) {
  const CUDAStream other = stream_from_pool();
  Tensor t = empty({4096}, TensorOptions(kFloat32).device(kCUDA));
  void* ptr = t.storage()->data();
  testing::spin_on_stream(other.handle(), 50);
  t.record_stream(other.unwrap());
  t = Tensor();
  Tensor u = empty({4096}, TensorOptions(kFloat32).device(kCUDA));
  EXPECT_NE(u.storage()->data(), ptr);
  other.synchronize();
  EXPECT_THROW(u.record_stream(ember::current_stream(kCPU)), Error);
}

TEST_P(CudaTest, CoreEventsOrderCudaStreams) {
  const CUDAStream a = stream_from_pool(), b = stream_from_pool();
  Event e(DeviceType::CUDA);
  testing::spin_on_stream(a.handle(), 20);
  e.record(a.unwrap());
  EXPECT_FALSE(e.query());
  e.block(b.unwrap());
  CUDAEvent on_b;
  on_b.record(b);
  EXPECT_FALSE(on_b.query()) << "b waits for a's spin";
  e.synchronize();
  EXPECT_TRUE(e.query());
  on_b.synchronize();
}

}  // namespace
}  // namespace ember::cuda::autograd_test
