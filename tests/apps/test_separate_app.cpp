// ember-separate (issue 24): the seeded short run on the default speech
// corpus reaching its stated SI-SNRi on held-out speakers, resume equal to
// an uninterrupted run, the wsj0-mix layout and the noisy task, --separate
// from a checkpoint alone, and the program run as a user would, bad input
// included.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <ember/audio/functional/resample.h>
#include <ember/audio/speech.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>
#include <ember/serialize/safetensors.h>

#include "separate/separate_checkpoint.h"
#include "separate_test_util.h"
#include "speech_corpus_test.h"

using namespace ember::apps::testing;
using namespace ember::apps::testing::separate_test;
using ember::Tensor;

namespace separate_app_test {

// The stated bar of docs/audio.md ("The ember-separate pipeline") for this
// run: the default model, 6 epochs on one thread with deterministic
// algorithms, SI-SNRi on the 40 test mixtures (held-out speakers). It
// measured 2.84 dB (dev 4.21 dB); the bar leaves 0.8 dB for other BLAS and
// oneDNN builds.
constexpr double kBar = 2.0;

struct ShortRun {
  app::SeparateConfig config;
  app::SeparateResult result;
};

void expect_the_stated_quality(const ShortRun& r) {
  EXPECT_EQ(r.result.epochs_done, 6);
  EXPECT_EQ(r.result.test_mixtures, 40);
  EXPECT_GE(r.result.test_si_snri, kBar);
  EXPECT_LT(r.result.test_si_snri, 40.0);  // a plausible number, not a degenerate one
  EXPECT_GT(r.result.final_train_si_snr, 0.0);
  const app::SeparateCheckpoint c = app::load_separate_checkpoint(r.result.checkpoint);
  ASSERT_EQ(c.state.history.size(), 6u);
  EXPECT_GT(c.state.history[5].val_si_snri, c.state.history[0].val_si_snri);
  EXPECT_GT(c.state.history[5].train_si_snr, c.state.history[0].train_si_snr);
  const std::string metrics = slurp(fs::path(r.config.output) / "metrics.json");
  for (const char* key : {"\"train_si_snr\"", "\"val_si_snri\"", "\"segments_per_s\"", "\"test_si_snri\"",
                          "\"test_sdri\"", "\"test_mixtures\": 40", "\"epoch\": 6", "\"num_parameters\"",
                          "\"msk_num_layers\": 6"})
    EXPECT_NE(metrics.find(key), std::string::npos) << key << "\n" << metrics;
  // Separated WAVs of the first 4 test mixtures, at 8 kHz, as long as the mixture.
  const std::vector<std::string> ids = first_ids("test", 4);
  for (const std::string& id : ids)
    for (const char* s : {"_s1.wav", "_s2.wav"}) {
      const fs::path p = fs::path(r.config.output) / "separated" / (id + s);
      ASSERT_TRUE(fs::exists(p)) << p;
      const auto info = ember::audio::info(p.string());
      EXPECT_EQ(info.sample_rate, 8000);
      EXPECT_EQ(info.num_frames, ember::audio::info((librimix_split("test") / "mix_clean" / (id + ".wav")).string())
                                     .num_frames);
      EXPECT_EQ(info.bits_per_sample, 16);
    }
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(r.config.output) / "separated"), fs::directory_iterator()),
            8);
}

// Bitwise: every tensor of the final checkpoints (weights, Adam state,
// generator) and the numbers of each epoch.
void expect_same_checkpoints(const std::string& a, const std::string& b) {
  const app::SeparateCheckpoint x = app::load_separate_checkpoint(a), y = app::load_separate_checkpoint(b);
  ASSERT_EQ(x.tensors.size(), y.tensors.size());
  for (const auto& [key, t] : x.tensors) {
    const Tensor* u = y.tensors.find(key);
    ASSERT_NE(u, nullptr) << key;
    EXPECT_TRUE(t.equal(*u)) << key;
  }
  EXPECT_EQ(x.metadata.at("scheduler"), y.metadata.at("scheduler"));
  ASSERT_EQ(x.state.history.size(), y.state.history.size());
  for (size_t i = 0; i < x.state.history.size(); ++i) {
    EXPECT_EQ(x.state.history[i].train_si_snr, y.state.history[i].train_si_snr) << i;
    EXPECT_EQ(x.state.history[i].val_si_snri, y.state.history[i].val_si_snri) << i;
    EXPECT_EQ(x.state.history[i].lr, y.state.history[i].lr) << i;
  }
}

