#pragma once
// A small command-line parser for Ember's apps: flags are declared with a
// pointer to the variable they set, a value name and a help line; --help
// prints them all; a bad or unknown flag is one error line and exit code 2.
//
//   Flags flags("ember-train", "Trains an image classifier.");
//   flags.add("--epochs", &args.epochs, "N", "passes over the training data");
//   flags.add_switch("--channels-last", &args.channels_last, "NHWC activations");
//   std::vector<std::string> rest = flags.parse(argc, argv);   // positional arguments
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ember::apps {

class Flags {
 public:
  Flags(std::string program, std::string summary, std::string positional = "");

  void add(const std::string& name, int64_t* value, const std::string& value_name, const std::string& help);
  void add(const std::string& name, double* value, const std::string& value_name, const std::string& help);
  void add(const std::string& name, std::string* value, const std::string& value_name, const std::string& help);
  void add_switch(const std::string& name, bool* value, const std::string& help);

  // Parses argv; exits with 0 after --help, with 2 after one error line on
  // standard error. Returns the positional arguments.
  std::vector<std::string> parse(int argc, char** argv) const;

  std::string usage() const;
  const std::string& program() const { return program_; }

 private:
  struct Flag {
    std::string name, value_name, help, default_text;
    bool is_switch = false;
    // Sets the variable from the text; false when the text is not a valid value.
    std::function<bool(const std::string&)> set;
  };
  std::string program_, summary_, positional_;
  std::vector<Flag> flags_;
};

// Prints "<program>: <message>" on standard error and exits with `code`: the
// apps' one-line error. A message that starts with "<program>: " (the apps'
// own errors) is not prefixed twice.
[[noreturn]] void fail(const std::string& program, const std::string& message, int code = 1);

}  // namespace ember::apps
