// AutoAugment, RandAugment, TrivialAugmentWide and AugMix against torchvision
// 0.14 (scripts/fixtures/vision_autoaugment.py): every op of _apply_op at
// several magnitudes and signs, the augmentation spaces and policy tables, each
// transform's forward with given draws; then the draws' distributions, forward
// == the ops of the drawn parameters, reproducibility, save/load, AugMix's mix
// against a float64 recomputation, the Gamma/Dirichlet samplers' moments, and
// argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

#include "geometry_fixtures.h"
#include "npy.h"

using namespace ember;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;
using F::AugmentOp;
using F::AugmentStep;

namespace autoaugment_test {

std::string dir() { return ember::testing::fixture_path("vision/vision_autoaugment"); }
Tensor npy(const std::string& name) { return ember::testing::load_npy(dir() + "/" + name + ".npy"); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(s);
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// The lines of a fixture table, split at tabs.
std::vector<std::vector<std::string>> table(const std::string& file) {
  std::ifstream f(dir() + "/" + file);
  EXPECT_TRUE(f.good()) << "missing " << file;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(f, line))
    if (!line.empty()) rows.push_back(split(line, '\t'));
  EXPECT_FALSE(rows.empty()) << file;
  return rows;
}

std::vector<double> doubles(const std::string& s) {
  std::vector<double> out;
  if (s == "none" || s.empty()) return out;
  for (const auto& item : split(s, ',')) out.push_back(std::stod(item));
  return out;
}

std::vector<int64_t> ints(const std::string& s) {
  std::vector<int64_t> out;
  for (double d : doubles(s)) out.push_back(static_cast<int64_t>(d));
  return out;
}

// "op:magnitude|op:magnitude" (torchvision's recorded _apply_op calls).
std::vector<AugmentStep> parse_steps(const std::string& s) {
  std::vector<AugmentStep> out;
  if (s.empty()) return out;
  for (const auto& item : split(s, '|')) {
    const auto colon = item.find(':');
    out.push_back({F::augment_op_from_name(item.substr(0, colon)), std::stod(item.substr(colon + 1))});
  }
  return out;
}

std::string format_steps(const std::vector<AugmentStep>& steps) {
  std::ostringstream s;
  s.precision(17);
  for (size_t i = 0; i < steps.size(); ++i) s << (i ? "|" : "") << F::augment_op_name(steps[i].op) << ":" << steps[i].magnitude;
  return s.str();
}

std::map<std::string, std::string> options_of(const std::string& s) {
  std::map<std::string, std::string> out;
  for (const auto& kv : split(s, ';')) {
    const auto eq = kv.find('=');
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

bool is_geometric(AugmentOp op) {
  return op == AugmentOp::ShearX || op == AugmentOp::ShearY || op == AugmentOp::TranslateX ||
         op == AugmentOp::TranslateY || op == AugmentOp::Rotate;
}

// uint8 images: identical, except that resampled pixels may differ by one
// unit (docs/vision.md, geometry numerics) on a few pixels (`units`: more
// where a later op amplifies that unit); float32: 1e-5.
void expect_matches(const Tensor& actual, const Tensor& expected, bool geometric, const std::string& what,
                    double units = 1.0) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  const double tol = expected.dtype() == kUInt8 ? (geometric ? units : 0.0) : 1e-5;
  const ember::testing::Difference d = ember::testing::difference(actual, expected, tol);
  EXPECT_LE(d.max_abs, tol) << what << ": " << d.count << " of " << actual.numel() << " differ";
  if (expected.dtype() == kUInt8 && geometric) {
    const ember::testing::Difference any = ember::testing::difference(actual, expected, 0.0);
    EXPECT_LE(any.count * 50, actual.numel()) << what << ": " << any.count << " one-unit differences";
  }
}

bool any_geometric(const std::vector<AugmentStep>& steps) {
  for (const auto& s : steps)
    if (is_geometric(s.op)) return true;
  return false;
}

// The uint8 tolerance of a sequence of ops: a geometric op's one-unit
// difference passes through the ops after it, which may scale it (Brightness
// with factor 1.9 makes it two units).
double chain_units(const std::vector<AugmentStep>& steps) {
  bool geometric = false;
  for (const auto& s : steps) {
    if (geometric && s.op != AugmentOp::Identity && !is_geometric(s.op)) return 2.0;
    geometric = geometric || is_geometric(s.op);
  }
  return 1.0;
}

T::InterpolationMode mode_of(const std::string& name) { return T::interpolation_from_name(name, "test"); }

template <class Fn>
std::string error_of(Fn&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR_MENTIONS(stmt, ...)                                                             \
  do {                                                                                               \
    const std::string message = error_of([&] { (void)(stmt); });                                     \
    EXPECT_FALSE(message.empty()) << #stmt " did not throw";                                         \
    for (const char* part : {__VA_ARGS__})                                                           \
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;   \
  } while (0)

Tensor image_u8(std::vector<int64_t> shape, uint64_t seed) {
  Generator g(seed);
  return randint(0, 256, shape, kUInt8, &g);
}

// A smooth-ish image (so that geometric ops and equalize change it visibly).
Tensor test_image(std::vector<int64_t> shape, uint64_t seed) {
  const Tensor noise = image_u8(shape, seed).to(kFloat32);
  const int64_t h = shape[shape.size() - 2], w = shape.back();
  const Tensor ramp = (arange(h * w, kFloat32).view({h, w}) * (255.0 / static_cast<double>(h * w)));
  return (noise * 0.3 + ramp * 0.7).clamp(0, 255).to(kUInt8);
}

// ---- torchvision fixtures ----

TEST(AugmentOps, EveryOpMatchesTorchvision) {
  int checked = 0;
  int64_t geometric_values = 0, off_by_one = 0;
  std::set<std::string> ops_seen;
  for (const auto& row : table("ops.tsv")) {
    ASSERT_EQ(row.size(), 6u);
    const std::string& name = row[0];
    const AugmentOp op = F::augment_op_from_name(row[1]);
    const Tensor img = npy(row[2]);
    const double magnitude = std::stod(row[3]);
    const auto fill = doubles(row[5]);
    const Tensor expected = npy(name);
    const Tensor out = F::apply_augment_op(img, op, magnitude, mode_of(row[4]), fill);
    expect_matches(out, expected, is_geometric(op), name + " " + row[1] + " " + row[3] + " " + row[2]);
    if (is_geometric(op) && expected.dtype() == kUInt8) {
      geometric_values += expected.numel();
      off_by_one += ember::testing::difference(out, expected, 0.0).count;
    }
    // The same on a channels-last view (a decoded JPEG's layout).
    if (img.dim() == 3 && img.size(0) == 3) {
      const Tensor hwc = ember::testing::interleaved(img);
      expect_matches(F::apply_augment_op(hwc, op, magnitude, mode_of(row[4]), fill), expected, is_geometric(op),
                     name + " (interleaved)");
    }
    ops_seen.insert(row[1]);
    ++checked;
  }
  EXPECT_EQ(ops_seen.size(), static_cast<size_t>(F::kNumAugmentOps));
  EXPECT_GT(checked, 300);
  std::cout << "[          ] uint8 values of the geometric ops one unit from torchvision: " << off_by_one << " of "
            << geometric_values << "\n";
}

TEST(AugmentOps, StepsApplyInTurn) {
  const Tensor img = npy("img_u8_rgb");
  const std::vector<AugmentStep> steps = {{AugmentOp::Rotate, 12.0}, {AugmentOp::Equalize, 0}, {AugmentOp::Color, -0.5}};
  const Tensor one_by_one = F::apply_augment_op(
      F::apply_augment_op(F::apply_augment_op(img, AugmentOp::Rotate, 12.0, T::InterpolationMode::Bilinear, {9}),
                          AugmentOp::Equalize, 0),
      AugmentOp::Color, -0.5);
  EXPECT_TRUE(equal(F::apply_augment_ops(img, steps, T::InterpolationMode::Bilinear, {9}), one_by_one));
  EXPECT_TRUE(F::apply_augment_ops(img, {}).is_same(img));  // no steps: the image itself
  EXPECT_TRUE(F::apply_augment_op(img, AugmentOp::Identity, 3.0).is_same(img));
  for (int i = 0; i < F::kNumAugmentOps; ++i) {
    const auto op = static_cast<AugmentOp>(i);
    EXPECT_EQ(F::augment_op_from_name(F::augment_op_name(op)), op);
  }
}

// TranslateX/Y shift the image (Note [Integer translations] in apply_op.cpp):
// equal to the warp they replace, on every layout and dtype it serves.
TEST(AugmentOps, IntegerTranslationsEqualTheWarp) {
  using IM = T::InterpolationMode;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 13, 17}, {1, 24, 24}, {2, 3, 9, 31}, {7, 5}}) {
    const Tensor u8 = image_u8(shape, 11);
    std::vector<Tensor> images = {u8, u8.to(kFloat32) / 255.0, u8.to(kFloat64) / 255.0};
    if (u8.dim() >= 3) images.push_back(ember::testing::interleaved(u8));
    for (const Tensor& img : images) {
      const int64_t c = img.dim() == 2 ? 1 : img.size(-3);
      const bool is_u8 = img.dtype() == kUInt8;
      std::vector<std::vector<double>> fills = {{}, {is_u8 ? 200.4 : 0.3}};
      if (c == 3) fills.push_back(is_u8 ? std::vector<double>{7.5, 300, -4} : std::vector<double>{0.1, 0.5, 0.9});
      for (int64_t t : {-40, -17, -16, -5, -1, 0, 1, 2, 12, 16, 17, 30}) {
        for (IM mode : {IM::Nearest, IM::Bilinear}) {
          for (const auto& fill : fills) {
            for (AugmentOp op : {AugmentOp::TranslateX, AugmentOp::TranslateY}) {
              const std::array<double, 2> tr = op == AugmentOp::TranslateX ? std::array<double, 2>{double(t), 0.0}
                                                                           : std::array<double, 2>{0.0, double(t)};
              const Tensor warp = F::affine(img, 0.0, tr, 1.0, {0.0, 0.0}, mode, fill);
              const Tensor shift = F::apply_augment_op(img, op, static_cast<double>(t) + (t < 0 ? -0.7 : 0.7), mode, fill);
              ASSERT_EQ(shift.sizes(), img.sizes());
              EXPECT_TRUE(equal(shift, warp)) << F::augment_op_name(op) << " " << t << " " << img.dtype() << " "
                                              << img.sizes() << " fill " << fill.size() << " mode " << T::interpolation_name(mode) << " diff " << (shift.to(kFloat64) - warp.to(kFloat64)).abs().max().item<double>();
            }
          }
        }
      }
    }
  }
}

