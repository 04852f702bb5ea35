// Quantized Embedding / EmbeddingBag and dynamic quantization (Linear, LSTM,
// GRU, cells, quantize_dynamic) against PyTorch 1.13 on the onednn engine
// (fixtures: scripts/fixtures/quant_dynamic.py). Embedding lookups and sum
// bags are bit-exact; the dynamic modules' float outputs agree within the
// tolerances stated at each check (measured: see docs/quantization.md).
#include <gtest/gtest.h>

#include <ember/ember.h>
// After ember.h: the workflow headers name ember::nn as nn:: from inside ember::ao.
#include <ember/ao/quantization/quantize_dynamic.h>
#include <ember/ao/nn/quantized/dynamic.h>
#include <ember/ao/nn/quantized/embedding.h>
#include <ember/ops/quantize.h>

#include "../temp_dir.h"
#include "tensor_expect.h"

using namespace ember;
namespace nnq = ember::ao::nn::quantized;
namespace nnqd = ember::ao::nn::quantized::dynamic;
namespace aq = ember::ao::quantization;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;
using ember::testing::TempDir;

namespace quant_dynamic_test {
Tensor qd_fx(const std::string& name) { return ember::testing::fixture("quant_dynamic", name); }

// Loads <case>_<key> for every state_dict key of a float module ('.' -> '_').
void qd_load(nn::Module& m, const std::string& name) {
  OrderedDict<Tensor> state;
  for (const auto& [key, value] : m.state_dict()) {
    std::string k = key;
    for (char& c : k)
      if (c == '.') c = '_';
    state.insert(key, qd_fx(name + "_" + k));
  }
  m.load_state_dict(state);
}

void qd_expect_equal(const Tensor& got, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(got.sizes(), expected.sizes()) << what;
  const double diff = (got.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
  EXPECT_EQ(diff, 0.0) << what << "\ngot\n" << got << "\nexpected\n" << expected;
}

double qd_max_diff(const Tensor& got, const Tensor& expected) {
  EXPECT_EQ(got.sizes(), expected.sizes());
  return (got.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
}

struct QdCase {
  const char* name;
  DType dtype;
  aq::QConfig qconfig;
};
std::vector<QdCase> qd_cases() {
  return {{"emb8", kQUInt8, aq::float_qparams_weight_only_qconfig()},
          {"emb4", kQUInt4x2, aq::float_qparams_weight_only_qconfig_4bit()}};
}

// The model quantize_dynamic is tested on (the fixture's TinyTagger):
// Embedding -> LSTM -> Linear, each child swappable.
class TinyTaggerImpl : public nn::Module, public aq::DynamicSwappableModule {
 public:
  TinyTaggerImpl() : TinyTaggerImpl(nn::Embedding(20, 8), nn::LSTM(8, 16), nn::Linear(16, 5)) {}
  TinyTaggerImpl(nn::Embedding e, nn::LSTM l, nn::Linear f)
      : Module("TinyTagger"), embedding(e), fc(f), lstm(l.ptr()) {
    register_module("embedding", e);
    register_module("lstm", l);
    register_module("fc", f);
  }
  Tensor forward(const Tensor& tokens) {
    auto [y, state] = lstm.forward(embedding.forward(tokens));
    return fc.forward(y);
  }
  void swap_child_module(const std::string& name, std::shared_ptr<nn::Module> m) override {
    if (name == "lstm") {
      lstm = aq::AnyLSTM(m);
    } else if (name == "embedding") {
      embedding = nn::AnyModule(std::dynamic_pointer_cast<nnq::EmbeddingImpl>(m));
    } else {
      fc = nn::AnyModule(std::dynamic_pointer_cast<nnqd::LinearImpl>(m));
    }
    replace_module(name, m);
  }
  nn::AnyModule embedding, fc;
  aq::AnyLSTM lstm;
};
EMBER_MODULE(TinyTagger);
}  // namespace quant_dynamic_test
using namespace quant_dynamic_test;

TEST(QuantizedEmbedding, FromFloatMatchesTorch) {
  nn::Embedding emb(12, 10);
  {
    NoGradGuard no_grad;
    emb->weight.copy_(qd_fx("emb_w"));
  }
  for (const QdCase& c : qd_cases()) {
    SCOPED_TRACE(c.name);
    auto q = nnq::EmbeddingImpl::from_float(*emb, c.qconfig);
    EXPECT_EQ(q->dtype(), c.dtype);
    qd_expect_equal(q->weight, qd_fx(std::string(c.name) + "_q").view({12, -1}), "stored integers");
    qd_expect_equal(q->weight_scales, qd_fx(std::string(c.name) + "_scales"), "scales");
    qd_expect_equal(q->weight_zero_points, qd_fx(std::string(c.name) + "_zps"), "zero points");
    // Dequantized table: (q - zp) * scale, as torch's dequantize.
    qd_expect_equal(q->dequantized_weight(), qd_fx(std::string(c.name) + "_deq"), "dequantized");
    // Lookups: bit-exact with torch's embedding kernels.
    qd_expect_equal(q->forward(qd_fx("emb_idx1")), qd_fx(std::string(c.name) + "_lookup1"), "lookup 1-d");
    qd_expect_equal(nnq::Embedding(q)(qd_fx("emb_idx2")), qd_fx(std::string(c.name) + "_lookup2"), "lookup 2-d");
  }
}

TEST(QuantizedEmbedding, BagMatchesTorch) {
  nn::EmbeddingBag fbag(nn::EmbeddingBagOptions{.num_embeddings = 12, .embedding_dim = 10, .mode = "sum"});
  {
    NoGradGuard no_grad;
    fbag->weight.copy_(qd_fx("emb_w"));
  }
  const Tensor idx = qd_fx("emb_idx1"), off = qd_fx("emb_offsets"), psw = qd_fx("emb_psw");
  for (const QdCase& c : qd_cases()) {
    SCOPED_TRACE(c.name);
    const std::string n = c.name;
    auto q = nnq::EmbeddingBagImpl::from_float(*fbag, c.qconfig);
    // Sums (the only mode torch's quantized kernels have): bit-exact.
    qd_expect_equal(q->forward(idx, off), qd_fx(n + "_bag_sum"), "sum");
    qd_expect_equal(q->forward(idx, off, psw), qd_fx(n + "_bag_psw"), "per_sample_weights");
    qd_expect_equal(q->forward(qd_fx("emb_idx2")), qd_fx(n + "_bag_2d"), "2-d input");
    q->options.include_last_offset = true;
    qd_expect_equal(q->forward(idx, cat({off, tensor<int64_t>({9})})), qd_fx(n + "_bag_last"), "include_last_offset");
    q->options.include_last_offset = false;
    // mean / max / padding_idx vs torch's float bag over the dequantized rows:
    // the lookup's fma and the dequantization round apart by an ulp.
    q->options.mode = "mean";
    expect_tensor_near(q->forward(idx, off), qd_fx(n + "_bag_mean"), 0, 1e-6);
    q->options.mode = "max";
    expect_tensor_near(q->forward(idx, off), qd_fx(n + "_bag_max"), 0, 1e-6);
    q->options.padding_idx = 5;
    q->options.mode = "mean";
    expect_tensor_near(q->forward(idx, off), qd_fx(n + "_bag_pad_mean"), 0, 1e-6);
    q->options.mode = "sum";
    expect_tensor_near(q->forward(idx, off), qd_fx(n + "_bag_pad_sum"), 0, 1e-6);
  }
}

TEST(QuantizedEmbedding, StateDictRoundTrip) {
  nn::Embedding emb(12, 10);
  {
    NoGradGuard no_grad;
    emb->weight.copy_(qd_fx("emb_w"));
  }
  TempDir dir;
  for (const QdCase& c : qd_cases()) {
    auto q = nnq::EmbeddingImpl::from_float(*emb, c.qconfig);
    const std::string path = dir.path(std::string(c.name) + ".safetensors");
    save(path, q->state_dict());
    nnq::Embedding fresh(nnq::EmbeddingOptions{.num_embeddings = 12, .embedding_dim = 10, .dtype = c.dtype});
    fresh->load_state_dict(load(path));
    EXPECT_TRUE(fresh(qd_fx("emb_idx2")).equal(q->forward(qd_fx("emb_idx2")))) << c.name;
    const auto keys = q->state_dict().keys();
    EXPECT_EQ(keys, (std::vector<std::string>{"weight", "weight_scales", "weight_zero_points"}));
  }
  // A 4-bit table does not load into an 8-bit module (its rows are half as wide).
  auto q4 = nnq::EmbeddingImpl::from_float(*emb, aq::float_qparams_weight_only_qconfig_4bit());
  nnq::Embedding q8(12, 10);
  EXPECT_THROW(q8->load_state_dict(q4->state_dict()), Error);
}

TEST(QuantizedEmbedding, BadInput) {
  nn::Embedding emb(12, 10);
  auto q = nnq::EmbeddingImpl::from_float(*emb);
  expect_error([&] { q->forward(tensor<int64_t>({12})); }, "index 12 is out of range for a table of 12 rows");
  expect_error([&] { q->forward(tensor({1.0f})); }, "indices must be int64 or int32");
  expect_error([&] { nnq::EmbeddingImpl::from_float(*emb, aq::default_dynamic_qconfig()); },
               "only supported with float_qparams_weight_only_qconfig");
  expect_error([] { nnq::Embedding(nnq::EmbeddingOptions{.num_embeddings = 3, .embedding_dim = 5,
                                                         .dtype = kQUInt4x2}); },
               "embedding_dim must be even, got 5");
  expect_error([] { nnq::Embedding(nnq::EmbeddingOptions{.num_embeddings = 3, .embedding_dim = 4, .dtype = kQInt8}); },
               "dtype must be quint8 or quint4x2, got qint8");
  nnq::EmbeddingBag bag(nnq::EmbeddingBagOptions{.num_embeddings = 12, .embedding_dim = 10});
  const Tensor idx = tensor<int64_t>({1, 2, 3});
  expect_error([&] { bag(idx); }, "a 1-d input needs 1-d offsets");
  expect_error([&] { bag(idx, tensor<int64_t>({1})); }, "offsets[0] must be 0, got 1");
  expect_error([&] { bag(idx, tensor<int64_t>({0, 2, 1})); }, "offsets must be non-decreasing");
  expect_error([&] { bag(idx, tensor<int64_t>({0}), tensor({1.0f, 2.0f})); }, "per_sample_weights must have the");
  bag->options.mode = "max";
  expect_error([&] { bag(idx, tensor<int64_t>({0}), tensor({1.0f, 2.0f, 3.0f})); },
               "per_sample_weights are only supported for mode \"sum\"");
  expect_error([] { nnq::EmbeddingBag(nnq::EmbeddingBagOptions{.num_embeddings = 2, .embedding_dim = 2,
                                                               .mode = "prod"}); },
               "mode must be \"sum\", \"mean\" or \"max\", got \"prod\"");
}

TEST(DynamicQuantization, LinearFromFloat) {
  nn::Linear lin(16, 8);
  qd_load(*lin, "dlin");
  for (const auto& [name, qc] : {std::pair{"pt", aq::default_dynamic_qconfig()},
                                 std::pair{"pc", aq::per_channel_dynamic_qconfig()}}) {
    SCOPED_TRACE(name);
    auto q = nnqd::LinearImpl::from_float(*lin, qc);
    qd_expect_equal(q->weight.int_repr(), qd_fx(std::string("dlin_") + name + "_wq"), "weight");
    // The integer sums are exact; the float epilogue differs in the last bits.
    expect_tensor_near(q->forward(qd_fx("dlin_x")), qd_fx(std::string("dlin_") + name + "_y"), 1e-5, 1e-5);
  }
  // state_dict round trip (weight qint8 with its parameters, bias float)
  auto q = nnqd::LinearImpl::from_float(*lin);
  TempDir dir;
  save(dir.path("dlin.safetensors"), q->state_dict());
  nnqd::Linear fresh(quantize_per_tensor(zeros({8, 16}), 1.0, 0, kQInt8), zeros({8}));
  fresh->load_state_dict(load(dir.path("dlin.safetensors")));
  EXPECT_TRUE(fresh(qd_fx("dlin_x")).equal(q->forward(qd_fx("dlin_x"))));
  EXPECT_DOUBLE_EQ(fresh->weight.q_scale(), q->weight.q_scale());
}

TEST(DynamicQuantization, LSTMMatchesTorch) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 6, .hidden_size = 7, .num_layers = 2, .bidirectional = true});
  qd_load(*lstm, "lstm");
  auto q = nnqd::LSTMImpl::from_float(*lstm);
  auto [y, state] = q->forward(qd_fx("lstm_x"), std::tuple{qd_fx("lstm_h0"), qd_fx("lstm_c0")});
  // Measured: max |diff| 1.2e-7 (2 layers x 2 directions x 5 steps); bound 1e-6.
  EXPECT_LT(qd_max_diff(y, qd_fx("lstm_y")), 1e-6);
  EXPECT_LT(qd_max_diff(std::get<0>(state), qd_fx("lstm_hn")), 1e-6);
  EXPECT_LT(qd_max_diff(std::get<1>(state), qd_fx("lstm_cn")), 1e-6);
  auto [y0, state0] = q->forward(qd_fx("lstm_x"));
  EXPECT_LT(qd_max_diff(y0, qd_fx("lstm_y_zero")), 1e-6);
  // The quantized model stays close to the float one (int8 weights).
  auto [yf, sf] = lstm->forward(qd_fx("lstm_x"), std::tuple{qd_fx("lstm_h0"), qd_fx("lstm_c0")});
  EXPECT_LT(qd_max_diff(y, yf), 0.05);

  // state_dict round trip
  TempDir dir;
  save(dir.path("lstm.safetensors"), q->state_dict());
  nnqd::LSTM fresh(nn::LSTMOptions{.input_size = 6, .hidden_size = 7, .num_layers = 2, .bidirectional = true});
  fresh->load_state_dict(load(dir.path("lstm.safetensors")));
  EXPECT_TRUE(std::get<0>(fresh(qd_fx("lstm_x"))).equal(y0));
  EXPECT_EQ(q->state_dict().keys().front(), "weight_ih_l0");
}

