// ProgressBar: the line format (expected strings follow tqdm's format_meter),
// number formatting, redraw throttling and plain mode, with a fake clock and a
// string stream.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <ember/datasets/progress.h>

using ember::ProgressBar;
using ember::ProgressBarOptions;
using ember::ProgressValue;

namespace progress_test {

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

TEST(ProgressBar, FormatMeterLikeTqdm) {
  EXPECT_EQ(ProgressBar::format_meter(45, 100, 4.478, "epoch 3", "it", "loss=0.123", true, 0),
            "epoch 3:  45% 45/100 [00:04<00:05, 10.05it/s, loss=0.123]");
  EXPECT_EQ(ProgressBar::format_meter(45, 100, 4.478, "epoch 3", "it", "loss=0.123", false, 70),
            "epoch 3:  45%|████▉      | 45/100 [00:04<00:05, 10.05it/s, loss=0.123]");
  // Slower than one per second: seconds per iteration.
  EXPECT_EQ(ProgressBar::format_meter(1, 10, 2.5, "", "it", "", true, 0), " 10% 1/10 [00:02<00:22,  2.50s/it]");
  // Nothing measured yet.
  EXPECT_EQ(ProgressBar::format_meter(0, 10, 0, "", "it", "", false, 40), "  0%|            | 0/10 [00:00<?, ?it/s]");
  // A description that already ends in ": ", and a bar squeezed to one cell.
  EXPECT_EQ(ProgressBar::format_meter(10, 10, 1, "train: ", "it", "", false, 40),
            "train: 100%|█| 10/10 [00:01<00:00, 10.00it/s]");
  EXPECT_EQ(ProgressBar::format_meter(3, 7, 1.5, "x", "it", "", false, 30), "x:  43%|▍| 3/7 [00:01<00:02,  2.00it/s]");
  // Unknown total: count and rate only.
  EXPECT_EQ(ProgressBar::format_meter(7, std::nullopt, 2.0, "", "img", "", false, 80), "7img [00:02,  3.50img/s]");
}

TEST(ProgressBar, FormatInterval) {
  EXPECT_EQ(ProgressBar::format_interval(0), "00:00");
  EXPECT_EQ(ProgressBar::format_interval(59.9), "00:59");
  EXPECT_EQ(ProgressBar::format_interval(61), "01:01");
  EXPECT_EQ(ProgressBar::format_interval(3725), "1:02:05");
  EXPECT_EQ(ProgressBar::format_interval(36000 * 3 + 1), "30:00:01");
}

TEST(ProgressBar, PostfixNumbersAsTqdm) {
  EXPECT_EQ(ProgressValue(0.123456).text(), "0.123");
  EXPECT_EQ(ProgressValue(2.0).text(), "2");
  EXPECT_EQ(ProgressValue(0.5).text(), "0.5");
  EXPECT_EQ(ProgressValue(1e-5).text(), "1e-5");
  EXPECT_EQ(ProgressValue(12345.678).text(), "1.23e+4");
  EXPECT_EQ(ProgressValue(1e6).text(), "1e+6");
  EXPECT_EQ(ProgressValue(5).text(), "5");
  EXPECT_EQ(ProgressValue(int64_t{123456789}).text(), "123456789");
  EXPECT_EQ(ProgressValue("warmup").text(), "warmup");
}

TEST(ProgressBar, TerminalModeRedrawsAtMostEveryMinInterval) {
  double now = 100;
  std::ostringstream out;
  {
    ProgressBar bar({.total = 4, .desc = "d", .out = &out, .ncols = 50, .min_interval = 0.1, .plain = false,
                     .clock = [&] { return now; }});
    EXPECT_FALSE(bar.plain());
    EXPECT_EQ(count(out.str(), "\r"), 1);  // drawn at 0 on construction
    now += 0.05;
    bar.update();
    EXPECT_EQ(count(out.str(), "\r"), 1);  // too soon
    now += 0.06;
    bar.set_postfix({{"loss", 0.25}, {"acc", 0.5}});
    bar.update();
    EXPECT_EQ(count(out.str(), "\r"), 2);
    const std::string last = out.str().substr(out.str().rfind('\r') + 1);
    EXPECT_EQ(last, ProgressBar::format_meter(2, 4, 0.11, "d", "it", "loss=0.25, acc=0.5", false, 50));
    now += 0.01;
    bar.update(2);  // reaching the total always draws
    EXPECT_EQ(count(out.str(), "\r"), 3);
  }
  // Closing draws the final state and ends the line.
  EXPECT_EQ(count(out.str(), "\r"), 4);
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_NE(out.str().find("100%"), std::string::npos);
}

TEST(ProgressBar, ShorterLinesWipeTheLongerOne) {
  double now = 0;
  std::ostringstream out;
  ProgressBar bar({.out = &out, .min_interval = 0, .plain = false, .clock = [&] { return now; }});
  bar.set_postfix({{"note", "a long postfix value"}});
  now = 1;
  bar.update();
  bar.set_postfix({});
  now = 2;
  bar.update();
  const std::string s = out.str();
  const std::string last = s.substr(s.rfind('\r') + 1);
  const std::string previous = s.substr(0, s.rfind('\r'));
  const std::string previous_line = previous.substr(previous.rfind('\r') + 1);
  EXPECT_EQ(last.size(), previous_line.size());  // padded with spaces
  EXPECT_EQ(last.substr(0, last.find_last_not_of(' ') + 1), "2it [00:02,  1.00it/s]");
}

TEST(ProgressBar, PlainModeWritesWholeLinesRarely) {
  double now = 0;
  std::ostringstream out;
  {
    ProgressBar bar({.total = 1000, .desc = "eval", .out = &out, .plain_interval = 10, .clock = [&] { return now; }});
    EXPECT_TRUE(bar.plain());  // a string stream is not a terminal
    for (int i = 0; i < 1000; ++i) {
      now += 1.0 / 32;  // exact in binary: 31.25 s in all
      bar.update();
    }
    EXPECT_EQ(bar.n(), 1000);
  }
  const std::string s = out.str();
  EXPECT_EQ(count(s, "\r"), 0);
  EXPECT_EQ(count(s, "\n"), 4);  // at 10 s, 20 s, 30 s, and the final line at close
  EXPECT_EQ(s.substr(s.rfind('\n', s.size() - 2) + 1), "eval: 100% 1000/1000 [00:31<00:00, 32.00it/s]\n");
  EXPECT_EQ(s.substr(0, s.find('\n')), "eval:  32% 320/1000 [00:10<00:21, 32.00it/s]");
}

TEST(ProgressBar, LeaveFalseErasesTheLine) {
  std::ostringstream out;
  {
    ProgressBar bar({.total = 2, .out = &out, .plain = false, .leave = false, .clock = [] { return 0.0; }});
    bar.update(2);
  }
  const std::string s = out.str();
  EXPECT_EQ(s.back(), '\r');
  EXPECT_EQ(count(s, "\n"), 0);
}

TEST(ProgressBar, ProgressOverARange) {
  std::vector<int> items(5, 1);
  std::ostringstream out;
  double now = 0;
  int sum = 0;
  auto pb = ember::progress(items, {.desc = "items", .out = &out, .clock = [&] { return now += 1; }});
  EXPECT_EQ(pb.bar().total(), 5);
  for (int v : pb) sum += v;
  EXPECT_EQ(sum, 5);
  EXPECT_EQ(pb.bar().n(), 5);
  // Closed when the loop ended: the final line is there already.
  EXPECT_NE(out.str().find("items: 100% 5/5"), std::string::npos) << out.str();
}

}  // namespace progress_test
