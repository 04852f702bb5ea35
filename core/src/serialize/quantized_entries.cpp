#include "serialize/quantized_entries.h"

#include <algorithm>

#include "ember/ops/quantize.h"
#include "ember/serialize/json.h"

namespace ember::serialize {

// Note [Quantized safetensors entries]
// The safetensors format has no quantized dtypes. A quantized tensor `name`
// is saved as its stored integers (int_repr: I8 for qint8, U8 for quint8 and
// for quint4x2's packed bytes, I32 for qint32) under `name`, and the metadata
// key "name.__quantization__" holds its parameters as JSON:
//   {"dtype": "qint8", "qscheme": "per_tensor_affine", "scale": 0.1, "zero_point": 3}
//   {"dtype": "qint8", "qscheme": "per_channel_affine", "axis": 0, "sizes": [...]}
// (sizes: the quantized tensor's shape, which quint4x2's packing hides); a
// per-channel tensor adds the entries "name.__q_scales" (F64) and
// "name.__q_zero_points" (I64). Loading turns such entries back into
// quantized tensors; any reader sees plain integer tensors and the metadata.

namespace {
constexpr std::string_view kSuffix = ".__quantization__";

DType qdtype_from(const std::string& s, const std::string& where) {
  for (DType t : {kQInt8, kQUInt8, kQInt32, kQUInt4x2})
    if (dtype_name(t) == s) return t;
  EMBER_FAIL("load: ", where, ": unknown quantized dtype '", s, "'");
}
}  // namespace

bool has_quantized(const StateDict& tensors) {
  for (const auto& [name, t] : tensors)
    if (t.defined() && t.is_quantized()) return true;
  return false;
}

void expand_quantized(const StateDict& tensors, const Metadata& metadata, StateDict& plain, Metadata& plain_metadata) {
  plain_metadata = metadata;
  for (const auto& [name, t] : tensors) {
    if (!t.defined() || !t.is_quantized()) {
      plain.insert(name, t);
      continue;
    }
    const std::string key = name + std::string(kSuffix);
    EMBER_CHECK(!metadata.contains(key), "save: metadata key '", key,
                "' is reserved for the quantized tensor '", name, "'");
    std::string json = "{\"dtype\": " + json::quote(dtype_name(t.dtype())) + ", \"qscheme\": " +
                       json::quote(qscheme_name(t.qscheme()));
    if (t.qscheme() == QScheme::kPerTensorAffine) {
      json += ", \"scale\": " + json::float_literal(t.q_scale()) + ", \"zero_point\": " +
              std::to_string(t.q_zero_point());
    } else {
      json += ", \"axis\": " + std::to_string(t.q_per_channel_axis());
      plain.insert(name + ".__q_scales", t.q_per_channel_scales());
      plain.insert(name + ".__q_zero_points", t.q_per_channel_zero_points());
    }
    json += ", \"sizes\": [";
    for (int64_t d = 0; d < t.dim(); ++d) json += (d ? ", " : "") + std::to_string(t.size(d));
    json += "]}";
    plain_metadata[key] = json;
    plain.insert(name, t.int_repr());
  }
}

void collapse_quantized(SafetensorsContents& c, const std::string& file) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : c.metadata)
    if (k.size() > kSuffix.size() && k.compare(k.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
      keys.push_back(k);
  if (keys.empty()) return;
  StateDict out;
  std::vector<std::string> consumed;
  for (const std::string& key : keys) {
    const std::string name = key.substr(0, key.size() - kSuffix.size());
    const std::string where = file + ": tensor '" + name + "'";
    const Tensor* ints = c.tensors.find(name);
    EMBER_CHECK(ints != nullptr, "load: ", where, ": quantization metadata for a missing entry");
    const IValue p = json::parse(c.metadata.at(key), "load: " + where + " quantization metadata");
    EMBER_CHECK(p.is_dict() && p.find("dtype") && p.find("qscheme") && p.find("sizes"), "load: ", where,
                ": quantization metadata needs dtype, qscheme and sizes");
    const DType dtype = qdtype_from(p.at("dtype").to_string(), where);
    EMBER_CHECK(ints->dtype() == to_underlying_dtype(dtype), "load: ", where, ": stored as ", ints->dtype(),
                " but quantized as ", dtype, " (expected ", to_underlying_dtype(dtype), ")");
    const std::vector<int64_t> sizes = p.at("sizes").to_int_list();
    const std::string scheme = p.at("qscheme").to_string();
    Tensor q;
    if (scheme == "per_tensor_affine") {
      const double scale = p.at("scale").to_double();
      const int64_t zp = p.at("zero_point").to_int();
      if (dtype == kQUInt4x2) {
        q = empty_quantized(sizes, Quantizer::per_tensor_affine(dtype, scale, zp, "load"));
        DimVector bytes{IntArrayRef(sizes)};
        if (!bytes.empty()) bytes.back() = (bytes.back() + 1) / 2;
        EMBER_CHECK(ints->sizes() == IntArrayRef(bytes), "load: ", where, ": quint4x2 bytes of sizes ",
                    ints->sizes(), " do not hold sizes ", IntArrayRef(sizes));
        std::copy_n(static_cast<const uint8_t*>(ints->contiguous().data_ptr()), ints->numel(),
                    static_cast<uint8_t*>(q.data_ptr()));
      } else {
        EMBER_CHECK(ints->sizes() == IntArrayRef(sizes), "load: ", where, ": sizes ", ints->sizes(),
                    " differ from the quantized sizes ", IntArrayRef(sizes));
        q = _make_per_tensor_quantized_tensor(*ints, scale, zp);
      }
    } else if (scheme == "per_channel_affine") {
      const Tensor* scales = c.tensors.find(name + ".__q_scales");
      const Tensor* zps = c.tensors.find(name + ".__q_zero_points");
      EMBER_CHECK(scales && zps, "load: ", where, ": per-channel parameters (", name, ".__q_scales, ", name,
                  ".__q_zero_points) are missing");
      EMBER_CHECK(ints->sizes() == IntArrayRef(sizes), "load: ", where, ": sizes ", ints->sizes(),
                  " differ from the quantized sizes ", IntArrayRef(sizes));
      q = _make_per_channel_quantized_tensor(*ints, *scales, *zps, p.at("axis").to_int());
      consumed.push_back(name + ".__q_scales");
      consumed.push_back(name + ".__q_zero_points");
    } else {
      EMBER_FAIL("load: ", where, ": unsupported quantization scheme '", scheme, "'");
    }
    out.insert(name, q);
    c.metadata.erase(key);
  }
  StateDict merged;
  for (const auto& [name, t] : c.tensors) {
    if (std::find(consumed.begin(), consumed.end(), name) != consumed.end()) continue;
    const Tensor* q = out.find(name);
    merged.insert(name, q ? *q : t);
  }
  c.tensors = std::move(merged);
}

}  // namespace ember::serialize
