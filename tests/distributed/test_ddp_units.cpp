// The pieces of DistributedDataParallel that need no process group: bucket
// assignment (first bucket small, dtypes apart, sizes and order), CommFuture
// chaining and errors, GradBucket views, PowerSGD's orthogonalization and
// option checks.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/distributed/ddp/bucket_assignment.h>
#include <ember/distributed/ddp/comm_future.h>
#include <ember/distributed/ddp/grad_bucket.h>
#include <ember/distributed/ddp/powersgd_hook.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>

namespace {

using namespace ember;
using namespace ember::distributed;
using Buckets = std::vector<std::vector<size_t>>;

template <class F>
void expect_error(F&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

std::vector<size_t> reversed(size_t n) {
  std::vector<size_t> order;
  for (size_t i = n; i-- > 0;) order.push_back(i);
  return order;
}

TEST(DdpBucketAssignment, FirstBucketSmallThenCapInReverseOrder) {
  // float32 parameters of 100, 200, 300, 400, 500 elements (400 .. 2000 bytes).
  std::vector<Tensor> params;
  for (int64_t n : {100, 200, 300, 400, 500}) params.push_back(zeros({n}, kFloat32));
  // First bucket closes at >= 1000 bytes, later ones at >= 2400.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(5), 1000, 2400), (Buckets{{4}, {3, 2}, {1, 0}}));
  // A cap smaller than every parameter: one bucket each.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(5), 1, 1), (Buckets{{4}, {3}, {2}, {1}, {0}}));
  // Everything fits: one bucket.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(5), 1 << 20, 25 << 20), (Buckets{{4, 3, 2, 1, 0}}));
  // Another order (rebuilt buckets) is followed as given.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, {0, 1, 2, 3, 4}, 1000, 2400), (Buckets{{0, 1}, {2, 3}, {4}}));
}

TEST(DdpBucketAssignment, DtypesGetTheirOwnBuckets) {
  std::vector<Tensor> params = {zeros({10}, kFloat32), zeros({10}, kFloat64), zeros({10}, kFloat32),
                                zeros({10}, kFloat64)};
  // Each dtype fills its own buckets; buckets ordered by their first parameter.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(4), 1 << 20, 1 << 20), (Buckets{{3, 1}, {2, 0}}));
  // float64 (80 bytes each) closes a bucket at every parameter, float32 (40) every second.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(4), 80, 80), (Buckets{{3}, {2, 0}, {1}}));
  // A first bucket of 40 bytes closes at once for both dtypes.
  EXPECT_EQ(compute_bucket_assignment_by_size(params, reversed(4), 40, 80), (Buckets{{3}, {2}, {1}, {0}}));
}

TEST(DdpBucketAssignment, BadOrdersAndLimits) {
  std::vector<Tensor> params = {zeros({4}), zeros({4})};
  expect_error([&] { compute_bucket_assignment_by_size(params, {0, 0}, 10, 10); }, "bad or repeated index 0");
  expect_error([&] { compute_bucket_assignment_by_size(params, {0}, 10, 10); }, "the order lists 1 parameters");
  expect_error([&] { compute_bucket_assignment_by_size(params, {0, 1}, 0, 10); }, "must be positive");
}

TEST(DdpCommFuture, ThenChainsRunOnceWhenWaited) {
  int runs = 0;
  auto first = CommFuture::ready(tensor(std::vector<double>{1, 2}, kFloat64));
  auto second = first->then([&](const Tensor& t) {
    ++runs;
    return t * 10;
  });
  EXPECT_EQ(runs, 0);  // lazy: nothing runs before wait
  EXPECT_FALSE(second->is_completed());
  Tensor v = second->wait();
  EXPECT_EQ(v.to(kFloat64).data_ptr<double>()[1], 20.0);
  second->wait();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(second->is_completed());
}

TEST(DdpCommFuture, ErrorsPropagateThroughTheChain) {
  auto failing = std::make_shared<CommFuture>([]() -> Tensor { EMBER_FAIL("all_reduce failed on purpose"); });
  auto chained = failing->then([](const Tensor& t) { return t; });
  expect_error([&] { chained->wait(); }, "all_reduce failed on purpose");
  expect_error([&] { chained->wait(); }, "all_reduce failed on purpose");  // every time
  expect_error([] { CommFuture::from_work(nullptr); }, "the work is null");
}

TEST(DdpGradBucket, GradientsAreViewsOfTheBuffer) {
  Tensor buffer = arange(0, 10, 1, TensorOptions(kFloat64));
  std::vector<Tensor> params = {zeros({2, 3}, kFloat64), zeros({4}, kFloat64)};
  GradBucket bucket(1, true, buffer, params, {0, 6}, nullptr);
  auto grads = bucket.gradients();
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(grads[0].sizes(), params[0].sizes());
  EXPECT_EQ(grads[1].to(kFloat64).data_ptr<double>()[0], 6.0);
  grads[1].fill_(-1);
  EXPECT_EQ(buffer.data_ptr<double>()[9], -1.0);
  expect_error([&] { bucket.set_buffer(zeros({9})); }, "bucket 1 needs a 1-D tensor of 10 elements, got 9");
  expect_error([&] { GradBucket bad(0, false, buffer, params, {0}, nullptr); }, "2 parameters but 1 offsets");
}

TEST(DdpPowerSGD, OrthogonalizeMakesOrthonormalColumns) {
  Generator g(7);
  Tensor m = randn({6, 3}, TensorOptions(kFloat64), &g);
  Tensor original = m.clone();
  ddp_comm_hooks::orthogonalize(m);
  Tensor gram = m.t().matmul(m);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_NEAR(gram.data_ptr<double>()[i * 3 + j], i == j ? 1.0 : 0.0, 1e-12);
  // Gram-Schmidt keeps the span of the leading columns: column 0 is column 0 normalized.
  const double norm = std::sqrt((original.narrow(1, 0, 1) * original.narrow(1, 0, 1)).sum().item<double>());
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(m.data_ptr<double>()[i * 3], original.data_ptr<double>()[i * 3] / norm, 1e-14);
  // A zero column stays zero (epsilon 0).
  Tensor z = zeros({4, 2}, kFloat64);
  ddp_comm_hooks::orthogonalize(z);
  EXPECT_EQ(z.abs().sum().item<double>(), 0.0);
  expect_error([] { ddp_comm_hooks::orthogonalize(zeros({3})); }, "expected a matrix");
}

TEST(DdpPowerSGD, StateChecksItsOptions) {
  using ddp_comm_hooks::PowerSGDOptions;
  using ddp_comm_hooks::PowerSGDState;
  expect_error([] { PowerSGDState s(PowerSGDOptions{.start_powerSGD_iter = 1}); },
               "expect start_powerSGD_iter > 1 if use_error_feedback or warm_start is enabled");
  PowerSGDState plain(PowerSGDOptions{.start_powerSGD_iter = 1, .use_error_feedback = false, .warm_start = false});
  EXPECT_EQ(plain.iter, 0);
  expect_error([] { PowerSGDState s(PowerSGDOptions{.matrix_approximation_rank = 0}); },
               "matrix_approximation_rank must be at least 1");
}

}  // namespace