TEST(AugmentSpaces, MatchTorchvision) {
  // class num_bins height width all_ops index op signed magnitudes
  std::map<std::string, F::AugmentationSpace> cache;
  int checked = 0;
  for (const auto& row : table("spaces.tsv")) {
    ASSERT_EQ(row.size(), 9u);
    const std::string& cls = row[0];
    const int64_t bins = std::stoll(row[1]), h = std::stoll(row[2]), w = std::stoll(row[3]);
    const bool all_ops = row[4] == "true";
    const std::string key = row[0] + "/" + row[1] + "/" + row[2] + "/" + row[3] + "/" + row[4];
    if (!cache.count(key)) {
      if (cls == "AutoAugment") cache[key] = F::autoaugment_space(bins, h, w);
      else if (cls == "RandAugment") cache[key] = F::randaugment_space(bins, h, w);
      else if (cls == "TrivialAugmentWide") cache[key] = F::trivial_augment_wide_space(bins);
      else cache[key] = F::augmix_space(bins, h, w, all_ops);
    }
    const auto& space = cache[key];
    const size_t index = std::stoul(row[5]);
    ASSERT_LT(index, space.size()) << key;
    const auto& entry = space[index];
    EXPECT_EQ(F::augment_op_name(entry.op), row[6]) << key << " #" << index;
    EXPECT_EQ(entry.is_signed, row[7] == "true") << key << " " << row[6];
    const auto expected = doubles(row[8]);
    ASSERT_EQ(entry.magnitudes.size(), expected.size()) << key << " " << row[6];
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(entry.magnitudes[i], expected[i]) << key << " " << row[6] << " bin " << i;  // bit for bit
    ++checked;
  }
  // Every space has exactly the fixture's number of ops.
  std::map<std::string, size_t> counts;
  for (const auto& row : table("spaces.tsv"))
    counts[row[0] + "/" + row[1] + "/" + row[2] + "/" + row[3] + "/" + row[4]]++;
  for (const auto& [key, n] : counts) EXPECT_EQ(cache[key].size(), n) << key;
  EXPECT_GT(checked, 300);
}

