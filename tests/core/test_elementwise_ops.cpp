// Table-driven harness for the elementwise ops (in the spirit of ggml's
// test-backend-ops). A case names the op, the Ember functions (plain, in-place,
// out=) and tolerances per dtype; scripts/fixtures/elementwise.py holds the
// matching torch op and the input domain of each case and writes the inputs
// and torch's results for every dtype. The harness runs each fixture over
// every layout of kLayouts, checking values, result dtype and output memory
// format, then the in-place and out= forms and torch's errors. Each test runs
// on every device (device_test.h): inputs are copied there, results compared
// on the host.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include <ember/ember.h>

#include "device_test.h"
#include "iter/tensor_iterator.h"  // can_cast, result_type
#include "op_harness.h"
#include "ops/op_utils.h"  // scalar_to_tensor: a wrapped number, as torch makes of 3

using namespace ember;
using namespace ember::testing;

namespace elementwise_ops_test {

// Ops where torch 1.13 rejects a dtype that Ember computes on purpose (it
// promotes integers to float as exp does): listed, not forced.
constexpr uint32_t kIntsAndBool = kMaskIntegral | kMaskBool;

struct UnaryCase {
  std::string name;
  std::function<Tensor(const Tensor&)> fn;
  std::function<void(Tensor&)> inplace;                   // empty: no in-place form
  std::function<void(Tensor&, const Tensor&)> out;        // empty: no out= form
  Tolerances tol{};
  uint32_t extends = 0;    // dtypes torch refuses and Ember computes
  bool zero_sign = true;   // check the sign of zero results
};

struct BinaryCase {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  std::function<Tensor(const Tensor&, const Scalar&)> scalar_fn;
  std::function<void(Tensor&, const Tensor&)> inplace;
  std::function<void(Tensor&, const Tensor&, const Tensor&)> out;
  Tolerances tol{};
  uint32_t extends = 0;
};

#define UNARY(op, ...)                                                         \
  UnaryCase {                                                                  \
    #op, [](const Tensor& x) { return ember::op(x); },                         \
        [](Tensor& x) { ember::op##_(x); },                                    \
        [](Tensor& o, const Tensor& x) { ember::op##_out(o, x); }, __VA_ARGS__ \
  }
#define UNARY_FN(name, expr, ...) \
  UnaryCase { name, [](const Tensor& x) { return expr; }, {}, {}, __VA_ARGS__ }

// Looser float32/float16 bounds for transcendental ops, whose libm and SLEEF
// results differ by a few ulp.
constexpr Tolerances kTranscendental{{2e-3, 1e-4}, {1.6e-2, 1e-3}, {1e-5, 1e-6}, {1e-12, 1e-14}};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      UNARY(abs), UNARY(neg), UNARY(sign), UNARY(sgn), UNARY(exp, kTranscendental),
      UNARY(exp2, kTranscendental), UNARY(expm1, kTranscendental), UNARY(log, kTranscendental),
      UNARY(log2, kTranscendental), UNARY(log10, kTranscendental), UNARY(log1p, kTranscendental),
      UNARY(sqrt), UNARY(rsqrt, kTranscendental), UNARY(square), UNARY(reciprocal),
      UNARY(sin, kTranscendental), UNARY(cos, kTranscendental), UNARY(tan, kTranscendental),
      UNARY(asin, kTranscendental), UNARY(acos, kTranscendental), UNARY(atan, kTranscendental),
      UNARY(sinh, kTranscendental), UNARY(cosh, kTranscendental), UNARY(tanh, kTranscendental),
      UNARY(asinh, kTranscendental), UNARY(acosh, kTranscendental), UNARY(atanh, kTranscendental),
      UNARY(sigmoid, kTranscendental), UNARY(relu), UNARY(silu, kTranscendental, kIntsAndBool),
      UNARY(erf, kTranscendental), UNARY(erfc, kTranscendental), UNARY(floor), UNARY(ceil),
      UNARY(round), UNARY(trunc), UNARY(frac), UNARY(logical_not), UNARY(bitwise_not),
      // torch's gelu(-0.) is 0., Ember's -0. (0.5 * x * (1 + erf(x / sqrt 2)) keeps the sign).
      UnaryCase{"gelu", [](const Tensor& x) { return gelu(x); }, {},
                [](Tensor& o, const Tensor& x) { gelu_out(o, x); }, kTranscendental, kIntsAndBool,
                false},
      UnaryCase{"gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, {},
                [](Tensor& o, const Tensor& x) { gelu_out(o, x, "tanh"); }, kTranscendental,
                kIntsAndBool, false},
      UNARY_FN("softplus", softplus(x), kTranscendental, kIntsAndBool),
      UNARY_FN("isnan", isnan(x)), UNARY_FN("isinf", isinf(x)), UNARY_FN("isfinite", isfinite(x)),
      UNARY_FN("isposinf", isposinf(x)), UNARY_FN("isneginf", isneginf(x)),
      UNARY_FN("signbit", signbit(x)), UNARY_FN("angle", angle(x)),
      UNARY_FN("nan_to_num", nan_to_num(x)),
      UnaryCase{"clamp", [](const Tensor& x) { return clamp(x, -1, 2); },
                [](Tensor& x) { x.clamp_(-1, 2); },
                [](Tensor& o, const Tensor& x) { clamp_out(o, x, -1, 2); }},
  };
  return cases;
}

#define BINARY(op, ...)                                                                    \
  BinaryCase {                                                                             \
    #op, [](const Tensor& a, const Tensor& b) { return ember::op(a, b); },                 \
        [](const Tensor& a, const Scalar& s) { return ember::op(a, s); },                  \
        [](Tensor& a, const Tensor& b) { a.op##_(b); },                                    \
        [](Tensor& o, const Tensor& a, const Tensor& b) { ember::op##_out(o, a, b); },     \
        __VA_ARGS__                                                                        \
  }

const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      BINARY(add), BINARY(sub),
      BinaryCase{"add_alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 2); },
                 [](const Tensor& a, const Scalar& s) { return add(a, s, 2); },
                 [](Tensor& a, const Tensor& b) { a.add_(b, 2); },
                 [](Tensor& o, const Tensor& a, const Tensor& b) { add_out(o, a, b, 2); }},
      BINARY(mul), BINARY(div),
      BinaryCase{"div_trunc", [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); },
                 [](const Tensor& a, const Scalar& s) {
                   return div(a, scalar_to_tensor(s), "trunc");
                 },
                 {}, [](Tensor& o, const Tensor& a, const Tensor& b) { div_out(o, a, b, "trunc"); }},
      BinaryCase{"div_floor", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); },
                 [](const Tensor& a, const Scalar& s) {
                   return div(a, scalar_to_tensor(s), "floor");
                 },
                 {}, [](Tensor& o, const Tensor& a, const Tensor& b) { div_out(o, a, b, "floor"); }},
      BINARY(floor_divide), BINARY(fmod), BINARY(remainder),
      BINARY(pow, kTranscendental, kMaskBool),  // bool ** bool: torch 1.13 has no kernel
      BINARY(atan2, kTranscendental), BINARY(maximum), BINARY(minimum), BINARY(fmax), BINARY(fmin),
      BINARY(hypot, kTranscendental, kIntsAndBool), BINARY(copysign), BINARY(xlogy, kTranscendental),
      BINARY(eq), BINARY(ne), BINARY(lt), BINARY(le), BINARY(gt), BINARY(ge), BINARY(logical_and),
      BINARY(logical_or), BINARY(logical_xor), BINARY(bitwise_and), BINARY(bitwise_or),
      BINARY(bitwise_xor), BINARY(bitwise_left_shift), BINARY(bitwise_right_shift),
  };
  return cases;
}

