// ProcessGroupNCCL on one GPU, world size 1: every collective against the
// values it must leave (a group of one rank reduces, gathers and scatters to
// itself), and the stream semantics of a Work (its wait() makes the caller's
// stream wait without blocking the host). Skipped without a GPU.
#include <gtest/gtest.h>

#include <thread>

#include "cuda/spin_kernel.h"
#include "gloo_testing.h"
#include "nccl_testing.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using ember::testing::check_values;
using ember::testing::gloo_expected_value;
using ember::testing::gloo_input_value;
using ember::testing::nccl_error_of;
using ember::testing::single_rank_nccl_group;
using ember::testing::tensor_of;
using ember::testing::values_of;

const Device kGpu(DeviceType::CUDA, 0);

Tensor gpu_of(const std::vector<double>& values, DType dtype) { return tensor_of(values, dtype).to(kGpu); }

TEST(NcclSingleRank, AllReduceEveryDtypeAndOp) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  auto group = single_rank_nccl_group();
  const std::vector<DType> dtypes = {DType::Bool,     DType::UInt8,   DType::Int8,    DType::Int32,  DType::Int64,
                                     DType::Float16,  DType::BFloat16, DType::Float32, DType::Float64};
  const ReduceOp ops[] = {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX, ReduceOp::AVG};
  for (DType dtype : dtypes) {
    for (ReduceOp op : ops) {
      if (dtype == DType::Bool && op == ReduceOp::AVG) continue;
      std::vector<double> in, expected;
      for (int64_t k = 0; k < 7; ++k) {
        in.push_back(gloo_input_value(0, k, dtype, op));
        expected.push_back(gloo_expected_value(1, k, dtype, op));
      }
      Tensor t = gpu_of(in, dtype);
      auto work = group->all_reduce(t, {.reduce_op = op});
      EXPECT_EQ(work->op(), "all_reduce");
      work->wait();
      ASSERT_NO_THROW(check_values(t.cpu(), expected, std::string("all_reduce ") + reduce_op_name(op)));
    }
  }
  // complex: SUM and AVG through the real view.
  Tensor z = ember::view_as_complex(tensor_of({1, 2, -3, 4.5}, DType::Float32).reshape({2, 2})).to(kGpu);
  const Tensor expected = ember::view_as_real(z.cpu());
  group->all_reduce(z, {.reduce_op = ReduceOp::AVG})->wait();
  EXPECT_EQ(values_of(ember::view_as_real(z.cpu())), values_of(expected));
  EXPECT_EQ(group->abort_reason(), "");
}

TEST(NcclSingleRank, UnsupportedReductionsRaise) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  auto group = single_rank_nccl_group();
  Tensor i16 = gpu_of({1, 2}, DType::Int16);
  EXPECT_NE(nccl_error_of([&] { group->all_reduce(i16); }).find("NCCL cannot reduce dtype int16"), std::string::npos);
  Tensor f = gpu_of({1, 2}, DType::Float32);
  EXPECT_NE(nccl_error_of([&] { group->all_reduce(f, {.reduce_op = ReduceOp::BOR}); }).find("BOR is not supported"),
            std::string::npos);
  Tensor strided = gpu_of({1, 2, 3, 4, 5, 6}, DType::Float32).reshape({2, 3}).t();
  EXPECT_NE(nccl_error_of([&] { group->all_reduce(strided); }).find("is not contiguous"), std::string::npos);
  EXPECT_NE(nccl_error_of([&] { group->broadcast(f, {.root_rank = 1}); }).find("root rank 1 is outside [0, 1)"),
            std::string::npos);
  // Argument errors issue nothing: the group still works.
  group->all_reduce(f)->wait();
  check_values(f.cpu(), {1, 2}, "all_reduce after argument errors");
}

