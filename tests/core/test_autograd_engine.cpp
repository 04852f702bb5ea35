// The autograd engine: leaves, accumulation, graphs with fan-in/fan-out,
// retain_graph, create_graph, autograd::grad, hooks, grad modes, in-place
// version checks and in-place writes through views. Values are checked
// against hand-derived float64 formulas.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace autograd_engine_test {

using testing::expect_error;
using testing::expect_tensor_near;

Tensor leaf(std::initializer_list<double> values) {
  return tensor(std::vector<double>(values), kFloat64).requires_grad_();
}

TEST(AutogradEngine, LeafFlagsAndSimpleBackward) {
  Tensor x = leaf({1, 2, 3});
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(x.grad().defined());
  Tensor y = x * x + x;  // dy/dx = 2x + 1
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({3.0, 5.0, 7.0}, kFloat64));
  // Accumulates on a second pass.
  (x * 2).sum().backward();
  expect_tensor_near(x.grad(), tensor({5.0, 7.0, 9.0}, kFloat64));
}

TEST(AutogradEngine, BroadcastingReducesToInputShapes) {
  Tensor a = zeros({2, 3}, kFloat64).requires_grad_();
  Tensor b = ones({3}, kFloat64).requires_grad_();
  Tensor c = full({1, 1}, 2.0, kFloat64).requires_grad_();
  ((a + b) * c).sum().backward();
  expect_tensor_near(a.grad(), full({2, 3}, 2.0, kFloat64));
  expect_tensor_near(b.grad(), full({3}, 4.0, kFloat64));
  expect_tensor_near(c.grad(), full({1, 1}, 6.0, kFloat64));
}

TEST(AutogradEngine, IntegerTensorsCannotRequireGrad) {
  expect_error([] { arange(3).requires_grad_(); }, "floating point and complex");
  Tensor y = leaf({1, 2}) * 2;
  expect_error([&] { y.requires_grad_(false); }, "leaf variables");
}

TEST(AutogradEngine, RetainGraphAndSecondBackward) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  expect_tensor_near(x.grad(), tensor({4.0, 8.0}, kFloat64));
  expect_error([&] { y.backward(); }, "second time");
}

TEST(AutogradEngine, NonScalarNeedsGradient) {
  Tensor x = leaf({1, 2});
  expect_error([&] { (x * 2).backward(); }, "scalar outputs");
  (x * 3).backward(tensor({1.0, 10.0}, kFloat64));
  expect_tensor_near(x.grad(), tensor({3.0, 30.0}, kFloat64));
  expect_error([] { tensor({1.0}).backward(); }, "does not require grad");
}

TEST(AutogradEngine, GradFunctionCapturesWithoutAccumulating) {
  Tensor x = leaf({1, 2, 3});
  Tensor w = leaf({2, 2, 2});
  Tensor y = (x * w * x).sum();
  auto g = autograd::grad({y}, {x, w});
  expect_tensor_near(g[0], tensor({4.0, 8.0, 12.0}, kFloat64));
  expect_tensor_near(g[1], tensor({1.0, 4.0, 9.0}, kFloat64));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
  Tensor unused = leaf({1});
  Tensor z = (x * 2).sum();
  expect_error([&] { autograd::grad({z}, {unused}, {}, true); }, "allow_unused");
  auto gu = autograd::grad({z}, {x, unused}, {}, std::nullopt, false, /*allow_unused=*/true);
  EXPECT_TRUE(gu[0].defined());
  EXPECT_FALSE(gu[1].defined());
}

TEST(AutogradEngine, GradOfNonLeafIntermediate) {
  Tensor x = leaf({1, 2});
  Tensor h = x * x;
  Tensor y = (h * 3).sum();
  auto g = autograd::grad({y}, {h});
  expect_tensor_near(g[0], tensor({3.0, 3.0}, kFloat64));
}

TEST(AutogradEngine, DoubleBackwardWithCreateGraph) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = (x * x * x).sum();  // dy = 3x^2, d2y = 6x
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_tensor_near(g[0], tensor({3.0, 12.0, 27.0}, kFloat64));
  ASSERT_TRUE(g[0].requires_grad());
  auto gg = autograd::grad({g[0].sum()}, {x});
  expect_tensor_near(gg[0], tensor({6.0, 12.0, 18.0}, kFloat64));
}

