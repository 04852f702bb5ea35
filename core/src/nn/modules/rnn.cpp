#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"

// Note [Recurrent layers from recorded ops]: a layer runs in two parts. The
// input projection of every time step is one GEMM up front (x [N, I] @ W_ih^T
// + b_ih (+ b_hh), N = all steps of all sequences); then each step is one
// addmm for the hidden part, reading its rows of the projection as a view,
// and a few elementwise ops on the gates (one sigmoid over all gates, views
// through one split). Everything is a recorded core op, so autograd, double
// backward and gradcheck work without a hand-written backward. Packed input
// is the general case: step t works on batch_sizes[t] rows (non-increasing),
// a plain [T, B, I] input being the packing with every batch size B.

namespace ember::nn {

namespace {

std::string shape_tuple(IntArrayRef s) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

int64_t gate_count(detail::RNNMode mode) {
  switch (mode) {
    case detail::RNNMode::LSTM: return 4;
    case detail::RNNMode::GRU: return 3;
    default: return 1;
  }
}

struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// The input projection gx = x W_ih^T + bias for every row of x; the bias
// folds b_hh in, except for GRU (whose b_hn sits inside r * (...)).
Tensor input_projection(detail::RNNMode mode, const Weights& w, const Tensor& x) {
  if (!w.b_ih.defined()) return x.mm(w.w_ih.t());
  const Tensor bias = mode == detail::RNNMode::GRU ? w.b_ih : w.b_ih + w.b_hh;
  return addmm(bias, x, w.w_ih.t());
}

// One time step: gx [b, G*H] (this step's rows of the input projection), h
// [b, H_out], c [b, H] (LSTM). Returns (h', c').
std::pair<Tensor, Tensor> step(detail::RNNMode mode, const Weights& w, const Tensor& gx, const Tensor& h,
                               const Tensor& c, int64_t H) {
  using detail::RNNMode;
  switch (mode) {
    case RNNMode::RNN_TANH: return {addmm(gx, h, w.w_hh.t()).tanh(), Tensor()};
    case RNNMode::RNN_RELU: return {addmm(gx, h, w.w_hh.t()).relu(), Tensor()};
    case RNNMode::LSTM: {
      const Tensor gates = addmm(gx, h, w.w_hh.t());
      // One sigmoid over all four gates (the g quarter is unused), one split.
      const std::vector<Tensor> s = gates.sigmoid().chunk(4, 1);  // i, f, -, o
      const Tensor g = gates.narrow(1, 2 * H, H).tanh();
      const Tensor c2 = (s[1] * c).addcmul(s[0], g);
      Tensor h2 = s[3] * c2.tanh();
      if (w.w_hr.defined()) h2 = h2.mm(w.w_hr.t());
      return {h2, c2};
    }
    case RNNMode::GRU: {
      const Tensor gh = w.b_hh.defined() ? addmm(w.b_hh, h, w.w_hh.t()) : h.mm(w.w_hh.t());
      const std::vector<Tensor> xs = gx.split_with_sizes({2 * H, H}, 1);
      const std::vector<Tensor> hs = gh.split_with_sizes({2 * H, H}, 1);
      const std::vector<Tensor> rz = (xs[0] + hs[0]).sigmoid().chunk(2, 1);
      const Tensor n = xs[1].addcmul(rz[0], hs[1]).tanh();
      return {n.lerp(h, rz[1]), Tensor()};  // n + z (h - n)
    }
  }
  return {};
}

struct DirectionResult {
  Tensor output;  // [N, H_out]
  Tensor h, c;    // [B, H_out], [B, H]
};

// One direction of one layer over packed rows x [N, I]: step t reads the
// next bs[t] rows.
DirectionResult run_direction(detail::RNNMode mode, const Weights& w, const Tensor& x, const std::vector<int64_t>& bs,
                              const Tensor& h0, const Tensor& c0, bool reverse, int64_t H) {
  const bool lstm = mode == detail::RNNMode::LSTM;
  const int64_t T = static_cast<int64_t>(bs.size());
  // The steps' rows as views from one split: its backward writes every
  // step's gradient into one buffer (T narrows would each zero-fill a
  // gradient the size of the whole projection).
  const std::vector<Tensor> gx = input_projection(mode, w, x).split_with_sizes(bs, 0);
  std::vector<Tensor> outs(T);
  DirectionResult r;
  if (!reverse) {
    // Sequences end as the batch shrinks: their last states are set aside.
    std::vector<Tensor> done_h, done_c;
    Tensor h = h0, c = c0;
    for (int64_t t = 0; t < T; ++t) {
      const int64_t b = bs[t], prev = h.size(0);
      if (b < prev) {
        done_h.push_back(h.narrow(0, b, prev - b));
        h = h.narrow(0, 0, b);
        if (lstm) {
          done_c.push_back(c.narrow(0, b, prev - b));
          c = c.narrow(0, 0, b);
        }
      }
      std::tie(h, c) = step(mode, w, gx[t], h, c, H);
      outs[t] = h;
    }
    if (done_h.empty()) {
      r.h = h;
      r.c = c;
    } else {
      done_h.push_back(h);
      std::reverse(done_h.begin(), done_h.end());
      r.h = cat(done_h, 0);
      if (lstm) {
        done_c.push_back(c);
        std::reverse(done_c.begin(), done_c.end());
        r.c = cat(done_c, 0);
      }
    }
  } else {
    // Backwards in time: sequences join as the batch grows, from their h0 rows.
    Tensor h = T ? h0.narrow(0, 0, bs[T - 1]) : h0, c = lstm && T ? c0.narrow(0, 0, bs[T - 1]) : c0;
    for (int64_t t = T - 1; t >= 0; --t) {
      const int64_t b = bs[t], prev = h.size(0);
      if (b > prev) {
        h = cat({h, h0.narrow(0, prev, b - prev)}, 0);
        if (lstm) c = cat({c, c0.narrow(0, prev, b - prev)}, 0);
      }
      std::tie(h, c) = step(mode, w, gx[t], h, c, H);
      outs[t] = h;
    }
    r.h = h;
    r.c = c;
  }
  r.output = T == 1 ? outs[0] : cat(outs, 0);
  return r;
}

std::vector<int64_t> batch_sizes_of(const PackedSequence& p, const char* module) {
  EMBER_CHECK(p.batch_sizes.defined() && p.batch_sizes.dim() == 1 && p.batch_sizes.is_cpu(), module,
              ": PackedSequence.batch_sizes must be a 1-d CPU tensor");
  Tensor b = p.batch_sizes.to(kInt64).contiguous();
  std::vector<int64_t> v(b.data_ptr<int64_t>(), b.data_ptr<int64_t>() + b.numel());
  EMBER_CHECK(!v.empty() && v[0] > 0, module, ": PackedSequence with no time steps");
  for (size_t t = 1; t < v.size(); ++t)
    EMBER_CHECK(v[t] > 0 && v[t] <= v[t - 1], module, ": PackedSequence.batch_sizes must be positive and "
                "non-increasing, got ", IntArrayRef(v));
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------
// RNNImplBase

namespace detail {

RNNImplBase::RNNImplBase(std::string name, const Config& c) : Module(std::move(name)), config_(c) {
  const std::string& n = this->name();
  EMBER_CHECK(c.input_size >= 0, n, ": input_size must be non-negative, got ", c.input_size);
  EMBER_CHECK(c.hidden_size > 0, n, ": hidden_size must be greater than zero, got ", c.hidden_size);
  EMBER_CHECK(c.num_layers > 0, n, ": num_layers must be greater than zero, got ", c.num_layers);
  EMBER_CHECK(c.dropout >= 0 && c.dropout <= 1, n,
              ": dropout should be a number in range [0, 1] representing the probability of an element being "
              "zeroed, got ",
              c.dropout);
  EMBER_CHECK(c.proj_size >= 0, n, ": proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK(c.proj_size < c.hidden_size, n, ": proj_size has to be smaller than hidden_size");
  const int64_t G = gate_count(c.mode), H = c.hidden_size, D = c.bidirectional ? 2 : 1;
  const int64_t real_h = c.proj_size > 0 ? c.proj_size : H;
  flat_weights_.resize(static_cast<size_t>(c.num_layers * D * (2 + (c.bias ? 2 : 0) + (c.proj_size > 0 ? 1 : 0))));
  for (int64_t layer = 0; layer < c.num_layers; ++layer)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t in = layer == 0 ? c.input_size : real_h * D;
      const std::string suffix = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
      auto add = [&](const std::string& base, IntArrayRef sizes) {
        register_parameter(base + suffix, empty(sizes), &flat_weights_.at(names_.size()));
        names_.push_back(base + suffix);
      };
      add("weight_ih", {G * H, in});
      add("weight_hh", {G * H, real_h});
      if (c.bias) {
        add("bias_ih", {G * H});
        add("bias_hh", {G * H});
      }
      if (c.proj_size > 0) add("weight_hr", {c.proj_size, H});
    }
  reset_parameters();
}

std::vector<Tensor> RNNImplBase::all_weights() const {
  return flat_weights_;
}

void RNNImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(config_.hidden_size));
  for (Tensor w : all_weights()) init::uniform_(w, -stdv, stdv);
}

void RNNImplBase::pretty_print(std::ostream& os) const {
  const Config& c = config_;
  os << name() << "(" << c.input_size << ", " << c.hidden_size;
  if (c.proj_size != 0) os << ", proj_size=" << c.proj_size;
  if (c.num_layers != 1) os << ", num_layers=" << c.num_layers;
  if (!c.bias) os << ", bias=False";
  if (c.batch_first) os << ", batch_first=True";
  if (c.dropout != 0) os << ", dropout=" << c.dropout;
  if (c.bidirectional) os << ", bidirectional=True";
  os << ")";
}

void RNNImplBase::check_hidden(const Tensor& h, IntArrayRef expected, const char* what) const {
  EMBER_CHECK(h.sizes() == expected, name(), ": Expected ", what, " size ", shape_tuple(expected), ", got ",
              h.sizes());
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& input, const std::vector<int64_t>* batch_sizes,
                                                   const Tensor& hx, const Tensor& cx) {
  const Config& c = config_;
  const int64_t D = c.bidirectional ? 2 : 1, H = c.hidden_size;
  const Tensor& w0 = flat_weights_[0];
  EMBER_CHECK(input.dtype() == w0.dtype(), name(), ": input dtype ", input.dtype(),
              " does not match the weights' dtype ", w0.dtype(), " (convert with module->to(dtype))");
  EMBER_CHECK(input.device() == w0.device(), name(), ": input is on ", input.device(), " but the weights are on ",
              w0.device());
  std::vector<int64_t> bs;
  Tensor x;
  if (batch_sizes) {
    bs = *batch_sizes;
    x = input;
  } else {
    bs.assign(input.size(0), input.size(1));
    x = input.reshape({input.size(0) * input.size(1), input.size(2)});
  }

  const size_t per_dir = names_.size() / static_cast<size_t>(c.num_layers * D);
  const bool lstm = c.mode == RNNMode::LSTM;
  std::vector<Tensor> hn, cn;
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    std::vector<Tensor> dir_out;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t idx = layer * D + d;
      const Tensor* n = &flat_weights_[static_cast<size_t>(idx) * per_dir];
      Weights w;
      w.w_ih = n[0];
      w.w_hh = n[1];
      size_t k = 2;
      if (c.bias) {
        w.b_ih = n[k++];
        w.b_hh = n[k++];
      }
      if (c.proj_size > 0) w.w_hr = n[k++];
      DirectionResult r =
          run_direction(c.mode, w, x, bs, hx.select(0, idx), lstm ? cx.select(0, idx) : Tensor(), d == 1, H);
      dir_out.push_back(r.output);
      hn.push_back(r.h);
      if (lstm) cn.push_back(r.c);
    }
    x = D == 1 ? dir_out[0] : cat(dir_out, 1);
    if (c.dropout > 0 && is_training() && layer + 1 < c.num_layers)
      x = functional::dropout(x, c.dropout, /*training=*/true);
  }
  Tensor out = batch_sizes ? x : x.view({input.size(0), input.size(1), x.size(1)});
  return {out, stack(hn, 0), lstm ? stack(cn, 0) : Tensor()};
}