TEST(NcclSingleRank, EveryCollectiveOnOneRank) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  auto group = single_rank_nccl_group();
  const std::vector<double> v = {1.5, -2, 3, 4.25, 0, 7};

  Tensor b = gpu_of(v, DType::Float64);
  group->broadcast(b, {.root_rank = 0})->wait();
  check_values(b.cpu(), v, "broadcast");

  Tensor r = gpu_of(v, DType::Float32);
  group->reduce(r, {.reduce_op = ReduceOp::MAX, .root_rank = 0})->wait();
  check_values(r.cpu(), v, "reduce");

  Tensor in = gpu_of(v, DType::Int64).reshape({2, 3});
  std::vector<Tensor> gathered = {ember::zeros({2, 3}, TensorOptions(DType::Int64).device(kGpu))};
  auto work = group->all_gather(gathered, in);
  work->wait();
  check_values(gathered[0].cpu(), v, "all_gather");
  EXPECT_EQ(work->result().size(), 1u);

  Tensor into = ember::zeros({6}, TensorOptions(DType::Float16).device(kGpu));
  group->all_gather_into_tensor(into, gpu_of(v, DType::Float16))->wait();
  check_values(into.cpu(), v, "all_gather_into_tensor");

  std::vector<Tensor> g = {ember::zeros({6}, TensorOptions(DType::Int32).device(kGpu))};
  group->gather(g, gpu_of({1, 2, 3, 4, 5, 6}, DType::Int32), {.root_rank = 0})->wait();
  check_values(g[0].cpu(), {1, 2, 3, 4, 5, 6}, "gather");

  Tensor scattered = ember::zeros({6}, TensorOptions(DType::UInt8).device(kGpu));
  group->scatter(scattered, {gpu_of({9, 8, 7, 6, 5, 4}, DType::UInt8)}, {.root_rank = 0})->wait();
  check_values(scattered.cpu(), {9, 8, 7, 6, 5, 4}, "scatter");

  Tensor rs = ember::zeros({6}, TensorOptions(DType::BFloat16).device(kGpu));
  group->reduce_scatter(rs, {gpu_of(v, DType::BFloat16)}, {.reduce_op = ReduceOp::SUM})->wait();
  check_values(rs.cpu(), v, "reduce_scatter");

  Tensor a2a_in = gpu_of(v, DType::Float32).reshape({3, 2});
  Tensor a2a_out = ember::zeros({3, 2}, TensorOptions(DType::Float32).device(kGpu));
  group->all_to_all_single(a2a_out, a2a_in)->wait();  // equal splits
  check_values(a2a_out.cpu(), v, "all_to_all_single (equal splits)");
  Tensor uneven_out = ember::zeros({3, 2}, TensorOptions(DType::Float32).device(kGpu));
  group->all_to_all_single(uneven_out, a2a_in, {3}, {3})->wait();
  check_values(uneven_out.cpu(), v, "all_to_all_single (split sizes)");
  EXPECT_NE(nccl_error_of([&] { group->all_to_all_single(uneven_out, a2a_in, {2}, {3}); })
                .find("output split sizes sum to 2, but the output has 3 rows"),
            std::string::npos);

  std::vector<Tensor> outs = {ember::zeros({2, 2}, TensorOptions(DType::Int8).device(kGpu))};
  group->all_to_all(outs, {gpu_of({1, -2, 3, -4}, DType::Int8).reshape({2, 2})})->wait();
  check_values(outs[0].cpu(), {1, -2, 3, -4}, "all_to_all");

  std::vector<Tensor> coalesced = {gpu_of({1, 2, 3}, DType::Float32), gpu_of({4, 5}, DType::Float32)};
  group->all_reduce_coalesced(coalesced, {.reduce_op = ReduceOp::SUM})->wait();
  check_values(coalesced[0].cpu(), {1, 2, 3}, "all_reduce_coalesced [0]");
  check_values(coalesced[1].cpu(), {4, 5}, "all_reduce_coalesced [1]");

  auto barrier = group->barrier();
  barrier->wait();
  EXPECT_TRUE(barrier->is_completed());  // a barrier's wait blocks the host

  // Empty tensors go through (no NCCL call needed).
  Tensor empty = ember::zeros({0}, TensorOptions(DType::Float32).device(kGpu));
  group->all_reduce(empty)->wait();
  // Sequence numbers count the collectives issued (argument errors issue none).
  Tensor last = gpu_of({1}, DType::Float32);
  EXPECT_EQ(group->all_reduce(last)->sequence_number(), 13u);
  EXPECT_EQ(group->abort_reason(), "");
}

TEST(NcclSingleRank, WaitMakesTheCallersStreamWait) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  auto group = single_rank_nccl_group();
  const cuda::CUDAStream stream = cuda::stream_from_pool(false, 0);
  cuda::CUDAStreamGuard guard(stream);
  Tensor t = gpu_of({1, 2, 3, 4}, DType::Float32);
  // The caller's stream is busy for 400 ms: the NCCL stream waits for it.
  cuda::testing::spin_on_stream(stream.handle(), 400);
  auto work = group->all_reduce(t);
  EXPECT_FALSE(work->is_completed());
  // wait(timeout) blocks the host, up to its timeout.
  EXPECT_NE(nccl_error_of([&] { work->wait(50ms); }).find("all_reduce (sequence number 0) did not complete within 50 ms"),
            std::string::npos);
  // wait() does not: it queues the dependency and returns.
  const auto start = std::chrono::steady_clock::now();
  work->wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 200ms);
  Tensor doubled = t * 2;  // on the caller's stream, after the all_reduce
  check_values(doubled.cpu(), {2, 4, 6, 8}, "work after wait()");
  EXPECT_TRUE(work->is_completed());
  EXPECT_TRUE(work->is_success());
}

}  // namespace
}  // namespace ember::distributed
