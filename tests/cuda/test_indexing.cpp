// The CUDA indexing kernels (index, index_put_, index_select, gather,
// scatter and its reductions, index_add/copy/fill, masked_select, nonzero,
// masked_scatter_) against the CPU's results on the same inputs, over every
// dtype, duplicate, negative and broadcast indices, non-contiguous operands,
// empty and 0-dim tensors; out-of-range indices (Note [CUDA index bound
// checks]) and deterministic algorithms (Note [Sorted accumulation]).
#include <cmath>
#include <string>
#include <vector>

#include "cuda/cuda_test.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::cuda {
namespace indexing_test {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kAllDTypes[] = {kBool,    kUInt8,     kInt8,    kInt16,   kInt32,     kInt64,
                                kFloat16, kBFloat16,  kFloat32, kFloat64, kComplex64, kComplex128};

// Small integer values (exact in every dtype, so sums and products do not
// depend on their order), or random bits for bool.
Tensor sample(IntArrayRef sizes, DType dt, int64_t seed) {
  manual_seed(seed);
  Tensor v = (randn(sizes, TensorOptions(kFloat64)) * 2).round();
  if (dt == kBool) return v.gt(0);
  if (is_complex(dt)) return complex(v, (randn(sizes, TensorOptions(kFloat64)) * 2).round()).to(dt);
  return v.to(dt);
}

std::string label(const char* what, DType dt) { return std::string(what) + " " + std::string(dtype_name(dt)); }

// Runs f on the CPU tensors and on their CUDA copies; the results must be equal.
template <class F>
void expect_same(const char* what, DType dt, const std::vector<Tensor>& cpu_inputs, F&& f, double rtol = 0,
                 double atol = 0) {
  std::vector<Tensor> gpu_inputs;
  for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(t.to(kCUDA));
  expect_matches_cpu(f(gpu_inputs), f(cpu_inputs), rtol, atol, label(what, dt));
}

// The message of the ember::Error that f raises ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

struct DeterministicScope {
  DeterministicScope() { set_deterministic(true); }
  ~DeterministicScope() { set_deterministic(false); }
};

Tensor longs(std::initializer_list<int64_t> v) { return tensor(v, TensorOptions(kInt64)); }

TEST_P(CudaTest, AdvancedIndexMatchesTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({5, 6, 7}, dt, 1);
    // Duplicate and negative indices on one dim (contiguous self: index_select's kernel).
    expect_same("index dim 0", dt, {x, longs({0, -1, 2, 2, 4})},
                [](const std::vector<Tensor>& t) { return index(t[0], {t[1]}); });
    // The same on a non-contiguous self (offsets + gather kernels).
    expect_same("index transposed", dt, {x, longs({3, -6, 0, 5})},
                [](const std::vector<Tensor>& t) { return index(t[0].transpose(0, 2), {std::nullopt, t[1]}); });
    // Broadcast index tensors [3, 1] and [1, 4] over two dims.
    expect_same("index broadcast", dt, {x, tensor({{0}, {4}, {-2}}, TensorOptions(kInt64)), longs({1, 0, 5, -1}).view({1, 4})},
                [](const std::vector<Tensor>& t) { return index(t[0], {t[1], t[2]}); });
    // Non-adjacent indexed dims (the result's indexed dims go first).
    expect_same("index non-adjacent", dt, {x, longs({1, 2}), longs({6, 0})},
                [](const std::vector<Tensor>& t) { return index(t[0], {t[1], std::nullopt, t[2]}); });
    // A non-contiguous index tensor (every other element).
    expect_same("index strided index", dt, {x, longs({0, 9, 1, 9, 3, 9})},
                [](const std::vector<Tensor>& t) { return index(t[0], {std::nullopt, t[1].slice(0, 0, 6, 2)}); });
    // Empty and 0-dim index tensors.
    expect_same("index empty", dt, {x, empty({0}, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return index(t[0], {t[1]}); });
    expect_same("index 0-dim", dt, {x, full({}, 3, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return index(t[0], {std::nullopt, t[1]}); });
    // A boolean mask (through nonzero).
    expect_same("index mask", dt, {x, sample({5, 6}, kBool, 2)},
                [](const std::vector<Tensor>& t) { return index(t[0], {t[1]}); });
  }
}

TEST_P(CudaTest, IndexPutMatchesTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({6, 5, 4}, dt, 3);
    // Distinct positions: the values land exactly where the CPU puts them.
    expect_same("index_put", dt, {x, longs({4, 0, -1}), longs({1, 3, 0}), sample({3, 4}, dt, 4)},
                [](const std::vector<Tensor>& t) { return index_put(t[0], {t[1], t[2]}, t[3]); });
    // Accumulate with duplicates (sorted: the CPU's order, so exact), a broadcast value.
    expect_same("index_put accumulate", dt, {x, longs({1, 1, -5, 2, 1, 0, 2}), sample({7, 5, 4}, dt, 5)},
                [](const std::vector<Tensor>& t) { return index_put(t[0], {t[1]}, t[2], true); });
    expect_same("index_put accumulate broadcast value", dt, {x, longs({3, 3, 3}), sample({4}, dt, 6)},
                [](const std::vector<Tensor>& t) { return index_put(t[0], {t[1]}, t[2], true); });
    // A non-contiguous self and values.
    expect_same("index_put transposed", dt, {x, longs({0, 2, 2}), sample({3, 4}, dt, 7)},
                [](const std::vector<Tensor>& t) {
                  Tensor s = t[0].clone().transpose(0, 2);
                  index_put_(s, {std::nullopt, std::nullopt, t[1]}, t[2].t().unsqueeze(1).expand({4, 5, 3}), true);
                  return s;
                });
    expect_same("index_put empty index", dt, {x, empty({0}, TensorOptions(kInt64)), sample({0, 5, 4}, dt, 8)},
                [](const std::vector<Tensor>& t) { return index_put(t[0], {t[1]}, t[2], true); });
  }
  // Float sums of many duplicates: the sorted accumulation adds in the CPU's
  // order, so even rounding matches.
  manual_seed(9);
  const Tensor x = randn({64});
  const Tensor idx = randint(0, 4, {100000}, TensorOptions(kInt64));
  const Tensor v = randn({100000});
  expect_same("index_put accumulate float order", kFloat32, {x, idx, v},
              [](const std::vector<Tensor>& t) { return index_put(t[0], {t[1]}, t[2], true); });
}

TEST_P(CudaTest, IndexSelectMatchesTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({4, 5, 6}, dt, 10);
    for (int64_t dim = 0; dim < 3; ++dim) {
      expect_same("index_select", dt, {x, longs({0, 3, 3, 1})},
                  [dim](const std::vector<Tensor>& t) { return index_select(t[0], dim, t[1]); });
      expect_same("index_select non-contiguous", dt, {x, longs({2, 0, 2})},
                  [dim](const std::vector<Tensor>& t) { return index_select(t[0].transpose(0, 2), dim, t[1]); });
    }
    expect_same("index_select int32 index", dt, {x, tensor({1, 0}, TensorOptions(kInt32))},
                [](const std::vector<Tensor>& t) { return index_select(t[0], 1, t[1]); });
    expect_same("index_select empty", dt, {x, empty({0}, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return index_select(t[0], 2, t[1]); });
    expect_same("index_select 0-dim self", dt, {sample({}, dt, 11), longs({0})},
                [](const std::vector<Tensor>& t) { return index_select(t[0], 0, t[1]); });
  }
}

TEST_P(CudaTest, GatherMatchesTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({4, 6, 5}, dt, 12);
    manual_seed(13);
    for (int64_t dim = 0; dim < 3; ++dim) {
      DimVector sizes{3, 4, 5};
      const Tensor idx = randint(0, x.size(dim), sizes, TensorOptions(kInt64));
      expect_same("gather", dt, {x, idx},
                  [dim](const std::vector<Tensor>& t) { return gather(t[0], dim, t[1]); });
      // Non-contiguous self and index.
      expect_same("gather non-contiguous", dt, {x, randint(0, 4, {5, 4, 3}, TensorOptions(kInt64))},
                  [dim](const std::vector<Tensor>& t) {
                    return gather(t[0].transpose(0, 2), dim, t[1].slice(0, 0, 5, 2));
                  });
    }
    expect_same("gather empty", dt, {x, empty({0, 6, 5}, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return gather(t[0], 0, t[1]); });
    expect_same("gather 0-dim", dt, {sample({}, dt, 14), full({}, 0, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return gather(t[0], 0, t[1]); });
    expect_same("take_along_dim broadcast", dt, {x, randint(0, 6, {1, 2, 1}, TensorOptions(kInt64))},
                [](const std::vector<Tensor>& t) { return take_along_dim(t[0], t[1], 1); });
  }
}

TEST_P(CudaTest, ScatterAndItsReductionsMatchTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor self = sample({5, 6}, dt, 15);
    const Tensor src = sample({4, 6}, dt, 16);
    // Along dim 0 with duplicates; along dim 1 without (plain scatter: a race on duplicates).
    const Tensor dup = tensor({{0, 1, 1, 4, 2, 0}, {1, 1, 3, 4, 2, 0}, {0, 2, 1, 4, 2, 0}, {0, 1, 1, 4, 2, 3}},
                              TensorOptions(kInt64));
    const Tensor perm = tensor({{5, 0, 3}, {1, 2, 4}}, TensorOptions(kInt64));
    expect_same("scatter", dt, {self, perm, src},
                [](const std::vector<Tensor>& t) { return scatter(t[0], 1, t[1], t[2]); });
    expect_same("scatter value", dt, {self, dup},
                [](const std::vector<Tensor>& t) { return scatter(t[0], 0, t[1], Scalar(1)); });
    expect_same("scatter_add", dt, {self, dup, src},
                [](const std::vector<Tensor>& t) { return scatter_add(t[0], 0, t[1], t[2]); });
    expect_same("scatter add value", dt, {self, dup},
                [](const std::vector<Tensor>& t) { return scatter(t[0], 0, t[1], Scalar(2), "add"); });
    expect_same("index_add", dt, {self, longs({4, 0, 4}), sample({5, 3}, dt, 17)},
                [](const std::vector<Tensor>& t) { return index_add(t[0], 1, t[1], t[2]); });
    expect_same("index_copy", dt, {self, longs({4, 0, 2}), sample({5, 3}, dt, 18)},
                [](const std::vector<Tensor>& t) { return index_copy(t[0], 1, t[1], t[2]); });
    expect_same("index_fill", dt, {self, longs({-1, 0, 0})},
                [](const std::vector<Tensor>& t) { return index_fill(t[0], 1, t[1], Scalar(1)); });
    // Non-contiguous self and src.
    expect_same("scatter_add transposed", dt, {self, dup.t().contiguous(), src},
                [](const std::vector<Tensor>& t) { return scatter_add(t[0].t(), 1, t[1], t[2].t()); });
    if (dt != kComplex128) {
      expect_same("scatter multiply", dt, {self, dup, src},
                  [](const std::vector<Tensor>& t) { return scatter(t[0], 0, t[1], t[2], "multiply"); }, 1e-2);
      for (bool include_self : {true, false})
        expect_same("scatter_reduce prod", dt, {self, dup, src}, [include_self](const std::vector<Tensor>& t) {
          return scatter_reduce(t[0], 0, t[1], t[2], "prod", include_self);
        }, 1e-2);
    }
    if (!is_complex(dt))
      for (const char* reduce : {"amax", "amin"})
        for (bool include_self : {true, false})
          expect_same(reduce, dt, {self, dup, src}, [reduce, include_self](const std::vector<Tensor>& t) {
            return scatter_reduce(t[0], 0, t[1], t[2], reduce, include_self);
          });
    if (is_floating_point(dt))
      for (bool include_self : {true, false})
        expect_same("scatter_reduce mean", dt, {self, dup, src}, [include_self](const std::vector<Tensor>& t) {
          return scatter_reduce(t[0], 0, t[1], t[2], "mean", include_self);
        }, 1e-2, 1e-6);
    expect_same("scatter_add empty index", dt, {self, empty({0, 6}, TensorOptions(kInt64)), src},
                [](const std::vector<Tensor>& t) { return scatter_add(t[0], 0, t[1], t[2]); });
  }
  // amax/amin: NaN wins, as on the CPU.
  const Tensor with_nan = tensor({1.0f, NAN, -2.0f, 3.0f});
  for (const char* reduce : {"amax", "amin"})
    expect_same(reduce, kFloat32, {zeros({2}), longs({0, 0, 1, 1}), with_nan}, [reduce](const std::vector<Tensor>& t) {
      return scatter_reduce(t[0], 0, t[1], t[2], reduce, false);
    });
  // Many float collisions (atomics: the order varies, so a tolerance).
  manual_seed(19);
  const Tensor idx = randint(0, 8, {1, 50000}, TensorOptions(kInt64));
  expect_same("scatter_add float collisions", kFloat32, {zeros({1, 8}), idx, randn({1, 50000})},
              [](const std::vector<Tensor>& t) { return scatter_add(t[0], 1, t[1], t[2]); }, 1e-4, 1e-2);
}

// f(x, bad) on the CPU and on the GPU must raise the same error (one bad index each).
template <class F>
void expect_same_error(const char* what, const Tensor& x, const Tensor& bad, F&& f) {
  const std::string cpu = error_of([&] { f(x.clone(), bad); });
  const std::string gpu = error_of([&] { f(x.to(kCUDA), bad.to(kCUDA)); });
  EXPECT_NE(cpu.find("out of bounds"), std::string::npos) << what << ": the CPU raised \"" << cpu << "\"";
  EXPECT_EQ(gpu, cpu) << what;
}

TEST_P(CudaTest, OutOfRangeIndicesRaiseTheCpuError) {
  const Tensor x = arange(0, 12, TensorOptions(kFloat32)).view({3, 4});
  const Tensor bad = longs({0, 5});
  expect_same_error("gather", x, bad, [](Tensor s, Tensor i) { gather(s, 1, i.view({1, 2})); });
  expect_same_error("index_select", x, bad, [](Tensor s, Tensor i) { index_select(s, 0, i); });
  expect_same_error("index_select negative", x, longs({-1}), [](Tensor s, Tensor i) { index_select(s, 0, i); });
  expect_same_error("index non-contiguous", x, bad, [](Tensor s, Tensor i) { index(s.t(), {i}); });
  expect_same_error("index negative", x, longs({-4}), [](Tensor s, Tensor i) { index(s, {i}); });
  expect_same_error("index_put_ accumulate", x, bad,
                    [](Tensor s, Tensor i) { index_put_(s, {i}, ones({2, 4}, s.options()), true); });
  expect_same_error("scatter_add_", x, bad,
                    [](Tensor s, Tensor i) { s.scatter_add_(1, i.view({1, 2}), ones({1, 2}, s.options())); });
  expect_same_error("scatter_ value", x, bad, [](Tensor s, Tensor i) { s.scatter_(1, i.view({1, 2}), Scalar(3)); });
  expect_same_error("index_fill_", x, bad, [](Tensor s, Tensor i) { s.index_fill_(1, i, Scalar(7)); });
  expect_same_error("index_add_", x, bad,
                    [](Tensor s, Tensor i) { s.index_add_(1, i, ones({3, 2}, s.options())); });
  {
    DeterministicScope deterministic;
    expect_same_error("deterministic scatter_add_", x, bad,
                      [](Tensor s, Tensor i) { s.scatter_add_(1, i.view({1, 2}), ones({1, 2}, s.options())); });
  }
  // A bad index writes nothing (its neighbours in the same call may have
  // been written, as on the CPU); the device stays usable after the errors.
  Tensor y = x.to(kCUDA);
  EXPECT_FALSE(error_of([&] { y.index_fill_(1, bad.to(kCUDA), Scalar(7)); }).empty());
  Tensor expected = x.clone();
  expected.select(1, 0).fill_(7);
  expect_matches_cpu(y, expected, 0, 0, "index_fill_ with a bad index");
  Tensor z = x.to(kCUDA);
  EXPECT_FALSE(error_of([&] { z.scatter_add_(0, longs({7}).view({1, 1}).to(kCUDA), ones({1, 1}, z.options())); }).empty());
  expect_matches_cpu(z, x, 0, 0, "scatter_add_ of a bad index");
  expect_matches_cpu(index_select(x.to(kCUDA), 0, longs({2}).to(kCUDA)), x.narrow(0, 2, 1), 0, 0, "after the errors");
}

// A CPU index meeting a CUDA self raises (the kernels would read it as a device address).
TEST_P(CudaTest, CpuIndexTensorsRaise) {
  const Tensor x = arange(0, 12, TensorOptions(kFloat32).device(kCUDA)).view({3, 4});
  const Tensor cpu_index = longs({0, 2});
  EXPECT_FALSE(error_of([&] { index_select(x, 0, cpu_index); }).empty());
  EXPECT_FALSE(error_of([&] { gather(x, 1, cpu_index.view({1, 2})); }).empty());
  EXPECT_FALSE(error_of([&] { scatter_add(x, 1, cpu_index.view({1, 2}), ones({1, 2}, x.options())); }).empty());
  EXPECT_FALSE(error_of([&] { masked_select(x, ones({3, 4}, TensorOptions(kBool))); }).empty());
  // The device is still usable.
  expect_matches_cpu(gather(x, 1, cpu_index.view({1, 2}).to(kCUDA)), tensor({{0.f, 2.f}}), 0, 0, "after the errors");
}

TEST_P(CudaTest, DeterministicAlgorithmsSortOrRaise) {
  DeterministicScope deterministic;
  manual_seed(20);
  const Tensor idx = randint(0, 16, {1, 200000}, TensorOptions(kInt64));
  const Tensor src = randn({1, 200000});
  const Tensor expected = scatter_add(zeros({1, 16}), 1, idx, src);
  // Sorted, in the CPU's order: bitwise the CPU's result, every run.
  const Tensor a = scatter_add(zeros({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA));
  const Tensor b = scatter_add(zeros({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA));
  expect_matches_cpu(a, expected, 0, 0, "deterministic scatter_add");
  expect_matches_cpu(b, expected, 0, 0, "deterministic scatter_add, again");
  const Tensor flat = idx.view({-1}), values = src.view({-1});
  expect_matches_cpu(index_add(zeros({16}, TensorOptions(kCUDA)), 0, flat.to(kCUDA), values.to(kCUDA)),
                     index_add(zeros({16}), 0, flat, values), 0, 0, "deterministic index_add");
  expect_matches_cpu(scatter_reduce(zeros({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA), "mean"),
                     scatter_reduce(zeros({1, 16}), 1, idx, src, "mean"), 0, 0, "deterministic scatter_reduce mean");
  // Plain scatter and index_put_ with repeated indices: the last write wins, as the CPU's serial order.
  const Tensor rep = longs({1, 3, 1, 1, 3});
  const Tensor vals = tensor({1.f, 2.f, 3.f, 4.f, 5.f});
  expect_matches_cpu(scatter(zeros({4}, TensorOptions(kCUDA)), 0, rep.to(kCUDA), vals.to(kCUDA)),
                     tensor({0.f, 4.f, 0.f, 5.f}), 0, 0, "deterministic scatter");
  expect_matches_cpu(index_put(zeros({4}, TensorOptions(kCUDA)), {rep.to(kCUDA)}, vals.to(kCUDA)),
                     tensor({0.f, 4.f, 0.f, 5.f}), 0, 0, "deterministic index_put_");
  // No deterministic kernel: prod and multiply raise, naming the op.
  const std::string prod = error_of([&] {
    scatter_reduce(ones({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA), "prod");
  });
  EXPECT_NE(prod.find("scatter_reduce (reduce multiply) does not have a deterministic implementation"),
            std::string::npos)
      << prod;
  EXPECT_NE(error_of([&] { scatter(ones({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA), "multiply"); })
                .find("deterministic"),
            std::string::npos);
  // amax/amin do not depend on the order: they run.
  expect_matches_cpu(scatter_reduce(zeros({1, 16}, TensorOptions(kCUDA)), 1, idx.to(kCUDA), src.to(kCUDA), "amax"),
                     scatter_reduce(zeros({1, 16}), 1, idx, src, "amax"), 0, 0, "deterministic amax");
}

TEST_P(CudaTest, MaskKernelsMatchTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({7, 9}, dt, 21);
    const Tensor mask = sample({7, 9}, kBool, 22);
    expect_same("masked_select", dt, {x, mask},
                [](const std::vector<Tensor>& t) { return masked_select(t[0], t[1]); });
    expect_same("masked_select broadcast mask", dt, {x, mask.select(0, 1)},
                [](const std::vector<Tensor>& t) { return masked_select(t[0].t().t(), t[1]); });
    expect_same("masked_select none", dt, {x, zeros({7, 9}, TensorOptions(kBool))},
                [](const std::vector<Tensor>& t) { return masked_select(t[0], t[1]); });
    expect_same("nonzero", dt, {x}, [](const std::vector<Tensor>& t) { return nonzero(t[0]); });
    expect_same("nonzero transposed", dt, {x}, [](const std::vector<Tensor>& t) { return nonzero(t[0].t()); });
    expect_same("nonzero 0-dim", dt, {sample({}, dt, 23)}, [](const std::vector<Tensor>& t) { return nonzero(t[0]); });
    expect_same("nonzero empty", dt, {sample({0, 3}, dt, 24)}, [](const std::vector<Tensor>& t) { return nonzero(t[0]); });
    expect_same("masked_scatter", dt, {x, mask, sample({70}, dt, 25)},
                [](const std::vector<Tensor>& t) { return masked_scatter(t[0], t[1], t[2]); });
    expect_same("masked_scatter transposed", dt, {x, mask, sample({70}, dt, 26)},
                [](const std::vector<Tensor>& t) { return masked_scatter(t[0].t(), t[1].t(), t[2]); });
  }
  // Large, across CUB's scan tiles.
  manual_seed(27);
  const Tensor big = rand({3000000}).gt(0.7);
  expect_same("nonzero large", kBool, {big}, [](const std::vector<Tensor>& t) { return nonzero(t[0]); });
  // Too small a source: the CPU's error.
  const std::string msg = error_of([] {
    masked_scatter(zeros({4}, TensorOptions(kCUDA)), ones({4}, TensorOptions(kBool).device(kCUDA)),
                   ones({3}, TensorOptions(kCUDA)));
  });
  EXPECT_NE(msg.find("number of elements of source (3) < number of ones in mask (4)"), std::string::npos) << msg;
}

TEST_P(CudaTest, MissingKernelsOfTheIndexingFamily) {
  const std::vector<std::string> missing = missing_kernels(DeviceType::CUDA);
  auto starting = [&](const std::string& prefix) {
    std::vector<std::string> found;
    for (const std::string& m : missing)
      if (m.rfind(prefix, 0) == 0) found.push_back(m);
    return found;
  };
  // Every indexing, mask and shape slot has its kernel in every dtype...
  for (const char* slot : {"index_offsets", "index (", "index_put_", "index_select", "gather", "masked_select",
                           "nonzero", "masked_scatter_", "remap_copy", "triangle"})
    EXPECT_TRUE(starting(slot).empty()) << slot << ": " << (starting(slot).empty() ? "" : starting(slot)[0]);
  // ...but scatter's multiply of complex128 (a 16-byte compare-and-swap).
  EXPECT_EQ(starting("scatter: "), std::vector<std::string>{"scatter: multiply (complex128)"});
  EXPECT_EQ(starting("scatter_scalar: "), std::vector<std::string>{"scatter_scalar: multiply (complex128)"});
  // dot: the real floating dtypes only.
  const std::vector<std::string> dot = starting("dot (");
  ASSERT_EQ(dot.size(), 1u);
  EXPECT_NE(dot[0].find("complex64"), std::string::npos) << dot[0];
  EXPECT_NE(dot[0].find("int64"), std::string::npos) << dot[0];
  EXPECT_EQ(dot[0].find("float"), std::string::npos) << dot[0];
}

}  // namespace indexing_test
}  // namespace ember::cuda
