// libFuzzer target: a SentencePiece model from arbitrary bytes
// (SentencePieceProcessor::from_bytes, whose protobuf and normalization tables
// Debian's libsentencepiece trusts), then encoding, sampling, n-best and decoding
// with whatever loaded. Every input must load or raise ember::Error; anything
// else (a crash, a sanitizer report, another exception) aborts the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ember/core/error.h>
#include <ember/text/sentencepiece.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ember::text::SentencePieceProcessor;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const SentencePieceProcessor sp = SentencePieceProcessor::from_bytes(bytes);
    const std::string_view text = "Hello world. \xC3\xA9t\xC3\xA9 \xE2\x80\x94 ABC abc 123";
    const auto ids = sp.encode_as_ids(text);
    (void)sp.encode_as_pieces(text);
    (void)sp.decode_ids(ids);
    // Sampling and n-best are model-type specific: other types raise ember::Error.
    try { (void)sp.sample_encode_as_ids(text, -1, 0.1f); } catch (const ember::Error&) {}
    try { (void)sp.nbest_encode_as_ids(text, 3); } catch (const ember::Error&) {}
    const int pieces = static_cast<int>(std::min<int64_t>(sp.get_piece_size(), 64));
    for (int id = 0; id < pieces; ++id) (void)sp.id_to_piece(id);
  } catch (const ember::Error&) {
  }
  return 0;
}
