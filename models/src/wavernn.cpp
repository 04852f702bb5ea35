// WaveRNN (torchaudio/models/wavernn.py, torchaudio 0.13).
#include "ember/models/wavernn.h"

#include <cmath>
#include <ostream>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/linalg.h>
#include <ember/ops/shape.h>

namespace ember::models {

namespace wavernn {

ResBlockImpl::ResBlockImpl(int64_t n_freq) : nn::Module("ResBlock") {
  resblock_model = register_module(
      "resblock_model",
      nn::Sequential(nn::Conv1d({.in_channels = n_freq, .out_channels = n_freq, .kernel_size = 1, .bias = false}),
                     nn::BatchNorm1d(n_freq), nn::ReLU(true),
                     nn::Conv1d({.in_channels = n_freq, .out_channels = n_freq, .kernel_size = 1, .bias = false}),
                     nn::BatchNorm1d(n_freq)));
}

Tensor ResBlockImpl::forward(const Tensor& specgram) { return resblock_model(specgram) + specgram; }

MelResNetImpl::MelResNetImpl(int64_t n_res_block, int64_t n_freq, int64_t n_hidden, int64_t n_output,
                             int64_t kernel_size)
    : nn::Module("MelResNet") {
  nn::Sequential layers;
  layers->push_back(
      nn::Conv1d({.in_channels = n_freq, .out_channels = n_hidden, .kernel_size = kernel_size, .bias = false}));
  layers->push_back(nn::BatchNorm1d(n_hidden));
  layers->push_back(nn::ReLU(true));
  for (int64_t i = 0; i < n_res_block; ++i) layers->push_back(ResBlock(n_hidden));
  layers->push_back(nn::Conv1d({.in_channels = n_hidden, .out_channels = n_output, .kernel_size = 1}));
  melresnet_model = register_module("melresnet_model", layers);
}

Tensor MelResNetImpl::forward(const Tensor& specgram) { return melresnet_model(specgram); }

Stretch2dImpl::Stretch2dImpl(int64_t time_scale_, int64_t freq_scale_)
    : nn::Module("Stretch2d"), time_scale(time_scale_), freq_scale(freq_scale_) {
  EMBER_CHECK(time_scale > 0 && freq_scale > 0, "Stretch2d: the scales must be positive, got time_scale ",
              time_scale, " and freq_scale ", freq_scale);
}

Tensor Stretch2dImpl::forward(const Tensor& specgram) {
  EMBER_CHECK(specgram.dim() >= 2, "Stretch2d: expected at least 2 dimensions (..., freq, time), got sizes ",
              specgram.sizes());
  return specgram.repeat_interleave(freq_scale, -2).repeat_interleave(time_scale, -1);
}

void Stretch2dImpl::pretty_print(std::ostream& os) const { os << "Stretch2d()"; }

UpsampleNetworkImpl::UpsampleNetworkImpl(const std::vector<int64_t>& upsample_scales, int64_t n_res_block,
                                         int64_t n_freq, int64_t n_hidden, int64_t n_output, int64_t kernel_size)
    : nn::Module("UpsampleNetwork") {
  for (int64_t scale : upsample_scales) total_scale *= scale;
  indent = (kernel_size - 1) / 2 * total_scale;
  resnet = register_module("resnet", MelResNet(n_res_block, n_freq, n_hidden, n_output, kernel_size));
  resnet_stretch = register_module("resnet_stretch", Stretch2d(total_scale, 1));
  nn::Sequential layers;
  for (int64_t scale : upsample_scales) {
    nn::Conv2d conv({.in_channels = 1,
                     .out_channels = 1,
                     .kernel_size = std::vector<int64_t>{1, scale * 2 + 1},
                     .padding = std::vector<int64_t>{0, scale},
                     .bias = false});
    nn::init::constant_(conv->weight, 1.0 / static_cast<double>(scale * 2 + 1));
    layers->push_back(Stretch2d(scale, 1));
    layers->push_back(conv);
  }
  upsample_layers = register_module("upsample_layers", layers);
}

std::pair<Tensor, Tensor> UpsampleNetworkImpl::forward(const Tensor& specgram) {
  const Tensor resnet_output = resnet_stretch(resnet(specgram).unsqueeze(1)).squeeze(1);
  const Tensor up = upsample_layers(specgram.unsqueeze(1)).squeeze(1);
  return {up.slice(2, indent, up.size(2) - indent), resnet_output};
}

}  // namespace wavernn

WaveRNNImpl::WaveRNNImpl(const WaveRNNOptions& options_) : nn::Module("WaveRNN"), options(options_) {
  const auto& o = options;
  EMBER_CHECK(!o.upsample_scales.empty(), "WaveRNN: upsample_scales must not be empty");
  int64_t total_scale = 1;
  for (int64_t s : o.upsample_scales) {
    EMBER_CHECK(s > 0, "WaveRNN: upsample scales must be positive, got ", s);
    total_scale *= s;
  }
  EMBER_CHECK(total_scale == o.hop_length, "WaveRNN: Expected: total_scale == hop_length, but found ", total_scale,
              " != ", o.hop_length);
  EMBER_CHECK(o.n_classes >= 2, "WaveRNN: n_classes must be at least 2, got ", o.n_classes);
  // An even kernel (or 1) makes the upsampled specgram and the MelResNet
  // features differ in length (torchaudio then fails in forward's cat).
  EMBER_CHECK(o.kernel_size >= 3 && o.kernel_size % 2 == 1,
              "WaveRNN: kernel_size must be odd and at least 3 (the upsampled specgram is cut by (kernel_size - 1)",
              " / 2 frames at each end to match the MelResNet's kernel_size - 1 fewer frames), got ", o.kernel_size);
  EMBER_CHECK(o.n_res_block >= 0 && o.n_rnn > 0 && o.n_fc > 0 && o.n_freq > 0 && o.n_hidden > 0,
              "WaveRNN: n_res_block must be non-negative and n_rnn, n_fc, n_freq, n_hidden positive, got ",
              o.n_res_block, ", ", o.n_rnn, ", ", o.n_fc, ", ", o.n_freq, ", ", o.n_hidden);
  EMBER_CHECK(o.n_output >= 4, "WaveRNN: n_output must be at least 4 (n_output / 4 auxiliary features feed each of ",
              "four layers), got ", o.n_output);
  n_aux = o.n_output / 4;
  n_bits = static_cast<int64_t>(std::log2(static_cast<double>(o.n_classes)));
  pad = (o.kernel_size % 2 == 1 ? o.kernel_size - 1 : o.kernel_size) / 2;

  upsample = register_module("upsample", wavernn::UpsampleNetwork(o.upsample_scales, o.n_res_block, o.n_freq,
                                                                   o.n_hidden, o.n_output, o.kernel_size));
  fc = register_module("fc", nn::Linear(o.n_freq + n_aux + 1, o.n_rnn));
  rnn1 = register_module("rnn1", nn::GRU({.input_size = o.n_rnn, .hidden_size = o.n_rnn, .batch_first = true}));
  rnn2 = register_module("rnn2",
                         nn::GRU({.input_size = o.n_rnn + n_aux, .hidden_size = o.n_rnn, .batch_first = true}));
  relu1 = register_module("relu1", nn::ReLU(true));
  relu2 = register_module("relu2", nn::ReLU(true));
  fc1 = register_module("fc1", nn::Linear(o.n_rnn + n_aux, o.n_fc));
  fc2 = register_module("fc2", nn::Linear(o.n_fc + n_aux, o.n_fc));
  fc3 = register_module("fc3", nn::Linear(o.n_fc, o.n_classes));
}

Tensor WaveRNNImpl::forward(const Tensor& waveform, const Tensor& specgram) {
  EMBER_CHECK(waveform.defined() && specgram.defined(), "WaveRNN: undefined input");
  EMBER_CHECK(waveform.dim() == 3 && waveform.size(1) == 1,
              "WaveRNN: Require the input channel of waveform is 1: expected [N, 1, samples], got sizes ",
              waveform.sizes());
  EMBER_CHECK(specgram.dim() == 4 && specgram.size(1) == 1 && specgram.size(2) == options.n_freq,
              "WaveRNN: Require the input channel of specgram is 1: expected [N, 1, n_freq = ", options.n_freq,
              ", frames], got sizes ", specgram.sizes());
  EMBER_CHECK(is_floating_point(waveform.dtype()) && waveform.dtype() == specgram.dtype(),
              "WaveRNN: expected floating point inputs of one dtype, got ", waveform.dtype(), " and ",
              specgram.dtype());
  const int64_t frames = specgram.size(3);
  EMBER_CHECK(waveform.size(0) == specgram.size(0) && frames >= options.kernel_size &&
                  waveform.size(2) == (frames - options.kernel_size + 1) * options.hop_length,
              "WaveRNN: expected waveform [N, 1, (frames - kernel_size + 1) * hop_length] for specgram [N, 1, n_freq, ",
              "frames] (kernel_size ", options.kernel_size, ", hop_length ", options.hop_length, "), got sizes ",
              waveform.sizes(), " and ", specgram.sizes());

  auto [spec, aux] = upsample(specgram.squeeze(1));
  spec = spec.transpose(1, 2);
  aux = aux.transpose(1, 2);
  auto aux_part = [&, &aux = aux](int64_t k) { return aux.slice(2, k * n_aux, (k + 1) * n_aux); };

  Tensor x = cat({waveform.squeeze(1).unsqueeze(-1), spec, aux_part(0)}, -1);
  x = fc(x);
  Tensor res = x;
  x = std::get<0>(rnn1(x));
  x = x + res;
  res = x;
  x = std::get<0>(rnn2(cat({x, aux_part(1)}, -1)));
  x = x + res;
  x = relu1(fc1(cat({x, aux_part(2)}, -1)));
  x = relu2(fc2(cat({x, aux_part(3)}, -1)));
  return fc3(x).unsqueeze(1);
}

// Note [WaveRNN inference without per-step allocations]
// torchaudio's infer runs, for each of the T * hop_length samples, the Linear
// and GRU modules on freshly concatenated inputs, allocating a dozen tensors
// per sample. Here:
// - The parts of each step that do not depend on the generated samples (the
//   upsampled specgram and auxiliary features times their columns of fc,
//   rnn2's input weights, fc1 and fc2, plus the biases) are computed for a
//   chunk of steps at once, in a few large matrix products per chunk.
// - The recurrent part runs on buffers allocated once before the loop:
//   every step is addmm_out / mul_out / add_out / sigmoid_out / tanh_out /
//   relu_out into them, with the GRU gates in separate contiguous buffers
//   (weights split and transposed once). The only objects a step creates are
//   the views of its chunk rows (no tensor storage).
// - The previous sample enters fc through its column of the weight
//   (an addcmul of [N, 1] x [n_rnn]) instead of a concatenation.
// The sums are grouped differently from torchaudio's single products, so
// logits differ by float rounding (the tests compare them at 1e-4 of their
// scale when both sides are fed the same samples).
namespace {

constexpr int64_t kInferChunk = 256;

// One GRU layer's weights for the step loop: gates (r, z) and n split,
// transposed to [in, gates * hidden] and contiguous.
struct GruStepWeights {
  Tensor ih_rz, ih_n, hh_rz, hh_n;    // [in, 2H], [in, H], [H, 2H], [H, H]
  Tensor b_ih_rz, b_ih_n, b_hh_rz, b_hh_n;

