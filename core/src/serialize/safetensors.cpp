// Note [safetensors reader]
// The reader trusts nothing in the file. In order:
//  1. the 8-byte header length must fit in the file and be <= 100 MB, so the
//     only allocation before validation is bounded by the file size;
//  2. the header must be strict JSON (serialize/json.h): an object whose
//     members are tensor entries {"dtype", "shape", "data_offsets"} (nothing
//     else) plus an optional "__metadata__" object of strings;
//  3. each entry: known dtype, non-negative dims whose product (and byte
//     count) does not overflow, end - begin == numel * itemsize;
//  4. sorted by offset, the entries must tile the data region exactly (the
//     first starts at 0, each starts where the previous ends, the last ends at
//     the end of the file), as the reference implementation requires: no
//     overlaps, gaps or trailing bytes;
//  5. only then is each tensor allocated (its size is a slice of the file) and
//     read; BOOL bytes must be 0 or 1.
// The header, its JSON tree and the tensors are charged to a MemoryBudget
// (Note [Checkpoint memory budget]): a header of 2-byte array elements would
// otherwise cost ~50x its size as JSON values. The tree is freed before the
// tensors are allocated; running out of memory is an ember::Error naming the
// file.
// The writer emits the header members in the caller's order but lays the data
// out by decreasing element size (stable), so every tensor's data is aligned
// to its element size when the header (padded with spaces to 8 bytes) is.
#include "ember/serialize/safetensors.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/core/out_of_memory.h"
#include "ember/ops/factories.h"
#include "serialize/byte_source.h"
#include "serialize/memory_budget.h"
#include "ember/serialize/json.h"
#include "ember/serialize/torch_load.h"
#include "ember/serialize/torch_save.h"
#include "ops/conj_views.h"
#include "serialize/quantized_entries.h"

static_assert(std::endian::native == std::endian::little,
              "Ember's serializers assume a little-endian host");

namespace ember {
namespace serialize {

namespace {

struct DTypeName {
  DType dtype;
  std::string_view name;
};
constexpr DTypeName kDTypeNames[] = {
    {kBool, "BOOL"},     {kUInt8, "U8"},      {kInt8, "I8"},         {kInt16, "I16"},
    {kInt32, "I32"},     {kInt64, "I64"},     {kFloat16, "F16"},     {kBFloat16, "BF16"},
    {kFloat32, "F32"},   {kFloat64, "F64"},   {kComplex64, "C64"},   {kComplex128, "C128"},
};
// In the format but without an Ember dtype.
constexpr std::string_view kUnsupportedNames[] = {"U16", "U32", "U64", "F8_E4M3", "F8_E5M2",
                                                  "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2"};

bool dtype_from_name(std::string_view name, DType& out) {
  for (const auto& e : kDTypeNames)
    if (e.name == name) {
      out = e.dtype;
      return true;
    }
  return false;
}

void write_u64le(std::ostream& os, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  os.write(b, 8);
}

void write_safetensors(std::ostream& os, const StateDict& tensors, const Metadata& metadata) {
  if (has_quantized(tensors)) {  // Note [Quantized safetensors entries]
    StateDict plain;
    Metadata plain_metadata;
    expand_quantized(tensors, metadata, plain, plain_metadata);
    return write_safetensors(os, plain, plain_metadata);
  }
  struct Entry {
    const std::string* name;
    Tensor data;
    uint64_t begin = 0, end = 0;
  };
  std::vector<Entry> entries;
  entries.reserve(tensors.size());
  {
    NoGradGuard no_grad;
    for (const auto& [name, t] : tensors) {
      EMBER_CHECK(t.defined(), "save: tensor '", name, "' is undefined");
      EMBER_CHECK(name != "__metadata__", "save: '__metadata__' is reserved and cannot name a tensor");
      EMBER_CHECK(json::valid_utf8(name), "save: tensor name is not valid UTF-8");
      entries.push_back({&name, resolve_bits(t.detach().cpu()).contiguous()});  // values, not a conj view's memory
    }
  }
  for (const auto& [k, v] : metadata)
    EMBER_CHECK(json::valid_utf8(k) && json::valid_utf8(v), "save: metadata '", k,
                "' is not valid UTF-8");
  // Data laid out by decreasing element size so that each tensor is aligned.
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return entries[a].data.element_size() > entries[b].data.element_size();
  });
  uint64_t offset = 0;
  for (size_t i : order) {
    entries[i].begin = offset;
    offset += entries[i].data.nbytes();
    entries[i].end = offset;
  }
  std::string header = "{";
  bool first = true;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    for (const auto& [k, v] : metadata) {
      if (!first) header += ',';
      first = false;
      header += json::quote(k) + ":" + json::quote(v);
    }
    header += '}';
    first = false;
  }
  for (const auto& e : entries) {
    if (!first) header += ',';
    first = false;
    header += json::quote(*e.name);
    header += ":{\"dtype\":\"";
    header += safetensors_dtype_name(e.data.dtype());
    header += "\",\"shape\":[";
    for (int64_t d = 0; d < e.data.dim(); ++d) {
      if (d) header += ',';
      header += std::to_string(e.data.size(d));
    }
    header += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]}";
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' ');
  write_u64le(os, header.size());
  os.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (size_t i : order)
    os.write(static_cast<const char*>(entries[i].data.data_ptr()),
             static_cast<std::streamsize>(entries[i].data.nbytes()));
}

