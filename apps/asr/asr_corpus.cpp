#include "asr_corpus.h"

#include <algorithm>
#include <random>
#include <set>

#include <ember/core/error.h>
#include <ember/datasets/speech/librispeech.h>
#include <ember/ops/factories.h>

namespace ember::apps::asr_app {

SpeechSplit read_librispeech(const std::string& root, const std::string& subset, const FeatureExtractor& features,
                             const CharVocabulary& vocabulary, int64_t limit) {
  datasets::LIBRISPEECH dataset(root, {.url = subset});
  const int64_t n = limit > 0 ? std::min(limit, dataset.size()) : dataset.size();
  EMBER_CHECK(n > 0, "ember-asr: ", root, "/LibriSpeech/", subset,
              " has no utterances (expected <speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac with "
              "<speaker>-<chapter>.trans.txt beside them)");
  SpeechSplit split;
  split.subset = subset;
  std::set<int64_t> speakers;
  for (int64_t i = 0; i < n; ++i) {
    datasets::LibriSpeechSample s = dataset.get(i);
    const std::string& id = dataset.file_ids()[static_cast<size_t>(i)];
    EMBER_CHECK(s.sample_rate == features.spec().sample_rate, "ember-asr: ", subset, "/", id, ".flac is at ",
                s.sample_rate, " Hz; the features are computed at ", features.spec().sample_rate, " Hz");
    Tensor mono = s.waveform.size(0) == 1 ? s.waveform : s.waveform.mean({0}, /*keepdim=*/true);
    Utterance u;
    u.id = id;
    u.transcript = vocabulary.normalize(s.transcript, subset + "/" + id);
    u.targets = vocabulary.encode(s.transcript, subset + "/" + id);
    EMBER_CHECK(!u.targets.empty(), "ember-asr: ", subset, "/", id, " has an empty transcript");
    u.features = features(mono);
    u.frames = u.features.size(1);
    split.seconds += static_cast<double>(mono.size(-1)) / static_cast<double>(s.sample_rate);
    speakers.insert(s.speaker_id);
    split.utterances.push_back(std::move(u));
  }
  split.speakers = static_cast<int64_t>(speakers.size());
  return split;
}

std::vector<std::vector<int64_t>> epoch_batches(const SpeechSplit& split, int64_t batch_size, uint64_t seed,
                                                int64_t epoch) {
  const size_t n = split.utterances.size();
  std::vector<int64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(i);
  // mt19937_64 and a hand-written shuffle: the same order with every standard library.
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(epoch) + 1);
  auto shuffle = [&rng](auto& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
  };
  shuffle(order);
  const size_t b = static_cast<size_t>(batch_size), window = 8 * b;
  std::vector<std::vector<int64_t>> batches;
  for (size_t start = 0; start < n; start += window) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(start);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(n, start + window));
    std::stable_sort(first, last, [&split](int64_t x, int64_t y) {
      return split.utterances[static_cast<size_t>(x)].frames < split.utterances[static_cast<size_t>(y)].frames;
    });
    for (auto it = first; it < last; it += std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(b), last - it))
      batches.emplace_back(it, it + std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(b), last - it));
  }
  shuffle(batches);
  return batches;
}

std::vector<std::vector<int64_t>> sorted_batches(const SpeechSplit& split, int64_t batch_size) {
  std::vector<int64_t> order(split.utterances.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&split](int64_t x, int64_t y) {
    return split.utterances[static_cast<size_t>(x)].frames < split.utterances[static_cast<size_t>(y)].frames;
  });
  std::vector<std::vector<int64_t>> batches;
  for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch_size))
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                         order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), i + static_cast<size_t>(batch_size))));
  return batches;
}

FeatureBatch make_batch(const SpeechSplit& split, const std::vector<int64_t>& indices) {
  EMBER_CHECK(!indices.empty(), "ember-asr: an empty batch");
  const int64_t B = static_cast<int64_t>(indices.size());
  const Utterance& first = split.utterances[static_cast<size_t>(indices[0])];
  const int64_t F = first.features.size(0);
  int64_t longest = 0, longest_target = 0;
  for (int64_t i : indices) {
    longest = std::max(longest, split.utterances[static_cast<size_t>(i)].frames);
    longest_target = std::max(longest_target, static_cast<int64_t>(split.utterances[static_cast<size_t>(i)].targets.size()));
  }
  FeatureBatch b;
  b.features = zeros({B, F, longest});
  b.targets = zeros({B, longest_target}, kInt64);
  std::vector<int64_t> out_frames, target_lengths;
  int64_t* t = b.targets.data_ptr<int64_t>();
  for (int64_t j = 0; j < B; ++j) {
    const Utterance& u = split.utterances[static_cast<size_t>(indices[static_cast<size_t>(j)])];
    b.features.select(0, j).narrow(1, 0, u.frames).copy_(u.features);
    out_frames.push_back(wav2letter_output_frames(u.frames));
    target_lengths.push_back(static_cast<int64_t>(u.targets.size()));
    std::copy(u.targets.begin(), u.targets.end(), t + j * longest_target);
  }
  b.output_frames = tensor(out_frames, kInt64);
  b.target_lengths = tensor(target_lengths, kInt64);
  return b;
}

}  // namespace ember::apps::asr_app
