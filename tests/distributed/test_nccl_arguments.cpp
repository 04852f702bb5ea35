// ProcessGroupNCCL without a GPU: construction, init_process_group("nccl"),
// argument errors (CPU tensors, mixed devices), the dtype/op mapping and
// what the nccl backend does not offer. These run on every machine.
#include <gtest/gtest.h>

#include <ember/distributed/init.h>

#include "nccl_testing.h"
#include "process_group_nccl_internal.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using ember::testing::nccl_error_of;
using ember::testing::single_rank_nccl_group;

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << text << "' lacks '" << part << "'";
}

TEST(NcclArguments, AvailableWithItsVersion) {
  EXPECT_TRUE(nccl_is_available());
  EXPECT_GE(ProcessGroupNCCL::nccl_version(), 21400);  // non-blocking communicators
  auto group = single_rank_nccl_group(1500ms);
  EXPECT_EQ(group->backend_name(), "nccl");
  EXPECT_EQ(group->rank(), 0);
  EXPECT_EQ(group->size(), 1);
  EXPECT_EQ(group->timeout(), 1500ms);
  EXPECT_EQ(group->abort_reason(), "");
}

TEST(NcclArguments, BadConstructorArguments) {
  expect_contains(nccl_error_of([] { ProcessGroupNCCL(nullptr, 0, 1); }), "ProcessGroupNCCL: the store is null");
  expect_contains(nccl_error_of([] { ProcessGroupNCCL(std::make_shared<HashStore>(), 0, 1, {.timeout = 0ms}); }),
                  "ProcessGroupNCCL: the timeout must be positive, got 0 ms");
  expect_contains(nccl_error_of([] { ProcessGroupNCCL(std::make_shared<HashStore>(), 2, 2); }),
                  "rank 2 is outside [0, 2)");
}

TEST(NcclArguments, CpuTensorsRaiseNamingTheOp) {
  auto group = single_rank_nccl_group();
  Tensor t = ember::ones({4});
  Tensor out = ember::ones({4});
  std::vector<Tensor> list = {ember::ones({4})};
  const std::string cpu = "the nccl backend works on CUDA tensors, got ";
  expect_contains(nccl_error_of([&] { group->all_reduce(t); }), "ProcessGroupNCCL::all_reduce: " + cpu + "tensor on cpu");
  expect_contains(nccl_error_of([&] { group->broadcast(t); }), "ProcessGroupNCCL::broadcast: " + cpu + "tensor on cpu");
  expect_contains(nccl_error_of([&] { group->reduce(t); }), "ProcessGroupNCCL::reduce: " + cpu);
  expect_contains(nccl_error_of([&] { group->all_reduce_coalesced(list); }),
                  "ProcessGroupNCCL::all_reduce_coalesced: " + cpu + "tensors[0] on cpu");
  expect_contains(nccl_error_of([&] { group->all_gather(list, t); }), "ProcessGroupNCCL::all_gather: " + cpu + "input on cpu");
  expect_contains(nccl_error_of([&] { group->all_gather_into_tensor(out, t); }),
                  "ProcessGroupNCCL::all_gather_into_tensor: " + cpu);
  expect_contains(nccl_error_of([&] { group->gather(list, t); }), "ProcessGroupNCCL::gather: " + cpu);
  expect_contains(nccl_error_of([&] { group->scatter(out, list); }), "ProcessGroupNCCL::scatter: " + cpu);
  expect_contains(nccl_error_of([&] { group->reduce_scatter(out, list); }), "ProcessGroupNCCL::reduce_scatter: " + cpu);
  expect_contains(nccl_error_of([&] { group->all_to_all_single(out, t); }), "ProcessGroupNCCL::all_to_all_single: " + cpu);
  std::vector<Tensor> outs = {ember::ones({4})};
  expect_contains(nccl_error_of([&] { group->all_to_all(outs, list); }), "ProcessGroupNCCL::all_to_all: " + cpu);
  auto pair = std::make_shared<ProcessGroupNCCL>(std::make_shared<HashStore>(), 0, 2);
  expect_contains(nccl_error_of([&] { pair->send(t, 1); }), "ProcessGroupNCCL::send: " + cpu);
  expect_contains(nccl_error_of([&] { pair->recv(t, 1); }), "ProcessGroupNCCL::recv: " + cpu);
  // Nothing was issued: the group is still usable.
  EXPECT_EQ(group->abort_reason(), "");
}

TEST(NcclArguments, MixedDevicesRaise) {
  auto group = single_rank_nccl_group();
  Tensor cpu = ember::ones({4});
  Tensor other = ember::ones({4}, TensorOptions().device(kTestDevice));
  std::vector<Tensor> outputs = {other};
  expect_contains(nccl_error_of([&] { group->all_gather(outputs, cpu); }),
                  "ProcessGroupNCCL::all_gather: every tensor must be on one device, but input is on cpu and "
                  "outputs[0] on test:0");
  Tensor out = other;
  expect_contains(nccl_error_of([&] { group->all_gather_into_tensor(out, cpu); }),
                  "ProcessGroupNCCL::all_gather_into_tensor: every tensor must be on one device, but input is on cpu "
                  "and output on test:0");
  // One device, but not a CUDA one.
  expect_contains(nccl_error_of([&] { group->all_reduce(other); }),
                  "ProcessGroupNCCL::all_reduce: the nccl backend works on CUDA tensors, got tensor on test:0");
}

