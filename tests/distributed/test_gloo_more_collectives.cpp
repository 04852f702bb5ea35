// ProcessGroupGloo's reduce, all_gather, all_gather_into_tensor, gather,
// scatter, reduce_scatter, all_to_all(_single) and send/recv on 2 and 4 rank
// processes, against values computed locally.
#include <gtest/gtest.h>

#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>

#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::gloo_expected_value;
using ember::testing::gloo_input_value;
using ember::testing::init_gloo_from_test_store;
using ember::testing::is_bitwise;
using ember::testing::Ranks;
using ember::testing::store_env;
using ember::testing::tensor_of;
using ember::testing::values_of;
using ember::testing::check_values;
using ember::testing::kAllOps;

// The byte-moving collectives take every dtype.
std::vector<DType> moved_dtypes() {
  std::vector<DType> dtypes = ember::testing::gloo_reduce_dtypes();
  dtypes.insert(dtypes.end(), {DType::Bool, DType::Float16, DType::BFloat16, DType::Complex64});
  return dtypes;
}

// Element k of rank r's tensor in the byte-moving tests (exact in every dtype).
double moved_value(int r, int64_t k, DType dtype) {
  return dtype == DType::Bool ? double((r + k) % 2) : double((r * 13 + k) % 100);
}

std::vector<double> moved_values(int r, int64_t n, DType dtype, int64_t offset = 0) {
  std::vector<double> v(n);
  for (int64_t k = 0; k < n; ++k) v[k] = moved_value(r, offset + k, dtype);
  return v;
}

// A [rows, cols] non-contiguous view holding values (a transposed tensor).
Tensor transposed_of(const std::vector<double>& values, int64_t rows, int64_t cols, DType dtype) {
  Tensor base = tensor_of(values, dtype).reshape({rows, cols}).t().contiguous();  // [cols, rows]
  return base.t();
}

EMBER_DIST_WORKER(gloo_reduce_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  for (DType dtype : ember::testing::gloo_reduce_dtypes()) {
    for (ReduceOp op : kAllOps) {
      if (!ember::testing::gloo_op_applies(dtype, op)) continue;
      for (int root = 0; root < world_size; ++root) {
        std::vector<double> input(6), expected(6);
        for (int64_t k = 0; k < 6; ++k) {
          input[k] = gloo_input_value(rank, k, dtype, op);
          expected[k] = rank == root ? gloo_expected_value(world_size, k, dtype, op) : input[k];
        }
        std::ostringstream what;
        what << "rank " << rank << " reduce " << reduce_op_name(op) << " to " << root << " " << dtype;
        Tensor view = transposed_of(input, 2, 3, dtype);
        reduce(view, root, op);
        check_values(view.contiguous(), expected, what.str());
      }
    }
  }
  destroy_process_group();
}

EMBER_DIST_WORKER(gloo_gather_family_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  for (DType dtype : moved_dtypes()) {
    std::ostringstream tag;
    tag << "rank " << rank << " " << dtype << ": ";
    const Tensor input = transposed_of(moved_values(rank, 6, dtype), 2, 3, dtype);
    // all_gather into a list (one output non-contiguous).
    std::vector<Tensor> outputs;
    for (int r = 0; r < world_size; ++r) outputs.push_back(ember::zeros({2, 3}, ember::TensorOptions(dtype)));
    Tensor base = ember::zeros({3, 2}, ember::TensorOptions(dtype));
    outputs[0] = base.t();
    all_gather(outputs, input);
    for (int r = 0; r < world_size; ++r) check_values(outputs[r].contiguous(), moved_values(r, 6, dtype), tag.str() + "all_gather");
    // all_gather_into_tensor: [world * 2, 3].
    Tensor gathered = ember::zeros({world_size * 2, 3}, ember::TensorOptions(dtype));
    all_gather_into_tensor(gathered, input);
    std::vector<double> expected;
    for (int r = 0; r < world_size; ++r)
      for (double v : moved_values(r, 6, dtype)) expected.push_back(v);
    check_values(gathered, expected, tag.str() + "all_gather_into_tensor");
    for (int root = 0; root < world_size; ++root) {
      // gather to root.
      std::vector<Tensor> gather_list;
      if (rank == root)
        for (int r = 0; r < world_size; ++r) gather_list.push_back(ember::zeros({6}, ember::TensorOptions(dtype)));
      gather(input, gather_list, root);
      for (int r = 0; r < static_cast<int>(gather_list.size()); ++r)
        check_values(gather_list[r], moved_values(r, 6, dtype), tag.str() + "gather");
      // scatter from root: rank r gets the root's values at offset 10 r.
      std::vector<Tensor> scatter_list;
      if (rank == root)
        for (int r = 0; r < world_size; ++r) scatter_list.push_back(tensor_of(moved_values(root, 6, dtype, 10 * r), dtype));
      Tensor out = transposed_of(std::vector<double>(6, 0.0), 2, 3, dtype);
      scatter(out, scatter_list, root);
      check_values(out.contiguous(), moved_values(root, 6, dtype, 10 * rank), tag.str() + "scatter");
    }
  }
  destroy_process_group();
}