// ---- layouts: the same view applied to inputs and to torch's result ----
struct Layout {
  const char* name;
  std::function<Tensor(const Tensor&)> view;
};
const std::vector<Layout>& layouts() {
  static const std::vector<Layout> all = {
      {"contiguous", [](const Tensor& t) { return t; }},
      {"transposed", [](const Tensor& t) { return t.transpose(1, 3); }},
      {"sliced", [](const Tensor& t) { return t.slice(1, 0, 3, 2).slice(3, 1, 3); }},
      {"expanded", [](const Tensor& t) { return t.slice(1, 0, 1).expand(t.sizes()); }},
      {"channels_last", [](const Tensor& t) { return t.contiguous(MemoryFormat::ChannelsLast); }},
      {"zero_size", [](const Tensor& t) { return t.slice(0, 0, 0); }},
      {"zero_dim", [](const Tensor& t) { return t.select(0, 1).select(0, 2).select(0, 1).select(0, 2); }},
  };
  return all;
}

// The broadcast operand: b[0, :, :1] of shape (3, 1, 3), as the generator takes it.
Tensor broadcast_operand(const Tensor& b) { return b.select(0, 0).slice(1, 0, 1); }

// Output memory format as torch gives it for an input of this layout.
void expect_layout(const char* layout, const Tensor& in, const Tensor& out, const std::string& what) {
  const std::string l = layout;
  if (l == "contiguous" || l == "sliced" || l == "expanded") {
    EXPECT_TRUE(out.is_contiguous()) << what << ": strides " << out.strides();
  } else if (l == "transposed") {
    EXPECT_EQ(out.strides(), in.strides()) << what;
  } else if (l == "channels_last") {
    EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast)) << what << ": strides " << out.strides();
  }
}