TEST(AutogradEngine, BackwardInputsRestrictsAccumulation) {
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3, 4});
  (x * w).sum().backward({}, std::nullopt, false, {w});
  EXPECT_FALSE(x.grad().defined());
  expect_tensor_near(w.grad(), tensor({1.0, 2.0}, kFloat64));
}

TEST(AutogradEngine, GradModes) {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(is_grad_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    {
      EnableGradGuard enable;
      EXPECT_TRUE((x * 2).requires_grad());
    }
  }
  EXPECT_TRUE(is_grad_enabled());
  Tensor inf;
  {
    InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    inf = ones({2}, kFloat64);
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE(inf.is_inference());
  expect_error([&] { inf.requires_grad_(); }, "inference tensor");
  expect_error([&] { (x * inf).sum().backward(); }, "inference tensors cannot be saved");
  expect_error([&] { inf.add_(1); }, "inference tensor outside InferenceMode");
}

TEST(AutogradEngine, HooksReplaceAndRemove) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3;
  int calls = 0;
  const uint64_t id = h.register_hook([&](const Tensor& g) {
    ++calls;
    return g * 10;
  });
  (h.sum()).backward({}, true);
  expect_tensor_near(x.grad(), tensor({30.0, 30.0}, kFloat64));
  h.remove_hook(id);
  x.mutable_grad() = Tensor();
  h.sum().backward();
  expect_tensor_near(x.grad(), tensor({3.0, 3.0}, kFloat64));
  EXPECT_EQ(calls, 1);

  // Leaf hooks see the gradient before accumulation; void hooks only observe.
  Tensor w = leaf({1, 1});
  Tensor seen;
  w.register_hook([&](const Tensor& g) { seen = g.clone(); });
  w.register_hook([](const Tensor& g) { return g + 1; });
  (w * 2).sum().backward();
  expect_tensor_near(seen, tensor({2.0, 2.0}, kFloat64));
  expect_tensor_near(w.grad(), tensor({3.0, 3.0}, kFloat64));
  int post = 0;
  w.register_post_accumulate_grad_hook([&](Tensor& p) {
    ++post;
    EXPECT_TRUE(p.grad().defined());
  });
  (w * 2).sum().backward();
  EXPECT_EQ(post, 1);
  expect_error([] { tensor({1.0}).register_hook([](const Tensor& g) { return g; }); }, "doesn't require");
}

TEST(AutogradEngine, RetainGrad) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 2;
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  (h * h).sum().backward();
  expect_tensor_near(h.grad(), tensor({4.0, 8.0}, kFloat64));
  expect_tensor_near(x.grad(), tensor({8.0, 16.0}, kFloat64));
}

TEST(AutogradEngine, DetachStopsGradient) {
  Tensor x = leaf({1, 2});
  Tensor d = (x * 2).detach();
  EXPECT_FALSE(d.requires_grad());
  Tensor y = x * 2;
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  ((x * 2).detach() * x).sum().backward();
  expect_tensor_near(x.grad(), tensor({2.0, 4.0}, kFloat64));
}

TEST(AutogradEngine, ModifiedSavedTensorIsAnError) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 1;
  Tensor y = h * h;  // saves h
  h.add_(1);
  expect_error([&] { y.sum().backward(); }, "modified by an inplace operation");
}

TEST(AutogradEngine, InplaceOnLeafIsAnError) {
  Tensor x = leaf({1, 2});
  expect_error([&] { x.add_(1); }, "leaf Variable that requires grad");
  expect_error([&] { x.slice(0, 0, 1).mul_(2); }, "view of a leaf Variable");
  {
    NoGradGuard no_grad;
    x.add_(1);  // allowed without grad
  }
  expect_tensor_near(x.detach(), tensor({2.0, 3.0}, kFloat64));
}

