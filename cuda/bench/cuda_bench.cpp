// ember_cuda_bench: times Ember's CUDA elementwise and reduction kernels,
// random numbers and cuFFT transforms
// (docs/cuda.md, "Benchmarks"). Each workload runs `--reps` times after
// warm-ups, each run timed with a pair of CUDA events on the current stream;
// the median is reported as one JSON line per workload:
//   {"name": "add", "ms": 0.71, "bytes": 3221225472, "gbps": 4536.2}
// bytes counts each input read once and each output written once (what a
// kernel must move at least), so gbps compares with the device-to-device
// copy's, which is measured the same way (read + write). torch_peer.py runs
// the same workloads with PyTorch on the same GPU.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <ember/cuda/cuda.h>
#include <ember/ember.h>

using namespace ember;

namespace {

double median_ms(const std::function<void()>& f, int reps) {
  for (int i = 0; i < 3; ++i) f();  // warm-up: allocator segments, first launches
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    cuda::CUDAEvent start(true), end(true);
    start.record();
    f();
    end.record();
    end.synchronize();
    ms.push_back(start.elapsed_time(end));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void report(const char* name, double ms, double bytes) {
  std::printf("{\"name\": \"%s\", \"ms\": %.4f, \"bytes\": %.0f, \"gbps\": %.1f}\n", name, ms, bytes,
              bytes / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = int64_t{256} << 20;  // 256 M floats, 1 GiB
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--numel") && i + 1 < argc) n = std::stoll(argv[++i]);
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::stoi(argv[++i]);
  }
  if (!cuda::is_available()) {
    std::fprintf(stderr, "ember_cuda_bench: no CUDA device\n");
    return 1;
  }
  const auto props = cuda::get_device_properties();
  std::fprintf(stderr, "ember_cuda_bench: %s, %lld elements, median of %d\n", props.name.c_str(),
               static_cast<long long>(n), reps);
  const TensorOptions f32 = TensorOptions(kFloat32).device(kCUDA);
  // Random data (not zeros: METHOD.md), drawn on the CPU in pieces and copied.
  Tensor a = empty({n}, f32), b = empty({n}, f32), out = empty({n}, f32);
  const int64_t piece = int64_t{16} << 20;
  for (int64_t s = 0; s < n; s += piece) {
    const int64_t len = std::min(piece, n - s);
    a.slice(0, s, s + len).copy_(randn({len}));
    b.slice(0, s, s + len).copy_(randn({len}));
  }
  const double fb = 4.0 * static_cast<double>(n);

  report("copy", median_ms([&] { out.copy_(a); }, reps), 2 * fb);
  report("add", median_ms([&] { add_out(out, a, b); }, reps), 3 * fb);
  report("mul", median_ms([&] { mul_out(out, a, b); }, reps), 3 * fb);
  report("exp", median_ms([&] { exp_out(out, a); }, reps), 2 * fb);
  report("add_scalar", median_ms([&] { (void)(a + 1.5); }, reps), 2 * fb);
  report("sum", median_ms([&] { (void)sum(a); }, reps), fb);
  const int64_t cols = 4096, rows = n / cols;
  const Tensor m = a.view({rows, cols});
  report("sum_rows", median_ms([&] { (void)sum(m, {1}); }, reps), fb + 4.0 * rows);
  report("sum_cols", median_ms([&] { (void)sum(m, {0}); }, reps), fb + 4.0 * cols);
  report("amax_rows", median_ms([&] { (void)amax(m, {1}); }, reps), fb + 4.0 * rows);
  report("argmax_rows", median_ms([&] { (void)argmax(m, 1); }, reps), fb + 8.0 * rows);
  // Layer-norm-style statistics: mean and variance of each row.
  report("var_rows", median_ms([&] { (void)var(m, {1}); }, reps), fb + 4.0 * rows);
  const Tensor h = a.slice(0, 0, n / 2).to(kBFloat16);
  report("sum_bf16", median_ms([&] { (void)sum(h); }, reps), 2.0 * static_cast<double>(n / 2));
  // Random numbers and FFTs (cuFFT), at fixed sizes whatever --numel says.
  // bytes: the output written (randn); the input read and the output written (FFTs).
  {
    const int64_t rn = int64_t{64} << 20;
    report("randn_64M_float32", median_ms([&] { (void)randn({rn}, f32); }, reps), 4.0 * rn);
    const int64_t fn = int64_t{1} << 24;
    const Tensor signal = randn({fn}).to(kCUDA);
    report("rfft_16M_float32", median_ms([&] { (void)fft::rfft(signal); }, reps), 4.0 * fn + 8.0 * (fn / 2 + 1));
    const Tensor image = view_as_complex(randn({4096, 4096, 2})).to(kCUDA);
    report("fft2_4096x4096_complex64", median_ms([&] { (void)fft::fft2(image); }, reps), 2 * 8.0 * 4096 * 4096);
  }
  // Scans and sorts (scan.cuh, sort.cuh): cumsum of 64 M floats (one row,
  // the chunked three-pass scan), sort of 16 M floats (values and int64 indices).
  if (n >= (int64_t{64} << 20)) {
    const Tensor c64 = a.slice(0, 0, int64_t{64} << 20);
    report("cumsum_64M_float32", median_ms([&] { (void)cumsum(c64, 0); }, reps), 2.0 * 4.0 * (64 << 20));
    const Tensor s16 = a.slice(0, 0, int64_t{16} << 20);
    report("sort_16M_float32", median_ms([&] { (void)sort(s16, 0); }, reps), (4.0 + 4.0 + 8.0) * (16 << 20));
  }
  // Indexing (docs/cuda.md, "Indexing and shape kernels"): fixed sizes, random indices.
  {
    const int64_t m16 = int64_t{16} << 20, m4 = int64_t{4} << 20;
    const int64_t rows16 = m16 / 256;  // [65536, 256] rows, all of them picked in random order
    const Tensor table = randn({rows16, 256}).to(kCUDA);
    const Tensor pick = randint(0, rows16, {rows16}).to(kCUDA);
    report("index_select_16M_float32_dim0", median_ms([&] { (void)index_select(table, 0, pick); }, reps),
           2 * 4.0 * m16 + 8.0 * rows16);
    const Tensor square = randn({4096, 4096}).to(kCUDA);
    const Tensor where = randint(0, 4096, {4096, 4096}).to(kCUDA);
    report("gather_16M_float32", median_ms([&] { (void)gather(square, 1, where); }, reps), (4.0 + 8.0 + 4.0) * m16);
    Tensor acc = zeros({int64_t{1} << 20}, f32);
    const Tensor at = randint(0, int64_t{1} << 20, {m4}).to(kCUDA);
    const Tensor vals = randn({m4}).to(kCUDA);
    report("index_put_accumulate_4M_float32", median_ms([&] { index_put_(acc, {at}, vals, true); }, reps),
           (4.0 + 8.0) * m4 + 2 * 4.0 * (int64_t{1} << 20));
  }
  {
    // Complex products: n complex64 elements (8 bytes each), parts from a and b.
    const TensorOptions c64 = TensorOptions(kComplex64).device(kCUDA);
    Tensor z = empty({n}, c64), w = empty({n}, c64), zo = empty({n}, c64);
    view_as_real(z).select(1, 0).copy_(a);
    view_as_real(z).select(1, 1).copy_(b);
    view_as_real(w).select(1, 0).copy_(b);
    view_as_real(w).select(1, 1).copy_(a);
    report("mul_256M_complex64", median_ms([&] { mul_out(zo, z, w); }, reps), 3 * 2 * fb);
  }

  // Softmax, layer-norm-style statistics (mean and biased variance of each row,
  // composed from reductions, then normalized) on an [8192, 8192] view of `a`:
  // bytes = the matrix read once and the result written once.
  const int64_t side = 8192;
  if (n >= side * side) {
    const Tensor x = a.slice(0, 0, side * side).view({side, side});
    const double xb = 4.0 * static_cast<double>(side * side);
    report("softmax_8192x8192_float32", median_ms([&] { (void)nn::functional::softmax(x, 1); }, reps), 2 * xb);
    report("layer_norm_style_8192x8192", median_ms([&] {
             const Tensor mu = mean(x, {1}, true), v = var(x, {1}, 0, true);
             (void)((x - mu) * rsqrt(v + 1e-5));
           }, reps), 2 * xb);
  } else {
    std::fprintf(stderr, "ember_cuda_bench: --numel below 8192^2: softmax and layer-norm rows skipped\n");
  }
  // Launch and engine overhead: 1,000 small elementwise ops on 1,024 floats,
  // forward and backward (bytes 0: not a bandwidth row).
  {
    Tensor t = randn({1024}).to(kCUDA).requires_grad_();
    report("autograd_chain_1000_ops", median_ms([&] {
             t.mutable_grad() = Tensor();
             Tensor y = t;
             for (int i = 0; i < 1000; ++i) y = i % 2 == 0 ? y * 1.0001 : y + 0.5;
             y.sum().backward();
           }, reps), 0);
  }
  std::fprintf(stderr, "%s", cuda::memory_summary().c_str());
  return 0;
}