void RNNImplBase::check_input(const Tensor& input, int64_t expected_dim) const {
  EMBER_CHECK(input.dim() == expected_dim, name(), ": input must have ", expected_dim, " dimensions, got ",
              input.dim());
  EMBER_CHECK(input.size(-1) == config_.input_size, name(),
              ": input.size(-1) must be equal to input_size. Expected ", config_.input_size, ", got ",
              input.size(-1), " (input sizes ", input.sizes(), ")");
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::forward_tensor(const Tensor& input, const Tensor& hx_in,
                                                               const Tensor& cx_in) {
  const Config& c = config_;
  EMBER_CHECK(input.defined(), name(), ": input is undefined");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, name(), ": Expected input to be 2D or 3D, got ", input.dim(),
              "D instead (sizes ", input.sizes(), ")");
  const bool batched = input.dim() == 3;
  const bool lstm = c.mode == RNNMode::LSTM;
  Tensor x = !batched ? input.unsqueeze(1) : c.batch_first ? input.transpose(0, 1) : input;
  check_input(x, 3);
  const int64_t D = c.bidirectional ? 2 : 1, B = x.size(1);
  const DimVector h_shape{c.num_layers * D, B, out_size()}, c_shape{c.num_layers * D, B, c.hidden_size};
  auto prepare = [&](const Tensor& s, const DimVector& shape, const char* what) {
    if (!s.defined()) return zeros(shape, x.options());
    const int64_t want = batched ? 3 : 2;
    EMBER_CHECK(s.dim() == want, name(), ": For ", batched ? "batched 3-D" : "unbatched 2-D", " input, ", what,
                " should also be ", want, "-D but got ", s.dim(), "-D tensor");
    Tensor t = batched ? s : s.unsqueeze(1);
    check_hidden(t, shape, what);
    return t;
  };
  const Tensor hx = prepare(hx_in, h_shape, lstm ? "hidden[0]" : "hidden");
  const Tensor cx = lstm ? prepare(cx_in, c_shape, "hidden[1]") : Tensor();
  auto [out, hn, cn] = run(x, nullptr, hx, cx);
  if (!batched) return {out.squeeze(1), hn.squeeze(1), lstm ? cn.squeeze(1) : cn};
  if (c.batch_first) out = out.transpose(0, 1);
  return {out, hn, cn};
}

