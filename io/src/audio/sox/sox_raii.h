#pragma once
// RAII owners for libsox objects, the one-time library setup and the capture of
// libsox's messages.
//
// Note [SoX messages]: libsox reports problems by calling
// sox_globals.output_message_handler (by default it prints to stderr) and
// returning an error code; it never exit()s from the library calls Ember makes.
// ensure_sox() installs a handler that prints nothing and keeps the calling
// thread's last failure/warning text, which Ember's errors then quote
// ("audio::load: 'x.wav': WAVE: RIFF header not found").
#include <memory>
#include <mutex>
#include <string>

#include <sox.h>

namespace ember::audio::sox_detail {

// sox_init() once per process, with Ember's message handler (Note [SoX messages]).
void ensure_sox();

// Note [SoX is single-threaded]: libsox keeps process-wide state (sox_globals,
// the effects' lazily built FFT tables, the message handler), so every public
// SoX entry point holds this lock for its whole call, libsox objects'
// destruction included (take it before creating them). Parallel decoding
// belongs to the FFmpeg backend.
std::unique_lock<std::recursive_mutex> sox_lock();

// The last failure / warning libsox reported on this thread since clear_messages().
const std::string& last_message();
void clear_messages();

struct FormatCloser {
  void operator()(sox_format_t* f) const { sox_close(f); }
};
using SoxFormat = std::unique_ptr<sox_format_t, FormatCloser>;

struct ChainDeleter {
  void operator()(sox_effects_chain_t* c) const { sox_delete_effects_chain(c); }
};
using SoxChain = std::unique_ptr<sox_effects_chain_t, ChainDeleter>;

// torchaudio's encoding string of a libsox encoding ("PCM_S", "FLAC", ...).
std::string encoding_name(sox_encoding_t encoding);

}  // namespace ember::audio::sox_detail
