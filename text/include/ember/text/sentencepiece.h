#pragma once
// SentencePiece through Debian's libsentencepiece 0.1.97: training, the
// processor (encode / decode / sampling / n-best, vocabulary queries, batched
// encoding on Ember's threads) and torchtext's functional helpers
// (generate_sp_model, load_sp_model, sentencepiece_tokenizer,
// sentencepiece_numericalizer). Every failure of the library (bad options, a
// corrupt model, a bad id) becomes an ember::Error carrying its message; text
// must be valid UTF-8 (check_utf8).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace ember::text {

// The trainer's options (spm_train's flags; the defaults are the library's).
// `extra` passes any other TrainerSpec / NormalizerSpec flag by name
// ("max_sentencepiece_length" -> "8"); it must not repeat a named field.
struct SentencePieceTrainOptions {
  // Where to write <model_prefix>.model and <model_prefix>.vocab; empty writes
  // nothing (train_sentencepiece still returns the model's bytes).
  std::string model_prefix;
  int64_t vocab_size = 8000;
  std::string model_type = "unigram";  // unigram | bpe | char | word
  double character_coverage = 0.9995;
  std::vector<std::string> user_defined_symbols;
  std::vector<std::string> control_symbols;
  // Sentences sampled for training when the input has more (0: all of them).
  // The library's sampler has a fixed seed of its own: training is
  // deterministic, and SetRandomGeneratorSeed does not change the sample
  // (python3-sentencepiece 0.1.97 gives the same model unseeded and with any
  // seed).
  int64_t input_sentence_size = 0;
  bool shuffle_input_sentence = true;
  int64_t max_sentence_length = 4192;
  bool byte_fallback = false;
  bool split_digits = false;
  bool hard_vocab_limit = true;
  std::string normalization_rule_name = "nmt_nfkc";
  // Threads of the unigram trainer's EM steps. The scores depend on it in
  // their last bits (the expected counts are summed in another order), so a
  // byte-identical model needs the same count.
  int num_threads = 16;
  std::map<std::string, std::string> extra;
};

// Trains a model on the lines of `input_files` (read by the library) and
// returns the serialized model; writes <model_prefix>.model / .vocab when the
// prefix is set. ember::Error with the library's message on failure.
std::string train_sentencepiece(const std::vector<std::string>& input_files,
                                const SentencePieceTrainOptions& options);
// The same from sentences in memory (one sentence per element; each must be
// valid UTF-8). The model's trainer_spec then names no input file, so models
// trained this way are byte-identical to Python's
// SentencePieceTrainer.train(sentence_iterator=..., model_writer=...) with the
// same options.
std::string train_sentencepiece_from_sentences(const std::vector<std::string>& sentences,
                                               const SentencePieceTrainOptions& options);
// The same from a generator: next(sentence) fills the next sentence and returns
// true, or returns false at the end.
std::string train_sentencepiece_from_iterator(const std::function<bool(std::string&)>& next,
                                              const SentencePieceTrainOptions& options);

// torchtext.data.functional.generate_sp_model: trains on the file `filename`
// and writes <model_prefix>.model / .vocab (torchtext's defaults).
void generate_sp_model(const std::string& filename, int64_t vocab_size = 20000,
                       const std::string& model_type = "unigram",
                       const std::string& model_prefix = "m_user");

// A loaded SentencePiece model. Encoding and decoding are const and safe to
// call from several threads at once (the library's processor is immutable
// after loading).
class SentencePieceProcessor {
 public:
  static SentencePieceProcessor from_file(const std::string& path);
  static SentencePieceProcessor from_bytes(std::string_view serialized_model);

  SentencePieceProcessor(SentencePieceProcessor&&) noexcept;
  SentencePieceProcessor& operator=(SentencePieceProcessor&&) noexcept;
  ~SentencePieceProcessor();

  std::vector<int> encode_as_ids(std::string_view text) const;
  std::vector<std::string> encode_as_pieces(std::string_view text) const;
  std::string decode_ids(const std::vector<int>& ids) const;
  std::string decode_pieces(const std::vector<std::string>& pieces) const;

  // Subword regularization (SampleEncode): nbest_size -1 samples from all
  // segmentations (unigram), > 1 from the n best; alpha is the smoothing
  // (for BPE: the dropout probability). See Note [Sampling determinism] in
  // text/src/sp/processor.cpp for what repeats.
  std::vector<int> sample_encode_as_ids(std::string_view text, int nbest_size, float alpha) const;
  std::vector<std::string> sample_encode_as_pieces(std::string_view text, int nbest_size, float alpha) const;
  // The nbest_size best segmentations, best first (unigram models only).
  std::vector<std::vector<int>> nbest_encode_as_ids(std::string_view text, int nbest_size) const;
  std::vector<std::vector<std::string>> nbest_encode_as_pieces(std::string_view text, int nbest_size) const;

  // Every text encoded to ids, on Ember's threads (parallel_for over the
  // texts); identical to encode_as_ids on each in turn.
  std::vector<std::vector<int>> encode_batch_as_ids(const std::vector<std::string>& texts) const;
  std::vector<std::vector<std::string>> encode_batch_as_pieces(const std::vector<std::string>& texts) const;

  int64_t get_piece_size() const;
  // The id of `piece`, or unk_id() when the model lacks it (the library's rule).
  int piece_to_id(std::string_view piece) const;
  // ember::Error when id is outside [0, get_piece_size()).
  std::string id_to_piece(int id) const;
  float get_score(int id) const;
  bool is_unknown(int id) const;
  bool is_control(int id) const;
  bool is_unused(int id) const;
  bool is_byte(int id) const;
  // The special ids; -1 when the model disables one.
  int unk_id() const;
  int bos_id() const;
  int eos_id() const;
  int pad_id() const;

  // The model's bytes (what from_bytes loads).
  std::string serialized_model() const;

 private:
  SentencePieceProcessor();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

// Sets the library's sampling seed (sentencepiece::SetRandomGeneratorSeed);
// see Note [Sampling determinism].
void set_sentencepiece_random_seed(unsigned seed);

// torchtext.data.functional.load_sp_model.
std::shared_ptr<const SentencePieceProcessor> load_sp_model(const std::string& path);

// torchtext.data.functional.sentencepiece_tokenizer / _numericalizer: callables
// mapping lines to their pieces / ids (torchtext yields them lazily; here the
// whole list at once).
std::function<std::vector<std::vector<std::string>>(const std::vector<std::string>&)> sentencepiece_tokenizer(
    std::shared_ptr<const SentencePieceProcessor> sp_model);
std::function<std::vector<std::vector<int>>(const std::vector<std::string>&)> sentencepiece_numericalizer(
    std::shared_ptr<const SentencePieceProcessor> sp_model);

}  // namespace ember::text