std::tuple<PackedSequence, Tensor, Tensor> RNNImplBase::forward_packed(const PackedSequence& input,
                                                                       const Tensor& hx_in, const Tensor& cx_in) {
  const Config& c = config_;
  EMBER_CHECK(input.data.defined(), name(), ": PackedSequence has no data");
  const std::vector<int64_t> bs = batch_sizes_of(input, name().c_str());
  check_input(input.data, 2);
  int64_t total = 0;
  for (int64_t b : bs) total += b;
  EMBER_CHECK(total == input.data.size(0), name(), ": PackedSequence.data has ", input.data.size(0),
              " rows but batch_sizes sum to ", total);
  const bool lstm = c.mode == RNNMode::LSTM;
  const int64_t D = c.bidirectional ? 2 : 1, B = bs[0];
  const DimVector h_shape{c.num_layers * D, B, out_size()}, c_shape{c.num_layers * D, B, c.hidden_size};
  auto prepare = [&](const Tensor& s, const DimVector& shape, const char* what) {
    if (!s.defined()) return zeros(shape, input.data.options());
    check_hidden(s, shape, what);
    // h0 is given in the caller's batch order; the packed rows are sorted.
    return input.sorted_indices.defined() ? s.index_select(1, input.sorted_indices) : s;
  };
  const Tensor hx = prepare(hx_in, h_shape, lstm ? "hidden[0]" : "hidden");
  const Tensor cx = lstm ? prepare(cx_in, c_shape, "hidden[1]") : Tensor();
  auto [out, hn, cn] = run(input.data, &bs, hx, cx);
  if (input.unsorted_indices.defined()) {
    hn = hn.index_select(1, input.unsorted_indices);
    if (lstm) cn = cn.index_select(1, input.unsorted_indices);
  }
  return {PackedSequence{out, input.batch_sizes, input.sorted_indices, input.unsorted_indices}, hn, cn};
}

}  // namespace detail

