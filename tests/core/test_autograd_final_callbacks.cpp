// autograd::queue_callback: callbacks queued during backward run once every
// node of the pass ran (DistributedDataParallel's reducer waits for its
// all_reduces there), in order, including callbacks queued by callbacks;
// outside backward it is an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ember/autograd/engine_callbacks.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace autograd_final_callbacks_test {

using testing::expect_error;

TEST(AutogradFinalCallbacks, RunAfterEveryLeafAccumulated) {
  Tensor a = tensor(std::vector<double>{1, 2}, kFloat64).requires_grad_();
  Tensor b = tensor(std::vector<double>{3, 4}, kFloat64).requires_grad_();
  std::vector<std::string> events;
  // The first accumulator to run queues the callback; when it runs, both
  // leaves hold their gradients.
  auto queue_once = [&](Tensor&) {
    events.push_back("accumulated");
    if (events.size() == 1)
      autograd::queue_callback([&] {
        events.push_back("callback");
        EXPECT_TRUE(a.grad().defined());
        EXPECT_TRUE(b.grad().defined());
        autograd::queue_callback([&] { events.push_back("queued by a callback"); });
      });
  };
  a.register_post_accumulate_grad_hook(queue_once);
  b.register_post_accumulate_grad_hook(queue_once);
  EXPECT_FALSE(autograd::in_backward_pass());
  ((a * b).sum()).backward();
  EXPECT_EQ(events, (std::vector<std::string>{"accumulated", "accumulated", "callback", "queued by a callback"}));
  EXPECT_FALSE(autograd::in_backward_pass());
}

TEST(AutogradFinalCallbacks, RunForAutogradGradAndOncePerPass) {
  Tensor x = tensor(std::vector<double>{2}, kFloat64).requires_grad_();
  int runs = 0;
  Tensor y = x * x;
  y.register_hook([&](const Tensor&) {
    EXPECT_TRUE(autograd::in_backward_pass());
    autograd::queue_callback([&] { ++runs; });
  });
  autograd::grad({y.sum()}, {x}, {}, /*retain_graph=*/true);
  EXPECT_EQ(runs, 1);
  y.sum().backward();
  EXPECT_EQ(runs, 2);
}

TEST(AutogradFinalCallbacks, NestedPassesKeepTheirOwnCallbacks) {
  Tensor x = tensor(std::vector<double>{3}, kFloat64).requires_grad_();
  std::vector<std::string> events;
  Tensor y = x * 2;
  y.register_hook([&](const Tensor&) {
    autograd::queue_callback([&] { events.push_back("outer"); });
    Tensor z = tensor(std::vector<double>{1}, kFloat64).requires_grad_();
    z.register_post_accumulate_grad_hook(
        [&](Tensor&) { autograd::queue_callback([&] { events.push_back("inner"); }); });
    AutoGradMode grad_mode(true);  // hooks run without grad mode
    (z * 5).sum().backward();
    events.push_back("inner pass returned");
  });
  y.sum().backward();
  EXPECT_EQ(events, (std::vector<std::string>{"inner", "inner pass returned", "outer"}));
}

TEST(AutogradFinalCallbacks, OutsideBackwardIsAnError) {
  expect_error([] { autograd::queue_callback([] {}); }, "no backward pass runs");
}

TEST(AutogradFinalCallbacks, FailedPassDropsItsCallbacks) {
  Tensor x = tensor(std::vector<double>{1}, kFloat64).requires_grad_();
  bool ran = false;
  Tensor y = x * 3;
  y.register_hook([&](const Tensor&) {
    autograd::queue_callback([&] { ran = true; });
    EMBER_FAIL("hook failed on purpose");
    return Tensor();
  });
  expect_error([&] { y.sum().backward(); }, "hook failed on purpose");
  EXPECT_FALSE(ran);
  EXPECT_FALSE(autograd::in_backward_pass());
}

}  // namespace autograd_final_callbacks_test
}  // namespace ember
