// MobileNetV2, MobileNetV3, ShuffleNetV2, GoogLeNet, Inception v3 and
// EfficientNet-B0 against torchvision 0.14 (scripts/fixtures/models_mobile.py):
// each case loads torchvision's state_dict strictly, then compares eval-mode
// logits (NCHW and channels-last), one training-mode forward + backward (loss,
// logits, auxiliary heads, input and parameter gradients, running statistics)
// and a reload of Ember's own checkpoint.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <ember/ember.h>
#include <ember/models/models.h>

#include "npy.h"

namespace ember {
namespace models_mobile_test {

namespace F = nn::functional;
using testing::fixture_path;
using testing::load_npy;
using models::ImageClassifier;

Tensor fixture(const std::string& name) { return load_npy(fixture_path("models/models_mobile/" + name + ".npy")); }

std::vector<std::string> fixture_lines(const std::string& name) {
  std::ifstream f(fixture_path("models/models_mobile/" + name));
  EXPECT_TRUE(f.good()) << name;
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// The fixture script's hash_input: murmur3's 32-bit finalizer of (index +
// seed * 0x9E3779B9) mapped exactly to [-1, 1) in double, then to float.
Tensor hash_input(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> values(static_cast<size_t>(n));
  const uint32_t base = seed * 0x9E3779B9u;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = static_cast<uint32_t>(i) + base;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    values[static_cast<size_t>(i)] = static_cast<float>((static_cast<double>(x) - 2147483648.0) / 2147483648.0);
  }
  return tensor(values).reshape(shape);
}

// max |actual - expected| <= rel * max |expected| (errors relative to the
// tensor's scale, so that near-zero entries do not dominate).
void expect_close(const Tensor& actual, const Tensor& expected, double rel, const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what;
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const Tensor a = actual.detach().to(kFloat64), e = expected.to(kFloat64);
  const double scale = e.abs().max().item<double>();
  const double err = (a - e).abs().max().item<double>();
  EXPECT_LE(err, rel * scale) << what << ": max error " << err << " for max |expected| " << scale;
}

// The outputs of a training-mode forward: logits first, then (with `aux`)
// the auxiliary heads in torchvision's namedtuple order.
using TrainForward = std::function<std::vector<Tensor>(const ImageClassifier&, const Tensor&, bool aux)>;

std::vector<Tensor> main_logits(const ImageClassifier& m, const Tensor& x, bool) { return {m->forward(x)}; }

// A training-mode fixture run (<case>_<tag>): input shape, whether the
// auxiliary heads take part, and whether Ember's float64 run is checked too
// (Inception v3 at 299x299 in float64 would take ~20 s).
struct TrainingRun {
  std::string tag;
  std::vector<int64_t> shape;
  bool aux = true;
  bool float64 = true;
};

struct Case {
  std::string name;
  // Dropout and stochastic depth off, so training mode is deterministic
  // (and no torchvision init where the weights are replaced anyway).
  std::function<ImageClassifier()> build;
  std::vector<int64_t> eval_shape;
  std::vector<TrainingRun> runs;
  TrainForward train_forward = main_logits;
};

// gtest prints parameters by name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<int64_t> k64 = {2, 3, 64, 64};
const std::vector<TrainingRun> kTrain = {{"train", k64}};

std::vector<Case> cases() {
  using namespace models;
  return {
      {"mobilenet_v2", [] { return mobilenet_v2({.num_classes = 10, .dropout = 0}).ptr(); }, k64, kTrain},
      {"mobilenet_v2_w050", [] { return mobilenet_v2({.num_classes = 10, .width_mult = 0.5}).ptr(); }, k64, {}},
      {"mobilenet_v3_large", [] { return mobilenet_v3_large({.num_classes = 10, .dropout = 0}).ptr(); }, k64, kTrain},
      {"mobilenet_v3_small", [] { return mobilenet_v3_small({.num_classes = 10, .dropout = 0}).ptr(); }, k64, kTrain},
      {"shufflenet_v2_x1_0", [] { return shufflenet_v2_x1_0({.num_classes = 10}).ptr(); }, k64, kTrain},
      {"shufflenet_v2_x0_5", [] { return shufflenet_v2_x0_5({.num_classes = 10}).ptr(); }, k64, {}},
      {"googlenet",
       [] { return googlenet({.num_classes = 10, .init_weights = false, .dropout = 0, .dropout_aux = 0}).ptr(); },
       k64,
       kTrain,
       [](const ImageClassifier& m, const Tensor& x, bool aux) -> std::vector<Tensor> {
         if (!aux) return {m->forward(x)};
         auto out = std::dynamic_pointer_cast<GoogLeNetImpl>(m)->forward_with_aux(x);
         return {out.logits, out.aux_logits2, out.aux_logits1};
       }},
      {"inception_v3",
       [] { return inception_v3({.num_classes = 10, .init_weights = false, .dropout = 0}).ptr(); },
       {2, 3, 75, 75},
       {{"train", {2, 3, 107, 107}, false}, {"train_aux", {2, 3, 299, 299}, true, false}},
       [](const ImageClassifier& m, const Tensor& x, bool aux) -> std::vector<Tensor> {
         if (!aux) return {m->forward(x)};
         auto out = std::dynamic_pointer_cast<Inception3Impl>(m)->forward_with_aux(x);
         return {out.logits, out.aux_logits};
       }},
      {"efficientnet_b0",
       [] { return efficientnet_b0({.num_classes = 10, .dropout = 0, .stochastic_depth_prob = 0}).ptr(); }, k64,
       kTrain},
  };
}

ImageClassifier load_case(const Case& c) {
  ImageClassifier m = c.build();
  const StateDict sd = serialize::load_torch_state_dict(fixture_path("models/models_mobile/" + c.name + ".pt"));
  m->load_state_dict(sd, /*strict=*/true);
  return m;
}

// "<what> <max abs error>" lines: torch's float32 run against the float64 one.
std::map<std::string, double> torch_f32_errors(const std::string& run) {
  std::map<std::string, double> errors;
  for (const auto& line : fixture_lines(run + "_f32_error.txt")) {
    std::istringstream is(line);
    std::string key;
    double err = 0;
    is >> key >> err;
    errors[key] = err;
  }
  return errors;
}

// One training step of case c's run in `dtype` / `format`, checked against the
// float64 reference: float64 within 1e-6 of each tensor's scale; float32
// within 4x torch's own float32 error on the tensor or the run's worst
// relative torch float32 error times the tensor's scale, whichever is larger
// (torch's errors vary with the layout and thread count by as much), plus
// 1e-5 of the scale.
void check_training_run(const Case& c, const TrainingRun& run, DType dtype, MemoryFormat format) {
  const std::string prefix = c.name + "_" + run.tag;
  SCOPED_TRACE(prefix + (dtype == kFloat64 ? " float64" : " float32") +
               (format == MemoryFormat::ChannelsLast ? " channels-last" : ""));
  ImageClassifier m = load_case(c);
  m->to(dtype);
  m->to(format);
  m->train();
  const Tensor x = hash_input(run.shape, 2).to(dtype).contiguous(format).requires_grad_();
  const Tensor target = tensor<int64_t>({3, 7});
  const auto outs = c.train_forward(m, x, run.aux);
  Tensor loss = F::cross_entropy(outs[0], target);
  for (size_t i = 1; i < outs.size(); ++i) loss = loss + 0.4 * F::cross_entropy(outs[i], target);
  loss.backward();

  const auto torch_err = torch_f32_errors(prefix);
  // How ill-conditioned the run is: torch float32's worst error relative to
  // the tensor's scale (up to a few % for MobileNetV2, ShuffleNetV2 and
  // Inception v3, whose training-mode BatchNorms see 8 values per channel).
  double conditioning = 0;
  for (const auto& [what, err] : torch_err)
    conditioning = std::max(conditioning, err / fixture(prefix + "_" + what).abs().max().item<double>());
  auto check = [&](const Tensor& actual, const std::string& what) {
    const Tensor expected = fixture(prefix + "_" + what);
    ASSERT_TRUE(torch_err.count(what)) << what;
    const double scale = expected.abs().max().item<double>();
    const double tol = dtype == kFloat64 ? 1e-6 * scale
                                         : std::max(4 * torch_err.at(what), conditioning * scale) + 1e-5 * scale;
    ASSERT_TRUE(actual.defined()) << what;
    ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
    const double err = (actual.detach().to(kFloat64) - expected).abs().max().item<double>();
    EXPECT_LE(err, tol) << what << ": max error " << err << " (torch float32: " << torch_err.at(what)
                        << ") for max |expected| " << scale;
  };
  check(loss, "loss");
  check(outs[0], "out");
  size_t heads = 1;
  while (torch_err.count("aux" + std::to_string(heads - 1))) ++heads;
  ASSERT_EQ(outs.size(), heads) << "outputs of the training forward";
  for (size_t i = 1; i < outs.size(); ++i) check(outs[i], "aux" + std::to_string(i - 1));
  using indexing::None;
  using idx = indexing::Slice;
  check(x.grad().index({idx(), idx(), idx(None, None, 4), idx(None, None, 4)}), "gin");
  const auto params = m->named_parameters();
  for (const auto& key : fixture_lines(prefix + "_grad_keys.txt")) check(params.at(key).grad(), "grad_" + key);
  const auto buffers = m->named_buffers();
  for (const auto& key : fixture_lines(prefix + "_after_keys.txt")) check(buffers.at(key), "after_" + key);
}

class MobileModels : public ::testing::TestWithParam<Case> {};

TEST_P(MobileModels, EvalMatchesTorchvision) {
  const Case& c = GetParam();
  ImageClassifier m = load_case(c);
  m->eval();
  const Tensor expected = fixture(c.name + "_eval_out");
  const Tensor x = hash_input(c.eval_shape, 1);
  // With grad mode on the layers run one by one (recorded); without, the
  // inference fusions (BatchNorm folded into convolutions) take over.
  expect_close(m->forward(x), expected, 1e-4, "NCHW, grad mode");
  NoGradGuard no_grad;
  expect_close(m->forward(x), expected, 1e-4, "NCHW");

  // Channels-last: the input alone, then the model's weights too.
  const Tensor x_cl = x.contiguous(MemoryFormat::ChannelsLast);
  expect_close(m->forward(x_cl), expected, 1e-4, "channels-last input");
  m->to(MemoryFormat::ChannelsLast);
  expect_close(m->forward(x_cl), expected, 1e-4, "channels-last input and weights");
}

TEST_P(MobileModels, EmberCheckpointReloads) {
  const Case& c = GetParam();
  ImageClassifier m = load_case(c);
  m->eval();
  const auto path = std::filesystem::temp_directory_path() / ("ember_models_" + c.name + ".safetensors");
  save(path.string(), m->state_dict());
  ImageClassifier fresh = c.build();
  fresh->load_state_dict(load(path.string()), /*strict=*/true);
  std::filesystem::remove(path);
  fresh->eval();
  NoGradGuard no_grad;
  const Tensor x = hash_input(c.eval_shape, 1);
  EXPECT_TRUE(equal(fresh->forward(x), m->forward(x)));
}

INSTANTIATE_TEST_SUITE_P(Torchvision, MobileModels, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// One training step per fixture run: float32 NCHW; then, where the run is
// cheap enough, float32 channels-last and float64.
struct CaseRun {
  Case c;
  TrainingRun run;
};
void PrintTo(const CaseRun& cr, std::ostream* os) { *os << cr.c.name << "_" << cr.run.tag; }

std::vector<CaseRun> case_runs() {
  std::vector<CaseRun> out;
  for (const Case& c : cases())
    for (const TrainingRun& run : c.runs) out.push_back({c, run});
  return out;
}

class MobileModelsTraining : public ::testing::TestWithParam<CaseRun> {};

TEST_P(MobileModelsTraining, StepMatchesTorchvision) {
  const auto& [c, run] = GetParam();
  check_training_run(c, run, kFloat32, MemoryFormat::Contiguous);
  if (run.float64) {
    check_training_run(c, run, kFloat32, MemoryFormat::ChannelsLast);
    check_training_run(c, run, kFloat64, MemoryFormat::Contiguous);
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, MobileModelsTraining, ::testing::ValuesIn(case_runs()),
                         [](const auto& info) { return info.param.c.name + "_" + info.param.run.tag; });

}  // namespace models_mobile_test
}  // namespace ember
