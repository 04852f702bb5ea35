// ember::text::train_sentencepiece over sentencepiece::SentencePieceTrainer.
#include <sentencepiece_trainer.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <ember/core/error.h>
#include <ember/text/sentencepiece.h>
#include <ember/text/utf8.h>

#include "status.h"

namespace ember::text {

namespace {

// Python's csv.writer row (the library splits list flags as CSV, and
// python3-sentencepiece encodes lists this way): a field holding a comma, a
// quote or a line break is quoted, with its quotes doubled.
std::string csv_row(const std::vector<std::string>& fields) {
  std::string row;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    const std::string& f = fields[i];
    if (f.find_first_of(",\"\r\n") == std::string::npos) {
      row += f;
      continue;
    }
    row += '"';
    for (char c : f) {
      if (c == '"') row += '"';
      row += c;
    }
    row += '"';
  }
  return row;
}

std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Note [Only the options that differ]
// The model records its TrainerSpec, and a proto2 field that was set is
// serialized even when it equals its default. So only the options that differ
// from the library's defaults are passed: a model then comes out byte-identical
// to python3-sentencepiece's trained with just those options as keywords.
std::unordered_map<std::string, std::string> trainer_flags(const SentencePieceTrainOptions& o, const char* op) {
  EMBER_CHECK(o.vocab_size > 0, op, ": vocab_size must be positive, got ", o.vocab_size);
  EMBER_CHECK(o.model_type == "unigram" || o.model_type == "bpe" || o.model_type == "char" ||
                  o.model_type == "word",
              op, ": model_type must be unigram, bpe, char or word, got '", o.model_type, "'");
  EMBER_CHECK(o.character_coverage > 0.0 && o.character_coverage <= 1.0, op,
              ": character_coverage must be in (0, 1], got ", o.character_coverage);
  EMBER_CHECK(o.input_sentence_size >= 0, op, ": input_sentence_size must be >= 0, got ", o.input_sentence_size);
  EMBER_CHECK(o.max_sentence_length > 0, op, ": max_sentence_length must be positive, got ",
              o.max_sentence_length);
  EMBER_CHECK(o.num_threads > 0, op, ": num_threads must be positive, got ", o.num_threads);
  const SentencePieceTrainOptions d;
  std::unordered_map<std::string, std::string> f;
  if (o.vocab_size != d.vocab_size) f["vocab_size"] = std::to_string(o.vocab_size);
  if (o.model_type != d.model_type) f["model_type"] = o.model_type;
  if (o.character_coverage != d.character_coverage) f["character_coverage"] = shortest(o.character_coverage);
  if (!o.user_defined_symbols.empty()) f["user_defined_symbols"] = csv_row(o.user_defined_symbols);
  if (!o.control_symbols.empty()) f["control_symbols"] = csv_row(o.control_symbols);
  if (o.input_sentence_size != d.input_sentence_size)
    f["input_sentence_size"] = std::to_string(o.input_sentence_size);
  if (o.shuffle_input_sentence != d.shuffle_input_sentence)
    f["shuffle_input_sentence"] = o.shuffle_input_sentence ? "true" : "false";
  if (o.max_sentence_length != d.max_sentence_length)
    f["max_sentence_length"] = std::to_string(o.max_sentence_length);
  if (o.byte_fallback != d.byte_fallback) f["byte_fallback"] = o.byte_fallback ? "true" : "false";
  if (o.split_digits != d.split_digits) f["split_digits"] = o.split_digits ? "true" : "false";
  if (o.hard_vocab_limit != d.hard_vocab_limit) f["hard_vocab_limit"] = o.hard_vocab_limit ? "true" : "false";
  if (o.normalization_rule_name != d.normalization_rule_name)
    f["normalization_rule_name"] = o.normalization_rule_name;
  if (o.num_threads != d.num_threads) f["num_threads"] = std::to_string(o.num_threads);
  if (!o.model_prefix.empty()) f["model_prefix"] = o.model_prefix;
  for (const auto& [key, value] : o.extra) {
    EMBER_CHECK(!f.count(key) && key != "input" && key != "model_prefix", op, ": extra option '", key,
                "' repeats a named option (or the input); set the field instead");
    f[key] = value;
  }
  // The library's progress log goes to stderr unless asked otherwise; it is
  // not part of the model.
  if (!f.count("minloglevel")) f["minloglevel"] = "1";
  return f;
}

class CallbackIterator final : public sentencepiece::SentenceIterator {
 public:
  CallbackIterator(const std::function<bool(std::string&)>& next, const char* op) : next_(next), op_(op) {
    Next();
  }
  bool done() const override { return done_; }
  void Next() override {
    if (done_) return;
    try {
      done_ = !next_(value_);
      if (!done_ && !is_valid_utf8(value_)) {
        error_ = std::string(op_) + ": sentence " + std::to_string(index_) + " is not valid UTF-8 (at byte " +
                 std::to_string(*find_invalid_utf8(value_)) + ")";
        done_ = true;
      }
    } catch (const std::exception& e) {
      error_ = std::string(op_) + ": the sentence iterator raised: " + e.what();
      done_ = true;
    }
    ++index_;
  }
  const std::string& value() const override { return value_; }
  sentencepiece::util::Status status() const override {
    if (error_.empty()) return sentencepiece::util::Status();
    return sentencepiece::util::Status(sentencepiece::util::StatusCode::kInvalidArgument, error_);
  }