TEST(AutogradEngine, InplaceRebasesHistory) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = x * 2;
  h.mul_(3);
  h.add_(x);  // h = 7x
  EXPECT_EQ(h.grad_fn()->name(), "CopyBackwards");
  h.sum().backward();
  expect_tensor_near(x.grad(), tensor({7.0, 7.0, 7.0}, kFloat64));
  // As in PyTorch, h.mul_(h) saves h for the gradient and then modifies it.
  Tensor k = x * 2;
  k.mul_(k);
  expect_error([&] { k.sum().backward(); }, "modified by an inplace operation");
}

// A node that saved an input must not own that tensor's later history: when
// the tensor (or its base) is then written in place, its new history leads
// back to the node, and holding the tensor itself would be a reference cycle
// that is never freed (found by LeakSanitizer on k.mul_(k) above).
TEST(AutogradEngine, SavedInputWrittenInPlaceMakesNoReferenceCycle) {
  struct Case {
    const char* name;
    // Builds a graph and returns the node that must be freed with the tensors.
    std::function<std::shared_ptr<autograd::Node>()> run;
  };
  const std::vector<Case> cases = {
      {"mul_ by itself",
       [] {
         Tensor k = leaf({1, 2}) * 2;
         k.mul_(k);  // MulBackward0 saves k (as `other`)
         expect_error([&] { k.sum().backward(); }, "modified by an inplace operation");
         return k.grad_fn();
       }},
      {"copy_ of a function of itself",
       [] {
         Tensor h = leaf({1, 2}) * 1;
         h.copy_(h.sin());  // SinBackward0 saves h; h's history becomes CopyBackwards -> SinBackward0
         return h.grad_fn();
       }},
      {"plain tensor written with a value that saved it",
       [] {
         Tensor buf = tensor({3.0, 4.0}, kFloat64);
         buf.copy_(leaf({1, 2}) * buf);  // MulBackward0 saves buf
         return buf.grad_fn();
       }},
      {"mul_ by a view of itself",
       [] {
         Tensor h = leaf({1, 2, 3}) * 1;
         h.mul_(h.slice(0, 0, 1));  // the saved view's base is h
         return h.grad_fn();
       }},
      {"view written with a value that saved its base",
       [] {
         Tensor h = leaf({1, 2, 3}) * 1;
         h.slice(0, 0, 2).copy_(h.slice(0, 1, 3) * h.slice(0, 0, 2));
         return h.grad_fn();  // CopySlices
       }},
  };
  for (const Case& c : cases) {
    std::weak_ptr<autograd::Node> node = c.run();
    EXPECT_TRUE(node.expired()) << c.name;
  }
}

// Saved inputs still carry their history under create_graph, and leaves
// stay themselves (their gradient accumulates into .grad).
TEST(AutogradEngine, SavedInputsKeepTheirHistoryForDoubleBackward) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = x * x;      // h saves x (a leaf)
  Tensor y = h.sin();    // y saves h (a non-leaf)
  auto g = autograd::grad({y.sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  // dy/dx = cos(x^2) 2x; d2y/dx2 = -sin(x^2) 4x^2 + 2 cos(x^2)
  const Tensor xd = x.detach();
  expect_tensor_near(g[0].detach(), (xd * xd).cos() * xd * 2);
  g[0].sum().backward();
  expect_tensor_near(x.grad(), -(xd * xd).sin() * xd * xd * 4 + (xd * xd).cos() * 2);
}

TEST(AutogradEngine, InplaceThroughViewUpdatesBase) {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor h = x * 1;
  Tensor v = h.slice(0, 1, 3);
  v.mul_(10);  // h = [x0, 10 x1, 10 x2, x3]
  EXPECT_EQ(h.grad_fn()->name(), "CopySlices");
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  (h * tensor({1.0, 2.0, 3.0, 4.0}, kFloat64)).sum().backward();
  expect_tensor_near(x.grad(), tensor({1.0, 20.0, 30.0, 4.0}, kFloat64));
}

TEST(AutogradEngine, ViewOfModifiedBaseSeesNewHistory) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = x * 1;
  Tensor v = h.slice(0, 0, 2);
  h.mul_(3);  // v now reads 3x[0:2]
  v.sum().backward();
  expect_tensor_near(x.grad(), tensor({3.0, 3.0, 0.0}, kFloat64));
}