TEST(NcclArguments, ListLengthsAndUndefinedTensors) {
  auto group = single_rank_nccl_group();
  Tensor t = ember::ones({4});
  std::vector<Tensor> two = {ember::ones({4}), ember::ones({4})};
  expect_contains(nccl_error_of([&] { group->all_gather(two, t); }),
                  "ProcessGroupNCCL::all_gather: outputs holds 2 tensors, expected 1");
  expect_contains(nccl_error_of([&] { group->reduce_scatter(t, two); }),
                  "ProcessGroupNCCL::reduce_scatter: inputs holds 2 tensors, expected 1");
  std::vector<Tensor> wrong = {ember::ones({3})};
  expect_contains(nccl_error_of([&] { group->all_gather(wrong, t); }),
                  "ProcessGroupNCCL::all_gather: outputs[0] is tensor [3] float32, expected 4 elements of float32");
  Tensor undefined;
  expect_contains(nccl_error_of([&] { group->all_reduce(undefined); }), "ProcessGroupNCCL::all_reduce: tensor is undefined");
  std::vector<Tensor> none;
  expect_contains(nccl_error_of([&] { group->all_reduce_coalesced(none); }),
                  "ProcessGroupNCCL::all_reduce_coalesced: no tensors");
}

TEST(NcclArguments, WhatTheBackendDoesNotOffer) {
  auto group = single_rank_nccl_group();
  expect_contains(nccl_error_of([&] { group->monitored_barrier(100ms); }),
                  "ProcessGroupNCCL::monitored_barrier: not supported by the nccl backend");
  Tensor t = ember::ones({4});
  expect_contains(nccl_error_of([&] { group->recv_anysource(t); }),
                  "ProcessGroupNCCL::recv_anysource: not supported by the nccl backend");
}

TEST(NcclArguments, DtypeAndReduceOpMapping) {
  using nccl_detail::reduce_op;
  using nccl_detail::reduce_type;
  EXPECT_EQ(reduce_op(ReduceOp::SUM, DType::Float32, "all_reduce"), ncclSum);
  EXPECT_EQ(reduce_op(ReduceOp::PRODUCT, DType::Int64, "all_reduce"), ncclProd);
  EXPECT_EQ(reduce_op(ReduceOp::MIN, DType::Float16, "all_reduce"), ncclMin);
  EXPECT_EQ(reduce_op(ReduceOp::MAX, DType::BFloat16, "all_reduce"), ncclMax);
  EXPECT_EQ(reduce_op(ReduceOp::AVG, DType::Float64, "all_reduce"), ncclAvg);
  EXPECT_EQ(reduce_op(ReduceOp::AVG, DType::Int32, "all_reduce"), ncclAvg);
  // bool reduces as logic on bytes (PyTorch's mapping).
  EXPECT_EQ(reduce_op(ReduceOp::SUM, DType::Bool, "all_reduce"), ncclMax);
  EXPECT_EQ(reduce_op(ReduceOp::MAX, DType::Bool, "all_reduce"), ncclMax);
  EXPECT_EQ(reduce_op(ReduceOp::PRODUCT, DType::Bool, "all_reduce"), ncclMin);
  EXPECT_EQ(reduce_op(ReduceOp::MIN, DType::Bool, "all_reduce"), ncclMin);
  EXPECT_EQ(reduce_op(ReduceOp::SUM, DType::Complex64, "all_reduce"), ncclSum);
  EXPECT_EQ(reduce_op(ReduceOp::AVG, DType::Complex128, "all_reduce"), ncclAvg);

  EXPECT_EQ(reduce_type(DType::Bool)->type, ncclUint8);
  EXPECT_EQ(reduce_type(DType::BFloat16)->type, ncclBfloat16);
  EXPECT_EQ(reduce_type(DType::Complex64)->type, ncclFloat32);
  EXPECT_EQ(reduce_type(DType::Complex64)->per_element, 2);
  EXPECT_EQ(reduce_type(DType::Complex128)->type, ncclFloat64);
  EXPECT_FALSE(reduce_type(DType::Int16).has_value());

  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::BAND, DType::Int32, "all_reduce"); }),
                  "ProcessGroupNCCL::all_reduce: ReduceOp BAND is not supported by the nccl backend");
  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::BXOR, DType::Bool, "reduce"); }),
                  "ProcessGroupNCCL::reduce: ReduceOp BXOR is not supported");
  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::MAX, DType::Complex64, "all_reduce"); }),
                  "ReduceOp MAX does not apply to complex64 (complex tensors reduce with SUM and AVG only)");
  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::PRODUCT, DType::Complex128, "all_reduce"); }),
                  "ReduceOp PRODUCT does not apply to complex128");
  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::AVG, DType::Bool, "reduce_scatter"); }),
                  "ProcessGroupNCCL::reduce_scatter: ReduceOp AVG does not apply to bool");
  expect_contains(nccl_error_of([] { reduce_op(ReduceOp::SUM, DType::Int16, "all_reduce"); }),
                  "ProcessGroupNCCL::all_reduce: NCCL cannot reduce dtype int16");
}

TEST(NcclArguments, InitProcessGroupSelectsNccl) {
  auto store = std::make_shared<HashStore>();
  auto group = init_process_group("NCCL", {.rank = 0, .world_size = 1, .timeout = 5s, .store = store});
  EXPECT_EQ(group->backend_name(), "nccl");
  EXPECT_NE(dynamic_cast<ProcessGroupNCCL*>(group.get()), nullptr);
  EXPECT_EQ(get_world_size(), 1);
  // new_group makes groups of the default group's backend.
  auto sub = new_group({0});
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->backend_name(), "nccl");
  sub.reset();
  destroy_process_group();
  expect_contains(nccl_error_of([&] { init_process_group("mpi", {.rank = 0, .world_size = 1, .store = store}); }),
                  "init_process_group: unknown backend 'mpi'; Ember::distributed offers: gloo, nccl");
}

}  // namespace
}  // namespace ember::distributed
