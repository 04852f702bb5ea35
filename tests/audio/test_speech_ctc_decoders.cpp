// ember::audio::decoders: CTC greedy and prefix beam-search decoding against
// Python implementations of the same algorithms (scripts/fixtures/audio_speech_metrics.py)
// and against exhaustive enumeration of alignments.
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "npy.h"

namespace speech_ctc_test {

using namespace ember;
namespace D = ember::audio::decoders;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/speech_metrics/" + name + ".npy"));
}

// Beam options in one call (designated initializers would leave fields to defaults with a warning).
D::CtcBeamSearchOptions beam(int64_t beam_size, int64_t blank = 0, int64_t nbest = 1,
                             std::optional<D::Lexicon> lexicon = std::nullopt, bool batch_first = false) {
  D::CtcBeamSearchOptions options;
  options.beam_size = beam_size;
  options.blank = blank;
  options.nbest = nbest;
  options.lexicon = std::move(lexicon);
  options.batch_first = batch_first;
  return options;
}

struct Expected {
  std::vector<std::vector<int64_t>> tokens;
  std::vector<double> scores;
};

// The fixture's hypotheses per item ([N, nbest, maxlen] tokens padded with -1).
std::vector<Expected> expected_hypotheses(const std::string& name) {
  const Tensor tokens = fixture(name + "_tokens");
  const Tensor scores = fixture(name + "_scores");
  const Tensor counts = fixture(name + "_counts");
  std::vector<Expected> out(static_cast<size_t>(tokens.size(0)));
  for (int64_t n = 0; n < tokens.size(0); ++n) {
    for (int64_t k = 0; k < counts[n].item<int64_t>(); ++k) {
      std::vector<int64_t> seq;
      for (int64_t i = 0; i < tokens.size(2); ++i) {
        const int64_t v = tokens[n][k][i].item<int64_t>();
        if (v >= 0) seq.push_back(v);
      }
      out[static_cast<size_t>(n)].tokens.push_back(seq);
      out[static_cast<size_t>(n)].scores.push_back(scores[n][k].item<double>());
    }
  }
  return out;
}

void expect_hypotheses(const std::vector<std::vector<D::CtcHypothesis>>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t n = 0; n < got.size(); ++n) {
    ASSERT_EQ(got[n].size(), want[n].tokens.size()) << "item " << n;
    for (size_t k = 0; k < got[n].size(); ++k) {
      EXPECT_EQ(got[n][k].tokens, want[n].tokens[k]) << "item " << n << " hypothesis " << k;
      EXPECT_NEAR(got[n][k].score, want[n].scores[k], 1e-9) << "item " << n << " hypothesis " << k;
    }
  }
}

TEST(SpeechCtcDecoders, GreedyMatchesReference) {
  const Tensor lp = fixture("ctc_log_probs");  // [T, N, C]
  const Tensor lengths = fixture("ctc_lengths");
  const auto want = expected_hypotheses("ctc_greedy");
  const auto got = D::ctc_greedy_decode(lp, lengths);
  ASSERT_EQ(got.size(), want.size());
  for (size_t n = 0; n < got.size(); ++n) EXPECT_EQ(got[n], want[n].tokens[0]) << "item " << n;
  // [N, T, C] with batch_first, float32 and unnormalised scores decode the same.
  EXPECT_EQ(D::ctc_greedy_decode(lp.transpose(0, 1).contiguous(), lengths, 0, /*batch_first=*/true), got);
  EXPECT_EQ(D::ctc_greedy_decode(lp.to(kFloat32), lengths), got);
  EXPECT_EQ(D::ctc_greedy_decode(lp.exp() * 3.0, lengths), got);
  // [T, C] is one utterance.
  EXPECT_EQ(D::ctc_greedy_decode(lp.select(1, 0)), std::vector<std::vector<int64_t>>{got[0]});
}

TEST(SpeechCtcDecoders, GreedyHandChecked) {
  // Frames argmax: a a - a b b - - c (blank 0; a=1, b=2, c=3) -> a a b c.
  const std::vector<int64_t> path{1, 1, 0, 1, 2, 2, 0, 0, 3};
  Tensor lp = ember::full({static_cast<int64_t>(path.size()), 4}, -5.0, kFloat64);
  for (size_t t = 0; t < path.size(); ++t) lp[static_cast<int64_t>(t)][path[t]].fill_(-0.1);
  EXPECT_EQ(D::ctc_greedy_decode(lp)[0], (std::vector<int64_t>{1, 1, 2, 3}));
  // With blank = 3 the 0s are labels and the 3 the blank.
  EXPECT_EQ(D::ctc_greedy_decode(lp, std::nullopt, 3)[0], (std::vector<int64_t>{1, 0, 1, 2, 0}));
  // Ties go to the first class, as argmax.
  EXPECT_EQ(D::ctc_greedy_decode(ember::zeros({3, 4}, kFloat64), std::nullopt, 1)[0], (std::vector<int64_t>{0}));
}

