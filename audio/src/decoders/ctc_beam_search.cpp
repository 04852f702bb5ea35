// CTC prefix beam search with an optional lexicon.
//
// Note [Prefix probabilities]
// A prefix (collapsed labels so far) stands for every alignment of the frames
// seen that collapses to it. p_b sums those ending in a blank, p_nb those
// ending in the prefix's last label; both are kept as logs. One more frame:
//  - blank: the prefix stays, p_b' += (p_b + p_nb) * y(blank);
//  - its last label c again: without a blank between it collapses, so the
//    prefix stays, p_nb' += p_nb * y(c); after a blank it is a new label:
//    prefix + c gets p_nb' += p_b * y(c);
//  - another label c: prefix + c gets p_nb' += (p_b + p_nb) * y(c).
// The beam_size prefixes of largest p_b + p_nb survive each frame; ties go to
// the lexicographically smaller prefix so the result is deterministic.
//
// Note [Lexicon-constrained prefixes]
// With a lexicon each prefix also holds a trie node: the partial word after
// its last delimiter. A label may extend a prefix only if some lexicon word
// continues with it; the delimiter only after a whole word (or as the very
// first label, since acoustic models often emit one at the start), which
// returns to the root. Staying put (blank, repeated label) is always allowed.
// At the end only prefixes whose partial word is empty or whole are returned.
#include <ember/audio/decoders/ctc.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "decoders/ctc_input.h"

namespace ember::audio::decoders {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

struct Beam {
  std::vector<int64_t> prefix;
  double p_blank = kNegInf;
  double p_non_blank = kNegInf;
  int32_t node = Lexicon::kRoot;
  double total() const { return log_add(p_blank, p_non_blank); }
};

struct PrefixHash {
  size_t operator()(const std::vector<int64_t>& prefix) const {
    uint64_t h = 1469598103934665603ULL;
    for (const int64_t token : prefix) {
      h ^= static_cast<uint64_t>(token) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

bool ranks_before(const Beam& a, double a_total, const Beam& b, double b_total) {
  if (a_total != b_total) return a_total > b_total;
  return a.prefix < b.prefix;
}

// Ranks beams best first, keeps `keep` of them.
void prune(std::vector<Beam>& beams, size_t keep) {
  std::vector<std::pair<double, size_t>> order;
  order.reserve(beams.size());
  for (size_t i = 0; i < beams.size(); ++i) order.emplace_back(beams[i].total(), i);
  const auto cmp = [&](const auto& x, const auto& y) {
    return ranks_before(beams[x.second], x.first, beams[y.second], y.first);
  };
  const size_t kept = std::min(keep, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(), cmp);
  std::vector<Beam> out;
  out.reserve(kept);
  for (size_t i = 0; i < kept; ++i) out.push_back(std::move(beams[order[i].second]));
  beams = std::move(out);
}

class Search {
 public:
  Search(const detail::CtcFrames& frames, const CtcBeamSearchOptions& options)
      : frames_(frames), options_(options), lexicon_(options.lexicon ? &*options.lexicon : nullptr) {}

  std::vector<CtcHypothesis> run(int64_t n) const {
    std::vector<Beam> beams(1);
    beams[0].p_blank = 0.0;
    for (int64_t t = 0; t < frames_.lengths[static_cast<size_t>(n)]; ++t) {
      beams = step(beams, frames_.frame(n, t));
      prune(beams, static_cast<size_t>(options_.beam_size));
    }
    if (lexicon_) {
      std::erase_if(beams, [&](const Beam& b) { return b.node != Lexicon::kRoot && !lexicon_->is_word(b.node); });
    }
    prune(beams, static_cast<size_t>(options_.nbest));
    std::vector<CtcHypothesis> out;
    out.reserve(beams.size());
    for (auto& b : beams) out.push_back(CtcHypothesis{std::move(b.prefix), b.total()});
    return out;
  }

 private:
  // The trie node after appending token to beam (Note [Lexicon-constrained prefixes]), or -1.
  int32_t extend(const Beam& beam, int64_t token) const {
    if (!lexicon_) return Lexicon::kRoot;
    if (token == lexicon_->word_delimiter()) {
      return (lexicon_->is_word(beam.node) || beam.prefix.empty()) ? Lexicon::kRoot : -1;
    }
    return lexicon_->child(beam.node, token);
  }

  std::vector<Beam> step(const std::vector<Beam>& beams, const double* y) const {
    std::vector<Beam> next;
    std::unordered_map<std::vector<int64_t>, size_t, PrefixHash> index;
    const auto slot = [&](const std::vector<int64_t>& prefix, int32_t node) -> Beam& {
      auto [it, inserted] = index.try_emplace(prefix, next.size());
      if (inserted) {
        next.emplace_back();
        next.back().prefix = prefix;
        next.back().node = node;
      }
      return next[it->second];
    };
    const int64_t blank = options_.blank;
    for (const Beam& beam : beams) {
      const double total = beam.total();
      for (int64_t c = 0; c < frames_.classes; ++c) {
        const double p = y[c];
        if (p == kNegInf) continue;  // adds nothing; keeps impossible prefixes out of the beam
        if (c == blank) {
          Beam& same = slot(beam.prefix, beam.node);
          same.p_blank = log_add(same.p_blank, total + p);
          continue;
        }
        const bool repeat = !beam.prefix.empty() && beam.prefix.back() == c;
        if (repeat) {
          Beam& same = slot(beam.prefix, beam.node);
          same.p_non_blank = log_add(same.p_non_blank, beam.p_non_blank + p);
        }
        const int32_t node = extend(beam, c);
        if (node < 0) continue;
        const double from = repeat ? beam.p_blank + p : total + p;
        if (from == kNegInf) continue;
        std::vector<int64_t> longer = beam.prefix;
        longer.push_back(c);
        Beam& grown = slot(longer, node);
        grown.p_non_blank = log_add(grown.p_non_blank, from);
      }
    }
    return next;
  }

  const detail::CtcFrames& frames_;
  const CtcBeamSearchOptions& options_;
  const Lexicon* lexicon_;
};

}  // namespace

std::vector<std::vector<CtcHypothesis>> ctc_prefix_beam_search(const Tensor& log_probs,
                                                               const std::optional<Tensor>& lengths,
                                                               const CtcBeamSearchOptions& options) {
  constexpr const char* op = "ctc_prefix_beam_search";
  EMBER_CHECK(options.beam_size >= 1, op, ": beam_size must be at least 1, got ", options.beam_size);
  EMBER_CHECK(options.nbest >= 1 && options.nbest <= options.beam_size, op, ": nbest must be in [1, beam_size = ",
              options.beam_size, "], got ", options.nbest);
  const auto frames = detail::read_ctc_frames(op, log_probs, lengths, options.blank, options.batch_first);
  if (options.lexicon) {
    const Lexicon& lex = *options.lexicon;
    EMBER_CHECK(lex.max_token() < frames.classes, op, ": the lexicon uses token ", lex.max_token(),
                " but log_probs has ", frames.classes, " classes");
    EMBER_CHECK(lex.word_delimiter() != options.blank, op, ": the lexicon's word delimiter is the blank (",
                options.blank, ")");
    EMBER_CHECK(!lex.uses_token(options.blank), op, ": a lexicon word uses the blank token ", options.blank);
  }
  const Search search(frames, options);
  std::vector<std::vector<CtcHypothesis>> out;
  out.reserve(static_cast<size_t>(frames.batch));
  for (int64_t n = 0; n < frames.batch; ++n) out.push_back(search.run(n));
  return out;
}

}  // namespace ember::audio::decoders
