// Custom autograd functions (autograd::Function): saved tensors and values,
// in-place forwards (mark_dirty), non-differentiable outputs, materialized
// gradients, needs_input_grad, inputs returned as-is, gradient count checks,
// and double backward through backward formulas written with Tensor ops.
#include <gtest/gtest.h>

#include <ember/autograd/function.h>
#include <ember/ember.h>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace autograd_function_test {

using testing::kTightGradcheck;
using autograd::AutogradContext;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor leaf(std::initializer_list<double> values) {
  return tensor(std::vector<double>(values), kFloat64).requires_grad_();
}

struct MyMul : autograd::Function<MyMul> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& y) {
    ctx->save_for_backward({x, y});
    return x * y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list saved = ctx->get_saved_variables();
    return {grads[0] * saved[1].conj(), grads[0] * saved[0].conj()};
  }
};

// Saves its output; the backward formula reads it (exp' = exp).
struct MyExp : autograd::Function<MyExp> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor out = x.exp();
    ctx->save_for_backward({out});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0].conj()};
  }
};

// x^3 with a backward that is itself differentiable (3 x^2).
struct Cube : autograd::Function<Cube> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * x * x * 3};
  }
};

TEST(AutogradFunction, SaveForBackwardAndName) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = leaf({4, 5, 6});
  Tensor out = MyMul::apply(x, y);
  ASSERT_TRUE(out.grad_fn());
  EXPECT_EQ(out.grad_fn()->name(), "MyMul");
  EXPECT_FALSE(out.is_leaf());
  out.sum().backward();
  expect_tensor_near(x.grad(), tensor({4.0, 5.0, 6.0}, kFloat64));
  expect_tensor_near(y.grad(), tensor({1.0, 2.0, 3.0}, kFloat64));
}