SPEECH_CORPUS_TEST(SeparateApp, ResumedRunEqualsAnUninterruptedRun) {
  app::SeparateConfig whole = base_config(small_corpus(24, 4), fresh_dir("separate_resume_whole"));
  tiny_model(whole);
  whole.epochs = 3;
  whole.patience = 0;  // the scheduler's best and counters travel in the checkpoint and are compared
  whole.workers = 2;   // the crops do not depend on the threads that draw them
  const app::SeparateResult a = app::train_separate(whole);

  app::SeparateConfig first = whole;
  first.output = fresh_dir("separate_resume_parts");
  first.stop_after = 1;
  first.workers = 0;
  EXPECT_EQ(app::train_separate(first).epochs_done, 1);
  EXPECT_FALSE(fs::exists(fs::path(first.output) / "separated"));  // no test pass before the last epoch
  app::SeparateConfig rest = whole;
  rest.output = first.output;
  rest.resume = (fs::path(first.output) / "checkpoint.safetensors").string();
  rest.seed = 99;                   // the checkpoint's seed wins
  rest.model.enc_num_feats = 512;   // and its model
  rest.epochs = 0;                  // and its planned epochs
  const app::SeparateResult b = app::train_separate(rest);
  EXPECT_EQ(b.epochs_done, 3);
  EXPECT_EQ(a.test_si_snri, b.test_si_snri);
  EXPECT_EQ(a.test_sdri, b.test_sdri);
  expect_same_checkpoints(a.checkpoint, b.checkpoint);
  // The resumed run's metrics.json lists all three epochs.
  const std::string metrics = slurp(fs::path(rest.output) / "metrics.json");
  EXPECT_NE(metrics.find("\"epoch\": 1,"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\"epoch\": 3,"), std::string::npos) << metrics;
}

SPEECH_CORPUS_TEST(SeparateApp, TrainsOnTheWsj0MixLayoutAndTheNoisyTask) {
  const std::string corpus = small_corpus(24, 4);
  app::SeparateConfig wsj = base_config((fs::path(corpus) / "wsj0-mix").string(), fresh_dir("separate_wsj"));
  tiny_model(wsj);
  wsj.layout = "wsj0mix";
  wsj.epochs = 1;
  wsj.examples = 1;
  const app::SeparateResult w = app::train_separate(wsj);
  EXPECT_EQ(w.test_mixtures, 4);
  EXPECT_TRUE(std::isfinite(w.test_si_snri));
  EXPECT_TRUE(fs::exists(fs::path(wsj.output) / "separated" / (first_ids("test", 1)[0] + "_s2.wav")));
  EXPECT_NE(slurp(fs::path(wsj.output) / "metrics.json").find("\"layout\": \"wsj0mix\""), std::string::npos);

  app::SeparateConfig noisy = base_config(corpus, fresh_dir("separate_noisy"));
  tiny_model(noisy);
  noisy.task = "sep_noisy";
  noisy.epochs = 1;
  const app::SeparateResult n = app::train_separate(noisy);
  EXPECT_EQ(n.test_mixtures, 4);
  EXPECT_EQ(app::load_separate_checkpoint(n.checkpoint).state.task, "sep_noisy");
  // Resuming it as another task or layout is refused.
  app::SeparateConfig other = base_config(corpus, fresh_dir("separate_noisy_resume"));
  other.resume = n.checkpoint;
  try {
    app::train_separate(other);
    FAIL() << "a sep_noisy checkpoint resumed a sep_clean run";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("was trained on --layout librimix --task sep_noisy, not --layout librimix "
                                         "--task sep_clean"),
              std::string::npos)
        << e.what();
  }
}

double si_snr_db(const Tensor& estimate, const Tensor& reference) {
  return ember::audio::metrics::si_snr(estimate, reference).item<double>();
}