// Rank r's inputs[p][k] = gloo_input_value(r, p * 5 + k); rank p's output is
// the reduction over r of inputs[p].
EMBER_DIST_WORKER(gloo_reduce_scatter_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  for (DType dtype : ember::testing::gloo_reduce_dtypes()) {
    for (ReduceOp op : kAllOps) {
      if (!ember::testing::gloo_op_applies(dtype, op)) continue;
      std::vector<Tensor> inputs;
      for (int p = 0; p < world_size; ++p) {
        std::vector<double> v(5);
        for (int64_t k = 0; k < 5; ++k) v[k] = gloo_input_value(rank, p * 5 + k, dtype, op);
        inputs.push_back(tensor_of(v, dtype));
      }
      std::vector<double> expected(5);
      for (int64_t k = 0; k < 5; ++k) expected[k] = gloo_expected_value(world_size, rank * 5 + k, dtype, op);
      Tensor out = ember::zeros({5}, ember::TensorOptions(dtype));
      reduce_scatter(out, inputs, op);
      std::ostringstream what;
      what << "rank " << rank << " reduce_scatter " << reduce_op_name(op) << " " << dtype;
      check_values(out, expected, what.str());
    }
  }
  destroy_process_group();
}

// Row j of the rows rank r sends to rank p holds 1000 r + 100 p + j (rows of 2).
double a2a_value(int from, int to, int64_t row, int64_t col) { return 1000 * from + 100 * to + 10 * row + col; }

