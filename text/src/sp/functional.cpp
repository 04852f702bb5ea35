// torchtext.data.functional's SentencePiece helpers.
#include <ember/core/error.h>
#include <ember/text/sentencepiece.h>

namespace ember::text {

std::shared_ptr<const SentencePieceProcessor> load_sp_model(const std::string& path) {
  return std::make_shared<const SentencePieceProcessor>(SentencePieceProcessor::from_file(path));
}

std::function<std::vector<std::vector<std::string>>(const std::vector<std::string>&)> sentencepiece_tokenizer(
    std::shared_ptr<const SentencePieceProcessor> sp_model) {
  EMBER_CHECK(sp_model != nullptr, "sentencepiece_tokenizer: sp_model is null");
  return [sp = std::move(sp_model)](const std::vector<std::string>& lines) {
    std::vector<std::vector<std::string>> out;
    out.reserve(lines.size());
    for (const std::string& line : lines) out.push_back(sp->encode_as_pieces(line));
    return out;
  };
}

std::function<std::vector<std::vector<int>>(const std::vector<std::string>&)> sentencepiece_numericalizer(
    std::shared_ptr<const SentencePieceProcessor> sp_model) {
  EMBER_CHECK(sp_model != nullptr, "sentencepiece_numericalizer: sp_model is null");
  return [sp = std::move(sp_model)](const std::vector<std::string>& lines) {
    std::vector<std::vector<int>> out;
    out.reserve(lines.size());
    for (const std::string& line : lines) out.push_back(sp->encode_as_ids(line));
    return out;
  };
}

void generate_sp_model(const std::string& filename, int64_t vocab_size, const std::string& model_type,
                       const std::string& model_prefix) {
  SentencePieceTrainOptions options;
  options.vocab_size = vocab_size;
  options.model_type = model_type;
  options.model_prefix = model_prefix;
  train_sentencepiece({filename}, options);
}

}  // namespace ember::text
