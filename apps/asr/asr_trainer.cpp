#include "asr_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <ember/audio/transforms/features.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/determinism.h>
#include <ember/core/generator.h>
#include <ember/core/parallel.h>
#include <ember/datasets/progress.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/init.h>
#include <ember/nn/utils/clip_grad.h>
#include <ember/optim/adam.h>

#include "asr_checkpoint.h"
#include "asr_corpus.h"
#include "asr_decode.h"
#include "asr_metrics.h"

namespace ember::apps::asr_app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Seed, threads and deterministic mode for the run; the previous
// deterministic setting comes back when it ends (a test may train twice).
class RunScope {
 public:
  explicit RunScope(const AsrConfig& c) : saved_(are_deterministic_algorithms_enabled()) {
    if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
    if (c.deterministic) use_deterministic_algorithms(true);
    manual_seed(static_cast<uint64_t>(c.seed));
  }
  ~RunScope() { use_deterministic_algorithms(saved_); }
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  bool saved_;
};

void check_config(const AsrConfig& c) {
  EMBER_CHECK(!c.data.empty(), "ember-asr: no corpus root (--data)");
  EMBER_CHECK(c.init == "kaiming" || c.init == "torchaudio", "ember-asr: unknown --init '", c.init,
              "' (expected kaiming or torchaudio)");
  EMBER_CHECK(c.epochs >= 1, "ember-asr: --epochs must be positive, got ", c.epochs);
  EMBER_CHECK(c.batch_size >= 1, "ember-asr: --batch-size must be positive, got ", c.batch_size);
  EMBER_CHECK(c.lr > 0 && std::isfinite(c.lr), "ember-asr: --lr must be positive, got ", c.lr);
  EMBER_CHECK(c.clip >= 0, "ember-asr: --clip must be >= 0, got ", c.clip);
  EMBER_CHECK(c.beam >= 1, "ember-asr: --beam must be positive, got ", c.beam);
  EMBER_CHECK(c.freq_mask >= 0 && c.time_mask >= 0, "ember-asr: --freq-mask and --time-mask must be >= 0, got ",
              c.freq_mask, " and ", c.time_mask);
  EMBER_CHECK(c.train_limit >= 0 && c.stop_after >= 0, "ember-asr: --train-limit and --stop-after must be >= 0");
  EMBER_CHECK(!c.train_subset.empty() && !c.eval_subset.empty(), "ember-asr: --train-subset and --eval-subset must name subsets");
}

// Note [Wav2Letter initialisation]
// torchaudio's Wav2Letter keeps PyTorch's default initialisation (uniform
// weights of bound 1/sqrt(fan_in)), which scales each ReLU layer's output
// variance by about 1/3: after eleven convolutions the log-probabilities
// hardly depend on the input, and CTC sits on its all-blank plateau for
// hundreds of steps. He initialisation (normal, std sqrt(2 / fan_in), zero
// biases) keeps the activations' scale through the stack. The last
// convolution is followed by a ReLU too (as torchaudio's), so a class whose
// score starts negative at a frame gets no gradient there; its weights start
// small (std 0.5 / sqrt(fan_in)) and its biases at 2, so every score starts
// in the ReLU's linear range and every class learns from the first step.
void kaiming_init(models::Wav2Letter& model) {
  NoGradGuard no_grad;
  std::vector<Tensor> weights, biases;
  for (auto& [name, p] : model->named_parameters()) (p.dim() == 3 ? weights : biases).push_back(p);
  EMBER_CHECK(!weights.empty() && weights.size() == biases.size(), "ember-asr: Wav2Letter's parameters are not "
              "(weight, bias) pairs of convolutions");
  for (size_t i = 0; i + 1 < weights.size(); ++i) {
    nn::init::kaiming_normal_(weights[i], 0, nn::init::FanMode::FanIn, "relu");
    nn::init::zeros_(biases[i]);
  }
  Tensor& last = weights.back();
  nn::init::normal_(last, 0, 0.5 / std::sqrt(static_cast<double>(last.size(1) * last.size(2))));
  nn::init::constant_(biases.back(), 2.0);
}

std::string describe(const SpeechSplit& s) {
  char b[160];
  std::snprintf(b, sizeof(b), "%s: %zu utterances, %lld speakers, %.1f min", s.subset.c_str(), s.utterances.size(),
                static_cast<long long>(s.speakers), s.seconds / 60);
  return b;
}