TEST(AutogradEngine, CopyIntoViewOfPlainTensor) {
  Tensor x = leaf({5, 6});
  Tensor buf = zeros({4}, kFloat64);
  buf.slice(0, 1, 3).copy_(x * 2);
  EXPECT_TRUE(buf.requires_grad());
  (buf * tensor({1.0, 2.0, 3.0, 4.0}, kFloat64)).sum().backward();
  expect_tensor_near(x.grad(), tensor({4.0, 6.0}, kFloat64));
}

TEST(AutogradEngine, AnomalyModeNamesForwardOp) {
  autograd::DetectAnomalyGuard anomaly;
  Tensor x = leaf({0.0});
  Tensor y = (x / x).sum();  // backward of div at 0 gives NaN
  expect_error([&] { y.backward(); }, "div");
}

TEST(AutogradEngine, LongChainDoesNotOverflow) {
  Tensor x = leaf({1.0});
  Tensor y = x;
  for (int i = 0; i < 20000; ++i) y = y * 1.0;
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({1.0}, kFloat64));
}

TEST(Gradcheck, PassesCorrectFormulasAndCatchesWrongOnes) {
  Tensor a = randn({2, 3}, kFloat64).requires_grad_();
  Tensor b = randn({3}, kFloat64).requires_grad_();
  auto f = [](const autograd::variable_list& x) { return autograd::variable_list{x[0] * x[1] / (x[1] * x[1] + 2)}; };
  EXPECT_TRUE(autograd::gradcheck(f, {a, b}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {a, b}));
  // detach() hides a dependency: the analytical gradient misses it.
  auto wrong = [](const autograd::variable_list& x) { return autograd::variable_list{x[0] * x[0].detach()}; };
  expect_error([&] { autograd::gradcheck(wrong, {a}); }, "Jacobian mismatch");
  autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck(wrong, {a}, quiet));
  expect_error([&] { autograd::gradcheck(f, {a.detach().to(kFloat32).requires_grad_(), b}); }, "float64");
}

TEST(Gradcheck, ComplexWirtinger) {
  auto crandn = [](int64_t n) {
    return (randn({n}, kFloat64).to(kComplex128) + randn({n}, kFloat64).to(kComplex128) * Scalar(complex128(0, 1)))
        .requires_grad_();
  };
  Tensor z = crandn(3), w = crandn(3);
  auto f = [](const autograd::variable_list& x) { return autograd::variable_list{x[0] * x[1] + x[0] / (x[1] + 3)}; };
  EXPECT_TRUE(autograd::gradcheck(f, {z, w}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {z, w}));
  // A wrong complex formula (missing conjugate) is caught.
  auto g = [](const autograd::variable_list& x) { return autograd::variable_list{x[0] * x[0].detach()}; };
  expect_error([&] { autograd::gradcheck(g, {z}); }, "Jacobian mismatch");
}

// Saved tensors are freed as soon as their node ran (unless retain_graph), so
// a backward pass holds no more memory than PyTorch's.
TEST(AutogradEngine, SavedTensorsFreedAfterTheirNodeRuns) {
  Tensor x = randn({1000}, kFloat64).requires_grad_();
  Tensor y;
  Storage saved;
  {
    Tensor h = x * 2;   // saved by the mul below
    saved = h.storage();
    y = (h * h).sum();
  }
  // Ours + the saved tensors (an alias per SavedVariable: Note [Saved tensors
  // and reference cycles]).
  const auto held = saved.use_count();
  EXPECT_GT(held, 1u);
  y.backward({}, /*retain_graph=*/true);
  EXPECT_EQ(saved.use_count(), held);  // retained
  y.backward();
  EXPECT_EQ(saved.use_count(), 1u);  // freed by the second, non-retaining pass
}

TEST(AutogradEngine, ZeroSizeTensors) {
  Tensor x = zeros({0, 3}, kFloat64).requires_grad_();
  Tensor w = randn({3, 2}, kFloat64).requires_grad_();
  (x.matmul(w).exp() * 2).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3}));
  expect_tensor_near(w.grad(), zeros({3, 2}, kFloat64));
}
}  // namespace autograd_engine_test
}  // namespace ember