uint64_t checked_u64(const IValue& v, const std::string& where) {
  EMBER_CHECK(v.is_int() && v.to_int() >= 0, where, " must be a non-negative integer");
  return static_cast<uint64_t>(v.to_int());
}

struct TensorEntry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

// Reads and checks the n-byte header (steps 2 and 3 of Note [safetensors
// reader]) into entries and metadata. The header and its JSON tree are freed
// (and their charges released) on return.
void read_header(const ByteSource& src, uint64_t n, MemoryBudget& budget, std::vector<TensorEntry>& entries,
                 Metadata& metadata) {
  const std::string& file = src.name();
  const uint64_t data_size = src.size() - 8 - n;
  int64_t header_bytes = static_cast<int64_t>(n + 1 + kHeapBlockOverhead);
  budget.charge(static_cast<uint64_t>(header_bytes), "the header");
  struct Release {
    MemoryBudget& budget;
    int64_t& bytes;
    ~Release() { budget.release(static_cast<uint64_t>(bytes)); }
  } release_header{budget, header_bytes};
  std::string header = src.read_string(8, static_cast<size_t>(n), "header");
  EMBER_CHECK(!header.empty() && header[0] == '{', "load: ", file,
              ": the header does not start with '{' (not a safetensors file?)");
  const std::function<void(int64_t)> account = [&](int64_t bytes) {
    if (bytes >= 0) budget.charge(static_cast<uint64_t>(bytes), "the header's JSON values");
    else budget.release(static_cast<uint64_t>(-bytes));
    header_bytes += bytes;
  };
  const IValue root = json::parse(header, "load: " + file + ": header", account);
  EMBER_CHECK(root.is_dict(), "load: ", file, ": the header is not a JSON object");

  const IDict& table = root.to_dict();
  budget.charge(table.size() * (sizeof(TensorEntry) + kHeapBlockOverhead) + kHeapBlockOverhead, "the tensor table");
  entries.reserve(table.size());
  for (const auto& [key, v] : table) {
    const std::string& name = key.to_string();
    const std::string where = "load: " + file + ": tensor '" + name + "'";
    if (name == "__metadata__") {
      EMBER_CHECK(v.is_dict(), "load: ", file, ": __metadata__ must be an object of strings");
      for (const auto& [k, s] : v.to_dict()) {
        EMBER_CHECK(s.is_string(), "load: ", file, ": __metadata__ value '", k.to_string(), "' is not a string");
        budget.charge(2 * (k.to_string().size() + s.to_string().size()) + 4 * sizeof(std::string) + kHashEntryBytes,
                      "the metadata");
        metadata.insert(k.to_string(), s.to_string());
      }
      continue;
    }
    EMBER_CHECK(v.is_dict(), where, ": entry is not a JSON object");
    const IValue* dtype = nullptr;
    const IValue* shape = nullptr;
    const IValue* offsets = nullptr;
    for (const auto& [field_key, fv] : v.to_dict()) {
      const std::string& field = field_key.to_string();
      if (field == "dtype") dtype = &fv;
      else if (field == "shape") shape = &fv;
      else if (field == "data_offsets") offsets = &fv;
      else EMBER_FAIL(where, ": unexpected field '", field, "'");
    }
    EMBER_CHECK(dtype && shape && offsets, where, ": missing ",
                !dtype ? "dtype" : !shape ? "shape" : "data_offsets");
    EMBER_CHECK(dtype->is_string(), where, ": dtype must be a string");
    const std::string& dtype_name = dtype->to_string();
    TensorEntry e{name, kFloat32, {}, 0, 0};
    if (!dtype_from_name(dtype_name, e.dtype)) {
      for (auto u : kUnsupportedNames)
        EMBER_CHECK(u != dtype_name, where, ": dtype ", u, " is not supported by Ember");
      EMBER_FAIL(where, ": unknown dtype '", dtype_name, "'");
    }
    EMBER_CHECK(shape->is_list(), where, ": shape must be an array");
    const std::vector<IValue>& dims = shape->to_list();
    EMBER_CHECK(dims.size() <= 64, where, ": shape has ", dims.size(), " dimensions (at most 64)");
    budget.charge(name.size() + 1 + dims.size() * sizeof(int64_t) + 2 * kHeapBlockOverhead, "the tensor table");
    // numel, and the product of max(dim, 1) so that strides cannot overflow.
    uint64_t numel = 1, extent = 1;
    bool overflow = false;
    for (const auto& d : dims) {
      const uint64_t dim = checked_u64(d, where + ": shape entry");
      e.shape.push_back(static_cast<int64_t>(dim));
      overflow |= __builtin_mul_overflow(extent, std::max<uint64_t>(dim, 1), &extent);
      numel *= dim;  // bounded by extent when no overflow
    }
    const uint64_t itemsize = element_size(e.dtype);
    uint64_t nbytes = 0;
    overflow |= extent > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
                __builtin_mul_overflow(numel, itemsize, &nbytes);
    EMBER_CHECK(!overflow, where, ": shape is too large");
    EMBER_CHECK(offsets->is_list() && offsets->to_list().size() == 2, where, ": data_offsets must be [begin, end]");
    e.begin = checked_u64(offsets->to_list()[0], where + ": data_offsets");
    e.end = checked_u64(offsets->to_list()[1], where + ": data_offsets");
    EMBER_CHECK(e.begin <= e.end, where, ": data_offsets [", e.begin, ", ", e.end, "] are reversed");
    EMBER_CHECK(e.end <= data_size, where, ": data_offsets [", e.begin, ", ", e.end,
                "] are past the end of the data (", data_size, " bytes)");
    EMBER_CHECK(e.end - e.begin == nbytes, where, ": data_offsets [", e.begin, ", ", e.end, "] span ",
                e.end - e.begin, " bytes but the shape and dtype ", dtype_name, " need ", nbytes);
    entries.push_back(std::move(e));
  }
}