// SpecAugment on a batch [B, F, T]: one frequency band and one time band per
// utterance, drawn from the default generator (so they resume with it).
Tensor spec_augment(const Tensor& features, const AsrConfig& c) {
  Tensor x = features.unsqueeze(1);  // [B, 1, F, T]: iid masks per item
  if (c.freq_mask > 0) x = audio::transforms::FrequencyMasking(c.freq_mask, /*iid_masks=*/true)(x);
  if (c.time_mask > 0) x = audio::transforms::TimeMasking(c.time_mask, /*iid_masks=*/true)(x);
  return x.squeeze(1);
}

void print_rates(const char* what, const SplitEvaluation& e, int64_t beam, bool lexicon) {
  std::printf("%s: greedy CER %.2f%% WER %.2f%%; beam %lld%s CER %.2f%% WER %.2f%% (%lld utterances)\n", what,
              100 * e.greedy.cer, 100 * e.greedy.wer, static_cast<long long>(beam), lexicon ? " + lexicon" : "",
              100 * e.beam.cer, 100 * e.beam.wer, static_cast<long long>(e.utterances));
}

}  // namespace

AsrResult train_asr(const AsrConfig& c) {
  const auto t_start = Clock::now();
  check_config(c);
  RunScope scope(c);
  fs::create_directories(c.out);
  std::optional<AsrCheckpoint> resume;
  if (!c.resume.empty()) resume = load_asr_checkpoint(c.resume);
  // A resumed run keeps the checkpoint's features (the weights were trained on them).
  const FeatureSpec spec = resume ? resume->features
                                  : FeatureSpec{.input_type = c.input_type,
                                                .n_fft = c.n_fft,
                                                .hop_length = c.hop_length,
                                                .n_mfcc = c.n_mfcc};
  const FeatureExtractor features(spec);
  const CharVocabulary vocabulary;
  DecodeOptions decode{.beam = c.beam, .lexicon = std::nullopt};
  if (!c.lexicon.empty()) decode.lexicon = vocabulary.read_lexicon(c.lexicon);

  const auto t_data = Clock::now();
  const SpeechSplit train = read_librispeech(c.data, c.train_subset, features, vocabulary, c.train_limit);
  std::optional<SpeechSplit> dev;
  if (!c.dev_subset.empty()) dev = read_librispeech(c.data, c.dev_subset, features, vocabulary);
  const SpeechSplit held_out = read_librispeech(c.data, c.eval_subset, features, vocabulary);
  std::printf("data: %s/LibriSpeech; train %s; dev %s; eval %s (features in %.1f s)\n", c.data.c_str(),
              describe(train).c_str(), dev ? describe(*dev).c_str() : "none", describe(held_out).c_str(),
              seconds_since(t_data));
  std::printf("features: %s, %lld per frame, %lld-sample window, hop %lld (%.0f model frames/s)\n",
              spec.input_type.c_str(), static_cast<long long>(spec.num_features()),
              static_cast<long long>(spec.n_fft), static_cast<long long>(spec.hop_length),
              static_cast<double>(spec.sample_rate) / static_cast<double>(spec.hop_length) / 2);

  models::Wav2Letter model(vocabulary.size(), spec.input_type, spec.num_features());
  if (c.init == "kaiming") kaiming_init(model);
  int64_t num_params = 0;
  for (const Tensor& p : model->parameters()) num_params += p.numel();
  const int64_t steps_per_epoch =
      (static_cast<int64_t>(train.utterances.size()) + c.batch_size - 1) / c.batch_size;
  AsrRunState state{.epochs = c.epochs,
                    .batch_size = c.batch_size,
                    .total_steps = c.epochs * steps_per_epoch,
                    .max_lr = c.lr,
                    .seed = static_cast<uint64_t>(c.seed),
                    .history = {}};
  if (resume) {
    const AsrRunState& r = resume->state;
    EMBER_CHECK(r.epochs == state.epochs && r.batch_size == state.batch_size && r.total_steps == state.total_steps &&
                    r.max_lr == state.max_lr && r.seed == state.seed,
                "ember-asr: checkpoint '", c.resume, "' was trained with --epochs ", r.epochs, " --batch-size ",
                r.batch_size, " --lr ", r.max_lr, " --seed ", r.seed, " (", r.total_steps,
                " steps); this run asks for --epochs ", state.epochs, " --batch-size ", state.batch_size, " --lr ",
                state.max_lr, " --seed ", state.seed, " (", state.total_steps, " steps): resume with the same flags");
  }
  optim::Adam optimizer(model->parameters(), optim::AdamOptions{.lr = c.lr});
  // Note [ASR schedule]
  // CTC first learns to emit blanks everywhere (loss near 3) and then has to
  // leave that plateau. A quarter of the steps warm up; with 5 epochs the
  // rate reached 8e-4 inside the first epoch and when a run left the plateau
  // varied widely: the same seed ended between 10.5% and 45% test CER, as
  // thread counts following the machine's load changed the last bits. With
  // the default 8 epochs the warm-up spans two epochs (the rate is 5e-4 after
  // the first), every run measured had left the plateau within the first
  // epoch, and the runs end close together (docs/audio.md, "The default run").
  // At least two warm-up steps: OneCycleLR's phases must not be empty (a
  // one-step warm-up divides zero by zero).
  const int64_t schedule_steps = std::max<int64_t>(state.total_steps, 4);
  optim::OneCycleLR scheduler(optimizer, {.max_lr = {c.lr},
                                          .total_steps = schedule_steps,
                                          .pct_start = std::max(0.25, 2.0 / static_cast<double>(schedule_steps))});
  if (resume) {
    model->load_state_dict(resume->model_state, /*strict=*/true);
    restore_training_state(*resume, optimizer, scheduler);
    state.epochs_done = resume->state.epochs_done;
    state.history = resume->state.history;
    std::printf("resume: %s after epoch %lld\n", c.resume.c_str(), static_cast<long long>(state.epochs_done));
  }
  std::printf("model: Wav2Letter, %.1f M parameters, %lld classes; adam one-cycle lr %g, clip %g, batch %lld, "
              "%lld epochs; SpecAugment freq %lld, time %lld\n",
              static_cast<double>(num_params) / 1e6, static_cast<long long>(vocabulary.size()), c.lr, c.clip,
              static_cast<long long>(c.batch_size), static_cast<long long>(c.epochs),
              static_cast<long long>(c.freq_mask), static_cast<long long>(c.time_mask));
  std::fflush(stdout);

  const std::string last_path = (fs::path(c.out) / "last.safetensors").string();
  const std::string best_path = (fs::path(c.out) / "best.safetensors").string();
  const std::string metrics_path = (fs::path(c.out) / "metrics.json").string();
  MetricsSummary summary{.features = spec,
                         .num_classes = vocabulary.size(),
                         .train_subset = c.train_subset,
                         .dev_subset = c.dev_subset,
                         .train_utterances = static_cast<int64_t>(train.utterances.size()),
                         .train_hours = train.seconds / 3600,
                         .epochs = state.history,
                         .eval = std::nullopt,
                         .total_seconds = 0,
                         .checkpoint = last_path};
  double best_cer = INFINITY;
  for (const EpochRecord& e : state.history)
    if (e.dev_cer_greedy < best_cer) best_cer = e.dev_cer_greedy;

  AsrResult result;
  const int64_t eval_batch = 2 * c.batch_size;
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < c.epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model->train();
    const auto batches = epoch_batches(train, c.batch_size, state.seed, epoch);
    const auto te = Clock::now();
    double loss_sum = 0;
    int64_t seen = 0;
    ProgressBar bar({.total = static_cast<int64_t>(batches.size()),
                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(c.epochs),
                     .plain = c.progress ? std::nullopt : std::optional<bool>(true),
                     .unit = "batch"});
    for (const auto& indices : batches) {
      const FeatureBatch b = make_batch(train, indices);
      const Tensor log_probs = model(spec_augment(b.features, c));
      const Tensor loss = nn::functional::ctc_loss(
          log_probs.permute({2, 0, 1}), b.targets, b.output_frames, b.target_lengths,
          {.blank = CharVocabulary::kBlank, .zero_infinity = true});
      optimizer.zero_grad();
      loss.backward();
      if (c.clip > 0) nn::utils::clip_grad_norm_(model->parameters(), c.clip);
      optimizer.step();
      scheduler.step();
      const auto n = static_cast<int64_t>(indices.size());
      loss_sum += loss.item<double>() * static_cast<double>(n);
      seen += n;
      bar.set_postfix({{"loss", loss_sum / static_cast<double>(seen)},
                       {"utt/s", static_cast<double>(seen) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double seconds = seconds_since(te);
    EpochRecord rec{.epoch = epoch + 1,
                    .train_loss = loss_sum / static_cast<double>(seen),
                    .dev_loss = NAN,
                    .dev_cer_greedy = NAN,
                    .dev_wer_greedy = NAN,
                    .dev_cer_beam = NAN,
                    .dev_wer_beam = NAN,
                    .lr = optimizer.param_groups()[0].options.at("lr").to_double(),
                    .seconds = seconds,
                    .utterances_per_s = static_cast<double>(seen) / seconds};
    bool best = false;
    if (dev) {
      const SplitEvaluation e = evaluate_split(model, *dev, vocabulary, decode, eval_batch);
      rec.dev_loss = e.loss;
      rec.dev_cer_greedy = e.greedy.cer;
      rec.dev_wer_greedy = e.greedy.wer;
      rec.dev_cer_beam = e.beam.cer;
      rec.dev_wer_beam = e.beam.wer;
      best = e.greedy.cer < best_cer;
      if (best) best_cer = e.greedy.cer;
    }
    state.epochs_done = epoch + 1;
    state.history.push_back(rec);
    save_asr_checkpoint(last_path, model, spec, vocabulary, &optimizer, &scheduler, state);
    if (best || !dev) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    if (dev)
      std::printf("epoch %lld/%lld: train loss %.4f, dev loss %.4f, dev CER greedy %.2f%% beam %.2f%%, WER greedy "
                  "%.2f%% beam %.2f%%%s, lr %.3g, %.1f utt/s, %.1f s\n",
                  static_cast<long long>(epoch + 1), static_cast<long long>(c.epochs), rec.train_loss, rec.dev_loss,
                  100 * rec.dev_cer_greedy, 100 * rec.dev_cer_beam, 100 * rec.dev_wer_greedy, 100 * rec.dev_wer_beam,
                  best ? " (best)" : "", rec.lr, rec.utterances_per_s, seconds);
    else
      std::printf("epoch %lld/%lld: train loss %.4f, lr %.3g, %.1f utt/s, %.1f s\n", static_cast<long long>(epoch + 1),
                  static_cast<long long>(c.epochs), rec.train_loss, rec.lr, rec.utterances_per_s, seconds);
    std::fflush(stdout);
    summary.epochs = state.history;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    result.final_train_loss = rec.train_loss;
    ++run_epochs;
  }
  result.epochs_done = state.epochs_done;
  // Resuming a complete run only evaluates (with this run's --beam and --lexicon): no new checkpoint.
  result.checkpoint = run_epochs == 0 && resume ? c.resume : last_path;
  summary.checkpoint = result.checkpoint;
  if (state.epochs_done == c.epochs) {
    const SplitEvaluation e = evaluate_split(model, held_out, vocabulary, decode, eval_batch);
    print_rates(("eval " + held_out.subset).c_str(), e, c.beam, decode.lexicon.has_value());
    for (size_t i = 0; i < std::min<size_t>(3, held_out.utterances.size()); ++i)
      std::printf("  %s  ref \"%s\"  greedy \"%s\"  beam \"%s\"\n", held_out.utterances[i].id.c_str(),
                  e.references[i].c_str(), e.hypotheses.greedy[i].c_str(), e.hypotheses.beam[i].c_str());
    result.evaluated = true;
    result.eval_utterances = e.utterances;
    result.greedy = e.greedy;
    result.beam = e.beam;
    summary.eval = EvalSummary{.subset = held_out.subset,
                               .utterances = e.utterances,
                               .speakers = held_out.speakers,
                               .greedy = e.greedy,
                               .beam = e.beam,
                               .beam_size = c.beam,
                               .lexicon = c.lexicon};
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
  }
  std::printf("done: %lld/%lld epochs in %.1f s\n", static_cast<long long>(state.epochs_done),
              static_cast<long long>(c.epochs), seconds_since(t_start));
  if (run_epochs > 0)
    std::printf("files: %s (last), %s (best), %s\n", last_path.c_str(), best_path.c_str(), metrics_path.c_str());
  else
    std::printf("files: %s\n", metrics_path.c_str());
  return result;
}

}  // namespace ember::apps::asr_app
