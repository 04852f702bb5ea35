// Suite text (ember_bench_text, no libtorch: Note [Two harness builds] in
// bench.h): Ember::text's tokenizers and an LM training step against their
// Python peers (peers/text.py), each in its own process, on the same inputs.
//
// Corpus: 100,000 lines, the non-empty lines of the KJV bible
// (../shared/data/text/kjv.txt, 31,102 lines, "Ge1:1 In the beginning ...")
// repeated and cut, written to the scratch folder for the peers. Workloads:
//  - sp_encode_100k_1thread: SentencePiece ids of every line with
//    ../shared/data/tokenizers/spm_example.model, one line after another on
//    one thread, vs python3-sentencepiece 0.1.97's encode(list,
//    num_threads=1) (its C++ batch encoder on one thread; its default, -1,
//    takes every core).
//  - sp_encode_100k_batched: the same with encode_batch_as_ids on the
//    harness's threads, vs the same single-threaded peer (target 1.8x on 2)
//    and vs encode(list, num_threads=<the harness's threads>).
//  - basic_english_vocab_100k: get_tokenizer("basic_english") then the vocab's
//    lookup_indices per line, vs torchtext 0.14's _basic_english_normalize
//    (Python re) and a dict lookup with a default index
//    (scripts/fixtures/text_tok.py); the vocab (min_freq 2, "<unk>" first and
//    the default) is built from the corpus on each side, outside the timing.
//  - gpt2_bpe_encode_100k: GPT2BPETokenizer::encode per line with the
//    400-merge encoder.json / vocab.bpe of tests/data/text/text_bpe, vs the
//    Python port of GPT-2's encoder.py in scripts/fixtures/text_bpe.py (Python
//    re with spelled-out Unicode classes: Debian has no `regex` module). Both
//    keep GPT-2's word cache across runs.
//  - transformer_lm_train_step_b20x35_d256: one step of the PyTorch
//    word_language_model example's TransformerModel at d_model 256 (below),
//    Ember's nn vs torch.nn in Debian's python3, the harness's threads on both.
// The two workloads that use the threads (the batched encode and the LM step)
// are also timed beside a busy core (Case::under_load).
// Token results are every line's ids, each line followed by -1, as int64: the
// check is exact. Each side's timed call produces its native result (a list
// of id lists); Ember's flattening into the checked tensor is inside its time.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/text/text.h"