SafetensorsContents load_from(const ByteSource& src, MemoryBudget& budget) {
  const std::string& file = src.name();
  EMBER_CHECK(src.size() >= 8, "load: ", file, ": ", src.size(),
              " bytes is too small for a safetensors file (8-byte header length missing)");
  unsigned char lenbuf[8];
  src.read(0, lenbuf, 8, "header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | lenbuf[i];
  EMBER_CHECK(n <= kMaxSafetensorsHeader, "load: ", file, ": header length ", n,
              " exceeds the 100 MB limit (not a safetensors file?)");
  EMBER_CHECK(n <= src.size() - 8, "load: ", file, ": header length ", n, " exceeds the file size (",
              src.size(), " bytes)");
  const uint64_t data_begin = 8 + n;
  const uint64_t data_size = src.size() - data_begin;
  std::vector<TensorEntry> entries;
  SafetensorsContents out;
  read_header(src, n, budget, entries, out.metadata);
  // The entries, in offset order, must tile the data region exactly.
  budget.charge(entries.size() * sizeof(const TensorEntry*) + kHeapBlockOverhead, "the tensor table");
  std::vector<const TensorEntry*> sorted;
  sorted.reserve(entries.size());
  for (const auto& e : entries) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t pos = 0;
  for (const TensorEntry* e : sorted) {
    EMBER_CHECK(e->begin == pos, "load: ", file, ": tensor '", e->name, "': data_offsets [", e->begin,
                ", ", e->end, "] ", e->begin < pos ? "overlap the previous tensor" : "leave a gap",
                " (expected to start at ", pos, ")");
    pos = e->end;
  }
  EMBER_CHECK(pos == data_size, "load: ", file, ": ", data_size - pos,
              " bytes after the last tensor's data (the file is longer than its header says)");
  for (const auto& e : entries) {
    // The data (at most the file: the entries tile it), the tensor and its
    // name in the returned dict.
    budget.charge(tensor_data_bytes(e.end - e.begin) + 512 + 2 * e.name.size() + kHashEntryBytes, "a tensor");
    Tensor t;
    try {
      t = empty(e.shape, e.dtype);
    } catch (const Error& err) {
      ember::detail::take_allocation_failure();
      EMBER_FAIL("load: ", file, ": out of memory while allocating tensor '", e.name, "' (", e.end - e.begin,
                 " bytes): ", err.what());
    } catch (const std::bad_alloc&) {
      EMBER_FAIL("load: ", file, ": out of memory (std::bad_alloc) while allocating tensor '", e.name, "' (",
                 e.end - e.begin, " bytes)");
    }
    src.read(data_begin + e.begin, t.data_ptr(), static_cast<size_t>(e.end - e.begin), "tensor data");
    if (e.dtype == kBool) {
      const auto* b = static_cast<const unsigned char*>(t.data_ptr());
      for (uint64_t i = 0; i < e.end - e.begin; ++i)
        EMBER_CHECK(b[i] <= 1, "load: ", file, ": tensor '", e.name, "': BOOL byte ", i, " is ",
                    int(b[i]), " (must be 0 or 1)");
    }
    out.tensors.insert(e.name, std::move(t));
  }
  return out;
}

SafetensorsContents load_checked(const ByteSource& src) {
  MemoryBudget budget("load: " + src.name(), src.size());
  SafetensorsContents c = run_within(budget, [&] { return load_from(src, budget); });
  collapse_quantized(c, src.name());  // Note [Quantized safetensors entries]
  return c;
}

}  // namespace

