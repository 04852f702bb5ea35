// ember::audio::functional::lfilter and filtfilt against torchaudio 0.13 and
// scipy.signal (fixtures: scripts/fixtures/audio_filters.py), their gradients,
// and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "npy.h"

namespace filters_test {

using namespace ember;
namespace AF = ember::audio::functional;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/filters/" + name + ".npy"));
}

double max_diff(const Tensor& actual, const Tensor& expected) {
  return (actual.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
}

void expect_close(const Tensor& actual, const Tensor& expected, double tol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_LE(max_diff(actual, expected), tol);
}

// Bit for bit (Note [lfilter arithmetic]).
void expect_identical(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(actual.equal(expected)) << "max difference " << max_diff(actual, expected);
}

struct Coeffs {
  Tensor a, b;
};
Coeffs coeffs(const std::string& name) { return {fixture("a_" + name), fixture("b_" + name)}; }

// scipy's direct form II transposed rounds differently; the order-8 and -10
// Butterworths amplify that.
double scipy_tolerance(const std::string& name) { return name == "o8" || name == "o10" ? 1e-12 : 1e-14; }

// Relative to the largest expected value.
void expect_close_relative(const Tensor& actual, const Tensor& expected, double tol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  EXPECT_LE(max_diff(actual, expected), tol * expected.abs().max().item<double>());
}

TEST(AudioLfilter, Float64IsTorchaudiosBitForBit) {
  // Note [lfilter arithmetic]: the same roundings in the same order (torch's
  // float64 conv1d accumulates the taps as its float32 one does).
  const Tensor wave = fixture("wave");
  for (const std::string name : {"o2", "o3", "o8", "o10"}) {
    SCOPED_TRACE(name);
    const Coeffs c = coeffs(name);
    expect_identical(AF::lfilter(wave, c.a, c.b, false), fixture("lfilter_" + name + "_noclamp"));
    if (name == "o2" || name == "o3") expect_identical(AF::lfilter(wave, c.a, c.b), fixture("lfilter_" + name + "_clamp"));
  }
}

TEST(AudioLfilter, Float32IsTorchaudiosBitForBit) {
  const Tensor wave = fixture("wave").to(kFloat32);
  for (const std::string name : {"o2", "o3", "o8", "o10"}) {
    SCOPED_TRACE(name);
    const Coeffs c = coeffs(name);
    const Tensor a = c.a.to(kFloat32), b = c.b.to(kFloat32);
    expect_identical(AF::lfilter(wave, a, b, false), fixture("lfilter_" + name + "_noclamp_f32"));
    if (name == "o2" || name == "o3") expect_identical(AF::lfilter(wave, a, b), fixture("lfilter_" + name + "_clamp_f32"));
  }
  const Tensor ab = fixture("a_batch").to(kFloat32), bb = fixture("b_batch").to(kFloat32);
  expect_identical(AF::lfilter(wave, ab, bb, false), fixture("lfilter_batch_f32"));
}

TEST(AudioLfilter, MatchesScipy) {
  // scipy.signal.lfilter (direct form II transposed, float64): the same
  // filter with other roundings.
  const Tensor wave = fixture("wave");
  for (const std::string name : {"o2", "o3", "o8", "o10"}) {
    SCOPED_TRACE(name);
    const Coeffs c = coeffs(name);
    expect_close(AF::lfilter(wave, c.a, c.b, false), fixture("scipy_lfilter_" + name), scipy_tolerance(name));
  }
  expect_close(AF::lfilter(wave, fixture("a_batch"), fixture("b_batch"), false), fixture("scipy_lfilter_batch"),
               1e-12);
}

TEST(AudioLfilter, BatchedCoefficientSets) {
  const Tensor wave = fixture("wave");  // [2, 3, time]
  const Tensor a = fixture("a_batch"), b = fixture("b_batch");  // [3, 9]
  expect_identical(AF::lfilter(wave, a, b, false), fixture("lfilter_batch"));
  // Filter i on channel i: the same as filtering channel i alone.
  for (int64_t i = 0; i < 3; ++i) {
    const Tensor alone = AF::lfilter(wave.select(1, i), a[i], b[i], false);
    EXPECT_TRUE(AF::lfilter(wave, a, b, false).select(1, i).equal(alone));
  }
  // Without batching every filter runs over the whole [2, time] waveform.
  const Tensor mono = wave.select(1, 0);
  const Tensor all = AF::lfilter(mono, a, b, true, false);
  EXPECT_EQ(all.sizes().vec(), (std::vector<int64_t>{2, 3, wave.size(-1)}));
  expect_identical(all, fixture("lfilter_nobatch"));
  // Extra leading dims: [2, 2, 3, time].
  expect_identical(AF::lfilter(fixture("wave4"), a, b), fixture("lfilter_4d"));
}

TEST(AudioLfilter, RowsAreIndependentOfTheirNeighbours) {
  // 37 rows (not a multiple of the SIMD lanes) of 1000 samples (not a
  // multiple of the time tile), against each row filtered alone.
  for (const DType dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype);
    const Tensor x = (rand({37, 1000}, dtype) - 0.5) * 1.5;
    const Coeffs c = coeffs("o3");
    const Tensor a = c.a.to(dtype), b = c.b.to(dtype);
    const Tensor y = AF::lfilter(x, a, b);
    for (int64_t r = 0; r < 37; ++r) EXPECT_TRUE(y[r].equal(AF::lfilter(x[r], a, b))) << "row " << r;
    // A transposed (non-contiguous) waveform gives the same values.
    const Tensor xt = x.t().contiguous().t();
    EXPECT_TRUE(AF::lfilter(xt, a, b).equal(y));
  }
}