TEST(AutoAugment, PolicyTablesMatchTorchvision) {
  std::map<std::string, int> sizes;
  for (const auto& row : table("policies.tsv")) {
    ASSERT_EQ(row.size(), 8u);
    const auto policy = T::autoaugment_policy_from_name(row[0], "test");
    const size_t index = std::stoul(row[1]);
    const auto& table = T::autoaugment_policies(policy);
    ASSERT_LT(index, table.size());
    for (int k = 0; k < 2; ++k) {
      const auto& op = table[index][static_cast<size_t>(k)];
      EXPECT_EQ(F::augment_op_name(op.op), row[2 + 3 * k]) << row[0] << " " << index;
      EXPECT_EQ(op.p, std::stod(row[3 + 3 * k])) << row[0] << " " << index;
      const std::string& m = row[4 + 3 * k];
      if (m == "none") {
        EXPECT_FALSE(op.magnitude_id.has_value()) << row[0] << " " << index;
      } else {
        ASSERT_TRUE(op.magnitude_id.has_value()) << row[0] << " " << index;
        EXPECT_EQ(*op.magnitude_id, std::stoll(m)) << row[0] << " " << index;
      }
    }
    sizes[row[0]]++;
  }
  for (auto p : {T::AutoAugmentPolicy::IMAGENET, T::AutoAugmentPolicy::CIFAR10, T::AutoAugmentPolicy::SVHN})
    EXPECT_EQ(static_cast<int>(T::autoaugment_policies(p).size()), sizes[T::autoaugment_policy_name(p)]);
}

TEST(AutoAugment, ForwardWithGivenDrawsMatchesTorchvision) {
  int checked = 0;
  for (const auto& row : table("forward.tsv")) {
    if (row[1] != "AutoAugment") continue;
    const auto opts = options_of(row[3]);
    T::AutoAugment t(T::autoaugment_policy_from_name(opts.at("policy"), "test"), mode_of(opts.at("interpolation")),
                     doubles(opts.at("fill")));
    const auto d = doubles(row[4]);
    ASSERT_EQ(d.size(), 5u);
    T::AutoAugmentParams params;
    params.transform_id = static_cast<int64_t>(d[0]);
    params.probs = {d[1], d[2]};
    params.signs = {static_cast<int64_t>(d[3]), static_cast<int64_t>(d[4])};
    const Tensor img = npy(row[2]);
    const auto steps = t->steps(params, img.size(-2), img.size(-1));
    EXPECT_EQ(format_steps(steps), format_steps(parse_steps(row.size() > 5 ? row[5] : ""))) << row[0];
    const Tensor out = F::apply_augment_ops(img, steps, t->options().interpolation, t->options().fill);
    expect_matches(out, npy(row[0]), any_geometric(steps), row[0], chain_units(steps));
    ++checked;
  }
  EXPECT_EQ(checked, 90);
}

// RandAugment and TrivialAugmentWide: the randint results torchvision drew,
// resolved with Ember's spaces as forward resolves its own draws.
TEST(RandAugment, ForwardWithGivenDrawsMatchesTorchvision) {
  int checked = 0;
  for (const auto& row : table("forward.tsv")) {
    if (row[1] != "RandAugment" && row[1] != "TrivialAugmentWide") continue;
    const auto opts = options_of(row[3]);
    const Tensor img = npy(row[2]);
    const auto draws = ints(row[4]);
    size_t next = 0;
    std::vector<AugmentStep> steps;
    const int64_t bins = std::stoll(opts.at("num_magnitude_bins"));
    if (row[1] == "RandAugment") {
      const auto space = F::randaugment_space(bins, img.size(-2), img.size(-1));
      const int64_t magnitude = std::stoll(opts.at("magnitude"));
      for (int64_t i = 0; i < std::stoll(opts.at("num_ops")); ++i) {
        const auto& meta = space.at(static_cast<size_t>(draws.at(next++)));
        double m = meta.magnitudes.empty() ? 0.0 : meta.magnitudes.at(static_cast<size_t>(magnitude));
        if (meta.is_signed && draws.at(next++)) m = -m;
        steps.push_back({meta.op, m});
      }
    } else {
      const auto space = F::trivial_augment_wide_space(bins);
      const auto& meta = space.at(static_cast<size_t>(draws.at(next++)));
      double m = meta.magnitudes.empty() ? 0.0 : meta.magnitudes.at(static_cast<size_t>(draws.at(next++)));
      if (meta.is_signed && draws.at(next++)) m = -m;
      steps.push_back({meta.op, m});
    }
    EXPECT_EQ(next, draws.size()) << row[0];
    EXPECT_EQ(format_steps(steps), format_steps(parse_steps(row.size() > 5 ? row[5] : ""))) << row[0];
    const Tensor out = F::apply_augment_ops(img, steps, mode_of(opts.at("interpolation")), doubles(opts.at("fill")));
    expect_matches(out, npy(row[0]), any_geometric(steps), row[0], chain_units(steps));
    ++checked;
  }
  EXPECT_EQ(checked, 12 + 28);
}