  // in_columns: the columns of weight_ih fed by the step's recurrent input
  // (rnn2's other columns see the auxiliary features, precomputed).
  GruStepWeights(nn::GRUImpl& gru, int64_t in_columns) {
    const auto w = gru.all_weights();  // w_ih [3H, I], w_hh [3H, H], b_ih [3H], b_hh [3H]
    const int64_t h = gru.options.hidden_size;
    const Tensor w_ih = w[0].slice(1, 0, in_columns);
    ih_rz = w_ih.slice(0, 0, 2 * h).t().contiguous();
    ih_n = w_ih.slice(0, 2 * h, 3 * h).t().contiguous();
    hh_rz = w[1].slice(0, 0, 2 * h).t().contiguous();
    hh_n = w[1].slice(0, 2 * h, 3 * h).t().contiguous();
    b_ih_rz = w[2].slice(0, 0, 2 * h);
    b_ih_n = w[2].slice(0, 2 * h, 3 * h);
    b_hh_rz = w[3].slice(0, 0, 2 * h);
    b_hh_n = w[3].slice(0, 2 * h, 3 * h);
  }
};

// The gate buffers of one step, reused by both layers.
struct GruBuffers {
  Tensor i_rz, h_rz, i_n, h_n, r, z;
  GruBuffers(int64_t batch, int64_t hidden, const TensorOptions& opts)
      : i_rz(empty({batch, 2 * hidden}, opts)),
        h_rz(empty({batch, 2 * hidden}, opts)),
        i_n(empty({batch, hidden}, opts)),
        h_n(empty({batch, hidden}, opts)),
        r(i_rz.slice(1, 0, hidden)),
        z(i_rz.slice(1, hidden, 2 * hidden)) {}
};

// h <- GRU(x, h) in place; in_rz / in_n: the input-side bias (or the
// precomputed auxiliary part with the bias), broadcast over the batch.
void gru_step(const GruStepWeights& w, const Tensor& in_rz, const Tensor& in_n, const Tensor& x, Tensor& h,
              GruBuffers& b) {
  addmm_out(b.i_rz, in_rz, x, w.ih_rz);
  addmm_out(b.h_rz, w.b_hh_rz, h, w.hh_rz);
  add_out(b.i_rz, b.i_rz, b.h_rz);
  sigmoid_out(b.i_rz, b.i_rz);  // r | z
  addmm_out(b.i_n, in_n, x, w.ih_n);
  addmm_out(b.h_n, w.b_hh_n, h, w.hh_n);
  mul_out(b.h_n, b.h_n, b.r);
  add_out(b.i_n, b.i_n, b.h_n);
  tanh_out(b.i_n, b.i_n);  // n
  // h' = (1 - z) n + z h = n + z (h - n)
  sub_out(h, h, b.i_n);
  mul_out(h, h, b.z);
  add_out(h, h, b.i_n);
}

// The default sampler: class c of row b with probability softmax(logits)[c],
// by inverting the cumulative sum at the step's uniform draw.
template <class T>
void sample_rows(int64_t step, const Tensor& logits, const double* uniforms, std::span<int64_t> classes) {
  const int64_t n = logits.size(1);
  const T* base = logits.data_ptr<T>();
  for (size_t b = 0; b < classes.size(); ++b) {
    const T* row = base + static_cast<int64_t>(b) * n;
    double top = -INFINITY;
    for (int64_t c = 0; c < n; ++c) top = std::max(top, static_cast<double>(row[c]));
    double total = 0;
    for (int64_t c = 0; c < n; ++c) total += std::exp(static_cast<double>(row[c]) - top);
    EMBER_CHECK(std::isfinite(total) && std::isfinite(top), "WaveRNN::infer: non-finite logits at step ", step,
                " (batch element ", b, ")");
    const double threshold = uniforms[b] * total;
    double cumulative = 0;
    int64_t chosen = n - 1;
    for (int64_t c = 0; c < n; ++c) {
      cumulative += std::exp(static_cast<double>(row[c]) - top);
      if (cumulative > threshold) {
        chosen = c;
        break;
      }
    }
    classes[b] = chosen;
  }
}

}  // namespace

std::pair<Tensor, std::optional<Tensor>> WaveRNNImpl::infer(const Tensor& specgram,
                                                            const std::optional<Tensor>& lengths,
                                                            Generator* generator) {
  EMBER_CHECK(specgram.defined() && specgram.dim() == 3, "WaveRNN::infer: expected specgram [N, n_freq, frames]",
              specgram.defined() ? "" : " (got an undefined tensor)");
  // Every step draws one uniform per batch element, drawn before the loop.
  const int64_t steps = (specgram.size(2) + 2 * pad - options.kernel_size + 1) * options.hop_length;
  EMBER_CHECK(specgram.size(0) > 0 && steps > 0, "WaveRNN::infer: expected a non-empty specgram, got sizes ",
              specgram.sizes());
  Tensor uniforms = empty({steps, specgram.size(0)}, kFloat64);
  uniforms.uniform_(0, 1, generator);
  const double* u = uniforms.data_ptr<double>();
  const WaveRNNSampler sampler = [u, batch = specgram.size(0)](int64_t step, const Tensor& logits,
                                                              std::span<int64_t> classes) {
    if (logits.dtype() == kFloat64)
      sample_rows<double>(step, logits, u + step * batch, classes);
    else
      sample_rows<float>(step, logits, u + step * batch, classes);
  };
  return infer(specgram, lengths, sampler);
}

std::pair<Tensor, std::optional<Tensor>> WaveRNNImpl::infer(const Tensor& specgram,
                                                            const std::optional<Tensor>& lengths,
                                                            const WaveRNNSampler& sampler) {
  EMBER_CHECK(specgram.defined() && specgram.dim() == 3 && specgram.size(1) == options.n_freq,
              "WaveRNN::infer: expected specgram [N, n_freq = ", options.n_freq, ", frames], got ",
              specgram.defined() ? "sizes " : "an undefined tensor",
              specgram.defined() ? specgram.sizes() : IntArrayRef{});
  EMBER_CHECK(specgram.dtype() == kFloat32 || specgram.dtype() == kFloat64,
              "WaveRNN::infer: expected a float32 or float64 specgram, got ", specgram.dtype());
  EMBER_CHECK(specgram.size(0) > 0 && specgram.size(2) > 0,
              "WaveRNN::infer: expected a non-empty specgram, got sizes ", specgram.sizes());
  EMBER_CHECK(fc->weight.dtype() == specgram.dtype(), "WaveRNN::infer: the model's weights are ", fc->weight.dtype(),
              " but the specgram is ", specgram.dtype());
  EMBER_CHECK(sampler != nullptr, "WaveRNN::infer: the sampler is empty");
  std::optional<Tensor> out_lengths;
  if (lengths) {
    EMBER_CHECK(lengths->defined() && lengths->dim() == 1 && lengths->size(0) == specgram.size(0) &&
                    !is_floating_point(lengths->dtype()) && lengths->dtype() != kBool,
                "WaveRNN::infer: lengths must be an integer tensor [N = ", specgram.size(0), "]");
    out_lengths = *lengths * options.hop_length;
  }
  NoGradGuard no_grad;

  const Tensor padded = ember::pad(specgram, {pad, pad});
  auto [spec, aux] = upsample(padded);  // [B, n_freq, S], [B, n_output, S]
  const int64_t batch = spec.size(0), steps = spec.size(2);
  const int64_t n_rnn = options.n_rnn, n_fc = options.n_fc, n_classes = options.n_classes;
  const Tensor spec_t = spec.permute({2, 0, 1});  // [S, B, n_freq]
  const Tensor aux_t = aux.permute({2, 0, 1});    // [S, B, n_output]
  auto aux_part = [&](const Tensor& rows, int64_t k) { return rows.slice(2, k * n_aux, (k + 1) * n_aux); };

  // Weights split by what feeds them (see the Note).
  const int64_t n_freq = options.n_freq;
  const Tensor fc_prev = fc->weight.select(1, 0).unsqueeze(0);                       // [1, n_rnn]
  const Tensor fc_spec = fc->weight.slice(1, 1, 1 + n_freq).t().contiguous();        // [n_freq, n_rnn]
  const Tensor fc_aux = fc->weight.slice(1, 1 + n_freq).t().contiguous();            // [n_aux, n_rnn]
  const GruStepWeights g1(*rnn1, n_rnn), g2(*rnn2, n_rnn);
  const Tensor w_ih2 = rnn2->all_weights()[0], b_ih2 = rnn2->all_weights()[2];
  const Tensor rnn2_aux_rz = w_ih2.slice(0, 0, 2 * n_rnn).slice(1, n_rnn).t().contiguous();
  const Tensor rnn2_aux_n = w_ih2.slice(0, 2 * n_rnn).slice(1, n_rnn).t().contiguous();
  const Tensor fc1_x = fc1->weight.slice(1, 0, n_rnn).t().contiguous();
  const Tensor fc1_aux = fc1->weight.slice(1, n_rnn).t().contiguous();
  const Tensor fc2_x = fc2->weight.slice(1, 0, n_fc).t().contiguous();
  const Tensor fc2_aux = fc2->weight.slice(1, n_fc).t().contiguous();
  const Tensor fc3_t = fc3->weight.t().contiguous();

  // Step buffers, allocated once.
  const TensorOptions opts = TensorOptions().dtype(spec.dtype()).device(spec.device());
  Tensor prev = zeros({batch, 1}, opts);
  Tensor x = empty({batch, n_rnn}, opts), h1 = zeros({batch, n_rnn}, opts), h2 = zeros({batch, n_rnn}, opts);
  Tensor y1 = empty({batch, n_fc}, opts), y2 = empty({batch, n_fc}, opts);
  Tensor logits = empty({batch, n_classes}, opts);
  GruBuffers gates(batch, n_rnn, opts);
  const bool on_cpu = spec.device().is_cpu();
  Tensor logits_host = on_cpu ? logits : empty({batch, n_classes}, spec.dtype());
  Tensor prev_host = on_cpu ? prev : empty({batch, 1}, spec.dtype());
  Tensor output = empty({batch, steps}, spec.dtype());  // on the CPU until the end
  std::vector<int64_t> classes(static_cast<size_t>(batch));
  const double top_level = std::exp2(static_cast<double>(n_bits)) - 1.0;

  for (int64_t c0 = 0; c0 < steps; c0 += kInferChunk) {
    const int64_t c1 = std::min(steps, c0 + kInferChunk);
    const Tensor spec_rows = spec_t.slice(0, c0, c1), aux_rows = aux_t.slice(0, c0, c1);
    const Tensor pre_fc = matmul(spec_rows, fc_spec) + matmul(aux_part(aux_rows, 0), fc_aux) + fc->bias;
    const Tensor pre_rz2 = matmul(aux_part(aux_rows, 1), rnn2_aux_rz) + b_ih2.slice(0, 0, 2 * n_rnn);
    const Tensor pre_n2 = matmul(aux_part(aux_rows, 1), rnn2_aux_n) + b_ih2.slice(0, 2 * n_rnn);
    const Tensor pre_fc1 = matmul(aux_part(aux_rows, 2), fc1_aux) + fc1->bias;
    const Tensor pre_fc2 = matmul(aux_part(aux_rows, 3), fc2_aux) + fc2->bias;

    for (int64_t t = c0; t < c1; ++t) {
      const int64_t i = t - c0;
      addcmul_out(x, pre_fc.select(0, i), prev, fc_prev);     // fc([prev, m_t, a1_t])
      gru_step(g1, g1.b_ih_rz, g1.b_ih_n, x, h1, gates);      // rnn1
      add_out(x, x, h1);                                      // x + h1
      gru_step(g2, pre_rz2.select(0, i), pre_n2.select(0, i), x, h2, gates);  // rnn2([x, a2_t])
      add_out(x, x, h2);                                      // x + h2
      addmm_out(y1, pre_fc1.select(0, i), x, fc1_x);          // fc1([x, a3_t])
      relu_out(y1, y1);
      addmm_out(y2, pre_fc2.select(0, i), y1, fc2_x);         // fc2([y1, a4_t])
      relu_out(y2, y2);
      addmm_out(logits, fc3->bias, y2, fc3_t);

      if (!on_cpu) logits_host.copy_(logits);
      sampler(t, logits_host, classes);
      // The sample 2c / (2^bits - 1) - 1, in the dtype's arithmetic (torchaudio: float32).
      auto write = [&]<class T>(T*) {
        T* prev_data = prev_host.data_ptr<T>();
        T* out_data = output.data_ptr<T>();
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t c = classes[static_cast<size_t>(b)];
          EMBER_CHECK(c >= 0 && c < n_classes, "WaveRNN::infer: the sampler chose class ", c, " at step ", t,
                      " (batch element ", b, "); expected [0, ", n_classes, ")");
          const T value = T(2) * static_cast<T>(c) / static_cast<T>(top_level) - T(1);
          prev_data[b] = value;
          out_data[b * steps + t] = value;
        }
      };
      if (spec.dtype() == kFloat64)
        write(static_cast<double*>(nullptr));
      else
        write(static_cast<float*>(nullptr));
      if (!on_cpu) prev.copy_(prev_host);
    }
  }
  return {output.to(spec.device()).unsqueeze(1), out_lengths};
}

}  // namespace ember::models
