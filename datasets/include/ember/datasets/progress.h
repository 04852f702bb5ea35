#pragma once
// ProgressBar: a tqdm-style progress line for long loops.
//
//   ProgressBar bar({.total = loader.size(), .desc = "epoch 3"});
//   for (auto& batch : loader) {
//     ...
//     bar.set_postfix({{"loss", loss.item<double>()}, {"acc", accuracy}});
//     bar.update();
//   }
//   bar.close();  // or let it go out of scope
//
// or, wrapping any range with a size():
//
//   auto pb = progress(loader, {.desc = "train"});
//   for (auto& batch : pb) { ...; pb.bar().set_postfix({{"loss", loss}}); }
//
// On a terminal the line is redrawn in place (carriage return), at most every
// min_interval seconds:
//
//   epoch 3:  45%|███████▏        | 45/100 [00:04<00:05, 10.05it/s, loss=0.123, acc=0.9]
//
// When the stream is not a terminal (a log file, a pipe, a test), the bar is
// "plain": whole lines without the bar graphics (tqdm's ncols=0 form), at most
// every plain_interval seconds, and a last one at close():
//
//   epoch 3:  45% 45/100 [00:04<00:05, 10.05it/s, loss=0.123, acc=0.9]
//
// Without a total the line shows the count and rate only. The rate is the
// average since the bar started. A ProgressBar is used from one thread.
#include <cstdint>
#include <exception>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ember {

struct ProgressBarOptions {
  // Iterations expected; unknown when unset.
  std::optional<int64_t> total = std::nullopt;
  // Label before the bar.
  std::string desc = "";
  // Where the bar goes; null means std::cerr (as tqdm, stderr).
  std::ostream* out = nullptr;
  // Line width in characters; 0: the terminal's width, or 80.
  int ncols = 0;
  // Seconds between redraws on a terminal.
  double min_interval = 0.1;
  // Seconds between lines in plain mode.
  double plain_interval = 10.0;
  // Force plain (true) or terminal (false) output; default: plain unless
  // `out` is std::cerr/std::clog/std::cout attached to a terminal.
  std::optional<bool> plain = std::nullopt;
  // The name of one iteration in the rate ("it/s").
  std::string unit = "it";
  // Keep the last line when closing (else it is erased; terminal only).
  bool leave = true;
  // Seconds from any fixed origin; default: std::chrono::steady_clock. Tests
  // inject a fake clock.
  std::function<double()> clock = nullptr;
};

// A value shown after the bar: numbers are formatted as tqdm does (3
// significant digits for floating point), strings as they are.
class ProgressValue {
 public:
  ProgressValue(double v);
  ProgressValue(float v) : ProgressValue(static_cast<double>(v)) {}
  ProgressValue(int v) : ProgressValue(static_cast<long long>(v)) {}
  ProgressValue(long v) : ProgressValue(static_cast<long long>(v)) {}
  ProgressValue(long long v);
  ProgressValue(const char* s) : text_(s) {}
  ProgressValue(std::string s) : text_(std::move(s)) {}
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class ProgressBar {
 public:
  explicit ProgressBar(ProgressBarOptions options = {});
  // Closes the bar.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Advances by n iterations; redraws when min_interval (plain_interval) has
  // passed since the last draw, or when the total is reached.
  void update(int64_t n = 1);
  // Replaces the values shown after the bar; shown at the next draw.
  void set_postfix(std::vector<std::pair<std::string, ProgressValue>> values);
  void set_description(std::string desc);
  // Draws the final state and ends the line. Later calls do nothing.
  void close();

  int64_t n() const { return n_; }
  std::optional<int64_t> total() const { return options_.total; }
  bool plain() const { return plain_; }
  // The line as it would be drawn now, `ncols` wide (terminal mode) or plain.
  std::string format(bool plain, int ncols) const;

  // The line for count n of total after `elapsed` seconds (tqdm's
  // format_meter). ncols only sets the width of the bar in terminal mode.
  static std::string format_meter(int64_t n, std::optional<int64_t> total, double elapsed, const std::string& desc,
                                  const std::string& unit, const std::string& postfix, bool plain, int ncols);
  // "mm:ss", or "h:mm:ss" from one hour on.
  static std::string format_interval(double seconds);

 private:
  double now() const;
  void draw();

  ProgressBarOptions options_;
  std::ostream* out_;
  bool plain_ = true;
  int ncols_ = 80;
  int64_t n_ = 0;
  int64_t drawn_n_ = -1;
  double start_ = 0;
  double last_draw_ = 0;
  bool closed_ = false;
  size_t last_length_ = 0;
  std::string postfix_;
};

// progress(range, options): iterates `range` (anything with begin()/end(),
// e.g. a DataLoader) and advances a ProgressBar per element; the total comes
// from range.size() when it has one and options give none.
template <class Range>
class ProgressRange {
 public:
  ProgressRange(Range& range, ProgressBarOptions options) : range_(range), bar_(with_total(range, std::move(options))) {}

  template <class It, class End>
  class Iterator {
   public:
    Iterator(It it, End end, ProgressBar* bar) : it_(std::move(it)), end_(std::move(end)), bar_(bar) {}
    decltype(auto) operator*() const { return *it_; }
    Iterator& operator++() {
      ++it_;
      bar_->update();
      if (it_ == end_) bar_->close();
      return *this;
    }
    friend bool operator==(const Iterator& a, std::default_sentinel_t) { return a.it_ == a.end_; }

   private:
    It it_;
    End end_;
    ProgressBar* bar_;
  };

  auto begin() {
    auto it = range_.begin();
    using It = decltype(it);
    using End = decltype(range_.end());
    return Iterator<It, End>(std::move(it), range_.end(), &bar_);
  }
  std::default_sentinel_t end() const { return {}; }
  ProgressBar& bar() { return bar_; }

 private:
  static ProgressBarOptions with_total(Range& range, ProgressBarOptions options) {
    if constexpr (requires { range.size(); }) {
      // An iterable DataLoader without a known size throws: no total then.
      try {
        if (!options.total) options.total = static_cast<int64_t>(range.size());
      } catch (const std::exception&) {
      }
    }
    return options;
  }

  Range& range_;
  ProgressBar bar_;
};

template <class Range>
ProgressRange<Range> progress(Range& range, ProgressBarOptions options = {}) {
  return ProgressRange<Range>(range, std::move(options));
}

}  // namespace ember
