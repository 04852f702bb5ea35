#pragma once
// A pickle writer (protocol 2) that emits what CPython's pickle.Pickler emits
// for the same objects, so that torch.save files written by Ember are the
// bytes torch.save writes (Note [Writing torch.save files] in torch_save.cpp).
//
// Note [Pickler memo]
// CPython memoizes every object it writes except None, bools, ints and floats
// (BINPUT after building it; BINGET when the same object comes again), keyed
// by object identity. Callers pass an identity (any pointer that names the
// object: a shared string, a container, a TensorImpl) to memo_get/memo_put;
// equal values that are different objects are written twice, as in Python.
// GLOBALs are memoized by their name (a Python class is one object).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ember/core/dtype.h"

namespace ember::serialize::pickle {

// torch's storage class for a dtype ("FloatStorage"), as torch.save and
// libtorch's archives name it; `who` names the writer in the error a
// quantized dtype raises (their storages are not written).
const char* torch_storage_type(DType dtype, const char* who);

class Pickler {
 public:
  // Starts the pickle: PROTO 2.
  Pickler();

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

  void none();
  void boolean(bool v);
  // BININT1 / BININT2 / BININT / LONG1, as CPython chooses.
  void integer(int64_t v);
  void floating(double v);  // BINFLOAT, big-endian
  // BINUNICODE (the text is written as it is: it must be UTF-8). Memoized
  // under `identity` when not null.
  void string(std::string_view text, const void* identity);
  // GLOBAL "module\nname\n", memoized by name.
  void global(std::string_view module, std::string_view name);

  void mark();
  void empty_tuple();
  // After the n items (n <= 3: TUPLE1-3, else MARK ... TUPLE: the caller
  // wrote the MARK when n > 3 or n == 0 is handled by empty_tuple()).
  void tuple_end(size_t n);
  void empty_list();
  void empty_dict();
  void append();       // APPEND
  void appends();      // APPENDS (after a MARK)
  void setitem();      // SETITEM
  void setitems();     // SETITEMS (after a MARK)
  void reduce();       // REDUCE
  void build();        // BUILD
  void binpersid();    // BINPERSID
  void newobj();       // NEWOBJ
  // libtorch's unpickler reads LONG1 only with 8 bytes: integers past 32 bits
  // are then written that way (TorchScript archives).
  void set_long1_eight_bytes(bool v) { long1_eight_ = v; }
  void stop();         // STOP

  // Note [Pickler memo]: writes BINGET and returns true when `identity` was
  // memoized before.
  bool memo_get(const void* identity);
  // Memoizes the value just written (BINPUT / LONG_BINPUT at len(memo)).
  void memo_put(const void* identity);

 private:
  void op(uint8_t code) { out_.push_back(static_cast<char>(code)); }
  void le(uint64_t v, int n);
  std::string out_;
  std::unordered_map<const void*, uint32_t> memo_;
  std::unordered_map<std::string, uint32_t> globals_;
  uint32_t next_ = 0;
  bool long1_eight_ = false;
};

}  // namespace ember::serialize::pickle
