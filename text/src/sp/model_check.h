#pragma once
// Checks the parts of a serialized SentencePiece model that libsentencepiece
// 0.1.97 trusts without checking (Note [Trusted normalizer tries] in
// model_check.cpp).
#include <string_view>

namespace ember::text::sp_detail {

// Raises ember::Error "<what>: the model is corrupt (...)" when the model's
// normalization tables could make the library read out of bounds.
void check_model_tables(std::string_view serialized_model, const char* what);

}  // namespace ember::text::sp_detail
