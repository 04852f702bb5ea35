// Suite text: Ember::text's SentencePiece encoding against python3-sentencepiece
// 0.1.97 (in Python, peers/text.py), both over Debian's libsentencepiece.
//
// Input: 100k sentences, the non-empty lines of kjv.txt and botchan.txt from
// ../shared/data, cycled; model: ../shared/data/tokenizers/spm_example.model
// (a unigram model with nmt_nfkc normalization). Every side encodes every
// sentence to ids; the check compares all ids, concatenated as int64.
//   sp_encode_100k_1thread: Ember's encode_as_ids in a loop vs Python's
//     encode(lines, num_threads=1) (the library's batch loop, one thread).
//   sp_encode_100k_batched: Ember's encode_batch_as_ids on the suite's threads
//     (parallel_for) vs the same single-threaded Python peer.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/text/sentencepiece.h"

namespace {

using ember_bench::Case;
namespace fs = std::filesystem;

constexpr size_t kSentences = 100000;

std::string python() {
  const char* p = std::getenv("EMBER_BENCH_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

fs::path shared_data() {
  const char* root = std::getenv("EMBER_SHARED_DATA");
  return root && *root ? fs::path(root) : fs::path(std::string(EMBER_BENCH_SOURCE_DIR) + "/../../shared/data");
}

fs::path need(const fs::path& path) {
  if (!fs::exists(path)) throw ember_bench::SkipWorkload("no " + path.string() + " (set EMBER_SHARED_DATA)");
  return path;
}

struct Input {
  std::vector<std::string> sentences;
  std::string path;   // the sentences, one a line, for the peer
  std::string model;  // the model file
};

const Input& sentences_100k() {
  static const Input in = [] {
    std::vector<std::string> pool;
    for (const char* book : {"text/kjv.txt", "text/botchan.txt"}) {
      std::ifstream f(need(shared_data() / book));
      for (std::string line; std::getline(f, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a BOM
        if (line.find_first_not_of(" \t") != std::string::npos) pool.push_back(line);
      }
    }
    Input in{{}, ember_bench::scratch_dir() + "/text_sentences_100k.txt",
             need(shared_data() / "tokenizers" / "spm_example.model").string()};
    std::ofstream out(in.path, std::ios::binary);
    for (size_t i = 0; i < kSentences; ++i) {
      in.sentences.push_back(pool[i % pool.size()]);
      out << in.sentences.back() << '\n';
    }
    if (!out) throw std::runtime_error("cannot write " + in.path);
    return in;
  }();
  return in;
}

ember::Tensor concatenated(const std::vector<std::vector<int>>& ids) {
  std::vector<int64_t> flat;
  for (const auto& row : ids) flat.insert(flat.end(), row.begin(), row.end());
  return ember::tensor(flat);
}

Case encode_case(bool batched) {
  const Input& in = sentences_100k();
  auto sp = std::make_shared<const ember::text::SentencePieceProcessor>(
      ember::text::SentencePieceProcessor::from_file(in.model));
  Case c{[sp, batched, &in] {
           if (batched) return concatenated(sp->encode_batch_as_ids(in.sentences));
           std::vector<std::vector<int>> ids;
           ids.reserve(in.sentences.size());
           for (const std::string& s : in.sentences) ids.push_back(sp->encode_as_ids(s));
           return concatenated(ids);
         },
         {}};
  c.peer_name = "";
  c.rtol = 0;
  c.atol = 0;
  c.units = static_cast<int64_t>(kSentences);
  c.unit_name = "sentence";
  c.external_peers = {{"sentencepiece-py-1thread",
                       {python(), ember_bench::source_dir() + "/peers/text.py", "sp_encode", "--model", in.model,
                        "--input", in.path, "--peer-threads", "1"}}};
  return c;
}

const bool kRegistered = ember_bench::add_workloads({
    {"text", "sp_encode_100k_1thread", [] { return encode_case(false); }},
    {"text", "sp_encode_100k_batched", [] { return encode_case(true); }},
});

}  // namespace
