#include "serialize/script_classes.h"

#include <cctype>

#include "ember/core/error.h"

namespace ember::serialize {

std::string script_module_name(std::string_view path) {
  if (path.size() <= 3 || path.substr(path.size() - 3) != ".py") return {};
  std::string out(path.substr(0, path.size() - 3));
  for (char& c : out)
    if (c == '/') c = '.';
  return out;
}

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// `["weight", "bias", ]` -> {"weight", "bias"}: double-quoted names without
// escapes, each followed by ", ".
std::vector<std::string> parse_name_list(std::string_view list, const std::string& what, size_t line_no) {
  auto bad = [&](const char* why) {
    EMBER_FAIL(what, ": line ", line_no, ": ", why, " in '", std::string(list.substr(0, 200)), "'");
  };
  if (list.size() < 2 || list.front() != '[' || list.back() != ']') bad("expected a [...] list of names");
  std::vector<std::string> out;
  size_t i = 1;
  while (true) {
    while (i < list.size() && list[i] == ' ') ++i;
    if (i == list.size() - 1) break;
    if (list[i] != '"') bad("expected a double-quoted name");
    const size_t close = list.find('"', i + 1);
    if (close == std::string_view::npos || close >= list.size() - 1) bad("unterminated name");
    std::string name(list.substr(i + 1, close - i - 1));
    if (name.empty() || name.find_first_of("\\.") != std::string::npos) bad("names must be non-empty, without '\\' or '.'");
    out.push_back(std::move(name));
    i = close + 1;
    if (i >= list.size() || list[i] != ',') bad("expected ',' after a name");
    ++i;
  }
  return out;
}

}  // namespace

void parse_script_classes(std::string_view text, const std::string& module, const std::string& what,
                          std::vector<ScriptClassRecord>& out) {
  ScriptClassRecord* current = nullptr;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.starts_with("class ")) {
      // class Name(Base):  (Module, NamedTuple, Enum, Interface, ...) or class Name:
      const size_t open = line.find('('), close = line.find(')');
      std::string_view name, base;
      if (open == std::string_view::npos && line.ends_with(":")) {
        name = line.substr(6, line.size() - 7);
      } else if (open != std::string_view::npos && close != std::string_view::npos && close > open &&
                 line.ends_with("):")) {
        name = line.substr(6, open - 6);
        base = line.substr(open + 1, close - open - 1);
      } else {
        EMBER_FAIL(what, ": line ", line_no, ": cannot read the class line '", std::string(line.substr(0, 200)), "'");
      }
      if (!is_identifier(name)) EMBER_FAIL(what, ": line ", line_no, ": bad class name '", std::string(name.substr(0, 200)), "'");
      out.push_back(ScriptClassRecord{module + "." + std::string(name), base == "Module", {}, {}});
      current = &out.back();
      continue;
    }
    if (!line.empty() && line[0] != ' ') current = nullptr;  // a top-level def or statement ends the class
    if (!current) continue;
    for (auto [prefix, names] : {std::pair{std::string_view("  __parameters__ = "), &current->parameters},
                                 std::pair{std::string_view("  __buffers__ = "), &current->buffers}}) {
      if (line.starts_with(prefix)) *names = parse_name_list(line.substr(prefix.size()), what, line_no);
    }
  }
}

}  // namespace ember::serialize