// --separate with the short run's checkpoint: the sources of a held-out
// mixture, written at the model's rate, sum back to the mixture at its
// scale, and are closer to the references than the mixture is; a 16 kHz copy
// is resampled to 8 kHz first.
void expect_separated_files_sum_to_the_mixture(const ShortRun& r) {
  const std::string out = fresh_dir("separate_files");
  const std::string id = first_ids("test", 6)[5];  // not one of the run's own examples
  const std::string mix = (librimix_split("test") / "mix_clean" / (id + ".wav")).string();
  const std::string mix16k = out + "/wide.wav";
  {
    auto [wave, rate] = ember::audio::load(mix);
    ember::audio::save(mix16k, ember::audio::functional::resample(wave, rate, 16000), 16000);
  }
  const RunResult p = run(kSeparate + " --separate " + r.result.checkpoint + " " + mix + " " + mix16k + " --out " +
                          out);
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find(id + "_s1.wav"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("(resampled from 16000 Hz)"), std::string::npos) << p.out;

  const auto [mixture, rate] = ember::audio::load(mix);
  const auto s1 = ember::audio::load(out + "/" + id + "_s1.wav");
  const auto s2 = ember::audio::load(out + "/" + id + "_s2.wav");
  EXPECT_EQ(s1.sample_rate, 8000);
  ASSERT_EQ(s1.waveform.sizes(), mixture.sizes());
  ASSERT_EQ(s2.waveform.sizes(), mixture.sizes());
  const Tensor sum = s1.waveform + s2.waveform;
  // The sum is the mixture at the mixture's scale: Note [Output scale].
  const double energy_ratio = sum.pow(2).sum().item<double>() / mixture.pow(2).sum().item<double>();
  EXPECT_GT(energy_ratio, 0.7);
  EXPECT_LT(energy_ratio, 1.1);
  EXPECT_GT(si_snr_db(sum, mixture), 10.0);
  // Each reference is better matched by one of the estimates than by the mixture.
  const Tensor ref1 = ember::audio::load((librimix_split("test") / "s1" / (id + ".wav")).string()).waveform;
  const Tensor ref2 = ember::audio::load((librimix_split("test") / "s2" / (id + ".wav")).string()).waveform;
  const double direct = si_snr_db(s1.waveform, ref1) + si_snr_db(s2.waveform, ref2);
  const double swapped = si_snr_db(s1.waveform, ref2) + si_snr_db(s2.waveform, ref1);
  const double baseline = si_snr_db(mixture, ref1) + si_snr_db(mixture, ref2);
  EXPECT_GT(std::max(direct, swapped), baseline + 2.0);

  // The 16 kHz copy: written at 8 kHz, about as long as the mixture.
  const auto w1 = ember::audio::load(out + "/wide_s1.wav");
  EXPECT_EQ(w1.sample_rate, 8000);
  EXPECT_NEAR(static_cast<double>(w1.waveform.size(1)), static_cast<double>(mixture.size(1)), 1.0);
}

// One test, so that ctest (a process per test) trains the short run once.
SPEECH_CORPUS_TEST(SeparateApp, ShortRunReachesTheStatedSiSnriAndItsCheckpointSeparatesFiles) {
  ShortRun r;
  r.config = base_config(default_speech_corpus(), fresh_dir("separate_short_run"));
  r.config.epochs = 6;
  r.result = app::train_separate(r.config);
  {
    SCOPED_TRACE("the short run");
    expect_the_stated_quality(r);
  }
  {
    SCOPED_TRACE("--separate with its checkpoint");
    expect_separated_files_sum_to_the_mixture(r);
  }
}