TEST(DynamicQuantization, GRUMatchesTorch) {
  nn::GRU gru(nn::GRUOptions{.input_size = 6, .hidden_size = 5, .batch_first = true});
  qd_load(*gru, "gru");
  auto q = nnqd::GRUImpl::from_float(*gru);
  auto [y, h] = q->forward(qd_fx("gru_x"), qd_fx("gru_h0"));
  EXPECT_LT(qd_max_diff(y, qd_fx("gru_y")), 1e-6);
  EXPECT_LT(qd_max_diff(h, qd_fx("gru_hn")), 1e-6);

  nn::GRU gru2(nn::GRUOptions{.input_size = 6, .hidden_size = 5, .num_layers = 2, .bidirectional = true});
  qd_load(*gru2, "gru2");
  auto q2 = nnqd::GRUImpl::from_float(*gru2);
  auto [y2, h2] = q2->forward(qd_fx("gru_x").transpose(0, 1).contiguous());
  EXPECT_LT(qd_max_diff(y2, qd_fx("gru2_y")), 1e-6);
  EXPECT_LT(qd_max_diff(h2, qd_fx("gru2_hn")), 1e-6);
}

TEST(DynamicQuantization, CellsMatchTorch) {
  nn::LSTMCell lc(6, 7);
  nn::GRUCell gc(6, 7);
  qd_load(*lc, "lstmcell");
  qd_load(*gc, "grucell");
  auto ql = nnqd::LSTMCellImpl::from_float(*lc, aq::default_dynamic_qconfig());
  auto qg = nnqd::GRUCellImpl::from_float(*gc, aq::default_dynamic_qconfig());
  auto [h, c] = ql->forward(qd_fx("cell_x"), std::tuple{qd_fx("cell_h"), qd_fx("cell_c")});
  EXPECT_LT(qd_max_diff(h, qd_fx("lstmcell_h")), 1e-6);
  EXPECT_LT(qd_max_diff(c, qd_fx("lstmcell_c")), 1e-6);
  EXPECT_LT(qd_max_diff(qg->forward(qd_fx("cell_x"), qd_fx("cell_h")), qd_fx("grucell_h")), 1e-6);
}

