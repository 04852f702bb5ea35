#include "separation_data.h"

#include <filesystem>
#include <memory>

#include <ember/core/error.h>
#include <ember/datasets/speech/wsj0mix.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::apps::separate_app {
namespace {

namespace fs = std::filesystem;

std::string strip_extension(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

void check_not_empty(const MixtureDataset& d, const std::string& where) {
  EMBER_CHECK(d->size() > 0, "ember-separate: no mixtures in ", where);
}

}  // namespace

SeparationSplits open_splits(const SeparateConfig& c, const std::string& root) {
  EMBER_CHECK(c.num_speakers >= 2 && c.num_speakers <= 3, "ember-separate: --num-speakers must be 2 or 3, got ",
              c.num_speakers);
  SeparationSplits s;
  if (c.layout == "librimix") {
    EMBER_CHECK(c.task == "sep_clean" || c.task == "sep_noisy", "ember-separate: unknown --task '", c.task,
                "' (expected sep_clean or sep_noisy)");
    auto open = [&](const std::string& subset) {
      auto d = std::make_shared<datasets::LibriMix>(
          root, datasets::LibriMixOptions{
                    .subset = subset, .num_speakers = c.num_speakers, .sample_rate = c.sample_rate, .task = c.task});
      return d;
    };
    auto train = open(c.train_subset);
    auto dev = open("dev");
    auto test = open("test");
    const std::string base = "Libri" + std::to_string(c.num_speakers) + "Mix/wav" +
                             std::to_string(c.sample_rate / 1000) + "k/min/";
    const std::string mix = c.task == "sep_clean" ? "mix_clean" : "mix_both";
    check_not_empty(train, (fs::path(root) / (base + c.train_subset + "/" + mix)).string());
    check_not_empty(dev, (fs::path(root) / (base + "dev/" + mix)).string());
    check_not_empty(test, (fs::path(root) / (base + "test/" + mix)).string());
    for (const std::string& f : test->files()) s.test_ids.push_back(strip_extension(f));
    s.train = train;
    s.dev = dev;
    s.test = test;
    s.description = "Libri" + std::to_string(c.num_speakers) + "Mix " + c.task + " (" + mix + ") in " + root + ": " +
                    c.train_subset + "/dev/test";
  } else if (c.layout == "wsj0mix") {
    auto open = [&](const std::string& split) {
      return std::make_shared<datasets::WSJ0Mix>(
          (fs::path(root) / split).string(),
          datasets::WSJ0MixOptions{.num_speakers = c.num_speakers, .sample_rate = c.sample_rate});
    };
    auto train = open("tr");
    auto dev = open("cv");
    auto test = open("tt");
    for (const std::string& f : test->files()) s.test_ids.push_back(strip_extension(f));
    s.train = train;
    s.dev = dev;
    s.test = test;
    s.description = "wsj0-" + std::to_string(c.num_speakers) + "mix in " + root + ": tr/cv/tt";
  } else {
    EMBER_FAIL("ember-separate: unknown --layout '", c.layout, "' (expected librimix or wsj0mix)");
  }
  return s;
}

Segment random_segment(const datasets::SourceSeparationSample& sample, int64_t frames) {
  EMBER_CHECK(sample.mixture.dim() == 2 && sample.mixture.size(0) == 1,
              "ember-separate: expected mono mixtures, got a waveform of shape ", sample.mixture.sizes());
  const Tensor sources = cat(sample.sources, 0);  // [S, n]
  const int64_t n = sample.mixture.size(1);
  Segment seg;
  if (n >= frames) {
    const int64_t start = n > frames ? randint(n - frames + 1, {1}).item<int64_t>() : 0;
    seg.mixture = sample.mixture.slice(1, start, start + frames).contiguous();
    seg.sources = sources.slice(1, start, start + frames).contiguous();
    seg.mask = ones({1, frames});
  } else {
    seg.mixture = pad(sample.mixture, {0, frames - n});
    seg.sources = pad(sources, {0, frames - n});
    seg.mask = pad(ones({1, n}), {0, frames - n});
  }
  return seg;
}

SegmentBatch collate_segments(std::vector<Segment> segments) {
  EMBER_CHECK(!segments.empty(), "ember-separate: an empty batch");
  std::vector<Tensor> mix, src, mask;
  for (Segment& s : segments) {
    mix.push_back(std::move(s.mixture));
    src.push_back(std::move(s.sources));
    mask.push_back(std::move(s.mask));
  }
  return {stack(mix, 0), stack(src, 0), stack(mask, 0)};
}

SegmentBatch whole_mixture(const datasets::SourceSeparationSample& sample) {
  EMBER_CHECK(sample.mixture.dim() == 2 && sample.mixture.size(0) == 1,
              "ember-separate: expected mono mixtures, got a waveform of shape ", sample.mixture.sizes());
  const int64_t n = sample.mixture.size(1);
  return {sample.mixture.unsqueeze(0), cat(sample.sources, 0).unsqueeze(0), ones({1, 1, n})};
}

}  // namespace ember::apps::separate_app