SPEECH_CORPUS_TEST(SeparateApp, ProgramTrainsAndWritesItsFiles) {
  const std::string corpus = small_corpus(24, 4);
  const std::string out = fresh_dir("separate_program");
  const RunResult r = run(kSeparate + " --data " + corpus +
                          " --epochs 1 --enc-feats 32 --msk-feats 32 --msk-hidden 64 --msk-layers 4 --msk-stacks 1 "
                          "--threads 1 --no-progress --examples 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {"data: Libri2Mix sep_clean (mix_clean) in", "24/4/4 mixtures at 8000 Hz",
                           "model: ConvTasNet (N 32, L 32, B 32, H 64, P 3, X 4, R 1, sigmoid masks)",
                           "epoch 1/1: train SI-SNR", "test: SI-SNRi", "done: 1/1 epochs"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  for (const char* file : {"checkpoint.safetensors", "best.safetensors", "metrics.json"})
    EXPECT_TRUE(fs::exists(fs::path(out) / file)) << file;
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(out) / "separated"), fs::directory_iterator()), 4);
  // Below --min-si-snri: exit 1 after the run, the error as the last line on
  // standard error.
  const RunResult low = run(kSeparate + " --data " + corpus +
                            " --epochs 1 --enc-feats 16 --msk-feats 16 --msk-hidden 16 --msk-layers 1 --msk-stacks 1 "
                            "--threads 1 --no-progress --min-si-snri 90 --out " + fresh_dir("separate_program_low"));
  EXPECT_EQ(low.exit_code, 1);
  const std::string last_line = low.err.substr(low.err.rfind('\n', low.err.size() - 2) + 1);
  EXPECT_EQ(last_line.rfind("ember-separate: test SI-SNRi ", 0), 0u) << low.err;
  EXPECT_NE(last_line.find("is below --min-si-snri 90.00 dB"), std::string::npos) << low.err;
}

SPEECH_CORPUS_TEST(SeparateApp, ProgramBadInputGivesOneErrorLine) {
  const std::string out = fresh_dir("separate_errors");
  const std::string corpus = small_corpus(24, 4);
  expect_one_error_line(run(kSeparate + " --layout timit"), 2, "unknown --layout 'timit' (expected librimix or wsj0mix)");
  expect_one_error_line(run(kSeparate + " --task enh_single"), 2, "unknown --task 'enh_single'");
  expect_one_error_line(run(kSeparate + " --msk-activate tanh"), 2, "unknown --msk-activate 'tanh'");
  expect_one_error_line(run(kSeparate + " --epochz 3"), 2, "unknown option '--epochz'");
  expect_one_error_line(run(kSeparate + " --segment"), 2, "option --segment needs a value");
  expect_one_error_line(run(kSeparate + " --batch-size two"), 2, "'two' is not a valid N");
  expect_one_error_line(run(kSeparate + " stray.wav"), 2, "unexpected positional argument");
  expect_one_error_line(run(kSeparate + " --separate x.safetensors"), 2, "--separate CHECKPOINT needs MIX files");
  expect_one_error_line(run(kSeparate + " --data " + out + "/nowhere --out " + out), 1,
                        "LibriMix: dataset not found: expected " + out + "/nowhere/Libri2Mix/wav8k/min/train-100");
  expect_one_error_line(run(kSeparate + " --layout wsj0mix --data " + out + "/nowhere --out " + out), 1,
                        "WSJ0Mix: no files found in " + out + "/nowhere/tr/mix");
  expect_one_error_line(run("EMBER_SPEECH_CORPUS=" + out + "/no_corpus " + kSeparate + " --out " + out), 1,
                        "no speech corpus at " + out + "/no_corpus");
  expect_one_error_line(run(kSeparate + " --data " + corpus + " --segment 0 --out " + out), 1,
                        "--segment must be positive");
  expect_one_error_line(run(kSeparate + " --data " + corpus + " --num-speakers 4 --out " + out), 1,
                        "--num-speakers must be 2 or 3");
  expect_one_error_line(run(kSeparate + " --data " + corpus + " --layout wsj0mix --task sep_noisy --out " + out), 1,
                        "--task sep_noisy needs --layout librimix");
  expect_one_error_line(run(kSeparate + " --data " + corpus + " --msk-layers 0 --out " + out), 1,
                        "ConvTasNet: msk_num_layers must be in [1, 30]");
  // Checkpoints that are not ember-separate ones: a text file, another app's
  // safetensors file, and a missing file; then files that cannot be separated.
  {
    std::ofstream f(fs::path(out) / "notes.txt");
    f << "not a checkpoint\n";
  }
  const std::string mix = (librimix_split("test") / "mix_clean" / (first_ids("test", 1)[0] + ".wav")).string();
  expect_one_error_line(run(kSeparate + " --separate " + out + "/notes.txt " + mix), 1, "notes.txt");
  ember::Metadata meta;
  meta["ember.checkpoint"] = "ember-text/1";
  ember::save((fs::path(out) / "text.safetensors").string(), ember::StateDict{{"w", ember::zeros({2})}}, meta);
  expect_one_error_line(run(kSeparate + " --separate " + out + "/text.safetensors " + mix + " --out " + out), 1,
                        "is not an ember-separate checkpoint (no \"ember.checkpoint\": \"ember-separate/1\" metadata; "
                        "it is an ember-text/1 checkpoint)");
  expect_one_error_line(run(kSeparate + " --resume " + out + "/text.safetensors --data " + corpus + " --out " + out),
                        1, "is not an ember-separate checkpoint");
  expect_one_error_line(run(kSeparate + " --separate " + out + "/missing.safetensors " + mix), 1,
                        "missing.safetensors");
  app::SeparateConfig tiny = base_config(corpus, fresh_dir("separate_errors_model"));
  tiny_model(tiny);
  tiny.epochs = 1;
  tiny.examples = 0;
  const std::string ckpt = app::train_separate(tiny).checkpoint;
  expect_one_error_line(run(kSeparate + " --separate " + ckpt + " " + out + "/no_such.wav --out " + out), 1,
                        "cannot read '" + out + "/no_such.wav' (no such file)");
  ember::audio::save(out + "/stereo.wav", ember::zeros({2, 800}), 8000);
  expect_one_error_line(run(kSeparate + " --separate " + ckpt + " " + out + "/stereo.wav --out " + out), 1,
                        "stereo.wav' has 2 channels; the model separates mono mixtures");
  expect_one_error_line(run(kSeparate + " --separate " + ckpt + " " + out + "/notes.txt --out " + out), 1,
                        "notes.txt");
}

