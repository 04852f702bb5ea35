#include "separate_trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <ember/audio/speech.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/determinism.h>
#include <ember/core/generator.h>
#include <ember/core/parallel.h>
#include <ember/datasets/data_loader.h>
#include <ember/datasets/map_dataset.h>
#include <ember/datasets/progress.h>
#include <ember/nn/utils/clip_grad.h>
#include <ember/optim/adam.h>
#include <ember/optim/lr_scheduler.h>

#include "separate_checkpoint.h"
#include "separate_files.h"
#include "separate_metrics.h"

namespace ember::apps::separate_app {
namespace {

namespace fs = std::filesystem;
namespace metrics = audio::metrics;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Note [The default model]: torchaudio's recipe trains conv_tasnet_base
// (4.99 M parameters, L 16) for 100 epochs of wsj0-2mix on GPUs. On 2 CPU
// cores the default run must finish in minutes, so its model is the recipe's
// architecture scaled down (separate_config.h: N 64, L 32, B 32, H 64, X 6,
// R 2). Measured on the spoken-digits corpus, 8 epochs each: with L 16 it
// reached the same dev SI-SNRi (5.8 dB) in twice the time; N 128 / B 64 /
// H 128 took 2-3 times as long per epoch and, at lr 3e-3, stalled for its
// first four epochs (4.4 dB after 8); the recipe's lr 1e-3 reached 4.5 dB
// where 3e-3 reached 5.8 dB, hence 3e-3 for the default model. Segments of
// 2 s instead of 1 s gained more per epoch (5.4 dB after 6) but not per
// second (the 1 s run was at 6.0 dB by then). --base keeps the recipe's
// model, lr 1e-3 and 100 epochs.
constexpr int64_t kDefaultEpochs = 20;
constexpr int64_t kBaseEpochs = 100;  // the recipe's
constexpr double kDefaultLr = 3e-3;
constexpr double kBaseLr = 1e-3;  // the recipe's

// Sets the seed and thread count, turns deterministic algorithms on for the
// run and restores the previous setting when it ends (a program, or a test,
// may train more than once).
class RunScope {
 public:
  explicit RunScope(const SeparateConfig& c) : saved_deterministic_(are_deterministic_algorithms_enabled()) {
    if (c.threads > 0) set_num_threads(static_cast<int>(c.threads));
    if (c.deterministic) use_deterministic_algorithms(true);
  }
  ~RunScope() { use_deterministic_algorithms(saved_deterministic_); }
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  bool saved_deterministic_;
};

void check_config(const SeparateConfig& c) {
  EMBER_CHECK(!c.data.empty(), "ember-separate: no corpus given (--data DIR)");
  EMBER_CHECK(c.layout == "librimix" || c.layout == "wsj0mix", "ember-separate: unknown --layout '", c.layout,
              "' (expected librimix or wsj0mix)");
  EMBER_CHECK(c.task == "sep_clean" || c.task == "sep_noisy", "ember-separate: unknown --task '", c.task,
              "' (expected sep_clean or sep_noisy)");
  EMBER_CHECK(c.layout == "librimix" || c.task == "sep_clean",
              "ember-separate: --task sep_noisy needs --layout librimix (wsj0-mix has clean mixtures only)");
  EMBER_CHECK(c.segment_seconds > 0, "ember-separate: --segment must be positive (got ", c.segment_seconds, ")");
  EMBER_CHECK(c.batch_size >= 1, "ember-separate: --batch-size must be >= 1 (got ", c.batch_size, ")");
  EMBER_CHECK(c.lr >= 0, "ember-separate: --lr must be positive, or 0 for the model's default (got ", c.lr, ")");
  EMBER_CHECK(c.clip > 0, "ember-separate: --clip must be positive (got ", c.clip, ")");
  EMBER_CHECK(c.patience >= 0, "ember-separate: --patience must be >= 0 (got ", c.patience, ")");
  EMBER_CHECK(c.workers >= 0, "ember-separate: --workers must be >= 0 (got ", c.workers, ")");
  EMBER_CHECK(c.epochs >= 0, "ember-separate: --epochs must be >= 0 (got ", c.epochs, ")");
  EMBER_CHECK(c.examples >= 0, "ember-separate: --examples must be >= 0 (got ", c.examples, ")");
  EMBER_CHECK(c.sample_rate == 8000 || c.sample_rate == 16000, "ember-separate: --sample-rate must be 8000 or 16000 ",
              "(got ", c.sample_rate, ")");
}

std::string describe(const models::ConvTasNetOptions& o) {
  char b[200];
  std::snprintf(b, sizeof(b), "N %lld, L %lld, B %lld, H %lld, P %lld, X %lld, R %lld, %s masks",
                static_cast<long long>(o.enc_num_feats), static_cast<long long>(o.enc_kernel_size),
                static_cast<long long>(o.msk_num_feats), static_cast<long long>(o.msk_num_hidden_feats),
                static_cast<long long>(o.msk_kernel_size), static_cast<long long>(o.msk_num_layers),
                static_cast<long long>(o.msk_num_stacks), o.msk_activate.c_str());
  return b;
}

}  // namespace

HeldOutScore evaluate_held_out(models::ConvTasNetImpl& model, const MixtureDataset& data, const std::string& desc,
                               bool progress, const std::string& examples_dir, int64_t examples,
                               const std::vector<std::string>& ids, int64_t sample_rate) {
  model.eval();
  InferenceMode guard;
  HeldOutScore score;
  ProgressBar bar({.total = data->size(), .desc = desc, .plain = progress ? std::nullopt : std::optional<bool>(true),
                   .unit = "mix"});
  for (int64_t i = 0; i < data->size(); ++i) {
    const SegmentBatch b = whole_mixture(data->get(i));
    const Tensor estimate = model.forward(b.mixture);
    score.si_snri += metrics::si_snr_improvement(estimate, b.sources, b.mixture).item<double>();
    score.sdri += metrics::sdr_improvement(estimate, b.sources, b.mixture).item<double>();
    ++score.mixtures;
    if (!examples_dir.empty() && i < examples)
      write_sources(examples_dir, ids.at(static_cast<size_t>(i)), match_mixture_scale(estimate, b.mixture).squeeze(0),
                    sample_rate);
    bar.set_postfix({{"si_snri", score.si_snri / static_cast<double>(score.mixtures)}});
    bar.update();
  }
  bar.close();
  if (score.mixtures > 0) {
    score.si_snri /= static_cast<double>(score.mixtures);
    score.sdri /= static_cast<double>(score.mixtures);
  }
  return score;
}

SeparateResult train_separate(const SeparateConfig& config) {
  const auto t_start = Clock::now();
  check_config(config);
  RunScope scope(config);
  fs::create_directories(config.output);

  // A resumed run continues the checkpoint's model, sample rate, segment
  // length and seed (the data order and the crops follow from the seed).
  SeparateConfig c = config;
  std::optional<SeparateCheckpoint> resume;
  if (!c.resume.empty()) {
    resume = load_separate_checkpoint(c.resume);
    const RunState& s = resume->state;
    EMBER_CHECK(s.layout == c.layout && s.task == c.task, "ember-separate: checkpoint '", c.resume,
                "' was trained on --layout ", s.layout, " --task ", s.task, ", not --layout ", c.layout, " --task ",
                c.task);
    c.model = resume->model;
    c.num_speakers = resume->model.num_sources;
    c.sample_rate = s.sample_rate;
    c.segment_seconds = s.segment_seconds;
    c.seed = static_cast<int64_t>(s.seed);
  } else if (c.base) {
    c.model = models::conv_tasnet_base(c.num_speakers)->options;
  }
  c.model.num_sources = c.num_speakers;
  manual_seed(static_cast<uint64_t>(c.seed));
  const int64_t epochs = c.epochs > 0 ? c.epochs
                         : resume   ? resume->state.epochs
                                    : (c.base ? kBaseEpochs : kDefaultEpochs);
  if (c.lr == 0) c.lr = c.base ? kBaseLr : kDefaultLr;

  const auto t_data = Clock::now();
  const SeparationSplits splits = open_splits(c, c.data);
  const int64_t segment_frames = std::llround(c.segment_seconds * static_cast<double>(c.sample_rate));
  EMBER_CHECK(segment_frames >= c.model.enc_kernel_size, "ember-separate: --segment ", c.segment_seconds,
              " s is shorter than the encoder's window");
  std::printf("data: %s: %lld/%lld/%lld mixtures at %lld Hz; training segments of %.2f s (%.1f s)\n",
              splits.description.c_str(), static_cast<long long>(splits.train->size()),
              static_cast<long long>(splits.dev->size()), static_cast<long long>(splits.test->size()),
              static_cast<long long>(c.sample_rate), c.segment_seconds, seconds_since(t_data));

  models::ConvTasNet model(c.model);
  int64_t num_params = 0;
  for (const Tensor& p : model->parameters()) num_params += p.numel();
  optim::Adam optimizer(model->parameters(), {.lr = c.lr});
  optim::ReduceLROnPlateau scheduler(optimizer, {.mode = "max", .factor = 0.5, .patience = c.patience});
  RunState state;
  state.layout = c.layout;
  state.task = c.task;
  state.sample_rate = c.sample_rate;
  state.segment_seconds = c.segment_seconds;
  state.seed = static_cast<uint64_t>(c.seed);
  state.epochs = epochs;
  if (resume) {
    model->load_state_dict(resume->model_state, /*strict=*/true);
    restore_training_state(*resume, optimizer, scheduler);
    state.epochs_done = resume->state.epochs_done;
    state.best_val = resume->state.best_val;
    state.history = resume->state.history;
    std::printf("resume: %s after epoch %lld (dev SI-SNRi %.2f dB)\n", c.resume.c_str(),
                static_cast<long long>(state.epochs_done),
                state.history.empty() ? 0.0 : state.history.back().val_si_snri);
  }
  std::printf("model: ConvTasNet (%s), %.3f M parameters, receptive field %lld frames; adam lr %g, clip %g, "
              "batch %lld, %lld epochs\n",
              describe(c.model).c_str(), static_cast<double>(num_params) / 1e6,
              static_cast<long long>(model->mask_generator->receptive_field),
              optimizer.param_groups()[0].options.at("lr").to_double(), c.clip,
              static_cast<long long>(c.batch_size), static_cast<long long>(epochs));
  std::fflush(stdout);

  auto segments = datasets::map(splits.train, [segment_frames](datasets::SourceSeparationSample s) {
    return random_segment(s, segment_frames);
  });
  datasets::DataLoader<Segment, SegmentBatch> loader(
      segments,
      {.batch_size = c.batch_size, .shuffle = true, .num_workers = c.workers, .seed = static_cast<uint64_t>(c.seed)},
      collate_segments);

  const std::string last_path = (fs::path(c.output) / "checkpoint.safetensors").string();
  const std::string best_path = (fs::path(c.output) / "best.safetensors").string();
  const std::string metrics_path = (fs::path(c.output) / "metrics.json").string();
  MetricsSummary summary;
  summary.data = splits.description;
  summary.layout = c.layout;
  summary.task = c.task;
  summary.sample_rate = c.sample_rate;
  summary.model = c.model;
  summary.num_parameters = num_params;
  summary.receptive_field = model->mask_generator->receptive_field;
  summary.segment_seconds = c.segment_seconds;
  summary.batch_size = c.batch_size;
  summary.epochs = state.history;
  summary.checkpoint = last_path;
  SeparateResult result;
  const std::vector<Tensor> params = model->parameters();
  int64_t run_epochs = 0;
  for (int64_t epoch = state.epochs_done; epoch < epochs; ++epoch) {
    if (c.stop_after > 0 && run_epochs == c.stop_after) break;
    model->train();
    loader.set_epoch(epoch);
    const auto te = Clock::now();
    double si_snr_sum = 0;
    int64_t count = 0;
    ProgressBar bar({.total = loader.size(),
                     .desc = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs),
                     .plain = c.progress ? std::nullopt : std::optional<bool>(true),
                     .unit = "batch"});
    const double lr_now = optimizer.param_groups()[0].options.at("lr").to_double();
    for (SegmentBatch& b : loader) {
      const Tensor estimate = model->forward(b.mixture);
      const metrics::PitResult pit =
          metrics::pit_loss(estimate, b.sources, {.zero_mean = true, .epsilon = 1e-8, .mask = b.mask});
      const double loss = pit.loss.item<double>();
      EMBER_CHECK(std::isfinite(loss), "ember-separate: the training loss is ", loss, " at epoch ", epoch + 1,
                  ", step ", count / c.batch_size + 1,
                  ": the data holds non-finite samples or the run diverged (try a lower --lr)");
      optimizer.zero_grad();
      pit.loss.backward();
      nn::utils::clip_grad_norm_(params, c.clip);
      optimizer.step();
      const int64_t n = b.mixture.size(0);
      si_snr_sum -= loss * static_cast<double>(n);
      count += n;
      bar.set_postfix({{"si_snr", si_snr_sum / static_cast<double>(count)},
                       {"seg/s", static_cast<double>(count) / seconds_since(te)}});
      bar.update();
    }
    bar.close();
    const double seconds = seconds_since(te);
    const HeldOutScore val = evaluate_held_out(*model, splits.dev, "dev", c.progress);
    scheduler.step(val.si_snri);
    EpochRecord rec{.epoch = epoch + 1,
                    .train_si_snr = si_snr_sum / static_cast<double>(count),
                    .val_si_snri = val.si_snri,
                    .lr = lr_now,
                    .seconds = seconds,
                    .segments_per_s = static_cast<double>(count) / seconds};
    state.epochs_done = epoch + 1;
    const bool best = state.epochs_done == 1 || val.si_snri > state.best_val;
    if (best) state.best_val = val.si_snri;
    state.history.push_back(rec);
    save_separate_checkpoint(last_path, *model, &optimizer, &scheduler, state);
    if (best) fs::copy_file(last_path, best_path, fs::copy_options::overwrite_existing);
    std::printf("epoch %lld/%lld: train SI-SNR %.2f dB, dev SI-SNRi %.2f dB%s, lr %g, %.1f segments/s, %.1f s\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(epochs), rec.train_si_snr, val.si_snri,
                best ? " (best)" : "", lr_now, rec.segments_per_s, seconds);
    std::fflush(stdout);
    summary.epochs = state.history;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    result.final_train_si_snr = rec.train_si_snr;
    result.val_si_snri = val.si_snri;
    ++run_epochs;
  }
  result.epochs_done = state.epochs_done;
  result.checkpoint = last_path;
  if (run_epochs == 0 && !state.history.empty()) {
    result.final_train_si_snr = state.history.back().train_si_snr;
    result.val_si_snri = state.history.back().val_si_snri;
  }
  if (state.epochs_done == epochs) {
    const std::string examples_dir = (fs::path(c.output) / "separated").string();
    const HeldOutScore test = evaluate_held_out(*model, splits.test, "test", c.progress, examples_dir, c.examples,
                                                splits.test_ids, c.sample_rate);
    result.test_si_snri = test.si_snri;
    result.test_sdri = test.sdri;
    result.test_mixtures = test.mixtures;
    summary.test_si_snri = test.si_snri;
    summary.test_sdri = test.sdri;
    summary.test_mixtures = test.mixtures;
    summary.total_seconds = seconds_since(t_start);
    write_metrics(metrics_path, summary);
    std::printf("test: SI-SNRi %.2f dB, SDRi %.2f dB on %lld held-out mixtures; %lld separated into %s\n",
                test.si_snri, test.sdri, static_cast<long long>(test.mixtures),
                static_cast<long long>(std::min(c.examples, test.mixtures)), examples_dir.c_str());
  }
  std::printf("done: %lld/%lld epochs, dev SI-SNRi %.2f dB (best %.2f) in %.1f s\n",
              static_cast<long long>(state.epochs_done), static_cast<long long>(epochs),
              state.history.empty() ? 0.0 : state.history.back().val_si_snri, state.best_val,
              seconds_since(t_start));
  std::printf("files: %s (last), %s (best), %s\n", last_path.c_str(), best_path.c_str(), metrics_path.c_str());
  std::fflush(stdout);
  return result;
}

}  // namespace ember::apps::separate_app