TEST(AugMix, ApplyWithGivenDrawsMatchesTorchvision) {
  int checked = 0;
  for (const auto& row : table("forward.tsv")) {
    if (row[1] != "AugMix") continue;
    const auto opts = options_of(row[3]);
    const Tensor img = npy(row[2]);
    T::AugMixOptions o;
    o.severity = std::stoll(opts.at("severity"));
    o.mixture_width = std::stoll(opts.at("mixture_width"));
    o.chain_depth = std::stoll(opts.at("chain_depth"));
    o.all_ops = opts.at("all_ops") == "true";
    o.interpolation = mode_of(opts.at("interpolation"));
    o.fill = doubles(opts.at("fill"));
    // Resolve the randint draws with Ember's space, as get_params does.
    const auto space = F::augmix_space(10, img.size(-2), img.size(-1), o.all_ops);
    const auto draws = ints(row[4]);
    size_t next = 0;
    T::AugMixParams params;
    for (int64_t c = 0; c < o.mixture_width; ++c) {
      const int64_t depth = o.chain_depth > 0 ? o.chain_depth : draws.at(next++);
      std::vector<AugmentStep> chain;
      for (int64_t j = 0; j < depth; ++j) {
        const auto& meta = space.at(static_cast<size_t>(draws.at(next++)));
        double m = meta.magnitudes.empty() ? 0.0 : meta.magnitudes.at(static_cast<size_t>(draws.at(next++)));
        if (meta.is_signed && draws.at(next++)) m = -m;
        chain.push_back({meta.op, m});
      }
      params.chains.push_back(chain);
    }
    EXPECT_EQ(next, draws.size()) << row[0];
    const auto expected_chains = split(row[5], '/');
    ASSERT_EQ(expected_chains.size(), params.chains.size()) << row[0];
    bool geometric = false;
    double units = 1.0;
    for (size_t c = 0; c < params.chains.size(); ++c) {
      EXPECT_EQ(format_steps(params.chains[c]), format_steps(parse_steps(expected_chains[c]))) << row[0];
      geometric = geometric || any_geometric(params.chains[c]);
      units = std::max(units, chain_units(params.chains[c]));
    }
    params.beta_weights = npy(row[0] + "_m");
    params.mixing_weights = npy(row[0] + "_w");
    const Tensor out = T::AugMixImpl::apply(img, params, o.interpolation, o.fill);
    // The mix itself replays torchvision's float32 ops exactly: only the
    // chains' geometric ops may move a value by one unit.
    expect_matches(out, npy(row[0]), geometric, row[0], units);
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

// ---- the mix formula, in float64 ----

TEST(AugMix, MixEqualsFloat64Recomputation) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 19, 23}, {2, 3, 11, 13}, {2, 2, 1, 9, 7}}) {
    const Tensor img = test_image(shape, 3);
    for (uint64_t seed : {1, 2, 3}) {
      Generator g(seed);
      T::AugMixOptions o{.severity = 5, .mixture_width = 4, .alpha = 0.7};
      const int64_t b = img.dim() >= 4 ? img.size(0) : 1;
      const T::AugMixParams p = T::AugMixImpl::get_params(o, b, img.size(-2), img.size(-1), &g);
      const Tensor out = T::AugMixImpl::apply(img, p, o.interpolation, o.fill);
      ASSERT_EQ(out.sizes(), img.sizes());
      ASSERT_EQ(out.dtype(), kUInt8);
      // float64: out = trunc(m0 * x + sum_i (w_i * m1) * chain_i(x)) per first-dim entry.
      Tensor batch = img;
      while (batch.dim() < 4) batch = batch.unsqueeze(0);
      const Tensor x = batch.to(kFloat64).contiguous();
      std::vector<Tensor> augs;
      for (const auto& chain : p.chains)
        augs.push_back(F::apply_augment_ops(batch, chain, o.interpolation).to(kFloat64).contiguous());
      const Tensor m = p.beta_weights.to(kFloat64), w = p.mixing_weights.to(kFloat64);
      const int64_t per = x.numel() / b;
      Tensor expected = empty(x.sizes(), kFloat64);
      double* e = expected.data_ptr<double>();
      const double* xv = x.data_ptr<double>();
      for (int64_t n = 0; n < b; ++n) {
        const double m0 = m.index({n, 0}).item<double>(), m1 = m.index({n, 1}).item<double>();
        EXPECT_NEAR(m0 + m1, 1.0, 1e-6);
        double wsum = 0;
        for (size_t i = 0; i < augs.size(); ++i) wsum += w.index({n, static_cast<int64_t>(i)}).item<double>();
        EXPECT_NEAR(wsum, 1.0, 1e-6);
        for (int64_t k = 0; k < per; ++k) {
          double v = m0 * xv[n * per + k];
          for (size_t i = 0; i < augs.size(); ++i)
            v += w.index({n, static_cast<int64_t>(i)}).item<double>() * m1 * augs[i].data_ptr<double>()[n * per + k];
          e[n * per + k] = std::trunc(v);
        }
      }
      const Tensor actual = out.reshape(x.sizes()).to(kFloat64);
      const ember::testing::Difference d = ember::testing::difference(actual, expected, 1.0);
      EXPECT_LE(d.max_abs, 1.0) << "seed " << seed;  // float32 rounding at an integer boundary
      EXPECT_LE(ember::testing::difference(actual, expected, 0.0).count * 100, actual.numel()) << "seed " << seed;
      // Mixing really happened: the result is not the input when some chain changed it.
      EXPECT_FALSE(equal(out, img)) << "seed " << seed;
    }
  }
}

TEST(AugMix, ApplyOnFloatImages) {
  // apply() mixes float images too (in their dtype, as torchvision), given chains
  // of ops that take floats.
  const Tensor img = test_image({2, 3, 12, 14}, 8).to(kFloat32) / 255.0;
  Generator g(10);
  T::AugMixParams p = T::AugMixImpl::get_params({.mixture_width = 2}, 2, 12, 14, &g);
  p.chains = {{{AugmentOp::Rotate, 20.0}, {AugmentOp::Brightness, 0.4}}, {{AugmentOp::Contrast, -0.3}}};
  for (DType dt : {kFloat32, kFloat64}) {
    const Tensor x = img.to(dt);
    const Tensor out = T::AugMixImpl::apply(x, p);
    ASSERT_EQ(out.dtype(), dt);
    const Tensor m = p.beta_weights.to(kFloat64), w = p.mixing_weights.to(kFloat64);
    Tensor expected = m.select(1, 0).view({2, 1, 1, 1}) * x.to(kFloat64);
    for (int64_t i = 0; i < 2; ++i)
      expected = expected + (w.select(1, i) * m.select(1, 1)).view({2, 1, 1, 1}) *
                                F::apply_augment_ops(x, p.chains[static_cast<size_t>(i)], T::InterpolationMode::Bilinear)
                                    .to(kFloat64);
    EXPECT_LE((out.to(kFloat64) - expected).abs().max().item<double>(), 1e-6) << dt;
  }
}

TEST(AugMix, WeightsAreDrawnPerFirstDim) {
  // Two identical entries get their own weights: the outputs differ.
  const Tensor one = test_image({3, 16, 16}, 4);
  const Tensor two = stack({one, one});
  Generator g(9);
  const auto p = T::AugMixImpl::get_params({}, 2, 16, 16, &g);
  EXPECT_EQ(p.beta_weights.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(p.mixing_weights.sizes(), (std::vector<int64_t>{2, 3}));
  const Tensor out = T::AugMixImpl::apply(two, p);
  // Each entry equals the single image mixed with that entry's weights.
  for (int64_t n = 0; n < 2; ++n) {
    T::AugMixParams single = p;
    single.beta_weights = p.beta_weights.narrow(0, n, 1).contiguous();
    single.mixing_weights = p.mixing_weights.narrow(0, n, 1).contiguous();
    EXPECT_TRUE(equal(out.select(0, n), T::AugMixImpl::apply(one, single))) << n;
  }
}

// ---- draws ----

// |count - n p| within 5 standard deviations of a binomial.
void expect_frequency(int64_t count, int64_t n, double p, const std::string& what) {
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(count), static_cast<double>(n) * p, 5 * sd + 1) << what;
}

// The bin of m in the magnitudes (exact match), or -1.
int64_t bin_of(const std::vector<double>& magnitudes, double m) {
  for (size_t i = 0; i < magnitudes.size(); ++i)
    if (magnitudes[i] == m) return static_cast<int64_t>(i);
  return -1;
}

