// Vocab::save / Vocab::load: a small self-describing text format (docs/text.md,
// "Vocab files"). Tokens are length-prefixed so that any bytes round-trip.
#include <charconv>
#include <fstream>
#include <sstream>

#include <ember/core/error.h>
#include <ember/text/vocab.h>

namespace ember::text {
namespace {

constexpr std::string_view kVocabMagic = "ember-text-vocab 1";

// Parses a non-negative decimal integer that fills `s` entirely.
bool parse_count(std::string_view s, int64_t& value) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() && value >= 0;
}

class VocabReader {
 public:
  VocabReader(std::string data, const std::string& path) : data_(std::move(data)), path_(path) {}

  // The next line (without '\n'); a missing '\n' means the file is truncated.
  std::string_view line(const char* what) {
    const size_t end = data_.find('\n', pos_);
    EMBER_CHECK(end != std::string::npos, "Vocab::load: ", path_, " is truncated (expected ", what, ")");
    std::string_view out(data_.data() + pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  // "<key> <count>" with the given key.
  int64_t keyed_count(std::string_view key) {
    const std::string_view l = line(std::string(key).c_str());
    int64_t value = 0;
    EMBER_CHECK(l.size() > key.size() + 1 && l.substr(0, key.size()) == key && l[key.size()] == ' ' &&
                    parse_count(l.substr(key.size() + 1), value),
                "Vocab::load: ", path_, ": expected '", key, " <n>', got '", l, "'");
    return value;
  }
  std::string token(int64_t index) {
    const size_t space = data_.find(' ', pos_);
    int64_t length = 0;
    EMBER_CHECK(space != std::string::npos && parse_count(std::string_view(data_).substr(pos_, space - pos_), length),
                "Vocab::load: ", path_, ": token ", index, " lacks its '<byte length> ' prefix");
    EMBER_CHECK(static_cast<uint64_t>(length) < data_.size() - space &&
                    data_[space + 1 + static_cast<size_t>(length)] == '\n',
                "Vocab::load: ", path_, ": token ", index, " of ", length,
                " bytes is truncated or not followed by a newline");
    std::string out = data_.substr(space + 1, static_cast<size_t>(length));
    pos_ = space + 2 + static_cast<size_t>(length);
    return out;
  }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  std::string data_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

void Vocab::save(const std::string& path) const {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.good(), "Vocab::save: cannot open ", path, " for writing");
  f << kVocabMagic << '\n';
  if (default_index_) {
    f << "default_index " << *default_index_ << '\n';
  } else {
    f << "default_index none\n";
  }
  f << "size " << itos_.size() << '\n';
  for (const auto& token : itos_) f << token.size() << ' ' << token << '\n';
  f.flush();
  EMBER_CHECK(f.good(), "Vocab::save: writing ", path, " failed");
}

Vocab Vocab::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), "Vocab::load: cannot open ", path);
  std::ostringstream buffer;
  buffer << f.rdbuf();
  VocabReader reader(buffer.str(), path);
  const std::string_view magic = reader.line("the header line");
  EMBER_CHECK(magic == kVocabMagic, "Vocab::load: ", path, " is not an Ember vocab file (first line '", magic,
              "', expected '", kVocabMagic, "')");
  std::optional<int64_t> default_index;
  const std::string_view def = reader.line("the default_index line");
  if (def != "default_index none") {
    constexpr std::string_view kKey = "default_index ";
    int64_t value = 0;
    const bool negative = def.size() > kKey.size() && def[kKey.size()] == '-';
    EMBER_CHECK(def.substr(0, kKey.size()) == kKey && parse_count(def.substr(kKey.size() + (negative ? 1 : 0)), value),
                "Vocab::load: ", path, ": expected 'default_index <n>' or 'default_index none', got '", def, "'");
    default_index = negative ? -value : value;
  }
  const int64_t count = reader.keyed_count("size");
  std::vector<std::string> tokens;
  for (int64_t i = 0; i < count; ++i) tokens.push_back(reader.token(i));
  EMBER_CHECK(reader.at_end(), "Vocab::load: ", path, " has data after its ", count, " tokens");
  try {
    return Vocab(std::move(tokens), default_index);
  } catch (const Error& e) {
    EMBER_FAIL("Vocab::load: ", path, ": ", e.what());
  }
}

}  // namespace ember::text