TEST(DynamicQuantization, QuantizeDynamicTinyTagger) {
  TinyTagger model;
  qd_load(*model, "tagger");
  const Tensor tokens = qd_fx("tagger_tokens");
  expect_tensor_near(model(tokens), qd_fx("tagger_float_y"), 1e-5, 1e-6);
  const auto swapped = aq::quantize_dynamic(*model, {{typeid(nn::EmbeddingImpl), aq::float_qparams_weight_only_qconfig()},
                                                     {typeid(nn::LSTMImpl), aq::default_dynamic_qconfig()},
                                                     {typeid(nn::LinearImpl), aq::default_dynamic_qconfig()}});
  EXPECT_EQ(swapped, (std::vector<std::string>{"embedding", "lstm", "fc"}));
  EXPECT_NE(std::dynamic_pointer_cast<nnq::EmbeddingImpl>(model->embedding.ptr()), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<nnqd::LSTMImpl>(model->lstm.ptr()), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<nnqd::LinearImpl>(model->fc.ptr()), nullptr);
  EXPECT_LT(qd_max_diff(model(tokens), qd_fx("tagger_y")), 1e-6);
  // The swapped modules are the registered children (state_dict sees them).
  EXPECT_TRUE(model->state_dict().find("lstm.weight_ih_l0")->is_quantized());
  EXPECT_TRUE(model->state_dict().find("fc.weight")->is_quantized());
}