namespace {

using ember_bench::Case;
namespace text = ember::text;

constexpr int64_t kLines = 100000;

std::string python() {
  const char* p = std::getenv("EMBER_BENCH_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

std::filesystem::path shared_data() {
  const char* root = std::getenv("EMBER_SHARED_DATA");
  return root && *root ? std::filesystem::path(root)
                       : std::filesystem::path(EMBER_BENCH_SOURCE_DIR) / ".." / ".." / "shared" / "data";
}

std::string need(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path))
    throw ember_bench::SkipWorkload("no " + path.string() + " (set EMBER_SHARED_DATA)");
  return path.string();
}

std::string test_data(const std::string& name) {
  return std::string(EMBER_BENCH_SOURCE_DIR) + "/../tests/data/text/text_bpe/" + name;
}

// The corpus's lines (Ember's input) and the file the peers read: the lines
// joined by '\n', without a final newline.
struct Corpus {
  std::vector<std::string> lines;
  std::string path;
};

const Corpus& corpus() {
  static const Corpus c = [] {
    std::ifstream f(need(shared_data() / "text" / "kjv.txt"), std::ios::binary);
    std::vector<std::string> once;
    for (std::string line; std::getline(f, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") != std::string::npos) once.push_back(line);
    }
    if (once.empty()) throw std::runtime_error("kjv.txt has no lines");
    Corpus out;
    out.lines.reserve(kLines);
    for (int64_t i = 0; i < kLines; ++i) out.lines.push_back(once[static_cast<size_t>(i) % once.size()]);
    out.path = ember_bench::scratch_dir() + "/text_corpus.txt";
    std::ofstream w(out.path, std::ios::binary);
    for (size_t i = 0; i < out.lines.size(); ++i) w << (i ? "\n" : "") << out.lines[i];
    if (!w) throw std::runtime_error("cannot write " + out.path);
    return out;
  }();
  return c;
}

// Every line's ids followed by -1, as one int64 tensor (the checked result).
template <class Lists>
ember::Tensor flatten(const Lists& lists) {
  size_t n = lists.size();
  for (const auto& l : lists) n += l.size();
  ember::Tensor t = ember::empty({static_cast<int64_t>(n)}, ember::TensorOptions(ember::kInt64));
  int64_t* out = static_cast<int64_t*>(t.data_ptr());
  for (const auto& l : lists) {
    for (const auto id : l) *out++ = static_cast<int64_t>(id);
    *out++ = -1;
  }
  return t;
}

ember_bench::ExternalPeer peer(const std::string& who, const std::string& workload,
                               std::vector<std::string> extra = {}) {
  std::vector<std::string> cmd = {python(), ember_bench::source_dir() + "/peers/text.py", workload,
                                  "--corpus", corpus().path};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  return {who, cmd};
}

Case external_only(std::function<ember::Tensor()> run, ember_bench::ExternalPeer p) {
  Case c{std::move(run), {}};
  c.peer_name = "";
  c.external_peers = {std::move(p)};
  return c;
}

std::string sp_model_path() { return need(shared_data() / "tokenizers" / "spm_example.model"); }

ember_bench::Workload sp_encode(bool batched) {
  return {"text", batched ? "sp_encode_100k_batched" : "sp_encode_100k_1thread", [batched] {
            const std::string model = sp_model_path();
            auto sp = std::make_shared<const text::SentencePieceProcessor>(
                text::SentencePieceProcessor::from_file(model));
            const Corpus& c = corpus();
            auto run = [sp, &c, batched] {
              if (batched) return flatten(sp->encode_batch_as_ids(c.lines));
              std::vector<std::vector<int>> ids;
              ids.reserve(c.lines.size());
              for (const auto& line : c.lines) ids.push_back(sp->encode_as_ids(line));
              return flatten(ids);
            };
            Case k = external_only(run, peer("sentencepiece_1thread", "sp_encode", {"--model", model, "--sp-threads", "1"}));
            if (batched)
              k.external_peers.push_back(
                  peer("sentencepiece_batched", "sp_encode", {"--model", model, "--sp-threads", "all"}));
            k.units = kLines;
            k.unit_name = "line";
            // The batched encoder is the one that uses the threads: also timed
            // beside a busy core (README, "Speed under load").
            k.under_load = batched;
            return k;
          }};
}

ember_bench::Workload basic_english_vocab() {
  return {"text", "basic_english_vocab_100k", [] {
            const Corpus& c = corpus();
            const text::Tokenizer tokenize = text::get_tokenizer("basic_english");
            text::TokenCounter counter;
            for (const auto& line : c.lines) counter.update(tokenize(line));
            auto vocab = std::make_shared<text::Vocab>(
                text::build_vocab_from_counter(counter, /*min_freq=*/2, {"<unk>"}));
            vocab->set_default_index(0);
            auto run = [vocab, tokenize, &c] {
              std::vector<std::vector<int64_t>> ids;
              ids.reserve(c.lines.size());
              for (const auto& line : c.lines) ids.push_back(vocab->lookup_indices(tokenize(line)));
              return flatten(ids);
            };
            Case k = external_only(run, peer("python_re_dict", "basic_english_vocab"));
            k.units = kLines;
            k.unit_name = "line";
            return k;
          }};
}

ember_bench::Workload gpt2_bpe() {
  return {"text", "gpt2_bpe_encode_100k", [] {
            const std::string encoder = test_data("encoder.json"), merges = test_data("vocab.bpe");
            auto bpe = std::make_shared<text::GPT2BPETokenizer>(encoder, merges);
            const Corpus& c = corpus();
            auto run = [bpe, &c] {
              std::vector<std::vector<int64_t>> ids;
              ids.reserve(c.lines.size());
              for (const auto& line : c.lines) ids.push_back(bpe->encode(line));
              return flatten(ids);
            };
            Case k = external_only(run, peer("gpt2_encoder_py", "gpt2_bpe", {"--encoder", encoder, "--merges", merges}));
            k.units = kLines;
            k.unit_name = "line";
            return k;
          }};
}

// The word_language_model example's TransformerModel (pytorch/examples,
// model.py) with d_model 256, 4 heads, feed-forward 256 (its nhid = emsize),
// 2 layers, a 10,000-word vocabulary, dropout 0 (so that the two sides'
// results can be compared), on a [35, 20] batch (bptt 35, batch 20, sequence
// first) with the causal mask; cross-entropy, backward, clip_grad_norm_ 0.25,
// SGD lr 5. Ember's initial weights and the positional encoding are written
// to the scratch folder and loaded by the peer by parameter name.
constexpr int64_t kVocab = 10000, kModel = 256, kHeads = 4, kHidden = 256, kLayers = 2, kBptt = 35, kBatch = 20;

struct WordLmImpl : ember::nn::Module {
  ember::nn::Embedding encoder{nullptr};
  ember::nn::TransformerEncoder transformer_encoder{nullptr};
  ember::nn::Linear decoder{nullptr};
  ember::Tensor pe;  // [kBptt, 1, kModel]

  WordLmImpl() {
    namespace nn = ember::nn;
    encoder = register_module("encoder", nn::Embedding(kVocab, kModel));
    transformer_encoder = register_module(
        "transformer_encoder",
        nn::TransformerEncoder(nn::TransformerEncoderLayer(nn::TransformerLayerOptions{
                                   .d_model = kModel, .nhead = kHeads, .dim_feedforward = kHidden, .dropout = 0}),
                               kLayers));
    decoder = register_module("decoder", nn::Linear(kModel, kVocab));
    {
      ember::NoGradGuard no_grad;
      nn::init::uniform_(encoder->weight, -0.1, 0.1);  // the example's init_weights
      nn::init::uniform_(decoder->weight, -0.1, 0.1);
      nn::init::zeros_(decoder->bias);
    }
    // The example's PositionalEncoding, for the first kBptt positions.
    const ember::Tensor position = ember::arange(kBptt, ember::kFloat32).unsqueeze(1);
    const ember::Tensor div_term =
        ember::exp(ember::arange(0, kModel, 2, ember::kFloat32) * (-std::log(10000.0) / kModel));
    pe = ember::zeros({kBptt, kModel});
    pe.slice(1, 0, kModel, 2).copy_(ember::sin(position * div_term));
    pe.slice(1, 1, kModel, 2).copy_(ember::cos(position * div_term));
    pe = pe.unsqueeze(1).contiguous();
  }

  ember::Tensor forward(const ember::Tensor& src, const ember::Tensor& mask) {
    const ember::Tensor x = encoder(src) * std::sqrt(static_cast<double>(kModel)) + pe;
    return decoder(transformer_encoder(x, mask));
  }
};
EMBER_MODULE(WordLm);

void write_raw(const std::string& path, const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous();
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

ember_bench::Workload lm_train_step() {
  return {"text", "transformer_lm_train_step_b20x35_d256", [] {
            ember::manual_seed(0);
            WordLm model;
            const std::string dir = ember_bench::scratch_dir();
            const std::string weights = dir + "/text_lm_weights.f32", names = dir + "/text_lm_weights.txt",
                              data = dir + "/text_lm_batch.i64", pe = dir + "/text_lm_pe.f32";
            for (const auto& p : {weights, data, pe}) std::filesystem::remove(p);
            {
              std::ofstream list(names, std::ios::trunc);
              for (const auto& [name, p] : model->named_parameters()) {
                list << name << ' ' << p.numel() << '\n';
                write_raw(weights, p.detach());
              }
              if (!list) throw std::runtime_error("cannot write " + names);
            }
            write_raw(pe, model->pe);
            const ember::Tensor batch = ember::randint(0, kVocab, {kBptt + 1, kBatch}, ember::TensorOptions(ember::kInt64));
            write_raw(data, batch);
            const ember::Tensor src = batch.slice(0, 0, kBptt), target = batch.slice(0, 1, kBptt + 1).reshape({-1});
            const ember::Tensor mask = ember::nn::TransformerImpl::generate_square_subsequent_mask(kBptt);
            auto params = model->parameters();
            auto opt = std::make_shared<ember::optim::SGD>(params, ember::optim::SGDOptions{.lr = 5.0});
            // The check compares the second step's loss, which depends on the
            // first step's gradients and update (the peer reports the same).
            auto steps = std::make_shared<int>(0);
            auto second_loss = std::make_shared<ember::Tensor>();
            auto run = [=]() mutable {
              opt->zero_grad();
              const ember::Tensor out = model(src, mask);
              ember::Tensor loss = ember::nn::functional::cross_entropy(out.reshape({-1, kVocab}), target);
              loss.backward();
              ember::nn::utils::clip_grad_norm_(params, 0.25);
              opt->step();
              if (++*steps == 2) *second_loss = loss.detach();
              return *steps >= 2 ? *second_loss : loss.detach();
            };
            Case k = external_only(run, {"torch_nn", {python(), ember_bench::source_dir() + "/peers/text.py",
                                                      "lm_train_step", "--weights", weights, "--names", names,
                                                      "--pe", pe, "--batch", data}});
            k.rtol = 1e-3;
            k.atol = 1e-4;
            k.under_load = true;
            return k;
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(
    {sp_encode(false), sp_encode(true), basic_english_vocab(), gpt2_bpe(), lm_train_step()});

}  // namespace
