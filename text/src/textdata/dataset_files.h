#pragma once
// Shared by the text datasets: finding a dataset's files under a root in the
// layouts torchtext leaves behind, reading files, and UTF-8 checks that name
// the file and the line.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ember::text::detail {

// The split names a dataset accepts, checked: "<name>: unknown split 'x' (expected train, valid or test)".
void check_split(const std::string& name, const std::string& split, const std::vector<std::string>& allowed);

// The first of root/<relative>, root/<name>/<relative>, root/datasets/<name>/<relative>
// that exists (as a regular file, or as a folder when `folder`); else an
// ember::Error "<name>: dataset not found: expected <relative> under <root> (tried ...)".
std::filesystem::path find_dataset_path(const std::string& name, const std::filesystem::path& root,
                                        const std::filesystem::path& relative, bool folder = false);

// The whole file, or an ember::Error naming it.
std::string read_file(const std::string& name, const std::filesystem::path& path);

// Raises "<name>: <path> line <line>: invalid UTF-8 at byte <offset of the line>" when `text` is not UTF-8.
void check_utf8_at(const std::string& name, const std::filesystem::path& path, int64_t line, std::string_view text);

// The same for a whole file's text: the error names the line of the first bad byte.
void check_utf8_text(const std::string& name, const std::filesystem::path& path, std::string_view text);

}  // namespace ember::text::detail