TEST(AutogradFunction, GradcheckAndGradgradcheck) {
  Tensor a = randn({2, 3}, kFloat64).requires_grad_();
  Tensor b = randn({3}, kFloat64).requires_grad_();  // broadcast: the engine sums the gradient
  auto mul = [](const variable_list& in) { return variable_list{MyMul::apply(in[0], in[1])}; };
  EXPECT_TRUE(autograd::gradcheck(mul, {a, b}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(mul, {a, b}, {}, kTightGradcheck));
  auto exp = [](const variable_list& in) { return variable_list{MyExp::apply(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(exp, {a}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(exp, {a}, {}, kTightGradcheck));
  auto cube = [](const variable_list& in) { return variable_list{Cube::apply(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(cube, {a}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(cube, {a}, {}, kTightGradcheck));
  // Complex inputs (conjugate Wirtinger convention, as the built-in mul).
  auto crandn = [](int64_t n) {
    return (randn({n}, kFloat64).to(kComplex128) + randn({n}, kFloat64).to(kComplex128) * Scalar(complex128(0, 1)))
        .requires_grad_();
  };
  EXPECT_TRUE(autograd::gradcheck(mul, {crandn(3), crandn(3)}, kTightGradcheck));
}

TEST(AutogradFunction, DoubleBackwardMatchesClosedForm) {
  Tensor x = leaf({1, 2, -1});
  Tensor y = Cube::apply(x).sum();
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_tensor_near(g[0], tensor({3.0, 12.0, 3.0}, kFloat64));
  ASSERT_TRUE(g[0].requires_grad());
  auto gg = autograd::grad({g[0].sum()}, {x});
  expect_tensor_near(gg[0], tensor({6.0, 12.0, -6.0}, kFloat64));
}

TEST(AutogradFunction, SavedOutputMakesNoReferenceCycle) {
  std::weak_ptr<autograd::Node> node;
  {
    Tensor x = leaf({0, 1});
    Tensor out = MyExp::apply(x);
    node = out.grad_fn();
    ASSERT_FALSE(node.expired());
    out.sum().backward({}, /*retain_graph=*/true);
    expect_tensor_near(x.grad(), tensor({1.0, std::exp(1.0)}, kFloat64));
  }
  EXPECT_TRUE(node.expired());
}

TEST(AutogradFunction, SavedVariablesAreVersionChecked) {
  Tensor w = leaf({1, 2});
  Tensor a = w * 1;
  Tensor b = leaf({3, 4});
  Tensor out = MyMul::apply(a, b);
  a.mul_(2);
  expect_error([&] { out.sum().backward(); }, "modified by an inplace operation");
  // A saved output modified in place.
  Tensor e = MyExp::apply(w * 1);
  e.add_(1);
  expect_error([&] { e.sum().backward(); }, "modified by an inplace operation");
}

TEST(AutogradFunction, SecondBackwardNeedsRetainGraph) {
  Tensor x = leaf({1, 2});
  Tensor out = MyMul::apply(x, x).sum();
  out.backward({}, /*retain_graph=*/true);
  out.backward();
  expect_tensor_near(x.grad(), tensor({4.0, 8.0}, kFloat64));
  expect_error([&] { out.backward(); }, "second time");
}

// Non-Tensor arguments pass through; saved_data keeps values of every kind.
struct ScaleShift : autograd::Function<ScaleShift> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double scale, int64_t shift, bool flag,
                        const std::string& tag, std::vector<int64_t> dims) {
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["shift"] = shift;
    ctx->saved_data["flag"] = flag;
    ctx->saved_data["tag"] = tag;
    ctx->saved_data["dims"] = dims;
    ctx->saved_data["sizes"] = x.sizes();
    ctx->saved_data["x"] = x;
    return x * scale + static_cast<double>(shift);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto& d = ctx->saved_data;
    EXPECT_EQ(d["shift"].toInt(), 7);
    EXPECT_TRUE(d["flag"].toBool());
    EXPECT_EQ(d["tag"].toStringRef(), "hello");
    EXPECT_EQ(d["dims"].toIntVector(), (std::vector<int64_t>{0, 2}));
    EXPECT_EQ(d["sizes"].toIntVector(), (std::vector<int64_t>{3}));
    EXPECT_TRUE(d["x"].isTensor());
    EXPECT_EQ(d["x"].toTensor().sizes(), IntArrayRef({3}));
    EXPECT_TRUE(d["missing"].isNone());
    return {grads[0] * d["scale"].toDouble(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

TEST(AutogradFunction, NonTensorArgumentsAndSavedData) {
  Tensor x = leaf({1, 2, 3});
  Tensor out = ScaleShift::apply(x, 2.5, int64_t{7}, true, std::string("hello"), std::vector<int64_t>{0, 2});
  expect_tensor_near(out, tensor({9.5, 12.0, 14.5}, kFloat64));
  out.sum().backward();
  expect_tensor_near(x.grad(), full({3}, 2.5, kFloat64));

  autograd::IValue v(3);
  EXPECT_TRUE(v.isInt());
  expect_error([&] { v.toDouble(); }, "expected Double but got Int");
  EXPECT_TRUE(autograd::IValue("s").isString());
  EXPECT_TRUE(autograd::IValue(std::vector<int64_t>{1, 2}).isIntList());
  EXPECT_TRUE(autograd::IValue(false).isBool());
  EXPECT_TRUE(autograd::IValue(1.5).isDouble());
}

// forward runs with grad mode off: the ops it uses record nothing.
struct CheckForwardMode : autograd::Function<CheckForwardMode> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    EXPECT_FALSE(is_grad_enabled());
    Tensor inner = x * 2;
    EXPECT_FALSE(inner.requires_grad());
    EXPECT_TRUE(ctx->needs_input_grad(0));
    return inner;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

TEST(AutogradFunction, ForwardRunsWithoutRecording) {
  Tensor x = leaf({1, 2});
  Tensor out = CheckForwardMode::apply(x);
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_EQ(out.grad_fn()->name(), "CheckForwardMode");
  // Not recorded when nothing requires grad or under NoGradGuard.
  Tensor plain = MyMul::apply(tensor({1.0}, kFloat64), tensor({2.0}, kFloat64));
  EXPECT_FALSE(plain.requires_grad());
  {
    NoGradGuard no_grad;
    Tensor y = MyMul::apply(x, x);
    EXPECT_FALSE(y.requires_grad());
  }
}

struct NeedsGrad : autograd::Function<NeedsGrad> {
  static inline std::vector<bool> seen;
  static Tensor forward(AutogradContext*, const Tensor& x, const Tensor& y, const Tensor& z) {
    return x * y * z;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    seen = {ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    expect_error([&] { ctx->needs_input_grad(3); }, "out of range");
    return {ctx->needs_input_grad(0) ? grads[0] : Tensor(), ctx->needs_input_grad(1) ? grads[0] : Tensor(),
            ctx->needs_input_grad(2) ? grads[0] : Tensor()};
  }
};

TEST(AutogradFunction, NeedsInputGrad) {
  Tensor x = leaf({1});
  Tensor y = tensor({2.0}, kFloat64);
  Tensor z = leaf({3}) * 1;
  NeedsGrad::apply(x, y, z).sum().backward();
  EXPECT_EQ(NeedsGrad::seen, (std::vector<bool>{true, false, true}));
}

// In-place forward: x *= k, marked dirty.
struct MulInplace : autograd::Function<MulInplace> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double k) {
    x.mul_(k);
    ctx->mark_dirty({x});
    ctx->saved_data["k"] = k;
    ctx->save_for_backward({x});  // the dirty input is an output: saved as one
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_TRUE(ctx->get_saved_variables()[0].defined());
    return {grads[0] * ctx->saved_data["k"].toDouble(), Tensor()};
  }
};

TEST(AutogradFunction, MarkDirtyRebasesHistory) {
  Tensor w = leaf({1, 2, 3});
  Tensor a = w * 1;
  const uint64_t version = a._version();
  Tensor out = MulInplace::apply(a, 3.0);
  EXPECT_TRUE(out.is_same(a));  // the dirty input itself is returned
  EXPECT_GT(a._version(), version);
  EXPECT_EQ(a.grad_fn()->name(), "MulInplace");
  expect_tensor_near(a, tensor({3.0, 6.0, 9.0}, kFloat64));
  (out * out).sum().backward();
  expect_tensor_near(w.grad(), tensor({18.0, 36.0, 54.0}, kFloat64));  // 2 * 3w * 3
  auto f = [](const variable_list& in) { return variable_list{MulInplace::apply(in[0] * 1, -2.0)}; };
  EXPECT_TRUE(autograd::gradcheck(f, {randn({4}, kFloat64).requires_grad_()}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(f, {randn({4}, kFloat64).requires_grad_()}, {}, kTightGradcheck));
}

TEST(AutogradFunction, MarkDirtyOnAViewRebasesTheBase) {
  Tensor w = leaf({1, 2, 3, 4});
  Tensor base = w * 1;
  Tensor view = base.narrow(0, 1, 2);
  MulInplace::apply(view, 10.0);
  expect_tensor_near(base, tensor({1.0, 20.0, 30.0, 4.0}, kFloat64));
  EXPECT_EQ(base.grad_fn()->name(), "CopySlices");
  (base * tensor({1.0, 2.0, 3.0, 4.0}, kFloat64)).sum().backward();
  expect_tensor_near(w.grad(), tensor({1.0, 20.0, 30.0, 4.0}, kFloat64));
  auto f = [](const variable_list& in) {
    Tensor b = in[0] * 1;
    MulInplace::apply(b.narrow(0, 1, 2), 3.0);
    return variable_list{b};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {randn({4}, kFloat64).requires_grad_()}, kTightGradcheck));
}

TEST(AutogradFunction, MarkDirtyErrors) {
  Tensor w = leaf({1, 2});
  expect_error([&] { MulInplace::apply(w, 2.0); }, "leaf Variable that requires grad");
  Tensor w2 = leaf({1, 2});
  expect_error([&] { MulInplace::apply(w2.narrow(0, 0, 1), 2.0); }, "view of a leaf Variable");
  // Under NoGradGuard a leaf may be modified (returned detached), as in PyTorch.
  Tensor w3 = leaf({1, 2});
  {
    NoGradGuard no_grad;
    Tensor out = MulInplace::apply(w3, 2.0);
    EXPECT_FALSE(out.requires_grad());
    EXPECT_TRUE(w3.requires_grad());
  }
  expect_tensor_near(w3.detach(), tensor({2.0, 4.0}, kFloat64));

  struct DirtyNotReturned : autograd::Function<DirtyNotReturned> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      x.add_(1);
      ctx->mark_dirty({x});
      return x * 2;
    }
    static variable_list backward(AutogradContext*, variable_list grads) { return grads; }
  };
  expect_error([&] { DirtyNotReturned::apply(w * 1); }, "marked as dirty");
}

// Two outputs: a value, and its sign marked non-differentiable; plus an
// integer output (non-differentiable by dtype).
struct ValueAndSign : autograd::Function<ValueAndSign> {
  static inline bool second_grad_defined = false;
  static variable_list forward(AutogradContext* ctx, const Tensor& x) {
    Tensor sign = (x > 0).to(kFloat64) * 2 - 1;
    ctx->mark_non_differentiable({sign});
    ctx->save_for_backward({sign});
    return {x * sign, sign, (x > 0).to(kInt64)};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    second_grad_defined = grads[1].defined();
    if (grads[1].defined()) {
      EXPECT_EQ(grads[1].sizes(), IntArrayRef({3}));
      EXPECT_EQ(grads[1].abs().sum().item<double>(), 0.0);
    }
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(AutogradFunction, NonDifferentiableOutputsAndMaterializedGrads) {
  Tensor x = leaf({-1, 2, -3});
  variable_list out = ValueAndSign::apply(x);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_FALSE(out[2].requires_grad());
  EXPECT_EQ(out[2].dtype(), kInt64);
  out[0].sum().backward();
  EXPECT_TRUE(ValueAndSign::second_grad_defined);  // materialized as zeros
  expect_tensor_near(x.grad(), tensor({-1.0, 1.0, -1.0}, kFloat64));
}

struct TwoOutputs : autograd::Function<TwoOutputs> {
  static inline bool first_defined = false, second_defined = false;
  static variable_list forward(AutogradContext* ctx, const Tensor& x, bool materialize) {
    ctx->set_materialize_grads(materialize);
    return {x * 2, x * 3};
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    first_defined = grads[0].defined();
    second_defined = grads[1].defined();
    Tensor g = grads[0].defined() ? grads[0] * 2 : Tensor();
    if (grads[1].defined()) g = g.defined() ? g + grads[1] * 3 : grads[1] * 3;
    return {g, Tensor()};
  }
};

TEST(AutogradFunction, SetMaterializeGrads) {
  Tensor x = leaf({1, 2});
  TwoOutputs::apply(x, true)[0].sum().backward();
  EXPECT_TRUE(TwoOutputs::first_defined);
  EXPECT_TRUE(TwoOutputs::second_defined);
  TwoOutputs::apply(x, false)[1].sum().backward();
  EXPECT_FALSE(TwoOutputs::first_defined);
  EXPECT_TRUE(TwoOutputs::second_defined);
  expect_tensor_near(x.grad(), tensor({5.0, 5.0}, kFloat64));
}

// An undefined output: no gradient flows to it, even with materialized grads.
struct WithUndefinedOutput : autograd::Function<WithUndefinedOutput> {
  static inline bool second_defined = true;
  static variable_list forward(AutogradContext*, const Tensor& x) { return {x * 2, Tensor()}; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    second_defined = grads[1].defined();
    return {grads[0] * 2};
  }
};

TEST(AutogradFunction, UndefinedOutput) {
  Tensor x = leaf({1, 2});
  variable_list out = WithUndefinedOutput::apply(x);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[1].defined());
  out[0].sum().backward();
  EXPECT_FALSE(WithUndefinedOutput::second_defined);
  expect_tensor_near(x.grad(), tensor({2.0, 2.0}, kFloat64));
}

// Returns its input unchanged, with a custom (deliberately doubled) backward.
struct Passthrough : autograd::Function<Passthrough> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

struct TransposeView : autograd::Function<TransposeView> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x.t(); }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0].t()}; }
};

TEST(AutogradFunction, InputReturnedAsIs) {
  Tensor w = leaf({1, 2});
  Tensor a = w * 1;
  auto a_fn = a.grad_fn();
  Tensor out = Passthrough::apply(a);
  EXPECT_FALSE(out.is_same(a));                // a new alias...
  EXPECT_EQ(out.data_ptr(), a.data_ptr());     // ...of the same memory
  EXPECT_EQ(out.grad_fn()->name(), "Passthrough");
  EXPECT_EQ(a.grad_fn(), a_fn);                // the input's history is left alone
  out.sum().backward();
  expect_tensor_near(w.grad(), tensor({2.0, 2.0}, kFloat64));
  // Writing the alias (or a view of it) in place would bypass the custom backward.
  expect_error([&] { out.mul_(2); }, "clone() the output of the custom Function");
  expect_error([&] { out.narrow(0, 0, 1).mul_(2); }, "clone() the output of the custom Function");
  Tensor m = randn({2, 3}, kFloat64).requires_grad_() * 1;
  Tensor t = TransposeView::apply(m);
  expect_error([&] { t.add_(1); }, "is a view of one of that custom Function's inputs");
  out.clone().mul_(2);  // fine
  // Not recorded: still a fresh alias, writable.
  Tensor plain = tensor({1.0, 2.0}, kFloat64);
  Tensor p = Passthrough::apply(plain);
  EXPECT_FALSE(p.is_same(plain));
  p.mul_(2);
  expect_tensor_near(plain, tensor({2.0, 4.0}, kFloat64));
}

// std::vector<Tensor> arguments: each element is an input.
struct WeightedSum : autograd::Function<WeightedSum> {
  static Tensor forward(AutogradContext* ctx, const std::vector<Tensor>& xs, double k) {
    ctx->saved_data["k"] = k;
    Tensor s = xs[0] * k;
    for (size_t i = 1; i < xs.size(); ++i) s = s + xs[i] * k;
    return s;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const double k = ctx->saved_data["k"].toDouble();
    return {grads[0] * k, grads[0] * k, grads[0] * k, Tensor()};
  }
};

TEST(AutogradFunction, TensorListArguments) {
  Tensor a = leaf({1, 2}), b = leaf({3, 4}), c = leaf({5, 6});
  WeightedSum::apply(std::vector<Tensor>{a, b, c}, 0.5).sum().backward();
  for (const Tensor& t : {a, b, c}) expect_tensor_near(t.grad(), full({2}, 0.5, kFloat64));
}

template <int N, bool DefinedExtra>
struct CountedGrads : autograd::Function<CountedGrads<N, DefinedExtra>> {
  static Tensor forward(AutogradContext*, const Tensor& x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    variable_list out{grads[0] * 2};
    for (int i = 1; i < N; ++i) out.push_back(DefinedExtra ? grads[0] : Tensor());
    return out;
  }
};

TEST(AutogradFunction, GradientCountChecks) {
  Tensor x = leaf({1, 2});
  // Extra undefined gradients are dropped (PyTorch allows them).
  CountedGrads<4, false>::apply(x, 1.0).sum().backward();
  expect_tensor_near(x.grad(), tensor({2.0, 2.0}, kFloat64));
  expect_error([&] { CountedGrads<1, false>::apply(x, 1.0).sum().backward(); },
               "returned an incorrect number of gradients (expected 2, got 1)");
  expect_error([&] { CountedGrads<3, true>::apply(x, 1.0).sum().backward(); },
               "returned an incorrect number of gradients (expected 2, got 3)");
  // A defined gradient for the double argument.
  expect_error([&] { CountedGrads<2, true>::apply(x, 1.0).sum().backward(); },
               "not a Tensor");
}

// A backward that calls another custom function: recorded under create_graph.
struct MulViaFunction : autograd::Function<MulViaFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& y) {
    ctx->save_for_backward({x, y});
    return x * y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list s = ctx->get_saved_variables();
    return {MyMul::apply(grads[0], s[1]), MyMul::apply(grads[0], s[0])};
  }
};

TEST(AutogradFunction, BackwardUsingCustomFunctions) {
  auto f = [](const variable_list& in) { return variable_list{MulViaFunction::apply(in[0], in[1])}; };
  Tensor a = randn({3}, kFloat64).requires_grad_();
  Tensor b = randn({3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(f, {a, b}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(f, {a, b}, {}, kTightGradcheck));
}

TEST(AutogradFunction, HooksAndRetainGradOnOutputs) {
  Tensor x = leaf({1, 2});
  Tensor out = MyMul::apply(x, x);
  out.retain_grad();
  out.register_hook([](const Tensor& g) { return g * 10; });
  out.sum().backward();
  expect_tensor_near(out.grad(), full({2}, 10.0, kFloat64));
  expect_tensor_near(x.grad(), tensor({20.0, 40.0}, kFloat64));
}

}  // namespace autograd_function_test
}  // namespace ember