TEST(SpeechCtcDecoders, BeamSearchMatchesReference) {
  const Tensor lp = fixture("ctc_log_probs");
  const Tensor lengths = fixture("ctc_lengths");
  expect_hypotheses(D::ctc_prefix_beam_search(lp, lengths, beam(5, 0, 3)),
                    expected_hypotheses("ctc_beam"));
  expect_hypotheses(
      D::ctc_prefix_beam_search(lp.transpose(0, 1), lengths, beam(5, 0, 3, std::nullopt, true)),
      expected_hypotheses("ctc_beam"));
  expect_hypotheses(D::ctc_prefix_beam_search(lp, lengths, beam(4, 5, 2)),
                    expected_hypotheses("ctc_beam_blank_last"));
}

TEST(SpeechCtcDecoders, LexiconBeamSearchMatchesReference) {
  const Tensor lp = fixture("ctc_lexicon_log_probs");
  // Tokens: "-" blank, "|" delimiter, a b c d; words ab, cab, d, bad, a.
  const std::vector<std::string> tokens{"-", "|", "a", "b", "c", "d"};
  const auto lexicon = D::Lexicon::from_words({"ab", "cab", "d", "bad", "a"}, tokens, "|");
  EXPECT_EQ(lexicon.num_words(), 5);
  const auto got = D::ctc_prefix_beam_search(lp, std::nullopt, beam(8, 0, 4, lexicon));
  expect_hypotheses(got, expected_hypotheses("ctc_lexicon_beam"));
  // Every hypothesis is lexicon words between delimiters.
  for (const auto& item : got) {
    for (const auto& h : item) {
      std::string text;
      for (const int64_t t : h.tokens) text += tokens[static_cast<size_t>(t)];
      size_t start = 0;
      while (start <= text.size()) {
        const size_t end = std::min(text.find('|', start), text.size());
        const std::string word = text.substr(start, end - start);
        EXPECT_TRUE(word.empty() || word == "ab" || word == "cab" || word == "d" || word == "bad" || word == "a")
            << text;
        start = end + 1;
      }
    }
  }
  // Without the lexicon the same frames give other (unconstrained) hypotheses.
  expect_hypotheses(D::ctc_prefix_beam_search(lp, std::nullopt, beam(8, 0, 4)),
                    expected_hypotheses("ctc_nolexicon_beam"));
  // The Lexicon built from token ids is the same trie.
  const D::Lexicon by_ids({{2, 3}, {4, 2, 3}, {5}, {3, 2, 5}, {2}}, 1);
  expect_hypotheses(D::ctc_prefix_beam_search(lp, std::nullopt, beam(8, 0, 4, by_ids)),
                    expected_hypotheses("ctc_lexicon_beam"));
}

// Exhaustive search: every alignment of T frames over C classes, collapsed,
// its probability summed per label sequence (float64).
std::map<std::vector<int64_t>, double> exhaustive(const std::vector<double>& probs, int64_t time, int64_t classes,
                                                  int64_t blank) {
  std::map<std::vector<int64_t>, double> total;
  std::vector<int64_t> path(static_cast<size_t>(time), 0);
  int64_t count = 1;
  for (int64_t t = 0; t < time; ++t) count *= classes;
  for (int64_t code = 0; code < count; ++code) {
    int64_t rest = code;
    double p = 1.0;
    for (int64_t t = 0; t < time; ++t) {
      path[static_cast<size_t>(t)] = rest % classes;
      rest /= classes;
      p *= probs[static_cast<size_t>(t * classes + path[static_cast<size_t>(t)])];
    }
    std::vector<int64_t> labels;
    int64_t previous = -1;
    for (const int64_t c : path) {
      if (c != blank && c != previous) labels.push_back(c);
      previous = c;
    }
    total[labels] += p;
  }
  return total;
}