TEST(AutoAugment, DrawDistribution) {
  Generator g(123);
  const int64_t n = 20000;
  std::vector<int64_t> ids(25, 0);
  std::array<int64_t, 2> negative{};
  double prob_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto p = T::AutoAugmentImpl::get_params(25, &g);
    ASSERT_GE(p.transform_id, 0);
    ASSERT_LT(p.transform_id, 25);
    ids[static_cast<size_t>(p.transform_id)]++;
    for (int k = 0; k < 2; ++k) {
      ASSERT_GE(p.probs[k], 0.0);
      ASSERT_LT(p.probs[k], 1.0);
      prob_sum += p.probs[k];
      ASSERT_TRUE(p.signs[k] == 0 || p.signs[k] == 1);
      negative[k] += p.signs[k] == 0;
    }
  }
  for (int k = 0; k < 25; ++k) expect_frequency(ids[k], n, 1.0 / 25, "sub-policy " + std::to_string(k));
  for (int k = 0; k < 2; ++k) expect_frequency(negative[k], n, 0.5, "sign " + std::to_string(k));
  EXPECT_NEAR(prob_sum / (2.0 * n), 0.5, 0.01);

  // The ops forward applies: each policy op runs with its probability p, at
  // its bin's magnitude, negated when its sign is 0.
  T::AutoAugment t(T::AutoAugmentPolicy::IMAGENET);
  const auto space = F::autoaugment_space(10, 32, 32);
  std::map<std::pair<int64_t, int>, std::array<int64_t, 2>> applied;  // (id, k) -> {draws, applied}
  for (int64_t i = 0; i < n; ++i) {
    const auto p = T::AutoAugmentImpl::get_params(25, &g);
    const auto steps = t->steps(p, 32, 32);
    size_t s = 0;
    for (int k = 0; k < 2; ++k) {
      const auto& entry = t->policies()[static_cast<size_t>(p.transform_id)][static_cast<size_t>(k)];
      auto& counts = applied[{p.transform_id, k}];
      counts[0]++;
      if (p.probs[k] > entry.p) continue;
      counts[1]++;
      ASSERT_LT(s, steps.size());
      const AugmentStep& step = steps[s++];
      EXPECT_EQ(step.op, entry.op);
      for (const auto& meta : space) {
        if (meta.op != entry.op) continue;
        const double base = entry.magnitude_id ? meta.magnitudes[static_cast<size_t>(*entry.magnitude_id)] : 0.0;
        EXPECT_EQ(step.magnitude, meta.is_signed && p.signs[k] == 0 ? -base : base);
      }
    }
    EXPECT_EQ(s, steps.size());
  }
  for (const auto& [key, counts] : applied) {
    const double p = t->policies()[static_cast<size_t>(key.first)][static_cast<size_t>(key.second)].p;
    expect_frequency(counts[1], counts[0], p, "policy op " + std::to_string(key.first));
  }
}

TEST(RandAugment, DrawDistribution) {
  Generator g(7);
  const int64_t n = 30000;
  const auto space = F::randaugment_space(31, 40, 50);
  std::map<AugmentOp, int64_t> count, negative;
  for (int64_t i = 0; i < n / 2; ++i) {
    const auto steps = T::RandAugmentImpl::get_params(2, 9, 31, 40, 50, &g);
    ASSERT_EQ(steps.size(), 2u);
    for (const auto& s : steps) {
      count[s.op]++;
      for (const auto& meta : space) {
        if (meta.op != s.op) continue;
        const double m = meta.magnitudes.empty() ? 0.0 : meta.magnitudes[9];
        if (meta.is_signed) {
          EXPECT_TRUE(s.magnitude == m || s.magnitude == -m);
          negative[s.op] += s.magnitude < 0;
        } else {
          EXPECT_EQ(s.magnitude, m);
        }
      }
    }
  }
  ASSERT_EQ(count.size(), 14u);  // Invert is not in RandAugment's space
  EXPECT_FALSE(count.count(AugmentOp::Invert));
  for (const auto& meta : space) {
    expect_frequency(count[meta.op], n, 1.0 / 14, F::augment_op_name(meta.op));
    if (meta.is_signed) expect_frequency(negative[meta.op], count[meta.op], 0.5, F::augment_op_name(meta.op));
  }
  EXPECT_TRUE(T::RandAugmentImpl::get_params(0, 9, 31, 40, 50, &g).empty());
}

TEST(TrivialAugmentWide, DrawDistribution) {
  Generator g(8);
  const int64_t n = 60000;
  const auto space = F::trivial_augment_wide_space(31);
  std::map<AugmentOp, int64_t> count, negative;
  std::vector<int64_t> bins(31, 0);
  int64_t binned = 0;
  for (int64_t i = 0; i < n; ++i) {
    const AugmentStep s = T::TrivialAugmentWideImpl::get_params(31, &g);
    count[s.op]++;
    for (const auto& meta : space) {
      if (meta.op != s.op) continue;
      if (meta.magnitudes.empty()) {
        EXPECT_EQ(s.magnitude, 0.0);
        continue;
      }
      // Posterize and Solarize bins repeat values: count the signed ops' bins.
      const int64_t b = bin_of(meta.magnitudes, meta.is_signed ? std::abs(s.magnitude) : s.magnitude);
      ASSERT_GE(b, 0) << F::augment_op_name(s.op) << " " << s.magnitude;
      if (meta.is_signed) {
        negative[s.op] += std::signbit(s.magnitude);
        bins[static_cast<size_t>(b)]++;
        binned++;
      }
    }
  }
  for (const auto& meta : space) {
    expect_frequency(count[meta.op], n, 1.0 / 14, F::augment_op_name(meta.op));
    if (meta.is_signed)  // bin 0 is 0.0, negated to -0.0 too
      expect_frequency(negative[meta.op], count[meta.op], 0.5, F::augment_op_name(meta.op));
  }
  for (int b = 0; b < 31; ++b) expect_frequency(bins[static_cast<size_t>(b)], binned, 1.0 / 31, "bin " + std::to_string(b));
}

