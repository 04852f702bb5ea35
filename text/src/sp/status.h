#pragma once
// The library's util::Status as an ember::Error carrying its message.
#include <sentencepiece_processor.h>

#include <ember/core/error.h>

namespace ember::text::sp_detail {

inline void check_status(const sentencepiece::util::Status& status, const char* op) {
  EMBER_CHECK(status.ok(), op, ": ", status.ToString());
}

}  // namespace ember::text::sp_detail
