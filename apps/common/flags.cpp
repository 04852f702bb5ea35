#include "flags.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ember::apps {
namespace {

std::string format_double(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

Flags::Flags(std::string program, std::string summary, std::string positional)
    : program_(std::move(program)), summary_(std::move(summary)), positional_(std::move(positional)) {}

void Flags::add(const std::string& name, int64_t* value, const std::string& value_name, const std::string& help) {
  flags_.push_back({name, value_name, help, std::to_string(*value), false, [value](const std::string& text) {
                      int64_t v = 0;
                      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
                      if (error != std::errc() || end != text.data() + text.size()) return false;
                      *value = v;
                      return true;
                    }});
}

void Flags::add(const std::string& name, double* value, const std::string& value_name, const std::string& help) {
  flags_.push_back({name, value_name, help, format_double(*value), false, [value](const std::string& text) {
                      char* end = nullptr;
                      const double v = std::strtod(text.c_str(), &end);
                      if (text.empty() || *end != '\0') return false;
                      *value = v;
                      return true;
                    }});
}

void Flags::add(const std::string& name, std::string* value, const std::string& value_name,
                const std::string& help) {
  flags_.push_back({name, value_name, help, *value, false, [value](const std::string& text) {
                      *value = text;
                      return true;
                    }});
}

void Flags::add_switch(const std::string& name, bool* value, const std::string& help) {
  flags_.push_back({name, "", help, "", true, [value](const std::string&) {
                      *value = true;
                      return true;
                    }});
}

std::string Flags::usage() const {
  std::ostringstream s;
  s << "usage: " << program_ << " [options]" << (positional_.empty() ? "" : " " + positional_) << "\n\n"
    << summary_ << "\n\noptions:\n";
  for (const Flag& f : flags_) {
    std::string left = "  " + f.name + (f.is_switch ? "" : " " + f.value_name);
    if (left.size() < 28) left.resize(28, ' ');
    else left += "\n" + std::string(28, ' ');
    s << left << f.help;
    if (!f.is_switch && !f.default_text.empty()) s << " (default: " << f.default_text << ")";
    s << "\n";
  }
  s << "  --help                    this text\n";
  return s.str();
}

std::vector<std::string> Flags::parse(int argc, char** argv) const {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage().c_str(), stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    std::string inline_value;
    bool has_inline = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    const Flag* flag = nullptr;
    for (const Flag& f : flags_)
      if (f.name == arg) flag = &f;
    if (flag == nullptr) fail(program_, "unknown option '" + arg + "' (see --help)", 2);
    if (flag->is_switch) {
      if (has_inline) fail(program_, "option " + arg + " takes no value", 2);
      flag->set("");
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= argc) fail(program_, "option " + arg + " needs a value (" + flag->value_name + ")", 2);
      inline_value = argv[++i];
    }
    if (!flag->set(inline_value))
      fail(program_, "option " + arg + ": '" + inline_value + "' is not a valid " + flag->value_name, 2);
  }
  return positional;
}

void fail(const std::string& program, const std::string& message, int code) {
  // Messages from an app's own code name the program already.
  const std::string prefix = program + ": ";
  const size_t skip = message.rfind(prefix, 0) == 0 ? prefix.size() : 0;
  std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str() + skip);
  std::exit(code);
}

}  // namespace ember::apps
