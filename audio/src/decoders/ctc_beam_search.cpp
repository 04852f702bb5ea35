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

// Note [Prefix arena]
// Prefixes are nodes of a tree (parent, last token): extending one is a map
// lookup, not a copy of its tokens, and a beam entry is a node id. Ids are
// dense, so the next frame's entries are found through a vector indexed by id.
// Token sequences are rebuilt only for ties in ranking and for the results.
class PrefixArena {
 public:
  static constexpr int32_t kEmpty = 0;
  PrefixArena() : parent_{-1}, last_{-1} {}
  int32_t child(int32_t prefix, int64_t token) {
    const uint64_t key = (static_cast<uint64_t>(prefix) << 32) | static_cast<uint64_t>(token);
    auto [it, inserted] = children_.try_emplace(key, static_cast<int32_t>(parent_.size()));
    if (inserted) {
      parent_.push_back(prefix);
      last_.push_back(token);
    }
    return it->second;
  }
  int64_t last(int32_t prefix) const { return last_[static_cast<size_t>(prefix)]; }
  size_t size() const { return parent_.size(); }
  std::vector<int64_t> tokens(int32_t prefix) const {
    std::vector<int64_t> out;
    for (int32_t p = prefix; p != kEmpty; p = parent_[static_cast<size_t>(p)]) out.push_back(last_[static_cast<size_t>(p)]);
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  std::vector<int32_t> parent_;
  std::vector<int64_t> last_;
  std::unordered_map<uint64_t, int32_t> children_;
};

struct Beam {
  int32_t prefix = PrefixArena::kEmpty;
  double p_blank = kNegInf;
  double p_non_blank = kNegInf;
  int32_t node = Lexicon::kRoot;
  double total = kNegInf;  // log_add(p_blank, p_non_blank), set before ranking
};

class Search {
 public:
  Search(const detail::CtcFrames& frames, const CtcBeamSearchOptions& options)
      : frames_(frames), options_(options), lexicon_(options.lexicon ? &*options.lexicon : nullptr) {}

  std::vector<CtcHypothesis> run(int64_t n) const {
    PrefixArena arena;
    std::vector<int32_t> slot_of(1, -1);  // prefix id -> index in the next frame's beams
    std::vector<Beam> beams(1);
    beams[0].p_blank = 0.0;
    beams[0].total = 0.0;
    std::vector<Beam> next;
    for (int64_t t = 0; t < frames_.lengths[static_cast<size_t>(n)]; ++t) {
      step(beams, frames_.frame(n, t), arena, slot_of, next);
      std::swap(beams, next);
      prune(beams, static_cast<size_t>(options_.beam_size), arena);
    }
    if (lexicon_) {
      std::erase_if(beams, [&](const Beam& b) { return b.node != Lexicon::kRoot && !lexicon_->is_word(b.node); });
    }
    prune(beams, static_cast<size_t>(options_.nbest), arena);
    std::vector<CtcHypothesis> out;
    out.reserve(beams.size());
    for (const Beam& b : beams) out.push_back(CtcHypothesis{arena.tokens(b.prefix), b.total});
    return out;
  }

 private:
  // Ranks beams best first (ties: the smaller token sequence) and keeps `keep`.
  static void prune(std::vector<Beam>& beams, size_t keep, const PrefixArena& arena) {
    const auto before = [&](const Beam& a, const Beam& b) {
      if (a.total != b.total) return a.total > b.total;
      return arena.tokens(a.prefix) < arena.tokens(b.prefix);
    };
    const size_t kept = std::min(keep, beams.size());
    std::partial_sort(beams.begin(), beams.begin() + static_cast<std::ptrdiff_t>(kept), beams.end(), before);
    beams.resize(kept);
  }

  // The trie node after appending token to beam (Note [Lexicon-constrained prefixes]), or -1.
  int32_t extend(const Beam& beam, int64_t token) const {
    if (!lexicon_) return Lexicon::kRoot;
    if (token == lexicon_->word_delimiter()) {
      return (lexicon_->is_word(beam.node) || beam.prefix == PrefixArena::kEmpty) ? Lexicon::kRoot : -1;
    }
    return lexicon_->child(beam.node, token);
  }

  void step(const std::vector<Beam>& beams, const double* y, PrefixArena& arena, std::vector<int32_t>& slot_of,
            std::vector<Beam>& next) const {
    next.clear();
    const auto slot = [&](int32_t prefix, int32_t node) -> Beam& {
      if (slot_of.size() < arena.size()) slot_of.resize(arena.size(), -1);
      int32_t& index = slot_of[static_cast<size_t>(prefix)];
      if (index < 0) {
        index = static_cast<int32_t>(next.size());
        next.emplace_back();
        next.back().prefix = prefix;
        next.back().node = node;
      }
      return next[static_cast<size_t>(index)];
    };
    const int64_t blank = options_.blank;
    for (const Beam& beam : beams) {
      const double total = beam.total;
      const int64_t last = beam.prefix == PrefixArena::kEmpty ? -1 : arena.last(beam.prefix);
      for (int64_t c = 0; c < frames_.classes; ++c) {
        const double p = y[c];
        if (p == kNegInf) continue;  // adds nothing; keeps impossible prefixes out of the beam
        if (c == blank) {
          Beam& same = slot(beam.prefix, beam.node);
          same.p_blank = log_add(same.p_blank, total + p);
          continue;
        }
        const bool repeat = c == last;
        if (repeat) {
          Beam& same = slot(beam.prefix, beam.node);
          same.p_non_blank = log_add(same.p_non_blank, beam.p_non_blank + p);
        }
        const int32_t node = extend(beam, c);
        if (node < 0) continue;
        const double from = repeat ? beam.p_blank + p : total + p;
        if (from == kNegInf) continue;
        Beam& grown = slot(arena.child(beam.prefix, c), node);
        grown.p_non_blank = log_add(grown.p_non_blank, from);
      }
    }
    for (Beam& b : next) {
      slot_of[static_cast<size_t>(b.prefix)] = -1;
      b.total = log_add(b.p_blank, b.p_non_blank);
    }
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