 private:
  const std::function<bool(std::string&)>& next_;
  const char* op_;
  std::string value_, error_;
  bool done_ = false;
  int64_t index_ = 0;
};

std::string read_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.good(), op, ": cannot read the trained model back from ", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string run_trainer(std::unordered_map<std::string, std::string> flags, const SentencePieceTrainOptions& o,
                        sentencepiece::SentenceIterator* it, const char* op) {
  std::string model;
  // With a prefix the library writes the files; without, it returns the bytes.
  const auto status =
      sentencepiece::SentencePieceTrainer::Train(flags, it, o.model_prefix.empty() ? &model : nullptr);
  sp_detail::check_status(status, op);
  if (!o.model_prefix.empty()) model = read_file(o.model_prefix + ".model", op);
  return model;
}

}  // namespace

std::string train_sentencepiece(const std::vector<std::string>& input_files,
                                const SentencePieceTrainOptions& options) {
  const char* op = "train_sentencepiece";
  EMBER_CHECK(!input_files.empty(), op, ": no input files");
  for (const std::string& path : input_files) {
    EMBER_CHECK(std::filesystem::is_regular_file(path), op, ": input file ", path, " does not exist");
    EMBER_CHECK(path.find_first_of(",\"") == std::string::npos, op, ": input file name ", path,
                " holds a comma or a quote, which the library's list flag cannot carry");
  }
  auto flags = trainer_flags(options, op);
  flags["input"] = csv_row(input_files);
  return run_trainer(std::move(flags), options, nullptr, op);
}

std::string train_sentencepiece_from_iterator(const std::function<bool(std::string&)>& next,
                                              const SentencePieceTrainOptions& options) {
  const char* op = "train_sentencepiece";
  EMBER_CHECK(next != nullptr, op, ": the sentence iterator is empty");
  auto flags = trainer_flags(options, op);
  CallbackIterator it(next, op);
  return run_trainer(std::move(flags), options, &it, op);
}

std::string train_sentencepiece_from_sentences(const std::vector<std::string>& sentences,
                                               const SentencePieceTrainOptions& options) {
  size_t i = 0;
  return train_sentencepiece_from_iterator(
      [&](std::string& s) {
        if (i == sentences.size()) return false;
        s = sentences[i++];
        return true;
      },
      options);
}

}  // namespace ember::text
