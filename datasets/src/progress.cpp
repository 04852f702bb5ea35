// ProgressBar: formatting after tqdm's format_meter, drawing, terminal detection.
#include "ember/datasets/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace ember {

namespace {

// tqdm's format_num: 3 significant digits unless Python's str() is shorter.
std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  std::string g = buf;
  for (const char* from : {"+0", "-0"}) {
    // "1e-05" -> "1e-5", "1e+06" -> "1e+6" (leading zeros of the exponent only).
    const size_t e = g.find('e');
    if (e != std::string::npos && g.compare(e + 1, 2, from) == 0) g.erase(e + 2, 1);
  }
  std::string repr;
  if (std::isfinite(v)) {
    char r[64];
    auto result = std::to_chars(r, r + sizeof r, v);
    repr.assign(r, result.ptr);
    if (repr.find_first_of(".e") == std::string::npos) repr += ".0";  // Python's str(2.0) is "2.0"
  } else {
    repr = g;
  }
  return g.size() < repr.size() ? g : repr;
}

// Display width of UTF-8 text (code points; the bar's blocks are one column).
size_t columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

int terminal_fd(const std::ostream* out) {
  if (out == &std::cerr || out == &std::clog) return STDERR_FILENO;
  if (out == &std::cout) return STDOUT_FILENO;
  return -1;
}

}  // namespace

ProgressValue::ProgressValue(double v) : text_(format_number(v)) {}
ProgressValue::ProgressValue(long long v) : text_(std::to_string(v)) {}

std::string ProgressBar::format_interval(double seconds) {
  const auto t = static_cast<int64_t>(std::max(0.0, seconds));
  const int64_t h = t / 3600, m = (t / 60) % 60, s = t % 60;
  char buf[48];
  if (h) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
                       static_cast<long long>(s));
  else std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(m), static_cast<long long>(s));
  return buf;
}

std::string ProgressBar::format_meter(int64_t n, std::optional<int64_t> total, double elapsed, const std::string& desc,
                                      const std::string& unit, const std::string& postfix, bool plain, int ncols) {
  char buf[64];
  const std::string elapsed_str = format_interval(elapsed);
  const double rate = elapsed > 0 ? static_cast<double>(n) / elapsed : 0;
  std::string rate_str;
  if (rate <= 0) {
    rate_str = "?" + unit + "/s";
  } else if (1 / rate > 1) {  // slower than one per second: seconds per unit
    std::snprintf(buf, sizeof buf, "%5.2f", 1 / rate);
    rate_str = std::string(buf) + "s/" + unit;
  } else {
    std::snprintf(buf, sizeof buf, "%5.2f", rate);
    rate_str = std::string(buf) + unit + "/s";
  }
  const std::string post = postfix.empty() ? "" : ", " + postfix;
  std::string l_bar;
  if (!desc.empty()) l_bar = desc.size() >= 2 && desc.compare(desc.size() - 2, 2, ": ") == 0 ? desc : desc + ": ";
  if (!total || *total <= 0) return l_bar + std::to_string(n) + unit + " [" + elapsed_str + ", " + rate_str + post + "]";

  const double frac = static_cast<double>(n) / static_cast<double>(*total);
  const std::string remaining =
      rate > 0 ? format_interval(static_cast<double>(*total - n) / rate) : std::string("?");
  std::snprintf(buf, sizeof buf, "%3.0f%%", frac * 100);
  l_bar += buf;
  const std::string r_bar = " " + std::to_string(n) + "/" + std::to_string(*total) + " [" + elapsed_str + "<" +
                            remaining + ", " + rate_str + post + "]";
  if (plain) return l_bar + r_bar;
  // The bar takes what the text leaves of ncols (at least one cell); each
  // cell is split in eighths with the partial blocks.
  static const char* const kBlocks[] = {" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"};
  const int64_t cells = std::max<int64_t>(1, ncols - static_cast<int64_t>(columns(l_bar) + columns(r_bar) + 2));
  const auto eighths = static_cast<int64_t>(std::clamp(frac, 0.0, 1.0) * static_cast<double>(cells) * 8);
  const int64_t full = eighths / 8;
  std::string bar;
  for (int64_t i = 0; i < full; ++i) bar += kBlocks[8];
  if (full < cells) {
    bar += kBlocks[eighths % 8];
    bar.append(static_cast<size_t>(cells - full - 1), ' ');
  }
  return l_bar + "|" + bar + "|" + r_bar;
}

ProgressBar::ProgressBar(ProgressBarOptions options) : options_(std::move(options)) {
  out_ = options_.out ? options_.out : &std::cerr;
  const int fd = terminal_fd(out_);
  plain_ = options_.plain.value_or(fd < 0 || !isatty(fd));
  ncols_ = options_.ncols;
  if (ncols_ <= 0) {
    ncols_ = 80;
    winsize ws{};
    if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) ncols_ = ws.ws_col;
  }
  start_ = now();
  last_draw_ = start_;
  if (!plain_) draw();
}

ProgressBar::~ProgressBar() {
  try {
    close();
  } catch (...) {
  }
}

double ProgressBar::now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string ProgressBar::format(bool plain, int ncols) const {
  return format_meter(n_, options_.total, now() - start_, options_.desc, options_.unit, postfix_, plain, ncols);
}

void ProgressBar::update(int64_t n) {
  if (closed_) return;
  n_ += n;
  const double t = now();
  const double interval = plain_ ? options_.plain_interval : options_.min_interval;
  const bool done = options_.total && n_ >= *options_.total;
  if (t - last_draw_ >= interval || (done && !plain_)) {
    last_draw_ = t;
    draw();
  }
}

void ProgressBar::set_postfix(std::vector<std::pair<std::string, ProgressValue>> values) {
  postfix_.clear();
  for (const auto& [key, value] : values) postfix_ += (postfix_.empty() ? "" : ", ") + key + "=" + value.text();
}

void ProgressBar::set_description(std::string desc) { options_.desc = std::move(desc); }

void ProgressBar::close() {
  if (closed_) return;
  closed_ = true;
  if (plain_) {
    if (drawn_n_ != n_) draw();  // unless the last line already shows the end
    return;
  }
  if (options_.leave) {
    draw();
    *out_ << '\n';
  } else {
    *out_ << '\r' << std::string(last_length_, ' ') << '\r';
  }
  out_->flush();
}

void ProgressBar::draw() {
  const std::string line = format(plain_, ncols_);
  drawn_n_ = n_;
  if (plain_) {
    *out_ << line << '\n';
  } else {
    // Redraw in place; spaces wipe what a longer previous line left.
    const size_t length = columns(line);
    *out_ << '\r' << line;
    if (length < last_length_) *out_ << std::string(last_length_ - length, ' ');
    last_length_ = length;
  }
  out_->flush();
}

}  // namespace ember
