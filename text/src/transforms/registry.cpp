// Text's transform family in the suite's registry, and its load functions
// (which register the family first, so a static link keeps it).
#include <ember/core/error.h>

#include "ember/text/transforms.h"

namespace ember::text::transforms {
namespace {

namespace T = ::ember::transforms;
using Children = std::vector<T::AnyTransformPtr>;

TextTransformPtr as_text(T::AnyTransformPtr t, const char* op) {
  auto text = std::dynamic_pointer_cast<TextTransformImpl>(t);
  EMBER_CHECK(text != nullptr, op, ": the saved transform ", t ? t->name() : "none", " is not a text transform");
  return text;
}

std::vector<std::string> string_list(const Params& p, const std::string& key, const std::string& type) {
  const auto it = p.find(key);
  EMBER_CHECK(it != p.end(), type, ": the saved parameters lack '", key, "'");
  return to_strings(it->second, type.c_str());
}

}  // namespace

void register_text_transforms() {
  T::register_any_transform_family("text", [](const T::AddAnyTransform& add) {
    add("Truncate", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<TruncateImpl>(T::param<int64_t>(p, "max_seq_len", "Truncate"));
    });
    add("AddToken", [](const Params& p, Children) -> T::AnyTransformPtr {
      const auto it = p.find("token");
      EMBER_CHECK(it != p.end(), "AddToken: the saved parameters lack 'token'");
      return std::make_shared<AddTokenImpl>(it->second, T::param<bool>(p, "begin", "AddToken"));
    });
    add("ToTensor", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<ToTensorImpl>(T::param<std::optional<int64_t>>(p, "padding_value", "ToTensor"));
    });
    add("PadTransform", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<PadTransformImpl>(T::param<int64_t>(p, "max_length", "PadTransform"),
                                                T::param<int64_t>(p, "pad_value", "PadTransform"));
    });
    add("StrToIntTransform",
        [](const Params&, Children) -> T::AnyTransformPtr { return std::make_shared<StrToIntTransformImpl>(); });
    add("LabelToIndex", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<LabelToIndexImpl>(string_list(p, "label_names", "LabelToIndex"),
                                                T::param<bool>(p, "sort_names", "LabelToIndex"));
    });
    add("VocabTransform", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<VocabTransformImpl>(
          Vocab(string_list(p, "tokens", "VocabTransform"),
                T::param<std::optional<int64_t>>(p, "default_index", "VocabTransform")));
    });
    add("SentencePieceTokenizer", [](const Params& p, Children) -> T::AnyTransformPtr {
      return std::make_shared<SentencePieceTokenizerImpl>(
          T::param<std::string>(p, "sp_model_path", "SentencePieceTokenizer"));
    });
    add("Sequential", [](const Params&, Children children) -> T::AnyTransformPtr {
      std::vector<TextTransformPtr> transforms;
      for (auto& child : children) transforms.push_back(as_text(std::move(child), "Sequential"));
      return std::make_shared<SequentialImpl>(std::move(transforms));
    });
  });
}

TextTransformPtr from_json(const std::string& text) {
  register_text_transforms();
  return as_text(T::from_json_any(text), "text::transforms::load");
}

TextTransformPtr load(const std::string& path) {
  register_text_transforms();
  return as_text(T::load_any(path), "text::transforms::load");
}

}  // namespace ember::text::transforms