struct Entry {
  std::string kind, op, domains, note;
  DType dtype;
  int64_t row = -1;  // -1: torch rejects the op for this dtype
  DType result = kFloat32;
};

std::vector<Entry> entries() {
  std::vector<Entry> out;
  for (const auto& w : load_manifest("elementwise")) {
    Entry e;
    e.kind = w.at(0);
    e.op = w.at(1);
    e.dtype = dtype_from_name(w.at(2));
    e.domains = w.at(3);
    if (w.at(4) != "-") {
      e.row = std::stoll(w.at(4));
      e.result = dtype_from_name(w.at(5));
      if (w.size() > 6) e.note = w.at(6);
    }
    out.push_back(e);
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, ',');) parts.push_back(p);
  return parts;
}

// The device the running test computes on.
Device g_device = kCPU;

struct Fixtures {
  std::map<std::string, Tensor> cache;
  Tensor input(const std::string& domain, DType dtype) {
    const std::string name = "in_" + domain + "_" + std::string(dtype_name(dtype));
    const std::string key = name + "@" + g_device.str();
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    return cache[key] = load_fixture("elementwise", name, dtype).to(g_device);
  }
  // Row `row` of torch's results for inputs of `dtype`, in the result dtype.
  Tensor expected(const Entry& e) {
    const std::string key = "out_" + std::string(dtype_name(e.dtype));
    auto it = cache.find(key);
    Tensor all = it != cache.end() ? it->second : (cache[key] = load_npy(fixture_path("core/elementwise/" + key + ".npy")));
    return all.select(0, e.row).to(e.result);
  }
};

Fixtures& fixtures() {
  static Fixtures f;
  return f;
}

const UnaryCase* find_unary(const std::string& name) {
  for (const auto& c : unary_cases())
    if (c.name == name) return &c;
  return nullptr;
}
const BinaryCase* find_binary(const std::string& name) {
  for (const auto& c : binary_cases())
    if (c.name == name) return &c;
  return nullptr;
}

std::string describe(const Entry& e, const char* layout) {
  return e.kind + " " + e.op + " " + std::string(dtype_name(e.dtype)) + " [" + layout + "]";
}

// Torch refused: Ember must throw an ember::Error, unless the case extends the op
// to this dtype on purpose.
void check_rejected(const Entry& e, uint32_t extends, const std::function<Tensor()>& run) {
  if (extends & dtype_bit(e.dtype)) return;
  EXPECT_THROW(run(), Error) << describe(e, "contiguous") << ": torch rejects this dtype";
}

