// Bad speech corpora: missing layouts (the error names what was expected),
// audio files listed but missing, malformed transcript/tsv/csv lines (the
// error names the file and line), mismatched sample rates and shapes, bad
// options. Each is an ember::Error, never a crash.
#include <filesystem>

#include <ember/datasets/speech.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>

#include "speech_test_util.h"

namespace ember::datasets {
namespace speech_bad_input_test {

using ember::testing::copy_tree;
using ember::testing::speech_dir;
using ember::testing::TempDir;
using ember::testing::write_bytes;
namespace fs = std::filesystem;

// A copy of one committed corpus to break.
struct Corpus {
  TempDir dir{"ember_speech"};
  std::string root;
  explicit Corpus(const std::string& name) : root(dir.path().string() + "/" + name) {
    copy_tree(speech_dir() + "/" + name, root);
  }
};

void write_tone(const std::string& path, int64_t rate, int64_t frames) {
  fs::create_directories(fs::path(path).parent_path());
  audio::save(path, full({1, frames}, 0.25, kFloat32), rate);
}

TEST(SpeechBadInput, MissingRootsNameTheExpectedLayout) {
  TempDir empty("ember_speech_empty");
  const std::string r = empty.path().string();
  EXPECT_EMBER_ERROR(LIBRISPEECH(r, {.url = "dev-clean"}), "LIBRISPEECH: dataset not found",
                     "LibriSpeech/dev-clean/<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac",
                     "<speaker>-<chapter>.trans.txt");
  EXPECT_EMBER_ERROR(LIBRITTS(r), "LIBRITTS: dataset not found", "LibriTTS/train-clean-100/<speaker>/<chapter>",
                     ".normalized.txt");
  EXPECT_EMBER_ERROR(COMMONVOICE(r), "COMMONVOICE: dataset not found", "train.tsv", "clips");
  EXPECT_EMBER_ERROR(YESNO(r), "YESNO: dataset not found", "waves_yesno/<0|1>_");
  EXPECT_EMBER_ERROR(SPEECHCOMMANDS(r), "SPEECHCOMMANDS: dataset not found",
                     "SpeechCommands/speech_commands_v0.02/<label>/<speaker>_nohash_<n>.wav");
  EXPECT_EMBER_ERROR(LJSPEECH(r), "LJSPEECH: dataset not found", "LJSpeech-1.1/metadata.csv",
                     "LJSpeech-1.1/wavs/<id>.wav");
  EXPECT_EMBER_ERROR(VCTK_092(r), "VCTK_092: dataset not found", "VCTK-Corpus-0.92/txt/<speaker>",
                     "wav48_silence_trimmed/<speaker>/<speaker>_<utterance>_mic2.flac");
  EXPECT_EMBER_ERROR(LibriMix(r), "LibriMix: dataset not found", "Libri2Mix/wav8k/min/train-360/mix_clean/<id>.wav",
                     "wav8k/min/train-360/s1");
  EXPECT_EMBER_ERROR(WSJ0Mix(r), "WSJ0Mix: no files found in", "mix/<id>.wav", "s1");
}

TEST(SpeechBadInput, InvalidOptionsRaise) {
  const std::string d = speech_dir();
  EXPECT_EMBER_ERROR(LIBRISPEECH(d + "/librispeech", {.url = "dev-cleaner"}), "invalid url \"dev-cleaner\"",
                     "train-clean-100");
  EXPECT_EMBER_ERROR(SPEECHCOMMANDS(d + "/speechcommands", {.subset = "train"}), "subset \"train\"");
  EXPECT_EMBER_ERROR(VCTK_092(d + "/vctk", {.mic_id = "mic3"}), "mic_id", "mic3");
  EXPECT_EMBER_ERROR(LibriMix(d + "/librimix", {.subset = "test", .task = "sep"}), "task \"sep\"");
  EXPECT_EMBER_ERROR(LibriMix(d + "/librimix", {.subset = "test", .mode = "mid"}), "mode", "mid");
  EXPECT_EMBER_ERROR(LibriMix(d + "/librimix", {.subset = "test", .sample_rate = 22050}), "8000 or 16000",
                     "22050");
  LIBRISPEECH ls(d + "/librispeech", {.url = "dev-clean"});
  EXPECT_EMBER_ERROR(ls.get(ls.size()), "LIBRISPEECH: index 4 is out of range");
  EXPECT_EMBER_ERROR(ls.metadata(-1), "index -1 is out of range");
}

TEST(SpeechBadInput, MalformedTranscriptLinesNameFileAndLine) {
  Corpus c("librispeech");
  const std::string txt = c.root + "/LibriSpeech/dev-clean/19/198/19-198.trans.txt";
  write_bytes(txt, "19-198-0000 NORTHANGER ABBEY\nNOSPACEHERE\n19-198-0001 LATER\n");
  LIBRISPEECH ds(c.root, {.url = "dev-clean"});
  // Lines before the id's own are parsed, as torchaudio: sample 0 is fine...
  EXPECT_EQ(ds.get(0).transcript, "NORTHANGER ABBEY");
  // ...sample 1 reads past the malformed line 2.
  EXPECT_EMBER_ERROR(ds.get(1), "LIBRISPEECH", "19-198.trans.txt line 2", "NOSPACEHERE");
  write_bytes(txt, "19-198-0000 NORTHANGER ABBEY\n");
  EXPECT_EMBER_ERROR(ds.metadata(1), "transcript not found for 19-198-0001", "19-198.trans.txt");
  fs::remove(txt);
  EXPECT_EMBER_ERROR(ds.get(0), "transcript file", "19-198.trans.txt", "is missing");
}

TEST(SpeechBadInput, WrongRatesAndBadIdsInLibriSpeech) {
  Corpus c("librispeech");
  const std::string dir = c.root + "/LibriSpeech/dev-clean/84/0121/";
  write_tone(dir + "84-0121-0000.flac", 8000, 100);
  LIBRISPEECH ds(c.root, {.url = "dev-clean"});
  EXPECT_EMBER_ERROR(ds.get(2), "LIBRISPEECH", "84-0121-0000.flac has sample rate 8000, expected 16000");
  write_tone(dir + "84-0121-x1.flac", 16000, 100);
  write_bytes(dir + "84-0121.trans.txt", "84-0121-x1 ODD\n");
  LIBRISPEECH odd(c.root, {.url = "dev-clean"});
  EXPECT_EMBER_ERROR(odd.metadata(odd.size() - 1), "utterance id \"x1\" is not an integer");
}

TEST(SpeechBadInput, MalformedTsvRowsNameFileAndLine) {
  Corpus c("commonvoice");
  const std::string tsv = c.root + "/dev.tsv";
  const std::string header = "client_id\tpath\tsentence\n";
  write_bytes(tsv, header + "a\tcommon_voice_en_1.mp3\tfine\nb\tcommon_voice_en_2.mp3\n");
  EXPECT_EMBER_ERROR(COMMONVOICE(c.root, {.tsv = "dev.tsv"}), "COMMONVOICE", "dev.tsv line 3",
                     "2 tab-separated fields, the header has 3");
  write_bytes(tsv, header + "a\tcommon_voice_en_1.mp3\t\"never closed\n");
  EXPECT_EMBER_ERROR(COMMONVOICE(c.root, {.tsv = "dev.tsv"}), "dev.tsv line 2", "quoted field is not closed");
  write_bytes(tsv, "client_id\tfile\tsentence\n");
  EXPECT_EMBER_ERROR(COMMONVOICE(c.root, {.tsv = "dev.tsv"}), "second column to be \"path\"", "\"file\"");
  write_bytes(tsv, "");
  EXPECT_EMBER_ERROR(COMMONVOICE(c.root, {.tsv = "dev.tsv"}), "dev.tsv is empty");
  // A quoted field may hold a newline: the record after it starts on line 4.
  write_bytes(tsv, header + "a\tcommon_voice_en_1.mp3\t\"two\nlines\"\nb\tgone.mp3\tx\n");
  COMMONVOICE ds(c.root, {.tsv = "dev.tsv"});
  ASSERT_EQ(ds.size(), 2);
  EXPECT_EQ(ds.metadata(0).at("sentence"), "two\nlines");
  EXPECT_EMBER_ERROR(ds.get(1), "COMMONVOICE: audio file", "clips/gone.mp3 is missing", "dev.tsv line 4");
}

TEST(SpeechBadInput, MalformedMetadataCsvAndMissingAudioInLJSpeech) {
  Corpus c("ljspeech");
  const std::string csv = c.root + "/LJSpeech-1.1/metadata.csv";
  write_bytes(csv, "LJ001-0001|a|a\nLJ001-0002|only two\n");
  EXPECT_EMBER_ERROR(LJSPEECH(c.root), "LJSPEECH", "metadata.csv line 2", "expected 3 '|'-separated fields",
                     "got 2");
  write_bytes(csv, "LJ001-0001|a|a\n\n");
  EXPECT_EMBER_ERROR(LJSPEECH(c.root), "metadata.csv line 2", "got 0");
  write_bytes(csv, "LJ001-0001|a|a\r\nLJ009-0009|b|b\r\n");
  LJSPEECH ds(c.root);
  ASSERT_EQ(ds.size(), 2);
  EXPECT_EQ(ds.row(0).normalized_transcript, "a");
  EXPECT_EMBER_ERROR(ds.get(1), "LJSPEECH: audio file", "wavs/LJ009-0009.wav is missing", "metadata.csv line 2");
}

TEST(SpeechBadInput, ListedButMissingSpeechCommandsClips) {
  Corpus c("speechcommands");
  const std::string base = c.root + "/SpeechCommands/speech_commands_v0.02/";
  write_bytes(base + "testing_list.txt", "right/9a69672b_nohash_4.wav\n\nyes/ffffffff_nohash_0.wav\n");
  SPEECHCOMMANDS ds(c.root, {.subset = "testing"});
  ASSERT_EQ(ds.size(), 2);
  EXPECT_EMBER_ERROR(ds.get(1), "SPEECHCOMMANDS: audio file", "yes/ffffffff_nohash_0.wav is missing",
                     "testing_list.txt line 3");
  fs::remove(base + "validation_list.txt");
  EXPECT_EMBER_ERROR(SPEECHCOMMANDS(c.root, {.subset = "training"}), "validation_list.txt is missing");
  write_tone(base + "yes/aaaa_nohash_0.wav", 8000, 50);
  SPEECHCOMMANDS all(c.root);
  int64_t odd = -1;
  for (int64_t i = 0; i < all.size(); ++i)
    if (all.metadata(i).speaker_id == "aaaa") odd = i;
  ASSERT_GE(odd, 0);
  EXPECT_EMBER_ERROR(all.get(odd), "aaaa_nohash_0.wav has sample rate 8000, expected 16000");
}

TEST(SpeechBadInput, VCTKMissingAudioOutsideTheKnownGapsRaises) {
  Corpus c("vctk");
  const std::string base = c.root + "/VCTK-Corpus-0.92/";
  fs::remove(base + "wav48_silence_trimmed/p225/p225_002_mic2.flac");
  VCTK_092 ds(c.root);
  ASSERT_EQ(ds.size(), 3);  // p225 keeps its text-listed sample
  EXPECT_EMBER_ERROR(ds.get(1), "VCTK_092: audio file", "p225_002_mic2.flac is missing", "p225_002.txt");
  write_bytes(base + "txt/p225/p225_001.txt", "");
  EXPECT_EMBER_ERROR(ds.get(0), "p225_001.txt is empty");
  write_bytes(base + "txt/p226/p226_001_extra.txt", "x\n");
  EXPECT_EMBER_ERROR(VCTK_092(c.root, {.mic_id = "mic1"}), "p226_001_extra.txt", "not <speaker>_<utterance>.txt");
}

TEST(SpeechBadInput, MixturesWithMismatchedRatesOrShapes) {
  Corpus c("librimix");
  const std::string split = c.root + "/Libri2Mix/wav8k/min/test/";
  const std::string name = "1089-134686-0000_121-121726-0000.wav";
  const std::string s1 = split + "s1/" + name, s2 = split + "s2/" + name;
  const std::string s1_missing = s1 + " is missing";
  write_tone(s2, 16000, 480);
  LibriMix ds(c.root, {.subset = "test"});
  EXPECT_EMBER_ERROR(ds.get(0), "LibriMix", s2.c_str(), "has sample rate 16000, expected 8000");
  write_tone(s2, 8000, 479);
  EXPECT_EMBER_ERROR(ds.get(0), "LibriMix: different waveform shapes", "[1, 480]", "[1, 479]");
  fs::remove(s1);
  EXPECT_EMBER_ERROR(ds.get(0), "LibriMix: audio file", s1_missing.c_str(),
                     "source 1 of");

  Corpus w("wsj0mix");
  const std::string tt = w.root + "/2speakers/wav8k/min/tt";
  EXPECT_EMBER_ERROR(WSJ0Mix(tt, {.sample_rate = 16000}).get(0), "WSJ0Mix",
                     "has sample rate 8000, expected 16000");
  EXPECT_EMBER_ERROR(WSJ0Mix(tt, {.num_speakers = 3}).get(0), "WSJ0Mix: audio file", "s3/", "is missing");
}

}  // namespace speech_bad_input_test
}  // namespace ember::datasets