EMBER_DIST_WORKER(gloo_all_to_all_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  // Rank r sends (r + p) % 3 rows to rank p: uneven, some empty.
  auto rows = [](int from, int to) { return static_cast<int64_t>((from + to) % 3); };
  for (DType dtype : {DType::Float32, DType::Int64, DType::Float64}) {
    std::vector<int64_t> in_splits, out_splits;
    std::vector<double> in_values, expected;
    for (int p = 0; p < world_size; ++p) {
      in_splits.push_back(rows(rank, p));
      out_splits.push_back(rows(p, rank));
      for (int64_t j = 0; j < rows(rank, p); ++j)
        for (int64_t c = 0; c < 2; ++c) in_values.push_back(a2a_value(rank, p, j, c));
      for (int64_t j = 0; j < rows(p, rank); ++j)
        for (int64_t c = 0; c < 2; ++c) expected.push_back(a2a_value(p, rank, j, c));
    }
    const int64_t in_rows = static_cast<int64_t>(in_values.size()) / 2;
    const int64_t out_rows = static_cast<int64_t>(expected.size()) / 2;
    Tensor input = tensor_of(in_values, dtype).reshape({in_rows, 2});
    Tensor output = ember::zeros({out_rows, 2}, ember::TensorOptions(dtype));
    all_to_all_single(output, input, out_splits, in_splits);
    check_values(output, expected, "uneven all_to_all_single");
    // Equal splits: 2 rows to each rank.
    std::vector<double> eq_in, eq_expected;
    for (int p = 0; p < world_size; ++p)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t c = 0; c < 2; ++c) {
          eq_in.push_back(a2a_value(rank, p, j, c));
          eq_expected.push_back(a2a_value(p, rank, j, c));
        }
    Tensor eq_input = tensor_of(eq_in, dtype).reshape({2 * world_size, 2});
    Tensor eq_output = ember::zeros({2 * world_size, 2}, ember::TensorOptions(dtype));
    all_to_all_single(eq_output, eq_input);
    check_values(eq_output, eq_expected, "equal all_to_all_single");
    // The list form, with the uneven shapes.
    std::vector<Tensor> inputs, outputs;
    std::vector<double> list_expected;
    for (int p = 0; p < world_size; ++p) {
      std::vector<double> v;
      for (int64_t j = 0; j < rows(rank, p); ++j)
        for (int64_t c = 0; c < 2; ++c) v.push_back(a2a_value(rank, p, j, c));
      inputs.push_back(tensor_of(v, dtype).reshape({rows(rank, p), 2}));
      outputs.push_back(ember::zeros({rows(p, rank), 2}, ember::TensorOptions(dtype)));
    }
    all_to_all(outputs, inputs);
    std::vector<double> got;
    for (const Tensor& t : outputs)
      for (double v : values_of(t)) got.push_back(v);
    EMBER_CHECK(got == expected, "rank ", rank, " all_to_all (list) got wrong values");
  }
  // Splits that do not add up raise at the call.
  Tensor t = ember::zeros({world_size + 1, 2});
  const std::vector<int64_t> ones(static_cast<size_t>(world_size), 1);
  bool raised = false;
  try {
    all_to_all_single(t, t, ones, ones);
  } catch (const ember::Error& e) {
    const std::string expected = "input split sizes sum to " + std::to_string(world_size) + ", but the input has " +
                                 std::to_string(world_size + 1) + " rows";
    raised = std::string(e.what()).find(expected) != std::string::npos;
  }
  EMBER_CHECK(raised, "bad split sizes must raise");
  destroy_process_group();
}

// Rank 0 sends three tensors to every other rank with tags 7, 3, 7 (in that
// order); the receivers post tag 3 first: tags match by tag, same-tag messages
// in order. Then every rank > 0 sends its rank to rank 0, which receives from
// any source.
EMBER_DIST_WORKER(gloo_send_recv_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  if (rank == 0) {
    std::vector<std::shared_ptr<Work>> works;
    for (int dst = 1; dst < world_size; ++dst) {
      works.push_back(isend(tensor_of({1.0 * dst, 1.5}, DType::Float32), dst, 7));
      works.push_back(isend(tensor_of({2.0 * dst, 2.5}, DType::Float32), dst, 3));
      Tensor view = tensor_of({3.0 * dst, 0, 3.5, 0}, DType::Float32).reshape({2, 2}).narrow(1, 0, 1);
      works.push_back(isend(view, dst, 7));  // non-contiguous
    }
    for (auto& w : works) w->wait();
    std::vector<bool> seen(world_size, false);
    for (int i = 1; i < world_size; ++i) {
      Tensor got = ember::zeros({1}, ember::TensorOptions(DType::Int64));
      const int64_t src = recv(got, -1, 11);
      EMBER_CHECK(src >= 1 && src < world_size && got.item<int64_t>() == 100 * src && !seen[src],
                  "recv_anysource got ", got.item<int64_t>(), " from ", src);
      seen[src] = true;
    }
  } else {
    Tensor second = ember::zeros({2});
    auto w3 = irecv(second, 0, 3);
    Tensor first = ember::zeros({2});
    Tensor third_base = ember::zeros({2, 2});
    Tensor third = third_base.narrow(1, 1, 1);  // non-contiguous
    recv(first, 0, 7);
    recv(third, 0, 7);
    w3->wait();
    check_values(first, {1.0 * rank, 1.5}, "tag 7 first");
    check_values(second, {2.0 * rank, 2.5}, "tag 3");
    check_values(third_base, {0, 3.0 * rank, 0, 3.5}, "tag 7 second");
    send(tensor_of({100.0 * rank}, DType::Int64), 0, 11);
  }
  destroy_process_group();
}