// ---------------------------------------------------------------------------
// RNN, LSTM, GRU

namespace {
detail::RNNMode rnn_mode(const std::string& nonlinearity) {
  if (nonlinearity == "tanh") return detail::RNNMode::RNN_TANH;
  if (nonlinearity == "relu") return detail::RNNMode::RNN_RELU;
  EMBER_CHECK(false, "RNN: Unknown nonlinearity '", nonlinearity, "'. Select from 'tanh' or 'relu'.");
  return {};
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& o)
    : RNNImplBase("RNN", {rnn_mode(o.nonlinearity), o.input_size, o.hidden_size, o.num_layers, o.bias,
                          o.batch_first, o.dropout, o.bidirectional, 0}),
      options(o) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [out, hn, cn] = forward_tensor(input, hx, Tensor());
  return {out, hn};
}

std::tuple<PackedSequence, Tensor> RNNImpl::forward(const PackedSequence& input, const Tensor& hx) {
  auto [out, hn, cn] = forward_packed(input, hx, Tensor());
  return {out, hn};
}

LSTMImpl::LSTMImpl(const LSTMOptions& o)
    : RNNImplBase("LSTM", {detail::RNNMode::LSTM, o.input_size, o.hidden_size, o.num_layers, o.bias, o.batch_first,
                           o.dropout, o.bidirectional, o.proj_size}),
      options(o) {}