TEST(AugMix, DrawDistribution) {
  Generator g(21);
  const int64_t n = 6000;
  T::AugMixOptions o{.severity = 4, .mixture_width = 3};
  const auto space = F::augmix_space(10, 30, 36, true);
  std::vector<int64_t> depths(4, 0);
  std::map<AugmentOp, int64_t> count;
  int64_t ops = 0;
  double m0_sum = 0, w0_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto p = T::AugMixImpl::get_params(o, 1, 30, 36, &g);
    ASSERT_EQ(p.chains.size(), 3u);
    m0_sum += p.beta_weights.index({0, 0}).item<double>();
    w0_sum += p.mixing_weights.index({0, 0}).item<double>();
    for (const auto& chain : p.chains) {
      ASSERT_GE(chain.size(), 1u);
      ASSERT_LE(chain.size(), 3u);
      depths[chain.size()]++;
      for (const auto& s : chain) {
        count[s.op]++;
        ops++;
        for (const auto& meta : space) {
          if (meta.op != s.op || meta.magnitudes.empty()) continue;
          // Magnitudes come from the first `severity` bins.
          const std::vector<double> allowed(meta.magnitudes.begin(), meta.magnitudes.begin() + o.severity);
          EXPECT_GE(bin_of(allowed, meta.is_signed ? std::abs(s.magnitude) : s.magnitude), 0)
              << F::augment_op_name(s.op) << " " << s.magnitude;
        }
      }
    }
  }
  for (int d = 1; d <= 3; ++d) expect_frequency(depths[d], 3 * n, 1.0 / 3, "depth " + std::to_string(d));
  ASSERT_EQ(count.size(), 13u);
  for (const auto& meta : space) expect_frequency(count[meta.op], ops, 1.0 / 13, F::augment_op_name(meta.op));
  // Beta(1, 1) and Dirichlet(1, 1, 1) means: 1/2 and 1/3 (sd 0.29 and 0.24 per draw).
  EXPECT_NEAR(m0_sum / n, 0.5, 5 * 0.289 / std::sqrt(n));
  EXPECT_NEAR(w0_sum / n, 1.0 / 3, 5 * 0.236 / std::sqrt(n));

  // A fixed depth; all_ops = false leaves out the four color ops.
  Generator g2(22);
  const auto fixed = T::AugMixImpl::get_params({.chain_depth = 2, .all_ops = false}, 1, 30, 36, &g2);
  for (const auto& chain : fixed.chains) {
    EXPECT_EQ(chain.size(), 2u);
    for (const auto& s : chain)
      EXPECT_TRUE(s.op != AugmentOp::Brightness && s.op != AugmentOp::Color && s.op != AugmentOp::Contrast &&
                  s.op != AugmentOp::Sharpness);
  }
}

// ---- forward == the ops of the drawn parameters; reproducibility ----

TEST(AutoAugmentTransforms, ForwardEqualsDrawnOps) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 24, 20}, {1, 24, 20}, {2, 2, 3, 12, 10}}) {
    const Tensor img = test_image(shape, 5);
    const int64_t h = img.size(-2), w = img.size(-1);
    for (uint64_t seed = 0; seed < 12; ++seed) {
      const std::vector<double> fill = seed % 2 ? std::vector<double>{} : std::vector<double>{128};
      for (auto policy : {T::AutoAugmentPolicy::IMAGENET, T::AutoAugmentPolicy::CIFAR10, T::AutoAugmentPolicy::SVHN}) {
        T::AutoAugment t(policy, T::InterpolationMode::Bilinear, fill);
        Generator a(seed), b(seed);
        Tensor out;
        {
          GeneratorScope scope(a);
          out = t(img);
        }
        const auto steps = t->steps(T::AutoAugmentImpl::get_params(25, &b), h, w);
        EXPECT_TRUE(equal(out, F::apply_augment_ops(img, steps, T::InterpolationMode::Bilinear, fill)));
        EXPECT_EQ(a.offset(), b.offset());  // the same draws
      }
      {
        T::RandAugment t({.num_ops = 3, .magnitude = 12, .fill = fill});
        Generator a(seed), b(seed);
        Tensor out;
        {
          GeneratorScope scope(a);
          out = t(img);
        }
        const auto steps = T::RandAugmentImpl::get_params(3, 12, 31, h, w, &b);
        EXPECT_TRUE(equal(out, F::apply_augment_ops(img, steps, T::InterpolationMode::Nearest, fill)));
      }
      {
        T::TrivialAugmentWide t(31, T::InterpolationMode::Bilinear, fill);
        Generator a(seed), b(seed);
        Tensor out;
        {
          GeneratorScope scope(a);
          out = t(img);
        }
        const AugmentStep s = T::TrivialAugmentWideImpl::get_params(31, &b);
        EXPECT_TRUE(equal(out, F::apply_augment_op(img, s.op, s.magnitude, T::InterpolationMode::Bilinear, fill)));
      }
      {
        T::AugMixOptions o{.severity = 6, .mixture_width = 2, .fill = fill};
        T::AugMix t(o);
        Generator a(seed), b(seed);
        Tensor out;
        {
          GeneratorScope scope(a);
          out = t(img);
        }
        const int64_t batch = img.dim() >= 4 ? img.size(0) : 1;
        const auto p = T::AugMixImpl::get_params(o, batch, h, w, &b);
        EXPECT_TRUE(equal(out, T::AugMixImpl::apply(img, p, o.interpolation, fill)));
        EXPECT_EQ(out.sizes(), img.sizes());
      }
    }
  }
}

TEST(AutoAugmentTransforms, ReproduciblePerSeed) {
  const Tensor img = test_image({3, 20, 22}, 6);
  std::vector<T::TransformPtr> all = {T::AutoAugment(), T::RandAugment(), T::TrivialAugmentWide(), T::AugMix()};
  for (const auto& t : all) {
    std::vector<Tensor> first, second;
    manual_seed(42);
    for (int i = 0; i < 8; ++i) first.push_back((*t)(img));
    manual_seed(42);
    for (int i = 0; i < 8; ++i) second.push_back((*t)(img));
    std::set<std::string> distinct;
    for (int i = 0; i < 8; ++i) {
      EXPECT_TRUE(equal(first[i], second[i])) << t->name() << " " << i;
      distinct.insert(std::string(static_cast<const char*>(first[i].contiguous().data_ptr()),
                                  static_cast<size_t>(first[i].numel())));
    }
    EXPECT_GE(distinct.size(), 3u) << t->name() << ": the draws do not vary";
    // A channels-last view (io::decode_jpeg's layout) gives the same images.
    const Tensor hwc = ember::testing::interleaved(img);
    manual_seed(42);
    for (int i = 0; i < 8; ++i) EXPECT_TRUE(equal((*t)(hwc), first[i])) << t->name() << " interleaved " << i;
  }
}

// ---- options, printing, save / load ----