TEST(SpeechCtcDecoders, WideBeamEqualsExhaustiveSearch) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  for (const auto& [time, classes, blank] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{5, 3, 0}, {4, 4, 2}, {6, 3, 1}}) {
    std::vector<double> probs(static_cast<size_t>(time * classes));
    for (int64_t t = 0; t < time; ++t) {
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c) sum += probs[static_cast<size_t>(t * classes + c)] = uniform(rng);
      for (int64_t c = 0; c < classes; ++c) probs[static_cast<size_t>(t * classes + c)] /= sum;
    }
    const auto truth = exhaustive(probs, time, classes, blank);
    std::vector<std::pair<double, std::vector<int64_t>>> ranked;
    for (const auto& [labels, p] : truth) ranked.emplace_back(p, labels);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const Tensor lp = ember::tensor(probs, TensorOptions().dtype(kFloat64)).reshape({time, classes}).log();
    // A beam holding every prefix loses nothing: all label sequences, exact probabilities.
    const auto n = static_cast<int64_t>(ranked.size());
    const auto got = D::ctc_prefix_beam_search(lp, std::nullopt, beam(n, blank, n))[0];
    ASSERT_EQ(static_cast<int64_t>(got.size()), n);
    double mass = 0;
    for (int64_t k = 0; k < n; ++k) {
      EXPECT_EQ(got[static_cast<size_t>(k)].tokens, ranked[static_cast<size_t>(k)].second) << "rank " << k;
      EXPECT_NEAR(std::exp(got[static_cast<size_t>(k)].score), ranked[static_cast<size_t>(k)].first, 1e-12);
      mass += std::exp(got[static_cast<size_t>(k)].score);
    }
    EXPECT_NEAR(mass, 1.0, 1e-12);
  }
}

TEST(SpeechCtcDecoders, HandCheckedBeamCases) {
  // Two frames over {blank, a}: P(a) = p(a a) + p(a -) + p(- a), P() = p(- -).
  const double pa0 = 0.4, pa1 = 0.7;
  const Tensor lp = ember::tensor<double>({{std::log(1 - pa0), std::log(pa0)}, {std::log(1 - pa1), std::log(pa1)}},
                                          TensorOptions().dtype(kFloat64));
  const auto got = D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 0, 2))[0];
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].tokens, (std::vector<int64_t>{1}));
  EXPECT_NEAR(std::exp(got[0].score), pa0 * pa1 + pa0 * (1 - pa1) + (1 - pa0) * pa1, 1e-15);
  EXPECT_TRUE(got[1].tokens.empty());
  EXPECT_NEAR(std::exp(got[1].score), (1 - pa0) * (1 - pa1), 1e-15);
  // Zero frames: the empty hypothesis with probability 1.
  const auto none =
      D::ctc_prefix_beam_search(lp.unsqueeze(1), ember::tensor<int64_t>({0}), beam(3, 0, 1))[0];
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].tokens.empty());
  EXPECT_EQ(none[0].score, 0.0);
  // Beam 1 with a peaked model follows the greedy path.
  const Tensor peaked = fixture("ctc_log_probs") * 4.0;
  const Tensor normalised = ember::special::log_softmax(peaked, -1);
  const auto greedy = D::ctc_greedy_decode(normalised);
  const auto beam1 = D::ctc_prefix_beam_search(normalised, std::nullopt, beam(1, 0, 1));
  for (size_t n = 0; n < greedy.size(); ++n) EXPECT_EQ(beam1[n][0].tokens, greedy[n]);
}

TEST(SpeechCtcDecoders, LexiconHandChecked) {
  // Tokens: 0 blank, 1 "|", 2 a, 3 b. Lexicon: "ab". The frames say "a a" strongly:
  // unconstrained the best is "a"; with the lexicon "a" is no word, so "ab" wins.
  const Tensor lp = ember::special::log_softmax(ember::tensor<double>({{-3.0, -4.0, -0.1, -3.0}, {-3.0, -4.0, -0.2, -2.0}}, TensorOptions().dtype(kFloat64)), -1);
  EXPECT_EQ(D::ctc_prefix_beam_search(lp)[0][0].tokens, (std::vector<int64_t>{2}));
  const D::Lexicon lexicon({{2, 3}}, 1);
  const auto constrained = D::ctc_prefix_beam_search(lp, std::nullopt, beam(4, 0, 1, lexicon))[0];
  ASSERT_EQ(constrained.size(), 1u);
  EXPECT_EQ(constrained[0].tokens, (std::vector<int64_t>{2, 3}));
  // Its score is the exact probability of "ab": a then b, nothing else collapses to it.
  const Tensor p = lp.exp();
  EXPECT_NEAR(std::exp(constrained[0].score), p[0][2].item<double>() * p[1][3].item<double>(), 1e-12);
  // One frame cannot spell "ab": what remains is the empty transcript and a lone delimiter.
  const auto one_frame =
      D::ctc_prefix_beam_search(lp.narrow(0, 0, 1), std::nullopt, beam(4, 0, 4, lexicon))[0];
  ASSERT_EQ(one_frame.size(), 2u);
  EXPECT_TRUE(one_frame[0].tokens.empty());
  EXPECT_EQ(one_frame[1].tokens, (std::vector<int64_t>{1}));
  // A frame that can only be "a" leaves no complete word sequence: no hypothesis.
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor only_a = ember::tensor<double>({{-inf, -inf, 0.0, -inf}});
  EXPECT_TRUE(D::ctc_prefix_beam_search(only_a, std::nullopt, beam(4, 0, 1, lexicon))[0].empty());
  EXPECT_EQ(D::ctc_prefix_beam_search(only_a)[0][0].tokens, (std::vector<int64_t>{2}));
}