std::tuple<Tensor, LSTMImpl::State> LSTMImpl::forward(const Tensor& input, const std::optional<State>& hx) {
  auto [out, hn, cn] = hx ? forward_tensor(input, std::get<0>(*hx), std::get<1>(*hx))
                          : forward_tensor(input, Tensor(), Tensor());
  return {out, State{hn, cn}};
}

std::tuple<PackedSequence, LSTMImpl::State> LSTMImpl::forward(const PackedSequence& input,
                                                              const std::optional<State>& hx) {
  auto [out, hn, cn] = hx ? forward_packed(input, std::get<0>(*hx), std::get<1>(*hx))
                          : forward_packed(input, Tensor(), Tensor());
  return {out, State{hn, cn}};
}

GRUImpl::GRUImpl(const GRUOptions& o)
    : RNNImplBase("GRU", {detail::RNNMode::GRU, o.input_size, o.hidden_size, o.num_layers, o.bias, o.batch_first,
                          o.dropout, o.bidirectional, 0}),
      options(o) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [out, hn, cn] = forward_tensor(input, hx, Tensor());
  return {out, hn};
}

std::tuple<PackedSequence, Tensor> GRUImpl::forward(const PackedSequence& input, const Tensor& hx) {
  auto [out, hn, cn] = forward_packed(input, hx, Tensor());
  return {out, hn};
}

// ---------------------------------------------------------------------------
// Cells

namespace detail {

RNNCellImplBase::RNNCellImplBase(std::string name, int64_t input_size, int64_t hidden_size, bool bias, int64_t gates,
                                 std::string nonlinearity)
    : Module(std::move(name)),
      input_size_(input_size),
      hidden_size_(hidden_size),
      bias_(bias),
      nonlinearity_(std::move(nonlinearity)) {
  EMBER_CHECK(input_size >= 0, this->name(), ": input_size must be non-negative, got ", input_size);
  EMBER_CHECK(hidden_size > 0, this->name(), ": hidden_size must be greater than zero, got ", hidden_size);
  register_parameter("weight_ih", empty({gates * hidden_size, input_size}), &weight_ih);
  register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}), &weight_hh);
  if (bias) {
    register_parameter("bias_ih", empty({gates * hidden_size}), &bias_ih);
    register_parameter("bias_hh", empty({gates * hidden_size}), &bias_hh);
  }
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (Tensor* w : {&weight_ih, &weight_hh, &bias_ih, &bias_hh})
    if (w->defined()) init::uniform_(*w, -stdv, stdv);
}

void RNNCellImplBase::pretty_print(std::ostream& os) const {
  os << name() << "(" << input_size_ << ", " << hidden_size_;
  if (!bias_) os << ", bias=False";
  if (!nonlinearity_.empty() && nonlinearity_ != "tanh") os << ", nonlinearity=" << nonlinearity_;
  os << ")";
}