class GlooMoreRanks : public ::testing::TestWithParam<int> {};

TEST_P(GlooMoreRanks, ReduceEveryOpDtypeAndRoot) {
  TCPStoreServer server;
  Ranks ranks("gloo_reduce_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooMoreRanks, GatherScatterFamilyEveryDtype) {
  TCPStoreServer server;
  Ranks ranks("gloo_gather_family_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooMoreRanks, ReduceScatterEveryOpAndDtype) {
  TCPStoreServer server;
  Ranks ranks("gloo_reduce_scatter_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooMoreRanks, AllToAllEqualUnevenAndList) {
  TCPStoreServer server;
  Ranks ranks("gloo_all_to_all_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooMoreRanks, SendRecvTagsOrderAndAnySource) {
  TCPStoreServer server;
  Ranks ranks("gloo_send_recv_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooMoreRanks, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;

// Tensors of several shapes (one non-contiguous) reduced as one buffer.
EMBER_DIST_WORKER(gloo_all_reduce_coalesced_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  for (ember::DType dtype : ember::testing::gloo_reduce_dtypes()) {
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::MAX, ReduceOp::AVG}) {
      if (!ember::testing::gloo_op_applies(dtype, op)) continue;
      std::vector<ember::Tensor> tensors;
      std::vector<std::vector<double>> expected;
      int64_t k0 = 0;
      for (int64_t n : {1, 6, 4}) {
        std::vector<double> in(n), want(n);
        for (int64_t k = 0; k < n; ++k) {
          in[k] = ember::testing::gloo_input_value(rank, k0 + k, dtype, op);
          want[k] = ember::testing::gloo_expected_value(world_size, k0 + k, dtype, op);
        }
        k0 += n;
        ember::Tensor t = ember::testing::tensor_of(in, dtype);
        if (n == 6) t = t.reshape({3, 2}).t().contiguous().t();  // a non-contiguous [3, 2] view of in
        tensors.push_back(t);
        expected.push_back(want);
      }
      all_reduce_coalesced(tensors, op);
      for (size_t i = 0; i < tensors.size(); ++i)
        ember::testing::check_values(tensors[i].contiguous(), expected[i], "all_reduce_coalesced");
    }
  }
  destroy_process_group();
}

// Complex all_reduce (SUM, PRODUCT, AVG) against std::complex computed here;
// rank r's element k is (r + k, r - 2k) / 4.
EMBER_DIST_WORKER(gloo_all_reduce_complex_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  for (ember::DType dtype : {ember::DType::Complex64, ember::DType::Complex128}) {
    const ember::DType real = dtype == ember::DType::Complex64 ? ember::DType::Float32 : ember::DType::Float64;
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::AVG}) {
      auto value = [](int r, int k) { return std::complex<double>((r + k) / 4.0, (r - 2 * k) / 4.0); };
      std::vector<double> parts;
      for (int k = 0; k < 3; ++k) parts.insert(parts.end(), {value(rank, k).real(), value(rank, k).imag()});
      ember::Tensor t = ember::testing::tensor_of(parts, real).view_dtype(dtype);
      all_reduce(t, op);
      std::vector<double> expected;
      for (int k = 0; k < 3; ++k) {
        std::complex<double> acc = value(0, k);
        for (int r = 1; r < world_size; ++r) acc = op == ReduceOp::PRODUCT ? acc * value(r, k) : acc + value(r, k);
        if (op == ReduceOp::AVG) acc /= static_cast<double>(world_size);
        expected.insert(expected.end(), {acc.real(), acc.imag()});
      }
      ember::testing::check_values(t.view_dtype(real), expected, "complex all_reduce");
    }
  }
  destroy_process_group();
}

TEST(ProcessGroupGlooComplex, AllReduceComplex4Ranks) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("gloo_all_reduce_complex_worker", 4, ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

class GlooCoalesced : public ::testing::TestWithParam<int> {};

TEST_P(GlooCoalesced, AllReduceCoalescedManyShapes) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("gloo_all_reduce_coalesced_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooCoalesced, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace
