// ember::text::SentencePieceProcessor over sentencepiece::SentencePieceProcessor.
#include <sentencepiece_processor.h>

#include <fstream>
#include <sstream>

#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/text/sentencepiece.h>
#include <ember/text/utf8.h>

#include "model_check.h"
#include "status.h"

namespace ember::text {

using sp_detail::check_status;

// Note [Sampling determinism]
// libsentencepiece 0.1.97 samples (SampleEncode, BPE dropout) from a
// thread_local std::mt19937 that each thread seeds
// once, on its first draw, from the process-wide seed set by
// SetRandomGeneratorSeed (std::random_device when none is set). So after
// set_sentencepiece_random_seed(s), a thread that has not sampled yet draws the
// same sequence as python3-sentencepiece after
// spm.set_random_generator_seed(s) in a fresh process; a thread that already
// sampled keeps its generator, and samples drawn on Ember's worker threads
// depend on which thread ran which text. Sampling is therefore reproducible per
// fresh thread, not per call; encode_batch_* never samples.

SentencePieceProcessor::SentencePieceProcessor()
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SentencePieceProcessor::SentencePieceProcessor(SentencePieceProcessor&&) noexcept = default;
SentencePieceProcessor& SentencePieceProcessor::operator=(SentencePieceProcessor&&) noexcept = default;
SentencePieceProcessor::~SentencePieceProcessor() = default;

namespace {

// A corrupt model can also make the library throw while it builds its tries
// (darts-clone's "failed to insert key"), not only return a bad status.
template <class LoadFn>
void load_checked(const LoadFn& load, const std::string& what) {
  sentencepiece::util::Status status;
  try {
    status = load();
  } catch (const std::exception& e) {
    EMBER_CHECK(false, what, ": the model is corrupt (", e.what(), ")");
  }
  check_status(status, what.c_str());
}

}  // namespace

SentencePieceProcessor SentencePieceProcessor::from_file(const std::string& path) {
  const std::string what = "SentencePieceProcessor: cannot load " + path;
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.good(), what, ": cannot open the file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  EMBER_CHECK(!in.bad(), what, ": cannot read the file");
  const std::string model = bytes.str();
  EMBER_CHECK(!model.empty(), what, ": the file is empty");
  sp_detail::check_model_tables(model, what.c_str());
  SentencePieceProcessor p;
  load_checked([&] { return p.sp_->LoadFromSerializedProto(model); }, what);
  return p;
}

SentencePieceProcessor SentencePieceProcessor::from_bytes(std::string_view serialized_model) {
  EMBER_CHECK(!serialized_model.empty(), "SentencePieceProcessor::from_bytes: the model is empty (0 bytes)");
  const char* what = "SentencePieceProcessor::from_bytes: cannot load the model";
  sp_detail::check_model_tables(serialized_model, what);
  SentencePieceProcessor p;
  load_checked([&] { return p.sp_->LoadFromSerializedProto(serialized_model); }, what);
  return p;
}

std::vector<int> SentencePieceProcessor::encode_as_ids(std::string_view text) const {
  check_utf8(text, "SentencePieceProcessor::encode");
  std::vector<int> ids;
  check_status(sp_->Encode(text, &ids), "SentencePieceProcessor::encode");
  return ids;
}

std::vector<std::string> SentencePieceProcessor::encode_as_pieces(std::string_view text) const {
  check_utf8(text, "SentencePieceProcessor::encode");
  std::vector<std::string> pieces;
  check_status(sp_->Encode(text, &pieces), "SentencePieceProcessor::encode");
  return pieces;
}

std::string SentencePieceProcessor::decode_ids(const std::vector<int>& ids) const {
  const int n = sp_->GetPieceSize();
  for (size_t i = 0; i < ids.size(); ++i)
    EMBER_CHECK(ids[i] >= 0 && ids[i] < n, "SentencePieceProcessor::decode: id ", ids[i], " at position ", i,
                " is outside the vocabulary [0, ", n, ")");
  std::string text;
  check_status(sp_->Decode(ids, &text), "SentencePieceProcessor::decode");
  return text;
}

std::string SentencePieceProcessor::decode_pieces(const std::vector<std::string>& pieces) const {
  for (const std::string& p : pieces) check_utf8(p, "SentencePieceProcessor::decode");
  std::string text;
  check_status(sp_->Decode(pieces, &text), "SentencePieceProcessor::decode");
  return text;
}

std::vector<int> SentencePieceProcessor::sample_encode_as_ids(std::string_view text, int nbest_size,
                                                              float alpha) const {
  check_utf8(text, "SentencePieceProcessor::sample_encode");
  std::vector<int> ids;
  check_status(sp_->SampleEncode(text, nbest_size, alpha, &ids), "SentencePieceProcessor::sample_encode");
  return ids;
}

std::vector<std::string> SentencePieceProcessor::sample_encode_as_pieces(std::string_view text, int nbest_size,
                                                                         float alpha) const {
  check_utf8(text, "SentencePieceProcessor::sample_encode");
  std::vector<std::string> pieces;
  check_status(sp_->SampleEncode(text, nbest_size, alpha, &pieces), "SentencePieceProcessor::sample_encode");
  return pieces;
}

std::vector<std::vector<int>> SentencePieceProcessor::nbest_encode_as_ids(std::string_view text,
                                                                          int nbest_size) const {
  check_utf8(text, "SentencePieceProcessor::nbest_encode");
  std::vector<std::vector<int>> ids;
  check_status(sp_->NBestEncode(text, nbest_size, &ids), "SentencePieceProcessor::nbest_encode");
  return ids;
}

std::vector<std::vector<std::string>> SentencePieceProcessor::nbest_encode_as_pieces(std::string_view text,
                                                                                     int nbest_size) const {
  check_utf8(text, "SentencePieceProcessor::nbest_encode");
  std::vector<std::vector<std::string>> pieces;
  check_status(sp_->NBestEncode(text, nbest_size, &pieces), "SentencePieceProcessor::nbest_encode");
  return pieces;
}

namespace {

// Texts per chunk of the batched encoders: a sentence takes microseconds, so a
// few dozen amortize a chunk's hand-off.
constexpr int64_t kTextsPerChunk = 64;

// Each text lands in its own slot, so any split of the loop gives the serial
// result. An error in a chunk propagates out of parallel_for (the first one wins).
template <class Out, class Encode>
std::vector<Out> encode_batch(const std::vector<std::string>& texts, const Encode& encode) {
  for (size_t i = 0; i < texts.size(); ++i) check_utf8(texts[i], "SentencePieceProcessor::encode_batch");
  std::vector<Out> out(texts.size());
  parallel_for(0, static_cast<int64_t>(texts.size()), kTextsPerChunk, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) encode(texts[i], out[i]);
  });
  return out;
}

}  // namespace

std::vector<std::vector<int>> SentencePieceProcessor::encode_batch_as_ids(
    const std::vector<std::string>& texts) const {
  return encode_batch<std::vector<int>>(texts, [this](const std::string& t, std::vector<int>& ids) {
    check_status(sp_->Encode(t, &ids), "SentencePieceProcessor::encode_batch");
  });
}

std::vector<std::vector<std::string>> SentencePieceProcessor::encode_batch_as_pieces(
    const std::vector<std::string>& texts) const {
  return encode_batch<std::vector<std::string>>(texts, [this](const std::string& t, std::vector<std::string>& p) {
    check_status(sp_->Encode(t, &p), "SentencePieceProcessor::encode_batch");
  });
}

int64_t SentencePieceProcessor::get_piece_size() const { return sp_->GetPieceSize(); }

int SentencePieceProcessor::piece_to_id(std::string_view piece) const { return sp_->PieceToId(piece); }

namespace {
void check_id(int id, int n, const char* op) {
  EMBER_CHECK(id >= 0 && id < n, "SentencePieceProcessor::", op, ": id ", id, " is outside the vocabulary [0, ", n,
              ")");
}
}  // namespace

std::string SentencePieceProcessor::id_to_piece(int id) const {
  check_id(id, sp_->GetPieceSize(), "id_to_piece");
  return sp_->IdToPiece(id);
}
float SentencePieceProcessor::get_score(int id) const {
  check_id(id, sp_->GetPieceSize(), "get_score");
  return sp_->GetScore(id);
}
bool SentencePieceProcessor::is_unknown(int id) const {
  check_id(id, sp_->GetPieceSize(), "is_unknown");
  return sp_->IsUnknown(id);
}
bool SentencePieceProcessor::is_control(int id) const {
  check_id(id, sp_->GetPieceSize(), "is_control");
  return sp_->IsControl(id);
}
bool SentencePieceProcessor::is_unused(int id) const {
  check_id(id, sp_->GetPieceSize(), "is_unused");
  return sp_->IsUnused(id);
}
bool SentencePieceProcessor::is_byte(int id) const {
  check_id(id, sp_->GetPieceSize(), "is_byte");
  return sp_->IsByte(id);
}
int SentencePieceProcessor::unk_id() const { return sp_->unk_id(); }
int SentencePieceProcessor::bos_id() const { return sp_->bos_id(); }
int SentencePieceProcessor::eos_id() const { return sp_->eos_id(); }
int SentencePieceProcessor::pad_id() const { return sp_->pad_id(); }

std::string SentencePieceProcessor::serialized_model() const { return sp_->serialized_model_proto(); }

void set_sentencepiece_random_seed(unsigned seed) {
  EMBER_CHECK(seed != static_cast<unsigned>(-1), "set_sentencepiece_random_seed: seed ", seed,
              " is reserved by the library (it means: seed from std::random_device)");
  sentencepiece::SetRandomGeneratorSeed(seed);
}

}  // namespace ember::text