void RNNCellImplBase::check_hidden(const Tensor& input, const Tensor& hx, const char* hx_name) const {
  EMBER_CHECK(input.size(0) == hx.size(0), name(), ": Input batch size ", input.size(0), " doesn't match ", hx_name,
              " batch size ", hx.size(0));
  EMBER_CHECK(hx.size(1) == hidden_size_, name(), ": ", hx_name, " has inconsistent hidden_size: got ", hx.size(1),
              ", expected ", hidden_size_);
}

std::tuple<Tensor, Tensor, bool> RNNCellImplBase::prepare(const Tensor& input, const Tensor& hx,
                                                          const char* hx_name) const {
  EMBER_CHECK(input.defined(), name(), ": input is undefined");
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, name(), ": Expected input to be 1-D or 2-D but received ",
              input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  Tensor x = batched ? input : input.unsqueeze(0);
  EMBER_CHECK(x.size(1) == input_size_, name(), ": input has inconsistent input_size: got ", x.size(1),
              " expected ", input_size_);
  EMBER_CHECK(x.dtype() == weight_ih.dtype(), name(), ": input dtype ", x.dtype(),
              " does not match the weights' dtype ", weight_ih.dtype());
  Tensor h;
  if (!hx.defined()) {
    h = zeros({x.size(0), hidden_size_}, x.options());
  } else {
    EMBER_CHECK(hx.dim() == input.dim(), name(), ": ", hx_name, " must have ", input.dim(), " dims like the input, got ",
                hx.dim(), " (sizes ", hx.sizes(), ")");
    h = batched ? hx : hx.unsqueeze(0);
    check_hidden(x, h, hx_name);
  }
  return {x, h, batched};
}

}  // namespace detail

namespace {
Weights cell_weights(const detail::RNNCellImplBase& m) {
  return Weights{m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh, Tensor()};
}
}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& o)
    : RNNCellImplBase("RNNCell", o.input_size, o.hidden_size, o.bias, 1, o.nonlinearity), options(o) {
  rnn_mode(o.nonlinearity);
}

Tensor RNNCellImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [x, h, batched] = prepare(input, hx, "hidden0");
  const auto mode = rnn_mode(options.nonlinearity);
  const Weights w = cell_weights(*this);
  Tensor out = step(mode, w, input_projection(mode, w, x), h, Tensor(), hidden_size_).first;
  return batched ? out : out.squeeze(0);
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& o)
    : RNNCellImplBase("LSTMCell", o.input_size, o.hidden_size, o.bias, 4, ""), options(o) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 const std::optional<std::tuple<Tensor, Tensor>>& hx) {
  auto [x, h, batched] = prepare(input, hx ? std::get<0>(*hx) : Tensor(), "hidden0");
  Tensor c;
  if (hx && std::get<1>(*hx).defined()) {
    const Tensor& c0 = std::get<1>(*hx);
    EMBER_CHECK(c0.dim() == input.dim(), name(), ": hidden1 must have ", input.dim(), " dims like the input, got ",
                c0.dim(), " (sizes ", c0.sizes(), ")");
    c = batched ? c0 : c0.unsqueeze(0);
    check_hidden(x, c, "hidden1");
  } else {
    c = zeros({x.size(0), hidden_size_}, x.options());
  }
  const Weights w = cell_weights(*this);
  auto [h2, c2] = step(detail::RNNMode::LSTM, w, input_projection(detail::RNNMode::LSTM, w, x), h, c, hidden_size_);
  if (!batched) return {h2.squeeze(0), c2.squeeze(0)};
  return {h2, c2};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& o)
    : RNNCellImplBase("GRUCell", o.input_size, o.hidden_size, o.bias, 3, ""), options(o) {}

Tensor GRUCellImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [x, h, batched] = prepare(input, hx, "hidden0");
  const Weights w = cell_weights(*this);
  Tensor out = step(detail::RNNMode::GRU, w, input_projection(detail::RNNMode::GRU, w, x), h, Tensor(),
                    hidden_size_)
                   .first;
  return batched ? out : out.squeeze(0);
}

}  // namespace ember::nn