// In-place: torch's result must be castable back to self's dtype, else an error.
void check_inplace(const Entry& e, const Tensor& expected, Tol tol,
                   const std::function<Tensor(Tensor&, const Layout&)>& run_in) {
  for (const auto& layout : layouts()) {
    const std::string l = layout.name;
    if (l == "channels_last") continue;
    SCOPED_TRACE(describe(e, layout.name) + " in-place");
    Tensor base = fixtures().input(split(e.domains)[0], e.dtype).clone();
    Tensor self = layout.view(base);
    auto run = [&](Tensor& t) { return run_in(t, layout); };
    if (l == "expanded") {
      if (self.numel() > 1) {
        EXPECT_THROW(run(self), Error) << "in-place write into an expanded tensor";
      }
      continue;
    }
    if (!can_cast(e.result, e.dtype)) {
      EXPECT_THROW(run(self), Error) << "result " << e.result << " can't be cast to " << e.dtype;
      continue;
    }
    Tensor r = run(self);
    EXPECT_TRUE(r.is_same(self)) << "in-place op must return self";
    EXPECT_EQ(self.dtype(), e.dtype);
    EXPECT_TRUE(values_match(self, layout.view(expected).to(e.dtype), tol));
  }
}

// out=: a float64 out receives any real result; an integral out can't hold a float one.
void check_out(const Entry& e, const Tensor& expected, Tol tol,
               const std::function<void(Tensor&)>& run, bool zero_sign = true) {
  SCOPED_TRACE(describe(e, "contiguous") + " out=");
  Tensor out = empty(expected.sizes(), TensorOptions(kFloat64).device(g_device));
  run(out);
  EXPECT_EQ(out.device(), g_device);
  EXPECT_EQ(out.dtype(), kFloat64);
  EXPECT_TRUE(values_match(out, expected, tol, zero_sign));
  Tensor resized = empty({0}, TensorOptions(kFloat64).device(g_device));
  run(resized);
  EXPECT_EQ(resized.sizes(), expected.sizes()) << "an empty out= tensor is resized";
  if (is_floating_point(e.result)) {
    Tensor int_out = empty(expected.sizes(), TensorOptions(kInt64).device(g_device));
    EXPECT_THROW(run(int_out), Error) << "float result into an int64 out=";
  }
  Tensor wrong_shape = empty({5}, TensorOptions(kFloat64).device(g_device));
  EXPECT_THROW(run(wrong_shape), Error) << "out= of the wrong shape";
}

int64_t g_cases_run = 0;

void run_unary(const Entry& e) {
  const UnaryCase* c = find_unary(e.op);
  ASSERT_NE(c, nullptr) << "no harness case for unary op " << e.op;
  Tensor x = fixtures().input(e.domains, e.dtype);
  if (e.row < 0) {
    check_rejected(e, c->extends, [&] { return c->fn(x); });
    return;
  }
  const Tensor expected = fixtures().expected(e);
  const Tol tol = c->tol.of(e.result);
  for (const auto& layout : layouts()) {
    SCOPED_TRACE(describe(e, layout.name));
    Tensor in = layout.view(x);
    Tensor r = c->fn(in);
    ++g_cases_run;
    EXPECT_EQ(r.dtype(), e.result);
    EXPECT_EQ(r.device(), g_device);
    EXPECT_TRUE(values_match(r, layout.view(expected), tol, c->zero_sign));
    expect_layout(layout.name, in, r, describe(e, layout.name));
  }
  if (c->inplace)
    check_inplace(e, expected, tol, [&](Tensor& self, const Layout&) -> Tensor {
      c->inplace(self);
      return self;
    });
  if (c->out) check_out(e, expected, tol, [&](Tensor& o) { c->out(o, x); }, c->zero_sign);
}