std::string_view safetensors_dtype_name(DType dtype) {
  for (const auto& e : kDTypeNames)
    if (e.dtype == dtype) return e.name;
  EMBER_FAIL("safetensors: no name for dtype ", dtype);
}

std::string save_safetensors_bytes(const StateDict& tensors, const Metadata& metadata) {
  std::ostringstream os(std::ios::binary);
  write_safetensors(os, tensors, metadata);
  return std::move(os).str();
}

SafetensorsContents load_safetensors(const std::string& path) {
  FileSource src(path);
  return load_checked(src);
}

SafetensorsContents load_safetensors_bytes(const void* data, size_t size) {
  MemorySource src(data, size);
  return load_checked(src);
}

}  // namespace serialize

void save(const std::string& path, const StateDict& tensors, const Metadata& metadata) {
  if (serialize::is_torch_checkpoint_path(path)) {
    // Note [save by extension]: .pt/.pth files are PyTorch checkpoints.
    EMBER_CHECK(metadata.empty(), "save: ", path, ": a PyTorch checkpoint (.pt/.pth) has no place for safetensors metadata (",
                metadata.size(), " entries); save a dict with ember::save_torch, or use a .safetensors path");
    save_torch(path, tensors);
    return;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.good(), "save: cannot open ", path, " for writing");
  serialize::write_safetensors(f, tensors, metadata);
  f.flush();
  EMBER_CHECK(f.good(), "save: error writing ", path);
}

void save(const std::string& path, const Tensor& tensor, const Metadata& metadata) {
  if (serialize::is_torch_checkpoint_path(path) && metadata.empty()) {
    save_torch(path, IValue(tensor));  // torch.save(tensor)
    return;
  }
  StateDict d;
  d.insert("tensor", tensor);
  save(path, d, metadata);
}

void save(const std::string& path, const std::vector<Tensor>& tensors, const Metadata& metadata) {
  if (serialize::is_torch_checkpoint_path(path) && metadata.empty()) {
    save_torch(path, IValue(tensors));  // torch.save([t0, t1, ...])
    return;
  }
  StateDict d;
  for (size_t i = 0; i < tensors.size(); ++i) d.insert(std::to_string(i), tensors[i]);
  save(path, d, metadata);
}

StateDict load(const std::string& path, Metadata* metadata) {
  if (serialize::is_torch_file(path)) {
    // Note [save by extension]: what save wrote to a .pt/.pth path (or any torch.save file).
    if (metadata) metadata->clear();
    return serialize::to_state_dict(serialize::load_torch(path));
  }
  serialize::SafetensorsContents c = serialize::load_safetensors(path);
  if (metadata) *metadata = std::move(c.metadata);
  return std::move(c.tensors);
}

Tensor load_tensor(const std::string& path) {
  if (serialize::is_torch_file(path)) {
    const IValue v = serialize::load_torch(path);
    EMBER_CHECK(v.is_tensor(), "load_tensor: ", path, " holds a ", v.type_name(), ", not a tensor");
    return v.to_tensor();
  }
  StateDict d = load(path);
  EMBER_CHECK(d.size() == 1, "load_tensor: ", path, " holds ", d.size(), " tensors, expected one");
  return d.item(0).second;
}

std::vector<Tensor> load_tensor_list(const std::string& path) {
  if (serialize::is_torch_file(path)) {
    const IValue v = serialize::load_torch(path);
    EMBER_CHECK(v.is_sequence(), "load_tensor_list: ", path, " holds a ", v.type_name(), ", not a list of tensors");
    std::vector<Tensor> out;
    for (const IValue& t : v.to_list()) {
      EMBER_CHECK(t.is_tensor(), "load_tensor_list: ", path, ": element ", out.size(), " is a ", t.type_name());
      out.push_back(t.to_tensor());
    }
    return out;
  }
  StateDict d = load(path);
  std::vector<Tensor> out(d.size());
  std::vector<bool> seen(d.size(), false);
  for (const auto& [name, t] : d) {
    size_t i = 0;
    auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), i);
    EMBER_CHECK(ec == std::errc() && p == name.data() + name.size() && i < d.size() && !seen[i] &&
                    (name == "0" || name[0] != '0'),
                "load_tensor_list: ", path, ": tensor name '", name,
                "' is not an index 0..", d.size() - 1, " (write lists with ember::save(path, vector))");
    seen[i] = true;
    out[i] = t;
  }
  return out;
}

}  // namespace ember
