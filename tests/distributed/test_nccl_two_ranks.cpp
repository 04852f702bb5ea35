// ProcessGroupNCCL with two rank processes, one GPU each, against values
// computed here (the same inputs and float64/int64 references as the Gloo
// tests). Skipped with fewer than two GPUs: NCCL refuses two ranks of one
// communicator on one GPU.
#include <gtest/gtest.h>

#include "gloo_testing.h"
#include "multiprocess.h"
#include "nccl_testing.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using ember::testing::check_values;
using ember::testing::env_int;
using ember::testing::gloo_expected_value;
using ember::testing::gloo_input_value;
using ember::testing::Ranks;
using ember::testing::store_env;
using ember::testing::tensor_of;

EMBER_DIST_WORKER(nccl_two_rank_worker) {
  auto store = std::make_shared<TCPStore>(
      "127.0.0.1", TCPStoreOptions{.port = static_cast<uint16_t>(env_int("STORE_PORT")), .timeout = 30s});
  init_process_group("nccl", {.rank = rank, .world_size = world_size, .timeout = 30s, .store = store});
  auto group = default_process_group();
  const Device gpu(DeviceType::CUDA, static_cast<int16_t>(rank));
  cuda::set_device(static_cast<int16_t>(rank));
  auto on_gpu = [&](const std::vector<double>& v, DType dtype) { return tensor_of(v, dtype).to(gpu); };
  const std::string who = "rank " + std::to_string(rank);

  // all_reduce: every op NCCL offers on a few dtypes.
  for (DType dtype : {DType::Float32, DType::Int64, DType::Bool, DType::BFloat16, DType::Int8}) {
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX, ReduceOp::AVG}) {
      if (dtype == DType::Bool && op == ReduceOp::AVG) continue;
      std::vector<double> in, expected;
      for (int64_t k = 0; k < 9; ++k) {
        in.push_back(gloo_input_value(rank, k, dtype, op));
        expected.push_back(gloo_expected_value(world_size, k, dtype, op));
      }
      Tensor t = on_gpu(in, dtype);
      all_reduce(t, op);
      check_values(t.cpu(), expected, who + ": all_reduce " + reduce_op_name(op));
    }
  }
  // broadcast and reduce from rank 1.
  Tensor b = on_gpu({double(rank), double(rank + 10)}, DType::Float64);
  broadcast(b, 1);
  check_values(b.cpu(), {1, 11}, who + ": broadcast");
  Tensor r = on_gpu({double(rank + 1), 2}, DType::Int32);
  reduce(r, 1, ReduceOp::PRODUCT);
  check_values(r.cpu(), rank == 1 ? std::vector<double>{2, 4} : std::vector<double>{1, 2}, who + ": reduce");
  // gathers
  Tensor mine = on_gpu({double(rank), double(rank) + 0.5}, DType::Float32);
  std::vector<Tensor> all = {ember::zeros({2}, TensorOptions(kFloat32).device(gpu)),
                             ember::zeros({2}, TensorOptions(kFloat32).device(gpu))};
  all_gather(all, mine);
  check_values(all[0].cpu(), {0, 0.5}, who + ": all_gather [0]");
  check_values(all[1].cpu(), {1, 1.5}, who + ": all_gather [1]");
  Tensor flat = ember::zeros({4}, TensorOptions(kFloat32).device(gpu));
  all_gather_into_tensor(flat, mine);
  check_values(flat.cpu(), {0, 0.5, 1, 1.5}, who + ": all_gather_into_tensor");
  std::vector<Tensor> at_root;
  if (rank == 0) at_root = {ember::zeros({2}, TensorOptions(kFloat32).device(gpu)),
                            ember::zeros({2}, TensorOptions(kFloat32).device(gpu))};
  gather(mine, at_root, 0);
  if (rank == 0) {
    check_values(at_root[0].cpu(), {0, 0.5}, who + ": gather [0]");
    check_values(at_root[1].cpu(), {1, 1.5}, who + ": gather [1]");
  }
  Tensor piece = ember::zeros({2}, TensorOptions(kInt64).device(gpu));
  std::vector<Tensor> pieces;
  if (rank == 1) pieces = {on_gpu({5, 6}, kInt64), on_gpu({7, 8}, kInt64)};
  scatter(piece, pieces, 1);
  check_values(piece.cpu(), rank == 0 ? std::vector<double>{5, 6} : std::vector<double>{7, 8}, who + ": scatter");
  // reduce_scatter: rank r gets the sum of inputs[r].
  Tensor rs = ember::zeros({2}, TensorOptions(kFloat32).device(gpu));
  std::vector<Tensor> rs_in = {on_gpu({double(rank), 1}, kFloat32), on_gpu({10, double(10 * rank)}, kFloat32)};
  reduce_scatter(rs, rs_in, ReduceOp::SUM);
  check_values(rs.cpu(), rank == 0 ? std::vector<double>{1, 2} : std::vector<double>{20, 10}, who + ": reduce_scatter");
  // all_to_all_single with uneven splits (a zero included): rank 0 sends
  // 1 row to itself and 2 to rank 1; rank 1 sends 0 rows to rank 0 and 1 to itself.
  const std::vector<int64_t> in_splits = rank == 0 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{0, 1};
  const std::vector<int64_t> out_splits = rank == 0 ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{2, 1};
  Tensor a2a_in = rank == 0 ? on_gpu({1, 2, 3, 4, 5, 6}, kFloat32).reshape({3, 2}) : on_gpu({7, 8}, kFloat32).reshape({1, 2});
  Tensor a2a_out = ember::zeros({rank == 0 ? 1 : 3, 2}, TensorOptions(kFloat32).device(gpu));
  all_to_all_single(a2a_out, a2a_in, out_splits, in_splits);
  check_values(a2a_out.cpu(), rank == 0 ? std::vector<double>{1, 2} : std::vector<double>{3, 4, 5, 6, 7, 8},
               who + ": all_to_all_single (uneven)");
  std::vector<Tensor> outs = {ember::zeros({1}, TensorOptions(kInt32).device(gpu)),
                              ember::zeros({1}, TensorOptions(kInt32).device(gpu))};
  std::vector<Tensor> ins = {on_gpu({double(10 * rank)}, kInt32), on_gpu({double(10 * rank + 1)}, kInt32)};
  all_to_all(outs, ins);
  check_values(outs[0].cpu(), {double(rank)}, who + ": all_to_all [0]");
  check_values(outs[1].cpu(), {double(10 + rank)}, who + ": all_to_all [1]");
  // point to point, both ways
  Tensor msg = on_gpu({double(rank + 100), 3}, kFloat32);
  Tensor got = ember::zeros({2}, TensorOptions(kFloat32).device(gpu));
  if (rank == 0) {
    send(msg, 1, 7);
    recv(got, 1, 8);
  } else {
    recv(got, 0, 7);
    send(msg, 0, 8);
  }
  check_values(got.cpu(), {double(101 - rank), 3}, who + ": send/recv");
  std::vector<Tensor> coalesced = {on_gpu({1, double(rank)}, kFloat64), on_gpu({double(rank * 3)}, kFloat64)};
  all_reduce_coalesced(coalesced, ReduceOp::MAX);
  check_values(coalesced[0].cpu(), {1, 1}, who + ": all_reduce_coalesced [0]");
  check_values(coalesced[1].cpu(), {3}, who + ": all_reduce_coalesced [1]");
  barrier();
  destroy_process_group();
}

TEST(NcclTwoRanks, EveryCollective) {
  EMBER_NCCL_REQUIRE_GPUS(2);
  TCPStoreServer server;
  Ranks ranks("nccl_two_rank_worker", 2, store_env(server));
  EXPECT_TRUE(ranks.all_succeed(120s));
}

}  // namespace
}  // namespace ember::distributed