TEST(AutoAugmentTransforms, OptionsAndHolders) {
  T::AutoAugment aa;
  EXPECT_EQ(aa->options().policy, T::AutoAugmentPolicy::IMAGENET);
  EXPECT_EQ(aa->options().interpolation, T::InterpolationMode::Nearest);
  EXPECT_TRUE(aa->options().fill.empty());
  EXPECT_EQ(aa->policies().size(), 25u);
  T::AutoAugment svhn({.policy = T::AutoAugmentPolicy::SVHN, .fill = {1, 2, 3}});
  EXPECT_EQ(svhn->options().fill.size(), 3u);

  T::RandAugment ra;
  EXPECT_EQ(ra->options().num_ops, 2);
  EXPECT_EQ(ra->options().magnitude, 9);
  EXPECT_EQ(ra->options().num_magnitude_bins, 31);
  EXPECT_EQ(T::RandAugment(3, 5, 10)->options().num_magnitude_bins, 10);

  T::TrivialAugmentWide ta;
  EXPECT_EQ(ta->options().num_magnitude_bins, 31);

  T::AugMix mix;
  EXPECT_EQ(mix->options().severity, 3);
  EXPECT_EQ(mix->options().mixture_width, 3);
  EXPECT_EQ(mix->options().chain_depth, -1);
  EXPECT_EQ(mix->options().alpha, 1.0);
  EXPECT_TRUE(mix->options().all_ops);
  EXPECT_EQ(mix->options().interpolation, T::InterpolationMode::Bilinear);
  EXPECT_EQ(T::AugMix(5, 2)->options().mixture_width, 2);

  EXPECT_EQ(T::RandAugment(2, 9)->str(),
            "RandAugment(fill=None, interpolation='nearest', magnitude=9, num_magnitude_bins=31, num_ops=2)");
  EXPECT_NE(T::AutoAugment(T::AutoAugmentPolicy::CIFAR10)->str().find("policy='cifar10'"), std::string::npos);

  // In a pipeline, with a uint8 image.
  T::Compose train({T::TrivialAugmentWide(), T::ConvertImageDtype(kFloat32)});
  EXPECT_EQ(train(test_image({3, 16, 16}, 1)).dtype(), kFloat32);
}

TEST(AutoAugmentTransforms, SaveLoadRoundTrip) {
  std::vector<T::TransformPtr> all = {
      T::AutoAugment(),
      T::AutoAugment({.policy = T::AutoAugmentPolicy::SVHN, .interpolation = T::InterpolationMode::Bilinear,
                      .fill = {10, 20, 30}}),
      T::RandAugment(),
      T::RandAugment({.num_ops = 3, .magnitude = 4, .num_magnitude_bins = 7, .fill = {99}}),
      T::TrivialAugmentWide(),
      T::TrivialAugmentWide(17, T::InterpolationMode::Bilinear, std::vector<double>{5}),
      T::AugMix(),
      T::AugMix({.severity = 7, .mixture_width = 2, .chain_depth = 2, .alpha = 0.5, .all_ops = false,
                 .interpolation = T::InterpolationMode::Nearest, .fill = {1}}),
  };
  const Tensor img = test_image({3, 18, 21}, 2);
  for (const auto& t : all) {
    const std::string json = T::to_json(*t);
    const T::TransformPtr back = T::from_json(json);
    EXPECT_EQ(back->name(), t->name());
    EXPECT_EQ(T::to_json(*back), json);
    manual_seed(5);
    const Tensor a = (*t)(img);
    manual_seed(5);
    const Tensor b = (*back)(img);
    EXPECT_TRUE(equal(a, b)) << json;
  }
  for (const char* name : {"AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"})
    EXPECT_TRUE(T::is_registered_transform(name)) << name;
  // A bad saved policy names the transform.
  EXPECT_ERROR_MENTIONS(T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": )"
                                     R"("AutoAugment", "params": {"policy": "mnist", "interpolation": "nearest", )"
                                     R"("fill": null}, "children": []}})"),
                        "AutoAugment", "mnist");
}

// ---- errors ----

TEST(AutoAugmentTransforms, ArgumentErrors) {
  using IM = T::InterpolationMode;
  EXPECT_ERROR_MENTIONS(T::AutoAugment(T::AutoAugmentPolicy::IMAGENET, IM::Bicubic), "AutoAugment", "bicubic");
  EXPECT_ERROR_MENTIONS(T::AutoAugment({.fill = {NAN}}), "AutoAugment", "fill");
  EXPECT_ERROR_MENTIONS(T::RandAugment({.magnitude = 31}), "RandAugment", "magnitude", "31");
  EXPECT_ERROR_MENTIONS(T::RandAugment({.magnitude = -1}), "RandAugment", "magnitude", "-1");
  EXPECT_ERROR_MENTIONS(T::RandAugment({.num_ops = -2}), "RandAugment", "num_ops", "-2");
  EXPECT_ERROR_MENTIONS(T::RandAugment({.magnitude = 0, .num_magnitude_bins = 1}), "RandAugment",
                        "num_magnitude_bins", "1");
  EXPECT_ERROR_MENTIONS(T::RandAugment({.interpolation = IM::Bicubic}), "RandAugment", "bicubic");
  EXPECT_ERROR_MENTIONS(T::TrivialAugmentWide(1), "TrivialAugmentWide", "num_magnitude_bins", "1");
  EXPECT_ERROR_MENTIONS(T::AugMix(0), "AugMix", "severity", "0");
  EXPECT_ERROR_MENTIONS(T::AugMix(11), "AugMix", "severity", "11");
  EXPECT_ERROR_MENTIONS(T::AugMix({.mixture_width = 0}), "AugMix", "mixture_width", "0");
  EXPECT_ERROR_MENTIONS(T::AugMix({.alpha = 0.0}), "AugMix", "alpha", "0");
  EXPECT_ERROR_MENTIONS(T::AugMix({.alpha = -1.5}), "AugMix", "alpha", "-1.5");

  // Images: uint8 [..., 1 or 3, H, W], fill of one value or one per channel.
  const Tensor rgb = test_image({3, 8, 8}, 1);
  std::vector<T::TransformPtr> all = {T::AutoAugment(), T::RandAugment(), T::TrivialAugmentWide(), T::AugMix()};
  for (const auto& t : all) {
    const std::string n = t->name();
    EXPECT_ERROR_MENTIONS((*t)(rgb.to(kFloat32)), n.c_str(), "uint8", "float32");
    EXPECT_ERROR_MENTIONS((*t)(image_u8({4, 8, 8}, 1)), n.c_str(), "channels", "4");
    EXPECT_ERROR_MENTIONS((*t)(image_u8({8, 8}, 1)), n.c_str(), "[8, 8]");
  }
  EXPECT_ERROR_MENTIONS(T::AutoAugment({.fill = {1, 2}})(rgb), "AutoAugment", "fill", "3 channels");
  EXPECT_ERROR_MENTIONS(T::AugMix({.fill = {1, 2}})(rgb), "AugMix", "fill", "3 channels");

  // get_params and apply.
  EXPECT_ERROR_MENTIONS(T::AutoAugmentImpl::get_params(0), "AutoAugment", "0");
  EXPECT_ERROR_MENTIONS(T::AutoAugment()->steps({.transform_id = 25}, 8, 8), "AutoAugment", "25");
  EXPECT_ERROR_MENTIONS(T::RandAugmentImpl::get_params(2, 40, 31, 8, 8), "RandAugment", "40");
  EXPECT_ERROR_MENTIONS(T::AugMixImpl::get_params({}, 0, 8, 8), "AugMix", "batch_size", "0");
  Generator g(1);
  auto p = T::AugMixImpl::get_params({}, 1, 8, 8, &g);
  p.mixing_weights = p.mixing_weights.narrow(1, 0, 2).contiguous();
  EXPECT_ERROR_MENTIONS(T::AugMixImpl::apply(rgb, p), "AugMix", "mixing_weights", "[1, 3]");
  EXPECT_ERROR_MENTIONS(T::autoaugment_policy_from_name("cifar100", "AutoAugment"), "AutoAugment", "cifar100");
}

