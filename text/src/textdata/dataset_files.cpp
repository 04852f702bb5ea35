#include "dataset_files.h"

#include <fstream>
#include <sstream>

#include "ember/core/error.h"
#include "ember/text/utf8.h"

namespace ember::text::detail {

namespace fs = std::filesystem;

void check_split(const std::string& name, const std::string& split, const std::vector<std::string>& allowed) {
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == split) return;
    list += (i == 0 ? "" : (i + 1 == allowed.size() ? " or " : ", ")) + allowed[i];
  }
  EMBER_FAIL(name, ": unknown split '", split, "' (expected ", list, ")");
}

fs::path find_dataset_path(const std::string& name, const fs::path& root, const fs::path& relative, bool folder) {
  const fs::path candidates[] = {root / relative, root / name / relative, root / "datasets" / name / relative};
  std::string tried;
  for (const fs::path& p : candidates) {
    std::error_code ec;
    if (folder ? fs::is_directory(p, ec) : fs::is_regular_file(p, ec)) return p;
    tried += (tried.empty() ? "" : ", ") + p.string();
  }
  EMBER_FAIL(name, ": dataset not found: expected ", relative.string(), folder ? " (a folder)" : "", " under ",
             root.string(), " (tried ", tried, "; Ember never downloads)");
}

std::string read_file(const std::string& name, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in, name, ": cannot open ", path.string());
  std::ostringstream out;
  out << in.rdbuf();
  EMBER_CHECK(!in.bad(), name, ": error reading ", path.string());
  return std::move(out).str();
}

void check_utf8_at(const std::string& name, const fs::path& path, int64_t line, std::string_view text) {
  if (auto offset = find_invalid_utf8(text)) {
    EMBER_FAIL(name, ": ", path.string(), " line ", line, ": invalid UTF-8 at byte ", *offset, " of the line");
  }
}

void check_utf8_text(const std::string& name, const fs::path& path, std::string_view text) {
  const auto offset = find_invalid_utf8(text);
  if (!offset) return;
  const size_t previous_newline = text.rfind('\n', *offset);
  const size_t line_start = previous_newline == std::string_view::npos ? 0 : previous_newline + 1;
  int64_t line = 1;
  for (size_t i = 0; i < line_start; ++i) line += text[i] == '\n';
  EMBER_FAIL(name, ": ", path.string(), " line ", line, ": invalid UTF-8 at byte ", *offset - line_start,
             " of the line");
}

}  // namespace ember::text::detail
