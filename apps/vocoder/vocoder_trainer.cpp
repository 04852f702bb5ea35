#include "vocoder_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <ember/autograd/grad_mode.h>
#include <ember/core/determinism.h>
#include <ember/core/generator.h>
#include <ember/core/parallel.h>
#include <ember/datasets/progress.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/utils/clip_grad.h>
#include <ember/ops/random.h>
#include <ember/optim/adam.h>
#include <ember/optim/lr_scheduler.h>

#include "common/speech_corpus.h"
#include "vocoder_checkpoint.h"
#include "vocoder_data.h"
#include "vocoder_generate.h"
#include "vocoder_metrics.h"

namespace ember::apps::vocoder {
namespace {

namespace fs = std::filesystem;
namespace F = nn::functional;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Sets the seed and thread count, turns deterministic algorithms on for the
// run and restores the previous setting when it ends.
class RunScope {
 public:
  explicit RunScope(const VocoderConfig& c) : saved_deterministic_(are_deterministic_algorithms_enabled()) {
    if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
    if (c.deterministic) use_deterministic_algorithms(true);
    manual_seed(static_cast<uint64_t>(c.seed));
  }
  ~RunScope() { use_deterministic_algorithms(saved_deterministic_); }
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  bool saved_deterministic_;
};

// Seeds of the run's fixed draws, apart from the training stream (the
// default generator), so that validation and generation never shift it.
constexpr uint64_t kValidationSeedOffset = 1;
constexpr uint64_t kSamplerSeedOffset = 2;
constexpr uint64_t kNoiseSeedOffset = 3;
constexpr int64_t kValidationSegmentsPerUtterance = 2;
constexpr double kFinalLrFraction = 0.05;

FeatureSpec feature_spec(const VocoderConfig& c) {
  FeatureSpec f{.sample_rate = c.sample_rate,
                .n_fft = c.n_fft,
                .win_length = c.win_length,
                .upsample_scales = parse_scales(c.upsample_scales),
                .n_mels = c.n_mels,
                .f_min = c.f_min,
                .min_level_db = c.min_level_db,
                .bits = c.bits};
  f.validate();
  return f;
}

ModelSpec model_spec(const VocoderConfig& c) {
  ModelSpec m{.n_rnn = c.n_rnn,
              .n_fc = c.n_fc,
              .n_res_block = c.n_res_block,
              .n_hidden = c.n_hidden,
              .n_output = c.n_output,
              .kernel_size = c.kernel_size};
  m.validate();
  return m;
}

void check_training_flags(const VocoderConfig& c) {
  EMBER_CHECK(c.epochs >= 1, "ember-vocoder: --epochs must be >= 1 (got ", c.epochs, ")");
  EMBER_CHECK(c.batch_size >= 1, "ember-vocoder: --batch-size must be >= 1 (got ", c.batch_size, ")");
  EMBER_CHECK(c.seq_len_factor >= 1 && c.seq_len_factor <= 100,
              "ember-vocoder: --seq-len-factor must be in [1, 100] (got ", c.seq_len_factor, ")");
  EMBER_CHECK(c.segments_per_utterance >= 1, "ember-vocoder: --segments-per-utterance must be >= 1 (got ",
              c.segments_per_utterance, ")");
  EMBER_CHECK(c.lr > 0, "ember-vocoder: --lr must be positive (got ", c.lr, ")");
  EMBER_CHECK(c.clip > 0, "ember-vocoder: --clip must be positive (got ", c.clip, ")");
  EMBER_CHECK(c.train_utterances >= 0, "ember-vocoder: --train-utterances must be >= 0 (got ", c.train_utterances,
              ")");
  EMBER_CHECK(c.num_samples >= 1, "ember-vocoder: --num-samples must be >= 1 (got ", c.num_samples, ")");
  EMBER_CHECK(c.stop_after >= 0, "ember-vocoder: --stop-after must be >= 0 (got ", c.stop_after, ")");
}

// The utterances segments can be cut from.
std::vector<const Utterance*> usable(const std::vector<Utterance>& all, const SegmentSpec& s) {
  std::vector<const Utterance*> out;
  for (const Utterance& u : all)
    if (u.mel.size(1) >= min_frames(s) && u.waveform.size(0) >= (min_frames(s) + 1) * s.hop_length)
      out.push_back(&u);
  return out;
}

// `count` test utterances taken from each speaker in turn (speakers and their
// utterances in file order), so that every held-out voice is heard.
std::vector<const Utterance*> pick_round_robin(const std::vector<Utterance>& all, int64_t count) {
  std::map<int64_t, std::vector<const Utterance*>> by_speaker;
  for (const Utterance& u : all) by_speaker[u.speaker].push_back(&u);
  std::vector<const Utterance*> out;
  for (size_t round = 0; static_cast<int64_t>(out.size()) < count; ++round) {
    bool any = false;
    for (auto& [speaker, list] : by_speaker) {
      if (round < list.size() && static_cast<int64_t>(out.size()) < count) {
        out.push_back(list[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

Tensor batch_loss(models::WaveRNN& net, const SegmentBatch& b, int64_t n_classes) {
  const Tensor logits = net(b.waveform, b.specgram);  // [B, 1, S, C]
  return F::cross_entropy(logits.reshape({-1, n_classes}), b.target.reshape({-1}));
}

double validation_loss(models::WaveRNN& net, const std::vector<SegmentBatch>& batches, int64_t n_classes) {
  NoGradGuard no_grad;
  net->eval();
  double total = 0;
  int64_t count = 0;
  for (const SegmentBatch& b : batches) {
    total += batch_loss(net, b, n_classes).item<double>() * static_cast<double>(b.target.numel());
    count += b.target.numel();
  }
  return total / static_cast<double>(count);
}

}  // namespace

std::string last_checkpoint_path(const std::string& out) { return (fs::path(out) / "last.safetensors").string(); }
std::string best_checkpoint_path(const std::string& out) { return (fs::path(out) / "best.safetensors").string(); }

VocoderResult train_vocoder(const VocoderConfig& c) {
  const auto t_start = Clock::now();
  check_training_flags(c);
  RunScope scope(c);
  const std::string root = c.data.empty() ? default_speech_corpus() : c.data;
  std::optional<VocoderCheckpoint> resume;
  if (!c.resume.empty()) resume = load_vocoder_checkpoint(c.resume);
  const FeatureSpec fspec = resume ? resume->features : feature_spec(c);
  const ModelSpec mspec = resume ? resume->model : model_spec(c);
  fs::create_directories(c.out);
  Features features(fspec);
  const SegmentSpec seg{.seq_len_factor = c.seq_len_factor,
                        .kernel_size = mspec.kernel_size,
                        .hop_length = fspec.hop_length(),
                        .bits = fspec.bits};

  const auto t_data = Clock::now();
  const std::vector<Utterance> train_all = load_subset(root, c.train_subset, features, c.train_utterances);
  const std::vector<Utterance> val_all = load_subset(root, c.val_subset, features);
  const std::vector<Utterance> test_all = load_subset(root, c.test_subset, features);
  const std::vector<const Utterance*> train = usable(train_all, seg), val = usable(val_all, seg);
  EMBER_CHECK(!train.empty(), "ember-vocoder: no utterance of ", c.train_subset, " is long enough for a segment of ",
              c.seq_len_factor, " frames");
  EMBER_CHECK(!val.empty(), "ember-vocoder: no utterance of ", c.val_subset, " is long enough for a segment of ",
              c.seq_len_factor, " frames");
  double train_seconds = 0;
  for (const Utterance* u : train) train_seconds += static_cast<double>(u->waveform.size(0));
  train_seconds /= static_cast<double>(fspec.sample_rate);
  std::printf("data: %s/LibriTTS: %zu %s utterances (%.1f min), %zu %s, %zu %s; %lld Hz, hop %lld, %lld mels "
              "(%.1f s)\n",
              root.c_str(), train.size(), c.train_subset.c_str(), train_seconds / 60, val.size(),
              c.val_subset.c_str(), test_all.size(), c.test_subset.c_str(), static_cast<long long>(fspec.sample_rate),
              static_cast<long long>(fspec.hop_length()), static_cast<long long>(fspec.n_mels),
              seconds_since(t_data));

  // Fixed validation segments, drawn once from their own seed.
  std::vector<SegmentBatch> val_batches;
  {
    Generator g(static_cast<uint64_t>(c.seed) + kValidationSeedOffset);
    std::vector<const Utterance*> list;
    for (int64_t k = 0; k < kValidationSegmentsPerUtterance; ++k) list.insert(list.end(), val.begin(), val.end());
    for (size_t i = 0; i < list.size(); i += static_cast<size_t>(c.batch_size)) {
      const size_t end = std::min(list.size(), i + static_cast<size_t>(c.batch_size));
      val_batches.push_back(make_batch({list.begin() + static_cast<std::ptrdiff_t>(i),
                                        list.begin() + static_cast<std::ptrdiff_t>(end)},
                                       seg, &g));
    }
  }

  models::WaveRNN net(mspec.options(fspec));
  int64_t num_params = 0;
  for (const Tensor& p : net->parameters()) num_params += p.numel();
  const int64_t n_classes = fspec.n_classes();
  const int64_t segments = static_cast<int64_t>(train.size()) * c.segments_per_utterance;
  const int64_t steps = (segments + c.batch_size - 1) / c.batch_size;
  optim::Adam optimizer(net->parameters(), optim::AdamOptions{.lr = c.lr});
  // Note [The vocoder's learning-rate schedule]: torchaudio's recipe keeps
  // Adam's rate constant over days of training; a run of minutes ends better
  // when the rate anneals (cosine, per step, to 5% of --lr): the last steps
  // settle instead of leaving the model wherever a large step put it.
  optim::CosineAnnealingLR scheduler(optimizer, c.epochs * steps, c.lr * kFinalLrFraction);
  RunState state;
  state.seed = static_cast<uint64_t>(c.seed);
  if (resume) {
    net->load_state_dict(resume->model_state, /*strict=*/true);
    restore_training_state(*resume, optimizer, &scheduler);
    state = resume->state;
    std::printf("resume: %s after epoch %lld (validation loss %.4f)\n", c.resume.c_str(),
                static_cast<long long>(state.epochs_done),
                state.history.empty() ? 0.0 : state.history.back().val_loss);
  }
  std::printf("model: WaveRNN, n_rnn %lld, n_fc %lld, %lld res blocks, upsample %s, %lld classes (mu-law), %.3f M "
              "parameters; adam lr %g (cosine to %g), clip %g, batch %lld x %lld samples, %lld steps/epoch, %lld epochs\n",
              static_cast<long long>(mspec.n_rnn), static_cast<long long>(mspec.n_fc),
              static_cast<long long>(mspec.n_res_block), format_scales(fspec.upsample_scales).c_str(),
              static_cast<long long>(n_classes), static_cast<double>(num_params) / 1e6, c.lr, c.lr * kFinalLrFraction, c.clip,
              static_cast<long long>(c.batch_size), static_cast<long long>(c.seq_len_factor * fspec.hop_length()),
              static_cast<long long>(steps), static_cast<long long>(c.epochs));
  std::fflush(stdout);

  const std::string last_path = last_checkpoint_path(c.out), best_path = best_checkpoint_path(c.out);
  const std::string metrics_path = (fs::path(c.out) / "metrics.json").string();
  MetricsSummary summary;
  summary.features = fspec;
  summary.model = mspec;
  summary.train_utterances = static_cast<int64_t>(train.size());
  summary.val_utterances = static_cast<int64_t>(val.size());
  summary.parameters = num_params;
  summary.epochs = state.history;
  summary.checkpoint = last_path;
  VocoderResult result;
  result.checkpoint = last_path;
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < c.epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    net->train();
    const auto te = Clock::now();
    const Tensor order = randperm(segments);
    const int64_t* idx = order.data_ptr<int64_t>();
    double loss_sum = 0;
    int64_t samples = 0;
    ProgressBar bar({.total = steps,
                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(c.epochs),
                     .plain = c.progress ? std::nullopt : std::optional<bool>(true),
                     .unit = "batch"});
    for (int64_t i = 0; i < segments; i += c.batch_size) {
      std::vector<const Utterance*> picked;
      for (int64_t j = i; j < std::min(segments, i + c.batch_size); ++j)
        picked.push_back(train[static_cast<size_t>(idx[j] % static_cast<int64_t>(train.size()))]);
      const SegmentBatch b = make_batch(picked, seg);
      optimizer.zero_grad();
      const Tensor loss = batch_loss(net, b, n_classes);
      loss.backward();
      nn::utils::clip_grad_norm_(net->parameters(), c.clip);
      optimizer.step();
      scheduler.step();
      loss_sum += loss.item<double>() * static_cast<double>(b.target.numel());
      samples += b.target.numel();
      bar.set_postfix({{"loss", loss_sum / static_cast<double>(samples)},
                       {"samples/s", static_cast<double>(samples) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double seconds = seconds_since(te);
    const double lr_now = optimizer.param_groups()[0].options.at("lr").to_double();
    const double val_loss = validation_loss(net, val_batches, n_classes);
    const EpochRecord rec{.epoch = epoch + 1,
                          .train_loss = loss_sum / static_cast<double>(samples),
                          .val_loss = val_loss,
                          .lr = lr_now,
                          .seconds = seconds,
                          .samples_per_s = static_cast<double>(samples) / seconds};
    state.epochs_done = epoch + 1;
    const bool best = state.history.empty() || val_loss < state.best_val;
    if (best) state.best_val = val_loss;
    state.history.push_back(rec);
    save_vocoder_checkpoint(last_path, net, fspec, mspec, &optimizer, &scheduler, state);
    if (best) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    std::printf("epoch %lld/%lld: train loss %.4f, validation loss %.4f%s, %.0f samples/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(c.epochs), rec.train_loss, val_loss,
                best ? " (best)" : "", rec.samples_per_s, seconds);
    std::fflush(stdout);
    summary.epochs = state.history;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    result.final_train_loss = rec.train_loss;
    result.val_loss = val_loss;
    ++run_epochs;
  }
  result.epochs_done = state.epochs_done;
  if (run_epochs == 0) result.val_loss = validation_loss(net, val_batches, n_classes);
  if (state.epochs_done < c.epochs) {
    std::printf("stopped: %lld/%lld epochs; continue with --resume %s\n", static_cast<long long>(state.epochs_done),
                static_cast<long long>(c.epochs), last_path.c_str());
    return result;
  }

  // Generation for held-out speakers, with the last epoch's weights.
  const auto tg = Clock::now();
  const std::vector<const Utterance*> picked = pick_round_robin(test_all, c.num_samples);
  std::vector<Tensor> originals;
  int64_t total_samples = 0;
  for (const Utterance* u : picked) {
    originals.push_back(u->waveform);
    total_samples += u->waveform.size(0);
  }
  std::printf("generate: %zu %s utterances (%.1f s of audio) with WaveRNN::infer, batched\n", picked.size(),
              c.test_subset.c_str(), static_cast<double>(total_samples) / static_cast<double>(fspec.sample_rate));
  std::fflush(stdout);
  const std::vector<Tensor> generated =
      vocode(net, features, originals, static_cast<uint64_t>(c.seed) + kSamplerSeedOffset, c.temperature);
  Evaluation eval =
      evaluate_distances(features, originals, generated, static_cast<uint64_t>(c.seed) + kNoiseSeedOffset);
  eval.seconds = seconds_since(tg);
  const fs::path samples_dir = fs::path(c.out) / "samples";
  fs::create_directories(samples_dir);
  for (size_t i = 0; i < picked.size(); ++i) {
    const std::string generated_path = (samples_dir / (picked[i]->id + ".wav")).string();
    write_wav(generated_path, generated[i], fspec.sample_rate);
    write_wav((samples_dir / (picked[i]->id + ".original.wav")).string(), originals[i], fspec.sample_rate);
    result.sample_files.push_back(generated_path);
  }
  const double best_baseline = std::min(eval.silence, eval.noise);
  std::printf("test: log-mel L1 distance %.4f on %lld utterances (baselines: silence %.4f, noise of the same RMS "
              "%.4f; ratio to the better %.3f), %.1f s\n",
              eval.model, static_cast<long long>(eval.utterances), eval.silence, eval.noise,
              eval.model / best_baseline, eval.seconds);
  result.evaluated = true;
  result.test = eval;
  summary.test = eval;
  summary.samples = result.sample_files;
  summary.total_seconds = seconds_since(t_start);
  write_metrics(metrics_path, summary);
  std::printf("done: %lld epochs, validation loss %.4f (best %.4f) in %.1f s\n",
              static_cast<long long>(state.epochs_done), result.val_loss, state.best_val, seconds_since(t_start));
  std::printf("files: %s (last), %s (best), %s, %s/*.wav\n", last_path.c_str(), best_path.c_str(),
              metrics_path.c_str(), samples_dir.string().c_str());
  return result;
}

}  // namespace ember::apps::vocoder
