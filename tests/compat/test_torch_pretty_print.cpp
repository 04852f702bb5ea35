// operator<< on modules through <ember/torch.h> prints libtorch's text: every
// case of pretty_print_cases.h against what libtorch 1.13 printed for the same
// code (tests/data/core/torch_compat_pretty_print/pretty_print.txt, written by
// scripts/fixtures/torch_compat_pretty_print.py).
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "compat/pretty_print_cases.h"

namespace {

// "### name\ntext\n" blocks -> name: text (without the final newline).
std::map<std::string, std::string> libtorch_texts() {
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/core/torch_compat_pretty_print/pretty_print.txt");
  EXPECT_TRUE(in.good()) << "missing fixture pretty_print.txt";
  std::map<std::string, std::string> texts;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) {
      name = line.substr(4);
      texts[name];
    } else {
      std::string& text = texts[name];
      text += (text.empty() ? "" : "\n") + line;
    }
  }
  return texts;
}

TEST(TorchPrettyPrint, EveryCaseMatchesLibtorch) {
  const auto expected = libtorch_texts();
  size_t cases = 0;
  for_each_pretty_print_case([&](const std::string& name, const auto& module) {
    ++cases;
    std::ostringstream ss;
    ss << module;  // the holder
    auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << name;
    EXPECT_EQ(ss.str(), it->second) << name;
    std::ostringstream by_module;
    by_module << *module;  // the module itself
    EXPECT_EQ(by_module.str(), it->second) << name;
  });
  EXPECT_EQ(cases, expected.size());
  EXPECT_GE(cases, 40u);
}

TEST(TorchPrettyPrint, OwnPrettyPrintAndLiteralText) {
  struct Custom : torch::nn::Module {
    void pretty_print(std::ostream& os) const override { os << "Custom(size=3)"; }
  };
  std::ostringstream ss;
  ss << Custom();
  EXPECT_EQ(ss.str(), "Custom(size=3)");
  // libtorch's text, checked by hand against libtorch 1.13 as well.
  std::ostringstream conv;
  conv << torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3));
  EXPECT_EQ(conv.str(), "torch::nn::Conv2d(1, 16, kernel_size=[3, 3], stride=[1, 1])");
  EXPECT_EQ(torch::nn::Linear(3, 4)->str(), "torch::nn::Linear(in_features=3, out_features=4, bias=true)");
}

TEST(TorchPrettyPrint, EmberFormatStaysAvailable) {
  std::ostringstream ss;
  ember::nn::print_module_pytorch_style(ss, *torch::nn::Linear(3, 4));
  EXPECT_EQ(ss.str(), "Linear(in_features=3, out_features=4, bias=True)");
}

}  // namespace
