// The libsox effects chain behind load, save and apply_effects_* (sox_chain.h).
#include "audio/sox/sox_chain.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "audio/audio_common.h"

namespace ember::audio::sox_detail {
namespace {

// libsox allocates priv (priv_size bytes, zeroed); ours holds one pointer.
EffectsChain::State* state_of(sox_effect_t* effp) {
  return *static_cast<EffectsChain::State**>(effp->priv);
}

int samples_input_drain(sox_effect_t* effp, sox_sample_t* obuf, size_t* osamp) {
  EffectsChain::State* st = state_of(effp);
  const std::vector<sox_sample_t>& in = *st->in_samples;
  const size_t channels = std::max<size_t>(effp->out_signal.channels, 1);
  size_t n = std::min(*osamp, in.size() - st->in_index);
  n -= n % channels;
  std::copy_n(in.data() + st->in_index, n, obuf);
  st->in_index += n;
  *osamp = n;
  // As torchaudio: the call that hands over the last samples also says EOF.
  return st->in_index >= in.size() ? SOX_EOF : SOX_SUCCESS;
}

int file_input_drain(sox_effect_t* effp, sox_sample_t* obuf, size_t* osamp) {
  EffectsChain::State* st = state_of(effp);
  const size_t channels = std::max<size_t>(effp->out_signal.channels, 1);
  *osamp -= *osamp % channels;
  const size_t got = sox_read(st->in_file, obuf, *osamp);
  st->samples_read += got;
  *osamp = got;
  if (got == 0) {
    st->input_ended = true;
    if (st->in_file->sox_errno && st->error.empty()) {
      st->error = st->in_file->sox_errstr[0] ? st->in_file->sox_errstr
                                             : sox_strerror(st->in_file->sox_errno);
    }
    return SOX_EOF;
  }
  return SOX_SUCCESS;
}

int samples_output_flow(sox_effect_t* effp, const sox_sample_t* ibuf, sox_sample_t*,
                        size_t* isamp, size_t* osamp) {
  EffectsChain::State* st = state_of(effp);
  *osamp = 0;
  try {
    st->out_samples->insert(st->out_samples->end(), ibuf, ibuf + *isamp);
  } catch (const std::exception& e) {
    if (st->error.empty()) st->error = e.what();
    return SOX_EOF;
  }
  return SOX_SUCCESS;
}

int file_output_flow(sox_effect_t* effp, const sox_sample_t* ibuf, sox_sample_t*, size_t* isamp,
                     size_t* osamp) {
  EffectsChain::State* st = state_of(effp);
  *osamp = 0;
  if (*isamp && sox_write(st->out_file, ibuf, *isamp) != *isamp) {
    if (st->error.empty()) {
      sox_format_t* f = st->out_file;
      st->error = std::string("write failed: ") +
                  (f->sox_errstr[0] ? f->sox_errstr : sox_strerror(f->sox_errno));
    }
    return SOX_EOF;
  }
  return SOX_SUCCESS;
}

sox_effect_handler_t make_handler(const char* name, sox_effect_handler_flow flow,
                                  sox_effect_handler_drain drain) {
  sox_effect_handler_t h{};
  h.name = name;
  h.flags = SOX_EFF_MCHAN;
  h.flow = flow;
  h.drain = drain;
  h.priv_size = sizeof(EffectsChain::State*);
  return h;
}

sox_effect_handler_t g_samples_input = make_handler("ember_input_samples", nullptr, samples_input_drain);
sox_effect_handler_t g_file_input = make_handler("ember_input_file", nullptr, file_input_drain);
sox_effect_handler_t g_samples_output = make_handler("ember_output_samples", samples_output_flow, nullptr);
sox_effect_handler_t g_file_output = make_handler("ember_output_file", file_output_flow, nullptr);

// Frees an effect libsox did not take (options or start failed): its priv and
// the struct; kill() releases what getopts allocated.
void discard_effect(sox_effect_t* e, bool options_parsed) {
  if (options_parsed && e->handler.kill) e->handler.kill(e);
  std::free(e->priv);
  std::free(e);
}

std::string joined(const std::vector<std::string>& effect) {
  std::string s;
  for (const auto& v : effect) s += (s.empty() ? "" : " ") + v;
  return s;
}

}  // namespace

EffectsChain::EffectsChain(const char* op, sox_encodinginfo_t in_encoding,
                           sox_encodinginfo_t out_encoding)
    : op_(op), in_enc_(in_encoding), out_enc_(out_encoding) {
  ensure_sox();
  chain_.reset(sox_create_effects_chain(&in_enc_, &out_enc_));
  EMBER_CHECK(chain_, op_, ": cannot create a SoX effects chain");
}

void EffectsChain::add(sox_effect_t* e, sox_signalinfo_t* out_signal, const std::string& what) {
  clear_messages();
  const size_t length = chain_->length;
  if (sox_add_effect(chain_.get(), e, &interm_, out_signal) != SOX_SUCCESS) {
    discard_effect(e, true);
    EMBER_FAIL(op_, ": SoX cannot start effect \"", what, "\"",
               last_message().empty() ? "" : ": ", last_message());
  }
  if (chain_->length == length) {
    // "has no effect in this configuration": libsox killed it and kept nothing.
    std::free(e->priv);
  }
  // Otherwise the chain took a copy of *e and owns its priv: free the shell only.
  std::free(e);
}

void EffectsChain::add_input_samples(const std::vector<sox_sample_t>* samples,
                                     sox_signalinfo_t signal) {
  in_sig_ = signal;
  interm_ = in_sig_;
  state_.in_samples = samples;
  sox_effect_t* e = sox_create_effect(&g_samples_input);
  *static_cast<State**>(e->priv) = &state_;
  add(e, &in_sig_, "input");
}

void EffectsChain::add_input_file(sox_format_t* sf) {
  in_sig_ = sf->signal;
  interm_ = in_sig_;
  state_.in_file = sf;
  sox_effect_t* e = sox_create_effect(&g_file_input);
  *static_cast<State**>(e->priv) = &state_;
  add(e, &in_sig_, "input");
}

void EffectsChain::add_effect(const std::vector<std::string>& effect) {
  EMBER_CHECK(!effect.empty() && !effect[0].empty(), op_, ": empty effect (expected {name, options...})");
  const std::string& name = effect[0];
  static const char* const kUnsupported[] = {"input", "output", "spectrogram", "noiseprof",
                                             "noisered", "splice"};
  for (const char* u : kUnsupported) {
    EMBER_CHECK(name != u, op_, ": effect \"", name, "\" is not supported");
  }
  const sox_effect_handler_t* handler = sox_find_effect(name.c_str());
  EMBER_CHECK(handler, op_, ": unknown SoX effect \"", name, "\" (see audio::effect_names())");
  sox_effect_t* e = sox_create_effect(handler);
  EMBER_CHECK(e, op_, ": cannot create SoX effect \"", name, "\"");
  std::vector<std::string> args(effect.begin() + 1, effect.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  clear_messages();
  if (sox_effect_options(e, static_cast<int>(args.size()), argv.data()) != SOX_SUCCESS) {
    discard_effect(e, false);
    EMBER_FAIL(op_, ": invalid options for SoX effect \"", joined(effect), "\"",
               last_message().empty() ? "" : ": ", last_message());
  }
  add(e, &in_sig_, joined(effect));
}

void EffectsChain::add_output_samples(std::vector<sox_sample_t>* out) {
  state_.out_samples = out;
  sox_effect_t* e = sox_create_effect(&g_samples_output);
  *static_cast<State**>(e->priv) = &state_;
  add(e, &in_sig_, "output");
}

void EffectsChain::add_output_file(sox_format_t* sf) {
  out_sig_ = sf->signal;
  state_.out_file = sf;
  sox_effect_t* e = sox_create_effect(&g_file_output);
  *static_cast<State**>(e->priv) = &state_;
  add(e, &out_sig_, "output");
}

void EffectsChain::run() {
  clear_messages();
  // sox_flow_effects also returns SOX_EOF on a normal end of input (torchaudio
  // ignores its value too): failures are what the callbacks recorded.
  sox_flow_effects(chain_.get(), nullptr, nullptr);
  EMBER_CHECK(state_.error.empty(), op_, ": ", label_.empty() ? "" : "'", label_,
              label_.empty() ? "" : "': ", state_.error);
}

sox_encodinginfo_t tensor_encoding(DType dtype) {
  sox_encodinginfo_t enc{};
  enc.compression = HUGE_VAL;
  enc.reverse_bytes = sox_option_default;
  enc.reverse_nibbles = sox_option_default;
  enc.reverse_bits = sox_option_default;
  enc.opposite_endian = sox_false;
  if (dtype == kUInt8) {
    enc.encoding = SOX_ENCODING_UNSIGNED;
    enc.bits_per_sample = 8;
  } else if (dtype == kInt16) {
    enc.encoding = SOX_ENCODING_SIGN2;
    enc.bits_per_sample = 16;
  } else if (dtype == kInt32) {
    enc.encoding = SOX_ENCODING_SIGN2;
    enc.bits_per_sample = 32;
  } else {
    enc.encoding = SOX_ENCODING_FLOAT;
    enc.bits_per_sample = 32;
  }
  return enc;
}

unsigned tensor_precision(DType dtype) {
  return dtype == kUInt8 ? 8 : dtype == kInt16 ? 16 : 32;
}

std::vector<sox_sample_t> to_sox_samples(const Tensor& t) { return detail::to_int32_samples(t); }

Tensor from_sox_samples(const std::vector<sox_sample_t>& samples, unsigned channels, DType dtype,
                        bool channels_first) {
  const int64_t c = std::max<unsigned>(channels, 1);
  const int64_t frames = static_cast<int64_t>(samples.size()) / c;
  const size_t n = static_cast<size_t>(frames * c);
  SOX_SAMPLE_LOCALS;
  size_t clips = 0;
  if (dtype == kFloat32) {
    // One pass: convert and de-interleave straight into the result (the common
    // normalize=true load; a temporary float copy cost a 4-byte-per-sample pass).
    Tensor t = channels_first ? empty({c, frames}, kFloat32) : empty({frames, c}, kFloat32);
    if (n == 0) return t;
    float* out = t.data_ptr<float>();
    const int64_t frame_step = channels_first ? 1 : c, channel_step = channels_first ? frames : 1;
    for (int64_t f = 0; f < frames; ++f) {
      const sox_sample_t* in = samples.data() + f * c;
      for (int64_t ch = 0; ch < c; ++ch) {
        out[f * frame_step + ch * channel_step] =
            static_cast<float>(SOX_SAMPLE_TO_FLOAT_32BIT(in[ch], clips));
      }
    }
    return t;
  }
  if (dtype == kInt32) {
    return detail::from_interleaved<int32_t>(samples.data(), frames, c, dtype, channels_first);
  }
  if (dtype == kInt16) {
    std::vector<int16_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = SOX_SAMPLE_TO_SIGNED_16BIT(samples[i], clips);
    return detail::from_interleaved<int16_t>(v.data(), frames, c, dtype, channels_first);
  }
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = SOX_SAMPLE_TO_UNSIGNED_8BIT(samples[i], clips);
  (void)clips;
  return detail::from_interleaved<uint8_t>(v.data(), frames, c, dtype, channels_first);
}

}  // namespace ember::audio::sox_detail