// torchaudio's arithmetic one sample at a time (Note [lfilter arithmetic]):
// the FIR taps fused, oldest first, from zero; the recursion a rounded product
// and a rounded subtraction per tap, oldest first (volatile keeps the compiler
// from fusing them). x [R, T], a and b [C, K] already divided by a[:, 0].
template <class T>
Tensor scalar_lfilter(const Tensor& x, const Tensor& a, const Tensor& b) {
  const int64_t rows = x.size(0), length = x.size(1), sets = a.size(0), taps = a.size(1);
  const Tensor xc = x.contiguous(), ac = a.contiguous(), bc = b.contiguous();
  Tensor out = zeros({rows, length}, x.dtype());
  const T* xv = xc.data_ptr<T>();
  const T* av = ac.data_ptr<T>();
  const T* bv = bc.data_ptr<T>();
  T* yv = out.data_ptr<T>();
  for (int64_t r = 0; r < rows; ++r) {
    const T* ar = av + (r % sets) * taps;
    const T* br = bv + (r % sets) * taps;
    for (int64_t t = 0; t < length; ++t) {
      T acc = 0;
      for (int64_t k = taps - 1; k >= 0; --k) acc = std::fma(br[k], t - k >= 0 ? xv[r * length + t - k] : T(0), acc);
      for (int64_t k = taps - 1; k >= 1; --k) {
        volatile T product = (t - k >= 0 ? yv[r * length + t - k] : T(0)) * ar[k];
        acc = acc - product;
      }
      yv[r * length + t] = acc;
    }
  }
  return out;
}

TEST(AudioLfilter, MatchesAScalarLoopOfTorchaudiosArithmetic) {
  // Random shapes across the kernel's paths: row counts around the SIMD lane
  // count, lengths around the time tile, orders with their state in registers
  // and past them, shared and per-row coefficient sets; the fused pass and
  // the two recorded halves.
  Generator gen(20);
  for (const DType dtype : {kFloat32, kFloat64}) {
    for (const int64_t taps : {1, 2, 3, 5, 9, 10, 13}) {
      for (const auto& [rows, length] : std::vector<std::pair<int64_t, int64_t>>{{1, 7}, {3, 128}, {8, 129}, {9, 300}, {19, 261}}) {
        SCOPED_TRACE(::testing::Message() << dtype << " taps " << taps << " rows " << rows << " length " << length);
        const int64_t sets = rows % 2 == 1 ? rows : 1;
        const Tensor x = (rand({rows, length}, kFloat64, &gen) - 0.5).to(dtype);
        // Stable poles: small a_k; a_0 in [1, 2).
        Tensor a = (rand({sets, taps}, kFloat64, &gen) - 0.5) * (0.6 / taps);
        a.select(1, 0).copy_(rand({sets}, kFloat64, &gen) + 1.0);
        const Tensor b = rand({sets, taps}, kFloat64, &gen) - 0.5;
        const Tensor ad = a.to(dtype), bd = b.to(dtype);
        const Tensor a_norm = ad / ad.narrow(1, 0, 1), b_norm = bd / ad.narrow(1, 0, 1);
        const Tensor expected = dtype == kFloat32 ? scalar_lfilter<float>(x, a_norm, b_norm)
                                                  : scalar_lfilter<double>(x, a_norm, b_norm);
        const Tensor xs = sets == 1 ? x : x.unsqueeze(0);  // [1, rows, length] with rows sets
        const Tensor a_arg = sets == 1 ? ad[0] : ad, b_arg = sets == 1 ? bd[0] : bd;
        expect_identical(AF::lfilter(xs, a_arg, b_arg, false).reshape({rows, length}), expected);
        expect_identical(AF::lfilter(xs.clone().requires_grad_(), a_arg, b_arg, false).detach().reshape({rows, length}),
                         expected);
      }
    }
  }
}