TEST(AugmentOps, ArgumentErrors) {
  const Tensor rgb = test_image({3, 8, 8}, 1);
  EXPECT_ERROR_MENTIONS(F::augment_op_from_name("Blur", "apply_augment_op"), "apply_augment_op", "Blur");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb.to(kFloat32), AugmentOp::Posterize, 4), "posterize", "uint8");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb.to(kFloat32), AugmentOp::Solarize, 128), "solarize", "128");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb.to(kFloat32), AugmentOp::Equalize, 0), "equalize");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb, AugmentOp::Posterize, 9), "posterize", "9");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb, AugmentOp::TranslateX, NAN), "TranslateX", "nan");
  EXPECT_ERROR_MENTIONS(F::apply_augment_op(rgb, AugmentOp::Rotate, 10, T::InterpolationMode::Bilinear, {1, 2}),
                        "fill");
  EXPECT_ERROR_MENTIONS(F::randaugment_space(1, 8, 8), "randaugment_space", "1");
  EXPECT_ERROR_MENTIONS(F::trivial_augment_wide_space(0), "trivial_augment_wide_space", "0");
  EXPECT_ERROR_MENTIONS(F::autoaugment_space(10, 0, 8), "autoaugment_space", "0x8");
  EXPECT_ERROR_MENTIONS(F::augmix_space(10, 8, -1), "augmix_space", "8x-1");
}

// ---- Gamma and Dirichlet samplers ----

TEST(RandomSampling, GammaMoments) {
  for (double alpha : {0.1, 0.5, 1.0, 2.5, 10.0, 100.0}) {
    Generator g(static_cast<uint64_t>(alpha * 1000));
    const int64_t n = 200000;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double x = T::sample_gamma(alpha, &g);
      ASSERT_GE(x, 0.0);
      sum += x;
      sq += x * x;
    }
    const double mean = sum / n, var = sq / n - mean * mean;
    // Gamma(alpha): mean alpha, variance alpha; the sample mean's sd is sqrt(alpha / n),
    // the sample variance's about alpha * sqrt((2 + 6 / alpha) / n).
    EXPECT_NEAR(mean, alpha, 5 * std::sqrt(alpha / n)) << alpha;
    EXPECT_NEAR(var, alpha, 5 * alpha * std::sqrt((2 + 6 / alpha) / n)) << alpha;
  }
  EXPECT_ERROR_MENTIONS(T::sample_gamma(0.0), "sample_gamma", "0");
  EXPECT_ERROR_MENTIONS(T::sample_gamma(-1.0), "sample_gamma", "-1");
}

TEST(RandomSampling, DirichletMoments) {
  const std::vector<double> alpha = {0.3, 1.0, 2.0, 4.7};
  const double a0 = 0.3 + 1.0 + 2.0 + 4.7;
  const int64_t n = 40000;
  for (DType dt : {kFloat32, kFloat64}) {
    Generator g(77);
    Tensor conc = empty({n, 4}, dt);
    for (int64_t k = 0; k < 4; ++k) conc.select(1, k).fill_(alpha[static_cast<size_t>(k)]);
    const Tensor s = T::sample_dirichlet(conc, &g);
    ASSERT_EQ(s.sizes(), conc.sizes());
    ASSERT_EQ(s.dtype(), dt);
    const Tensor d = s.to(kFloat64);
    const Tensor sums = d.sum({1});
    EXPECT_LE((sums - 1.0).abs().max().item<double>(), dt == kFloat32 ? 1e-6 : 1e-12);
    EXPECT_GT(d.min().item<double>(), 0.0);
    EXPECT_LT(d.max().item<double>(), 1.0);
    for (int64_t k = 0; k < 4; ++k) {
      const double ak = alpha[static_cast<size_t>(k)];
      const double mean = ak / a0, var = ak * (a0 - ak) / (a0 * a0 * (a0 + 1));
      const Tensor col = d.select(1, k);
      EXPECT_NEAR(col.mean().item<double>(), mean, 5 * std::sqrt(var / n)) << k << " " << dt;
      const double v = ((col - mean) * (col - mean)).mean().item<double>();
      EXPECT_NEAR(v, var, 0.05 * var) << k << " " << dt;
    }
  }
  // Beta(a, b) through two components, as AugMix draws it: mean a / (a + b).
  Generator g(3);
  const Tensor beta = T::sample_dirichlet(full({n, 2}, 0.5, kFloat32), &g).to(kFloat64);
  EXPECT_NEAR(beta.select(1, 0).mean().item<double>(), 0.5, 5 * std::sqrt(0.125 / n));
  // Batched leading dims, reproducible per generator.
  Generator g1(4), g2(4);
  EXPECT_TRUE(equal(T::sample_dirichlet(full({2, 3, 5}, 1.0, kFloat32), &g1),
                    T::sample_dirichlet(full({2, 3, 5}, 1.0, kFloat32), &g2)));
  EXPECT_ERROR_MENTIONS(T::sample_dirichlet(full({2, 3}, 1, kInt64)), "sample_dirichlet", "int64");
  EXPECT_ERROR_MENTIONS(T::sample_dirichlet(full({2, 3}, 0.0, kFloat32)), "sample_dirichlet", "0");
}

}  // namespace autoaugment_test