TEST(SpeechCtcDecoders, BadInputIsAnError) {
  const Tensor lp = fixture("ctc_log_probs");
  EXPECT_THROW(D::ctc_greedy_decode(lp, std::nullopt, 6), Error);                          // blank out of range
  EXPECT_THROW(D::ctc_greedy_decode(lp, std::nullopt, -1), Error);
  EXPECT_THROW(D::ctc_greedy_decode(lp.unsqueeze(0)), Error);                                // 4 dims
  EXPECT_THROW(D::ctc_greedy_decode(lp.narrow(2, 0, 0)), Error);                             // no classes
  EXPECT_THROW(D::ctc_greedy_decode(lp.to(kInt64)), Error);                                  // not floating
  EXPECT_THROW(D::ctc_greedy_decode(lp, ember::tensor<int64_t>({14, 9})), Error);           // lengths size
  EXPECT_THROW(D::ctc_greedy_decode(lp, ember::tensor<int64_t>({15, 9, 0})), Error);        // length > T
  EXPECT_THROW(D::ctc_greedy_decode(lp, ember::tensor<float>({14, 9, 0})), Error);          // float lengths
  Tensor with_nan = lp.clone();
  with_nan[3][1][2].fill_(std::nan(""));
  EXPECT_THROW(D::ctc_prefix_beam_search(with_nan), Error);
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(0, 0, 1)), Error);
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 0, 3)), Error);
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 6, 1)), Error);
  // Lexicons: bad words, and ones that do not fit the vocabulary.
  EXPECT_THROW(D::Lexicon({}, 1), Error);
  EXPECT_THROW(D::Lexicon({{2, 1, 3}}, 1), Error);  // contains the delimiter
  EXPECT_THROW(D::Lexicon({{}}, 1), Error);
  EXPECT_THROW(D::Lexicon::from_words({"abz"}, {"-", "|", "a", "b"}, "|"), Error);
  EXPECT_THROW(D::Lexicon::from_words({"ab"}, {"-", "|", "a", "b"}, " "), Error);
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 0, 1, D::Lexicon({{9}}, 1))), Error);
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 0, 1, D::Lexicon({{2, 0}}, 1))),
               Error);  // a word with the blank
  EXPECT_THROW(D::ctc_prefix_beam_search(lp, std::nullopt, beam(2, 0, 1, D::Lexicon({{2}}, 0))),
               Error);  // the delimiter is the blank
  try {
    D::ctc_greedy_decode(lp, std::nullopt, 6);
    FAIL() << "expected an ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blank 6"), std::string::npos) << e.what();
  }
}

TEST(SpeechCtcDecoders, FromWordsSpellsLongestTokens) {
  // Multi-character tokens: "th" is preferred to "t" + "h".
  const std::vector<std::string> tokens{"<b>", " ", "t", "h", "th", "e"};
  const auto lexicon = D::Lexicon::from_words({"the", "he"}, tokens, " ");
  EXPECT_EQ(lexicon.word_delimiter(), 1);
  int32_t node = lexicon.child(D::Lexicon::kRoot, 4);
  ASSERT_GE(node, 0);
  node = lexicon.child(node, 5);
  ASSERT_GE(node, 0);
  EXPECT_TRUE(lexicon.is_word(node));
  EXPECT_LT(lexicon.child(D::Lexicon::kRoot, 2), 0);  // nothing starts with the single "t"
}

}  // namespace speech_ctc_test