TEST(AudioLfilter, ZeroPaddedCoefficientsChangeNothing) {
  // Trailing zero taps add exact zeros (oldest first), so an order-3 filter
  // padded to 12 taps (the kernel's path for long filters) gives the order-3
  // result bit for bit, and order 0 is a gain.
  const Tensor wave = fixture("wave").to(kFloat32);
  const Coeffs c = coeffs("o3");
  const Tensor a = c.a.to(kFloat32), b = c.b.to(kFloat32);
  const Tensor a12 = ember::pad(a, {0, 8}), b12 = ember::pad(b, {0, 8});
  EXPECT_TRUE(AF::lfilter(wave, a12, b12, false).equal(AF::lfilter(wave, a, b, false)));
  const Tensor gain = AF::lfilter(wave, tensor<float>({2.0f}), tensor<float>({0.5f}), false);
  EXPECT_TRUE(gain.equal(wave * 0.25f));
}

TEST(AudioLfilter, ClampOnlyTheOutput) {
  // The recursion runs on unclamped values; only the result is clamped.
  const Tensor wave = fixture("wave");
  const Coeffs c = coeffs("o2");
  const Tensor raw = AF::lfilter(wave, c.a, c.b, false);
  EXPECT_GT(raw.abs().max().item<double>(), 1.0);
  EXPECT_TRUE(AF::lfilter(wave, c.a, c.b, true).equal(raw.clamp(-1.0, 1.0)));
}

TEST(AudioLfilter, EmptyAndShortSignals) {
  const Coeffs c = coeffs("o8");
  EXPECT_EQ(AF::lfilter(zeros({3, 0}, kFloat64), c.a, c.b).sizes().vec(), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(AF::lfilter(zeros({0, 5}, kFloat64), c.a, c.b).sizes().vec(), (std::vector<int64_t>{0, 5}));
  // Shorter than the filter: the first samples of the long result.
  const Tensor x = fixture("wave");
  const Tensor y = AF::lfilter(x, c.a, c.b, false);
  EXPECT_TRUE(AF::lfilter(x.narrow(-1, 0, 4), c.a, c.b, false).equal(y.narrow(-1, 0, 4)));
}

TEST(AudioLfilter, GradientsMatchTorchaudio) {
  const Tensor wave = fixture("wave").narrow(-1, 0, 48);
  const Tensor w = linspace(-1, 1, 48, kFloat64);
  auto grads = [&](const Tensor& a0, const Tensor& b0, bool clamp) {
    const Tensor x = wave.clone().requires_grad_();
    const Tensor a = a0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    (AF::lfilter(x, a, b, clamp) * w).sum().backward();
    return std::vector<Tensor>{x.grad(), a.grad(), b.grad()};
  };
  for (const std::string name : {"o2", "o3"}) {
    SCOPED_TRACE(name);
    const Coeffs c = coeffs(name);
    const std::vector<Tensor> g = grads(c.a, c.b, false);
    expect_close_relative(g[0], fixture("grad_" + name + "_x"), 1e-13);
    expect_close_relative(g[1], fixture("grad_" + name + "_a"), 1e-13);
    expect_close_relative(g[2], fixture("grad_" + name + "_b"), 1e-13);
  }
  const std::vector<Tensor> g = grads(fixture("a_grad_batch"), fixture("b_grad_batch"), true);
  expect_close_relative(g[0], fixture("grad_batch_x"), 1e-13);
  expect_close_relative(g[1], fixture("grad_batch_a"), 1e-13);
  expect_close_relative(g[2], fixture("grad_batch_b"), 1e-13);
}

TEST(AudioLfilter, Gradcheck) {
  // Short float64 signals, order 2 and 3, w.r.t. the waveform and both
  // coefficient sets; 1-D and batched coefficients.
  const Tensor wave = fixture("wave").narrow(-1, 0, 12) * 0.5;
  for (const std::string name : {"o2", "o3"}) {
    SCOPED_TRACE(name);
    const Coeffs c = coeffs(name);
    const Tensor x = wave.clone().requires_grad_();
    const Tensor a = c.a.clone().requires_grad_(), b = (c.b * 0.2).requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(
        [](const autograd::variable_list& in) { return autograd::variable_list{AF::lfilter(in[0], in[1], in[2], false)}; },
        {x, a, b}));
  }
  const Tensor x = wave.clone().requires_grad_();
  const Tensor a = fixture("a_grad_batch").requires_grad_(), b = (fixture("b_grad_batch") * 0.2).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::lfilter(in[0], in[1], in[2], false)}; },
      {x, a, b}));
}

