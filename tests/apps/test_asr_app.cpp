// ember-asr (issue 24): the seeded short run on the default spoken-digits
// corpus reaching the CER bar of docs/audio.md on held-out speakers, resume
// equal to an uninterrupted run, --transcribe from a checkpoint alone (FLAC
// and a resampled stereo WAV), the pieces (vocabulary, features, frame
// counts, batching, lexicon) and the program's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <ember/audio/functional/resample.h>
#include <ember/audio/metrics/error_rate.h>
#include <ember/audio/transforms/spectral.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/models/wav2letter.h>
#include <ember/ops/factories.h>
#include <ember/serialize/safetensors.h>

#include "apps_test_util.h"
#include "asr/asr_checkpoint.h"
#include "asr/asr_corpus.h"
#include "asr/asr_trainer.h"
#include "asr/char_vocabulary.h"
#include "asr/transcribe.h"
#include "common/speech_corpus.h"
#include "speech_corpus_test.h"

using namespace ember::apps::testing;
namespace app = ember::apps::asr_app;
namespace fs = std::filesystem;

namespace asr_app_test {

const std::string kAsr = EMBER_ASR_BIN;

// The CER bar of docs/audio.md ("The ember-asr pipeline") for the default run
// (seed 0, 8 epochs), which the short run below is. Two runs (seeds 0 and 1)
// on the loaded 2-core VM measured 1.9% and 1.3% greedy CER on test-clean's
// unheard speakers (dev-clean 7.2% and 5.5%). Without --deterministic the
// thread counts follow the machine's load and change the last bits, which
// with the earlier 5-epoch schedule spread one seed over 10-45% (Note [ASR
// schedule] in asr_trainer.cpp); 15% leaves room for that kind of spread.
constexpr double kGreedyCerBar = 0.15;

void expect_one_error_line(const RunResult& r, int code, const std::string& what) {
  EXPECT_EQ(r.exit_code, code) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("ember-asr: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("ember-asr: ember-asr:"), std::string::npos) << r.err;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ember::Error";
  return "";
}

// The default run (seed 0) of the CER bar: the same flags as `ember-asr` without --data.
struct ShortRun {
  app::AsrConfig config;
  app::AsrResult result;
};
const ShortRun& short_run() {
  static const ShortRun run = [] {
    ShortRun r;
    r.config.data = ember::apps::default_speech_corpus();
    r.config.out = fresh_dir("asr_short_run");
    r.config.progress = false;
    r.config.seed = 0;
    // One thread, deterministic: the run measured in docs/audio.md, bit for bit
    // on a machine of the same instruction set, and it leaves ctest's other
    // core to the other tests (two threads here plus theirs oversubscribed
    // both cores and doubled the suite's wall time).
    r.config.threads = 1;
    r.config.deterministic = true;
    r.result = app::train_asr(r.config);
    return r;
  }();
  return run;
}

void expect_the_bar(const ShortRun& asr) {
  const app::AsrResult& r = asr.result;
  ASSERT_TRUE(r.evaluated);
  EXPECT_EQ(r.epochs_done, asr.config.epochs);
  EXPECT_EQ(r.eval_utterances, 60);  // 3 test speakers x 20
  EXPECT_LE(r.greedy.cer, kGreedyCerBar);
  EXPECT_LE(r.beam.cer, kGreedyCerBar);
  EXPECT_LE(r.greedy.wer, 1.0);
  const std::string metrics = slurp(fs::path(asr.config.out) / "metrics.json");
  for (const char* key : {"\"train_loss\"", "\"dev_loss\"", "\"dev_cer_greedy\"", "\"dev_wer_greedy\"",
                          "\"dev_cer_beam\"", "\"dev_wer_beam\"", "\"eval\": {\"subset\": \"test-clean\"",
                          "\"input_type\": \"mfcc\"", "\"hop_length\": 320"})
    EXPECT_NE(metrics.find(key), std::string::npos) << key << "\n" << metrics;
  const app::AsrCheckpoint ckpt = app::load_asr_checkpoint(r.checkpoint);
  ASSERT_EQ(static_cast<int64_t>(ckpt.state.history.size()), asr.config.epochs);
  EXPECT_LT(ckpt.state.history.back().train_loss, ckpt.state.history.front().train_loss);
  EXPECT_LT(ckpt.state.history.back().dev_cer_greedy, 0.5);
  EXPECT_TRUE(fs::exists(fs::path(asr.config.out) / "best.safetensors"));
}

// --transcribe from the checkpoint alone: test-clean FLACs, and one of them
// as a 24 kHz stereo WAV (read by Ember::io, averaged to mono, resampled).
void expect_transcripts(const ShortRun& asr) {
  const fs::path test_dir = fs::path(asr.config.data) / "LibriSpeech" / "test-clean" / "3002" / "10";
  std::vector<std::string> files, references;
  {
    std::ifstream trans(test_dir / "3002-10.trans.txt");
    std::string line;
    for (int i = 0; i < 4 && std::getline(trans, line); ++i) {
      const std::string id = line.substr(0, line.find(' '));
      files.push_back((test_dir / (id + ".flac")).string());
      references.push_back(line.substr(line.find(' ') + 1));
    }
  }
  ASSERT_EQ(files.size(), 4u);
  const std::string out = fresh_dir("asr_transcribe");
  {
    auto [w, rate] = ember::audio::load(files[0]);
    const ember::Tensor high = ember::audio::functional::resample(w, rate, 24000);
    ember::audio::save(out + "/stereo24k.wav", ember::cat({high, high * 0.5}, 0), 24000);
  }
  files.push_back(out + "/stereo24k.wav");
  references.push_back(references[0]);
  const std::vector<std::string> texts = app::transcribe_files(asr.result.checkpoint, files);
  ASSERT_EQ(texts.size(), files.size());
  const double cer = ember::audio::metrics::char_error_rate(references, texts).rate;
  EXPECT_LE(cer, 2 * kGreedyCerBar) << texts[0] << " | " << texts[1];
  EXPECT_LE(ember::audio::metrics::char_error_rate(texts[0], texts[4]).rate, 0.2) << texts[0] << " | " << texts[4];
  // Greedy (beam 1) through the program, one "FILE<tab>TRANSCRIPT" line per file.
  const RunResult p = run(kAsr + " --transcribe " + asr.result.checkpoint + " --beam 1 " + files[1] + " " + files[4]);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.rfind(files[1] + "\t", 0), 0u) << p.out;
  EXPECT_NE(p.out.find("\n" + files[4] + "\t"), std::string::npos) << p.out;
  EXPECT_EQ(std::count(p.out.begin(), p.out.end(), '\n'), 2) << p.out;
}

// The beam search restricted to the ten digit words spells only them.
void expect_lexicon_words(const ShortRun& asr) {
  const std::string lexicon = fresh_dir("asr_lexicon") + "/digits.txt";
  {
    std::ofstream f(lexicon);
    f << "# the digit words\nzero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n";
  }
  const fs::path dir = fs::path(asr.config.data) / "LibriSpeech" / "test-clean" / "3001" / "10";
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) files.push_back((dir / ("3001-10-000" + std::to_string(i) + ".flac")).string());
  const std::vector<std::string> texts =
      app::transcribe_files(asr.result.checkpoint, files, {.beam = 10, .lexicon = lexicon});
  const std::set<std::string> digits = {"ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
  for (const std::string& t : texts)
    for (const std::string& w : ember::audio::metrics::split_words(t)) EXPECT_TRUE(digits.count(w)) << t;
}

// Resuming the complete run only evaluates, here with the digit lexicon, and
// --max-cer turns a CER above it into exit status 1 after the report.
void expect_evaluation_only(const ShortRun& asr) {
  const std::string out = fresh_dir("asr_evaluate_only");
  {
    std::ofstream f(out + "/digits.txt");
    f << "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n";
  }
  const RunResult r = run(kAsr + " --data " + asr.config.data + " --resume " + asr.result.checkpoint + " --lexicon " +
                          out + "/digits.txt --max-cer 0.0001 --no-progress --out " + out + "/eval");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("beam 10 + lexicon CER"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("done: 8/8 epochs"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("epoch 1/8"), std::string::npos) << r.out;  // nothing trained
  EXPECT_NE(r.err.find("is above --max-cer 0.0001"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(out) / "eval" / "last.safetensors"));
  const std::string metrics = slurp(fs::path(out) / "eval" / "metrics.json");
  EXPECT_NE(metrics.find("\"lexicon\": \"" + out + "/digits.txt\""), std::string::npos) << metrics;
}

// One test, so that ctest (a process per test) trains the default run once.
SPEECH_CORPUS_TEST(AsrApp, DefaultRunReachesTheBarAndItsCheckpointTranscribes) {
  const ShortRun& asr = short_run();
  {
    SCOPED_TRACE("the CER bar on held-out speakers");
    expect_the_bar(asr);
  }
  {
    SCOPED_TRACE("--transcribe from the checkpoint");
    expect_transcripts(asr);
  }
  {
    SCOPED_TRACE("the lexicon constrains the beam search");
    expect_lexicon_words(asr);
  }
  {
    SCOPED_TRACE("resuming the complete run only evaluates");
    expect_evaluation_only(asr);
  }
}

app::AsrConfig tiny_config(const std::string& out) {
  app::AsrConfig c;
  c.data = ember::apps::default_speech_corpus();
  c.out = out;
  c.progress = false;
  c.train_limit = 8;
  c.batch_size = 4;
  c.epochs = 2;
  c.dev_subset = "dev-clean";
  c.threads = 1;  // one thread: bitwise runs that keep their speed when CI shares the cores
  c.deterministic = true;
  c.seed = 5;
  return c;
}

// Bitwise: every tensor of the final checkpoints (weights, Adam's state,
// the generator that draws the SpecAugment masks) and each epoch's metrics.
SPEECH_CORPUS_TEST(AsrApp, ResumedRunEqualsAnUninterruptedRun) {
  const app::AsrConfig whole = tiny_config(fresh_dir("asr_resume_whole"));
  const app::AsrResult a = app::train_asr(whole);
  app::AsrConfig first = whole;
  first.out = fresh_dir("asr_resume_parts");
  first.stop_after = 1;
  const app::AsrResult part = app::train_asr(first);
  EXPECT_EQ(part.epochs_done, 1);
  EXPECT_FALSE(part.evaluated);
  app::AsrConfig rest = whole;
  rest.out = first.out;
  rest.resume = (fs::path(first.out) / "last.safetensors").string();
  const app::AsrResult b = app::train_asr(rest);
  EXPECT_EQ(b.epochs_done, 2);
  EXPECT_EQ(a.greedy.cer, b.greedy.cer);
  EXPECT_EQ(a.beam.wer, b.beam.wer);
  const app::AsrCheckpoint x = app::load_asr_checkpoint(a.checkpoint), y = app::load_asr_checkpoint(b.checkpoint);
  ASSERT_EQ(x.tensors.size(), y.tensors.size());
  for (const auto& [key, t] : x.tensors) {
    const ember::Tensor* u = y.tensors.find(key);
    ASSERT_NE(u, nullptr) << key;
    EXPECT_TRUE(t.equal(*u)) << key;
  }
  ASSERT_EQ(x.state.history.size(), 2u);
  ASSERT_EQ(y.state.history.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(x.state.history[i].train_loss, y.state.history[i].train_loss) << i;
    EXPECT_EQ(x.state.history[i].dev_cer_greedy, y.state.history[i].dev_cer_greedy) << i;
    EXPECT_EQ(x.state.history[i].dev_wer_beam, y.state.history[i].dev_wer_beam) << i;
    EXPECT_EQ(x.state.history[i].lr, y.state.history[i].lr) << i;
  }
  // The resumed run's metrics.json lists both epochs.
  const std::string metrics = slurp(fs::path(rest.out) / "metrics.json");
  EXPECT_NE(metrics.find("{\"epoch\": 1,"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("{\"epoch\": 2,"), std::string::npos) << metrics;

  // Other flags than the checkpoint's: one clear error.
  app::AsrConfig other = rest;
  other.batch_size = 2;
  const std::string e = error_of([&] { app::train_asr(other); });
  EXPECT_NE(e.find("resume with the same flags"), std::string::npos) << e;
}

TEST(AsrApp, VocabularyNormalisesEncodesAndRefusesOtherCharacters) {
  const app::CharVocabulary v;
  EXPECT_EQ(v.size(), 29);
  EXPECT_EQ(v.tokens()[0], "_");
  EXPECT_EQ(v.tokens()[1], " ");
  EXPECT_EQ(v.tokens()[2], "'");
  EXPECT_EQ(v.tokens()[3], "A");
  EXPECT_EQ(v.normalize("  it's   Three ONE ", "u"), "IT'S THREE ONE");
  EXPECT_EQ(v.encode("ab c", "u"), (std::vector<int64_t>{3, 4, 1, 5}));
  EXPECT_EQ(v.decode(v.encode("DON'T STOP", "u")), "DON'T STOP");
  const std::string e = error_of([&] { v.encode("THREE 4", "1001-10-0003"); });
  EXPECT_NE(e.find("1001-10-0003"), std::string::npos) << e;
  EXPECT_NE(e.find("'4'"), std::string::npos) << e;
  EXPECT_THROW(v.decode({0}), ember::Error);  // the blank is not a character
  EXPECT_THROW(app::CharVocabulary(std::vector<std::string>{"_", " "}), ember::Error);
}

TEST(AsrApp, LexiconFileIsReadAndCheckedAgainstTheVocabulary) {
  const app::CharVocabulary v;
  const std::string dir = fresh_dir("asr_lexicon_file");
  {
    std::ofstream f(dir + "/words.txt");
    f << "# comment\n\none o n e |\nTWO\nthree\n";
  }
  const auto lexicon = v.read_lexicon(dir + "/words.txt");
  EXPECT_EQ(lexicon.num_words(), 3);
  EXPECT_EQ(lexicon.word_delimiter(), app::CharVocabulary::kSpace);
  {
    std::ofstream f(dir + "/bad.txt");
    f << "one\nn0pe\n";
  }
  const std::string e = error_of([&] { v.read_lexicon(dir + "/bad.txt"); });
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { v.read_lexicon(dir + "/missing.txt"); }).find("cannot read the lexicon"), std::string::npos);
}

// The features are torchaudio's MFCC (log mels) normalised per coefficient,
// and Wav2Letter's output length is what the CTC lengths assume.
TEST(AsrApp, FeaturesAndOutputFrames) {
  ember::manual_seed(3);
  const ember::Tensor w = ember::randn({1, 16000}) * 0.1;
  const app::FeatureExtractor mfcc({.input_type = "mfcc", .n_fft = 400, .hop_length = 320, .n_mfcc = 40});
  const ember::Tensor f = mfcc(w);
  ASSERT_EQ(f.sizes(), (std::vector<int64_t>{40, 16000 / 320 + 1}));
  EXPECT_LT(f.mean({1}).abs().max().item<double>(), 1e-5);
  EXPECT_NEAR(f.std({1}, 0).mean().item<double>(), 1.0, 1e-3);
  // The same as normalising torchaudio's transform by hand.
  ember::audio::transforms::MFCC reference(ember::audio::transforms::MFCCOptions{
      .sample_rate = 16000, .n_mfcc = 40, .log_mels = true, .melkwargs = {.n_fft = 400, .hop_length = 320, .n_mels = 40}});
  const ember::Tensor r = reference(w.reshape({-1}));
  const ember::Tensor expected = (r - r.mean({1}, true)) / (r.std({1}, 0, true) + 1e-5);
  EXPECT_TRUE(f.allclose(expected, 1e-5, 1e-5));
  const app::FeatureExtractor spectrum({.input_type = "power_spectrum", .n_fft = 256, .hop_length = 160});
  EXPECT_EQ(spectrum(w).size(0), 129);
  EXPECT_EQ(spectrum.spec().num_features(), 129);
  EXPECT_THROW(mfcc(ember::randn({1, 100})), ember::Error);  // shorter than a hop
  EXPECT_THROW(app::FeatureExtractor({.input_type = "waveform"}), ember::Error);

  ember::models::Wav2Letter model(29, "mfcc", 40);
  for (int64_t frames : {2, 3, 50, 51, 117}) {
    const ember::Tensor out = model(ember::randn({1, 40, frames}));
    EXPECT_EQ(out.size(2), app::wav2letter_output_frames(frames)) << frames;
  }
}

TEST(AsrApp, EpochBatchesCoverEveryUtteranceAndRepeatPerSeedAndEpoch) {
  app::SpeechSplit split;
  for (int i = 0; i < 37; ++i) {
    app::Utterance u;
    u.id = std::to_string(i);
    u.frames = 10 + (i * 7) % 23;
    split.utterances.push_back(u);
  }
  const auto a = app::epoch_batches(split, 4, 1, 0), b = app::epoch_batches(split, 4, 1, 0);
  const auto c = app::epoch_batches(split, 4, 1, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::multiset<int64_t> seen;
  for (const auto& batch : a) {
    EXPECT_LE(batch.size(), 4u);
    seen.insert(batch.begin(), batch.end());
  }
  EXPECT_EQ(seen.size(), 37u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 37u);
}

TEST(AsrApp, CheckpointOfAnotherAppIsRefused) {
  const std::string dir = fresh_dir("asr_wrong_checkpoint");
  ember::Metadata meta;
  meta["ember.checkpoint"] = "ember-text/1";
  ember::StateDict tensors;
  tensors.insert("w", ember::zeros({2}));
  ember::save(dir + "/text.safetensors", tensors, meta);
  const std::string e = error_of([&] { app::load_asr_checkpoint(dir + "/text.safetensors"); });
  EXPECT_NE(e.find("is not an ember-asr checkpoint"), std::string::npos) << e;
  EXPECT_NE(e.find("ember-text/1"), std::string::npos) << e;
  const RunResult r = run(kAsr + " --transcribe " + dir + "/text.safetensors " + dir + "/x.wav");
  expect_one_error_line(r, 1, "is not an ember-asr checkpoint");
  const RunResult resume = run(kAsr + " --data " + dir + " --resume " + dir + "/text.safetensors --out " + dir);
  expect_one_error_line(resume, 1, "is not an ember-asr checkpoint");
}

TEST(AsrApp, MissingCorpusNamesTheExpectedLayout) {
  const std::string empty = fresh_dir("asr_no_corpus");
  const RunResult r = run(kAsr + " --data " + empty + " --no-progress --out " + empty + "/out");
  expect_one_error_line(r, 1, empty + "/LibriSpeech/train-clean-100");
  EXPECT_NE(r.err.find("<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".trans.txt"), std::string::npos) << r.err;
  // No --data and no rendered corpus: how to make one.
  const RunResult d = run("EMBER_SPEECH_CORPUS=" + empty + "/nothing " + kAsr + " --no-progress --out " + empty + "/o");
  expect_one_error_line(d, 1, "scripts/make_speech.sh");
}

TEST(AsrApp, BadFlagsAreOneErrorLine) {
  expect_one_error_line(run(kAsr + " --epochs two"), 2, "--epochs");
  expect_one_error_line(run(kAsr + " --no-such-flag"), 2, "--no-such-flag");
  expect_one_error_line(run(kAsr + " --input-type waveform"), 2, "unknown --input-type 'waveform'");
  expect_one_error_line(run(kAsr + " stray.flac"), 2, "unexpected argument 'stray.flac'");
  expect_one_error_line(run(kAsr + " --transcribe x.safetensors"), 2, "--transcribe needs");
  const std::string dir = fresh_dir("asr_bad_flags");
  expect_one_error_line(run(kAsr + " --data " + dir + " --epochs 0 --out " + dir), 1, "--epochs must be positive");
  expect_one_error_line(run(kAsr + " --data " + dir + " --init xavier --out " + dir), 1, "unknown --init 'xavier'");
  expect_one_error_line(run(kAsr + " --data " + dir + " --beam 0 --out " + dir), 1, "--beam must be positive");
  const RunResult help = run(kAsr + " --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--data", "--train-subset", "--eval-subset", "--beam", "--lexicon", "--transcribe",
                           "--resume", "--out", "--seed", "--threads", "--epochs", "--input-type"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
}

// Each checkpoint holds Wav2Letter and Adam's state (about 280 MB): the
// process's temporary folder goes when the tests end.
class RemoveTemporaryFiles : public ::testing::Environment {
 public:
  void TearDown() override { fs::remove_all(temp_root()); }
};
const auto* const kRemoveTemporaryFiles = ::testing::AddGlobalTestEnvironment(new RemoveTemporaryFiles);

}  // namespace asr_app_test