TEST(DynamicQuantization, QuantizeDynamicInSequential) {
  nn::Sequential seq(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  const Tensor x = randn({5, 4});
  const Tensor before = seq(x);
  EXPECT_EQ(aq::quantize_dynamic(*seq), (std::vector<std::string>{"0", "2"}));
  EXPECT_NE(std::dynamic_pointer_cast<nnqd::LinearImpl>(seq->children()[0]), nullptr);
  EXPECT_LT(qd_max_diff(seq(x), before), 0.05);
  // A set of types with its dtype's qconfig; quint8 takes the embeddings.
  nn::Sequential embs(nn::Embedding(10, 4), nn::Linear(4, 2));
  EXPECT_EQ(aq::quantize_dynamic(*embs, {typeid(nn::EmbeddingImpl)}, aq::QDType::kQUInt8),
            (std::vector<std::string>{"0"}));
  // float16 takes Linear (test_quant_dynamic_fp16.cpp); qint32 is no dynamic dtype.
  EXPECT_EQ(aq::quantize_dynamic(*embs, aq::QDType::kFloat16), (std::vector<std::string>{"1"}));
  expect_error([&] { aq::quantize_dynamic(*embs, aq::QDType::kQInt32); }, "is not supported (qint8 or float16");
  // quint4x2's default types: EmbeddingBag only, with 4-bit rows.
  nn::Sequential bags(nn::EmbeddingBag(nn::EmbeddingBagOptions{.num_embeddings = 6, .embedding_dim = 4}),
                      nn::Embedding(6, 4));
  EXPECT_EQ(aq::quantize_dynamic(*bags, aq::QDType::kQUInt4x2), (std::vector<std::string>{"0"}));
  auto qbag = std::dynamic_pointer_cast<nnq::EmbeddingBagImpl>(bags->children()[0]);
  ASSERT_NE(qbag, nullptr);
  EXPECT_EQ(qbag->dtype(), kQUInt4x2);
  EXPECT_EQ(qbag->options.mode, "mean");  // the float bag's mode is kept
  EXPECT_EQ(qbag->forward(tensor<int64_t>({1, 2}), empty({0}, kInt64)).size(0), 0);  // no offsets, no bags
  // An LSTM in a Sequential-like parent that cannot hold it is an error naming the parent.
  nn::Sequential holder;
  holder->register_module("rnn", nn::LSTM(3, 3));
  expect_error([&] { aq::quantize_dynamic(*holder); }, "must implement DynamicSwappableModule");
}

TEST(DynamicQuantization, BadInput) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 6, .hidden_size = 7});
  auto q = nnqd::LSTMImpl::from_float(*lstm);
  expect_error([&] { q->forward(randn({5, 3, 4})); }, "input.size(-1) must be equal to input_size. Expected 6, got 4");
  expect_error([&] { q->forward(randn({5, 3, 6}), std::tuple{zeros({2, 3, 7}), zeros({1, 3, 7})}); },
               "expected hidden state h0 of sizes [1, 3, 7]");
  nn::LSTM nobias(nn::LSTMOptions{.input_size = 6, .hidden_size = 7, .bias = false});
  expect_error([&] { nnqd::LSTMImpl::from_float(*nobias); }, "the float module must have biases");
  nn::Linear lin(3, 2);
  aq::QConfig u8{aq::default_dynamic_qconfig().activation,
                 [] { return std::make_shared<aq::NoopObserver>(aq::QDType::kQUInt8); }};
  expect_error([&] { nnqd::LinearImpl::from_float(*lin, u8); }, "dynamic quantization supports qint8");
  expect_error([] { aq::AnyLSTM(std::make_shared<nn::LinearImpl>(2, 2)); }, "AnyLSTM: expected an LSTM");
}