TEST(AudioLfilter, Gradgradcheck) {
  // The backward passes are filters again (Note [lfilter gradients]), so the
  // second derivatives exist too.
  const Tensor x = (fixture("wave").narrow(-1, 0, 8).select(0, 0) * 0.5).requires_grad_();
  const Coeffs c = coeffs("o2");
  const Tensor a = c.a.clone().requires_grad_(), b = (c.b * 0.2).requires_grad_();
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::lfilter(in[0], in[1], in[2], false)}; },
      {x, a, b}));
}

TEST(AudioLfilter, RecordedAndUnrecordedPathsAgree) {
  // With grad the filter runs as its two differentiable halves; without, as
  // one fused pass. Both perform the same roundings.
  for (const DType dtype : {kFloat32, kFloat64}) {
    const Tensor wave = fixture("wave").to(dtype);
    const Tensor a = fixture("a_batch").to(dtype), b = fixture("b_batch").to(dtype);
    const Tensor plain = AF::lfilter(wave, a, b);
    const Tensor recorded = AF::lfilter(wave.clone().requires_grad_(), a, b);
    ASSERT_TRUE(recorded.requires_grad());
    EXPECT_TRUE(recorded.detach().equal(plain));
  }
}

TEST(AudioFiltfilt, MatchesTorchaudioAndScipy) {
  const Tensor wave = fixture("wave");
  const Coeffs c = coeffs("o3");
  const Tensor y = AF::filtfilt(wave, c.a, c.b);
  expect_identical(y, fixture("filtfilt_o3"));
  // scipy: two zero-state lfilter passes (scipy.signal.filtfilt itself starts
  // from lfilter_zi, which torchaudio does not).
  expect_close(y, fixture("scipy_filtfilt_o3"), 1e-13);
  expect_identical(AF::filtfilt(wave.to(kFloat32), c.a.to(kFloat32), c.b.to(kFloat32)), fixture("filtfilt_o3_f32"));
  expect_identical(AF::filtfilt(wave, fixture("a_batch"), fixture("b_batch"), false), fixture("filtfilt_batch"));
}

TEST(AudioFiltfilt, Gradcheck) {
  const Tensor x = (fixture("wave").narrow(-1, 0, 10) * 0.3).requires_grad_();
  const Coeffs c = coeffs("o2");
  const Tensor a = c.a.clone().requires_grad_(), b = (c.b * 0.2).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::filtfilt(in[0], in[1], in[2], false)}; },
      {x, a, b}));
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(AudioLfilter, BadInputRaises) {
  const Tensor x = fixture("wave");
  const Coeffs c = coeffs("o3");
  const Tensor a = c.a, b = c.b;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { AF::lfilter(x, tensor<double>({0.0, 0.5, 0.1, 0.0}, kFloat64), b); }, "lfilter: a_0 must be non-zero");
  expect_error([&] { AF::lfilter(x, tensor<double>({1.0, nan, 0.1, 0.0}, kFloat64), b); }, "a_coeffs[1] = nan");
  expect_error([&] { AF::lfilter(x, a, tensor<double>({1.0, 0.5, 0.1, INFINITY}, kFloat64)); }, "b_coeffs[3] = inf");
  expect_error([&] { AF::lfilter(x, a, b.narrow(0, 0, 3)); }, "lfilter: a_coeffs and b_coeffs must have the same shape");
  expect_error([&] { AF::lfilter(x, a.view({1, 1, 4}), b.view({1, 1, 4})); }, "must be 1-D [order + 1] or 2-D");
  expect_error([&] { AF::lfilter(x, a.narrow(0, 0, 0), b.narrow(0, 0, 0)); }, "need at least a_0 and b_0");
  // Channel count != num_filters.
  const Tensor a2 = stack({a, a}), b2 = stack({b, b});
  expect_error([&] { AF::lfilter(x, a2, b2); }, "with 2 filters and batching, the waveform must be [..., 2, time]");
  expect_error([&] { AF::lfilter(x[0][0], a2, b2); }, "got shape [128]");
  Tensor a_bad = a2.clone();
  a_bad[1][0].fill_(0.0);
  expect_error([&] { AF::lfilter(x.narrow(1, 0, 2), a_bad, b2); }, "got a_coeffs[1][0] = 0");
  // dtypes and ranks.
  expect_error([&] { AF::lfilter(x.to(kFloat32), a, b); }, "must have the waveform's dtype (float32)");
  expect_error([&] { AF::lfilter(x.to(kInt64), a.to(kInt64), b.to(kInt64)); }, "expected a float32 or float64 waveform");
  expect_error([&] { AF::lfilter(scalar_tensor(0.5, kFloat64), a, b); }, "0-dim");
  expect_error([&] { AF::filtfilt(x, tensor<double>({0.0, 1.0}, kFloat64), tensor<double>({1.0, 1.0}, kFloat64)); },
               "filtfilt: a_0 must be non-zero");
}

}  // namespace filters_test