void run_binary(const Entry& e) {
  const BinaryCase* c = find_binary(e.op);
  ASSERT_NE(c, nullptr) << "no harness case for binary op " << e.op;
  const auto domains = split(e.domains);
  Tensor a = fixtures().input(domains[0], e.dtype);
  const bool is_scalar = e.kind.rfind("scalar_", 0) == 0;
  Scalar s = e.kind == "scalar_int" ? Scalar(int64_t{3})
                                    : Scalar(domains[0] == "pow_base" ? 0.5 : -1.5);
  Tensor b = is_scalar ? Tensor() : fixtures().input(domains[1], e.dtype);
  if (e.kind == "broadcast") b = broadcast_operand(b);
  auto run = [&](const Tensor& x, const Tensor& y) { return is_scalar ? c->scalar_fn(x, s) : c->fn(x, y); };
  if (e.row < 0) {
    check_rejected(e, c->extends, [&] { return run(a, b); });
    return;
  }
  const Tensor expected = fixtures().expected(e);
  const Tol tol = c->tol.of(e.result);
  if (e.kind == "broadcast") {
    // Same data through a transposed view of both operands.
    for (int transposed = 0; transposed < 2; ++transposed) {
      SCOPED_TRACE(describe(e, transposed ? "transposed" : "contiguous"));
      Tensor x = transposed ? a.transpose(1, 3) : a;
      Tensor y = transposed ? b.transpose(0, 2) : b;
      Tensor r = c->fn(x, y);
      ++g_cases_run;
      EXPECT_EQ(r.dtype(), e.result);
      EXPECT_TRUE(values_match(r, transposed ? expected.transpose(1, 3) : expected, tol));
    }
    return;
  }
  for (const auto& layout : layouts()) {
    SCOPED_TRACE(describe(e, layout.name));
    Tensor x = layout.view(a);
    Tensor r = run(x, is_scalar ? Tensor() : layout.view(b));
    ++g_cases_run;
    EXPECT_EQ(r.dtype(), e.result);
    EXPECT_EQ(r.device(), g_device);
    EXPECT_TRUE(values_match(r, layout.view(expected), tol));
    expect_layout(layout.name, x, r, describe(e, layout.name));
  }
  if (e.kind == "binary") {
    if (c->inplace)
      check_inplace(e, expected, tol, [&](Tensor& self, const Layout& layout) -> Tensor {
        c->inplace(self, layout.view(b));  // the other operand in self's layout
        return self;
      });
    if (c->out) check_out(e, expected, tol, [&](Tensor& o) { c->out(o, a, b); });
  }
}

TEST(ElementwiseHarness, EveryCaseHasFixturesAndEveryFixtureACase) {
  std::set<std::string> seen;
  for (const auto& e : entries()) seen.insert(e.op);
  for (const auto& c : unary_cases()) EXPECT_TRUE(seen.count(c.name)) << c.name << " has no fixtures";
  for (const auto& c : binary_cases()) EXPECT_TRUE(seen.count(c.name)) << c.name << " has no fixtures";
  for (const auto& op : seen) EXPECT_TRUE(find_unary(op) || find_binary(op)) << op << " has no case";
}

class ElementwiseOnDevice : public OnEachDevice {
 protected:
  void SetUp() override {
    OnEachDevice::SetUp();
    g_device = device();
  }
  void TearDown() override {
    g_device = kCPU;
    fixtures().cache.clear();
  }
};
EMBER_INSTANTIATE_ON_EACH_DEVICE(ElementwiseOnDevice);

// Each test also checks that it ran about as many (op, dtype, layout) cases as the fixtures hold.
TEST_P(ElementwiseOnDevice, UnaryOps) {
  const int64_t before = g_cases_run;
  for (const auto& e : entries())
    if (e.kind == "unary") run_unary(e);
  EXPECT_GT(g_cases_run - before, 2000);
}

TEST_P(ElementwiseOnDevice, BinaryOps) {
  const int64_t before = g_cases_run;
  for (const auto& e : entries())
    if (e.kind == "binary" || e.kind == "broadcast") run_binary(e);
  EXPECT_GT(g_cases_run - before, 1500);
}

TEST_P(ElementwiseOnDevice, TensorScalarOps) {
  const int64_t before = g_cases_run;
  for (const auto& e : entries())
    if (e.kind.rfind("scalar_", 0) == 0) run_binary(e);
  EXPECT_GT(g_cases_run - before, 2500);
}

}  // namespace elementwise_ops_test