// A training source of NaN samples makes the loss non-finite: the run stops
// with an error naming the epoch and step instead of training on garbage.
SPEECH_CORPUS_TEST(SeparateApp, NonFiniteLossStopsTheRunWithAnError) {
  const fs::path root = fresh_dir("separate_nan_corpus");
  fs::copy(small_corpus(24, 4), root, fs::copy_options::recursive | fs::copy_options::create_hard_links);
  const fs::path s1 = root / "Libri2Mix/wav8k/min/train-100/s1" / (first_ids("train-100", 1)[0] + ".wav");
  auto [wave, rate] = ember::audio::load(s1.string());
  fs::remove(s1);  // a hard link: the default corpus keeps its file
  wave.fill_(std::nan(""));  // every crop of it holds NaNs
  ember::audio::save(s1.string(), wave, rate);  // float32 WAV: the NaN survives
  app::SeparateConfig c = base_config(root.string(), fresh_dir("separate_nan_out"));
  tiny_model(c);
  c.epochs = 1;
  try {
    app::train_separate(c);
    FAIL() << "a NaN loss went unnoticed";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    // (NaN or inf: the PIT loss's reductions decide which)
    EXPECT_TRUE(what.find("ember-separate: the training loss is nan at epoch 1, step ") != std::string::npos ||
                what.find("ember-separate: the training loss is inf at epoch 1, step ") != std::string::npos)
        << what;
    EXPECT_NE(what.find("the data holds non-finite samples or the run diverged"), std::string::npos) << what;
  }
}

TEST(SeparateApp, HelpListsTheOptions) {
  const RunResult h = run(kSeparate + " --help");
  EXPECT_EQ(h.exit_code, 0);
  for (const char* flag : {"--data", "--layout", "--task", "--base", "--enc-feats", "--msk-layers", "--segment",
                           "--batch-size", "--epochs", "--clip", "--seed", "--threads", "--out", "--resume",
                           "--stop-after", "--separate", "--min-si-snri", "--no-progress"})
    EXPECT_NE(h.out.find(flag), std::string::npos) << flag;
}

}  // namespace separate_app_test
